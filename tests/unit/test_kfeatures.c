// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel feature table (user/kernel/kfeatures.h): which features a
 * capture uses, which object a kernel takes, and what each absent one's
 * line says. The probes themselves run wherever pktsample starts; the
 * programs they choose are run by test_bpf (older_kernels_...) and, on
 * Debian 11's 5.10, by the VM's smoke set.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "hooks.h"
#include "kfeatures.h"

#define BIT PS_KF_BIT
#define HOOK PS_HOOK_BIT

static void each_capture_uses_what_its_hooks_need(void **state)
{
	struct ps_kneeds n = { .hooks = PS_HOOKS_DEFAULT, .context = true, .tcx = true };
	/* Every capture makes maps: how the kernel counts their memory. */
	const unsigned int maps = BIT(PS_KF_MEMCG);

	(void)state;
	/* The default: both TC hooks, with whom packets belong to. */
	assert_int_equal(ps_kfeatures_used(&n), maps | BIT(PS_KF_TC_TASK) | BIT(PS_KF_TCX));
	n.tcx = false; /* --tc-mode clsact */
	assert_int_equal(ps_kfeatures_used(&n), maps | BIT(PS_KF_TC_TASK));
	n.context = false;
	assert_int_equal(ps_kfeatures_used(&n), maps);
	/* The sender's thread is asked for on the way out only. */
	n = (struct ps_kneeds){ .hooks = HOOK(PS_HOOK_TC_INGRESS), .context = true };
	assert_int_equal(ps_kfeatures_used(&n), maps);
	n = (struct ps_kneeds){ .hooks = HOOK(PS_HOOK_XDP), .context = true, .tcx = true };
	assert_int_equal(ps_kfeatures_used(&n),
			 maps | BIT(PS_KF_XDP_FRAGS) | BIT(PS_KF_XDP_VLAN_META));
	n = (struct ps_kneeds){ .hooks = PS_HOOKS_DROP };
	assert_int_equal(ps_kfeatures_used(&n), maps | BIT(PS_KF_DROP_REASON));
	n = (struct ps_kneeds){ .hooks = HOOK(PS_HOOK_DROP_IP), .pool = true };
	assert_int_equal(ps_kfeatures_used(&n),
			 maps | BIT(PS_KF_DROP_REASON) | BIT(PS_KF_ATOMIC_FETCH));
	/* Around another XDP program: fentry, which every kernel with BTF
	 * we support has, and its own probe (xdptrace.h). */
	n = (struct ps_kneeds){ .hooks = PS_HOOKS_XDP_TRACE, .context = true, .tcx = true };
	assert_int_equal(ps_kfeatures_used(&n), maps);
}

static void each_kernel_takes_the_object_it_can_load(void **state)
{
	(void)state;
	/* 6.8 and later: the whole object where the kfunc is wanted. */
	assert_int_equal(ps_kfeatures_object(PS_KF_ALL, true), PS_KOBJ_FULL);
	assert_int_equal(ps_kfeatures_object(PS_KF_ALL, false), PS_KOBJ_NOKFUNC);
	/* 5.12 to 6.7 (Debian 12's 6.1). */
	assert_int_equal(ps_kfeatures_object(PS_KF_ALL & ~BIT(PS_KF_XDP_VLAN_META), true),
			 PS_KOBJ_NOKFUNC);
	/* Before 5.12 (Debian 11's 5.10): no atomic fetch anywhere. */
	assert_int_equal(ps_kfeatures_object(0, false), PS_KOBJ_COMPAT);
	assert_int_equal(ps_kfeatures_object(PS_KF_ALL & ~BIT(PS_KF_ATOMIC_FETCH), true),
			 PS_KOBJ_COMPAT);
}

/* Each line: what is missing, what it costs, which kernel has it. */
static void each_missing_feature_says_what_it_costs(void **state)
{
	static const char *const since[PS_KF_MAX] = {
		[PS_KF_ATOMIC_FETCH] = "Linux 5.12 has it",
		[PS_KF_XDP_FRAGS] = "Linux 5.18 has it",
		[PS_KF_DROP_REASON] = "Linux 5.17 has it",
		[PS_KF_TC_TASK] = "Linux 6.10 has it",
		[PS_KF_TCX] = "Linux 6.6 has it",
		[PS_KF_XDP_VLAN_META] = "Linux 6.8 has it",
		[PS_KF_MEMCG] = "Linux 5.11 charges",
		[PS_KF_FD_UNPRIV] = "Linux 6.1 asks only",
	};
	static const char *const cost[PS_KF_MAX] = {
		[PS_KF_ATOMIC_FETCH] = "sample pool",  [PS_KF_XDP_FRAGS] = "whole frame",
		[PS_KF_DROP_REASON] = "NOT_SPECIFIED", [PS_KF_TC_TASK] = "made its socket",
		[PS_KF_TCX] = "clsact qdisc",	       [PS_KF_XDP_VLAN_META] = "VLAN tag",
		[PS_KF_MEMCG] = "ulimit -l unlimited", [PS_KF_FD_UNPRIV] = "-Z keeps CAP_BPF",
	};

	(void)state;
	for (int k = 0; k < PS_KF_MAX; k++) {
		const char *line = ps_kfeature_missing_line((enum ps_kfeature)k);

		assert_non_null(strstr(line, since[k]));
		assert_non_null(strstr(line, cost[k]));
		assert_null(strchr(line, '\n'));
		for (int j = 0; j < k; j++)
			assert_string_not_equal(ps_kfeature_name((enum ps_kfeature)j),
						ps_kfeature_name((enum ps_kfeature)k));
	}
}

/* Pretended absences are absences, and are taken back. */
static void a_test_may_pretend_a_feature_away(void **state)
{
	(void)state;
	ps_kfeatures_pretend_missing(PS_KF_ALL);
	assert_int_equal(ps_kfeatures_missing(PS_KF_ALL), PS_KF_ALL);
	assert_false(ps_kfeature_has(PS_KF_TCX));
	ps_kfeatures_pretend_missing(0);
	assert_int_equal(ps_kfeatures_missing(0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_capture_uses_what_its_hooks_need),
		cmocka_unit_test(each_kernel_takes_the_object_it_can_load),
		cmocka_unit_test(each_missing_feature_says_what_it_costs),
		cmocka_unit_test(a_test_may_pretend_a_feature_away),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
