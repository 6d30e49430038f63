// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>
#include "cbpf.h"

_Static_assert(sizeof(struct ps_cbpf_insn) == sizeof(struct bpf_insn),
	       "ps_cbpf_insn mirrors libpcap's bpf_insn");

int ps_cbpf_dlt(int linktype)
{
	return linktype == 101 ? DLT_RAW : linktype; /* LINKTYPE_RAW */
}

int ps_cbpf_compile(const char *expr, int linktype, uint32_t snaplen, struct ps_cbpf_insn **out,
		    size_t *n, char *err, size_t errlen)
{
	struct bpf_program prog = { 0 };
	pcap_t *p;
	int ret = 0;

	*out = NULL;
	*n = 0;
	p = pcap_open_dead(ps_cbpf_dlt(linktype), (int)snaplen);
	if (!p) {
		snprintf(err, errlen, "libpcap: cannot create a compiler handle");
		return -ENOMEM;
	}
	/*
	 * libpcap's optimizer takes time that grows with about the cube of
	 * the program: seconds for some hundreds of 'host' terms, and soon
	 * more than anyone would wait. Its input, the unoptimized program,
	 * is compiled in linear time: past PS_CBPF_UNOPT_MAX instructions
	 * the expression is refused at once.
	 */
	if (pcap_compile(p, &prog, expr, 0, PCAP_NETMASK_UNKNOWN)) {
		snprintf(err, errlen, "bad filter expression: %s", pcap_geterr(p));
		ret = -EINVAL;
		goto out;
	}
	if (prog.bf_len > PS_CBPF_UNOPT_MAX) {
		snprintf(err, errlen,
			 "filter expression too large: %u instructions before libpcap's optimizer, "
			 "at most %u (it would take minutes; use fewer terms, e.g. 'net' for many hosts)",
			 prog.bf_len, PS_CBPF_UNOPT_MAX);
		ret = -E2BIG;
		goto out;
	}
	pcap_freecode(&prog);
	if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		snprintf(err, errlen, "bad filter expression: %s", pcap_geterr(p));
		ret = -EINVAL;
		goto out;
	}
	*out = malloc(prog.bf_len * sizeof(**out));
	if (!*out) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memcpy(*out, prog.bf_insns, prog.bf_len * sizeof(**out));
	*n = prog.bf_len;
out:
	pcap_freecode(&prog);
	pcap_close(p);
	return ret;
}

void ps_cbpf_dump(FILE *f, const struct ps_cbpf_insn *insns, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", bpf_image((const struct bpf_insn *)&insns[i], (int)i));
}

bool ps_cbpf_valid(const struct ps_cbpf_insn *insns, size_t n)
{
	return n <= INT32_MAX && bpf_validate((const struct bpf_insn *)insns, (int)n);
}

uint32_t ps_cbpf_filter(const struct ps_cbpf_insn *insns, const uint8_t *pkt, uint32_t cap_len,
			uint32_t wire_len)
{
	return (uint32_t)bpf_filter((const struct bpf_insn *)insns, pkt, wire_len, cap_len);
}

uint32_t ps_cbpf_run(const struct ps_cbpf_insn *insns, size_t n, const uint8_t *pkt, uint32_t len)
{
	struct bpf_program prog = { .bf_len = (u_int)n, .bf_insns = (struct bpf_insn *)insns };
	struct pcap_pkthdr h = { .caplen = len, .len = len };

	return (uint32_t)pcap_offline_filter(&prog, &h, pkt);
}
