// SPDX-License-Identifier: GPL-2.0-only
/* Wireshark's queries answered (interfaces, DLTs, the dialog, a filter's
 * check); see extcap_query.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include "extcap_query.h"
#include "filter.h"
#include "log.h"

/*
 * The extcap's help link: the guide installed beside the binary, at its
 * Wireshark section (PREFIX/sbin/pktsample ->
 * PREFIX/share/doc/pktsample/guide.md, whatever the prefix, so the .deb's
 * and cmake --install's both hold), else this source tree's when run from
 * the build tree.
 */
#define EXTCAP_SECTION "from-wireshark-extcap"

static void help_url(char *buf, size_t len)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n > 0) {
		exe[n] = '\0';
		for (int up = 0; up < 2 && (slash = strrchr(exe, '/')); up++)
			*slash = '\0';
		snprintf(path, sizeof(path), "%s/share/doc/pktsample/guide.md", exe);
		if (!access(path, R_OK)) {
			snprintf(buf, len, "file://%s#%s", path, EXTCAP_SECTION);
			return;
		}
	}
	snprintf(buf, len, "file://%s#%s", PKTSAMPLE_SOURCE_GUIDE, EXTCAP_SECTION);
}

int ps_extcap_query(const struct ps_opts *o, enum ps_extcap_request req)
{
	const struct ps_extcap_args *x = &o->extcap;
	struct if_nameindex *all, *p;
	const char *names[256];
	char url[PATH_MAX + 128];
	int n = 0, ret = 0;

	switch (req) {
	case PS_EXTCAP_INTERFACES:
		all = if_nameindex();
		if (!all) {
			pr_err("cannot list the interfaces: %s\n", strerror(errno));
			return -EIO;
		}
		for (p = all; p->if_index && n < 256; p++)
			names[n++] = p->if_name;
		help_url(url, sizeof(url));
		ps_extcap_print_interfaces(stdout, url, names, n);
		if_freenameindex(all);
		break;
	case PS_EXTCAP_DLTS:
		ps_extcap_print_dlts(stdout, x->interface);
		break;
	case PS_EXTCAP_CONFIG:
		ps_extcap_print_config(stdout, ps_extcap_ifname(x->interface));
		break;
	case PS_EXTCAP_CHECK_FILTER: {
		/* Wireshark shows what this prints as the reason the filter is
		 * bad, and nothing as a good filter: the check is the capture's
		 * own (libpcap, then the translation for the kernel). */
		struct ps_filter f = { 0 };
		char err[512];
		char *expr = strdup(x->capture_filter);

		if (!expr)
			ret = -ENOMEM;
		else if (!*expr)
			free(expr); /* no filter: nothing to say */
		else if (ps_filter_build(&f, expr, o->snaplen, err, sizeof(err)))
			printf("%s\n", err);
		ps_filter_free(&f);
		break;
	}
	default:
		break;
	}
	if (fflush(stdout) || ret) {
		pr_err("cannot answer Wireshark: %s\n", strerror(errno ? errno : ENOMEM));
		return -EIO;
	}
	return 0;
}
