// SPDX-License-Identifier: GPL-2.0-only
/* Which hooks an interface gets, and why; see hookplan.h. */
#include <stdio.h>
#include <string.h>
#include "hookplan.h"

void ps_hook_plan(const struct ps_device *d, const struct ps_hook_opts *o,
		  const struct ps_hooks_loaded *later, struct ps_hook_plan *p)
{
	char why[256], names[64];
	unsigned int ingress;

	memset(p, 0, sizeof(*p));
	p->linktype = ps_linktype_of(d->arphrd);
	p->xdp_mode = o->xdp_mode == PS_XDP_AUTO ? ps_device_xdp_mode(d) : o->xdp_mode;
	ingress = ps_device_default_ingress(d, why, sizeof(why));
	/* One that comes later gets no tracing programs of its own: TC
	 * ingress sees what its XDP program passes. */
	if (later && (ingress & PS_HOOKS_XDP_TRACE)) {
		ingress = PS_HOOK_BIT(PS_HOOK_TC_INGRESS);
		snprintf(why, sizeof(why), "it came after the start, with an XDP program");
	}
	if (o->hooks_given) {
		p->hooks = o->hooks;
		snprintf(p->line, sizeof(p->line), "%s: link type %s; hooks as asked", d->name,
			 ps_linktype_name(p->linktype));
	} else {
		p->hooks = PS_HOOK_BIT(PS_HOOK_TC_EGRESS) | ingress;
		ps_hooks_format(ingress, names, sizeof(names));
		snprintf(p->line, sizeof(p->line), "%s: link type %s; ingress at %s: %s", d->name,
			 ps_linktype_name(p->linktype), names, why);
	}
	if (!later)
		return;
	/* The programs are loaded: what they do not cover is not done. */
	p->missing = p->hooks & (~later->hooks | PS_HOOKS_XDP_TRACE);
	if ((p->hooks & PS_HOOK_BIT(PS_HOOK_XDP)) && !later->xdp[p->xdp_mode == PS_XDP_SKB])
		p->missing |= PS_HOOK_BIT(PS_HOOK_XDP);
	p->hooks &= ~p->missing;
}

bool ps_hook_plan_keeps(const struct ps_hook_have *have, size_t n, const struct ps_hook_opts *o,
			const struct ps_hooks_loaded *loaded)
{
	struct ps_hook_plan p;

	if (o->hooks_given && (!loaded || (o->hooks & ~loaded->hooks)))
		return false;
	for (size_t i = 0; i < n; i++) {
		ps_hook_plan(have[i].dev, o, have[i].later ? loaded : NULL, &p);
		if (p.hooks != have[i].hooks)
			return false;
	}
	return true;
}
