/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libpcap front end: a tcpdump expression in, classic BPF out, compiled
 * for a link type exactly as tcpdump would on a capture file. Kept apart from
 * the kernel headers because libpcap's struct bpf_insn and the kernel's
 * share a name.
 */
#ifndef PS_CBPF_H
#define PS_CBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The layout of both libpcap's struct bpf_insn and the kernel's sock_filter. */
struct ps_cbpf_insn {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};

/* The largest unoptimized program libpcap is asked to optimize (see
 * ps_cbpf_compile): some 540 'host' terms, which it optimizes in
 * seconds. */
#define PS_CBPF_UNOPT_MAX 16384u

/*
 * The DLT_ value libpcap's compiler takes for a file's LINKTYPE_ value:
 * the same but for a few, of which pktsample meets raw IP (101 in files,
 * DLT_RAW for the compiler).
 */
int ps_cbpf_dlt(int linktype);

/*
 * Compile with optimisation for a pcap link type (LINKTYPE_ETHERNET,
 * LINKTYPE_RAW). Returns 0, or -EINVAL with libpcap's own message in err.
 * *out is malloc'd.
 */
int ps_cbpf_compile(const char *expr, int linktype, uint32_t snaplen, struct ps_cbpf_insn **out,
		    size_t *n, char *err, size_t errlen);
/* One line per instruction, as `tcpdump -d` prints them. */
/* libpcap's own checks on a program before its interpreter runs it. */
bool ps_cbpf_valid(const struct ps_cbpf_insn *insns, size_t n);
/* libpcap's interpreter on a valid program: cap_len bytes of wire_len. */
uint32_t ps_cbpf_filter(const struct ps_cbpf_insn *insns, const uint8_t *pkt, uint32_t cap_len,
			uint32_t wire_len);
void ps_cbpf_dump(FILE *f, const struct ps_cbpf_insn *insns, size_t n);
/* libpcap's interpreter: what `tcpdump -r` would keep (0 = no match). */
uint32_t ps_cbpf_run(const struct ps_cbpf_insn *insns, size_t n, const uint8_t *pkt, uint32_t len);

#endif
