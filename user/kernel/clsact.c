// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <bpf/libbpf.h>
#include "clsact.h"
#include "log.h"
#include "tcfilter.h"

#define PS_TC_PROG_PREFIX "pktsample_tc_" /* our TC programs' names */
#define MAX_FILTERS 256

static struct bpf_tc_hook tc_hook(int ifindex, bool ingress)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	return hook;
}

/* The filters on one side of ifindex's qdisc, in *f (freed by the caller,
 * also on error): how many, or -errno. */
static int dump(int ifindex, bool ingress, struct ps_tc_filter **f)
{
	*f = calloc(MAX_FILTERS, sizeof(**f));
	return *f ? ps_tc_filter_dump(ifindex, ingress, *f, MAX_FILTERS) : -ENOMEM;
}

static const char *dir_name(bool ingress)
{
	return ingress ? "ingress" : "egress";
}

/*
 * A clsact filter outlives a killed process, and its guardian (see
 * guardian.h) may have been killed with it. A pktsample filter whose
 * program no process holds is such a leftover: removed, with one line.
 * One whose program someone holds (another pktsample running), or whose
 * holder we cannot know, is never touched.
 */
static void remove_stale(const char *ifname, int ifindex, bool ingress)
{
	struct ps_tc_filter *f;
	int n = dump(ifindex, ingress, &f);

	for (int i = 0; i < n; i++) {
		struct bpf_tc_hook hook = tc_hook(ifindex, ingress);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = f[i].handle,
				    .priority = f[i].prio);
		int err;

		if (!f[i].handle ||
		    strncmp(f[i].name, PS_TC_PROG_PREFIX, strlen(PS_TC_PROG_PREFIX)) ||
		    ps_bpf_prog_held(f[i].prog_id) != 0)
			continue;
		err = bpf_tc_detach(&hook, &opts);
		if (err == -ENOENT)
			continue; /* its guardian was quicker */
		if (err)
			pr_warn("%s %s: cannot remove filter %s (pref %u), left by a pktsample "
				"that was killed: %s\n",
				ifname, dir_name(ingress), f[i].name, f[i].prio, strerror(-err));
		else
			pr_warn("%s %s: removed filter %s (pref %u), left by a pktsample that "
				"was killed\n",
				ifname, dir_name(ingress), f[i].name, f[i].prio);
	}
	free(f);
}

/*
 * A pref before or after every filter on the hook (prefs are 16 bits; lower
 * runs first). With none there, the kernel's own choice.
 */
static int pick_pref(int ifindex, bool ingress, bool first, __u32 *pref, int *others)
{
	struct ps_tc_filter *f;
	int n = dump(ifindex, ingress, &f);
	__u32 lo = 0xffff, hi = 0;

	*pref = 0;
	*others = 0;
	for (int i = 0; i < n; i++) {
		*others += f[i].handle == 0; /* one chain head per pref */
		lo = f[i].prio < lo ? f[i].prio : lo;
		hi = f[i].prio > hi ? f[i].prio : hi;
	}
	free(f);
	if (n < 0)
		return n == -EINVAL ? 0 : n; /* -EINVAL: no qdisc yet, nothing on it */
	if (!n)
		return 0;
	if (first ? lo <= 1 : hi >= 0xffff)
		return -ERANGE;
	*pref = first ? lo - 1 : hi + 1;
	return 0;
}

int ps_clsact_attach(struct ps_clsact *c, int prog_fd, const char *ifname, bool first, int *others)
{
	struct bpf_tc_hook hook = tc_hook(c->ifindex, c->ingress);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = prog_fd);
	__u32 pref;
	int err;

	/* Is there a qdisc? Asked first rather than answered by the
	 * kernel's refusal, which libbpf would print. */
	err = ps_tc_has_clsact(c->ifindex);
	if (err < 0)
		return err;
	if (!err) {
		err = bpf_tc_hook_create(&hook);
		if (err && err != -EEXIST)
			return err;
		c->created_qdisc = !err;
	} else {
		c->created_qdisc = false;
		remove_stale(ifname, c->ifindex, c->ingress);
	}
	err = pick_pref(c->ifindex, c->ingress, first, &pref, others);
	if (!err) {
		opts.priority = pref;
		err = bpf_tc_attach(&hook, &opts);
	}
	if (err) {
		if (c->created_qdisc) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
		}
		return err;
	}
	c->handle = opts.handle;
	c->priority = opts.priority;
	c->prog_id = opts.prog_id;
	return 0;
}

/* Anything on the qdisc, in either direction? */
static bool qdisc_in_use(int ifindex)
{
	struct ps_tc_filter *f;
	bool used = dump(ifindex, true, &f) != 0; /* when in doubt, leave the qdisc */

	free(f);
	if (!used) {
		used = dump(ifindex, false, &f) != 0;
		free(f);
	}
	return used;
}

/* Is c's filter still there, with c's program? 1, 0, or -errno. */
static int still_ours(const struct ps_clsact *c)
{
	struct ps_tc_filter *f;
	int n = dump(c->ifindex, c->ingress, &f);
	int found = 0;

	for (int i = 0; i < n && !found; i++)
		found = f[i].handle == c->handle && f[i].prio == c->priority &&
			f[i].prog_id == c->prog_id;
	free(f);
	if (n == -EINVAL || n == -ENODEV)
		return 0; /* the qdisc or the interface went, and the filter with it */
	return n < 0 ? n : found;
}

/*
 * Our filter, then the qdisc only if we created it and nothing is left on
 * it: another pktsample or another tool may still be using it, whoever of
 * us leaves first.
 */
int ps_clsact_detach(const struct ps_clsact *c)
{
	struct bpf_tc_hook hook = tc_hook(c->ifindex, c->ingress);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = c->handle, .priority = c->priority);
	char name[IF_NAMESIZE];
	int err = still_ours(c);

	if (err <= 0)
		return err;
	err = bpf_tc_detach(&hook, &opts);
	if (err || !c->created_qdisc)
		return err == -ENOENT ? 0 : err;
	if (qdisc_in_use(c->ifindex)) {
		pr_info("%s: leaving the clsact qdisc we created: other filters are on it\n",
			if_indextoname((unsigned int)c->ifindex, name) ? name : "?");
		return 0;
	}
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	err = bpf_tc_hook_destroy(&hook);
	return err == -ENOENT || err == -EINVAL ? 0 : err;
}
