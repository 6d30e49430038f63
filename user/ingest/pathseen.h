/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where each packet followed across hooks (PS_F_PATH) was written last,
 * by its id: the next record of it says where that was and how long
 * before ("prev=tc-ingress@paA after=23.417us"). The records come in time
 * order, so a packet's last record is the one before it. A fixed table by
 * the id's hash, a slot taken over by the next id that falls in it: a
 * record whose predecessor's slot was taken says nothing of it, as does
 * one whose predecessor was lost.
 */
#ifndef PS_PATHSEEN_H
#define PS_PATHSEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pathtime.h"
#include "pktsample.h"

#define PS_PATHSEEN_SLOTS 4096 /* a power of two */

/* A packet id's hash, for a table of ids: an id is its first record's
 * CPU << 48 | that CPU's sequence, so the sequence spreads the packets of
 * a CPU, the CPU those of each. */
static inline uint64_t ps_packet_id_hash(uint64_t id)
{
	return id ^ (id >> 48) * 0x9e3779b1u;
}

struct ps_pathseen_slot {
	uint64_t id, ts_ns;
	uint32_t ifindex;
	uint8_t hook;
	bool used;
};

struct ps_pathseen {
	struct ps_pathseen_slot s[PS_PATHSEEN_SLOTS];
	struct ps_pathtime times; /* each time a note told, by its pair */
};

/* Packet id written at (hook, ifindex) at ts_ns, now its last place; its
 * place before into *prev, and true, if the table still has it. Pure. */
bool ps_pathseen_swap(struct ps_pathseen *t, uint64_t id, uint8_t hook, uint32_t ifindex,
		      uint64_t ts_ns, struct ps_pathseen_slot *prev);

/*
 * The words of a followed packet's record m (PS_F_PATH), into buf: at
 * which hook of which interface its record before was written and how long
 * before ("prev=tc-ingress@paA after=23.417us"), ifname naming the
 * interface of an (ifindex, hook) or NULL; buf, or NULL for its first
 * record or one whose predecessor is not known. m is its last place now,
 * and the time told is counted in t->times.
 */
const char *ps_pathseen_note(struct ps_pathseen *t, const struct ps_meta *m,
			     const char *(*ifname)(void *arg, uint32_t ifindex, uint8_t hook),
			     void *arg, char *buf, size_t len);

#endif
