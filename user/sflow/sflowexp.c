// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* sendmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "counters.h"
#include "hooks.h"
#include "log.h"
#include "linktype.h"
#include "linkwatch.h"
#include "sflowexp.h"

/* A partly filled datagram leaves at the latest this long after it began. */
#define PARTIAL_MAX_NS 1000000000ull
/* sFlow ifType values (IANAifType) */
#define IFTYPE_ETHERNET 6
#define IFTYPE_LOOPBACK 24
#define IFTYPE_OTHER 1

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sockets to cfg's collectors into fd[], and the agent address: 0, or
 * -errno logged (fd[] closed again). */
static int connect_all(const struct ps_sflow_config *cfg, int *fd, struct ps_sflow_agent *agent)
{
	char name[INET6_ADDRSTRLEN + 8];
	int err = 0;

	for (int i = 0; i < PS_SFLOW_MAX_COLLECTORS; i++)
		fd[i] = -1;
	for (int i = 0; i < cfg->n_collectors && !err; i++) {
		struct sockaddr_storage ss;
		socklen_t len = ps_addr_sockaddr(&cfg->collectors[i], &ss);

		ps_addr_format(&cfg->collectors[i], name, sizeof(name));
		fd[i] = socket(cfg->collectors[i].family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd[i] < 0 || connect(fd[i], (struct sockaddr *)&ss, len)) {
			err = -errno;
			pr_err("cannot send sFlow to %s: %s\n", name, strerror(-err));
			break;
		}
		/* Never wait for a collector: a full socket buffer is a failed send. */
		fcntl(fd[i], F_SETFL, fcntl(fd[i], F_GETFL) | O_NONBLOCK);
	}
	if (!err && cfg->has_agent) {
		agent->family = cfg->agent.family;
		memcpy(agent->addr, cfg->agent.addr, 16);
	} else if (!err) {
		/* The address the kernel would send from towards the first collector. */
		struct sockaddr_storage local;
		socklen_t len = sizeof(local);

		if (getsockname(fd[0], (struct sockaddr *)&local, &len)) {
			err = -errno;
			pr_err("cannot find the sFlow agent address: %s (use --sflow-agent)\n",
			       strerror(-err));
		} else {
			agent->family = local.ss_family;
			if (local.ss_family == AF_INET6)
				memcpy(agent->addr, &((struct sockaddr_in6 *)&local)->sin6_addr,
				       16);
			else
				memcpy(agent->addr, &((struct sockaddr_in *)&local)->sin_addr, 4);
		}
	}
	for (int i = 0; err && i < PS_SFLOW_MAX_COLLECTORS; i++)
		if (fd[i] >= 0) {
			close(fd[i]);
			fd[i] = -1;
		}
	return err;
}

/* The line that says where the samples go. */
static void say_where(const struct ps_sflow_exp *x)
{
	char name[INET6_ADDRSTRLEN + 8], agent[INET6_ADDRSTRLEN] = "?";

	inet_ntop(x->agent.family, x->agent.addr, agent, sizeof(agent));
	ps_addr_format(&x->cfg.collectors[0], name, sizeof(name));
	pr_warn("sFlow: 1 in %u to %s%s, agent %s, counters every %us\n", x->cfg.rate, name,
		x->cfg.n_collectors > 1 ? " and more" : "", agent, x->cfg.counters_s);
}

int ps_sflowexp_open(struct ps_sflow_exp *x, const struct ps_sflow_config *cfg,
		     const struct ps_target *targets, int n_targets,
		     const struct ps_counter_src *counters)
{
	int err;

	memset(x, 0, sizeof(*x));
	x->cfg = *cfg;
	x->nl_fd = -1;
	for (int i = 0; i < PS_SFLOW_MAX_COLLECTORS; i++)
		x->fd[i] = -1;
	x->targets = targets;
	x->n_targets = n_targets;
	if (counters)
		x->counters = *counters;
	x->room = n_targets ? n_targets : 1;
	x->samplers = calloc(x->room, sizeof(*x->samplers));
	x->ring = calloc(PS_SFLOW_RING, sizeof(*x->ring));
	if (!x->samplers || !x->ring) {
		pr_err("cannot set up sFlow: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = connect_all(cfg, x->fd, &x->agent);
	if (err)
		return err;
	x->nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (x->nl_fd < 0) {
		err = -errno;
		pr_err("cannot read interface counters for sFlow: %s\n", strerror(-err));
		return err;
	}
	x->start_ns = mono_ns();
	x->next_counters_ns = x->start_ns; /* the first round sends them */
	say_where(x);
	return 0;
}

int ps_sflowexp_reconfigure(struct ps_sflow_exp *x, const struct ps_sflow_config *cfg)
{
	struct ps_sflow_agent agent = x->agent;
	int fd[PS_SFLOW_MAX_COLLECTORS], err;

	if (!memcmp(cfg->collectors, x->cfg.collectors, sizeof(cfg->collectors)) &&
	    cfg->n_collectors == x->cfg.n_collectors && cfg->has_agent == x->cfg.has_agent &&
	    !memcmp(&cfg->agent, &x->cfg.agent, sizeof(cfg->agent)) &&
	    cfg->header_bytes == x->cfg.header_bytes && cfg->counters_s == x->cfg.counters_s &&
	    cfg->burst == x->cfg.burst && cfg->rate == x->cfg.rate)
		return 0;
	err = connect_all(cfg, fd, &agent);
	if (err)
		return err;
	/* What was made for the old ones goes to the new: datagrams carry
	 * the agent they were begun with. */
	for (int i = 0; i < PS_SFLOW_MAX_COLLECTORS; i++) {
		if (x->fd[i] >= 0)
			close(x->fd[i]);
		x->fd[i] = fd[i];
	}
	x->agent = agent;
	if (cfg->counters_s != x->cfg.counters_s)
		x->next_counters_ns = mono_ns();
	x->cfg = *cfg;
	say_where(x);
	return 0;
}

static uint32_t uptime_ms(const struct ps_sflow_exp *x)
{
	return (uint32_t)((mono_ns() - x->start_ns) / 1000000);
}

/* Finish the open datagram of sub-agent h: into the ring, to leave with
 * the next burst that has room for it. */
static void finish(struct ps_sflow_exp *x, unsigned int h)
{
	if (!x->is_open[h])
		return;
	x->is_open[h] = false;
	if (x->n_queued == PS_SFLOW_RING) {
		x->paced_out++;
		return;
	}
	x->ring[(x->ring_head + x->n_queued++) % PS_SFLOW_RING] = x->open[h];
}

static struct ps_sflow_dgram *room_for(struct ps_sflow_exp *x, unsigned int h)
{
	if (!x->is_open[h]) {
		struct ps_sflow_agent a = x->agent;

		a.sub_agent = h;
		ps_sflow_begin(&x->open[h], &a, ++x->dgram_seq[h], uptime_ms(x));
		x->is_open[h] = true;
		x->opened_ns[h] = mono_ns();
		x->datagrams++;
	}
	return &x->open[h];
}

/* The sampler's drops, read once a round from the kernel. */
static void refresh(struct ps_sflow_exp *x, int t)
{
	struct ps_sflow_sampler *s = &x->samplers[t];
	struct ps_counters c;

	if (s->read_round == x->round + 1 || !x->counters.read)
		return;
	s->read_round = x->round + 1;
	if (ps_counter_read(&x->counters, (uint32_t)x->targets[t].ifindex, x->targets[t].hook, &c))
		return; /* keep the last values: they only grow */
	s->drops = (uint32_t)c.output_errors;
	s->not_sent = (uint32_t)(c.sampled_out + c.rate_limited + c.output_errors);
}

/* Encode sampler t's held sample into its sub-agent's datagram. */
static void emit(struct ps_sflow_exp *x, int t)
{
	struct ps_sflow_sampler *s = &x->samplers[t];
	unsigned int h = x->targets[t].hook;

	refresh(x, t);
	s->held.seq = ++s->seq;
	s->held.drops = s->drops;
	s->held.header = s->header;
	if (ps_sflow_add_flow(room_for(x, h), &s->held)) {
		finish(x, h);
		ps_sflow_add_flow(room_for(x, h), &s->held); /* fits an empty one */
	}
	s->holding = false;
	x->samples++;
}

/*
 * A held sample that no later sample follows (a second passed, or the
 * capture ended) stands for every packet let through since its place: its
 * pool becomes the kernel's count now. Pool differences over sequence
 * differences (how collectors such as sfacctd renormalise) then add up to
 * every packet the hook let through, not just to the last one sampled.
 */
static void pool_to_now(struct ps_sflow_exp *x, int t)
{
	struct ps_sflow_sampler *s = &x->samplers[t];
	struct ps_counters c;
	uint32_t now;

	if (ps_counter_read(&x->counters, (uint32_t)x->targets[t].ifindex, x->targets[t].hook, &c))
		return;
	now = (uint32_t)(c.seen - c.filtered);
	if ((int32_t)(now - s->held.pool) > 0)
		s->held.pool = s->pool = now;
}

/*
 * Each sampler holds its latest sample back until the next one, which
 * gives it its exact place in the pool, or until a second passes or the
 * capture ends (pool_to_now).
 */
/*
 * Whom the held sample belongs to: its local socket (where the hook found
 * one) and the owner's words. The owner's side is the source where it sent
 * the packet (TC egress, or a sender's socket at ingress).
 */
static void hold_owner(struct ps_sflow_sampler *s, const struct ps_target *tg,
		       const struct ps_who *who, const uint8_t *frame, uint32_t cap_len)
{
	bool src;

	if (!who ||
	    (who->ctx != PS_CTX_SKB && who->ctx != PS_CTX_LOOKUP && who->ctx != PS_CTX_SENDER))
		return;
	src = who->ctx != PS_CTX_LOOKUP;
	if (tg->linktype == PS_LINKTYPE_ETHERNET || tg->linktype == PS_LINKTYPE_RAW)
		s->held.has_socket = !ps_sflow_socket_of(frame, cap_len,
							 tg->linktype == PS_LINKTYPE_RAW, src,
							 &s->held.socket);
	if (!who->known)
		return;
	ps_who_format(who, s->user, sizeof(s->user), false);
	s->held.user = s->user;
	s->held.user_is_src = src;
}

/* One placed sample of target t (an index into targets). */
static void sflowexp_sample(struct ps_sflow_exp *x, int t, uint32_t pool, const uint8_t *frame,
			    uint32_t cap_len, uint32_t wire_len, const struct ps_who *who)
{
	const struct ps_target *tg = &x->targets[t];
	struct ps_sflow_sampler *s = &x->samplers[t];
	uint32_t ifindex = (uint32_t)tg->ifindex;

	if (s->holding)
		emit(x, t);
	/* Two CPUs may take their places in the pool in one order and their
	 * timestamps in the other: the merge's time order wins, and the pool
	 * a ingest sees never goes back (it may lag by such a packet). */
	if (!s->started || (int32_t)(pool - s->pool) > 0)
		s->pool = pool;
	s->started = true;
	s->held = (struct ps_sflow_flow){
		.source_id = ifindex, /* type 0: ifIndex */
		.rate = x->cfg.rate,
		.pool = s->pool,
		.input = tg->hook == PS_HOOK_TC_EGRESS ? 0 : ifindex,
		.output = tg->hook == PS_HOOK_TC_EGRESS ? ifindex : 0,
		.frame_length = wire_len,
		.stripped = 0,
		.header_len = cap_len < x->cfg.header_bytes ? cap_len : x->cfg.header_bytes,
	};
	memcpy(s->header, frame, s->held.header_len);
	hold_owner(s, tg, who, frame, cap_len);
	s->holding = true;
	s->held_ns = mono_ns();
}

/* A drop hook's packet: a discarded_packet event, into its sub-agent's datagram. */
static void sflowexp_discard(struct ps_sflow_exp *x, const struct ps_sink_pkt *p)
{
	const struct ps_target *tg = &x->targets[p->target];
	struct ps_sflow_sampler *s = &x->samplers[p->target];
	const struct ps_who *who = p->who;
	struct ps_sflow_discard e = {
		.ds_index = (uint32_t)tg->ifindex,
		.input = (uint32_t)tg->ifindex,
		.reason = ps_sflow_drop_reason(p->drop ? p->drop->reason : NULL),
		.header_protocol = PS_SFLOW_HEADER_ETHERNET,
		.frame_length = p->wire_len,
		.header = p->data,
		.header_len = p->cap_len < x->cfg.header_bytes ? p->cap_len : x->cfg.header_bytes,
		.function = p->drop ? p->drop->at : NULL,
		.linux_reason = p->drop ? p->drop->reason : NULL,
	};
	unsigned int h = tg->hook;

	if (tg->linktype == PS_LINKTYPE_RAW && p->cap_len)
		e.header_protocol = p->data[0] >> 4 == 6 ? PS_SFLOW_HEADER_IPV6 :
							   PS_SFLOW_HEADER_IPV4;
	if (who && who->known) {
		ps_who_format(who, s->user, sizeof(s->user), false);
		e.user = s->user;
		e.user_is_src = who->ctx == PS_CTX_SKB;
	}
	refresh(x, p->target);
	e.seq = ++s->seq;
	e.drops = s->not_sent;
	if (ps_sflow_add_discard(room_for(x, h), &e)) {
		finish(x, h);
		ps_sflow_add_discard(room_for(x, h), &e); /* fits an empty one */
	}
	x->samples++;
}

/*
 * The link's IFLA_STATS64 into *st. The struct grows with the kernel
 * (5.10's has no rx_otherhost_dropped: 192 bytes, this header's 200): the
 * fields a kernel sends, the counters every kernel has among them.
 */
static bool stats64_of(struct nlmsghdr *nh, struct rtnl_link_stats64 *st)
{
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = (int)IFLA_PAYLOAD(nh);

	for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_STATS64 &&
		    RTA_PAYLOAD(a) >= offsetof(struct rtnl_link_stats64, rx_nohandler)) {
			memset(st, 0, sizeof(*st));
			memcpy(st, RTA_DATA(a),
			       RTA_PAYLOAD(a) < sizeof(*st) ? RTA_PAYLOAD(a) : sizeof(*st));
			return true;
		}
	return false;
}

/* The kernel's link statistics and state for the counters sample. */
static int link_counters(struct ps_sflow_exp *x, uint32_t ifindex, const char *name,
			 struct ps_sflow_ifcounters *c)
{
	static uint8_t buf[32768];
	struct rtnl_link_stats64 st;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nh;
	char path[96], val[32];
	ssize_t n;
	FILE *f;

	int err = ps_link_ask(x->nl_fd, (int)ifindex, ++x->nl_seq);

	if (err)
		return err;
	do {
		n = recv(x->nl_fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		nh = (struct nlmsghdr *)buf;
	} while (NLMSG_OK(nh, (uint32_t)n) && nh->nlmsg_seq != x->nl_seq);
	if (!NLMSG_OK(nh, (uint32_t)n) || nh->nlmsg_type != RTM_NEWLINK)
		return -ENODEV;
	ifi = NLMSG_DATA(nh);
	if (!stats64_of(nh, &st))
		return -ENODATA;
	memset(c, 0, sizeof(*c));
	c->if_index = ifindex;
	c->source_id = ifindex;
	c->if_type = ifi->ifi_type == ARPHRD_ETHER    ? IFTYPE_ETHERNET :
		     ifi->ifi_type == ARPHRD_LOOPBACK ? IFTYPE_LOOPBACK :
							IFTYPE_OTHER;
	c->if_status = (ifi->ifi_flags & IFF_UP ? 1u : 0) | (ifi->ifi_flags & IFF_RUNNING ? 2u : 0);
	c->promiscuous = ifi->ifi_flags & IFF_PROMISC ? 1 : 0;
	/* Speed (Mb/s) and duplex: what ethtool reports, through sysfs; a
	 * virtual device has none (speed 0, direction unknown). */
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", name);
	if ((f = fopen(path, "r"))) {
		long mbps;

		if (fgets(val, sizeof(val), f) && sscanf(val, "%ld", &mbps) == 1 && mbps > 0)
			c->if_speed = (uint64_t)mbps * 1000000;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/duplex", name);
	if ((f = fopen(path, "r"))) {
		if (fgets(val, sizeof(val), f))
			c->if_direction = !strncmp(val, "full", 4) ? 1 :
					  !strncmp(val, "half", 4) ? 2 :
								     0;
		fclose(f);
	}
	c->in_octets = st.rx_bytes;
	c->in_ucast = (uint32_t)(st.rx_packets - st.multicast);
	c->in_mcast = (uint32_t)st.multicast;
	c->in_bcast = PS_SFLOW_UNKNOWN32; /* Linux does not count broadcasts */
	c->in_discards = (uint32_t)st.rx_dropped;
	c->in_errors = (uint32_t)st.rx_errors;
	c->in_unknown_protos = (uint32_t)st.rx_nohandler;
	c->out_octets = st.tx_bytes;
	c->out_ucast = (uint32_t)st.tx_packets;
	c->out_mcast = PS_SFLOW_UNKNOWN32;
	c->out_bcast = PS_SFLOW_UNKNOWN32;
	c->out_discards = (uint32_t)st.tx_dropped;
	c->out_errors = (uint32_t)st.tx_errors;
	return 0;
}

static void counters(struct ps_sflow_exp *x)
{
	for (int t = 0; t < x->n_targets; t++) {
		struct ps_sflow_ifcounters c;

		bool first = true;

		/* An interface's first target sends its counters. */
		for (int u = 0; u < t && first; u++)
			first = x->targets[u].ifindex != x->targets[t].ifindex;
		if (!first)
			continue;
		if (!link_counters(x, (uint32_t)x->targets[t].ifindex, x->targets[t].ifname, &c)) {
			c.seq = ++x->samplers[t].counter_seq;
			if (ps_sflow_add_counters(room_for(x, 0), &c)) {
				finish(x, 0);
				ps_sflow_add_counters(room_for(x, 0), &c);
			}
		}
	}
}

/*
 * One burst: the first n datagrams of the ring to every collector. A
 * collector's socket is connected, so a port unreachable that an earlier
 * datagram drew (nothing listened) is reported on a later send, which then
 * did not go: that one is counted as refused and sent again, once. A
 * datagram that still fails (a full socket buffer, no route) is counted
 * as failed, and the burst goes on with the next.
 */
static void send_burst(struct ps_sflow_exp *x, uint32_t n)
{
	struct mmsghdr msgs[PS_SFLOW_BURST_MAX];
	struct iovec iov[PS_SFLOW_BURST_MAX];

	for (uint32_t i = 0; i < n; i++) {
		struct ps_sflow_dgram *d = &x->ring[(x->ring_head + i) % PS_SFLOW_RING];

		iov[i] = (struct iovec){ d->buf, d->len };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	for (int c = 0; c < x->cfg.n_collectors; c++) {
		uint32_t done = 0;
		bool again = false; /* msgs[done] met a refusal already */

		while (done < n) {
			int k = sendmmsg(x->fd[c], msgs + done, n - done, 0);

			if (k > 0) {
				done += (uint32_t)k;
				x->sent += (uint64_t)k;
				again = false;
			} else if (k < 0 && errno == EINTR) {
				continue;
			} else if (k < 0 && errno == ECONNREFUSED && !again) {
				x->refused++;
				again = true;
			} else {
				done++;
				x->send_errors++;
				again = false;
			}
		}
	}
	x->ring_head = (x->ring_head + n) % PS_SFLOW_RING;
	x->n_queued -= n;
}

int ps_sflowexp_tick(struct ps_sflow_exp *x, uint64_t now_ns)
{
	uint32_t burst = x->cfg.burst ? x->cfg.burst : PS_SFLOW_BURST_DEFAULT;

	if (x->n_queued && now_ns >= x->next_send_ns) {
		send_burst(x, x->n_queued < burst ? x->n_queued : burst);
		/* From the burst's end: one the scheduler stretched (a busy
		 * CPU) still has a whole gap before the next. */
		now_ns = mono_ns();
		x->next_send_ns = now_ns + PS_SFLOW_GAP_NS;
	}
	if (!x->n_queued)
		return -1;
	return now_ns >= x->next_send_ns ? 0 : (int)((x->next_send_ns - now_ns + 999999) / 1000000);
}

uint64_t ps_sflowexp_next_ns(const struct ps_sflow_exp *x)
{
	return x->n_queued ? x->next_send_ns : 0;
}

/* End of a round: counters when due, send what is ready. */
static void sflowexp_round_end(struct ps_sflow_exp *x)
{
	uint64_t now = mono_ns();

	if (x->cfg.counters_s && now >= x->next_counters_ns) {
		counters(x);
		x->next_counters_ns = now + x->cfg.counters_s * 1000000000ull;
	}
	for (int t = 0; t < x->n_targets; t++)
		if (x->samplers[t].holding && now - x->samplers[t].held_ns >= PARTIAL_MAX_NS) {
			pool_to_now(x, t);
			emit(x, t);
		}
	for (unsigned int h = 0; h < PS_HOOK_MAX; h++)
		if (x->is_open[h] && now - x->opened_ns[h] >= PARTIAL_MAX_NS)
			finish(x, h);
	ps_sflowexp_tick(x, now);
	x->round++;
}

void ps_sflowexp_close(struct ps_sflow_exp *x, bool flush)
{
	if (flush && x->start_ns && x->samplers) {
		x->round++; /* the drops read afresh */
		for (int t = 0; t < x->n_targets; t++) {
			if (!x->samplers[t].holding)
				continue;
			pool_to_now(x, t);
			emit(x, t);
		}
		if (x->cfg.counters_s)
			counters(x); /* the final counters */
		for (unsigned int h = 0; h < PS_HOOK_MAX; h++)
			finish(x, h);
		/* The rest, still paced: a burst a millisecond. */
		while (x->n_queued) {
			const struct timespec gap = { .tv_nsec = PS_SFLOW_GAP_NS };

			if (ps_sflowexp_tick(x, mono_ns()) > 0)
				nanosleep(&gap, NULL);
		}
	}
	for (int i = 0; i < PS_SFLOW_MAX_COLLECTORS; i++)
		if (x->fd[i] >= 0)
			close(x->fd[i]);
	if (x->nl_fd >= 0)
		close(x->nl_fd);
	x->nl_fd = -1;
	for (int i = 0; i < PS_SFLOW_MAX_COLLECTORS; i++)
		x->fd[i] = -1;
	free(x->samplers);
	x->samplers = NULL;
	free(x->ring);
	x->ring = NULL;
}

void ps_sflowexp_end_target(struct ps_sflow_exp *x, int t)
{
	if (t < x->n_targets && x->samplers[t].holding) {
		pool_to_now(x, t);
		emit(x, t);
	}
}

int ps_sflowexp_add_target(struct ps_sflow_exp *x, int t, int n_targets)
{
	if (n_targets > x->room) {
		struct ps_sflow_sampler *v = realloc(x->samplers, (size_t)n_targets * sizeof(*v));

		if (!v) {
			pr_err("cannot sample one more interface for sFlow: %s\n",
			       strerror(ENOMEM));
			return -ENOMEM;
		}
		memset(v + x->room, 0, (size_t)(n_targets - x->room) * sizeof(*v));
		x->samplers = v;
		x->room = n_targets;
	}
	memset(&x->samplers[t], 0, sizeof(x->samplers[t]));
	if (n_targets > x->n_targets)
		x->n_targets = n_targets;
	return 0;
}

static int sflowexp_packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	struct ps_sflow_exp *x = ps_sink_of(s, struct ps_sflow_exp, sink);

	if (ps_hook_is_drop(p->m->hook))
		sflowexp_discard(x, p);
	else
		sflowexp_sample(x, p->target, p->m->pool, p->data, p->cap_len, p->wire_len, p->who);
	return 0;
}

static int sflowexp_round(struct ps_sink *s)
{
	sflowexp_round_end(ps_sink_of(s, struct ps_sflow_exp, sink));
	return 0;
}

/* Whether or not the capture failed, what was sampled goes out. */
static int sflowexp_close(struct ps_sink *s, bool ok)
{
	(void)ok;
	ps_sflowexp_close(ps_sink_of(s, struct ps_sflow_exp, sink), true);
	return 0;
}

static const struct ps_sink_ops sflowexp_ops = {
	.packet = sflowexp_packet,
	.round = sflowexp_round,
	.close = sflowexp_close,
};

struct ps_sink *ps_sflowexp_sink(struct ps_sflow_exp *x)
{
	x->sink.ops = &sflowexp_ops;
	return &x->sink;
}
