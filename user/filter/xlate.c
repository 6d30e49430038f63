// SPDX-License-Identifier: GPL-2.0-only
/*
 * cBPF -> eBPF. See xlate.h for the contract; the comments here say how the
 * generated code gets past the verifier.
 *
 * Registers inside the placeholder subprogram:
 *   r6 = A, r7 = X (both kept zero-extended u32), r8 = data, r9 = data_end;
 *   r0-r5 are scratch (helper calls clobber them).
 * Stack: ctx, the length argument's halves and the vlan argument are
 * spilled; M[] is zeroed.
 *
 * Every packet load is emitted as
 *       <bounds check>  if ok goto FAST
 *       SLOW: load through the helper, 0 on failure; goto DONE
 *       FAST: direct load
 *       DONE: byte swap to host order
 * with the slow path as the fall-through on purpose: the verifier explores
 * it first, so the state it stores at DONE has the smaller packet range and
 * the fast path, arriving second with a larger range, is pruned there.
 * With the opposite order each load would double the paths explored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "xlate.h"

#define R_A BPF_REG_6
#define R_X BPF_REG_7
#define R_DATA BPF_REG_8
#define R_END BPF_REG_9
#define FP BPF_REG_10

/* Stack slots, relative to r10. */
#define S_CTX (-8)
#define S_LEN (-16)	/* the length argument's low half: the packet's length */
#define S_OFF_NET (-12) /* its high half: where the packet starts for the helper */
#define S_VLAN (-24)
#define S_BUF (-32)  /* helper load buffer */
#define S_ACC (-40)  /* tag view: bytes assembled one by one */
#define S_OFF (-48)  /* tag view: variable offset */
#define S_MEM (-112) /* M[0..15], 4 bytes each */
#define MEMWORDS 16

#define MAX_DIRECT_OFF 0xffff /* the verifier's MAX_PACKET_OFF */
#define MAX_EBPF_INSNS 1000000

struct fixup {
	size_t at;
	int label;
};

struct xl {
	struct bpf_insn *v;
	size_t n, cap;
	long *label_pos;
	int n_labels, cap_labels;
	struct fixup *fix;
	size_t n_fix, cap_fix;
	bool oom;

	const struct sock_filter *prog;
	size_t n_prog;
	enum ps_xlate_target target;
	bool tag_view;	 /* emitting the TC out-of-band-tag translation */
	int first_label; /* label of cBPF insn 0 in the current view */
	int ret0;	 /* label: return 0 */
};

static int fail(char *err, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return code;
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

static void emit(struct xl *x, struct bpf_insn i)
{
	if (x->oom || x->n >= MAX_EBPF_INSNS ||
	    !grow((void **)&x->v, &x->cap, x->n + 1, sizeof(*x->v))) {
		x->oom = true;
		return;
	}
	x->v[x->n++] = i;
}

static int new_label(struct xl *x)
{
	size_t cap = x->cap_labels;

	if (!grow((void **)&x->label_pos, &cap, x->n_labels + 1, sizeof(*x->label_pos))) {
		x->oom = true;
		return 0;
	}
	x->cap_labels = cap;
	x->label_pos[x->n_labels] = -1;
	return x->n_labels++;
}

static void bind(struct xl *x, int label)
{
	if (!x->oom)
		x->label_pos[label] = x->n;
}

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	return (struct bpf_insn){
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm
	};
}

/* A jump whose offset is filled in once the label is bound. */
static void emit_jmp(struct xl *x, __u8 code, __u8 dst, __u8 src, __s32 imm, int label)
{
	if (!x->oom && grow((void **)&x->fix, &x->cap_fix, x->n_fix + 1, sizeof(*x->fix)))
		x->fix[x->n_fix++] = (struct fixup){ x->n, label };
	else
		x->oom = true;
	emit(x, insn(code, dst, src, 0, imm));
}

static void emit_goto(struct xl *x, int label)
{
	emit_jmp(x, BPF_JMP | BPF_JA, 0, 0, 0, label);
}

#define MOV64_REG(d, s) insn(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV32_REG(d, s) insn(BPF_ALU | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV32_IMM(d, k) insn(BPF_ALU | BPF_MOV | BPF_K, d, 0, 0, k)
#define ALU64_IMM(op, d, k) insn(BPF_ALU64 | (op) | BPF_K, d, 0, 0, k)
#define ALU64_REG(op, d, s) insn(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define ALU32_IMM(op, d, k) insn(BPF_ALU | (op) | BPF_K, d, 0, 0, k)
#define ALU32_REG(op, d, s) insn(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, off) insn(BPF_LDX | BPF_MEM | (sz), d, s, off, 0)
#define STX(sz, d, s, off) insn(BPF_STX | BPF_MEM | (sz), d, s, off, 0)
#define ST(sz, d, off, k) insn(BPF_ST | BPF_MEM | (sz), d, 0, off, k)

static __u8 size_code(unsigned int bytes)
{
	return bytes == 4 ? BPF_W : bytes == 2 ? BPF_H : BPF_B;
}

/* cBPF loads are big endian; eBPF loads are host order. */
static void emit_to_host(struct xl *x, __u8 dst, unsigned int bytes)
{
	if (bytes > 1)
		emit(x, insn(BPF_ALU | BPF_END | BPF_TO_BE, dst, 0, 0, bytes * 8));
}

/*
 * Slow path: the helper copies `bytes` at the offset in r2 to the stack.
 * It fails past the end of the packet, which in cBPF ends the filter
 * with 0.
 */
static void emit_helper_load(struct xl *x, __u8 dst, unsigned int bytes)
{
	if (x->target == PS_XLATE_XDP_LINEAR) {
		/* Nothing lies past data_end: 0, as cBPF's load past the end.
		 * The offset is never below 0, and the verifier knows it and
		 * follows the jump alone; a plain goto could leave what comes
		 * after unreachable in the program's graph, which it refuses.
		 * (A test of data_end against data instead made Debian 11's
		 * 5.10 think the fast path after it dead, and remove it.) */
		emit_jmp(x, BPF_JMP | BPF_JGE | BPF_K, BPF_REG_2, 0, 0, x->ret0);
		emit(x, MOV32_IMM(dst, 0));
		return;
	}
	if (x->target == PS_XLATE_XDP_TRACE) {
		/* r2 (up to 2^33) + bytes within data_end - data, then the
		 * copy from data + r2. */
		emit(x, MOV64_REG(BPF_REG_3, BPF_REG_2));
		emit(x, ALU64_IMM(BPF_ADD, BPF_REG_3, bytes));
		emit(x, MOV64_REG(BPF_REG_1, R_END));
		emit(x, ALU64_REG(BPF_SUB, BPF_REG_1, R_DATA));
		emit_jmp(x, BPF_JMP | BPF_JGT | BPF_X, BPF_REG_3, BPF_REG_1, 0, x->ret0);
		emit(x, MOV64_REG(BPF_REG_3, R_DATA));
		emit(x, ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_2));
		emit(x, MOV64_REG(BPF_REG_1, FP));
		emit(x, ALU64_IMM(BPF_ADD, BPF_REG_1, S_BUF));
		emit(x, MOV32_IMM(BPF_REG_2, bytes));
		emit(x, insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel));
		emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, x->ret0);
		emit(x, LDX(size_code(bytes), dst, FP, S_BUF));
		return;
	}
	if (x->target == PS_XLATE_TC) {
		/* The helper counts from the hook's first byte: add where the
		 * filter's packet starts in it (ps_meta.net_off), and fail as
		 * past the end if that leaves the helper's u32. */
		emit(x, LDX(BPF_W, BPF_REG_0, FP, S_OFF_NET));
		emit(x, ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_0));
		emit(x, MOV64_REG(BPF_REG_3, BPF_REG_2));
		emit(x, ALU64_IMM(BPF_RSH, BPF_REG_3, 32));
		emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 0, x->ret0);
	}
	emit(x, LDX(BPF_DW, BPF_REG_1, FP, S_CTX));
	emit(x, MOV64_REG(BPF_REG_3, FP));
	emit(x, ALU64_IMM(BPF_ADD, BPF_REG_3, S_BUF));
	emit(x, MOV32_IMM(BPF_REG_4, bytes));
	emit(x, insn(BPF_JMP | BPF_CALL, 0, 0, 0,
		     x->target == PS_XLATE_TC ? BPF_FUNC_skb_load_bytes : BPF_FUNC_xdp_load_bytes));
	emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, x->ret0);
	emit(x, LDX(size_code(bytes), dst, FP, S_BUF));
}

/* dst = big-endian `bytes` at constant packet offset off (< 2^31). */
static void emit_load_const(struct xl *x, __u8 dst, __u32 off, unsigned int bytes)
{
	int fast = new_label(x), done = new_label(x);

	if (off + bytes > MAX_DIRECT_OFF || x->target == PS_XLATE_XDP_TRACE) {
		/* Beyond what the verifier lets a direct access reach, or
		 * no packet pointer to access directly. */
		emit(x, MOV32_IMM(BPF_REG_2, off));
		emit_helper_load(x, dst, bytes);
		emit_to_host(x, dst, bytes);
		return;
	}
	emit(x, MOV64_REG(BPF_REG_1, R_DATA));
	emit(x, ALU64_IMM(BPF_ADD, BPF_REG_1, off + bytes));
	emit_jmp(x, BPF_JMP | BPF_JLE | BPF_X, BPF_REG_1, R_END, 0, fast);
	emit(x, MOV32_IMM(BPF_REG_2, off));
	emit_helper_load(x, dst, bytes);
	emit_goto(x, done);
	bind(x, fast);
	if (off <= INT16_MAX) {
		emit(x, LDX(size_code(bytes), dst, R_DATA, off));
	} else {
		emit(x, MOV64_REG(BPF_REG_1, R_DATA));
		emit(x, ALU64_IMM(BPF_ADD, BPF_REG_1, off));
		emit(x, LDX(size_code(bytes), dst, BPF_REG_1, 0));
	}
	bind(x, done);
	emit_to_host(x, dst, bytes);
}

/*
 * dst = big-endian `bytes` at the packet offset in r2 (a 64-bit value, up
 * to 2^33). The offset is bounded before it touches a pointer, and the
 * bounds check runs on a copy, so r8 never carries a variable offset.
 */
static void emit_load_var(struct xl *x, __u8 dst, unsigned int bytes)
{
	int slow = new_label(x), fast = new_label(x), done = new_label(x);

	if (x->target == PS_XLATE_XDP_TRACE) { /* bounded inside the helper load */
		emit_helper_load(x, dst, bytes);
		emit_to_host(x, dst, bytes);
		return;
	}
	emit_jmp(x, BPF_JMP | BPF_JGT | BPF_K, BPF_REG_2, 0, MAX_DIRECT_OFF - bytes, slow);
	emit(x, MOV64_REG(BPF_REG_1, R_DATA));
	emit(x, ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_2));
	emit(x, MOV64_REG(BPF_REG_3, BPF_REG_1));
	emit(x, ALU64_IMM(BPF_ADD, BPF_REG_3, bytes));
	emit_jmp(x, BPF_JMP | BPF_JLE | BPF_X, BPF_REG_3, R_END, 0, fast);
	bind(x, slow);
	/* The helper takes a u32 offset: anything larger is out of bounds. */
	emit(x, MOV64_REG(BPF_REG_3, BPF_REG_2));
	emit(x, ALU64_IMM(BPF_RSH, BPF_REG_3, 32));
	emit_jmp(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 0, x->ret0);
	emit_helper_load(x, dst, bytes);
	emit_goto(x, done);
	bind(x, fast);
	emit(x, LDX(size_code(bytes), dst, BPF_REG_1, 0));
	bind(x, done);
	emit_to_host(x, dst, bytes);
}

/* acc = acc << 8 | dst, with acc on the stack (tag view byte assembly). */
static void emit_accumulate(struct xl *x, __u8 dst)
{
	emit(x, LDX(BPF_DW, BPF_REG_0, FP, S_ACC));
	emit(x, ALU64_IMM(BPF_LSH, BPF_REG_0, 8));
	emit(x, ALU64_REG(BPF_OR, BPF_REG_0, dst));
	emit(x, STX(BPF_DW, FP, BPF_REG_0, S_ACC));
}

/* dst = the low 32 bits of the vlan argument: TPID << 16 | TCI. */
static void emit_vlan_word(struct xl *x, __u8 dst)
{
	emit(x, LDX(BPF_DW, dst, FP, S_VLAN));
	emit(x, MOV32_REG(dst, dst));
}

/*
 * Tag view: bytes 0-11 are the packet's, 12-15 the out-of-band tag
 * (TPID, TCI), 16 on are the packet's bytes from 12.
 */
static void emit_view_load_const(struct xl *x, __u8 dst, __u32 k, unsigned int bytes)
{
	if (!x->tag_view || k + bytes <= 12) {
		emit_load_const(x, dst, k, bytes);
	} else if (k >= 16) {
		emit_load_const(x, dst, k - 4, bytes);
	} else if (k >= 12 && k + bytes <= 16) {
		emit_vlan_word(x, dst);
		if (16 - (k + bytes))
			emit(x, ALU32_IMM(BPF_RSH, dst, 8 * (16 - (k + bytes))));
		if (bytes < 4)
			emit(x, ALU32_IMM(BPF_AND, dst, (1u << (8 * bytes)) - 1));
	} else {
		emit(x, ST(BPF_DW, FP, S_ACC, 0));
		for (__u32 j = k; j < k + bytes; j++) {
			emit_view_load_const(x, dst, j, 1);
			emit_accumulate(x, dst);
		}
		emit(x, LDX(BPF_DW, dst, FP, S_ACC));
	}
}

/* A = `bytes` at X + k (k < 2^31), in the current view. */
static void emit_view_load_ind(struct xl *x, __u32 k, unsigned int bytes)
{
	int high, low, end;

	emit(x, MOV64_REG(BPF_REG_2, R_X));
	emit(x, ALU64_IMM(BPF_ADD, BPF_REG_2, k));
	if (!x->tag_view) {
		emit_load_var(x, R_A, bytes);
		return;
	}
	if (k >= 16) { /* X >= 0, so the whole load is past the tag */
		emit(x, ALU64_IMM(BPF_ADD, BPF_REG_2, -4));
		emit_load_var(x, R_A, bytes);
		return;
	}
	high = new_label(x), low = new_label(x), end = new_label(x);
	emit(x, STX(BPF_DW, FP, BPF_REG_2, S_OFF));
	emit_jmp(x, BPF_JMP | BPF_JGE | BPF_K, BPF_REG_2, 0, 16, high);
	emit_jmp(x, BPF_JMP | BPF_JLE | BPF_K, BPF_REG_2, 0, 12 - bytes, low);
	/* Straddles the tag: assemble byte by byte. */
	emit(x, ST(BPF_DW, FP, S_ACC, 0));
	for (unsigned int i = 0; i < bytes; i++) {
		int b_high = new_label(x), b_virt = new_label(x), b_acc = new_label(x);

		emit(x, LDX(BPF_DW, BPF_REG_2, FP, S_OFF));
		emit(x, ALU64_IMM(BPF_ADD, BPF_REG_2, i));
		emit_jmp(x, BPF_JMP | BPF_JGE | BPF_K, BPF_REG_2, 0, 16, b_high);
		emit_jmp(x, BPF_JMP | BPF_JGE | BPF_K, BPF_REG_2, 0, 12, b_virt);
		emit_load_var(x, R_A, 1);
		emit_goto(x, b_acc);
		bind(x, b_virt);
		emit(x, MOV32_IMM(BPF_REG_0, 15)); /* shift = (15 - off) * 8 */
		emit(x, ALU32_REG(BPF_SUB, BPF_REG_0, BPF_REG_2));
		emit(x, ALU32_IMM(BPF_LSH, BPF_REG_0, 3));
		emit_vlan_word(x, R_A);
		emit(x, ALU32_REG(BPF_RSH, R_A, BPF_REG_0));
		emit(x, ALU32_IMM(BPF_AND, R_A, 0xff));
		emit_goto(x, b_acc);
		bind(x, b_high);
		emit(x, ALU64_IMM(BPF_ADD, BPF_REG_2, -4));
		emit_load_var(x, R_A, 1);
		bind(x, b_acc);
		emit_accumulate(x, R_A);
	}
	emit(x, LDX(BPF_DW, R_A, FP, S_ACC));
	emit_goto(x, end);
	bind(x, high);
	emit(x, ALU64_IMM(BPF_ADD, BPF_REG_2, -4));
	bind(x, low);
	emit_load_var(x, R_A, bytes);
	bind(x, end);
}

static unsigned int load_bytes(__u16 code)
{
	switch (BPF_SIZE(code)) {
	case BPF_W:
		return 4;
	case BPF_H:
		return 2;
	case BPF_B:
		return 1;
	default:
		return 0;
	}
}

static int jump_target(struct xl *x, size_t pc, __u32 rel, size_t *target, char *err, size_t len)
{
	if (rel >= x->n_prog - pc - 1)
		return fail(err, len, -EINVAL,
			    "cBPF jump at %zu goes %s (e.g. protochain); the kernel runs forward jumps only",
			    pc, rel >= 0x80000000u ? "backwards" : "past the end");
	*target = pc + 1 + rel;
	return 0;
}

static __u8 alu_op(__u16 code)
{
	return BPF_OP(code); /* cBPF and eBPF share the ALU op encodings */
}

/* Every classic BPF opcode (the kernel's filter.c list, without its
 * ancillary loads, which are BPF_LD|BPF_ABS with a special k). */
static bool known_opcode(__u16 code)
{
	static const __u8 known[] = {
		0x06, 0x16, 0x20, 0x28, 0x30, 0x80, 0x81, 0x40, 0x48, 0x50, 0xb1, 0x00, 0x01,
		0x60, 0x61, 0x02, 0x03, 0x05, 0x25, 0x35, 0x15, 0x45, 0x2d, 0x3d, 0x1d, 0x4d,
		0x0c, 0x1c, 0x2c, 0x3c, 0x9c, 0x5c, 0x4c, 0xac, 0x6c, 0x7c, 0x04, 0x14, 0x24,
		0x34, 0x94, 0x54, 0x44, 0xa4, 0x64, 0x74, 0x84, 0x07, 0x87,
	};

	for (size_t i = 0; i < sizeof(known); i++)
		if (code == known[i])
			return true;
	return false;
}

/* A helper's "this instruction cannot be translated": xlate_insn says so. */
#define BAD_INSN 1

/* Loads into A or X (LD, LDX): 0, BAD_INSN, or -EINVAL said in err. */
static int xlate_load(struct xl *x, size_t pc, char *err, size_t len)
{
	const struct sock_filter *f = &x->prog[pc];
	__u16 code = f->code;
	__u32 k = f->k;
	unsigned int bytes = load_bytes(code);
	__u8 dst = BPF_CLASS(code) == BPF_LD ? R_A : R_X;
	__u8 mode = BPF_MODE(code);

	if (mode == BPF_IMM) {
		emit(x, MOV32_IMM(dst, k));
	} else if (mode == BPF_MEM) {
		if (k >= MEMWORDS)
			return BAD_INSN;
		emit(x, LDX(BPF_W, dst, FP, S_MEM + 4 * k));
	} else if (mode == BPF_LEN) {
		emit(x, LDX(BPF_W, dst, FP, S_LEN));
		if (x->tag_view) /* the tag counts on the wire */
			emit(x, ALU32_IMM(BPF_ADD, dst, 4));
	} else if (mode == BPF_ABS || mode == BPF_IND || mode == BPF_MSH) {
		if (k >= (__u32)SKF_AD_OFF)
			return fail(err, len, -EINVAL,
				    "cBPF insn %zu uses ancillary load SKF_AD_OFF+%u, which has no eBPF equivalent here",
				    pc, k - (__u32)SKF_AD_OFF);
		if (!bytes || (BPF_CLASS(code) == BPF_LDX) != (mode == BPF_MSH) ||
		    (mode == BPF_MSH && bytes != 1))
			return BAD_INSN;
		if (k >= 0x80000000u && mode != BPF_IND)
			return fail(err, len, -EINVAL,
				    "cBPF insn %zu loads from negative offset %d (SKF_NET_OFF/SKF_LL_OFF), not supported",
				    pc, (int)k);
		if (mode == BPF_IND && k >= 0x80000000u) {
			emit_goto(x, x->ret0); /* always past the packet */
		} else if (mode == BPF_IND) {
			emit_view_load_ind(x, k, bytes);
		} else {
			emit_view_load_const(x, dst, k, bytes);
			if (mode == BPF_MSH) { /* X = 4 * (P[k] & 0xf) */
				emit(x, ALU32_IMM(BPF_AND, R_X, 0xf));
				emit(x, ALU32_IMM(BPF_LSH, R_X, 2));
			}
		}
	} else {
		return BAD_INSN;
	}
	return 0;
}

/* Arithmetic on A (ALU): 0 or BAD_INSN. */
static int xlate_alu(struct xl *x, __u16 code, __u32 k)
{
	__u8 op = alu_op(code);
	bool by_x = BPF_SRC(code) == BPF_X;

	switch (op) {
	case BPF_NEG:
		emit(x, insn(BPF_ALU | BPF_NEG, R_A, 0, 0, 0));
		return 0;
	case BPF_DIV:
	case BPF_MOD:
		if (by_x)
			emit_jmp(x, BPF_JMP32 | BPF_JEQ | BPF_K, R_X, 0, 0, x->ret0);
		else if (k == 0) {
			emit_goto(x, x->ret0);
			return 0;
		}
		break;
	case BPF_LSH:
	case BPF_RSH:
		if (by_x) { /* cBPF: shifting by 32 or more gives 0 */
			int in_range = new_label(x), done = new_label(x);

			emit_jmp(x, BPF_JMP32 | BPF_JLT | BPF_K, R_X, 0, 32, in_range);
			emit(x, MOV32_IMM(R_A, 0));
			emit_goto(x, done);
			bind(x, in_range);
			emit(x, ALU32_REG(op, R_A, R_X));
			bind(x, done);
			return 0;
		}
		/* The kernel refuses a constant shift of 32 or more, and
		 * libpcap's interpreter does what C does with it (undefined);
		 * libpcap's compiler never emits one. */
		if (k >= 32)
			return BAD_INSN;
		break;
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_OR:
	case BPF_AND:
	case BPF_XOR:
		break;
	default:
		return BAD_INSN;
	}
	emit(x, by_x ? ALU32_REG(op, R_A, R_X) : ALU32_IMM(op, R_A, k));
	return 0;
}

/* Jumps (JMP): 0, BAD_INSN, or -EINVAL said in err. */
static int xlate_jmp(struct xl *x, size_t pc, char *err, size_t len)
{
	const struct sock_filter *f = &x->prog[pc];
	__u8 op = BPF_OP(f->code);
	bool by_x = BPF_SRC(f->code) == BPF_X;
	size_t t = 0, e = 0;
	int ret;

	if (op == BPF_JA) {
		ret = jump_target(x, pc, f->k, &t, err, len);
		if (!ret && t != pc + 1)
			emit_goto(x, x->first_label + t);
		return ret;
	}
	if (op != BPF_JEQ && op != BPF_JGT && op != BPF_JGE && op != BPF_JSET)
		return BAD_INSN;
	ret = jump_target(x, pc, f->jt, &t, err, len);
	if (!ret)
		ret = jump_target(x, pc, f->jf, &e, err, len);
	if (ret || (t == pc + 1 && e == pc + 1))
		return ret;
	/* Falling through on true: branch on the inverse to the false target
	 * (JSET has no inverse in eBPF). */
	if (t == pc + 1 && op != BPF_JSET) {
		op = op == BPF_JEQ ? BPF_JNE : op == BPF_JGT ? BPF_JLE : BPF_JLT;
		t = e;
		e = pc + 1;
	}
	/* u32 compares: JMP32, whose immediate is not sign-extended. */
	emit_jmp(x, BPF_JMP32 | op | (by_x ? BPF_X : BPF_K), R_A, by_x ? R_X : 0,
		 by_x ? 0 : (__s32)f->k, x->first_label + t);
	if (e != pc + 1)
		emit_goto(x, x->first_label + e);
	return 0;
}

/* Stores, returns and the register moves (ST, STX, RET, MISC): 0 or
 * BAD_INSN. */
static int xlate_rest(struct xl *x, __u16 code, __u32 k)
{
	switch (BPF_CLASS(code)) {
	case BPF_ST:
	case BPF_STX:
		if (k >= MEMWORDS)
			return BAD_INSN;
		emit(x, STX(BPF_W, FP, BPF_CLASS(code) == BPF_ST ? R_A : R_X, S_MEM + 4 * k));
		return 0;
	case BPF_RET:
		if (BPF_RVAL(code) == BPF_K)
			emit(x, MOV32_IMM(BPF_REG_0, k));
		else if (BPF_RVAL(code) == BPF_A)
			emit(x, MOV32_REG(BPF_REG_0, R_A));
		else
			return BAD_INSN;
		emit(x, insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
		return 0;
	default: /* BPF_MISC */
		if (BPF_MISCOP(code) == BPF_TAX)
			emit(x, MOV32_REG(R_X, R_A));
		else if (BPF_MISCOP(code) == BPF_TXA)
			emit(x, MOV32_REG(R_A, R_X));
		else
			return BAD_INSN;
		return 0;
	}
}

static int xlate_insn(struct xl *x, size_t pc, char *err, size_t len)
{
	const struct sock_filter *f = &x->prog[pc];
	int ret = BAD_INSN;

	/* Only real cBPF opcodes: junk in the unused bits is refused, as the
	 * kernel's checker and libpcap's interpreter refuse it. */
	if (known_opcode(f->code)) {
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
		case BPF_LDX:
			ret = xlate_load(x, pc, err, len);
			break;
		case BPF_ALU:
			ret = xlate_alu(x, f->code, f->k);
			break;
		case BPF_JMP:
			ret = xlate_jmp(x, pc, err, len);
			break;
		default:
			ret = xlate_rest(x, f->code, f->k);
			break;
		}
	}
	if (ret != BAD_INSN)
		return ret;
	return fail(err, len, -EINVAL, "cBPF insn %zu (code 0x%04x, k %u) cannot be translated", pc,
		    f->code, f->k);
}

static int xlate_view(struct xl *x, bool tag_view, char *err, size_t len)
{
	int ret;

	x->tag_view = tag_view;
	x->first_label = x->n_labels;
	for (size_t i = 0; i < x->n_prog; i++)
		new_label(x);
	for (size_t i = 0; i < x->n_prog; i++) {
		bind(x, x->first_label + i);
		ret = xlate_insn(x, i, err, len);
		if (ret)
			return ret;
	}
	return 0;
}

static int resolve(struct xl *x, char *err, size_t len)
{
	for (size_t i = 0; i < x->n_fix; i++) {
		long rel = x->label_pos[x->fix[i].label] - (long)x->fix[i].at - 1;

		if (x->label_pos[x->fix[i].label] < 0)
			return fail(err, len, -EINVAL, "internal: unbound label");
		if (rel < 0 || rel > INT16_MAX)
			return fail(err, len, -E2BIG,
				    "filter too large: %zu eBPF instructions, beyond the reach of eBPF jumps",
				    x->n);
		x->v[x->fix[i].at].off = (__s16)rel;
	}
	return 0;
}

int ps_xlate(const struct sock_filter *prog, size_t n, enum ps_xlate_target target,
	     struct ps_ebpf *out, char *err, size_t errlen)
{
	struct xl x = { .prog = prog, .n_prog = n, .target = target };
	/* Where the hook may hold a VLAN tag out of band: a second view. */
	bool tags = target == PS_XLATE_TC || target == PS_XLATE_XDP_TAG;
	int tag_start, ret;

	out->insns = NULL;
	out->n = 0;
	if (!n || n > PS_CBPF_MAX_INSNS)
		return fail(err, errlen, -E2BIG,
			    "cBPF program of %zu instructions (1..%d supported)", n,
			    PS_CBPF_MAX_INSNS);
	if (BPF_CLASS(prog[n - 1].code) != BPF_RET)
		return fail(err, errlen, -EINVAL, "cBPF program does not end with a return");

	x.ret0 = new_label(&x);
	tag_start = new_label(&x);
	/* Prologue: spill the arguments, zero A, X and M[]. */
	emit(&x, STX(BPF_DW, FP, BPF_REG_1, S_CTX));
	/* The length argument: the packet's length, and above it (<< 32)
	 * where the packet starts in the hook's bytes (bpf/filter.bpf.h). */
	emit(&x, STX(BPF_W, FP, BPF_REG_4, S_LEN));
	emit(&x, ALU64_IMM(BPF_RSH, BPF_REG_4, 32));
	emit(&x, STX(BPF_W, FP, BPF_REG_4, S_OFF_NET));
	emit(&x, STX(BPF_DW, FP, BPF_REG_5, S_VLAN));
	emit(&x, MOV64_REG(R_DATA, BPF_REG_2));
	emit(&x, MOV64_REG(R_END, BPF_REG_3));
	emit(&x, MOV32_IMM(R_A, 0));
	emit(&x, MOV32_IMM(R_X, 0));
	for (int i = 0; i < MEMWORDS / 2; i++)
		emit(&x, ST(BPF_DW, FP, S_MEM + 8 * i, 0));
	if (tags) /* the tag view, for a tag out of band */
		emit_jmp(&x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_5, 0, 0, tag_start);

	ret = xlate_view(&x, false, err, errlen);
	if (!ret && tags) {
		bind(&x, tag_start);
		ret = xlate_view(&x, true, err, errlen);
	}
	if (!ret) {
		bool ret0_used = false;

		/* The verifier refuses unreachable code: emit only if used. */
		for (size_t i = 0; i < x.n_fix; i++)
			ret0_used |= x.fix[i].label == x.ret0;
		bind(&x, x.ret0);
		if (ret0_used) {
			emit(&x, MOV32_IMM(BPF_REG_0, 0));
			emit(&x, insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
		}
		if (!tags)
			bind(&x, tag_start); /* unused */
		if (x.oom)
			ret = x.n >= MAX_EBPF_INSNS ?
				      fail(err, errlen, -E2BIG,
					   "filter too large: over %d eBPF instructions",
					   MAX_EBPF_INSNS) :
				      fail(err, errlen, -ENOMEM,
					   "out of memory translating the filter");
		else
			ret = resolve(&x, err, errlen);
	}
	free(x.label_pos);
	free(x.fix);
	if (ret) {
		free(x.v);
		return ret;
	}
	out->insns = x.v;
	out->n = x.n;
	return 0;
}

void ps_ebpf_free(struct ps_ebpf *e)
{
	free(e->insns);
	e->insns = NULL;
	e->n = 0;
}

/* ---- disassembly, in the notation of the kernel verifier's log ---- */

static const char *const alu_names[16] = {
	[BPF_ADD >> 4] = "+=",	[BPF_SUB >> 4] = "-=",	[BPF_MUL >> 4] = "*=",
	[BPF_DIV >> 4] = "/=",	[BPF_OR >> 4] = "|=",	[BPF_AND >> 4] = "&=",
	[BPF_LSH >> 4] = "<<=", [BPF_RSH >> 4] = ">>=", [BPF_MOD >> 4] = "%=",
	[BPF_XOR >> 4] = "^=",	[BPF_MOV >> 4] = "=",	[BPF_ARSH >> 4] = "s>>=",
};
static const char *const jmp_names[16] = {
	[BPF_JEQ >> 4] = "==",	 [BPF_JGT >> 4] = ">",	  [BPF_JGE >> 4] = ">=",
	[BPF_JSET >> 4] = "&",	 [BPF_JNE >> 4] = "!=",	  [BPF_JSGT >> 4] = "s>",
	[BPF_JSGE >> 4] = "s>=", [BPF_JLT >> 4] = "<",	  [BPF_JLE >> 4] = "<=",
	[BPF_JSLT >> 4] = "s<",	 [BPF_JSLE >> 4] = "s<=",
};

static const char *size_name(__u8 code)
{
	switch (BPF_SIZE(code)) {
	case BPF_W:
		return "u32";
	case BPF_H:
		return "u16";
	case BPF_B:
		return "u8";
	default:
		return "u64";
	}
}

static const char *helper_name(__s32 id)
{
	switch (id) {
	case BPF_FUNC_skb_load_bytes:
		return "bpf_skb_load_bytes";
	case BPF_FUNC_xdp_load_bytes:
		return "bpf_xdp_load_bytes";
	case BPF_FUNC_probe_read_kernel:
		return "bpf_probe_read_kernel";
	default:
		return "helper";
	}
}

void ps_ebpf_dump(FILE *f, const struct bpf_insn *insns, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct bpf_insn *in = &insns[i];
		__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		char r = cls == BPF_ALU || cls == BPF_JMP32 ? 'w' : 'r';
		bool by_x = BPF_SRC(in->code) == BPF_X;

		fprintf(f, "%5zu: (%02x) ", i, in->code);
		switch (cls) {
		case BPF_ALU:
		case BPF_ALU64:
			if (op == BPF_END)
				fprintf(f, "r%d = be%d r%d\n", in->dst_reg, in->imm, in->dst_reg);
			else if (op == BPF_NEG)
				fprintf(f, "%c%d = -%c%d\n", r, in->dst_reg, r, in->dst_reg);
			else if (by_x)
				fprintf(f, "%c%d %s %c%d\n", r, in->dst_reg, alu_names[op >> 4], r,
					in->src_reg);
			else
				fprintf(f, "%c%d %s %d\n", r, in->dst_reg, alu_names[op >> 4],
					in->imm);
			break;
		case BPF_LDX:
			fprintf(f, "r%d = *(%s *)(r%d %+d)\n", in->dst_reg, size_name(in->code),
				in->src_reg, in->off);
			break;
		case BPF_STX:
			fprintf(f, "*(%s *)(r%d %+d) = r%d\n", size_name(in->code), in->dst_reg,
				in->off, in->src_reg);
			break;
		case BPF_ST:
			fprintf(f, "*(%s *)(r%d %+d) = %d\n", size_name(in->code), in->dst_reg,
				in->off, in->imm);
			break;
		case BPF_JMP:
		case BPF_JMP32:
			if (op == BPF_EXIT)
				fprintf(f, "exit\n");
			else if (op == BPF_CALL)
				fprintf(f, "call %s#%d\n", helper_name(in->imm), in->imm);
			else if (op == BPF_JA)
				fprintf(f, "goto pc%+d\n", in->off);
			else if (by_x)
				fprintf(f, "if %c%d %s %c%d goto pc%+d\n", r, in->dst_reg,
					jmp_names[op >> 4], r, in->src_reg, in->off);
			else
				fprintf(f, "if %c%d %s 0x%x goto pc%+d\n", r, in->dst_reg,
					jmp_names[op >> 4], (__u32)in->imm, in->off);
			break;
		default:
			fprintf(f, "code 0x%02x\n", in->code);
		}
	}
}
