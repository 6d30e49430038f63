/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which hooks an interface of the capture gets, in which XDP mode, and
 * why: a pure function of the device's facts (user/kernel/device.h), the
 * options, and, for an interface that comes after the start, what the
 * start loaded. Unit-tested in tests/unit/test_hookplan.c; the capture
 * says the plan's line with -v and acts on it.
 */
#ifndef PS_HOOKPLAN_H
#define PS_HOOKPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include "device.h"
#include "hooks.h"

/* What the options say of hooks. */
struct ps_hook_opts {
	bool hooks_given;   /* --hook or -Q: exactly these */
	unsigned int hooks; /* PS_HOOK_BIT() set, if given */
	enum ps_xdp_mode xdp_mode;
};

/* What the start loaded, for an interface that comes later. */
struct ps_hooks_loaded {
	unsigned int hooks; /* the programs loaded, as hooks */
	bool xdp[2];	    /* the XDP programs: [0] native, [1] skb */
};

struct ps_hook_plan {
	int linktype;		   /* PS_LINKTYPE_*; -1: pktsample cannot write it */
	unsigned int hooks;	   /* what it gets */
	enum ps_xdp_mode xdp_mode; /* auto resolved for the device */
	/* Later: hooks asked for that the start did not load (or tracing
	 * programs, which a later interface never gets): not done, said. */
	unsigned int missing;
	char line[400]; /* "-v": its link type and hooks, and why */
};

/*
 * d's plan. later: NULL at the start, else what the start loaded (an
 * interface that comes later with an XDP program of its own is captured
 * at tc-ingress, which sees what that program passes).
 */
void ps_hook_plan(const struct ps_device *d, const struct ps_hook_opts *o,
		  const struct ps_hooks_loaded *later, struct ps_hook_plan *p);

/* What an interface of a running capture has: a reload's hook settings
 * are weighed against it. */
struct ps_hook_have {
	const struct ps_device *dev;
	unsigned int hooks; /* the hooks it has */
	bool later;	    /* it came after the start */
};

/*
 * Would o give every interface in have[0..n) the hooks it has, and an
 * interface that comes later hooks that loaded covers (NULL: none
 * loaded)? Then a reload to o changes no hook: "hook tc-ingress,tc-egress"
 * on a veth means what no hook line means.
 */
bool ps_hook_plan_keeps(const struct ps_hook_have *have, size_t n, const struct ps_hook_opts *o,
			const struct ps_hooks_loaded *loaded);

#endif
