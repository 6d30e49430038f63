// SPDX-License-Identifier: GPL-2.0-only
/* Timestamps and dumps follow tcpdump 4.99's util-print.c and print-ascii.c. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include "hooks.h"
#include "printer.h"

/* An interface of this machine by index, for the decoder (Linux cooked
 * v2 captures name theirs as tcpdump does). */
static bool local_ifname(uint32_t ifindex, char *buf, size_t size)
{
	char name[IF_NAMESIZE];

	if (!if_indextoname(ifindex, name))
		return false;
	snprintf(buf, size, "%s", name);
	return true;
}

void ps_printer_init(struct ps_printer *p, const struct ps_print_opts *o, FILE *f)
{
	memset(p, 0, sizeof(*p));
	p->o = *o;
	p->f = f;
	ps_decoder_init(&p->dec, o->link, o->quiet);
	p->dec.ifname = local_ifname;
}

void ps_printer_free(struct ps_printer *p)
{
	ps_decoder_free(&p->dec);
}

static bool is_graph(uint8_t c)
{
	return c > 0x20 && c <= 0x7e;
}

/* HH:MM:SS.uuuuuu (or with the date), local time or UTC. */
static void print_hms(FILE *f, uint64_t us, bool date, bool utc)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;
	char s[32];

	if ((us / 1000000) & 0x80000000u || !(utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm))) {
		fputs("[Error converting time]", f);
		return;
	}
	strftime(s, sizeof(s), date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
	fprintf(f, "%s.%06u", s, (unsigned int)(us % 1000000));
}

static void print_ts(struct ps_printer *p, uint64_t ts_ns)
{
	uint64_t us = ts_ns / 1000;
	bool negative;

	switch (p->o.ts) {
	case PS_TS_NONE:
		return;
	case PS_TS_UNIX:
		fprintf(p->f, "%u.%06u ", (unsigned int)(us / 1000000),
			(unsigned int)(us % 1000000));
		return;
	case PS_TS_DELTA:
	case PS_TS_SINCE_FIRST:
		if (!p->have_ref) {
			p->ref_us = us;
			p->have_ref = true;
		}
		negative = us < p->ref_us;
		fputc(negative ? '-' : ' ', p->f);
		print_hms(p->f, negative ? p->ref_us - us : us - p->ref_us, false, true);
		fputc(' ', p->f);
		if (p->o.ts == PS_TS_DELTA)
			p->ref_us = us;
		return;
	case PS_TS_DATE:
		print_hms(p->f, us, true, false);
		fputc(' ', p->f);
		return;
	default:
		print_hms(p->f, us, false, false);
		fputc(' ', p->f);
		return;
	}
}

/* -x: "\n\t0x0010:  4500 0054 ..." eight groups of two bytes a line. */
static void hex_dump(FILE *f, const uint8_t *cp, uint32_t len)
{
	uint32_t off = 0, i = 0;

	for (uint32_t n = len / 2; n; n--, cp += 2) {
		if (i++ % 8 == 0) {
			fprintf(f, "\n\t0x%04x: ", off);
			off += 16;
		}
		fprintf(f, " %02x%02x", cp[0], cp[1]);
	}
	if (len & 1) {
		if (i % 8 == 0)
			fprintf(f, "\n\t0x%04x: ", off);
		fprintf(f, " %02x", cp[0]);
	}
}

/* -X: the same with the bytes as ASCII beside them. */
static void hex_ascii_dump(FILE *f, const uint8_t *cp, uint32_t len)
{
	char hex[8 * 5 + 1], asc[17];
	uint32_t off = 0;

	for (uint32_t pos = 0; pos < len; pos += 16, off += 16) {
		uint32_t n = len - pos < 16 ? len - pos : 16;
		char *h = hex;

		for (uint32_t k = 0; k < n; k++) {
			if (k % 2 == 0)
				*h++ = ' ';
			h += sprintf(h, "%02x", cp[pos + k]);
			asc[k] = is_graph(cp[pos + k]) ? (char)cp[pos + k] : '.';
		}
		*h = 0;
		asc[n] = 0;
		fprintf(f, "\n\t0x%04x: %-40s  %s", off, hex, asc);
	}
}

/* -A: the bytes as text; what does not print is a dot. */
static void ascii_dump(FILE *f, const uint8_t *cp, uint32_t len)
{
	fputc('\n', f);
	while (len > 0) {
		uint8_t s = *cp++;

		len--;
		if (s == '\r') {
			/* A CR ending a line is dropped, as tcpdump does. */
			if (len > 1 && *cp != '\n')
				fputc('.', f);
		} else {
			fputc(!is_graph(s) && s != '\t' && s != ' ' && s != '\n' ? '.' : s, f);
		}
	}
}

int ps_print_packet(struct ps_printer *p, const struct ps_print_pkt *pkt)
{
	const struct ps_print_opts *o = &p->o;
	struct ps_decoded d;
	uint32_t from;

	ps_decode(&p->dec, pkt->linktype, pkt->data, pkt->cap_len, pkt->wire_len, p->text,
		  sizeof(p->text), &d);
	print_ts(p, pkt->ts_ns);
	if (pkt->ifname)
		fprintf(p->f, "%s ", pkt->ifname);
	if (pkt->hook)
		fprintf(p->f, "%s ", pkt->hook);
	if (pkt->verdict)
		fprintf(p->f, "%s ", pkt->verdict);
	else if (pkt->direction == 1 || pkt->direction == 2)
		fputs(pkt->direction == 1 ? "In " : "Out ", p->f);
	if (o->annotate && (pkt->comment || pkt->has_id || pkt->has_drops)) {
		fputc('[', p->f);
		if (pkt->comment)
			fputs(pkt->comment, p->f);
		if (pkt->has_id)
			fprintf(p->f, "%sid=%llu", pkt->comment ? " " : "",
				(unsigned long long)pkt->id);
		if (pkt->has_drops)
			fprintf(p->f, "%sdrops=%llu", pkt->comment || pkt->has_id ? " " : "",
				(unsigned long long)pkt->drops);
		fputs("] ", p->f);
	}
	fputs(p->text, p->f);
	/* tcpdump's default print of what it does not know; -x/-X/-q turn
	 * the hex-and-ASCII form off. */
	if (d.unknown && d.hex_only)
		hex_dump(p->f, d.unknown, d.unknown_len);
	else if (d.unknown && !o->hex && !o->hex_ascii && !o->quiet)
		hex_ascii_dump(p->f, d.unknown, d.unknown_len);
	from = d.link_len < pkt->cap_len ? d.link_len : pkt->cap_len;
	if (o->hex_ascii) {
		if (o->hex_ascii > 1)
			hex_ascii_dump(p->f, pkt->data, pkt->cap_len);
		else if (pkt->cap_len > from)
			hex_ascii_dump(p->f, pkt->data + from, pkt->cap_len - from);
	} else if (o->hex) {
		if (o->hex > 1)
			hex_dump(p->f, pkt->data, pkt->cap_len);
		else if (pkt->cap_len > from)
			hex_dump(p->f, pkt->data + from, pkt->cap_len - from);
	} else if (o->ascii) {
		if (o->ascii > 1)
			ascii_dump(p->f, pkt->data, pkt->cap_len);
		else if (pkt->cap_len > from)
			ascii_dump(p->f, pkt->data + from, pkt->cap_len - from);
	}
	if (fputc('\n', p->f) == EOF || ferror(p->f))
		return errno ? -errno : -EIO;
	return 0;
}

int ps_printer_flush(struct ps_printer *p)
{
	if (fflush(p->f) || ferror(p->f))
		return errno ? -errno : -EIO;
	return 0;
}

/* The live view's line: the packet as tcpdump -n would print it. */
static int printer_packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	struct ps_printer *pr = ps_sink_of(s, struct ps_printer, sink);
	const struct ps_meta *m = p->m;
	char comment[400];

	if (pr->o.annotate)
		ps_sink_comment(comment, sizeof(comment), p, pr->tag, PS_COMMENT_LINE);
	return ps_print_packet(pr, &(struct ps_print_pkt){
					   .ts_ns = p->ts_ns,
					   .linktype = p->t->linktype,
					   .data = p->data,
					   .cap_len = p->cap_len,
					   .wire_len = p->wire_len,
					   .ifname = p->t->ifname,
					   .hook = ps_hook_name(m->hook),
					   .direction = m->hook == PS_HOOK_TC_EGRESS ? 2 : 1,
					   .verdict = m->hook == PS_HOOK_XDP_EXIT ?
							      ps_xdp_verdict_name(m->verdict) :
						      p->drop ? p->drop->reason :
								NULL,
					   .comment = pr->o.annotate ? comment : NULL,
					   .has_id = true,
					   .id = p->packet_id,
					   .has_drops = true,
					   .drops = p->drops,
				   });
}

static int printer_round(struct ps_sink *s)
{
	return ps_printer_flush(ps_sink_of(s, struct ps_printer, sink));
}

/* The last round flushed every line; a reader gone after that changes
 * nothing about the capture, as with tcpdump. */
static int printer_close(struct ps_sink *s, bool ok)
{
	(void)ok;
	ps_printer_flush(ps_sink_of(s, struct ps_printer, sink));
	return 0;
}

static const struct ps_sink_ops printer_ops = {
	.packet = printer_packet,
	.round = printer_round,
	.close = printer_close,
};

struct ps_sink *ps_printer_sink(struct ps_printer *p, const char *tag)
{
	p->sink.ops = &printer_ops;
	p->tag = tag;
	return &p->sink;
}
