// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "attach.h"
#include "cli.h"
#include "support/parse_args.h"
#include "sampling.h"
#include "pktsample.h"

#define ARGV(...) ((char *[]){ "pktsample", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "pktsample", __VA_ARGS__ }) / sizeof(char *)))
static enum ps_extcap_request req;
#define PARSE(o, err, ...) \
	ps_test_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), &req, (err), sizeof(err))

static void defaults(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--iface", "eth0", "-w", "out.pcapng"), 0);
	assert_int_equal(o.n_ifaces, 1);
	assert_string_equal(o.ifaces[0], "eth0");
	assert_string_equal(o.output, "out.pcapng");
	assert_int_equal(o.hooks, (1u << PS_HOOK_TC_INGRESS) | (1u << PS_HOOK_TC_EGRESS));
	assert_int_equal(o.snaplen, PS_SNAPLEN_MAX);
	assert_int_equal(o.count, 0);
	assert_int_equal(o.duration_ms, 0);
	assert_int_equal(o.buffer_kib, 0); /* chosen by ps_buffer_plan() */
	assert_int_equal(o.xdp_mode, PS_XDP_AUTO);
	assert_int_equal(o.transport, PS_TRANSPORT_AUTO); /* the capture picks (-B) */
	assert_int_equal(o.tc_mode, PS_TC_AUTO);
	assert_int_equal(o.verbosity, 0);
	assert_false(o.help);
	assert_false(o.version);
}

static void everything(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "veth0", "-i", "veth1", "--hook",
			       "xdp,tc-ingress,tc-egress", "-s", "128", "-c", "1000", "-w", "-",
			       "--duration", "500ms", "-B", "8192", "--xdp-mode", "skb",
			       "--tc-mode", "clsact", "-vv", "--transport", "ringbuf"),
			 0);
	assert_int_equal(o.n_ifaces, 2);
	assert_string_equal(o.ifaces[1], "veth1");
	assert_int_equal(o.hooks, 7);
	assert_int_equal(o.snaplen, 128);
	assert_int_equal(o.count, 1000);
	assert_string_equal(o.output, "-");
	assert_int_equal(o.duration_ms, 500);
	assert_int_equal(o.buffer_kib, 8192);
	assert_int_equal(o.xdp_mode, PS_XDP_SKB);
	assert_int_equal(o.transport, PS_TRANSPORT_RINGBUF);
	assert_int_equal(o.tc_mode, PS_TC_CLSACT);
	assert_int_equal(o.verbosity, 2);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--transport", "auto"), 0);
	assert_int_equal(o.transport, PS_TRANSPORT_AUTO);
}

/* tcpdump's rotation and privilege options. */
static void long_capture_options(void **state)
{
	struct ps_opts o;
	char err[256];
	uint64_t b;

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "out", "-C", "50", "-W", "4", "-G", "3600",
			       "-z", "gzip", "-Z", "nobody", "--tc-position", "last",
			       "--xdp-attach", "libxdp"),
			 -EINVAL); /* -Z and libxdp: refused, see rejects_bad_input */
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "out", "-C", "50", "-W", "4", "-G", "3600",
			       "-z", "gzip", "-Z", "nobody", "--tc-position", "last"),
			 0);
	assert_int_equal(o.file_size, 50000000);
	assert_int_equal(o.file_count, 4);
	assert_int_equal(o.rotate_seconds, 3600);
	assert_string_equal(o.postrotate_cmd, "gzip");
	assert_string_equal(o.user, "nobody");
	assert_int_equal(o.tc_position, PS_TC_LAST);
	assert_int_equal(o.xdp_attach, PS_XDP_VIA_LINK);
	/* -C: millions of bytes, or binary units with a suffix, as tcpdump */
	assert_int_equal(ps_parse_file_size("1", &b), 0);
	assert_int_equal(b, 1000000);
	assert_int_equal(ps_parse_file_size("2k", &b), 0);
	assert_int_equal(b, 2048);
	assert_int_equal(ps_parse_file_size("3M", &b), 0);
	assert_int_equal(b, 3u << 20);
	assert_int_equal(ps_parse_file_size("1g", &b), 0);
	assert_int_equal(b, 1u << 30);
	assert_int_equal(ps_parse_file_size("-1", &b), -EINVAL);
	assert_int_equal(ps_parse_file_size("", &b), -EINVAL);
	assert_int_equal(ps_parse_file_size("1t", &b), -EINVAL);
}

/* tcpdump's -Q, -p and -D. */
static void tcpdump_direction_and_listing(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f"), 0);
	assert_false(o.hooks_given);
	assert_false(o.no_promisc);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "-Q", "in", "-p"), 0);
	assert_int_equal(o.hooks, PS_HOOK_BIT(PS_HOOK_TC_INGRESS));
	assert_true(o.hooks_given);
	assert_true(o.no_promisc);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "-Q", "out"), 0);
	assert_int_equal(o.hooks, PS_HOOK_BIT(PS_HOOK_TC_EGRESS));
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--direction", "inout"), 0);
	assert_int_equal(o.hooks, PS_HOOKS_DEFAULT);
	assert_true(o.hooks_given);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--hook", "tc-ingress"), 0);
	assert_true(o.hooks_given);
	/* -D needs nothing else */
	assert_int_equal(PARSE(&o, err, "-D"), 0);
	assert_true(o.list_interfaces);
}

/* The live view's tcpdump flags, printing without -w, and -r. */
static void printing_and_reading(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a"), 0);
	assert_null(o.output);
	assert_false(o.print);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-e", "-n", "-ttt", "-xx", "-X", "-A", "-q",
			       "-l", "-v", "-w", "f", "--print"),
			 0);
	assert_true(o.link_header && o.numeric && o.quiet && o.line_buffered && o.print);
	assert_int_equal(o.ts_format, 3);
	assert_int_equal(o.hex, 2);
	assert_int_equal(o.hex_ascii, 1);
	assert_int_equal(o.ascii, 1);
	assert_string_equal(o.output, "f");
	assert_int_equal(PARSE(&o, err, "-r", "in.pcap", "-w", "out.pcap", "-c", "5", "-e", "tcp",
			       "port", "80"),
			 0);
	assert_string_equal(o.read_file, "in.pcap");
	assert_int_equal(o.count, 5);
	assert_int_equal(o.n_filter_words, 3);
	assert_int_equal(o.n_ifaces, 0);
}

/* --sflow: the collectors, and the rate from --sample (1 without it). */
static void sflow_options(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a", "--sflow", "192.0.2.1", "--sflow",
			       "[2001:db8::1]:7000", "--sample", "100"),
			 0);
	assert_int_equal(o.sflow.n_collectors, 2);
	assert_int_equal(o.sflow.collectors[0].port, 6343);
	assert_int_equal(o.sflow.collectors[1].port, 7000);
	assert_int_equal(o.sflow.rate, 100);
	assert_int_equal(o.sflow.header_bytes, 128);
	assert_int_equal(o.sflow.counters_s, 20);
	assert_null(o.output);
	assert_int_equal(PARSE(&o, err, "-i", "a", "--sflow", "192.0.2.1", "--sample", "8",
			       "--sample-mode", "count", "--sflow-header", "256",
			       "--sflow-counters", "5", "--sflow-agent", "2001:db8::9"),
			 0);
	assert_int_equal(o.sflow.rate, 8);
	assert_int_equal(o.sflow.header_bytes, 256);
	assert_int_equal(o.sflow.counters_s, 5);
	assert_true(o.sflow.has_agent);
	assert_int_equal(PARSE(&o, err, "-i", "a", "--sflow", "192.0.2.1"), 0);
	assert_int_equal(o.sflow.rate, 1);
}

/* --flight and its options: the defaults, and what they need. */
static void flight_options(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--flight", "30s", "--trigger",
			       "udp port 53", "--trigger", "drop:NO_SOCKET", "--hook",
			       "tc-ingress,drop", "--holdoff", "1m", "--incidents", "3", "-W", "5"),
			 0);
	assert_int_equal(o.flight_ms, 30000);
	assert_int_equal(o.flight_size, PS_FLIGHT_SIZE_DEFAULT);
	assert_int_equal(o.after_ms, PS_FLIGHT_AFTER_DEFAULT_MS);
	assert_int_equal(o.holdoff_ms, 60000);
	assert_int_equal(o.incidents, 3);
	assert_int_equal(o.n_triggers, 2);
	assert_string_equal(o.triggers[1], "drop:NO_SOCKET");
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--flight", "5m", "--flight-size",
			       "1g", "--after", "0"),
			 0);
	assert_int_equal(o.flight_size, 1ull << 30);
	assert_int_equal(o.after_ms, 0);
	assert_int_equal(o.n_triggers, 0); /* SIGUSR2 alone */
}

static void top_options(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a", "--top"), 0);
	assert_true(o.top && !o.top_batch);
	assert_int_equal(o.top_group, 0); /* process */
	assert_int_equal(o.top_sort, 0);  /* bytes */
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--top", "--batch", "--top-group",
			       "drop", "--top-sort", "packets"),
			 0);
	assert_true(o.top && o.top_batch);
	assert_int_equal(o.top_group, 4);
	assert_int_equal(o.top_sort, 1);
}

static void snaplen_zero_means_max(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "-s", "0"), 0);
	assert_int_equal(o.snaplen, PS_SNAPLEN_MAX);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "-s", "65460"), 0);
	assert_int_equal(o.snaplen, 65460);
}

static void help_and_version_need_nothing_else(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-h"), 0);
	assert_true(o.help);
	assert_int_equal(PARSE(&o, err, "--version"), 0);
	assert_true(o.version);
}

struct bad_case {
	int argc;
	char **argv;
	const char *expect; /* substring of the message */
};

#define BAD(msg, ...)                                     \
	{                                                 \
		ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), msg \
	}

static void rejects_bad_input(void **state)
{
	const struct bad_case cases[] = {
		BAD("unknown option '--bogus'", "--bogus", "-i", "a", "-w", "f"),
		BAD("unknown option '-7'", "-7", "-i", "a", "-w", "f"),
		BAD("needs a value", "-i", "a", "-w"),
		BAD("needs a value", "-w", "f", "--iface"),
		BAD("no interface", "-w", "f"),
		BAD("no interface: use -i IFACE (or -r FILE to read one)", "-w", "f"),
		BAD("--print and -w - would both write to stdout", "-i", "a", "-w", "-", "--print"),
		BAD("--batch, --top-group and --top-sort go with --top", "-i", "a", "--batch"),
		BAD("--top and --print would both write to stdout", "-i", "a", "--top", "--print"),
		BAD("--top and -w - would both write to stdout", "-i", "a", "--top", "-w", "-"),
		BAD("bad --top-group 'pid': use process, container, flow, interface, drop, pod, namespace or path",
		    "-i", "a", "--top", "--top-group", "pid"),
		BAD("bad --top-sort 'rate': use bytes, packets, drops or name", "-i", "a", "--top",
		    "--top-sort", "rate"),
		BAD("--top is for a live capture; -r reads a file", "-r", "f", "--top"),
		BAD("bad --pod 'a/b/c': use NAME or NAMESPACE/NAME", "-i", "a", "--pod", "a/b/c"),
		BAD("bad --pod 'shop/': use NAME or NAMESPACE/NAME", "-i", "a", "--pod", "shop/"),
		BAD("bad --k8s-namespace 'a/b': a Kubernetes namespace's name", "-i", "a",
		    "--k8s-namespace", "a/b"),
		BAD("--cgroup, --container, --pod and --k8s-namespace choose cgroups: give one of "
		    "them",
		    "-i", "a", "--container", "web", "--pod", "cart"),
		BAD("--k8s-namespace needs --context on: it filters on whom packets belong to",
		    "-i", "a", "--context", "off", "--k8s-namespace", "shop"),
		BAD("-t repeats at most five times", "-i", "a", "-tttttt"),
		BAD("-i is for a live capture; -r reads a file", "-r", "f", "-i", "a"),
		BAD("--sample is for a live capture; -r reads a file", "-r", "f", "--sample", "2"),
		BAD("-C is for a live capture; -r reads a file", "-r", "f", "-w", "o", "-C", "1"),
		BAD("empty -r path", "-r", ""),
		BAD("bad --hook 'xdp,'", "-i", "a", "--hook", "xdp,"),
		BAD("bad --sflow 'collector.example'", "-i", "a", "--sflow", "collector.example"),
		BAD("bad --sflow '192.0.2.1:0'", "-i", "a", "--sflow", "192.0.2.1:0"),
		BAD("--sflow needs a 1-in-N rate: use --sample N, not --sample-flows", "-i", "a",
		    "--sflow", "192.0.2.1", "--sample-flows", "8"),
		BAD("--sflow needs a 1-in-N rate: use --sample N, not --sample-interval", "-i", "a",
		    "--sflow", "192.0.2.1", "--sample-interval", "10ms"),
		BAD("--sflow needs a 1-in-N rate, which --max-rate would break", "-i", "a",
		    "--sflow", "192.0.2.1", "--max-rate", "100"),
		BAD("need --sflow", "-i", "a", "--sflow-header", "64"),
		BAD("bad --sflow-header '13'", "-i", "a", "--sflow", "192.0.2.1", "--sflow-header",
		    "13"),
		BAD("bad --sflow-counters '0'", "-i", "a", "--sflow", "192.0.2.1",
		    "--sflow-counters", "0"),
		BAD("bad --sflow-agent '192.0.2.1:5'", "-i", "a", "--sflow", "192.0.2.1",
		    "--sflow-agent", "192.0.2.1:5"),
		BAD("--sflow is for a live capture", "-r", "f", "--sflow", "192.0.2.1"),
		BAD("-C and -G need -w FILE, not stdout", "-i", "a", "-C", "1"),
		BAD("bad snaplen '262145'", "-i", "a", "-w", "f", "-s", "262145"),
		BAD("bad snaplen '-1'", "-i", "a", "-w", "f", "-s", "-1"),
		BAD("bad snaplen '12x'", "-i", "a", "-w", "f", "-s", "12x"),
		BAD("bad snaplen ''", "-i", "a", "-w", "f", "-s", ""),
		BAD("bad count '0'", "-i", "a", "-w", "f", "-c", "0"),
		BAD("bad count '99999999999999999999'", "-i", "a", "-w", "f", "-c",
		    "99999999999999999999"),
		BAD("bad duration '10x'", "-i", "a", "-w", "f", "--duration", "10x"),
		BAD("bad duration '0'", "-i", "a", "-w", "f", "--duration", "0"),
		BAD("bad duration '-5'", "-i", "a", "-w", "f", "--duration", "-5"),
		BAD("bad buffer size '2'", "-i", "a", "-w", "f", "-B", "2"),
		BAD("bad buffer size '1048577'", "-i", "a", "-w", "f", "-B", "1048577"),
		BAD("bad --hook 'xdp,tc'", "-i", "a", "-w", "f", "--hook", "xdp,tc"),
		BAD("bad --hook ''", "-i", "a", "-w", "f", "--hook", ""),
		BAD("bad --xdp-mode 'hw'", "-i", "a", "-w", "f", "--xdp-mode", "hw"),
		BAD("bad --tc-position 'middle': use first, last or wire", "-i", "a", "-w", "f",
		    "--tc-position", "middle"),
		BAD("bad --transport 'afxdp': use auto, perf or ringbuf", "-i", "a", "-w", "f",
		    "--transport", "afxdp"),
		BAD("bad --tc-mode 'x'", "-i", "a", "-w", "f", "--tc-mode", "x"),
		BAD("given twice", "-i", "a", "-i", "a", "-w", "f"),
		BAD("empty interface", "-i", "", "-w", "f"),
		BAD("either as arguments or with -F", "-i", "a", "-w", "f", "-F", "x", "tcp"),
		BAD("-d needs a filter expression", "-d"),
		BAD("bad --sample '0'", "-i", "a", "-w", "f", "--sample", "0"),
		BAD("bad --sample '4294967296'", "-i", "a", "-w", "f", "--sample", "4294967296"),
		BAD("--sample and --sample-flows exclude each other", "-i", "a", "-w", "f",
		    "--sample", "10", "--sample-flows", "4"),
		BAD("--sample-flows and --sample-interval exclude each other", "-i", "a", "-w", "f",
		    "--sample-flows", "4", "--sample-interval", "10ms"),
		BAD("bad --sample-interval '500us'", "-i", "a", "-w", "f", "--sample-interval",
		    "500us"),
		BAD("bad --sample-interval '0ms'", "-i", "a", "-w", "f", "--sample-interval",
		    "0ms"),
		BAD("bad --sample-flows '0'", "-i", "a", "-w", "f", "--sample-flows", "0"),
		BAD("bad --sample-mode 'flow'", "-i", "a", "-w", "f", "--sample", "2",
		    "--sample-mode", "flow"),
		BAD("--sample-mode needs --sample N", "-i", "a", "-w", "f", "--sample-mode",
		    "count"),
		BAD("--sample-mode needs --sample N", "-i", "a", "-w", "f", "--sample-flows", "3",
		    "--sample-mode", "count"),
		BAD("bad --max-rate '0'", "-i", "a", "-w", "f", "--max-rate", "0"),
		BAD("bad --max-rate '1000000001'", "-i", "a", "-w", "f", "--max-rate",
		    "1000000001"),
		BAD("bad --max-rate '18446744073709551616'", "-i", "a", "-w", "f", "--max-rate",
		    "18446744073709551616"),
		BAD("bad --stats '50ms'", "-i", "a", "-w", "f", "--stats", "50ms"),
		BAD("empty filter file", "-i", "a", "-w", "f", "-F", ""),
		BAD("bad count ' 7'", "-i", "a", "-w", "f", "-c", " 7"),
		BAD("bad -C '0'", "-i", "a", "-w", "f", "-C", "0"),
		BAD("bad -C '5x'", "-i", "a", "-w", "f", "-C", "5x"),
		BAD("bad -C '5kb'", "-i", "a", "-w", "f", "-C", "5kb"),
		BAD("bad -C ' 5'", "-i", "a", "-w", "f", "-C", " 5"),
		BAD("bad -C '18446744073709551615g'", "-i", "a", "-w", "f", "-C",
		    "18446744073709551615g"),
		BAD("bad -G '0'", "-i", "a", "-w", "f", "-G", "0"),
		BAD("bad -W '0'", "-i", "a", "-w", "f", "-C", "1", "-W", "0"),
		BAD("-C and -G need -w FILE, not stdout", "-i", "a", "-w", "-", "-C", "1"),
		BAD("-C and -G need -w FILE, not stdout", "-i", "a", "-w", "-", "-G", "1"),
		BAD("-W needs -C, -G or --flight", "-i", "a", "-w", "f", "-W", "3"),
		BAD("--trigger needs --flight TIME", "-i", "a", "-w", "f", "--trigger", "icmp"),
		BAD("--after needs --flight TIME", "-i", "a", "-w", "f", "--after", "1s"),
		BAD("--flight writes its incidents to -w FILE", "-i", "a", "--flight", "1m"),
		BAD("--flight writes its incidents to -w FILE", "-i", "a", "-w", "-", "--flight",
		    "1m"),
		BAD("-C and -G do not apply", "-i", "a", "-w", "f", "--flight", "1m", "-C", "10"),
		BAD("--incidents N instead", "-i", "a", "-w", "f", "--flight", "1m", "-c", "10"),
		BAD("bad --trigger 'udp port': bad filter expression", "-i", "a", "-w", "f",
		    "--flight", "1m", "--trigger", "udp port"),
		BAD("bad --trigger 'drop:no socket'", "-i", "a", "-w", "f", "--flight", "1m",
		    "--hook", "drop", "--trigger", "drop:no socket"),
		BAD("--trigger drop needs the drop hook", "-i", "a", "-w", "f", "--flight", "1m",
		    "--trigger", "drop"),
		BAD("bad --flight '0'", "-i", "a", "-w", "f", "--flight", "0"),
		BAD("bad --flight-size '0'", "-i", "a", "-w", "f", "--flight", "1m",
		    "--flight-size", "0"),
		BAD("bad --flight-size '1k'", "-i", "a", "-w", "f", "--flight", "1m",
		    "--flight-size", "1k"),
		BAD("bad --after '-1'", "-i", "a", "-w", "f", "--flight", "1m", "--after", "-1"),
		BAD("bad --incidents '0'", "-i", "a", "-w", "f", "--flight", "1m", "--incidents",
		    "0"),
		BAD("-z needs -C, -G or --flight", "-i", "a", "-w", "f", "-z", "gzip"),
		BAD("empty -z command", "-i", "a", "-w", "f", "-C", "1", "-z", ""),
		BAD("empty -Z user name", "-i", "a", "-w", "f", "-Z", ""),
		BAD("-Z cannot be used with --xdp-attach libxdp", "-i", "a", "-w", "f", "-Z",
		    "nobody", "--xdp-attach", "libxdp"),
		BAD("bad -Q 'both'", "-i", "a", "-w", "f", "-Q", "both"),
		BAD("-Q and --hook exclude each other", "-i", "a", "-w", "f", "-Q", "in", "--hook",
		    "xdp"),
		BAD("bad --xdp-attach 'netlink'", "-i", "a", "-w", "f", "--xdp-attach", "netlink"),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ps_opts o;
		char err[256];
		int r = ps_test_parse(cases[i].argc, cases[i].argv, &o, &req, err, sizeof(err));

		if (r != -EINVAL || !strstr(err, cases[i].expect) || strchr(err, '\n'))
			fail_msg("case %zu: got %d '%s', want '%s'", i, r, err, cases[i].expect);
	}
}

static void filter_words_and_dump(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	/* tcpdump style: the words after the options are the expression,
	 * wherever the options are */
	assert_int_equal(PARSE(&o, err, "-i", "a", "tcp", "port", "443", "-w", "f"), 0);
	assert_int_equal(o.n_filter_words, 3);
	assert_string_equal(o.filter_words[0], "tcp");
	assert_string_equal(o.filter_words[2], "443");
	assert_null(o.filter_file);
	assert_false(o.dump_filter);

	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "-F", "expr.txt"), 0);
	assert_string_equal(o.filter_file, "expr.txt");
	assert_int_equal(o.n_filter_words, 0);

	/* -d needs neither an interface nor an output */
	assert_int_equal(PARSE(&o, err, "-d", "vlan 100 and udp"), 0);
	assert_true(o.dump_filter);
	assert_int_equal(o.n_filter_words, 1);
	assert_int_equal(PARSE(&o, err, "-d", "-F", "expr.txt"), 0);
	assert_true(o.dump_filter);
}

static void sampling_options(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f"), 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_ALL);
	assert_int_equal(o.max_rate, 0);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--sample", "1000"), 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_RANDOM);
	assert_int_equal(o.sample_n, 1000);
	/* --sample-mode before or after --sample */
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--sample-mode", "count", "--sample",
			       "7"),
			 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_COUNT);
	assert_int_equal(o.sample_n, 7);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--sample-flows", "64", "--max-rate",
			       "5000", "--stats", "2s"),
			 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_FLOW);
	assert_int_equal(o.sample_n, 64);
	assert_int_equal(o.max_rate, 5000);
	assert_int_equal(o.stats_ms, 2000);
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--sample-interval", "10ms", "tcp",
			       "port", "443"),
			 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_CLOCK);
	assert_int_equal(o.sample_interval_ms, 10);
	assert_int_equal(o.n_filter_words, 3);
}

/* What the options become: BPF knobs, annotations, the scale-back factor. */
static void sampling_config(void **state)
{
	struct ps_sampling s;
	struct ps_opts o;
	char buf[200], err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--sample", "1000"), 0);
	ps_cli_sampling(&o, &s);
	assert_int_equal(s.bpf_mode, PS_SAMPLE_RANDOM);
	assert_int_equal(s.threshold, 4294967); /* floor(2^32 / 1000) */
	ps_sampling_tag(&s, buf, sizeof(buf));
	assert_string_equal(buf, "sample=1/1000 mode=random");
	assert_int_equal(ps_sampling_estimate(&s, 7), 7000);

	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--sample", "1"), 0);
	ps_cli_sampling(&o, &s);
	assert_int_equal(s.bpf_mode, PS_SAMPLE_ALL); /* 1 in 1: keep everything */

	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--sample-flows", "64", "--max-rate",
			       "5000"),
			 0);
	ps_cli_sampling(&o, &s);
	assert_int_equal(s.cost_ns, 200000);
	assert_int_equal(s.burst_ns, 50 * 200000); /* 10 ms of packets */
	ps_sampling_tag(&s, buf, sizeof(buf));
	assert_string_equal(buf, "sample=1/64 mode=flow max-rate=5000/s");
	ps_sampling_describe(&s, buf, sizeof(buf));
	assert_non_null(strstr(buf, "1 in 64 flows"));
	assert_non_null(strstr(buf, "at most 5000 packets/s per CPU"));
	assert_int_equal(ps_sampling_estimate(&s, 7), 0); /* capped: no factor */

	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--max-rate", "1"), 0);
	ps_cli_sampling(&o, &s);
	assert_int_equal(s.burst_ns, s.cost_ns); /* a bucket of one packet */

	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "--sample-interval", "10ms"), 0);
	ps_cli_sampling(&o, &s);
	assert_int_equal(s.interval_ns, 10000000);
	ps_sampling_tag(&s, buf, sizeof(buf));
	assert_string_equal(buf, "sample=10ms mode=clock");
}

static void parses_are_independent(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	/* getopt keeps global state: a second parse must start afresh. */
	assert_int_equal(PARSE(&o, err, "-i", "a", "-w", "f", "-c", "5"), 0);
	assert_int_equal(PARSE(&o, err, "-i", "b", "-w", "g"), 0);
	assert_int_equal(o.count, 0);
	assert_string_equal(o.ifaces[0], "b");
}

static void hook_lists(void **state)
{
	unsigned int m;

	(void)state;
	assert_int_equal(ps_parse_hooks("tc-egress", &m), 0);
	assert_int_equal(m, 1u << PS_HOOK_TC_EGRESS);
	assert_int_equal(ps_parse_hooks("tc-ingress,xdp,xdp", &m), 0);
	assert_int_equal(m, 3);
	assert_int_equal(ps_parse_hooks("xdp,", &m), -EINVAL); /* an item missing */
	assert_int_equal(ps_parse_hooks("xd", &m), -EINVAL);
	assert_int_equal(ps_parse_hooks("xdpx", &m), -EINVAL);
	assert_int_equal(ps_parse_hooks(",", &m), -EINVAL);
}

static void durations(void **state)
{
	uint64_t ms;

	(void)state;
	assert_int_equal(ps_parse_duration_ms("10", &ms), 0);
	assert_int_equal(ms, 10000);
	assert_int_equal(ps_parse_duration_ms("10s", &ms), 0);
	assert_int_equal(ms, 10000);
	assert_int_equal(ps_parse_duration_ms("250ms", &ms), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(ps_parse_duration_ms("2m", &ms), 0);
	assert_int_equal(ms, 120000);
	assert_int_equal(ps_parse_duration_ms("1h", &ms), 0);
	assert_int_equal(ms, 3600000);
	assert_int_equal(ps_parse_duration_ms("1d", &ms), -EINVAL);
	assert_int_equal(ps_parse_duration_ms("s", &ms), -EINVAL);
	assert_int_equal(ps_parse_duration_ms("18446744073709551615h", &ms), -EINVAL);
}

static void usage_lists_every_option(void **state)
{
	char buf[16384] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	const char *names[] = { "--iface",	 "--write",	    "--read-file",
				"--print",	 "--link-header",   "--time",
				"--hex",	 "--hex-ascii",	    "--ascii",
				"--quiet",	 "--line-buffered", "--sflow",
				"--sflow-agent", "--sflow-header",  "--sflow-counters",
				"--hook",	 "--snaplen",	    "--count",
				"--duration",	 "--buffer-size",   "--xdp-mode",
				"--tc-mode",	 "--verbose",	    "--transport",
				"--version",	 "--help" };

	(void)state;
	ps_cli_usage(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strstr(buf, names[i]))
			fail_msg("usage lacks %s", names[i]);
}

/* The modules' rows (sFlow's, the flight recorder's, --top's) gathered
 * with the capture's: each known by name, as a setting and to ps_cli_set,
 * and in --help between the capture's own and the rest. */
static void module_rows_gathered(void **state)
{
	char buf[16384] = "", err[256];
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	const char *order[] = { "--netns",     "--sflow ", "--sflow-burst", "--flight ",
				"--incidents", "--top ",   "--top-sort",    "--stats" };
	const char *at = buf;
	struct ps_opts o;

	(void)state;
	assert_int_equal(ps_cli_setting("iface"), 1);
	assert_int_equal(ps_cli_setting("sflow-burst"), 1);
	assert_int_equal(ps_cli_setting("trigger"), 1);
	assert_int_equal(ps_cli_setting("top"), -EPERM);
	assert_int_equal(ps_cli_setting("batch"), -EPERM);
	assert_int_equal(ps_cli_setting("extcap-interfaces"), -EPERM);
	assert_int_equal(ps_cli_setting("help"), -EPERM);
	assert_int_equal(ps_cli_setting("stats"), 1);
	assert_int_equal(ps_cli_setting("no-such"), -ENOENT);
	memset(&o, 0, sizeof(o));
	assert_int_equal(ps_cli_set(&o, "sflow-header", "64", err, sizeof(err)), 0);
	assert_int_equal(o.sflow.header_bytes, 64);
	assert_int_equal(ps_cli_set(&o, "holdoff", "2s", err, sizeof(err)), 0);
	assert_int_equal(o.holdoff_ms, 2000);
	assert_int_equal(ps_cli_set(&o, "top-sort", "packets", err, sizeof(err)), 0);
	assert_true(o.top_opts);
	assert_int_equal(ps_cli_set(&o, "top-group", "nope", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad --top-group 'nope': use process, container, flow, "
				 "interface, drop, pod, namespace or path");
	assert_int_equal(ps_cli_set(&o, "no-such", "1", err, sizeof(err)), -EINVAL);
	ps_cli_usage(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		at = strstr(at, order[i]);
		if (!at)
			fail_msg("usage lacks %s, or has it out of order", order[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(everything),
		cmocka_unit_test(long_capture_options),
		cmocka_unit_test(tcpdump_direction_and_listing),
		cmocka_unit_test(printing_and_reading),
		cmocka_unit_test(sflow_options),
		cmocka_unit_test(flight_options),
		cmocka_unit_test(top_options),
		cmocka_unit_test(snaplen_zero_means_max),
		cmocka_unit_test(help_and_version_need_nothing_else),
		cmocka_unit_test(rejects_bad_input),
		cmocka_unit_test(filter_words_and_dump),
		cmocka_unit_test(sampling_options),
		cmocka_unit_test(sampling_config),
		cmocka_unit_test(parses_are_independent),
		cmocka_unit_test(hook_lists),
		cmocka_unit_test(durations),
		cmocka_unit_test(usage_lists_every_option),
		cmocka_unit_test(module_rows_gathered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
