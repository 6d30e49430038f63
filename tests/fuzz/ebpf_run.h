/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small eBPF interpreter for what user/filter/xlate.c emits, so the translator
 * can be fuzzed without the kernel: the translated filter runs here and
 * its answer is compared with libpcap's bpf_filter() on the cBPF it came
 * from. Every memory access is checked: one outside the packet or the
 * stack, an unknown opcode, a jump out of the program or a helper called
 * with a bad context aborts, as the verifier would refuse such code.
 */
#ifndef PS_FUZZ_EBPF_RUN_H
#define PS_FUZZ_EBPF_RUN_H

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>

#define EBPF_STACK 512

struct ebpf_env {
	const uint8_t *pkt;
	uint32_t len; /* bytes the program may read: data_end - data */
	uint8_t stack[EBPF_STACK];
	int ctx_marker;
	/* PS_XLATE_XDP_TRACE: data is a plain kernel address, so no direct
	 * load may touch the packet; bpf_probe_read_kernel() must, and only
	 * within it. */
	int kmem_only;
};

__attribute__((noreturn, format(printf, 1, 2))) static void ebpf_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ebpf_run: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

static int ebpf_size(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B:
		return 1;
	case BPF_H:
		return 2;
	case BPF_W:
		return 4;
	default:
		return 8;
	}
}

/* Where an access of n bytes at addr may go: the stack (rw) or the packet (r). */
static uint8_t *ebpf_mem(struct ebpf_env *e, uint64_t addr, int n, int write, size_t pc)
{
	uintptr_t a = (uintptr_t)addr, s = (uintptr_t)e->stack, p = (uintptr_t)e->pkt;

	if (a >= s && a + (uintptr_t)n <= s + EBPF_STACK)
		return (uint8_t *)a;
	if (!write && !e->kmem_only && e->pkt && a >= p && a + (uintptr_t)n <= p + e->len)
		return (uint8_t *)a;
	ebpf_die("insn %zu: %s of %d bytes outside the stack and packet", pc,
		 write ? "store" : "load", n);
}

static uint64_t ebpf_alu(uint8_t op, uint64_t d, uint64_t s, int is64, int32_t imm, size_t pc)
{
	uint64_t mask = is64 ? ~0ull : 0xffffffffull;

	if (!is64) {
		d &= mask;
		s &= mask;
	}
	switch (op) {
	case BPF_ADD:
		d += s;
		break;
	case BPF_SUB:
		d -= s;
		break;
	case BPF_MUL:
		d *= s;
		break;
	case BPF_DIV:
		d = s ? d / s : 0;
		break;
	case BPF_MOD:
		d = s ? d % s : d;
		break;
	case BPF_OR:
		d |= s;
		break;
	case BPF_AND:
		d &= s;
		break;
	case BPF_XOR:
		d ^= s;
		break;
	case BPF_LSH:
		d <<= s & (is64 ? 63 : 31);
		break;
	case BPF_RSH:
		d >>= s & (is64 ? 63 : 31);
		break;
	case BPF_ARSH:
		d = is64 ? (uint64_t)((int64_t)d >> (s & 63)) :
			   (uint64_t)(uint32_t)((int32_t)d >> (s & 31));
		break;
	case BPF_NEG:
		d = -d;
		break;
	case BPF_MOV:
		d = s;
		break;
	case BPF_END:
		/* BPF_TO_BE on a little-endian host: a byte swap */
		d = imm == 16 ? htobe16((uint16_t)d) :
		    imm == 32 ? htobe32((uint32_t)d) :
		    imm == 64 ? htobe64(d) :
				(ebpf_die("insn %zu: END %d", pc, imm), 0);
		return d;
	default:
		ebpf_die("insn %zu: ALU op 0x%x", pc, op);
	}
	return d & mask;
}

static int ebpf_cond(uint8_t op, uint64_t a, uint64_t b, int is32, size_t pc)
{
	if (is32) {
		a = (uint32_t)a;
		b = (uint32_t)b;
	}
	switch (op) {
	case BPF_JEQ:
		return a == b;
	case BPF_JNE:
		return a != b;
	case BPF_JGT:
		return a > b;
	case BPF_JGE:
		return a >= b;
	case BPF_JLT:
		return a < b;
	case BPF_JLE:
		return a <= b;
	case BPF_JSET:
		return (a & b) != 0;
	case BPF_JSGT:
		return is32 ? (int32_t)a > (int32_t)b : (int64_t)a > (int64_t)b;
	case BPF_JSGE:
		return is32 ? (int32_t)a >= (int32_t)b : (int64_t)a >= (int64_t)b;
	case BPF_JSLT:
		return is32 ? (int32_t)a < (int32_t)b : (int64_t)a < (int64_t)b;
	case BPF_JSLE:
		return is32 ? (int32_t)a <= (int32_t)b : (int64_t)a <= (int64_t)b;
	default:
		ebpf_die("insn %zu: jump op 0x%x", pc, op);
	}
}

/* Run the filter: r1 ctx, r2 data, r3 data_end, r4 wire_len, r5 vlan. */
static uint64_t ebpf_run(struct ebpf_env *e, const struct bpf_insn *prog, size_t n,
			 uint32_t wire_len, uint64_t vlan)
{
	uint64_t r[11] = { 0 };
	size_t pc = 0, steps = 0;

	memset(e->stack, 0xaa, sizeof(e->stack)); /* uninitialised: not zero */
	r[1] = (uint64_t)(uintptr_t)&e->ctx_marker;
	r[2] = (uint64_t)(uintptr_t)e->pkt;
	r[3] = (uint64_t)(uintptr_t)(e->pkt + e->len);
	r[4] = wire_len;
	r[5] = vlan;
	r[10] = (uint64_t)(uintptr_t)(e->stack + EBPF_STACK);
	for (;;) {
		const struct bpf_insn *i;
		uint8_t cls, op;
		uint64_t src;

		if (pc >= n)
			ebpf_die("fell off the program at %zu", pc);
		if (++steps > 1000000)
			ebpf_die("more than a million steps");
		i = &prog[pc];
		cls = BPF_CLASS(i->code);
		op = BPF_OP(i->code);
		if (i->dst_reg > 10 || i->src_reg > 10)
			ebpf_die("insn %zu: register out of range", pc);
		src = BPF_SRC(i->code) == BPF_X ? r[i->src_reg] : (uint64_t)(int64_t)i->imm;
		switch (cls) {
		case BPF_ALU:
		case BPF_ALU64:
			if (i->dst_reg == 10)
				ebpf_die("insn %zu: writes the frame pointer", pc);
			r[i->dst_reg] = ebpf_alu(op, r[i->dst_reg], src, cls == BPF_ALU64, i->imm,
						 pc);
			break;
		case BPF_LDX: {
			int sz = ebpf_size(i->code);
			uint8_t *m = ebpf_mem(e, r[i->src_reg] + (int64_t)i->off, sz, 0, pc);
			uint64_t v = 0;

			memcpy(&v, m, (size_t)sz); /* little endian host */
			r[i->dst_reg] = v;
			break;
		}
		case BPF_STX:
		case BPF_ST: {
			int sz = ebpf_size(i->code);
			uint8_t *m = ebpf_mem(e, r[i->dst_reg] + (int64_t)i->off, sz, 1, pc);
			uint64_t v = cls == BPF_STX ? r[i->src_reg] : (uint64_t)(int64_t)i->imm;

			memcpy(m, &v, (size_t)sz);
			break;
		}
		case BPF_JMP:
		case BPF_JMP32:
			if (cls == BPF_JMP && op == BPF_EXIT)
				return r[0];
			if (cls == BPF_JMP && op == BPF_CALL) {
				uint32_t off = (uint32_t)r[2], len = (uint32_t)r[4];
				uint8_t *to;

				if (i->imm == BPF_FUNC_probe_read_kernel && e->kmem_only) {
					uintptr_t from = (uintptr_t)r[3], p = (uintptr_t)e->pkt;

					len = (uint32_t)r[2];
					if (!len || len > EBPF_STACK)
						ebpf_die("insn %zu: probe_read length %u", pc, len);
					to = ebpf_mem(e, r[1], (int)len, 1, pc);
					/* The kernel would read whatever is there:
					 * the bounds check before it must hold. */
					if (from < p || from + len > p + e->len)
						ebpf_die("insn %zu: probe_read outside the packet",
							 pc);
					memcpy(to, (const void *)from, len);
					r[0] = 0;
					r[1] = r[2] = r[3] = r[4] = r[5] = 0xdeadbeefdeadbeefull;
					break;
				}
				if (i->imm != BPF_FUNC_xdp_load_bytes &&
				    i->imm != BPF_FUNC_skb_load_bytes)
					ebpf_die("insn %zu: helper %d", pc, i->imm);
				if (r[1] != (uint64_t)(uintptr_t)&e->ctx_marker)
					ebpf_die("insn %zu: helper without the context", pc);
				if (!len || len > EBPF_STACK)
					ebpf_die("insn %zu: helper length %u", pc, len);
				to = ebpf_mem(e, r[3], (int)len, 1, pc);
				if ((uint64_t)off + len > e->len) {
					r[0] = (uint64_t)-EFAULT;
				} else {
					memcpy(to, e->pkt + off, len);
					r[0] = 0;
				}
				r[1] = r[2] = r[3] = r[4] = r[5] = 0xdeadbeefdeadbeefull;
				break;
			}
			if (op == BPF_JA ||
			    ebpf_cond(op, r[i->dst_reg], src, cls == BPF_JMP32, pc)) {
				if (i->off < 0)
					ebpf_die("insn %zu: backward jump", pc);
				pc += (size_t)i->off;
			}
			break;
		default:
			ebpf_die("insn %zu: class 0x%x", pc, cls);
		}
		pc++;
	}
}

#endif
