// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcapcheck: capture checks for the integration tests, through libpcap's own
 * reader (and, for statistics blocks libpcap does not expose, our walker).
 *
 *   pcapcheck count FILE              packets, as libpcap reads them
 *   pcapcheck same SENT CAPTURED [--no-ip6-igmp]
 *                                     same frames, byte for byte, each once
 *                                     (raw IP against Linux cooked: the same
 *                                     packets after the cooked header);
 *                                     --no-ip6-igmp leaves IPv6 and IGMP out
 *                                     of both, a new device's housekeeping,
 *                                     which comes and goes at any moment
 *   pcapcheck isb FILE                each ISB's counters and comment, a line each
 *   pcapcheck times FILE              first/last timestamp (ns)
 *   pcapcheck order FILE              packets stamped before the one ahead of them
 *   pcapcheck blocks FILE             packet blocks, if every block is whole to
 *                                     the end (a strict reader; exit 1 if not)
 *   pcapcheck processes FILE          each process information block ("pib N
 *                                     pid=P name=N"), then the packets with
 *                                     epb_processid_threadid and how many of
 *                                     them point at a PIB of another pid
 *   pcapcheck extract FILE IFNAME DESCR OUT
 *                                     the packets of the pcapng interface named
 *                                     IFNAME and described DESCR (pktsample's
 *                                     hook), as a pcap of that interface's
 *                                     link type: where a file mixes link types,
 *                                     libpcap 1.10 and tshark's pcap writer
 *                                     cannot
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcapng_walk.h"

struct frame {
	uint32_t caplen, len;
	uint8_t *data;
};

static pcap_t *open_file(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);

	if (!p) {
		fprintf(stderr, "pcapcheck: %s\n", err);
		exit(1);
	}
	return p;
}

/*
 * IPv6 or IGMP, behind Ethernet (and VLAN tags), a Linux cooked header or
 * none: what a new device sends of its own accord (neighbour discovery,
 * MLD, IGMP reports), left out of a comparison of IPv4 test traffic. As
 * tshark's !(icmpv6 || igmp) did, in a process that starts in a
 * millisecond, not the seconds tshark takes under emulation.
 */
static int housekeeping(int dlt, const uint8_t *d, uint32_t caplen)
{
	uint32_t off;
	uint16_t type;

	if (dlt == DLT_RAW)
		return caplen >= 1 &&
		       ((d[0] >> 4 == 6) || (caplen >= 10 && d[0] >> 4 == 4 && d[9] == 2));
	if (dlt == DLT_EN10MB)
		off = 12;
	else if (dlt == DLT_LINUX_SLL)
		off = 14;
	else
		return 0;
	for (;;) {
		if (caplen < off + 2)
			return 0;
		type = (uint16_t)(d[off] << 8 | d[off + 1]);
		if (type != 0x8100 && type != 0x88a8)
			break;
		off += 4;
	}
	off += 2;
	return type == 0x86dd || (type == 0x0800 && caplen >= off + 10 && d[off + 9] == 2);
}

/*
 * Every frame of a file, bar housekeeping() with no_ip6_igmp set. With
 * raw_ip set, a Linux cooked (SLL) capture's frames lose their 16-byte
 * cooked header: what libpcap writes for a device without a link-layer
 * header that it does not map to raw IP (gre, ppp) is then comparable with
 * a raw-IP capture of the same packets.
 */
static size_t read_frames(const char *path, struct frame **out, int raw_ip, int no_ip6_igmp)
{
	pcap_t *p = open_file(path);
	int dlt = pcap_datalink(p);
	uint32_t strip = raw_ip && dlt == DLT_LINUX_SLL ? 16 : 0;
	struct pcap_pkthdr *h;
	const u_char *d;
	size_t n = 0, cap = 0;
	int r;

	*out = NULL;
	while ((r = pcap_next_ex(p, &h, &d)) == 1) {
		uint32_t cut = h->caplen < strip ? h->caplen : strip;

		if (no_ip6_igmp && housekeeping(dlt, d, h->caplen))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			*out = realloc(*out, cap * sizeof(**out));
		}
		(*out)[n].caplen = h->caplen - cut;
		(*out)[n].len = h->len - cut;
		(*out)[n].data = malloc(h->caplen - cut ? h->caplen - cut : 1);
		memcpy((*out)[n].data, d + cut, h->caplen - cut);
		n++;
	}
	if (r == -1) {
		fprintf(stderr, "pcapcheck: %s: %s\n", path, pcap_geterr(p));
		exit(1);
	}
	pcap_close(p);
	return n;
}

static size_t read_all(const char *path, struct frame **out)
{
	return read_frames(path, out, 0, 0);
}

/* The link type of a capture file. */
static int datalink_of(const char *path)
{
	pcap_t *p = open_file(path);
	int dlt = pcap_datalink(p);

	pcap_close(p);
	return dlt;
}

static void free_all(struct frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].data);
	free(f);
}

static int frame_cmp(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	if (x->caplen != y->caplen)
		return x->caplen < y->caplen ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->data, y->data, x->caplen);
}

static int cmd_same(const char *a, const char *b, int no_ip6_igmp)
{
	/* One side raw IP, the other Linux cooked: compare the IP packets. */
	int raw_ip = datalink_of(a) == DLT_RAW || datalink_of(b) == DLT_RAW;
	struct frame *fa, *fb;
	size_t na = read_frames(a, &fa, raw_ip, no_ip6_igmp);
	size_t nb = read_frames(b, &fb, raw_ip, no_ip6_igmp);

	int ret = 0;

	if (na != nb) {
		printf("count differs: %zu sent, %zu captured\n", na, nb);
		ret = 1;
		goto out;
	}
	qsort(fa, na, sizeof(*fa), frame_cmp);
	qsort(fb, nb, sizeof(*fb), frame_cmp);
	for (size_t i = 0; i < na; i++)
		if (frame_cmp(&fa[i], &fb[i])) {
			printf("frame differs: %u/%u bytes vs %u/%u bytes\n", fa[i].caplen,
			       fa[i].len, fb[i].caplen, fb[i].len);
			ret = 1;
			goto out;
		}
	printf("%zu frames identical\n", na);
out:
	free_all(fa, na);
	free_all(fb, nb);
	return ret;
}

static int cmd_times(const char *path)
{
	pcap_t *p = open_file(path);
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned long long lo = ~0ull, hi = 0, n = 0;

	while (pcap_next_ex(p, &h, &d) == 1) {
		unsigned long long t = h->ts.tv_sec * 1000000000ull + h->ts.tv_usec;

		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
		n++;
	}
	pcap_close(p);
	printf("packets=%llu first_ns=%llu last_ns=%llu\n", n, n ? lo : 0, hi);
	return 0;
}

/* The whole file in memory (NULL, with a message, if it cannot be read). */
static uint8_t *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0) {
		perror("pcapcheck");
		if (f)
			fclose(f);
		return NULL;
	}
	rewind(f);
	buf = malloc(len + 1);
	*size = buf ? fread(buf, 1, len, f) : 0;
	fclose(f);
	if (buf && *size != (size_t)len) {
		fprintf(stderr, "pcapcheck: %s: short read\n", path);
		free(buf);
		buf = NULL;
	}
	return buf;
}

static int cmd_isb(const char *path)
{
	static const struct {
		uint16_t code;
		const char *name;
	} opts[] = {
		{ 4, "ifrecv" }, { 5, "ifdrop" },   { 6, "filteraccept" },
		{ 7, "osdrop" }, { 8, "usrdeliv" },
	};
	struct pn_block b;
	size_t size, off = 0;
	uint8_t *buf = read_whole(path, &size);
	int r;

	if (!buf)
		return 1;
	while ((r = pn_next(buf, size, &off, &b)) == 1) {
		uint32_t ifid;

		if (b.type != 5)
			continue;
		memcpy(&ifid, b.data + 8, 4);
		printf("if=%u", ifid);
		for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
			const uint8_t *v;

			if (pn_opt(&b, opts[i].code, 0, &v) == 8)
				printf(" %s=%llu", opts[i].name, (unsigned long long)pn_u64(v));
		}
		{ /* opt_comment: pktsample's per-stage counters */
			const uint8_t *v;
			int n = pn_opt(&b, 1, 0, &v);

			if (n > 0)
				printf(" | %.*s", n, (const char *)v);
		}
		printf("\n");
	}
	free(buf);
	if (r < 0) {
		fprintf(stderr, "pcapcheck: %s: malformed block at %zu\n", path, off);
		return 1;
	}
	return 0;
}

/* Every block whole, to the last byte; the number of packet blocks. */
static int cmd_blocks(const char *path)
{
	size_t size, off = 0, packets = 0;
	uint8_t *buf = read_whole(path, &size);
	struct pn_block b;
	int r;

	if (!buf)
		return 1;
	while ((r = pn_next(buf, size, &off, &b)) == 1)
		packets += b.type == 6;
	free(buf);
	if (r < 0 || off != size) {
		fprintf(stderr, "pcapcheck: %s: partial or malformed block at %zu of %zu\n", path,
			off, size);
		return 1;
	}
	printf("%zu\n", packets);
	return 0;
}

/* Packets stamped before the packet ahead of them in the file. */
static int cmd_order(const char *path)
{
	pcap_t *p = open_file(path);
	unsigned long long prev = 0, late = 0;
	struct pcap_pkthdr *h;
	const u_char *d;

	if (!p)
		return 1;
	while (pcap_next_ex(p, &h, &d) == 1) {
		unsigned long long t = h->ts.tv_sec * 1000000000ull + h->ts.tv_usec;

		if (t < prev)
			late++;
		else
			prev = t;
	}
	pcap_close(p);
	printf("%llu\n", late);
	return 0;
}

/* Does option code of block b hold exactly the string want? */
static int opt_is(const struct pn_block *b, uint16_t code, const char *want)
{
	const uint8_t *v;
	int n = pn_opt(b, code, 0, &v);

	return n >= 0 && (size_t)n == strlen(want) && !memcmp(v, want, n);
}

static int cmd_extract(const char *path, const char *ifname, const char *descr, const char *out)
{
	struct pn_block b;
	size_t size, off = 0;
	uint8_t *buf = read_whole(path, &size);
	uint32_t n_if = 0, want = UINT32_MAX, n = 0;
	pcap_dumper_t *d = NULL;
	pcap_t *dead = NULL;
	int r;

	if (!buf)
		return 1;
	while ((r = pn_next(buf, size, &off, &b)) == 1) {
		if (b.type == 1) { /* IDB */
			uint16_t lt;

			memcpy(&lt, b.data + 8, 2);
			if (want == UINT32_MAX && opt_is(&b, 2, ifname) && opt_is(&b, 3, descr)) {
				want = n_if;
				dead = pcap_open_dead(lt == 101 ? DLT_RAW : lt, 262144);
				d = dead ? pcap_dump_open(dead, out) : NULL;
				if (!d) {
					fprintf(stderr, "pcapcheck: cannot write %s\n", out);
					return 1;
				}
			}
			n_if++;
		} else if (b.type == 6 && d) { /* EPB */
			struct pcap_pkthdr h = { 0 };
			uint32_t id, hi, lo;
			uint64_t ts;

			memcpy(&id, b.data + 8, 4);
			if (id != want)
				continue;
			memcpy(&hi, b.data + 12, 4);
			memcpy(&lo, b.data + 16, 4);
			memcpy(&h.caplen, b.data + 20, 4);
			memcpy(&h.len, b.data + 24, 4);
			ts = (uint64_t)hi << 32 | lo; /* ours: nanoseconds */
			h.ts.tv_sec = ts / 1000000000u;
			h.ts.tv_usec = ts % 1000000000u / 1000;
			pcap_dump((u_char *)d, &h, b.data + 28);
			n++;
		}
	}
	free(buf);
	if (!d) {
		fprintf(stderr, "pcapcheck: %s: no interface %s (%s)\n", path, ifname, descr);
		return 1;
	}
	pcap_dump_close(d);
	pcap_close(dead);
	printf("%u\n", n);
	return r < 0;
}

static int cmd_processes(const char *path)
{
	struct pn_block b;
	size_t size, off = 0;
	uint8_t *buf = read_whole(path, &size);
	uint32_t pib_pid[4096], n_pib = 0, with = 0, mismatch = 0;
	int r;

	if (!buf)
		return 1;
	while ((r = pn_next(buf, size, &off, &b)) == 1) {
		const uint8_t *v, *idx;

		if (b.type == 0x0A0D0D0A)
			n_pib = 0; /* indexes are per section */
		if (b.type == 0x80000001 && n_pib < 4096) {
			int n = pn_opt(&b, 2, 0, &v);

			memcpy(&pib_pid[n_pib], b.data + 8, 4);
			printf("pib %u pid=%u name=%.*s\n", n_pib, pib_pid[n_pib], n > 0 ? n : 0,
			       n > 0 ? (const char *)v : "");
			n_pib++;
		}
		if (b.type == 6 && pn_opt(&b, 8, 0, &v) == 8) {
			uint32_t pid, i;

			memcpy(&pid, v, 4);
			with++;
			if (pn_opt(&b, 0x8001, 0, &idx) != 4 || (memcpy(&i, idx, 4), i >= n_pib) ||
			    pib_pid[i] != pid)
				mismatch++;
		}
	}
	free(buf);
	if (r < 0) {
		fprintf(stderr, "pcapcheck: %s: malformed block at %zu\n", path, off);
		return 1;
	}
	printf("packets with a process: %u, not matching their PIB: %u\n", with, mismatch);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "count")) {
		struct frame *f;

		size_t n = read_all(argv[2], &f);

		printf("%zu\n", n);
		free_all(f, n);
		return 0;
	}
	if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "--no-ip6-igmp"))) &&
	    !strcmp(argv[1], "same"))
		return cmd_same(argv[2], argv[3], argc == 5);
	if (argc == 3 && !strcmp(argv[1], "times"))
		return cmd_times(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "isb"))
		return cmd_isb(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "blocks"))
		return cmd_blocks(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "order"))
		return cmd_order(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "processes"))
		return cmd_processes(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "extract"))
		return cmd_extract(argv[2], argv[3], argv[4], argv[5]);
	fprintf(stderr, "usage: pcapcheck count|times|isb|order|blocks|processes FILE | "
			"same SENT CAPTURED [--no-ip6-igmp] | "
			"extract FILE IFNAME DESCR OUT\n");
	return 2;
}
