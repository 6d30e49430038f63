/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture's interfaces as a set that follows the links: which ones -i
 * wants (names, "any", patterns such as 'veth*'), which are members and in
 * which slot, and what each piece of news about a link means for them. It
 * is pure: it is told the links (a listing of every interface there is,
 * or one event from rtnetlink, user/kernel/linkwatch.h) and tells its
 * subscriber (struct ps_ifset_ops) which interface comes into which slot,
 * which leaves and why, and which goes down or comes up. Subscribing
 * replays the interfaces there are, the named ones first; a later listing
 * is replayed the same way (news rtnetlink dropped, a reload), so there
 * is one path for an interface that is there at the start and one that
 * comes later. Unit-tested in tests/unit/test_ifset.c.
 *
 * A member is followed by its ifindex: renamed, it stays. One the
 * subscriber refused (or that found no room) is not offered again at its
 * next news, only at a retry (room freed, a reload).
 */
#ifndef PS_IFSET_H
#define PS_IFSET_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include "linkwatch.h"

/* Refused interfaces remembered (said once; their next news not offered). */
#define PS_IFSET_REFUSED_KEPT 64

/* Why a member leaves. */
enum ps_ifset_why {
	PS_IFSET_VANISHED, /* deleted, or moved to another namespace */
	PS_IFSET_UNWANTED, /* a new -i list leaves it out */
};

struct ps_ifset_ops {
	/* ev's interface is wanted and goes into the free slot: 0 once it is
	 * captured there; else -errno, said by the subscriber, and it is
	 * refused (the start's replay ends with that error). */
	int (*add)(void *arg, int slot, const struct ps_link_event *ev);
	/* Member slot leaves; its slot is free once this returns. */
	void (*remove)(void *arg, int slot, enum ps_ifset_why why);
	/* Member slot went down (up false) or came up. */
	void (*updown)(void *arg, int slot, bool up);
	/* ev's interface is wanted but the set is full (its room): said. */
	void (*no_room)(void *arg, const struct ps_link_event *ev);
	void *arg;
};

struct ps_ifset_member {
	int ifindex; /* 0: a free slot */
	char name[IF_NAMESIZE];
	bool up, loopback;
};

struct ps_ifset {
	const char *const *want; /* -i's */
	int n_want;
	const char *follow; /* the first of "any" and the patterns; NULL: names only */
	struct ps_ifset_member *m;
	int n;	     /* slots used so far (members and free ones) */
	int room;    /* the most slots; 0: as many as come (until ps_ifset_set_room) */
	int n_named; /* after the start: its first members, the named ones */
	int refused[PS_IFSET_REFUSED_KEPT];
	unsigned int n_refused;
	bool room_short; /* one was refused for want of room ... */
	bool retry_due;	 /* ... and a member has left since: a retry is due */
	struct ps_ifset_ops ops;
};

/* -i any or a pattern: what makes a set follow interfaces. */
bool ps_ifset_follows(const char *name);
/* The set of want[0..n) (which must outlive it), no member yet; 0, or
 * -ENODEV for a name no interface can have (said in err). */
int ps_ifset_init(struct ps_ifset *s, const char *const *want, int n, char *err, size_t len);
/* Subscribe, and replay now[0..n_now) (every interface there is): the
 * named ones first, in -i's order, then every other one wanted, in the
 * listing's order. 0, -ENODEV for a named one that is not there (said in
 * err), -ENOMEM, or the first error of ops->add. */
int ps_ifset_start(struct ps_ifset *s, const struct ps_ifset_ops *ops,
		   const struct ps_link_event *now, int n_now, char *err, size_t len);
/* From now on at most room slots (at least those used); 0 or -ENOMEM. */
int ps_ifset_set_room(struct ps_ifset *s, int room);
/* One piece of news. ev->gone must say that the link went (a deletion
 * first takes an interface down: the caller asks). */
void ps_ifset_event(struct ps_ifset *s, const struct ps_link_event *ev);
/* Every interface there is, as if each had just told us: members not in
 * the listing have vanished. */
void ps_ifset_replay(struct ps_ifset *s, const struct ps_link_event *now, int n_now);
/* A new -i list (which must outlive the set): members it leaves out are
 * removed, and those refused before may be offered again (replay next). */
void ps_ifset_want(struct ps_ifset *s, const char *const *want, int n);
/* Forget the refused ones: a replay offers them again. */
void ps_ifset_forget_refused(struct ps_ifset *s);
/* The slot of ifindex, of the member named name; -1 if none. */
int ps_ifset_slot_of(const struct ps_ifset *s, int ifindex);
int ps_ifset_slot_named(const struct ps_ifset *s, const char *name);
/* Members now. */
int ps_ifset_count(const struct ps_ifset *s);
void ps_ifset_free(struct ps_ifset *s);

#endif
