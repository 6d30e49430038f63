// SPDX-License-Identifier: GPL-2.0-only
/*
 * psgen: a small traffic generator for pktsample's test environment.
 * Sends COUNT Ethernet frames of SIZE bytes out of an interface through an
 * AF_PACKET socket with sendmmsg(), IPv4 or IPv6, UDP or TCP, optionally
 * 802.1Q-tagged. Each frame carries a sequence number, and --write records
 * exactly what was sent (classic pcap) so captures can be compared byte for
 * byte. Output: one line, key=value, including the wall-clock send window.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#define MAX_FRAME 65535
#define MAX_BATCH 1024
#define PAYLOAD_MAGIC 0x5053474eu /* "PSGN" */

struct cfg {
	const char *iface;
	uint64_t count;
	unsigned int size;
	int vlan; /* -1 = untagged */
	bool ipv6, tcp;
	unsigned int flows;
	unsigned int batch;
	uint64_t rate; /* frames/s, 0 = as fast as possible */
	uint8_t dst_mac[6];
	const char *src_ip, *dst_ip;
	uint16_t dst_port;
	const char *write_path;
};

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "psgen: %s\n", msg);
	fprintf(stderr,
		"Usage: psgen -i IFACE [-n COUNT] [-s FRAME_SIZE] [--vlan ID] [-6] [--tcp]\n"
		"             [--flows N] [--batch N] [--rate PPS] [--dst-mac MAC]\n"
		"             [--src IP] [--dst IP] [--dst-port N] [--write FILE.pcap]\n");
	return 2;
}

static uint32_t csum_add(uint32_t sum, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (; n > 1; n -= 2, b += 2)
		sum += (uint32_t)b[0] << 8 | b[1];
	if (n)
		sum += (uint32_t)b[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* Build frame number seq into buf; returns the frame length. */
static unsigned int build_frame(const struct cfg *c, const uint8_t *src_mac, const void *sip,
				const void *dip, uint64_t seq, uint8_t *buf)
{
	unsigned int l3_off, l4_off, l4_len, hdr = c->tcp ? 20 : 8, i;
	uint8_t *l3, *l4, *pl;
	uint32_t sum;

	memset(buf, 0, c->size);
	memcpy(buf, c->dst_mac, 6);
	memcpy(buf + 6, src_mac, 6);
	l3_off = 12;
	if (c->vlan >= 0) {
		put16(buf + 12, ETH_P_8021Q);
		put16(buf + 14, c->vlan);
		l3_off = 16;
	}
	put16(buf + l3_off, c->ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	l3_off += 2;
	l3 = buf + l3_off;
	l4_off = l3_off + (c->ipv6 ? 40 : 20);
	l4 = buf + l4_off;
	l4_len = c->size - l4_off;

	if (c->ipv6) {
		l3[0] = 0x60;
		put16(l3 + 4, l4_len);
		l3[6] = c->tcp ? IPPROTO_TCP : IPPROTO_UDP;
		l3[7] = 64;
		memcpy(l3 + 8, sip, 16);
		memcpy(l3 + 24, dip, 16);
	} else {
		l3[0] = 0x45;
		put16(l3 + 2, c->size - l3_off);
		put16(l3 + 4, (uint16_t)seq);
		l3[8] = 64;
		l3[9] = c->tcp ? IPPROTO_TCP : IPPROTO_UDP;
		memcpy(l3 + 12, sip, 4);
		memcpy(l3 + 16, dip, 4);
		memcpy(l3 + 10, &(uint16_t){ csum_fold(csum_add(0, l3, 20)) }, 2);
	}

	put16(l4, 10000 + seq % c->flows); /* source port varies per flow */
	put16(l4 + 2, c->dst_port);
	if (c->tcp) {
		l4[4] = seq >> 24;
		l4[5] = seq >> 16;
		l4[6] = seq >> 8;
		l4[7] = seq;
		l4[12] = 5 << 4; /* data offset */
		l4[13] = 0x18;	 /* PSH|ACK */
		put16(l4 + 14, 65535);
	} else {
		put16(l4 + 4, l4_len);
	}
	pl = l4 + hdr;
	put16(pl, PAYLOAD_MAGIC >> 16);
	put16(pl + 2, PAYLOAD_MAGIC & 0xffff);
	for (i = 0; i < 8; i++)
		pl[4 + i] = seq >> (56 - 8 * i);
	for (i = 12; i < l4_len - hdr; i++)
		pl[i] = (uint8_t)(i + seq);

	/* Pseudo-header checksum over addresses, protocol and length. */
	sum = csum_add(0, sip, c->ipv6 ? 16 : 4);
	sum = csum_add(sum, dip, c->ipv6 ? 16 : 4);
	sum += (c->tcp ? IPPROTO_TCP : IPPROTO_UDP) + l4_len;
	sum = csum_add(sum, l4, l4_len);
	memcpy(l4 + (c->tcp ? 16 : 6), &(uint16_t){ csum_fold(sum) }, 2);
	return c->size;
}

static int parse_mac(const char *s, uint8_t *mac)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3],
		      &mac[4], &mac[5]) == 6 ?
		       0 :
		       -1;
}

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "vlan", required_argument, NULL, 'V' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "tcp", no_argument, NULL, 'T' },
		{ "flows", required_argument, NULL, 'f' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rate", required_argument, NULL, 'r' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "src", required_argument, NULL, 'S' },
		{ "dst", required_argument, NULL, 'D' },
		{ "dst-port", required_argument, NULL, 'p' },
		{ "write", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct cfg c = { .count = 1,
			 .size = 64,
			 .vlan = -1,
			 .flows = 1,
			 .batch = 64,
			 .dst_mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
			 .dst_port = 9 };
	static uint8_t frames[MAX_BATCH][MAX_FRAME > 9216 ? 9216 : MAX_FRAME];
	static uint8_t big[MAX_FRAME];
	struct mmsghdr msgs[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	uint8_t sip[16], dip[16], src_mac[6];
	pcap_dumper_t *dump = NULL;
	pcap_t *dead = NULL;
	uint64_t sent = 0, t0, t1, rt0, rt1;
	unsigned int min_size;
	struct ifreq ifr;
	int opt, fd;

	while ((opt = getopt_long(argc, argv, "i:n:s:6w:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			c.iface = optarg;
			break;
		case 'n':
			c.count = strtoull(optarg, NULL, 0);
			break;
		case 's':
			c.size = strtoul(optarg, NULL, 0);
			break;
		case 'V':
			c.vlan = atoi(optarg) & 0xfff;
			break;
		case '6':
			c.ipv6 = true;
			break;
		case 'T':
			c.tcp = true;
			break;
		case 'f':
			c.flows = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			c.batch = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			c.rate = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			if (parse_mac(optarg, c.dst_mac))
				return usage("bad --dst-mac");
			break;
		case 'S':
			c.src_ip = optarg;
			break;
		case 'D':
			c.dst_ip = optarg;
			break;
		case 'p':
			c.dst_port = atoi(optarg);
			break;
		case 'w':
			c.write_path = optarg;
			break;
		case 'h':
			return usage(NULL), 0;
		default:
			return usage(NULL);
		}
	}
	if (!c.iface)
		return usage("-i IFACE is required");
	min_size = 14 + (c.vlan >= 0 ? 4 : 0) + (c.ipv6 ? 40 : 20) + (c.tcp ? 20 : 8) + 12;
	if (c.size < min_size || c.size > MAX_FRAME)
		return fprintf(stderr, "psgen: size must be %u..%u for these headers\n", min_size,
			       MAX_FRAME),
		       2;
	if (!c.flows || !c.batch || c.batch > MAX_BATCH)
		return usage("--flows and --batch must be 1..1024");
	if (c.size > sizeof(frames[0]))
		c.batch = 1; /* huge frames are built one at a time */
	if (!c.src_ip)
		c.src_ip = c.ipv6 ? "2001:db8::1" : "192.0.2.1";
	if (!c.dst_ip)
		c.dst_ip = c.ipv6 ? "2001:db8::2" : "192.0.2.2";
	if (inet_pton(c.ipv6 ? AF_INET6 : AF_INET, c.src_ip, sip) != 1 ||
	    inet_pton(c.ipv6 ? AF_INET6 : AF_INET, c.dst_ip, dip) != 1)
		return usage("bad --src/--dst for the address family");

	fd = socket(AF_PACKET, SOCK_RAW, 0); /* protocol 0: send only */
	if (fd < 0)
		return perror("psgen: socket"), 1;
	sll.sll_ifindex = if_nametoindex(c.iface);
	if (!sll.sll_ifindex)
		return fprintf(stderr, "psgen: unknown interface %s\n", c.iface), 1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c.iface);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		return perror("psgen: SIOCGIFHWADDR"), 1;
	memcpy(src_mac, ifr.ifr_hwaddr.sa_data, 6);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		return perror("psgen: bind"), 1;

	if (c.write_path) {
		dead = pcap_open_dead(DLT_EN10MB, MAX_FRAME);
		dump = dead ? pcap_dump_open(dead, c.write_path) : NULL;
		if (!dump)
			return fprintf(stderr, "psgen: cannot write %s: %s\n", c.write_path,
				       dead ? pcap_geterr(dead) : "?"),
			       1;
	}

	rt0 = now_ns(CLOCK_REALTIME);
	t0 = now_ns(CLOCK_MONOTONIC);
	while (sent < c.count) {
		unsigned int n = c.count - sent < c.batch ? c.count - sent : c.batch;
		int r;

		for (unsigned int i = 0; i < n; i++) {
			uint8_t *buf = c.size > sizeof(frames[0]) ? big : frames[i];

			iov[i].iov_base = buf;
			iov[i].iov_len = build_frame(&c, src_mac, sip, dip, sent + i, buf);
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		if (c.rate) { /* pace: batch k leaves no earlier than k*batch/rate */
			uint64_t due = t0 + sent * 1000000000ull / c.rate;
			struct timespec ts = { due / 1000000000ull, due % 1000000000ull };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)
				continue;
			perror("psgen: sendmmsg");
			return 1;
		}
		if (dump) {
			for (int i = 0; i < r; i++) {
				struct pcap_pkthdr h = { .caplen = iov[i].iov_len,
							 .len = iov[i].iov_len };
				uint64_t ns = now_ns(CLOCK_REALTIME);

				h.ts.tv_sec = ns / 1000000000ull;
				h.ts.tv_usec = ns % 1000000000ull / 1000;
				pcap_dump((u_char *)dump, &h, iov[i].iov_base);
			}
		}
		sent += r;
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	rt1 = now_ns(CLOCK_REALTIME);
	if (dump)
		pcap_dump_close(dump);
	if (dead)
		pcap_close(dead);
	printf("sent=%llu seconds=%.6f pps=%.0f start_ns=%llu end_ns=%llu\n",
	       (unsigned long long)sent, (t1 - t0) / 1e9, t1 > t0 ? sent * 1e9 / (t1 - t0) : 0.0,
	       (unsigned long long)rt0, (unsigned long long)rt1);
	close(fd);
	return 0;
}
