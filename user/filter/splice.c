// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "pktsample.h"
#include "filter.h"
#include "splice.h"

#define MAX_OBJECTS 8

struct entry {
	struct bpf_object *obj;
	const struct ps_filter *filter;
	/* What the kernel was given: per program, one image per placeholder
	 * replaced (Ethernet, raw IP). */
	struct ps_prog_image img[2 * 8];
	int n_img;
};

static struct entry entries[MAX_OBJECTS];
static int handler_ids[5]; /* one per section of ps_splice_register() */

static bool is_call_like(const struct bpf_insn *in)
{
	return (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL) ||
	       (in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->src_reg == BPF_PSEUDO_FUNC);
}

static __u32 *rec_off(void *recs, __u32 rec_size, __u32 i)
{
	/* insn_off is the first field of both bpf_func_info and bpf_line_info */
	return (__u32 *)((char *)recs + (size_t)i * rec_size);
}

void ps_prog_image_free(struct ps_prog_image *img)
{
	free(img->insns);
	free(img->func_info);
	free(img->line_info);
	memset(img, 0, sizeof(*img));
}

int ps_splice_func(const struct ps_prog_image *in, __u32 func, const struct bpf_insn *body,
		   size_t nbody, struct ps_prog_image *out)
{
	size_t start, end, n;
	long delta;
	__u32 li = 0;

	memset(out, 0, sizeof(*out));
	if (func >= in->func_info_cnt || !nbody)
		return -EINVAL;
	start = *rec_off(in->func_info, in->func_info_rec_size, func);
	end = func + 1 < in->func_info_cnt ?
		      *rec_off(in->func_info, in->func_info_rec_size, func + 1) :
		      in->n;
	if (start >= end || end > in->n)
		return -EINVAL;
	delta = (long)nbody - (long)(end - start);
	n = in->n + delta;

	out->insns = calloc(n, sizeof(*out->insns));
	out->func_info = malloc((size_t)in->func_info_cnt * in->func_info_rec_size);
	out->line_info = malloc((size_t)in->line_info_cnt * in->line_info_rec_size + 1);
	if (!out->insns || !out->func_info || !out->line_info) {
		ps_prog_image_free(out);
		return -ENOMEM;
	}
	out->n = n;
	memcpy(out->insns, in->insns, start * sizeof(*in->insns));
	memcpy(out->insns + start, body, nbody * sizeof(*body));
	memcpy(out->insns + start + nbody, in->insns + end, (in->n - end) * sizeof(*in->insns));

	/* Calls from outside the function to anywhere but inside it. */
	for (size_t oi = 0; oi < in->n; oi++) {
		const struct bpf_insn *o = &in->insns[oi];
		size_t ni, target;

		if (oi >= start && oi < end)
			continue;
		if (!is_call_like(o))
			continue;
		ni = oi < start ? oi : oi + delta;
		target = oi + 1 + o->imm;
		if (target > start && target < end) {
			ps_prog_image_free(out);
			return -EINVAL; /* a call into the middle: not a function */
		}
		if (target >= end)
			target += delta;
		out->insns[ni].imm = (__s32)((long)target - (long)ni - 1);
	}

	out->func_info_cnt = in->func_info_cnt;
	out->func_info_rec_size = in->func_info_rec_size;
	memcpy(out->func_info, in->func_info, (size_t)in->func_info_cnt * in->func_info_rec_size);
	for (__u32 i = func + 1; i < in->func_info_cnt; i++)
		*rec_off(out->func_info, out->func_info_rec_size, i) += delta;

	/* Line info: keep the function's first line (the verifier wants one
	 * at every function start), drop the rest of the old body. */
	out->line_info_rec_size = in->line_info_rec_size;
	for (__u32 i = 0; i < in->line_info_cnt; i++) {
		__u32 off = *rec_off(in->line_info, in->line_info_rec_size, i);

		if (off > start && off < end)
			continue;
		memcpy(rec_off(out->line_info, out->line_info_rec_size, li),
		       rec_off(in->line_info, in->line_info_rec_size, i), in->line_info_rec_size);
		if (off >= end)
			*rec_off(out->line_info, out->line_info_rec_size, li) += delta;
		li++;
	}
	out->line_info_cnt = li;
	return 0;
}

static struct entry *find_entry(const struct bpf_program *prog)
{
	for (int i = 0; i < MAX_OBJECTS; i++) {
		struct bpf_program *p;

		if (!entries[i].obj)
			continue;
		bpf_object__for_each_program(p, entries[i].obj) if (p == prog) return &entries[i];
	}
	return NULL;
}

static int find_func(const struct btf *btf, const struct ps_prog_image *img, const char *name)
{
	for (__u32 i = 0; i < img->func_info_cnt; i++) {
		const struct bpf_func_info *fi = (const void *)rec_off(img->func_info,
								       img->func_info_rec_size, i);
		const struct btf_type *t = btf__type_by_id(btf, fi->type_id);

		if (t && !strcmp(btf__name_by_offset(btf, t->name_off), name))
			return (int)i;
	}
	return -ENOENT;
}

/*
 * At open: the native-mode XDP programs are multi-buffer aware, because
 * jumbo frames on veth reach native XDP as multi-buffer packets. The
 * generic-mode one (pktsample_xdp_skb) must not be: see
 * xdp/pktsample_xdp.bpf.c.
 */
static int setup_prog(struct bpf_program *prog, long cookie)
{
	(void)cookie;
	if (bpf_program__type(prog) == BPF_PROG_TYPE_XDP &&
	    (!strcmp(bpf_program__name(prog), PS_XDP_FRAGS_PROG) ||
	     !strcmp(bpf_program__name(prog), PS_XDP_DEV_PROG)))
		return bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_XDP_HAS_FRAGS);
	return 0;
}

/* Replace the placeholder `name` of the image in with body, into the
 * entry's next image; the result in *out. */
static int splice_one(struct entry *e, const struct bpf_program *prog, const struct btf *btf,
		      const struct ps_prog_image *in, const char *name, const struct ps_ebpf *body,
		      struct ps_prog_image **out)
{
	int func = find_func(btf, in, name), err;

	if (func < 0) {
		pr_err("cannot splice the filter into %s: no %s() in it\n", bpf_program__name(prog),
		       name);
		return func;
	}
	if (e->n_img == (int)(sizeof(e->img) / sizeof(e->img[0])))
		return -ENOSPC;
	*out = &e->img[e->n_img];
	err = ps_splice_func(in, (__u32)func, body->insns, body->n, *out);
	if (err) {
		pr_err("cannot splice the filter into %s: %s\n", bpf_program__name(prog),
		       strerror(-err));
		return err;
	}
	e->n_img++;
	pr_debug("spliced %zu-insn filter into %s's %s (%zu -> %zu insns)\n", body->n,
		 bpf_program__name(prog), name, in->n, (*out)->n);
	return 0;
}

/*
 * The Ethernet body goes into pktsample_filter(), the raw-IP one (when the
 * capture has a device without a link-layer header) into
 * pktsample_filter_raw(); the hook picks per interface (bpf/filter.bpf.h).
 */
static int prepare_load(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	bool xdp = bpf_program__type(prog) == BPF_PROG_TYPE_XDP;
	/* fentry/fexit around another XDP program: no packet pointers. */
	/* Around another XDP program, and the drop hook: plain kernel
	 * addresses, read through bpf_probe_read_kernel(). */
	bool trace = bpf_program__type(prog) == BPF_PROG_TYPE_TRACING ||
		     bpf_program__type(prog) == BPF_PROG_TYPE_RAW_TRACEPOINT;
	/* The program that gets the driver's VLAN tag views the frame with it. */
	bool tagged = !strcmp(bpf_program__name(prog), PS_XDP_DEV_PROG);
	/* One that is not multi-buffer (generic mode's, and every one where
	 * the kernel has no multi-buffer XDP) gets its frame in one buffer. */
	bool linear = xdp && !(bpf_program__flags(prog) & BPF_F_XDP_HAS_FRAGS);
	const struct ps_ebpf *eth, *raw;
	struct ps_prog_image in, *out;
	const struct btf *btf;
	struct entry *e;
	int err;

	(void)cookie;
	e = find_entry(prog);
	if (!e)
		return 0;
	eth = trace  ? &e->filter->eth.xdp_trace :
	      !xdp   ? &e->filter->eth.tc :
	      tagged ? &e->filter->eth.xdp_tag :
	      linear ? &e->filter->eth.xdp_linear :
		       &e->filter->eth.xdp;
	raw = trace  ? &e->filter->raw.xdp_trace :
	      !xdp   ? &e->filter->raw.tc :
	      tagged ? &e->filter->raw.xdp_tag :
	      linear ? &e->filter->raw.xdp_linear :
		       &e->filter->raw.xdp;
	btf = bpf_object__btf(e->obj);
	if (!btf || !opts->func_info || !opts->func_info_cnt) {
		pr_err("cannot splice the filter into %s: the object has no BTF function info\n",
		       bpf_program__name(prog));
		return -ENOTSUP;
	}
	in = (struct ps_prog_image){
		.insns = (struct bpf_insn *)bpf_program__insns(prog),
		.n = bpf_program__insn_cnt(prog),
		.func_info = (void *)opts->func_info,
		.func_info_cnt = opts->func_info_cnt,
		.func_info_rec_size = opts->func_info_rec_size,
		.line_info = (void *)opts->line_info,
		.line_info_cnt = opts->line_info_cnt,
		.line_info_rec_size = opts->line_info_rec_size,
	};
	err = splice_one(e, prog, btf, &in, PS_FILTER_FUNC, eth, &out);
	if (!err && raw->n) {
		in = *out;
		err = splice_one(e, prog, btf, &in, PS_FILTER_RAW_FUNC, raw, &out);
	}
	if (!err)
		err = bpf_program__set_insns(prog, out->insns, out->n);
	if (err)
		return err;
	/* The kernel reads these during the load, so they live in the entry. */
	opts->func_info = out->func_info;
	opts->line_info = out->line_info;
	opts->line_info_cnt = out->line_info_cnt;
	return 0;
}

int ps_splice_register(void)
{
	static const struct {
		const char *sec;
		enum bpf_prog_type type;
		enum bpf_attach_type attach;
	} secs[] = {
		{ PS_SEC_XDP, BPF_PROG_TYPE_XDP, BPF_XDP },
		{ PS_SEC_TC, BPF_PROG_TYPE_SCHED_CLS, 0 },
		{ PS_SEC_XDP_ENTRY, BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY },
		{ PS_SEC_XDP_EXIT, BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT },
		{ PS_SEC_DROP, BPF_PROG_TYPE_RAW_TRACEPOINT, 0 },
	};
	LIBBPF_OPTS(libbpf_prog_handler_opts, hopts, .prog_setup_fn = setup_prog,
		    .prog_prepare_load_fn = prepare_load);

	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		int id;

		if (handler_ids[i] > 0)
			continue;
		id = libbpf_register_prog_handler(secs[i].sec, secs[i].type, secs[i].attach,
						  &hopts);
		if (id < 0) {
			pr_err("cannot register the %s program handler: %s\n", secs[i].sec,
			       strerror(-id));
			return id;
		}
		handler_ids[i] = id;
	}
	return 0;
}

int ps_splice_set(struct bpf_object *obj, const struct ps_filter *filter)
{
	for (int i = 0; i < MAX_OBJECTS; i++)
		if (!entries[i].obj) {
			entries[i].obj = obj;
			entries[i].filter = filter;
			return 0;
		}
	pr_err("cannot prepare the filter: more than %d BPF objects at once\n", MAX_OBJECTS);
	return -ENOSPC;
}

void ps_splice_forget(struct bpf_object *obj)
{
	for (int i = 0; obj && i < MAX_OBJECTS; i++) {
		if (entries[i].obj != obj)
			continue;
		for (int j = 0; j < entries[i].n_img; j++)
			ps_prog_image_free(&entries[i].img[j]);
		memset(&entries[i], 0, sizeof(entries[i]));
	}
}
