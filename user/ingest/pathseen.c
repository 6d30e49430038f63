// SPDX-License-Identifier: GPL-2.0-only
#include "hooks.h"
#include "pathseen.h"
#include "words.h"

bool ps_pathseen_swap(struct ps_pathseen *t, uint64_t id, uint8_t hook, uint32_t ifindex,
		      uint64_t ts_ns, struct ps_pathseen_slot *prev)
{
	struct ps_pathseen_slot *s = &t->s[ps_packet_id_hash(id) & (PS_PATHSEEN_SLOTS - 1)];
	bool had = s->used && s->id == id;

	if (had)
		*prev = *s;
	*s = (struct ps_pathseen_slot){
		.id = id, .ts_ns = ts_ns, .ifindex = ifindex, .hook = hook, .used = true
	};
	return had;
}

const char *ps_pathseen_note(struct ps_pathseen *t, const struct ps_meta *m,
			     const char *(*ifname)(void *arg, uint32_t ifindex, uint8_t hook),
			     void *arg, char *buf, size_t len)
{
	struct ps_pathseen_slot prev;
	const char *name;
	uint64_t d;
	int n;

	if (!ps_pathseen_swap(t, m->pkt_id, m->hook, m->ifindex, m->ts_ns, &prev) ||
	    m->ts_ns < prev.ts_ns)
		return NULL;
	d = m->ts_ns - prev.ts_ns;
	ps_pathtime_add(&t->times, prev.hook, prev.ifindex, m->hook, m->ifindex, d);
	name = ifname(arg, prev.ifindex, prev.hook);
	n = ps_word_put(buf, len, 0, PS_WORD_PREV, "%s@%s", ps_hook_name(prev.hook),
			name ? name : "?");
	ps_word_put(buf, len, n, PS_WORD_AFTER, "%llu.%03lluus", (unsigned long long)(d / 1000),
		    (unsigned long long)(d % 1000));
	return buf;
}
