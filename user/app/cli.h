/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line parsing. Pure: no I/O, no exit(), no system look-ups, so every
 * path is unit-testable. Checks that need the system (does the interface
 * exist, can the file be written) belong to the caller.
 *
 * main drives it in one direction: ps_cli_parse (argv into options), then
 * for Wireshark ps_extcap_apply (user/app/extcap.h: its options into the
 * command line's), then ps_cli_check (how the options go together).
 */
#ifndef PS_CLI_H
#define PS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "flight.h"
#include "hooks.h"
#include "pktsample.h"
#include "sflow.h"

#define PS_MAX_BUFFER_KIB (1024 * 1024)
#define PS_MAX_THREADS 64u
/* --transport auto (the default): none named, the capture picks one
 * (cap_choose_transport()); user space's alone, never the kernel's. */
#define PS_TRANSPORT_AUTO 0xffu

/* --max-rate's ceiling, in packets/s: 1 ns of budget per packet. */
#define PS_MAX_RATE 1000000000ull

/* The extcap options as given (user/app/extcap.h reads them). */
struct ps_extcap_args {
	const char *interface;	       /* --extcap-interface */
	const char *fifo;	       /* --fifo */
	const char *capture_filter;    /* --extcap-capture-filter */
	const char *log_file;	       /* --extcap-log-file */
	const char *sampling;	       /* --extcap-sampling: all, random, count, flows, interval */
	const char *sampling_n;	       /* --extcap-sampling-n */
	const char *sampling_interval; /* --extcap-sampling-interval */
	unsigned int interfaces, dlts, config, capture, version; /* switches given */
	char *filter_word; /* the capture filter as the filter's words */
};

/* How many --trigger a capture may have. */
#define PS_CLI_TRIGGERS PS_FLIGHT_TRIGGERS_MAX
/* --flight's defaults: memory, and the time kept after a trigger. */
#define PS_FLIGHT_SIZE_DEFAULT (64ull << 20)
#define PS_FLIGHT_AFTER_DEFAULT_MS 5000

/* How many -i a command line may name (-i any has no such limit). */
#define PS_CLI_IFACES 4096
/* --max-ifaces: the most a capture makes room for (the kernel's maps). */
#define PS_MAX_IFACES 65536

struct ps_opts {
	const char *ifaces[PS_CLI_IFACES];
	int n_ifaces;
	uint32_t max_ifaces;   /* --max-ifaces; 0: as many as there are at start */
	const char *output;    /* "-" = stdout; NULL: print the packets */
	const char *read_file; /* -r: print (copy) a file instead of capturing */
	char live_opt[40];     /* the first option only a live capture takes */
	/* The live view (printer.h): tcpdump's flags. */
	bool print;		      /* --print: print also when writing (-w) */
	bool read_path;		      /* --path: -r prints a line per packet */
	bool link_header;	      /* -e */
	bool quiet;		      /* -q */
	bool line_buffered;	      /* -l */
	bool numeric;		      /* -n: accepted; nothing is ever resolved */
	unsigned int ts_format;	      /* number of -t: enum ps_ts_format */
	unsigned int hex;	      /* number of -x */
	unsigned int hex_ascii;	      /* number of -X */
	unsigned int ascii;	      /* number of -A */
	unsigned int hooks;	      /* PS_HOOK_BIT() set (hooks.h) */
	bool hooks_given;	      /* --hook or -Q: else lo gets tc-egress alone */
	unsigned int direction_hooks; /* -Q's hooks; 0: not given */
	bool no_promisc;	      /* -p */
	bool list_interfaces;	      /* -D: list and exit */
	uint32_t snaplen;	      /* 1..PS_SNAPLEN_MAX */
	uint64_t count;		      /* 0 = unlimited */
	uint64_t duration_ms;	      /* 0 = unlimited */
	uint32_t buffer_kib;	      /* -B: all buffers together; 0: the default */
	uint32_t threads;	      /* -j: reader threads; 0: the default */
	unsigned int transport;	      /* enum ps_transport, or PS_TRANSPORT_AUTO */
	enum ps_xdp_mode xdp_mode;
	enum ps_tc_mode tc_mode;
	enum ps_xdp_attach xdp_attach;
	enum ps_tc_position tc_position;
	enum ps_packet_id packet_id;
	int verbosity;
	bool help;
	bool version;
	/* Filter: the expression words (tcpdump style), --filter's one (a
	 * configuration file's way), or a file: one of them. */
	char *const *filter_words;
	int n_filter_words;
	char *filter_expr; /* --filter (argv's or the file's string) */
	const char *filter_file;
	const char *config; /* --config FILE */
	bool dump_filter;   /* -d: print the translation and exit */
	/* Sampling, after the filter: at most one of the three modes. */
	unsigned int sample_mode;	/* the user's choice: enum ps_sample_mode */
	uint64_t sample_n;		/* random, count, flow: 1 in N */
	uint64_t sample_interval_ms;	/* clock */
	bool sample_mode_given;		/* --sample-mode was used */
	bool sample_count;		/* --sample-mode count */
	uint64_t max_rate;		/* packets/s per CPU; 0 = no cap */
	uint64_t stats_ms;		/* --stats period; 0 = off */
	bool metrics;			/* --metrics: serve the counters ... */
	struct ps_addr metrics_addr;	/* ... there */
	const char *metrics_web_config; /* ... with TLS and users (webcfg.h) */
	bool epb_verdict;		/* write each packet's verdict (epb_verdict) */
	/* Long captures: tcpdump's -C, -G, -W, -z, -Z. */
	uint64_t file_size;	    /* -C, in bytes; 0 = off */
	uint64_t rotate_seconds;    /* -G; 0 = off */
	uint32_t file_count;	    /* -W; 0 = off */
	const char *postrotate_cmd; /* -z */
	const char *user;	    /* -Z */
	/* The flight recorder (user/flight/flight.h). */
	uint64_t flight_ms;   /* --flight; 0: off */
	uint64_t flight_size; /* --flight-size, bytes; 0: the default */
	uint64_t after_ms;    /* --after */
	bool after_given;
	uint64_t holdoff_ms;		       /* --holdoff */
	uint32_t incidents;		       /* --incidents; 0: no limit */
	const char *triggers[PS_CLI_TRIGGERS]; /* --trigger, as given */
	int n_triggers;
	struct ps_extcap_args extcap; /* as a Wireshark extcap (user/app/extcap.h) */
	/* sFlow export: collectors, agent, header bytes, counter interval; the
	 * rate comes from --sample (rate 1 without). */
	struct ps_sflow_config sflow;
	bool sflow_opts; /* an --sflow-* option was given */
	/* Who packets belong to: --context, and the filters on it. */
	bool no_context;	   /* --context off */
	uint32_t ctx_pid;	   /* --pid; 0: none */
	const char *ctx_comm;	   /* --comm */
	const char *ctx_cgroup;	   /* --cgroup */
	const char *ctx_container; /* --container */
	const char *ctx_pod;	   /* --pod: [NAMESPACE/]NAME */
	const char *ctx_k8s_ns;	   /* --k8s-namespace */
	const char *host_root;	   /* --host-root */
	const char *netns;	   /* --netns: capture in this network namespace */
	/* --top (user/top/topview.h): the live ranking, and how. */
	bool top;
	bool top_batch;		/* --batch: plain tables */
	unsigned int top_group; /* enum ps_top_group */
	unsigned int top_sort;	/* enum ps_top_sort */
	bool top_opts;		/* --batch, --top-group or --top-sort given */
};

/*
 * Parse argv into *o, option by option. Returns 0 on success (check
 * o->help, o->version and o->list_interfaces first), or -EINVAL with a
 * one-line reason in err.
 */
int ps_cli_parse(int argc, char **argv, struct ps_opts *o, char *err, size_t errlen);
/* ps_cli_parse, and on failure, *bad: the index in argv of the argument
 * that was wrong (-1: none in particular). */
int ps_cli_parse_at(int argc, char **argv, struct ps_opts *o, char *err, size_t errlen, int *bad);
/* A long option as a configuration file's setting (config.h): 1 it takes
 * a value, 0 it takes none, -ENOENT no such option, -EPERM not one for a
 * file (--read-file, --help, ...). */
int ps_cli_setting(const char *name);
/* How the options go together: the rules across options, for a capture
 * or -r. 0, or -EINVAL with a one-line reason in err. */
int ps_cli_check(struct ps_opts *o, char *err, size_t errlen);

void ps_cli_usage(FILE *f);

/* Set the option named (long name) as if given with value; for the extcap
 * dialog's choices. 0, or -EINVAL with one line in err. */
int ps_cli_set(struct ps_opts *o, const char *name, const char *value, char *err, size_t errlen);

struct ps_print_opts;
/* The printer's options (user/print/printer.h) from tcpdump's flags. */
void ps_cli_print_opts(const struct ps_opts *o, struct ps_print_opts *po);
struct ps_sampling;
/* The sampling (user/kernel/sampling.h) from --sample and its kin. */
void ps_cli_sampling(const struct ps_opts *o, struct ps_sampling *s);

/* Parsers shared with tests; each returns 0 or -EINVAL. */
int ps_parse_hooks(const char *s, unsigned int *mask);
int ps_parse_duration_ms(const char *s, uint64_t *ms);
int ps_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);
/* -C: millions of bytes, or KiB/MiB/GiB with k, m, g (either case). */
int ps_parse_file_size(const char *s, uint64_t *bytes);

#endif
