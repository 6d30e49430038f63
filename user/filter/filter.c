// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "linktype.h"
#include "filter.h"

_Static_assert(sizeof(struct ps_cbpf_insn) == sizeof(struct sock_filter),
	       "ps_cbpf_insn mirrors the kernel's sock_filter");

char *ps_filter_join(char *const *words, int n)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	*s = '\0';
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

int ps_filter_read_file(const char *path, char **expr, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *line = NULL;
	size_t len = 0, cap = 0;
	ssize_t got;
	int ret = 0;

	*expr = NULL;
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot read filter file %s: %s", path, strerror(-ret));
		return ret;
	}
	/* Lines are joined with spaces; '#' starts a comment to end of line. */
	errno = 0;
	while ((got = getline(&line, &cap, f)) >= 0) {
		char *hash = strchr(line, '#');
		size_t n;
		char *nb;

		if (hash)
			*hash = '\0';
		n = strcspn(line, "\r\n");
		nb = realloc(buf, len + n + 2);
		if (!nb) {
			ret = -ENOMEM;
			break;
		}
		buf = nb;
		memcpy(buf + len, line, n);
		len += n;
		buf[len++] = ' ';
		buf[len] = '\0';
	}
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO; /* a directory: EISDIR */
	free(line);
	fclose(f);
	if (ret) {
		snprintf(err, errlen, "cannot read filter file %s: %s", path, strerror(-ret));
		free(buf);
		return ret;
	}
	if (buf) { /* one line, single spaces: it goes into if_filter */
		char *w = buf;

		for (char *r = buf; *r; r++) {
			bool space = *r == ' ' || *r == '\t';

			if (space && (w == buf || w[-1] == ' '))
				continue;
			*w++ = space ? ' ' : *r;
		}
		if (w > buf && w[-1] == ' ')
			w--;
		*w = '\0';
	}
	if (!buf || !*buf) {
		snprintf(err, errlen, "filter file %s holds no expression", path);
		free(buf);
		return -EINVAL;
	}
	*expr = buf;
	return 0;
}

static bool rejects_everything(const struct ps_cbpf_insn *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (BPF_CLASS(p[i].code) == BPF_RET && (BPF_RVAL(p[i].code) != BPF_K || p[i].k))
			return false;
	return true;
}

/* Is word a whole word of expr (between non-identifier characters)? */
static bool has_word(const char *expr, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(expr, word); p; p = strstr(p + 1, word)) {
		bool start = p == expr || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_');

		if (start && end)
			return true;
	}
	return false;
}

static void code_free(struct ps_filter_code *c)
{
	free(c->cbpf);
	ps_ebpf_free(&c->xdp);
	ps_ebpf_free(&c->tc);
	ps_ebpf_free(&c->xdp_tag);
	ps_ebpf_free(&c->xdp_trace);
	ps_ebpf_free(&c->xdp_linear);
	memset(c, 0, sizeof(*c));
}

/* Compile for linktype and translate for each program kind, into c (left
 * empty on failure); err says why not. */
static int build_code(struct ps_filter_code *c, const char *expr, int linktype, uint32_t snaplen,
		      char *err, size_t errlen)
{
	char why[256];
	int ret;

	ret = ps_cbpf_compile(expr, linktype, snaplen, &c->cbpf, &c->n_cbpf, err, errlen);
	if (!ret && rejects_everything(c->cbpf, c->n_cbpf)) {
		snprintf(err, errlen, "bad filter expression: it rejects every packet");
		ret = -EINVAL;
	} else if (!ret) {
		ret = ps_xlate((const struct sock_filter *)c->cbpf, c->n_cbpf, PS_XLATE_XDP,
			       &c->xdp, why, sizeof(why));
		if (!ret)
			ret = ps_xlate((const struct sock_filter *)c->cbpf, c->n_cbpf, PS_XLATE_TC,
				       &c->tc, why, sizeof(why));
		if (!ret)
			ret = ps_xlate((const struct sock_filter *)c->cbpf, c->n_cbpf,
				       PS_XLATE_XDP_TAG, &c->xdp_tag, why, sizeof(why));
		if (!ret)
			ret = ps_xlate((const struct sock_filter *)c->cbpf, c->n_cbpf,
				       PS_XLATE_XDP_TRACE, &c->xdp_trace, why, sizeof(why));
		if (!ret)
			ret = ps_xlate((const struct sock_filter *)c->cbpf, c->n_cbpf,
				       PS_XLATE_XDP_LINEAR, &c->xdp_linear, why, sizeof(why));
		if (ret)
			snprintf(err, errlen, "filter cannot run in the kernel: %s", why);
	}
	if (ret)
		code_free(c);
	return ret;
}

int ps_filter_build(struct ps_filter *f, char *expr, uint32_t snaplen, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->expr = expr;
	f->snaplen = snaplen;
	/* libpcap makes these an ancillary load of the socket's packet type,
	 * which a hook has no use for: the hook is the direction. */
	if (has_word(expr, "inbound") || has_word(expr, "outbound")) {
		snprintf(err, errlen,
			 "bad filter expression: 'inbound' and 'outbound' are not "
			 "supported; choose the direction with -Q in or -Q out");
		return -EINVAL;
	}
	return build_code(&f->eth, expr, PS_LINKTYPE_ETHERNET, snaplen, err, errlen);
}

int ps_filter_build_raw(struct ps_filter *f, char *err, size_t errlen)
{
	if (f->raw.cbpf)
		return 0;
	return build_code(&f->raw, f->expr, PS_LINKTYPE_RAW, f->snaplen, err, errlen);
}

void ps_filter_free(struct ps_filter *f)
{
	free(f->expr);
	code_free(&f->eth);
	code_free(&f->raw);
	memset(f, 0, sizeof(*f));
}

static void dump_code(FILE *out, const char *what, const struct ps_filter_code *c)
{
	fprintf(out, "; cBPF from libpcap%s, %zu instructions\n", what, c->n_cbpf);
	ps_cbpf_dump(out, c->cbpf, c->n_cbpf);
	fprintf(out, "\n; eBPF for the XDP hook%s, %zu instructions\n", what, c->xdp.n);
	ps_ebpf_dump(out, c->xdp.insns, c->xdp.n);
	fprintf(out,
		"\n; eBPF for the TC hooks%s, %zu instructions "
		"(second half: VLAN tag out of band)\n",
		what, c->tc.n);
	ps_ebpf_dump(out, c->tc.insns, c->tc.n);
	fprintf(out,
		"\n; eBPF for xdp-entry and xdp-exit (around another XDP program)%s, "
		"%zu instructions\n",
		what, c->xdp_trace.n);
	ps_ebpf_dump(out, c->xdp_trace.insns, c->xdp_trace.n);
}

void ps_filter_dump(FILE *out, struct ps_filter *f)
{
	char err[256];

	fprintf(out, "; filter: %s\n", f->expr);
	dump_code(out, "", &f->eth);
	fprintf(out,
		"\n; devices without a link-layer header (link type RAW: tun, wireguard, ...)\n");
	if (ps_filter_build_raw(f, err, sizeof(err)))
		fprintf(out, "; %s\n", err);
	else
		dump_code(out, " (RAW)", &f->raw);
}
