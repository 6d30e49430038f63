// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cBPF -> eBPF translator, checked by running both: libpcap's
 * bpf_filter() on the cBPF program, our interpreter (ebpf_run.h) on the
 * translation, for XDP, for TC, for XDP traced from fentry (every load
 * through bpf_probe_read_kernel, which must stay inside the packet), and
 * for TC with the VLAN tag out of band
 * (the frame without its tag, the tag in the vlan argument): the answers
 * must be equal. Input: u16 instruction count, u8 extra wire bytes, the
 * cBPF instructions (8 bytes each), then the packet.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cbpf.h"
#include "ebpf_run.h"
#include "pktsample.h"
#include "xlate.h"

static struct ebpf_env env;

/* The opcodes libpcap's interpreter runs (its bpf_filter() aborts on any
 * other, even one bpf_validate() let through); libpcap emits no other. */
static bool real_opcode(uint16_t c)
{
	static const uint8_t ok[] = {
		0x06, 0x16, 0x20, 0x28, 0x30, 0x80, 0x81, 0x40, 0x48, 0x50, 0xb1, 0x00, 0x01,
		0x60, 0x61, 0x02, 0x03, 0x05, 0x25, 0x35, 0x15, 0x45, 0x2d, 0x3d, 0x1d, 0x4d,
		0x0c, 0x1c, 0x2c, 0x3c, 0x9c, 0x5c, 0x4c, 0xac, 0x6c, 0x7c, 0x04, 0x14, 0x24,
		0x34, 0x94, 0x54, 0x44, 0xa4, 0x64, 0x74, 0x84, 0x07, 0x87,
	};

	for (size_t i = 0; i < sizeof(ok); i++)
		if (c == ok[i])
			return true;
	return false;
}
static uint8_t untagged[65536];

static void check(const struct sock_filter *prog, size_t n, enum ps_xlate_target t,
		  const uint8_t *pkt, uint32_t len, uint32_t wire, uint64_t vlan, uint32_t want)
{
	struct ps_ebpf e;
	char err[256];
	uint32_t got;

	if (ps_xlate(prog, n, t, &e, err, sizeof(err)))
		return; /* refused: ancillary loads, backward jumps, ... */
	env.pkt = pkt;
	env.len = len;
	env.kmem_only = t == PS_XLATE_XDP_TRACE;
	got = (uint32_t)ebpf_run(&env, e.insns, e.n, wire, vlan);
	if (got != want) {
		fprintf(stderr, "%s%s: cBPF says %u, the translation %u\n",
			t == PS_XLATE_XDP	 ? "xdp" :
			t == PS_XLATE_TC	 ? "tc" :
			t == PS_XLATE_XDP_TRACE	 ? "around another xdp program" :
			t == PS_XLATE_XDP_LINEAR ? "xdp, one buffer" :
						   "xdp with the driver's tag",
			vlan ? " (tag out of band)" : "", want, got);
		abort();
	}
	ps_ebpf_free(&e);
}

/*
 * libpcap's interpreter leaves its scratch memory M[] uninitialised, the
 * translation zeroes it (as the kernel's cBPF did): a program that may read
 * M[k] before writing it has no one answer. The kernel's own check
 * (check_load_and_stores in net/core/filter.c) finds those.
 */
static bool reads_unwritten_memory(const struct sock_filter *prog, uint32_t n)
{
	uint16_t masks[PS_CBPF_MAX_INSNS], valid = 0;

	for (uint32_t i = 0; i < n; i++)
		masks[i] = 0xffff;
	for (uint32_t i = 0; i < n; i++) {
		uint16_t c = prog[i].code;

		valid &= masks[i];
		if (c == 0x02 || c == 0x03) { /* st, stx */
			valid |= (uint16_t)(1u << (prog[i].k & 15));
		} else if (c == 0x60 || c == 0x61) { /* ld, ldx M[k] */
			if (!(valid & (1u << (prog[i].k & 15))))
				return true;
		} else if (c == 0x05) { /* ja: bpf_validate keeps it inside */
			masks[i + 1 + prog[i].k] &= valid;
			valid = 0xffff;
		} else if ((c & 0x07) == 0x05) { /* conditional jumps */
			masks[i + 1 + prog[i].jt] &= valid;
			masks[i + 1 + prog[i].jf] &= valid;
			valid = 0xffff;
		}
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sock_filter prog[PS_CBPF_MAX_INSNS];
	const uint8_t *pkt;
	uint32_t n, len, wire, want;

	if (size < 3)
		return 0;
	n = (uint32_t)(data[0] | data[1] << 8) % 512 + 1;
	if (size < 3 + (size_t)n * 8)
		return 0;
	memcpy(prog, data + 3, (size_t)n * 8);
	pkt = data + 3 + n * 8;
	len = (uint32_t)(size - 3 - (size_t)n * 8);
	if (len > 9000)
		return 0;
	wire = len + data[2];
	/* What libpcap's interpreter accepts to run: its compiler's output
	 * passes this, and bpf_filter() trusts it. */
	if (!ps_cbpf_valid((const struct ps_cbpf_insn *)prog, n))
		return 0;
	/* libpcap's validator lets a jump whose target wraps around 2^32 through
	 * (and its interpreter then loops): the translator refuses those, the
	 * interpreter is not asked. */
	for (uint32_t i = 0; i < n; i++)
		if (prog[i].code == 0x05 && prog[i].k >= n - i - 1) {
			struct ps_ebpf e;
			char err[256];

			if (!ps_xlate(prog, n, PS_XLATE_XDP, &e, err, sizeof(err)))
				abort();
			return 0;
		}
	/* Anything else the translator must refuse, as the kernel would. */
	for (uint32_t i = 0; i < n; i++)
		if (!real_opcode(prog[i].code)) {
			struct ps_ebpf e;
			char err[256];

			if (!ps_xlate(prog, n, PS_XLATE_XDP, &e, err, sizeof(err))) {
				fprintf(stderr, "opcode 0x%x at %u translated\n", prog[i].code, i);
				abort();
			}
			return 0;
		}
	if (reads_unwritten_memory(prog, n))
		return 0;
	want = ps_cbpf_filter((const struct ps_cbpf_insn *)prog, pkt, len, wire);
	check(prog, n, PS_XLATE_XDP, pkt, len, wire, 0, want);
	check(prog, n, PS_XLATE_TC, pkt, len, wire, 0, want);
	check(prog, n, PS_XLATE_XDP_TAG, pkt, len, wire, 0, want);
	check(prog, n, PS_XLATE_XDP_TRACE, pkt, len, wire, 0, want);
	check(prog, n, PS_XLATE_XDP_LINEAR, pkt, len, wire, 0, want);
	/* An 802.1Q tag the skb (or, for native XDP, the driver) holds out of
	 * band: the same answer. */
	if (len >= 18 && pkt[12] == 0x81 && pkt[13] == 0x00) {
		uint64_t vlan = PS_FILTER_VLAN_PRESENT | 0x8100ull << 16 |
				(uint64_t)(pkt[14] << 8 | pkt[15]);

		memcpy(untagged, pkt, 12);
		memcpy(untagged + 12, pkt + 16, len - 16);
		/* The hook passes the skb's length, without the tag: the
		 * translation counts the tag itself. */
		check(prog, n, PS_XLATE_TC, untagged, len - 4, wire - 4, vlan, want);
		check(prog, n, PS_XLATE_XDP_TAG, untagged, len - 4, wire - 4, vlan, want);
	}
	return 0;
}
