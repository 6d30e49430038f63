// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark of a design (issue 65): the reader of bench/kblock.bpf.c, whose
 * program puts each packet's enhanced packet block in a BPF ring whole.
 * This writes the ring's records out as they stand, a gathered write of up
 * to IOV_MAX records at a time, and gives the ring its room back once per
 * batch, not once per record as libbpf's ring_buffer__consume() does. One
 * ring serves every CPU, so there is nothing to merge: a lower bound on
 * what the design costs, measured beside pktsample's rings in
 * bench/e2e.sh (contender kblock).
 *
 * Usage: bench_kblock -i IFACE -w FILE [-s SNAPLEN] [-B KIB]
 * Prints "capturing on IFACE" once attached; on SIGINT or SIGTERM, the
 * packets written and lost as pktsample prints them.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kblock.skel.h"

#define KB_BPF_TCX_INGRESS 46
#define KB_RB_BUSY (1u << 31)
#define KB_RB_DISCARD (1u << 30)
#define KB_RB_HDR 8
#define KB_IOV 1024 /* UIO_MAXIOV: the most one writev() takes */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct ring {
	unsigned long *cons, *prod;
	const uint8_t *data;
	uint64_t mask;
};

/* All of iov[0..n) written, or -errno. */
static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

/* Everything the ring holds written out; the packets it held, or -errno. */
static long drain(struct ring *r, int fd)
{
	static struct iovec iov[KB_IOV];
	uint64_t cons = *r->cons, prod;
	long packets = 0;
	int n, err;

	for (;;) {
		prod = __atomic_load_n(r->prod, __ATOMIC_ACQUIRE);
		n = 0;
		while (cons < prod && n < KB_IOV) {
			const uint32_t *h = (const uint32_t *)(r->data + (cons & r->mask));
			uint32_t len = __atomic_load_n(h, __ATOMIC_ACQUIRE);

			if (len & KB_RB_BUSY)
				break;
			if (!(len & KB_RB_DISCARD)) {
				iov[n].iov_base = (void *)(h + KB_RB_HDR / 4);
				iov[n].iov_len = len;
				n++;
			}
			cons += ((len & ~(KB_RB_BUSY | KB_RB_DISCARD)) + KB_RB_HDR + 7) & ~7ull;
		}
		if (n == 0)
			return packets;
		err = write_all(fd, iov, n);
		if (err)
			return err;
		packets += n;
		__atomic_store_n(r->cons, cons, __ATOMIC_RELEASE);
	}
}

/* The section header and the one interface: Ethernet, nanoseconds. */
static int write_head(int fd, uint32_t snaplen)
{
	uint32_t shb[7] = { 0x0a0d0d0a, 28, 0x1a2b3c4d, 1, 0xffffffff, 0xffffffff, 28 };
	uint32_t idb[7] = { 1, 28, 1, snaplen, 0, 0, 28 };
	uint8_t tsresol[8] = { 9, 0, 1, 0, 9, 0, 0, 0 };
	struct iovec iov[3] = {
		{ shb, sizeof(shb) },
		{ idb, 16 },
		{ tsresol, sizeof(tsresol) },
	};
	struct iovec tail = { &idb[6], 4 };
	int err;

	shb[4] = 0xffffffff; /* section length: not given */
	idb[1] = idb[6] = 16 + sizeof(tsresol) + 4;
	err = write_all(fd, iov, 3);
	return err ? err : write_all(fd, &tail, 1);
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *file = NULL;
	uint32_t snaplen = 128, kib = 65536;
	struct kblock *skel = NULL;
	struct epoll_event ev = { .events = EPOLLIN };
	struct ring r = { 0 };
	struct timespec rt, mono;
	long page = sysconf(_SC_PAGESIZE), packets = 0, n;
	int opt, ifindex, link = -1, fd = -1, ep = -1, map_fd, ret = 1;
	unsigned long long lost = 0;
	size_t size;
	void *p;

	while ((opt = getopt(argc, argv, "i:w:s:B:")) != -1) {
		switch (opt) {
		case 'i':
			ifname = optarg;
			break;
		case 'w':
			file = optarg;
			break;
		case 's':
			snaplen = strtoul(optarg, NULL, 10);
			break;
		case 'B':
			kib = strtoul(optarg, NULL, 10);
			break;
		default:
			goto usage;
		}
	}
	if (!ifname || !file || snaplen == 0 || snaplen > 256 || kib < 4 || (kib & (kib - 1)))
		goto usage;
	ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		fprintf(stderr, "kblock: %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	size = (size_t)kib << 10;

	skel = kblock__open();
	if (!skel) {
		fprintf(stderr, "kblock: open: %s\n", strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	skel->rodata->ts_offset = (rt.tv_sec - mono.tv_sec) * 1000000000ull + (uint64_t)rt.tv_nsec -
				  (uint64_t)mono.tv_nsec;
	skel->rodata->snaplen = snaplen;
	bpf_map__set_max_entries(skel->maps.ring, size);
	if (kblock__load(skel)) {
		fprintf(stderr, "kblock: load: %s\n", strerror(errno));
		goto cleanup;
	}
	map_fd = bpf_map__fd(skel->maps.ring);
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	r.cons = p;
	/* The data mapped twice in a row, as the kernel offers it: no record
	 * wraps. */
	p = mmap(NULL, page + 2 * size, PROT_READ, MAP_SHARED, map_fd, page);
	if (p == MAP_FAILED)
		goto fail;
	r.prod = p;
	r.data = (const uint8_t *)p + page;
	r.mask = size - 1;

	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_head(fd, snaplen))
		goto fail;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, map_fd, &ev))
		goto fail;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	link = bpf_link_create(bpf_program__fd(skel->progs.kblock_tc_ingress), ifindex,
			       KB_BPF_TCX_INGRESS, NULL);
	if (link < 0) {
		errno = -link;
		goto fail;
	}
	fprintf(stderr, "capturing on %s\n", ifname);
	while (!stop) {
		if (epoll_wait(ep, &ev, 1, 100) < 0 && errno != EINTR)
			goto fail;
		n = drain(&r, fd);
		if (n < 0) {
			errno = -n;
			goto fail;
		}
		packets += n;
	}
	close(link);
	link = -1;
	n = drain(&r, fd);
	if (n < 0) {
		errno = -n;
		goto fail;
	}
	packets += n;
	{
		int cpus = libbpf_num_possible_cpus();
		struct kb_cpu_value {
			uint64_t seq, lost;
		} v[cpus > 0 ? cpus : 1];
		uint32_t zero = 0;

		if (cpus > 0 && !bpf_map_lookup_elem(bpf_map__fd(skel->maps.cpus), &zero, v))
			for (int i = 0; i < cpus; i++)
				lost += v[i].lost;
	}
	fprintf(stderr, "%ld packets captured\n%llu packets lost in ring buffer\n", packets, lost);
	ret = 0;
	goto cleanup;
fail:
	fprintf(stderr, "kblock: %s\n", strerror(errno));
cleanup:
	if (link >= 0)
		close(link);
	if (ep >= 0)
		close(ep);
	if (fd >= 0 && close(fd) && ret == 0) {
		fprintf(stderr, "kblock: %s: %s\n", file, strerror(errno));
		ret = 1;
	}
	kblock__destroy(skel);
	return ret;
usage:
	fprintf(stderr,
		"usage: bench_kblock -i IFACE -w FILE [-s SNAPLEN<=256] [-B KIB, a power of 2]\n");
	return 2;
}
