/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Splicing a translated filter into the loaded programs. The BPF programs
 * call a `static __noinline` placeholder, pktsample_filter(); at load time
 * a libbpf prog_prepare_load_fn replaces its body (found through func_info
 * and BTF names), fixes the pseudo calls whose targets moved and shifts
 * func_info/line_info to match.
 *
 * The handlers are registered for the programs' own section names, never
 * plain "xdp": libxdp loads its dispatcher in the same process. They must
 * be registered before the pktsample object is opened (the loader does).
 */
#ifndef PS_SPLICE_H
#define PS_SPLICE_H

#include <stddef.h>
#include <linux/bpf.h>
#include "xlate.h"

struct bpf_object;
struct ps_filter;

#define PS_FILTER_FUNC "pktsample_filter"
#define PS_FILTER_RAW_FUNC "pktsample_filter_raw" /* devices without a link-layer header */
/* The XDP programs for native mode, opened multi-buffer aware; the second,
 * bound to one device, reads the driver's VLAN tag. */
#define PS_XDP_FRAGS_PROG "pktsample_xdp"
#define PS_XDP_DEV_PROG "pktsample_xdp_dev"

/*
 * Idempotent; the handlers stay for the life of the process. (libbpf 1.1
 * corrupts its handler table if handlers are registered again after all of
 * them were unregistered, so we never unregister.)
 */
int ps_splice_register(void);

/*
 * When obj is loaded, splice the filter's translations into its programs'
 * placeholders: XDP's into XDP programs (the tag-viewing XDP one into
 * PS_XDP_DEV_PROG), TC's into TC programs; Ethernet's into
 * pktsample_filter(), and raw IP's, if made, into pktsample_filter_raw(). The filter must stay valid until then;
 * ps_splice_forget() drops the entry (call it once obj is loaded, and
 * before destroying it).
 */
int ps_splice_set(struct bpf_object *obj, const struct ps_filter *filter);
void ps_splice_forget(struct bpf_object *obj);

/* The pure part, exposed for tests. Records are rec_size bytes each. */
struct ps_prog_image {
	struct bpf_insn *insns;
	size_t n;
	void *func_info; /* struct bpf_func_info records */
	__u32 func_info_cnt;
	__u32 func_info_rec_size;
	void *line_info; /* struct bpf_line_info records */
	__u32 line_info_cnt;
	__u32 line_info_rec_size;
};

/*
 * Replace function number func (an index into func_info) with body. out
 * gets freshly allocated insns/func_info/line_info (free with
 * ps_prog_image_free). Returns 0 or -errno.
 */
int ps_splice_func(const struct ps_prog_image *in, __u32 func, const struct bpf_insn *body,
		   size_t nbody, struct ps_prog_image *out);
void ps_prog_image_free(struct ps_prog_image *img);

#endif
