// SPDX-License-Identifier: GPL-2.0-only
/*
 * pktsample: capture packets at XDP and TC hooks into annotated pcapng.
 *
 * This file owns argv, privileges, signals and exit codes; the capture
 * itself is user/app/capture.c. Exit status: 0 done, 1 runtime failure, 2 usage
 * error. Every failure is one line on stderr, logged where it happens (the
 * convention is in user/util/log.h).
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "capture.h"
#include "cli.h"
#include "extcap_query.h"
#include "filter.h"
#include "guardian.h"
#include "iflist.h"
#include "log.h"
#include "netns.h"
#include "kfeatures.h"
#include "notify.h"
#include "options.h"
#include "printer.h"
#include "privdrop.h"
#include "readfile.h"
#include "service.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

static struct ps_stop stop;
/* The output, when a write to it can block (a pipe, a FIFO, a socket). */
static volatile sig_atomic_t blocking_out_fd = -1;

/*
 * The first signal stops the capture; a write blocked on a full pipe
 * returns (no SA_RESTART), and the output turns non-blocking, so that no
 * later write can block again: the writer gives what is left a short
 * grace (user/capfile/pcapng.h). The second signal also skips the drain.
 */
static void on_signal(int sig)
{
	int saved = errno, fd = blocking_out_fd;

	(void)sig;
	if (stop.requested)
		stop.abort = 1;
	stop.requested = 1;
	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	errno = saved;
}

/* With --config, SIGHUP reads it again (as hsflowd's, sshd's, ...). */
static void on_reload(int sig)
{
	(void)sig;
	stop.reload = 1;
}

/* With --flight, SIGUSR2 starts an incident by hand. */
static void on_trigger(int sig)
{
	(void)sig;
	stop.trigger = 1;
}

static int install_signals(bool reload, bool flight)
{
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */
	struct sigaction hup = { .sa_handler = reload ? on_reload : on_signal };
	struct sigaction usr2 = { .sa_handler = on_trigger };

	sigemptyset(&sa.sa_mask);
	sigemptyset(&hup.sa_mask);
	sigemptyset(&usr2.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &hup, NULL) || (flight && sigaction(SIGUSR2, &usr2, NULL))) {
		int err = -errno;

		pr_err("cannot install signal handlers: %s\n", strerror(-err));
		return err;
	}
	signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error */
	return 0;
}

/*
 * -Z: the first file becomes USER's if we made it (files made later are
 * USER's anyway), then USER we become. CAP_NET_ADMIN stays only if a
 * clsact filter will have to be removed at exit; CAP_BPF only where the
 * kernel would refuse the maps' reads without it (user/kernel/kfeatures.h).
 */
static int drop_privileges(struct ps_capture *cap, const struct ps_user *u)
{
	const struct ps_keep_caps keep = { ps_attach_has_clsact(&cap->kern.att),
					   !ps_kfeature_has(PS_KF_FD_UNPRIV) };
	const struct ps_output *out = cap->out.file ? &cap->out.file->out : NULL;

	if (out && out->new_file && fchown(out->fd, u->uid, u->gid)) {
		int err = -errno;

		pr_err("cannot give %s to %s: %s\n", out->path, u->name, strerror(-err));
		return err;
	}
	return ps_privdrop(u, &keep);
}

/*
 * The checks run cheapest and least intrusive first: names, privileges,
 * the output file, and only then anything in the kernel. A failed start
 * leaves nothing attached and removes an output file it created.
 */
static int run(const struct ps_opts *o, struct ps_filter *filter)
{
	struct ps_capture_cfg cfg;
	struct ps_capture cap;
	struct ps_user user;
	struct stat st;
	int err;

	/* --netns: everything from here on (names, devices, attach) happens
	 * in that namespace, as under ip netns exec. */
	if (o->netns) {
		err = ps_netns_enter(o->netns);
		if (err)
			return err == -ENOENT || err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	ps_options_capture_cfg(o, &cfg);
	ps_capture_init(&cap, &cfg, filter, &stop);
	err = ps_capture_resolve(&cap);
	/* A device pktsample cannot write, or an XDP program it cannot trace
	 * there, is the host's state, not a usage error. */
	if (err)
		return err == -EPROTONOSUPPORT || err == -EOPNOTSUPP ? EXIT_RUNTIME : EXIT_USAGE;
	if (o->user && ps_user_lookup(o->user, &user)) {
		pr_err("-Z: no such user '%s'\n", o->user);
		return EXIT_USAGE;
	}
	if (!ps_have_privileges()) {
		pr_err("need root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN, to attach BPF programs\n");
		return EXIT_RUNTIME;
	}
	err = ps_capture_open_output(&cap);
	if (err)
		return err == -ENOTTY || err == -EINVAL || err == -ENAMETOOLONG ? EXIT_USAGE :
										  EXIT_RUNTIME;
	if (cap.out.file && !fstat(cap.out.file->out.fd, &st) && !S_ISREG(st.st_mode) &&
	    !S_ISBLK(st.st_mode))
		blocking_out_fd = cap.out.file->out.fd;
	else if (cfg.print && !fstat(STDOUT_FILENO, &st) &&
		 (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		blocking_out_fd = STDOUT_FILENO; /* the printed lines */
	err = install_signals(o->config != NULL, o->flight_ms != 0);
	if (!err)
		err = ps_capture_setup(&cap);
	if (!err) {
		int drop_err = o->user ? drop_privileges(&cap, &user) : 0, loop_err = drop_err;

		ps_service_ready(&cap);
		while (!drop_err && (loop_err = ps_capture_loop(&cap)) == PS_CAPTURE_RELOAD)
			ps_service_reload(&cap);
		ps_notify("STOPPING=1");
		err = ps_capture_finish(&cap, loop_err);
	}
	ps_capture_teardown(&cap);
	return err ? EXIT_RUNTIME : 0;
}

/* With a filter expression: -d prints its translation, else capture with it. */
static int run_filtered(const struct ps_opts *o)
{
	struct ps_filter filter = { 0 };
	int ret;

	if (ps_options_build_filter(o, &filter)) {
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

/* -r FILE: print and/or copy a file; the filter runs in user space. */
static int run_read(const struct ps_opts *o)
{
	struct ps_readfile_cfg cfg = {
		.path = o->read_file,
		.output = o->output,
		.print = !o->output || o->print,
		.line_buffered = o->line_buffered,
		.count = o->count,
		.by_packet = o->read_path,
	};
	char *expr = NULL;
	int ret;

	if (ps_options_have_filter(o) && ps_options_filter_expr(o, &expr))
		return EXIT_USAGE;
	cfg.expr = expr;
	ps_cli_print_opts(o, &cfg.print_opts);
	ret = ps_readfile_run(&cfg);
	free(expr);
	if (ret == -EINVAL || ret == -ENOTTY || ret == -ENAMETOOLONG)
		return EXIT_USAGE;
	return ret ? EXIT_RUNTIME : 0;
}

int main(int argc, char **argv)
{
	struct ps_opts o;
	char err[256];

	/* Before getopt reorders argv: the strings lie one after another. */
	ps_guardian_set_title_area(argv[0],
				   (size_t)(argv[argc - 1] - argv[0]) + strlen(argv[argc - 1]) + 1);
	enum ps_extcap_request req = PS_EXTCAP_NONE;

	ps_log_detect_journal();
	if (ps_cli_parse(argc, argv, &o, err, sizeof(err))) {
		pr_err("%s (see --help)\n", err);
		return EXIT_USAGE;
	}
	if (o.help) {
		ps_cli_usage(stdout);
		return 0;
	}
	if (o.list_interfaces) {
		int err = ps_iflist_print(stdout);

		if (err || fflush(stdout)) {
			pr_err("cannot list the interfaces: %s\n", strerror(err ? -err : errno));
			return EXIT_RUNTIME;
		}
		return 0;
	}
	if (o.version) {
		printf("pktsample %s (libbpf %s, libxdp)\n", PKTSAMPLE_VERSION,
		       libbpf_version_string());
		return 0;
	}
	if (o.config) {
		/* The file's settings, then the command line's, parsed and
		 * checked once more: the service's way. */
		struct ps_opts *c;
		int ret;

		if (ps_service_load(argc, argv, o.config, &c))
			return EXIT_USAGE;
		ps_log_set_verbosity(c->verbosity);
		ps_log_hook_libs();
		ret = ps_options_have_filter(c) ? run_filtered(c) : run(c, NULL);
		ps_service_end();
		return ret;
	}
	/* Parse, then Wireshark's options into the command line's, then
	 * whether they go together. */
	if ((ps_extcap_requested(&o) && ps_extcap_apply(&o, &req, err, sizeof(err))) ||
	    ((!req || req == PS_EXTCAP_CAPTURE) && ps_cli_check(&o, err, sizeof(err)))) {
		pr_err("%s (see --help)\n", err);
		return EXIT_USAGE;
	}
	ps_log_set_verbosity(o.verbosity);
	ps_log_hook_libs();
	if (req && req != PS_EXTCAP_CAPTURE)
		return ps_extcap_query(&o, req) ? EXIT_RUNTIME : 0;
	if (req == PS_EXTCAP_CAPTURE) {
		/* Wireshark shows anything on stderr as an error. */
		FILE *log = o.extcap.log_file ? fopen(o.extcap.log_file, "a") : NULL;

		if (o.extcap.log_file && !log) {
			pr_err("cannot write %s: %s\n", o.extcap.log_file, strerror(errno));
			return EXIT_USAGE;
		}
		ps_log_errors_only(log);
	}
	if (o.read_file && !o.dump_filter)
		return run_read(&o);
	if (ps_options_have_filter(&o))
		return run_filtered(&o);
	return run(&o, NULL);
}
