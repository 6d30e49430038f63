// SPDX-License-Identifier: GPL-2.0-only
/*
 * pktsample: capture packets at XDP and TC hooks into annotated pcapng.
 *
 * This file owns argv, privileges, signals and exit codes; the capture
 * itself is user/capture.c. Exit status: 0 done, 1 runtime failure, 2 usage
 * error. Every failure is one line on stderr, logged where it happens (the
 * convention is in user/log.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>

#include "capture.h"
#include "cli.h"
#include "filter.h"
#include "log.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

static struct ps_stop stop;

static void on_signal(int sig)
{
	(void)sig;
	if (stop.requested)
		stop.abort = 1; /* second signal: skip the drain */
	stop.requested = 1;
}

static int install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL)) {
		int err = -errno;

		pr_err("cannot install signal handlers: %s\n", strerror(-err));
		return err;
	}
	signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error */
	return 0;
}

static bool have_privileges(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (syscall(SYS_capget, &h, d))
		return false;
#define HAS(cap) (d[(cap) / 32].effective & (1u << ((cap) % 32)))
	return HAS(CAP_NET_ADMIN) &&
	       (HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON)));
#undef HAS
}

/*
 * The checks run cheapest and least intrusive first: names, privileges,
 * the output file, and only then anything in the kernel. A failed start
 * leaves nothing attached and removes an output file it created.
 */
static int run(const struct ps_opts *o, const struct ps_filter *filter)
{
	struct ps_capture cap;
	int err;

	ps_capture_init(&cap, o, filter, &stop);
	if (ps_capture_resolve(&cap))
		return EXIT_USAGE;
	if (!have_privileges()) {
		pr_err("need root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN, to attach BPF programs\n");
		return EXIT_RUNTIME;
	}
	err = ps_output_open(&cap.out, o->output);
	if (err)
		return err == -ENOTTY ? EXIT_USAGE : EXIT_RUNTIME;
	err = install_signals();
	if (!err)
		err = ps_capture_setup(&cap);
	if (!err)
		err = ps_capture_finish(&cap, ps_capture_loop(&cap));
	ps_capture_teardown(&cap);
	return err ? EXIT_RUNTIME : 0;
}

/* The filter from the arguments or -F, compiled and translated. */
static int build_filter(const struct ps_opts *o, struct ps_filter *f)
{
	char err[512];
	char *expr;
	int ret;

	if (o->filter_file) {
		ret = ps_filter_read_file(o->filter_file, &expr, err, sizeof(err));
		if (ret) {
			pr_err("%s\n", err);
			return ret;
		}
	} else {
		expr = ps_filter_join(o->filter_words, o->n_filter_words);
		if (!expr) {
			pr_err("cannot build the filter expression: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	ret = ps_filter_build(f, expr, o->snaplen, err, sizeof(err));
	if (ret)
		pr_err("%s\n", err);
	return ret;
}

/* With a filter expression: -d prints its translation, else capture with it. */
static int run_filtered(const struct ps_opts *o)
{
	struct ps_filter filter = { 0 };
	int ret;

	if (build_filter(o, &filter)) {
		ps_filter_free(&filter);
		return EXIT_USAGE;
	}
	if (o->dump_filter) {
		ps_filter_dump(stdout, &filter);
		ret = fflush(stdout) ? EXIT_RUNTIME : 0;
		if (ret)
			pr_err("cannot write the filter listing: %s\n", strerror(errno));
	} else {
		ret = run(o, &filter);
	}
	ps_filter_free(&filter);
	return ret;
}

int main(int argc, char **argv)
{
	struct ps_opts o;
	char err[256];

	if (ps_cli_parse(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "pktsample: %s (see --help)\n", err);
		return EXIT_USAGE;
	}
	if (o.help) {
		ps_cli_usage(stdout);
		return 0;
	}
	if (o.version) {
		printf("pktsample %s (libbpf %s, libxdp)\n", PKTSAMPLE_VERSION,
		       libbpf_version_string());
		return 0;
	}
	ps_log_set_verbosity(o.verbosity);
	ps_log_hook_libs();
	if (o.filter_file || o.n_filter_words)
		return run_filtered(&o);
	return run(&o, NULL);
}
