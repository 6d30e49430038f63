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
#include "config.h"
#include "extcap.h"
#include "filter.h"
#include "guardian.h"
#include "iflist.h"
#include "log.h"
#include "netns.h"
#include "notify.h"
#include "printer.h"
#include "privdrop.h"
#include "readfile.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* Two optional strings the same, NULL as "". */
static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

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

static int install_signals(bool reload)
{
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */
	struct sigaction hup = { .sa_handler = reload ? on_reload : on_signal };

	sigemptyset(&sa.sa_mask);
	sigemptyset(&hup.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &hup, NULL)) {
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
 * clsact filter will have to be removed at exit.
 */
static int drop_privileges(struct ps_capture *cap, const struct ps_user *u)
{
	bool clsact = ps_attach_has_clsact(&cap->att);
	const struct ps_output *out = cap->file ? &cap->file->out : NULL;

	if (out && out->new_file && fchown(out->fd, u->uid, u->gid)) {
		int err = -errno;

		pr_err("cannot give %s to %s: %s\n", out->path, u->name, strerror(-err));
		return err;
	}
	return ps_privdrop(u, clsact);
}

/* What the capture takes of the options (user/app/capture.h). */
static void capture_cfg(const struct ps_opts *o, struct ps_capture_cfg *c)
{
	*c = (struct ps_capture_cfg){
		.ifaces = o->ifaces, .n_ifaces = o->n_ifaces, .max_ifaces = (int)o->max_ifaces,
		.reloadable = o->config != NULL,
		.hooks = o->hooks, .hooks_given = o->hooks_given,
		.xdp_mode = o->xdp_mode, .xdp_attach = o->xdp_attach,
		.tc_mode = o->tc_mode, .tc_position = o->tc_position,
		.transport = o->transport, .transport_given = o->transport_given,
		.buffer_kib = o->buffer_kib, .threads = o->threads, .snaplen = o->snaplen,
		.count = o->count, .duration_ms = o->duration_ms, .stats_ms = o->stats_ms,
		.metrics = o->metrics, .metrics_addr = o->metrics_addr,
		.no_promisc = o->no_promisc,
		.file = {
			.output = o->output, .file_size = o->file_size,
			.rotate_ns = o->rotate_seconds * 1000000000ull,
			.file_count = o->file_count, .postrotate_cmd = o->postrotate_cmd,
			.epb_verdict = o->epb_verdict,
		},
		.sflow = o->sflow,
		/* Without -w the packets are printed, unless they go out as sFlow. */
		.print = (!o->output && !o->sflow.n_collectors) || o->print,
		.line_buffered = o->line_buffered,
		/* Only a Wireshark capture gets this far with --capture. */
		.reader_may_leave = o->extcap.capture > 0,
		.context = {
			.enabled = !o->no_context, .pid = o->ctx_pid, .comm = o->ctx_comm,
			.cgroup = o->ctx_cgroup, .container = o->ctx_container,
		},
	};
	ps_cli_sampling(o, &c->smp);
	ps_cli_print_opts(o, &c->print_opts);
}

/*
 * --config FILE: its settings, then the command line's, parsed as one
 * command line (user/app/config.h). The arguments made live as long as
 * the options that point into them: *args, freed with free_args.
 */
struct cfg_args {
	struct ps_config file;
	char **argv;
};

static void free_args(struct cfg_args *a)
{
	ps_config_free(&a->file);
	free(a->argv);
	a->argv = NULL;
}

/* 0, or -EINVAL with the one line said ("FILE:LINE: why" for a setting). */
static int parse_with_config(int argc, char **argv, const char *path, struct ps_opts *o,
			     struct cfg_args *a, const char *after)
{
	char err[512];
	int n, bad = -1;

	memset(a, 0, sizeof(*a));
	if (ps_config_read(path, &a->file, err, sizeof(err))) {
		pr_err("%s%s\n", err, after);
		return -EINVAL;
	}
	n = a->file.n;
	a->argv = calloc((size_t)(argc + n + 1), sizeof(*a->argv));
	if (!a->argv) {
		pr_err("cannot read %s: %s\n", path, strerror(ENOMEM));
		free_args(a);
		return -ENOMEM;
	}
	a->argv[0] = argv[0];
	memcpy(a->argv + 1, a->file.args, (size_t)n * sizeof(*a->argv));
	memcpy(a->argv + 1 + n, argv + 1, (size_t)(argc - 1) * sizeof(*a->argv));
	if (ps_cli_parse_at(argc + n, a->argv, o, err, sizeof(err), &bad) ||
	    ps_cli_check(o, err, sizeof(err))) {
		if (bad >= 1 && bad <= n)
			pr_err("%s:%d: %s%s\n", path, a->file.lines[bad - 1], err, after);
		else
			pr_err("%s: %s%s\n", path, err, after);
		free_args(a);
		return -EINVAL;
	}
	return 0;
}

/*
 * What the running capture has of --config; a reload swaps it. The first
 * file's arguments stay as long as the capture: what cannot change without
 * a restart (the output's name, the rotation's command) was set up with
 * their strings, and the outputs keep them.
 */
static struct {
	int argc;
	char **argv; /* the command line */
	struct ps_opts *opts;
	struct cfg_args args;
	bool reloaded; /* args are a reload's, not the first file's */
} configured;

/* The filter expression from the arguments or -F. */
static int filter_expr(const struct ps_opts *o, char **expr);

static void notify_ready(const struct ps_capture *cap)
{
	char text[128];
	int n = 0;

	for (int i = 0; i < cap->n_ifaces; i++)
		n += cap->ifs[i].ifindex && !cap->ifs[i].gone;
	snprintf(text, sizeof(text), "READY=1\nSTATUS=capturing on %d interface%s", n,
		 n == 1 ? "" : "s");
	ps_notify(text);
}

/*
 * SIGHUP with --config: the file again. A file that does not parse, or
 * asks for what only a restart can do, is one line, and the capture goes
 * on as it was.
 */
static void reload(struct ps_capture *cap)
{
	static const char keep[] = "; keeping the running configuration";
	struct ps_opts *o = calloc(1, sizeof(*o)), *old = configured.opts;
	struct ps_filter *filter = NULL;
	struct ps_capture_cfg cfg;
	struct cfg_args args;
	char why[512], *expr = NULL;

	ps_notify_reloading();
	if (!o ||
	    parse_with_config(configured.argc, configured.argv, old->config, o, &args, keep)) {
		free(o);
		notify_ready(cap);
		return;
	}
	/* The filter, compiled: one that does not is the file's mistake. */
	if ((o->filter_file || o->n_filter_words) && !filter_expr(o, &expr)) {
		filter = calloc(1, sizeof(*filter));
		if (!filter) {
			pr_err("%s: %s%s\n", o->config, strerror(ENOMEM), keep);
			goto out;
		}
		/* The filter owns expr from here on, built or not. */
		if (ps_filter_build(filter, expr, o->snaplen, why, sizeof(why))) {
			expr = NULL;
			pr_err("%s: %s%s\n", o->config, why, keep);
			goto out;
		}
		expr = NULL;
	} else if (o->filter_file || o->n_filter_words) {
		goto out; /* said */
	}
	capture_cfg(o, &cfg);
	if (!same_str(o->netns, old->netns) || !same_str(o->user, old->user)) {
		pr_err("the new configuration changes netns or relinquish-privileges, which needs a "
		       "restart%s\n",
		       keep);
	} else if (!ps_capture_reload(cap, &cfg, filter)) {
		if (cap->filter == filter)
			filter = NULL; /* the capture's now */
		ps_log_set_verbosity(o->verbosity);
		pr_warn("%s: configuration read again\n", o->config);
		if (configured.reloaded)
			free_args(&configured.args);
		configured.reloaded = true;
		free(old);
		configured.opts = o;
		configured.args = args;
		o = NULL;
	}
out:
	if (filter) {
		ps_filter_free(filter);
		free(filter);
	}
	free(expr);
	if (o) {
		free_args(&args);
		free(o);
	}
	notify_ready(cap);
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
	capture_cfg(o, &cfg);
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
	if (cap.file && !fstat(cap.file->out.fd, &st) && !S_ISREG(st.st_mode) &&
	    !S_ISBLK(st.st_mode))
		blocking_out_fd = cap.file->out.fd;
	else if (cfg.print && !fstat(STDOUT_FILENO, &st) &&
		 (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		blocking_out_fd = STDOUT_FILENO; /* the printed lines */
	err = install_signals(o->config != NULL);
	if (!err)
		err = ps_capture_setup(&cap);
	if (!err) {
		int drop_err = o->user ? drop_privileges(&cap, &user) : 0, loop_err = drop_err;

		notify_ready(&cap);
		while (!drop_err && (loop_err = ps_capture_loop(&cap)) == PS_CAPTURE_RELOAD)
			reload(&cap);
		ps_notify("STOPPING=1");
		err = ps_capture_finish(&cap, loop_err);
	}
	ps_capture_teardown(&cap);
	return err ? EXIT_RUNTIME : 0;
}

/* The filter expression from the arguments or -F. */
static int filter_expr(const struct ps_opts *o, char **expr)
{
	char err[512];
	int ret;

	if (o->filter_file) {
		ret = ps_filter_read_file(o->filter_file, expr, err, sizeof(err));
		if (ret)
			pr_err("%s\n", err);
		return ret;
	}
	*expr = ps_filter_join(o->filter_words, o->n_filter_words);
	if (!*expr) {
		pr_err("cannot build the filter expression: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* The filter from the arguments or -F, compiled and translated. */
static int build_filter(const struct ps_opts *o, struct ps_filter *f)
{
	char err[512];
	char *expr;
	int ret;

	ret = filter_expr(o, &expr);
	if (ret)
		return ret;
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

/* -r FILE: print and/or copy a file; the filter runs in user space. */
static int run_read(const struct ps_opts *o)
{
	struct ps_readfile_cfg cfg = {
		.path = o->read_file,
		.output = o->output,
		.print = !o->output || o->print,
		.line_buffered = o->line_buffered,
		.count = o->count,
	};
	char *expr = NULL;
	int ret;

	if ((o->filter_file || o->n_filter_words) && filter_expr(o, &expr))
		return EXIT_USAGE;
	cfg.expr = expr;
	ps_cli_print_opts(o, &cfg.print_opts);
	ret = ps_readfile_run(&cfg);
	free(expr);
	if (ret == -EINVAL || ret == -ENOTTY || ret == -ENAMETOOLONG)
		return EXIT_USAGE;
	return ret ? EXIT_RUNTIME : 0;
}

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

/* Wireshark asks what pktsample offers (user/app/extcap.h). */
static int run_extcap_query(const struct ps_opts *o, enum ps_extcap_request req)
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
			return EXIT_RUNTIME;
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
			ret = EXIT_RUNTIME;
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
		return EXIT_RUNTIME;
	}
	return 0;
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
		struct ps_opts *c = calloc(1, sizeof(*c));

		if (!c || parse_with_config(argc, argv, o.config, c, &configured.args, "")) {
			free(c);
			return EXIT_USAGE;
		}
		configured.argc = argc;
		configured.argv = argv;
		configured.opts = c;
		ps_log_set_verbosity(c->verbosity);
		ps_log_hook_libs();
		return c->filter_file || c->n_filter_words ? run_filtered(c) : run(c, NULL);
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
		return run_extcap_query(&o, req);
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
	if (o.filter_file || o.n_filter_words)
		return run_filtered(&o);
	return run(&o, NULL);
}
