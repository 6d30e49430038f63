// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include "hooks.h"

static const char *const names[PS_HOOK_MAX] = {
	[PS_HOOK_XDP] = "xdp",
	[PS_HOOK_TC_INGRESS] = "tc-ingress",
	[PS_HOOK_TC_EGRESS] = "tc-egress",
	[PS_HOOK_XDP_ENTRY] = "xdp-entry",
	[PS_HOOK_XDP_EXIT] = "xdp-exit",
	[PS_HOOK_DROP] = "drop",
	[PS_HOOK_DROP_IP] = "drop-ip",
};

static const char *const descriptions[PS_HOOK_MAX] = {
	[PS_HOOK_XDP] = "xdp ingress",	   [PS_HOOK_TC_INGRESS] = "tc ingress",
	[PS_HOOK_TC_EGRESS] = "tc egress", [PS_HOOK_XDP_ENTRY] = "xdp entry",
	[PS_HOOK_XDP_EXIT] = "xdp exit",   [PS_HOOK_DROP] = "drop",
	[PS_HOOK_DROP_IP] = "drop ip",
};

const char *ps_hook_name(unsigned int hook)
{
	return hook < PS_HOOK_MAX ? names[hook] : "?";
}

const char *ps_hook_description(unsigned int hook)
{
	return hook < PS_HOOK_MAX ? descriptions[hook] : "?";
}

void ps_hooks_format(unsigned int hooks, char *buf, size_t len)
{
	size_t n = 0;

	snprintf(buf, len, "none");
	for (unsigned int h = 0; h < PS_HOOK_MAX; h++)
		if (hooks & PS_HOOK_BIT(h) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      ps_hook_name(h));
}

bool ps_packet_id_paths(enum ps_packet_id mode, unsigned int hooks, int ifaces)
{
	if (mode != PS_PKTID_AUTO)
		return mode == PS_PKTID_PATH;
	return ifaces > 1 || ((hooks & PS_HOOKS_DROP) && (hooks & ~PS_HOOKS_DROP)) ||
	       (hooks & PS_HOOKS_XDP_TRACE) == PS_HOOKS_XDP_TRACE;
}

const char *ps_xdp_verdict_name(int verdict)
{
	static const char *const names[] = { "aborted", "drop", "pass", "tx", "redirect" };

	return verdict >= 0 && verdict < 5 ? names[verdict] : "unknown";
}
