// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "hooks.h"
#include "linktype.h"
#include "target.h"
#include "topkey.h"
#include "who.h"
#include "words.h"

enum ps_top_dir ps_top_dir_of(unsigned int hook)
{
	if (ps_hook_is_drop(hook))
		return PS_TOP_DROPPED;
	return hook == PS_HOOK_TC_EGRESS ? PS_TOP_OUT : PS_TOP_IN;
}

/* Keys of rows that stand for a reason, not a thing: apart from pids,
 * cgroup ids and hashes by their top bits. */
#define REASON_KEY(n) (0xffffffff00000000ull | (n))

static void name_process(struct ps_top_row *r, const struct ps_who *w)
{
	const char *why;

	if (!w) {
		why = "(context off)";
	} else if (w->known) {
		snprintf(r->name, sizeof(r->name), "%s (%u)", w->comm, w->pid);
		return;
	} else if (w->ctx == PS_CTX_NO_SOCKET) {
		why = "(no local socket)";
	} else if (w->ctx == PS_CTX_NOT_L4) {
		why = "(not TCP/UDP)";
	} else if (w->ctx == PS_CTX_UNNAMED) {
		why = "(socket without cookie)";
	} else if (w->ctx == PS_CTX_SENDER) {
		why = "(sender's socket not found)";
	} else {
		why = "(socket not found)";
	}
	snprintf(r->name, sizeof(r->name), "%s", why);
}

static uint64_t process_key(const struct ps_who *w)
{
	if (!w)
		return REASON_KEY(0xff);
	return w->known ? w->pid : REASON_KEY(w->ctx);
}

/* A row per container, pod or namespace: keyed by the number the owner's
 * words give it (who.h), so that one thing is one row however many
 * cgroups it has, and "(none)" is one row. */
static void count_named(struct ps_top *t, enum ps_top_group g, const struct ps_who *w, uint64_t key,
			enum ps_top_dir dir, const struct ps_sink_pkt *p, uint32_t weight)
{
	struct ps_top_row *r = ps_top_row(t, g, w ? key : REASON_KEY(0xff));

	if (!r->name[0]) {
		if (!w)
			snprintf(r->name, sizeof(r->name), "(context off)");
		else if (!key)
			snprintf(r->name, sizeof(r->name), "(none)");
		else if (g == PS_TOP_CONTAINER)
			ps_who_container_label(w, r->name, sizeof(r->name));
		else if (g == PS_TOP_POD)
			snprintf(r->name, sizeof(r->name), "%s%s%s", w->names.pod_ns,
				 w->names.pod_ns[0] ? "/" : "", w->names.pod);
		else
			snprintf(r->name, sizeof(r->name), "%s", w->names.pod_ns);
	}
	ps_top_count(r, dir, p->wire_len, weight);
}

/* One end to end of a flow: what a row is keyed and named by. */
struct flow {
	uint16_t ethertype; /* host order; 0x0800, 0x86dd: the rest is set */
	uint8_t proto, pad;
	uint16_t lport, rport;
	uint8_t local[16], remote[16];
};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The frame's network header: its ethertype and offset, past VLAN tags. */
static size_t network_start(const struct ps_sink_pkt *p, uint16_t *ethertype)
{
	const uint8_t *d = p->data;
	size_t off = 12;

	switch (p->t->linktype) {
	case PS_LINKTYPE_RAW:
	case PS_LINKTYPE_RAW_DLT:
		if (!p->cap_len)
			return 0;
		*ethertype = (d[0] >> 4) == 6 ? 0x86dd : 0x0800;
		return 0;
	case PS_LINKTYPE_ETHERNET:
		break;
	default:
		*ethertype = 0;
		return 0;
	}
	*ethertype = 0;
	while (off + 2 <= p->cap_len) {
		*ethertype = get16(d + off);
		if (*ethertype != 0x8100 && *ethertype != 0x88a8)
			return off + 2;
		off += 4;
	}
	*ethertype = 0;
	return 0;
}

/* The flow of p, seen from this host (dir: which way p went). */
static void flow_of(const struct ps_sink_pkt *p, enum ps_top_dir dir, struct flow *f)
{
	const uint8_t *d = p->data, *src, *dst;
	size_t off = network_start(p, &f->ethertype), l4, alen;

	if (f->ethertype == 0x0800 && off + 20 <= p->cap_len && (d[off] >> 4) == 4) {
		l4 = off + (size_t)(d[off] & 0xf) * 4;
		f->proto = d[off + 9];
		src = d + off + 12;
		dst = d + off + 16;
		alen = 4;
		/* A fragment after the first has no ports. */
		if (get16(d + off + 6) & 0x1fff)
			l4 = p->cap_len;
	} else if (f->ethertype == 0x86dd && off + 40 <= p->cap_len) {
		l4 = off + 40;
		f->proto = d[off + 6];
		src = d + off + 8;
		dst = d + off + 24;
		alen = 16;
	} else {
		return;
	}
	memcpy(dir == PS_TOP_OUT ? f->local : f->remote, src, alen);
	memcpy(dir == PS_TOP_OUT ? f->remote : f->local, dst, alen);
	if ((f->proto == IPPROTO_TCP || f->proto == IPPROTO_UDP || f->proto == IPPROTO_SCTP) &&
	    l4 + 4 <= p->cap_len) {
		f->lport = get16(d + l4 + (dir == PS_TOP_OUT ? 0 : 2));
		f->rport = get16(d + l4 + (dir == PS_TOP_OUT ? 2 : 0));
	}
}

/* The flow's 40 bytes as five words, each mixed in (a byte at a time was
 * a large part of --top's cost per packet: bench/top_cost.c). */
static uint64_t flow_key(const struct flow *f)
{
	uint64_t w[sizeof(*f) / 8], h = 0x9e3779b97f4a7c15ull;

	_Static_assert(sizeof(*f) % 8 == 0, "the flow is whole words");
	memcpy(w, f, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

static const char *proto_name(uint8_t proto, char *buf, size_t len)
{
	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmp6";
	case IPPROTO_SCTP:
		return "sctp";
	default:
		snprintf(buf, len, "proto %u", proto);
		return buf;
	}
}

static void name_flow(struct ps_top_row *r, const struct flow *f)
{
	char l[INET6_ADDRSTRLEN], rm[INET6_ADDRSTRLEN], pr[16];
	int af = f->ethertype == 0x86dd ? AF_INET6 : AF_INET;
	const char *proto;

	if (f->ethertype == 0x0806) {
		snprintf(r->name, sizeof(r->name), "arp");
		return;
	}
	if (f->ethertype != 0x0800 && f->ethertype != 0x86dd) {
		snprintf(r->name, sizeof(r->name), "ethertype 0x%04x", f->ethertype);
		return;
	}
	inet_ntop(af, f->local, l, sizeof(l));
	inet_ntop(af, f->remote, rm, sizeof(rm));
	proto = proto_name(f->proto, pr, sizeof(pr));
	if (f->lport || f->rport)
		snprintf(r->name, sizeof(r->name),
			 af == AF_INET6 ? "[%s]:%u <> [%s]:%u %s" : "%s:%u <> %s:%u %s", l,
			 f->lport, rm, f->rport, proto);
	else
		snprintf(r->name, sizeof(r->name), "%s <> %s %s", l, rm, proto);
}

/* The path grouping's row: the hook before (its note's prev word) and
 * this one. */
static void count_path(struct ps_top *t, const struct ps_sink_pkt *p, enum ps_top_dir dir,
		       uint32_t weight)
{
	char prev[PS_TOP_NAME_LEN / 2];
	const char *from = p->note ? ps_word_get(p->note, PS_WORD_PREV, prev, sizeof(prev)) : NULL;
	uint64_t key = (uint64_t)(uint32_t)p->t->ifindex << 8 | p->t->hook;
	struct ps_top_row *r;

	/* A step's key has the top bit, a first hook's (under 2^40) not. */
	if (from) {
		uint64_t h = 0xcbf29ce484222325ull ^ key;

		for (const char *c = from; *c; c++)
			h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
		key = h | 1ull << 63;
	}
	r = ps_top_row(t, PS_TOP_PATH, key);
	if (!r->name[0])
		snprintf(r->name, sizeof(r->name), "%s%s%s@%s", from ? from : "", from ? " > " : "",
			 ps_hook_name(p->t->hook), p->t->ifname);
	ps_top_count(r, dir, p->wire_len, weight);
}

void ps_top_add(struct ps_top *t, const struct ps_sink_pkt *p, uint32_t weight)
{
	enum ps_top_dir dir = ps_top_dir_of(p->m->hook);
	struct ps_top_row *r;
	struct flow f;

	r = ps_top_row(t, PS_TOP_PROCESS, process_key(p->who));
	if (!r->name[0])
		name_process(r, p->who);
	ps_top_count(r, dir, p->wire_len, weight);

	count_named(t, PS_TOP_CONTAINER, p->who, p->who ? p->who->container_key : 0, dir, p,
		    weight);

	if (!(t->groups & (1u << PS_TOP_FLOW)))
		return; /* the metrics' two alone */
	count_named(t, PS_TOP_POD, p->who, p->who ? p->who->pod_key : 0, dir, p, weight);
	count_named(t, PS_TOP_NAMESPACE, p->who, p->who ? p->who->k8s_ns_key : 0, dir, p, weight);
	memset(&f, 0, sizeof(f));
	flow_of(p, dir, &f);
	r = ps_top_row(t, PS_TOP_FLOW, flow_key(&f));
	if (!r->name[0])
		name_flow(r, &f);
	ps_top_count(r, dir, p->wire_len, weight);

	r = ps_top_row(t, PS_TOP_IFACE, (uint64_t)(uint32_t)p->t->ifindex << 8 | p->t->hook);
	if (!r->name[0])
		snprintf(r->name, sizeof(r->name), "%s %s", p->t->ifname, ps_hook_name(p->t->hook));
	ps_top_count(r, dir, p->wire_len, weight);

	count_path(t, p, dir, weight);

	if (dir != PS_TOP_DROPPED)
		return;
	r = ps_top_row(t, PS_TOP_DROP, (uint32_t)p->m->verdict);
	if (!r->name[0])
		snprintf(r->name, sizeof(r->name), "%s",
			 p->drop && p->drop->reason ? p->drop->reason : "(unknown)");
	ps_top_count(r, dir, p->wire_len, weight);
}
