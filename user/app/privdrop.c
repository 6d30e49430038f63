// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* setresuid, setresgid */
#include <errno.h>
#include <stdbool.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "log.h"
#include "privdrop.h"

static bool effective_caps(__u32 caps[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (syscall(SYS_capget, &h, d))
		return false;
	caps[0] = d[0].effective;
	caps[1] = d[1].effective;
	return true;
}

#define HAS(caps, cap) ((caps)[(cap) / 32] & (1u << ((cap) % 32)))

bool ps_have_privileges(void)
{
	__u32 c[2];

	return effective_caps(c) && HAS(c, CAP_NET_ADMIN) &&
	       (HAS(c, CAP_SYS_ADMIN) || (HAS(c, CAP_BPF) && HAS(c, CAP_PERFMON)));
}

/*
 * perf_event_paranoid above 2 is a Debian (and Android) patch: perf_event_open
 * for anyone without CAP_SYS_ADMIN fails, CAP_PERFMON or not. Debian's
 * kernels default to 3.
 */
bool ps_perf_events_allowed(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 2;
	__u32 c[2];

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level <= 2 || (effective_caps(c) && HAS(c, CAP_SYS_ADMIN));
}

int ps_user_lookup(const char *name, struct ps_user *u)
{
	struct passwd *pw = getpwnam(name);
	char *end;

	if (!pw) {
		unsigned long id = strtoul(name, &end, 10);

		if (*name >= '0' && *name <= '9' && !*end)
			pw = getpwuid((uid_t)id);
	}
	if (!pw)
		return -ENOENT;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 0;
}

/* Exactly those of keep permitted and effective; none else. */
static int set_caps(const struct ps_keep_caps *keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { 0 };
	const int caps[] = { keep->net_admin ? CAP_NET_ADMIN : -1, keep->bpf ? CAP_BPF : -1 };

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		if (caps[i] < 0)
			continue;
		d[caps[i] / 32].effective |= 1u << (caps[i] % 32);
		d[caps[i] / 32].permitted |= 1u << (caps[i] % 32);
	}
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/* What is kept, and why, in words. */
static void say_kept(const struct ps_user *u, const struct ps_keep_caps *keep)
{
	if (keep->net_admin)
		pr_warn("now running as %s, keeping CAP_NET_ADMIN to remove the clsact filters at exit\n",
			u->name);
	if (keep->bpf)
		pr_warn("now running as %s, keeping CAP_BPF: this kernel reads BPF maps only with it "
			"while kernel.unprivileged_bpf_disabled is set\n",
			u->name);
	if (!keep->net_admin && !keep->bpf)
		pr_info("now running as %s, with no capabilities\n", u->name);
}

int ps_privdrop(const struct ps_user *u, const struct ps_keep_caps *keep)
{
	const char *step;
	int err = 0;

	/* Keep the permitted set across setuid only if one is still needed. */
	if ((keep->net_admin || keep->bpf) && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		step = "keeping its capabilities";
		goto fail;
	}
	step = "setting its groups";
	if (initgroups(u->name, u->gid))
		goto fail;
	step = "setting its group id";
	if (setresgid(u->gid, u->gid, u->gid))
		goto fail;
	step = "setting its user id";
	if (setresuid(u->uid, u->uid, u->uid))
		goto fail;
	/* A capabilities-only run keeps its capabilities across a setuid
	 * between two non-zero uids: clear them explicitly. */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	step = "dropping capabilities";
	err = set_caps(keep);
	if (err) {
		pr_err("cannot become user %s: %s: %s\n", u->name, step, strerror(-err));
		return err;
	}
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	say_kept(u, keep);
	return 0;
fail:
	err = -errno;
	pr_err("cannot become user %s: %s: %s\n", u->name, step, strerror(-err));
	return err;
}
