// SPDX-License-Identifier: GPL-2.0-only
#include "hooks.h"

static const char *const names[PS_HOOK_MAX] = {
	[PS_HOOK_XDP] = "xdp",
	[PS_HOOK_TC_INGRESS] = "tc-ingress",
	[PS_HOOK_TC_EGRESS] = "tc-egress",
};

static const char *const descriptions[PS_HOOK_MAX] = {
	[PS_HOOK_XDP] = "xdp ingress",
	[PS_HOOK_TC_INGRESS] = "tc ingress",
	[PS_HOOK_TC_EGRESS] = "tc egress",
};

const char *ps_hook_name(unsigned int hook)
{
	return hook < PS_HOOK_MAX ? names[hook] : "?";
}

const char *ps_hook_description(unsigned int hook)
{
	return hook < PS_HOOK_MAX ? descriptions[hook] : "?";
}
