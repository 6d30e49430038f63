// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fixture.h"
#include "tc_vlan_oob.skel.h"

int ps_fx_require_bpf(const char *test)
{
	if (geteuid() == 0)
		return 0;
	if (getenv("CI")) {
		fprintf(stderr, "%s: needs root for BPF_PROG_TEST_RUN, and CI must run it\n", test);
		return 1;
	}
	fprintf(stderr, "%s: skipped: needs root for BPF_PROG_TEST_RUN\n", test);
	return PS_TEST_SKIP;
}

int ps_fx_vlan_oob_open(struct ps_fx_vlan_oob *v, int capture_fd)
{
	uint32_t zero = 0;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	v->skel = tc_vlan_oob__open_and_load();
	if (!v->skel)
		return errno ? -errno : -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(v->skel->maps.capture), &zero, &capture_fd, 0)) {
		int err = -errno;

		ps_fx_vlan_oob_close(v);
		return err;
	}
	v->fd = bpf_program__fd(v->skel->progs.tc_vlan_oob);
	return 0;
}

void ps_fx_vlan_oob_close(struct ps_fx_vlan_oob *v)
{
	tc_vlan_oob__destroy(v->skel);
	v->skel = NULL;
	v->fd = -1;
}

uint8_t *ps_fx_frame_numbered(uint32_t len)
{
	static const uint8_t hdr[] = {
		0x02, 0, 0, 0, 0, 2,  0x02, 0, 0, 0,   0, 1, 0x08, 0x00, 0x45, 0, 0,
		0,    0, 0, 0, 0, 64, 17,   0, 0, 192, 0, 2, 1,	   192,	 0,    2, 2,
	};
	uint8_t *p = malloc(len > sizeof(hdr) ? len : sizeof(hdr));

	if (!p)
		return NULL;
	memcpy(p, hdr, len < sizeof(hdr) ? len : sizeof(hdr));
	for (uint32_t i = sizeof(hdr); i < len; i++)
		p[i] = (uint8_t)(i * 13 + 1);
	return p;
}

void ps_fx_frame_udp(uint8_t *b)
{
	static const uint8_t hdr[] = {
		2, 0,  0,  0, 0, 2,  2, 0, 0, 0,  0, 1, 0x08, 0x00, 0x45, 0, 0,	 50, 0,	 0, 0x40,
		0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,    0x30, 0x39, 0, 53, 0,  30, 0, 0,
	};

	memset(b, 0, PS_FX_UDP_FRAME);
	memcpy(b, hdr, sizeof(hdr));
}

int ps_fx_run(int fd, bool xdp, const void *pkt, uint32_t len, uint32_t linear, uint32_t repeat,
	      uint32_t *retval, uint32_t *duration_ns)
{
	struct xdp_md xctx = { .ingress_ifindex = LO_IFINDEX, .data_end = linear };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = len, .repeat = repeat);

	if (xdp) {
		o.ctx_in = &xctx;
		o.ctx_size_in = sizeof(xctx);
	}
	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	if (retval)
		*retval = o.retval;
	if (duration_ns)
		*duration_ns = o.duration;
	return 0;
}
