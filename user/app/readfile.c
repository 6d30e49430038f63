// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <pcap/pcap.h>
#include "capread.h"
#include "cbpf.h"
#include "cli.h"
#include "log.h"
#include "output.h"
#include "printer.h"
#include "readfile.h"
#include "readpath.h"
#include "words.h"

/* One compiled filter per link type met in the file (most files: one). */
#define MAX_LINKTYPES 8

struct filters {
	const char *expr;
	int n;
	int linktype[MAX_LINKTYPES];
	struct bpf_program prog[MAX_LINKTYPES];
};

/* The selection, written as it was read. */
struct copy {
	struct ps_output out;
	size_t n;
	uint8_t buf[64 << 10];
};

static int compile(struct filters *f, int linktype, struct bpf_program **prog)
{
	pcap_t *p;

	for (int i = 0; i < f->n; i++)
		if (f->linktype[i] == linktype) {
			*prog = &f->prog[i];
			return 0;
		}
	if (f->n == MAX_LINKTYPES) {
		pr_err("the file has more than %d link types\n", MAX_LINKTYPES);
		return -E2BIG;
	}
	p = pcap_open_dead(ps_cbpf_dlt(linktype), 262144);
	if (!p) {
		pr_err("cannot compile the filter: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (pcap_compile(p, &f->prog[f->n], f->expr, 1, PCAP_NETMASK_UNKNOWN)) {
		pr_err("bad filter expression: %s\n", pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	pcap_close(p);
	f->linktype[f->n] = linktype;
	*prog = &f->prog[f->n++];
	return 0;
}

static int copy_flush(struct copy *c)
{
	size_t off = 0;

	while (off < c->n) {
		ssize_t w = write(c->out.fd, c->buf + off, c->n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int err = -errno;

			pr_err("cannot write %s: %s\n", c->out.path, strerror(-err));
			return err;
		}
		off += (size_t)w;
	}
	c->n = 0;
	return 0;
}

static int copy_put(struct copy *c, const uint8_t *p, size_t len)
{
	while (len) {
		size_t room = sizeof(c->buf) - c->n, n = len < room ? len : room;
		int err;

		memcpy(c->buf + c->n, p, n);
		c->n += n;
		p += n;
		len -= n;
		if (c->n == sizeof(c->buf) && (err = copy_flush(c)))
			return err;
	}
	return 0;
}

/* A closed reader of the printed lines (| head) ends the reading quietly. */
static int print_error(int err)
{
	if (err == -EPIPE)
		return 1;
	pr_err("cannot print to stdout: %s\n", strerror(-err));
	return err;
}

/* What goes where the direction would: xdp-exit's verdict, a drop's
 * reason, from our EPB comment's words; NULL if neither. */
static const char *verdict_of(const char *comment, char *buf, size_t len)
{
	const char *v = ps_word_get(comment, PS_WORD_VERDICT, buf, len);

	return v ? v : ps_word_get(comment, PS_WORD_DROP, buf, len);
}

/* One packet record to the printer: its line, or with --path its place
 * in its packet's (readpath.h). 0, 1 at -c's count, or -errno. */
static int print_rec(struct ps_printer *pr, struct ps_readpath *rp,
		     const struct ps_capread_rec *rec)
{
	const struct ps_capread_if *i = rec->iface;
	/* Which interface, hook and direction in our files; another tool's
	 * file reads as tcpdump -r prints it. */
	bool where = i->hook != NULL;
	char verdict[48];

	if (rp)
		return ps_readpath_add(rp, rec);
	return ps_print_packet(pr, &(struct ps_print_pkt){
					   .ts_ns = rec->ts_ns,
					   .linktype = i->linktype,
					   .data = rec->data,
					   .cap_len = rec->cap_len,
					   .wire_len = rec->wire_len,
					   .ifname = where && i->name[0] ? i->name : NULL,
					   .hook = i->hook,
					   .direction = where ? rec->direction : 0,
					   .verdict = verdict_of(rec->comment, verdict,
								 sizeof(verdict)),
					   .comment = rec->comment[0] ? rec->comment : NULL,
					   .has_id = rec->has_id,
					   .id = rec->id,
					   .has_drops = rec->has_drops,
					   .drops = rec->drops,
				   });
}

static int read_all(struct ps_capread *r, const struct ps_readfile_cfg *o, struct filters *f,
		    struct copy *copy, struct ps_printer *pr, struct ps_readpath *rp)
{
	struct ps_capread_rec rec;
	uint64_t kept = 0;
	char err[320];
	int ret;

	while ((ret = ps_capread_next(r, &rec, err, sizeof(err))) > 0) {
		if (rec.kind == PS_REC_PACKET && f->expr) {
			struct pcap_pkthdr h = {
				.ts = { .tv_sec = (time_t)(rec.ts_ns / 1000000000),
					.tv_usec = (suseconds_t)(rec.ts_ns % 1000000000 / 1000) },
				.caplen = rec.cap_len,
				.len = rec.wire_len,
			};
			struct bpf_program *prog;

			ret = compile(f, rec.iface->linktype, &prog);
			if (ret)
				return ret;
			if (!pcap_offline_filter(prog, &h, rec.data))
				continue;
		}
		if (copy && (ret = copy_put(copy, rec.raw, rec.raw_len)))
			return ret;
		if (rec.kind != PS_REC_PACKET)
			continue;
		if (pr && (ret = print_rec(pr, rp, &rec)))
			return ret > 0 ? 0 : print_error(ret);
		/* --path counts packets, not records (readpath.h). */
		if (!rp && o->count && ++kept >= o->count)
			return 0;
	}
	if (ret < 0) {
		pr_err("%s\n", err);
		return -EIO; /* the file, not the command line */
	}
	if (rp && (ret = ps_readpath_finish(rp)))
		return ret > 0 ? 0 : print_error(ret);
	return ret;
}

int ps_readfile_run(const struct ps_readfile_cfg *o)
{
	static struct copy copy = { .out = { .fd = -1 } };
	struct filters f = { .expr = o->expr };
	struct ps_readpath *rp = NULL;
	struct ps_printer pr;
	bool print = o->print;
	struct ps_capread r;
	char err[320];
	int ret;

	signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error */
	ret = ps_capread_open(&r, o->path, err, sizeof(err));
	if (ret) {
		pr_err("%s\n", err);
		ps_capread_close(&r);
		return -EIO;
	}
	/* The expression is checked before the output is touched. */
	if (o->expr) {
		struct bpf_program *prog;

		ret = compile(&f, r.ng ? 1 : r.pcap_if.linktype, &prog);
		if (ret)
			goto out;
	}
	if (o->output) {
		ret = ps_output_open(&copy.out, o->output);
		if (!ret)
			ret = ps_output_start(&copy.out);
		if (ret)
			goto out;
	}
	if (print) {
		if (o->line_buffered)
			setvbuf(stdout, NULL, _IOLBF, 0);
		ps_printer_init(&pr, &o->print_opts, stdout);
	}
	if (print && o->by_packet && !(rp = ps_readpath_new(&pr, o->count))) {
		pr_err("cannot read %s: %s\n", o->path, strerror(ENOMEM));
		ps_printer_free(&pr);
		ret = -ENOMEM;
		goto out;
	}
	ret = read_all(&r, o, &f, o->output ? &copy : NULL, print ? &pr : NULL, rp);
	ps_readpath_free(rp);
	if (print) {
		int ferr = ps_printer_flush(&pr);

		if (ferr && ret == 0)
			ret = print_error(ferr);
		ps_printer_free(&pr);
	}
	if (ret == 1) /* the reader of the lines left */
		ret = 0;
	if (o->output) {
		int cerr = copy_flush(&copy);

		if (!ret)
			ret = cerr;
	}
out:
	if (copy.out.fd >= 0)
		ps_output_close(&copy.out);
	for (int i = 0; i < f.n; i++)
		pcap_freecode(&f.prog[i]);
	ps_capread_close(&r);
	return ret;
}
