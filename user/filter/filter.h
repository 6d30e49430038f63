/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A capture filter end to end: the expression (from argv or a file), its
 * cBPF from libpcap and the two eBPF translations (XDP and TC) that get
 * spliced into the hook programs; for Ethernet, and for devices without a
 * link-layer header (raw IP) when the capture has one.
 */
#ifndef PS_FILTER_H
#define PS_FILTER_H

#include <stdint.h>
#include <stdio.h>
#include "cbpf.h"
#include "xlate.h"

/* An expression compiled for one link type, and translated for each hook type. */
struct ps_filter_code {
	struct ps_cbpf_insn *cbpf;
	size_t n_cbpf;
	struct ps_ebpf xdp;
	struct ps_ebpf tc;
	struct ps_ebpf xdp_tag;	   /* XDP with the driver's VLAN tag (pktsample_xdp_dev) */
	struct ps_ebpf xdp_trace;  /* around another XDP program (xdp-entry, xdp-exit) */
	struct ps_ebpf xdp_linear; /* XDP programs that are not multi-buffer */
};

struct ps_filter {
	char *expr;
	uint32_t snaplen;
	struct ps_filter_code eth; /* Ethernet (and lo): ps_filter_build makes it */
	/* Devices without a link-layer header (LINKTYPE_RAW): made by
	 * ps_filter_build_raw, only when such a device is captured. */
	struct ps_filter_code raw;
};

/* tcpdump style: the words joined by spaces. NULL if out of memory. */
char *ps_filter_join(char *const *words, int n);
/*
 * Read an expression file as tcpdump -F does, dropping '#' comments.
 * Returns 0 or -errno with a one-line reason in err.
 */
int ps_filter_read_file(const char *path, char **expr, char *err, size_t errlen);
/*
 * Compile and translate. Takes ownership of expr. Returns 0, or -errno with
 * a one-line reason in err (libpcap's message for a syntax error).
 */
int ps_filter_build(struct ps_filter *f, char *expr, uint32_t snaplen, char *err, size_t errlen);
/*
 * The same expression for LINKTYPE_RAW, into f->raw (once; again is a
 * no-op). 0, or -errno with a one-line reason in err: "'ether host' does
 * not apply" and the like, from libpcap.
 */
int ps_filter_build_raw(struct ps_filter *f, char *err, size_t errlen);
void ps_filter_free(struct ps_filter *f);
/* The -d listing: the cBPF, then the eBPF for each hook type; then the
 * same for LINKTYPE_RAW if the expression applies there. */
void ps_filter_dump(FILE *out, struct ps_filter *f);

#endif
