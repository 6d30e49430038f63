// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include "errmsg.h"
#include "cli.h"
#include "extcap.h"
#include "pktsample.h"

const char *ps_extcap_ifname(const char *value)
{
	size_t n = strlen(PS_EXTCAP_PREFIX);

	if (!value || strncmp(value, PS_EXTCAP_PREFIX, n) || !value[n])
		return NULL;
	return value + n;
}

void ps_extcap_print_interfaces(FILE *f, const char *help_url, const char *const *names, int n)
{
	fprintf(f, "extcap {version=%s}{help=%s}\n", PKTSAMPLE_VERSION, help_url);
	for (int i = 0; i < n; i++)
		fprintf(f, "interface {value=%s%s}{display=%s: XDP and TC hooks (pktsample)}\n",
			PS_EXTCAP_PREFIX, names[i], names[i]);
}

void ps_extcap_print_dlts(FILE *f, const char *value)
{
	(void)value;
	fprintf(f, "dlt {number=1}{name=EN10MB}{display=Ethernet}\n");
}

/* One dialog entry; each is a command-line option of pktsample's. */
struct arg {
	const char *call, *display, *type, *def, *range, *tooltip, *group;
	const char *const *values; /* value, display pairs, NULL-terminated */
};

static const char *const hook_values[] = {
	"xdp",	      "XDP (ingress, before the stack)",
	"tc-ingress", "TC ingress (on the skb, after GRO)",
	"tc-egress",  "TC egress (before the qdisc)",
	"xdp-entry",  "Entry of the XDP program already there (fentry)",
	"xdp-exit",   "Exit of the XDP program already there, with its verdict (fexit)",
	"drop",	      "Packets the kernel drops, with the reason (kfree_skb)",
	NULL,
};
static const char *const sampling_values[] = {
	"all",	    "every matching packet",
	"random",   "1 in N, at random",
	"count",    "every Nth, per CPU",
	"flows",    "every packet of 1 in N flows",
	"interval", "one packet per CPU each interval",
	NULL,
};
static const char *const xdp_mode_values[] = {
	"auto", "auto (skb on veth, native elsewhere)", "native", "native", "skb", "skb (generic)",
	NULL,
};
static const char *const tc_mode_values[] = {
	"auto", "auto (tcx, else clsact)", "tcx", "tcx link", "clsact", "clsact qdisc", NULL,
};
static const char *const tc_position_values[] = {
	"wire",	 "first at ingress, last at egress",
	"first", "before the others",
	"last",	 "after the others",
	NULL,
};
static const char *const xdp_attach_values[] = {
	"link", "BPF link (gone when pktsample ends)", "libxdp", "libxdp dispatcher", NULL,
};
static const char *const context_values[] = {
	"on", "on: process, container, namespace", "off", "off", NULL,
};
static const char *const transport_values[] = {
	"auto",	   "auto: perf, rings at a small buffer size",
	"perf",	   "per-CPU perf buffers",
	"ringbuf", "BPF ring buffers",
	NULL,
};

/* The dialog, in its order: each entry a command-line option. On lo the
 * default hook is TC egress alone (print_config). */
static const struct arg dialog[] = {
	{ "--hook", "Hooks", "multicheck", "tc-ingress,tc-egress", NULL,
	  "Where packets are captured; each hook is its own interface in the capture. "
	  "The default sees each packet once per direction (on lo, TC egress alone).",
	  "Capture", hook_values },
	{ "--snaplen", "Snap length", "unsigned", "262144", "0,262144",
	  "Bytes kept per packet (0: the maximum, 262144)", "Capture", NULL },
	{ "--no-promiscuous-mode", "Leave the interface out of promiscuous mode", "boolflag",
	  "false", NULL, "As tcpdump -p", "Capture", NULL },
	{ "--extcap-sampling", "Sampling", "selector", "all", NULL,
	  "Which of the packets that match the capture filter leave the kernel", "Sampling",
	  sampling_values },
	{ "--extcap-sampling-n", "N (random, count, flows)", "unsigned", "100", "1,4294967295",
	  "Keep 1 in N packets, or 1 in N flows", "Sampling", NULL },
	{ "--extcap-sampling-interval", "Interval", "string", "10ms", NULL,
	  "For one packet per CPU each interval: 1ms to 1h, e.g. 10ms, 1s", "Sampling", NULL },
	{ "--max-rate", "Max packets/s per CPU", "unsigned", NULL, "1,1000000000",
	  "At most this many packets a second per CPU leave the kernel (empty: no cap)", "Sampling",
	  NULL },
	{ "--context", "Whom packets belong to", "selector", "on", NULL,
	  "Each packet's process, thread, container and network namespace, in its comment",
	  "Process", context_values },
	{ "--pid", "Only this process", "unsigned", NULL, "1,2147483647",
	  "Only the packets of this process's sockets (empty: every process)", "Process", NULL },
	{ "--comm", "Only processes named", "string", NULL, NULL,
	  "Only the packets of sockets made by processes of this name", "Process", NULL },
	{ "--container", "Only this container", "string", NULL, NULL,
	  "A docker, podman, containerd or CRI-O name or id, pod:UID or unit:NAME", "Process",
	  NULL },
	{ "--pod", "Only this Kubernetes pod", "string", NULL, NULL,
	  "A pod's name, or NAMESPACE/NAME: its containers' packets", "Process", NULL },
	{ "--k8s-namespace", "Only this Kubernetes namespace", "string", NULL, NULL,
	  "The packets of the containers of its pods", "Process", NULL },
	{ "--xdp-mode", "XDP mode", "selector", "auto", NULL, "How the XDP program is attached",
	  "Attach", xdp_mode_values },
	{ "--tc-mode", "TC attach", "selector", "auto", NULL, "How the TC programs are attached",
	  "Attach", tc_mode_values },
	{ "--xdp-attach", "XDP attach through", "selector", "link", NULL,
	  "A BPF link is detached by the kernel however pktsample ends", "Attach",
	  xdp_attach_values },
	{ "--tc-position", "TC position", "selector", "wire", NULL,
	  "Where among TC programs already there", "Attach", tc_position_values },
	{ "--transport", "Transport", "selector", "auto", NULL, "How samples leave the kernel",
	  "Buffers", transport_values },
	{ "--buffer-size", "Buffer (KiB, all CPUs)", "unsigned", "0", "0,1048576",
	  "Kernel buffer in KiB, all CPUs together; 0: 32 MiB per CPU", "Buffers", NULL },
	{ "--flight", "Flight recorder: keep the last", "string", NULL, NULL,
	  "Keep the last TIME in memory (e.g. 30s) and show only incidents: what came "
	  "before and after a trigger (empty: show every packet)",
	  "Flight recorder", NULL },
	{ "--trigger", "Trigger", "string", NULL, NULL,
	  "What starts an incident: a filter expression, drop, or drop:REASON (with "
	  "the drop hook); SIGUSR2 to pktsample by hand",
	  "Flight recorder", NULL },
	{ "--after", "Keep after the trigger", "string", NULL, NULL,
	  "How long an incident goes on after its trigger (empty: 5s)", "Flight recorder", NULL },
	{ "--flight-size", "Memory", "string", NULL, NULL,
	  "Memory for the packets kept, e.g. 64m (empty: 64m); the oldest go first",
	  "Flight recorder", NULL },
	{ "--epb-verdict", "Record each packet's verdict", "boolflag", "false", NULL,
	  "epb_verdict; Wireshark 4.0's editors corrupt files that have it", "Output", NULL },
	{ "--extcap-log-file", "Log file", "fileselect", NULL, NULL,
	  "Where pktsample's notes and summary go (Wireshark shows only errors)", "Debug", NULL },
};

void ps_extcap_print_config(FILE *f, const char *ifname)
{
	bool lo = ifname && !strcmp(ifname, "lo");

	for (unsigned int i = 0; i < sizeof(dialog) / sizeof(dialog[0]); i++) {
		const struct arg *a = &dialog[i];
		const char *def = lo && !strcmp(a->call, "--hook") ? "tc-egress" : a->def;

		fprintf(f, "arg {number=%u}{call=%s}{display=%s}{type=%s}", i, a->call, a->display,
			a->type);
		if (def)
			fprintf(f, "{default=%s}", def);
		if (a->range)
			fprintf(f, "{range=%s}", a->range);
		if (!strcmp(a->type, "fileselect"))
			fprintf(f, "{mustexist=false}");
		fprintf(f, "{tooltip=%s}{group=%s}\n", a->tooltip, a->group);
		for (const char *const *v = a->values; v && *v; v += 2) {
			bool on = def &&
				  (!strcmp(a->type, "multicheck") ? strstr(def, v[0]) != NULL :
								    !strcmp(def, v[0]));

			fprintf(f, "value {arg=%u}{value=%s}{display=%s}{default=%s}\n", i, v[0],
				v[1], on ? "true" : "false");
		}
	}
}

/* The dialog's sampling choice, as the command line spells it. */
static int apply_sampling(struct ps_opts *o, char *err, size_t errlen)
{
	const struct ps_extcap_args *x = &o->extcap;
	const char *n = x->sampling_n ? x->sampling_n : "100";
	const char *mode = x->sampling ? x->sampling : "all";

	if (!strcmp(mode, "all"))
		return 0;
	if (!strcmp(mode, "random"))
		return ps_cli_set(o, "sample", n, err, errlen);
	if (!strcmp(mode, "count")) {
		int ret = ps_cli_set(o, "sample", n, err, errlen);

		return ret ? ret : ps_cli_set(o, "sample-mode", "count", err, errlen);
	}
	if (!strcmp(mode, "flows"))
		return ps_cli_set(o, "sample-flows", n, err, errlen);
	if (!strcmp(mode, "interval"))
		return ps_cli_set(o, "sample-interval",
				  x->sampling_interval ? x->sampling_interval : "10ms", err,
				  errlen);
	return ps_fail(err, errlen,
		       "bad --extcap-sampling '%s': use all, random, count, flows or interval",
		       mode);
}

bool ps_extcap_requested(const struct ps_opts *o)
{
	const struct ps_extcap_args *x = &o->extcap;

	return x->interfaces || x->version || x->interface || x->dlts || x->config || x->capture ||
	       x->fifo || x->capture_filter || x->log_file || x->sampling || x->sampling_n ||
	       x->sampling_interval;
}

int ps_extcap_apply(struct ps_opts *o, enum ps_extcap_request *req, char *err, size_t errlen)
{
	struct ps_extcap_args *x = &o->extcap;
	const char *ifname = ps_extcap_ifname(x->interface);

	*req = PS_EXTCAP_NONE;
	if (x->interfaces || (x->version && !x->interface)) {
		*req = PS_EXTCAP_INTERFACES;
		return 0;
	}
	if (!x->interface)
		return ps_fail(err, errlen, "the extcap options need --extcap-interface");
	if (!ifname)
		return ps_fail(err, errlen, "'%s' is not a pktsample interface (%sIFACE)",
			       x->interface, PS_EXTCAP_PREFIX);
	if (x->dlts) {
		*req = PS_EXTCAP_DLTS;
		return 0;
	}
	if (x->config) {
		*req = PS_EXTCAP_CONFIG;
		return 0;
	}
	if (!x->capture) {
		if (!x->capture_filter)
			return ps_fail(
				err, errlen,
				"--extcap-interface needs --capture, --extcap-dlts, --extcap-config or --extcap-capture-filter");
		*req = PS_EXTCAP_CHECK_FILTER;
		return 0;
	}
	if (!x->fifo || !*x->fifo)
		return ps_fail(err, errlen, "--capture needs --fifo PATH");
	if (o->n_ifaces || o->output || o->read_file)
		return ps_fail(err, errlen,
			       "an extcap capture takes its interface and output from Wireshark");
	*req = PS_EXTCAP_CAPTURE;
	o->ifaces[o->n_ifaces++] = ifname;
	o->output = x->fifo;
	if (x->capture_filter && *x->capture_filter) {
		if (o->n_filter_words || o->filter_file)
			return ps_fail(err, errlen, "the capture filter comes from Wireshark");
		x->filter_word = (char *)x->capture_filter;
		o->filter_words = &x->filter_word;
		o->n_filter_words = 1;
	}
	return apply_sampling(o, err, errlen);
}
