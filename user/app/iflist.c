// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kfeatures.h"
#include "iflist.h"

int ps_iflist_format(char *buf, size_t len, const struct ps_device *d, bool tcx)
{
	static const char *const xdp[] = {
		[PS_XDP_AUTO] = "native if the driver has it, else skb (unknown before 6.3)",
		[PS_XDP_NATIVE] = "native",
		[PS_XDP_SKB] = "skb",
	};
	int linktype = ps_linktype_of(d->arphrd);
	char link[48], why[256], ingress[64];

	ps_hooks_format(ps_device_default_ingress(d, why, sizeof(why)), ingress, sizeof(ingress));
	if (linktype < 0)
		snprintf(link, sizeof(link), "ARPHRD %d (pktsample cannot write it)", d->arphrd);
	else
		snprintf(link, sizeof(link), "%s", ps_linktype_name(linktype));
	return snprintf(buf, len,
			"%d.%s [%s%s%s] driver %s, link %s, ingress %s (%s), xdp %s, tc %s",
			d->ifindex, d->name, d->flags & IFF_UP ? "Up" : "Down",
			d->flags & IFF_RUNNING ? ", Running" : "",
			d->flags & IFF_LOOPBACK ? ", Loopback" : "",
			*d->driver ? d->driver : "unknown", link, ingress, why,
			xdp[ps_device_xdp_mode(d)], tcx ? "tcx" : "clsact");
}

int ps_iflist_print(FILE *f)
{
	struct if_nameindex *all = if_nameindex();
	struct ps_netdev_nl nl;
	bool tcx = ps_kfeature_has(PS_KF_TCX);
	unsigned int missing;

	if (!all)
		return -errno;
	ps_netdev_nl_open(&nl);
	for (struct if_nameindex *p = all; p->if_index; p++) {
		struct ps_device d;
		char line[512];

		if (ps_device_probe(&d, (int)p->if_index, &nl))
			continue; /* gone meanwhile */
		ps_iflist_format(line, sizeof(line), &d, tcx);
		fprintf(f, "%s\n", line);
	}
	ps_netdev_nl_close(&nl);
	if_freenameindex(all);
	/* What the kernel lacks, and what that costs any capture. */
	missing = ps_kfeatures_missing(PS_KF_ALL);
	for (int k = 0; k < PS_KF_MAX; k++)
		if (missing & PS_KF_BIT(k))
			fprintf(f, "kernel: %s\n", ps_kfeature_missing_line((enum ps_kfeature)k));
	return 0;
}
