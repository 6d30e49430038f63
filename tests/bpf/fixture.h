/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the BPF tests share: the privilege check (skip, or fail in CI), the
 * out-of-band VLAN helper, frame builders and BPF_PROG_TEST_RUN. The
 * programs themselves are loaded through user/kernel/loader.h, as the binary does.
 */
#ifndef PS_TEST_FIXTURE_H
#define PS_TEST_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#define LO_IFINDEX 1

/* ctest's skip status (SKIP_RETURN_CODE). */
#define PS_TEST_SKIP 77

/*
 * BPF_PROG_TEST_RUN needs root (or CAP_BPF + CAP_NET_ADMIN + CAP_PERFMON).
 * Without it: 0 when the tests can run, else PS_TEST_SKIP with a line on
 * stderr; in CI (CI set) a missing privilege is a failure (1), never a
 * skip.
 */
int ps_fx_require_bpf(const char *test);

struct tc_vlan_oob;
/* The out-of-band VLAN helper (tests/bpf/tc_vlan_oob.bpf.c) in front of
 * the loaded TC ingress program capture_fd; returns its program fd. */
struct ps_fx_vlan_oob {
	struct tc_vlan_oob *skel;
	int fd;
};
int ps_fx_vlan_oob_open(struct ps_fx_vlan_oob *v, int capture_fd);
void ps_fx_vlan_oob_close(struct ps_fx_vlan_oob *v);

/* An Ethernet/IPv4/UDP header, then bytes i * 13 + 1 up to len (malloc'd). */
uint8_t *ps_fx_frame_numbered(uint32_t len);
/* A 64-byte UDP frame 10.0.0.1:12345 -> 10.0.0.2:53 into b. */
#define PS_FX_UDP_FRAME 64
void ps_fx_frame_udp(uint8_t *b);

/*
 * Run fd once or `repeat` times on pkt. XDP programs get lo as the ingress
 * interface and `linear` bytes in the linear part (the rest in frags).
 * Returns 0 or -errno; *retval and *duration_ns (kernel's ns per run) if
 * asked for.
 */
int ps_fx_run(int fd, bool xdp, const void *pkt, uint32_t len, uint32_t linear, uint32_t repeat,
	      uint32_t *retval, uint32_t *duration_ns);

#endif
