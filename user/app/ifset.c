// SPDX-License-Identifier: GPL-2.0-only
/* The capture's interfaces as a set that follows the links; see ifset.h. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errmsg.h"
#include "ifset.h"

/* A name with a shell pattern's characters in it: -i 'veth*'. */
static bool is_pattern(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

bool ps_ifset_follows(const char *name)
{
	return !strcmp(name, "any") || is_pattern(name);
}

/*
 * Does an interface belong to the set? -i any: every one that is up, but
 * lo (whose packets are the host talking to itself) only when named as
 * well; a pattern: every one whose name matches, up or not (as a named
 * one); a name: that one.
 */
static bool wanted(const struct ps_ifset *s, const char *name, bool up, bool loopback)
{
	for (int i = 0; i < s->n_want; i++) {
		const char *w = s->want[i];

		if (!strcmp(w, "any") ? up && !loopback :
		    is_pattern(w)     ? !fnmatch(w, name, 0) :
					!strcmp(w, name))
			return true;
	}
	return false;
}

static const char *first_follow(const char *const *want, int n)
{
	for (int i = 0; i < n; i++)
		if (ps_ifset_follows(want[i]))
			return want[i];
	return NULL;
}

int ps_ifset_init(struct ps_ifset *s, const char *const *want, int n, char *err, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->want = want;
	s->n_want = n;
	s->follow = first_follow(want, n);
	for (int i = 0; i < n; i++)
		if (!ps_ifset_follows(want[i]) && strlen(want[i]) >= IF_NAMESIZE) {
			ps_fail(err, len, "unknown interface '%s'", want[i]);
			return -ENODEV;
		}
	return 0;
}

int ps_ifset_slot_of(const struct ps_ifset *s, int ifindex)
{
	for (int i = 0; ifindex && i < s->n; i++)
		if (s->m[i].ifindex == ifindex)
			return i;
	return -1;
}

int ps_ifset_slot_named(const struct ps_ifset *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (s->m[i].ifindex && !strcmp(s->m[i].name, name))
			return i;
	return -1;
}

int ps_ifset_count(const struct ps_ifset *s)
{
	int n = 0;

	for (int i = 0; i < s->n; i++)
		n += s->m[i].ifindex != 0;
	return n;
}

static void refuse(struct ps_ifset *s, int ifindex)
{
	s->refused[s->n_refused++ % PS_IFSET_REFUSED_KEPT] = ifindex;
}

static bool refused(const struct ps_ifset *s, int ifindex)
{
	for (int r = 0; r < PS_IFSET_REFUSED_KEPT; r++)
		if (s->refused[r] == ifindex)
			return true;
	return false;
}

/* A free slot (the first), growing while the set has no room set (up to
 * its room, allocated already); -E2BIG if it is full, -ENOMEM. */
static int free_slot(struct ps_ifset *s)
{
	struct ps_ifset_member *m;
	int i;

	for (i = 0; i < s->n && s->m[i].ifindex; i++)
		;
	if (i < s->n)
		return i;
	if (s->room)
		return s->n < s->room ? s->n++ : -E2BIG;
	m = realloc(s->m, (size_t)(s->n + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	s->m = m;
	s->m[s->n] = (struct ps_ifset_member){ 0 };
	return s->n++;
}

/* ev's interface into the set, offered to the subscriber. */
static int add(struct ps_ifset *s, const struct ps_link_event *ev)
{
	int slot = free_slot(s), err;

	if (slot == -E2BIG) {
		s->ops.no_room(s->ops.arg, ev);
		s->room_short = true;
	}
	if (slot < 0) {
		refuse(s, ev->ifindex);
		return slot;
	}
	s->m[slot].ifindex = ev->ifindex;
	s->m[slot].up = ev->up;
	s->m[slot].loopback = ev->loopback;
	snprintf(s->m[slot].name, sizeof(s->m[slot].name), "%s", ev->name);
	err = s->ops.add(s->ops.arg, slot, ev);
	if (err) {
		s->m[slot].ifindex = 0;
		refuse(s, ev->ifindex);
	}
	return err;
}

static void remove_member(struct ps_ifset *s, int slot, enum ps_ifset_why why)
{
	s->ops.remove(s->ops.arg, slot, why);
	s->m[slot].ifindex = 0;
	/* Room again for one refused for the lack of it. */
	s->retry_due |= s->room_short;
}

void ps_ifset_event(struct ps_ifset *s, const struct ps_link_event *ev)
{
	int slot = ps_ifset_slot_of(s, ev->ifindex);

	if (slot < 0) {
		if (s->follow && !ev->gone && ev->name[0] && !refused(s, ev->ifindex) &&
		    wanted(s, ev->name, ev->up, ev->loopback))
			add(s, ev);
		return;
	}
	if (ev->gone) {
		remove_member(s, slot, PS_IFSET_VANISHED);
		return;
	}
	/* Renamed: followed by its ifindex, it keeps its place. */
	if (ev->name[0])
		snprintf(s->m[slot].name, sizeof(s->m[slot].name), "%s", ev->name);
	if (ev->up == s->m[slot].up)
		return;
	s->m[slot].up = ev->up;
	s->ops.updown(s->ops.arg, slot, ev->up);
}

static const struct ps_link_event *find(const struct ps_link_event *now, int n, int ifindex,
					const char *name)
{
	for (int i = 0; i < n; i++)
		if (name ? !strcmp(now[i].name, name) : now[i].ifindex == ifindex)
			return &now[i];
	return NULL;
}

void ps_ifset_replay(struct ps_ifset *s, const struct ps_link_event *now, int n_now)
{
	for (int i = 0; i < s->n; i++)
		if (s->m[i].ifindex && !find(now, n_now, s->m[i].ifindex, NULL))
			remove_member(s, i, PS_IFSET_VANISHED);
	for (int i = 0; i < n_now; i++)
		ps_ifset_event(s, &now[i]);
}

int ps_ifset_start(struct ps_ifset *s, const struct ps_ifset_ops *ops,
		   const struct ps_link_event *now, int n_now, char *err, size_t len)
{
	int ret = 0;

	s->ops = *ops;
	for (int i = 0; i < s->n_want && !ret; i++) {
		const struct ps_link_event *ev;

		if (ps_ifset_follows(s->want[i]) || ps_ifset_slot_named(s, s->want[i]) >= 0)
			continue;
		ev = find(now, n_now, 0, s->want[i]);
		if (!ev) {
			ps_fail(err, len, "unknown interface '%s'", s->want[i]);
			return -ENODEV;
		}
		ret = add(s, ev);
	}
	s->n_named = s->n;
	for (int i = 0; s->follow && i < n_now && !ret; i++)
		if (ps_ifset_slot_of(s, now[i].ifindex) < 0 &&
		    wanted(s, now[i].name, now[i].up, now[i].loopback))
			ret = add(s, &now[i]);
	return ret;
}

int ps_ifset_set_room(struct ps_ifset *s, int room)
{
	struct ps_ifset_member *m;

	if (room < s->n)
		room = s->n;
	if (room < 1)
		room = 1;
	m = realloc(s->m, (size_t)room * sizeof(*m));
	if (!m)
		return -ENOMEM;
	s->m = m;
	s->room = room;
	return 0;
}

void ps_ifset_want(struct ps_ifset *s, const char *const *want, int n)
{
	s->want = want;
	s->n_want = n;
	s->follow = first_follow(want, n);
	for (int i = 0; i < s->n; i++)
		if (s->m[i].ifindex && !wanted(s, s->m[i].name, s->m[i].up, s->m[i].loopback))
			remove_member(s, i, PS_IFSET_UNWANTED);
	ps_ifset_forget_refused(s);
}

void ps_ifset_forget_refused(struct ps_ifset *s)
{
	memset(s->refused, 0, sizeof(s->refused));
	s->room_short = s->retry_due = false;
}

void ps_ifset_free(struct ps_ifset *s)
{
	free(s->m);
	s->m = NULL;
	s->n = s->room = 0;
}
