// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trigger.h"

#define LINKTYPE_ETHERNET 1
#define REASON_PREFIX "SKB_DROP_REASON_"

/* A reason as the kernel's enum names it: capitals, digits, '_'. */
static bool reason_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isupper((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

int ps_trigger_parse(struct ps_trigger *t, const char *text, uint32_t snaplen, char *err,
		     size_t errlen)
{
	*t = (struct ps_trigger){ .text = text, .snaplen = snaplen };
	if (!strcmp(text, "drop")) {
		t->kind = PS_TRIGGER_DROP;
		return 0;
	}
	if (!strncmp(text, "drop:", 5)) {
		t->kind = PS_TRIGGER_DROP;
		t->reason = text + 5;
		if (!strncmp(t->reason, REASON_PREFIX, strlen(REASON_PREFIX)))
			t->reason += strlen(REASON_PREFIX);
		if (!reason_word(t->reason)) {
			snprintf(err, errlen,
				 "'%s' is no drop reason (the kernel's names: NO_SOCKET, "
				 "TCP_CSUM, ...)",
				 text + 5);
			return -EINVAL;
		}
		return 0;
	}
	t->kind = PS_TRIGGER_FILTER;
	t->prog[0].linktype = LINKTYPE_ETHERNET;
	if (ps_cbpf_compile(text, LINKTYPE_ETHERNET, snaplen, &t->prog[0].insns, &t->prog[0].n, err,
			    errlen))
		return -EINVAL;
	t->n_prog = 1;
	return 0;
}

/* The expression for linktype; NULL where it cannot apply (an Ethernet
 * address on raw IP) or there is no room to keep it. */
static const struct ps_cbpf_insn *prog_for(struct ps_trigger *t, int linktype)
{
	char err[256];
	int i;

	for (i = 0; i < t->n_prog; i++)
		if (t->prog[i].linktype == linktype)
			return t->prog[i].insns;
	if (i == PS_TRIGGER_LINKTYPES)
		return NULL;
	t->prog[i].linktype = linktype;
	if (ps_cbpf_compile(t->text, linktype, t->snaplen, &t->prog[i].insns, &t->prog[i].n, err,
			    sizeof(err)))
		t->prog[i].insns = NULL; /* never matches there */
	t->n_prog++;
	return t->prog[i].insns;
}

bool ps_trigger_match(struct ps_trigger *t, const struct ps_sink_pkt *p, int linktype)
{
	const struct ps_cbpf_insn *insns;

	if (t->kind == PS_TRIGGER_DROP)
		return p->drop && (!t->reason || !strcmp(t->reason, p->drop->reason));
	insns = prog_for(t, linktype);
	return insns && ps_cbpf_filter(insns, p->data, p->cap_len, p->wire_len) != 0;
}

void ps_trigger_free(struct ps_trigger *t)
{
	for (int i = 0; i < t->n_prog; i++)
		free(t->prog[i].insns);
	t->n_prog = 0;
}
