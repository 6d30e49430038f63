// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parser (cli.h): the capture's own options and the rest, the rows of
 * sFlow, the flight recorder and --top gathered among them (cli_opt.h),
 * and getopt's tables, --help, a configuration file's settings and the
 * extcap dialog's options made from them all.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "errmsg.h"
#include "cli_opt.h"
#include "printer.h"
#include "hooks.h"
#include "sampling.h"
#include "pktsample.h"

static int set_iface(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty interface name");
	if (o->n_ifaces == PS_CLI_IFACES)
		return ps_fail(err, len, "-i given more than %d times: use -i any", PS_CLI_IFACES);
	for (int i = 0; i < o->n_ifaces; i++)
		if (!strcmp(o->ifaces[i], a))
			return ps_fail(err, len, "interface '%s' given twice", a);
	o->ifaces[o->n_ifaces++] = a;
	return 0;
}

static int set_max_ifaces(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	if (ps_parse_u64(a, 1, PS_MAX_IFACES, &v))
		return ps_fail(err, len, "bad --max-ifaces '%s': use 1 to %u", a, PS_MAX_IFACES);
	o->max_ifaces = (uint32_t)v;
	return 0;
}

static int set_write(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty output path");
	o->output = a;
	return 0;
}

static int set_read(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty -r path");
	o->read_file = a;
	return 0;
}

static int set_hook(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_hooks(a, &o->hooks))
		return ps_fail(err, len,
			       "bad --hook '%s': use a comma list of xdp, tc-ingress, tc-egress, "
			       "xdp-entry, xdp-exit, drop",
			       a);
	o->hooks_given = true;
	return 0;
}

static int set_snaplen(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	if (ps_parse_u64(a, 0, PS_SNAPLEN_MAX, &v))
		return ps_fail(err, len, "bad snaplen '%s': use 1..%u, or 0 for %u", a,
			       PS_SNAPLEN_MAX, PS_SNAPLEN_MAX);
	o->snaplen = v ? v : PS_SNAPLEN_MAX;
	return 0;
}

static int set_threads(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	if (ps_parse_u64(a, 1, PS_MAX_THREADS, &v))
		return ps_fail(err, len, "bad thread count '%s': use 1..%u", a, PS_MAX_THREADS);
	o->threads = (uint32_t)v;
	return 0;
}

static int set_count(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_u64(a, 1, UINT64_MAX, &o->count))
		return ps_fail(err, len, "bad count '%s': use a positive integer", a);
	return 0;
}

static int set_file_size(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_file_size(a, &o->file_size))
		return ps_fail(err, len,
			       "bad -C '%s': use millions of bytes, or a number with k, m or g", a);
	return 0;
}

static int set_rotate_seconds(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_u64(a, 1, 366 * 86400ull, &o->rotate_seconds))
		return ps_fail(err, len, "bad -G '%s': use a number of seconds, 1 or more", a);
	return 0;
}

static int set_file_count(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t n;

	if (ps_parse_u64(a, 1, 1000000, &n))
		return ps_fail(err, len, "bad -W '%s': use a number of files from 1 to 1000000", a);
	o->file_count = (uint32_t)n;
	return 0;
}

static int set_postrotate(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty -z command");
	o->postrotate_cmd = a;
	return 0;
}

static int set_user(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty -Z user name");
	o->user = a;
	return 0;
}

static int set_duration(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_duration_ms(a, &o->duration_ms))
		return ps_fail(err, len, "bad duration '%s': use e.g. 10, 10s, 500ms, 2m, 1h", a);
	return 0;
}

static int set_buffer(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	/* 0: the default, as the extcap dialog passes it. */
	if (ps_parse_u64(a, 0, PS_MAX_BUFFER_KIB, &v) || (v && v < 4))
		return ps_fail(err, len,
			       "bad buffer size '%s': use 4..%u KiB, all CPUs together (0: the default)",
			       a, PS_MAX_BUFFER_KIB);
	o->buffer_kib = v;
	return 0;
}

/* Word a's value among words (ended by a NULL name) into *v; or -EINVAL
 * and "bad OPT 'a': use x, y or z", the words in the table's order. */
static int pick_word(const char *opt, const struct cli_word *words, const char *a, unsigned int *v,
		     char *err, size_t len)
{
	char use[128] = "";
	int n = 0;

	for (const struct cli_word *w = words; w->name; w++, n++)
		if (!strcmp(a, w->name)) {
			*v = w->value;
			return 0;
		}
	for (int i = 0; i < n; i++)
		snprintf(use + strlen(use), sizeof(use) - strlen(use), "%s%s",
			 !i	    ? "" :
			 i == n - 1 ? " or " :
				      ", ",
			 words[i].name);
	return ps_fail(err, len, "bad %s '%s': use %s", opt, a, use);
}

static int set_context(struct ps_opts *o, const char *a, char *err, size_t len)
{
	static const struct cli_word words[] = { { "on", 1 }, { "off", 0 }, { NULL, 0 } };
	unsigned int on;

	if (pick_word("--context", words, a, &on, err, len))
		return -EINVAL;
	o->no_context = !on;
	return 0;
}

static int set_pid(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	/* pid_t's range: kill(2)'s -1 must never come of it. */
	if (ps_parse_u64(a, 1, INT32_MAX, &v))
		return ps_fail(err, len, "bad --pid '%s': use a process id", a);
	o->ctx_pid = (uint32_t)v;
	return 0;
}

static int set_comm(struct ps_opts *o, const char *a, char *err, size_t len)
{
	/* The kernel keeps a name's first 15 bytes: a longer one never matches. */
	if (!*a || strlen(a) >= PS_COMM_LEN)
		return ps_fail(err, len,
			       "bad --comm '%s': use a process name of 1 to %d bytes, as "
			       "ps -o comm shows it",
			       a, PS_COMM_LEN - 1);
	o->ctx_comm = a;
	return 0;
}

static int set_cgroup(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty --cgroup path");
	o->ctx_cgroup = a;
	return 0;
}

static int set_container(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty --container name");
	o->ctx_container = a;
	return 0;
}

static int set_pod(struct ps_opts *o, const char *a, char *err, size_t len)
{
	const char *slash = strchr(a, '/');

	if (!*a || (slash && (slash == a || !slash[1] || strchr(slash + 1, '/'))))
		return ps_fail(err, len, "bad --pod '%s': use NAME or NAMESPACE/NAME", a);
	o->ctx_pod = a;
	return 0;
}

static int set_k8s_ns(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a || strchr(a, '/'))
		return ps_fail(err, len, "bad --k8s-namespace '%s': a Kubernetes namespace's name",
			       a);
	o->ctx_k8s_ns = a;
	return 0;
}

static int set_netns(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty --netns");
	o->netns = a;
	return 0;
}

static int set_filter_file(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (!*a)
		return ps_fail(err, len, "empty filter file name");
	o->filter_file = a;
	return 0;
}

/*
 * --sample, --sample-flows and --sample-interval exclude each other;
 * --sample-mode count turns --sample's random choice into every Nth, once
 * parsing is done (the options may come in any order).
 */
static int set_sampling(struct ps_opts *o, unsigned int mode, char *err, size_t len)
{
	static const char *const opt[] = {
		[PS_SAMPLE_RANDOM] = "--sample",
		[PS_SAMPLE_FLOW] = "--sample-flows",
		[PS_SAMPLE_CLOCK] = "--sample-interval",
	};

	if (o->sample_mode != PS_SAMPLE_ALL && o->sample_mode != mode)
		return ps_fail(err, len, "%s and %s exclude each other: choose one way to sample",
			       opt[o->sample_mode], opt[mode]);
	o->sample_mode = mode;
	return 0;
}

static int set_sample(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_u64(a, 1, UINT32_MAX, &o->sample_n))
		return ps_fail(err, len, "bad --sample '%s': use N from 1 to %u (1 in N packets)",
			       a, UINT32_MAX);
	return set_sampling(o, PS_SAMPLE_RANDOM, err, len);
}

static int set_sample_mode(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (strcmp(a, "random") && strcmp(a, "count"))
		return ps_fail(err, len, "bad --sample-mode '%s': use random or count", a);
	o->sample_mode_given = true;
	o->sample_count = !strcmp(a, "count");
	return 0;
}

static int set_sample_flows(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_u64(a, 1, UINT32_MAX, &o->sample_n))
		return ps_fail(err, len,
			       "bad --sample-flows '%s': use N from 1 to %u (1 in N flows)", a,
			       UINT32_MAX);
	return set_sampling(o, PS_SAMPLE_FLOW, err, len);
}

static int set_sample_interval(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_duration_ms(a, &o->sample_interval_ms) || o->sample_interval_ms > 3600000)
		return ps_fail(err, len, "bad --sample-interval '%s': use 1ms to 1h, e.g. 10ms", a);
	return set_sampling(o, PS_SAMPLE_CLOCK, err, len);
}

static int set_max_rate(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_u64(a, 1, PS_MAX_RATE, &o->max_rate))
		return ps_fail(err, len, "bad --max-rate '%s': use 1 to %llu packets/s per CPU", a,
			       PS_MAX_RATE);
	return 0;
}

static int set_stats(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_duration_ms(a, &o->stats_ms) || o->stats_ms < 100)
		return ps_fail(err, len, "bad --stats '%s': use 100ms or more, e.g. 1s", a);
	return 0;
}

static int set_metrics(struct ps_opts *o, const char *a, char *err, size_t len)
{
	/* No port of its own: one must be given. */
	if (ps_addr_parse(a, true, 0, &o->metrics_addr) || !o->metrics_addr.port)
		return ps_fail(err, len,
			       "bad --metrics '%s': use ADDR:PORT, e.g. 127.0.0.1:9650 "
			       "([ADDR]:PORT for IPv6)",
			       a);
	o->metrics = true;
	return 0;
}

static int set_verbose(struct ps_opts *o, const char *a, char *e, size_t l)
{
	(void)a, (void)e, (void)l;
	o->verbosity++;
	return 0;
}

/* The capture's own options, first in --help: what, where and how to
 * capture, print and write; the filter and sampling; whom packets belong
 * to. */
static const struct cli_opt capture_rows[] = {
	{ "iface", 'i', required_argument, "IFACE",
	  "capture on IFACE (repeat for more; any: every interface that is up, lo only if named, "
	  "and those that come; a pattern such as 'veth*': those that match, now and later)",
	  set_iface, LIVE },
	{ "config", 0, required_argument, "FILE",
	  "the settings of FILE first, one a line (a long option's name and value; man pktsample), "
	  "then the command line's; SIGHUP reads it again",
	  STR(config), LIVE, NOCONF },
	{ "filter", 0, required_argument, "EXPR",
	  "the filter expression as one argument, instead of the words after the options",
	  STR(filter_expr) },
	{ "max-ifaces", 0, required_argument, "N",
	  "room for N interfaces at once (default: those at start; following, 1024 or twice those)",
	  set_max_ifaces, LIVE },
	{ "write", 'w', required_argument, "FILE",
	  "write pcapng to FILE ('-' for stdout); without -w, print the packets", set_write },
	{ "read-file", 'r', required_argument, "FILE",
	  "print a pcap or pcapng FILE ('-' for stdin) instead of capturing; with -w, copy it",
	  set_read, NOCONF },
	{ "print", 0, no_argument, NULL,
	  "print the packets on stdout also while writing them with -w", FLAG(print) },
	{ "path", 0, no_argument, NULL,
	  "with -r: a line per packet, not per record: the hooks it met in order (its records "
	  "share a packet id), the time between them, a drop's reason",
	  FLAG(read_path), NOCONF },
	{ "link-header", 'e', no_argument, NULL,
	  "print the link-level header: MAC addresses, ethertype, VLAN tags", FLAG(link_header) },
	{ "numeric", 'n', no_argument, NULL,
	  "do not resolve addresses or ports (pktsample never does; for tcpdump habits)",
	  FLAG(numeric) },
	{ "time", 't', no_argument, NULL,
	  "no time (-tt: since 1970, -ttt: since the previous packet, -tttt: with the date, -ttttt: since the first)",
	  COUNT(ts_format) },
	{ "hex", 'x', no_argument, NULL,
	  "print each packet in hex after its line (-xx: with the link-level header)", COUNT(hex) },
	{ "hex-ascii", 'X', no_argument, NULL,
	  "print each packet in hex and ASCII (-XX: with the link-level header)",
	  COUNT(hex_ascii) },
	{ "ascii", 'A', no_argument, NULL,
	  "print each packet in ASCII (-AA: with the link-level header)", COUNT(ascii) },
	{ "quiet", 'q', no_argument, NULL, "print less protocol information", FLAG(quiet) },
	{ "line-buffered", 'l', no_argument, NULL,
	  "write each printed line at once (for a pipe into grep or a script)",
	  FLAG(line_buffered) },
	{ "file-size", 'C', required_argument, "SIZE",
	  "start a new file when one exceeds SIZE millions of bytes (k, m, g: KiB, MiB, GiB)",
	  set_file_size, LIVE },
	{ "rotate-seconds", 'G', required_argument, "SECONDS",
	  "start a new file every SECONDS; FILE may hold strftime(3) conversions",
	  set_rotate_seconds, LIVE },
	{ "file-count", 'W', required_argument, "N",
	  "with -C: a ring of N files; with -G alone: stop after N files", set_file_count, LIVE },
	{ "postrotate-command", 'z', required_argument, "CMD",
	  "run CMD FILE on each file closed by -C or -G (e.g. gzip)", set_postrotate, LIVE },
	{ "relinquish-privileges", 'Z', required_argument, "USER",
	  "once capturing, become USER (files are then created as USER)", set_user, LIVE },
	{ "hook", 0, required_argument, "LIST",
	  "hooks: xdp,tc-ingress,tc-egress,xdp-entry,xdp-exit,drop (default tc-ingress,tc-egress; "
	  "xdp-entry,xdp-exit for tc-ingress around another XDP program; tc-egress alone on lo; "
	  "drop: packets the kernel drops there, with the reason)",
	  set_hook, LIVE },
	{ "direction", 'Q', required_argument, "DIR",
	  "in (tc-ingress), out (tc-egress) or inout (both, the default), as tcpdump's -Q; "
	  "around another XDP program too",
	  WORDS("-Q", direction_hooks, { "in", PS_HOOK_BIT(PS_HOOK_TC_INGRESS) },
		{ "out", PS_HOOK_BIT(PS_HOOK_TC_EGRESS) }, { "inout", PS_HOOKS_DEFAULT }),
	  LIVE },
	{ "no-promiscuous-mode", 'p', no_argument, NULL,
	  "do not put the interfaces into promiscuous mode", FLAG(no_promisc), LIVE },
	{ "list-interfaces", 'D', no_argument, NULL,
	  "list the interfaces: state, driver, link type, default ingress hook and why, attach "
	  "modes; then each feature the kernel lacks",
	  FLAG(list_interfaces), NOCONF },
	{ "snaplen", 's', required_argument, "BYTES",
	  "bytes kept per packet (default and max 262144, as tcpdump's; 0 = max)", set_snaplen,
	  LIVE },
	{ "count", 'c', required_argument, "N",
	  "stop after N packets (written, printed, or with -r selected)", set_count },
	{ "duration", 0, required_argument, "TIME", "stop after TIME (10, 10s, 500ms, 2m, 1h)",
	  set_duration, LIVE },
	{ "buffer-size", 'B', required_argument, "KIB",
	  "KiB of buffer, all CPUs together (default 32 MiB per CPU)", set_buffer, LIVE },
	{ "threads", 'j', required_argument, "N",
	  "threads reading the buffers (default: one per 8 CPUs, at most half the cores)",
	  set_threads, LIVE },
	{ "transport", 0, required_argument, "KIND",
	  "auto (default: perf, but ringbuf where -B leaves a CPU under 4 MiB), perf (per-CPU perf "
	  "buffers) or ringbuf (BPF rings: per CPU, per group at a small -B)",
	  WORDS("--transport", transport, { "auto", PS_TRANSPORT_AUTO },
		{ "perf", PS_TRANSPORT_PERF }, { "ringbuf", PS_TRANSPORT_RINGBUF }),
	  LIVE },
	{ "xdp-mode", 0, required_argument, "MODE",
	  "with --hook xdp: native, skb or auto (default: skb on veth, else native if the driver has it)",
	  WORDS("--xdp-mode", xdp_mode, { "native", PS_XDP_NATIVE }, { "skb", PS_XDP_SKB },
		{ "auto", PS_XDP_AUTO }),
	  LIVE },
	{ "tc-mode", 0, required_argument, "MODE",
	  "TC attach: tcx, clsact or auto (default auto: tcx up to 16 interfaces, else clsact)",
	  WORDS("--tc-mode", tc_mode, { "tcx", PS_TC_TCX }, { "clsact", PS_TC_CLSACT },
		{ "auto", PS_TC_AUTO }),
	  LIVE },
	{ "xdp-attach", 0, required_argument, "HOW",
	  "link (default: the kernel detaches it if pktsample dies) or libxdp (its dispatcher)",
	  WORDS("--xdp-attach", xdp_attach, { "link", PS_XDP_VIA_LINK },
		{ "libxdp", PS_XDP_VIA_LIBXDP }),
	  LIVE },
	{ "tc-position", 0, required_argument, "WHERE",
	  "first or last among the TC programs already there (default wire: first at "
	  "ingress, last at egress, as tcpdump sees it)",
	  WORDS("--tc-position", tc_position, { "first", PS_TC_FIRST }, { "last", PS_TC_LAST },
		{ "wire", PS_TC_WIRE }),
	  LIVE },
	{ "packet-id", 0, required_argument, "MODE",
	  "path: a packet's id is the same at every hook it meets (TC and drop; xdp-entry and "
	  "xdp-exit), cpu: the CPU and its sequence, per record; auto (default): path where a "
	  "packet can meet two of the capture's hooks (two interfaces, drop with another hook, "
	  "xdp-entry with xdp-exit)",
	  WORDS("--packet-id", packet_id, { "auto", PS_PKTID_AUTO }, { "path", PS_PKTID_PATH },
		{ "cpu", PS_PKTID_CPU }),
	  LIVE },
	{ "filter-file", 'F', required_argument, "FILE",
	  "read the filter expression from FILE ('#' starts a comment)", set_filter_file },
	{ "dump-filter", 'd', no_argument, NULL,
	  "print the filter's cBPF and the eBPF it becomes, then exit", FLAG(dump_filter), NOCONF },
	{ "sample", 0, required_argument, "N", "keep 1 in N matching packets (random, per CPU)",
	  set_sample, LIVE },
	{ "sample-mode", 0, required_argument, "MODE",
	  "with --sample: random (default) or count (every Nth per CPU)", set_sample_mode, LIVE },
	{ "sample-flows", 0, required_argument, "N",
	  "keep every packet of 1 in N flows, both directions", set_sample_flows, LIVE },
	{ "sample-interval", 0, required_argument, "TIME",
	  "keep one packet per CPU every TIME (>= 1ms), clock-driven", set_sample_interval, LIVE },
	{ "max-rate", 0, required_argument, "PPS", "at most PPS packets/s per CPU leave the kernel",
	  set_max_rate, LIVE },
	{ "context", 0, required_argument, "on|off",
	  "say whom each packet belongs to: process, thread, container, netns (default on)",
	  set_context, LIVE },
	{ "pid", 0, required_argument, "PID",
	  "only the packets of this process's sockets (all its threads)", set_pid, LIVE },
	{ "comm", 0, required_argument, "NAME",
	  "only the packets of sockets made by processes of this name", set_comm, LIVE },
	{ "cgroup", 0, required_argument, "PATH",
	  "only the packets of sockets in this cgroup v2 or below it", set_cgroup, LIVE },
	{ "container", 0, required_argument, "ID|NAME",
	  "only the packets of this container's sockets (its name or id: docker, podman, "
	  "containerd, CRI-O; pod:UID, unit:NAME)",
	  set_container, LIVE },
	{ "pod", 0, required_argument, "[NAMESPACE/]NAME",
	  "only the packets of this Kubernetes pod's containers (as their runtime's records say)",
	  set_pod, LIVE },
	{ "k8s-namespace", 0, required_argument, "NAMESPACE",
	  "only the packets of the containers of this Kubernetes namespace's pods", set_k8s_ns,
	  LIVE },
	{ "host-root", 0, required_argument, "DIR",
	  "read the container runtimes' records under DIR (the node's / mounted in a pod)",
	  STR(host_root), LIVE },
	{ "netns", 0, required_argument, "NAME|PATH|PID",
	  "capture in this network namespace (ip netns's NAME, a path, or a process's)", set_netns,
	  LIVE },
};

/* The rest, after the modules' in --help: the counters, the messages, the
 * program's own; and Wireshark's extcap protocol, hidden. */
static const struct cli_opt other_rows[] = {
	{ "stats", 0, required_argument, "TIME", "print a line of counters to stderr every TIME",
	  set_stats, LIVE },
	{ "metrics", 0, required_argument, "ADDR:PORT",
	  "serve the counters for Prometheus on http://ADDR:PORT/metrics", set_metrics, LIVE },
	{ "metrics-web-config", 0, required_argument, "FILE",
	  "TLS and basic auth for --metrics, as exporters' web-config.yml", STR(metrics_web_config),
	  LIVE },
	{ "epb-verdict", 0, no_argument, NULL,
	  "write each packet's verdict (epb_verdict; Wireshark 4.0's editors corrupt it)",
	  FLAG(epb_verdict), LIVE },
	{ "verbose", 'v', no_argument, NULL,
	  "more messages, and printed packets annotated (-vv: libbpf/libxdp debug)", set_verbose },
	{ "version", 0, no_argument, NULL, "print the version", FLAG(version), NOCONF },
	{ "help", 'h', no_argument, NULL, "show this help", FLAG(help), NOCONF },
	/* Wireshark's extcap protocol (user/app/extcap.h), documented in the man page. */
	{ "extcap-interfaces", 0, no_argument, NULL, NULL, COUNT(extcap.interfaces), HIDDEN },
	{ "extcap-version", 0, optional_argument, NULL, NULL, COUNT(extcap.version), HIDDEN },
	{ "extcap-interface", 0, required_argument, NULL, NULL, STR(extcap.interface), HIDDEN },
	{ "extcap-dlts", 0, no_argument, NULL, NULL, COUNT(extcap.dlts), HIDDEN },
	{ "extcap-config", 0, no_argument, NULL, NULL, COUNT(extcap.config), HIDDEN },
	{ "capture", 0, no_argument, NULL, NULL, COUNT(extcap.capture), HIDDEN },
	{ "fifo", 0, required_argument, NULL, NULL, STR(extcap.fifo), HIDDEN },
	{ "extcap-capture-filter", 0, required_argument, NULL, NULL, STR(extcap.capture_filter),
	  HIDDEN },
	{ "extcap-sampling", 0, required_argument, NULL, NULL, STR(extcap.sampling), HIDDEN },
	{ "extcap-sampling-n", 0, required_argument, NULL, NULL, STR(extcap.sampling_n), HIDDEN },
	{ "extcap-sampling-interval", 0, required_argument, NULL, NULL,
	  STR(extcap.sampling_interval), HIDDEN },
	{ "extcap-log-file", 0, required_argument, NULL, NULL, STR(extcap.log_file), HIDDEN },
};

/* Every row, in --help's order: the capture's, the modules' (cli_opt.h),
 * the rest. */
static const struct cli_table capture_table = CLI_TABLE(capture_rows);
static const struct cli_table other_table = CLI_TABLE(other_rows);
static const struct cli_table *const tables[] = {
	&capture_table, &cli_sflow_table, &cli_flight_table, &cli_top_table, &other_table,
};
/* Room for every row in getopt's tables (ps_cli_parse_at says if not). */
#define ROWS_MAX 128

/* Row i of them all; NULL past the last. */
static const struct cli_opt *row(size_t i)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		if (i < tables[t]->n)
			return &tables[t]->rows[i];
		i -= tables[t]->n;
	}
	return NULL;
}

/* The option with this name; NULL if none. */
static const struct cli_opt *row_named(const char *name)
{
	const struct cli_opt *c;

	for (size_t i = 0; (c = row(i)); i++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* What getopt_long returns for row i: its letter, or past any letter. */
static int row_key(size_t i)
{
	const struct cli_opt *c = row(i);

	return c->letter ? c->letter : 256 + (int)i;
}

/* The one place an option takes effect: from argv, or from the extcap
 * dialog (ps_cli_set). */
static int apply(struct ps_opts *o, const struct cli_opt *c, const char *value, char *err,
		 size_t errlen)
{
	char *field = (char *)o + c->field;

	switch (c->kind) {
	case SET_FLAG:
		*(bool *)field = true;
		return 0;
	case SET_COUNT:
		(*(unsigned int *)field)++;
		return 0;
	case SET_STR:
		*(const char **)field = value;
		return 0;
	case SET_WORD:
		if (pick_word(c->shown, c->words, value, (unsigned int *)field, err, errlen))
			return -EINVAL;
		return 0;
	case SET_BY_FN:
		break;
	}
	return c->set(o, value, err, errlen);
}

int ps_cli_set(struct ps_opts *o, const char *name, const char *value, char *err, size_t errlen)
{
	const struct cli_opt *c = row_named(name);

	if (c)
		return apply(o, c, value, err, errlen);
	return ps_fail(err, errlen, "no option --%s", name);
}

void ps_cli_print_opts(const struct ps_opts *o, struct ps_print_opts *po)
{
	*po = (struct ps_print_opts){
		.ts = o->ts_format,
		.hex = o->hex,
		.hex_ascii = o->hex_ascii,
		.ascii = o->ascii,
		.link = o->link_header,
		.quiet = o->quiet,
		.annotate = o->verbosity > 0,
	};
}

void ps_cli_sampling(const struct ps_opts *o, struct ps_sampling *s)
{
	ps_sampling_init(s, o->sample_mode, o->sample_n, o->sample_interval_ms * 1000000ull,
			 o->max_rate);
}

void ps_cli_usage(FILE *f)
{
	const struct cli_opt *c;

	fputs("Usage: pktsample -i IFACE [-i IFACE ...] [-w FILE] [options] [EXPRESSION]\n"
	      "       pktsample -r FILE [-w OUT] [options] [EXPRESSION]\n"
	      "       pktsample -d [-s BYTES] EXPRESSION\n"
	      "       pktsample -D\n"
	      "Capture packets at XDP and TC hooks into annotated pcapng, or print\n"
	      "them as tcpdump -n does (without -w).\n"
	      "EXPRESSION is a tcpdump (pcap-filter) expression; it runs inside the\n"
	      "kernel, so packets that do not match never leave it.\n\n",
	      f);
	for (size_t i = 0; (c = row(i)); i++) {
		char left[48];

		if (c->hidden)
			continue;
		if (c->letter)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", c->letter, c->name,
				 c->arg ? " " : "", c->arg ? c->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", c->name, c->arg ? " " : "",
				 c->arg ? c->arg : "");
		fprintf(f, "  %-34s %s\n", left, c->help);
	}
	fputs("\n-d prints libpcap's cBPF (as tcpdump -d does), then the eBPF the\n"
	      "XDP and TC programs run, in the kernel verifier's notation.\n"
	      "\nExit status: 0 done, 1 runtime failure, 2 usage error.\n",
	      f);
}

/* What was wrong with --NAME[=VALUE], which getopt_long refused. */
static int long_option_error(const char *arg, char *err, size_t errlen)
{
	size_t n = strcspn(arg, "=");
	const struct cli_opt *match[4], *c;
	int matches = 0;

	for (size_t i = 0; (c = row(i)); i++) {
		if (strncmp(c->name, arg, n))
			continue;
		if (strlen(c->name) == n) { /* the option exists: its value is wrong */
			if (arg[n] == '=' && c->has_arg == no_argument)
				return ps_fail(err, errlen, "option '--%s' takes no value",
					       c->name);
			return ps_fail(err, errlen, "option '--%s' needs a value", c->name);
		}
		if (matches < 4)
			match[matches] = c;
		matches++;
	}
	if (matches > 1)
		return ps_fail(err, errlen, "ambiguous option '--%.*s': --%s, --%s%s", (int)n, arg,
			       match[0]->name, match[1]->name, matches > 2 ? ", ..." : "");
	return ps_fail(err, errlen, "unknown option '--%.*s'", (int)n, arg);
}

int ps_cli_setting(const char *name)
{
	const struct cli_opt *c = row_named(name);

	if (!c)
		return -ENOENT;
	return c->hidden || c->no_config ? -EPERM : c->has_arg == required_argument;
}

int ps_cli_parse(int argc, char **argv, struct ps_opts *o, char *err, size_t errlen)
{
	return ps_cli_parse_at(argc, argv, o, err, errlen, NULL);
}

/* getopt_long's tables of every row; how many rows, or 0 if they do not
 * fit in ROWS_MAX. */
static size_t getopt_tables(struct option *longopts, char *shortopts)
{
	const struct cli_opt *c;
	size_t n = 0, i;

	shortopts[n++] = ':'; /* report a missing argument as ':' */
	for (i = 0; (c = row(i)); i++) {
		if (i == ROWS_MAX)
			return 0;
		longopts[i] = (struct option){ c->name, c->has_arg, NULL, row_key(i) };
		if (c->letter) {
			shortopts[n++] = c->letter;
			if (c->has_arg == required_argument)
				shortopts[n++] = ':';
		}
	}
	shortopts[n] = '\0';
	memset(&longopts[i], 0, sizeof(longopts[i]));
	return i;
}

int ps_cli_parse_at(int argc, char **argv, struct ps_opts *o, char *err, size_t errlen, int *bad)
{
	struct option longopts[ROWS_MAX + 1];
	char shortopts[2 * ROWS_MAX + 2];
	size_t n_rows;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->hooks = PS_HOOKS_DEFAULT;
	o->snaplen = PS_SNAPLEN_MAX;
	o->transport = PS_TRANSPORT_AUTO;
	err[0] = '\0';
	n_rows = getopt_tables(longopts, shortopts);
	if (!n_rows)
		return ps_fail(err, errlen, "more options than ROWS_MAX (user/app/cli.c)");

	optind = 0; /* full re-initialisation: the parser can run again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct cli_opt *opt = NULL;

		/* The argument being looked at, should it be the wrong one. */
		if (bad)
			*bad = optind - 1;
		if (c == '?') {
			const char *arg = argv[optind - 1];

			if (!strncmp(arg, "--", 2))
				return long_option_error(arg + 2, err, errlen);
			if (optopt && optopt < 256)
				return ps_fail(err, errlen, "unknown option '-%c'", optopt);
			return ps_fail(err, errlen, "unknown option '%s'", arg);
		}
		if (c == ':')
			return ps_fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		for (size_t i = 0; i < n_rows; i++)
			if (row_key(i) == c)
				opt = row(i);
		if (opt->live && !o->live_opt[0] && opt->letter)
			snprintf(o->live_opt, sizeof(o->live_opt), "-%c", c);
		else if (opt->live && !o->live_opt[0])
			snprintf(o->live_opt, sizeof(o->live_opt), "--%s", opt->name);
		ret = apply(o, opt, optarg, err, errlen);
		if (ret)
			return ret;
	}
	if (bad)
		*bad = -1;
	if (optind < argc) {
		o->filter_words = &argv[optind];
		o->n_filter_words = argc - optind;
	}
	return 0;
}
