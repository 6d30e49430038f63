/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The drop hook's words: the kernel's drop reasons by name, read from the
 * running kernel's BTF (enum skb_drop_reason: its values differ between
 * versions, so no table is copied from one), and where in the kernel a
 * packet was freed, by symbol (/proc/kallsyms). Loaded once at the start
 * of a capture with --hook drop; the ingest hands the words to every sink.
 *
 * The parsing (ps_dropnames_add_btf, ps_dropnames_add_kallsyms) and the
 * look-ups are pure; ps_dropnames_load() reads the kernel's and logs.
 */
#ifndef PS_DROPNAMES_H
#define PS_DROPNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

struct ps_ksym {
	uint64_t addr;
	uint32_t name; /* offset in ps_dropnames.sym_names */
};

struct ps_dropnames {
	char **reasons; /* by value; NULL where the enum has none */
	uint32_t n_reasons;
	uint32_t consumed;    /* SKB_CONSUMED (no drop), or UINT32_MAX */
	struct ps_ksym *syms; /* kernel text symbols, by address */
	size_t n_syms;
	char *sym_names;
	size_t sym_names_len;
};

/*
 * Does the kernel have the kfree_skb tracepoint, and BTF? Then the names
 * of its reasons (where it has none, before 5.17: the one the drop hook
 * gives every drop) and the symbols. 0, or -errno with one line logged
 * that says what the kernel lacks.
 */
int ps_dropnames_load(struct ps_dropnames *d);
void ps_dropnames_free(struct ps_dropnames *d);

/* Pure: the reasons of BTF's enum skb_drop_reason into d; -ENOENT if the
 * BTF has no such enum, -ENOMEM. */
int ps_dropnames_add_btf(struct ps_dropnames *d, const struct btf *btf);
/* Pure: the one name of a kernel whose kfree_skb has no reason:
 * PS_DROP_REASON_NOT_SPECIFIED's. 0 or -ENOMEM. */
int ps_dropnames_add_unexplained(struct ps_dropnames *d);
/* Pure: /proc/kallsyms' text (len bytes) into d: the text symbols
 * ('t', 'T'), sorted. Lines it does not understand are skipped. 0 or
 * -ENOMEM. */
int ps_dropnames_add_kallsyms(struct ps_dropnames *d, const char *text, size_t len);

/* Pure: does the kernel have a reason of this name (as
 * ps_dropnames_reason gives it, "NO_SOCKET")? */
bool ps_dropnames_has(const struct ps_dropnames *d, const char *name);
/* A reason's name, without the enum's SKB_DROP_REASON_/SKB_ prefix
 * ("NO_SOCKET"); one the enum lacks as its number (a subsystem's reason:
 * "SUBSYS_n_0xCODE"; else "REASON_n"), written into buf. */
const char *ps_dropnames_reason(const struct ps_dropnames *d, uint32_t reason, char *buf,
				size_t len);
/* "symbol+0xoff", or the address in hex where no symbol covers it. */
void ps_dropnames_at(const struct ps_dropnames *d, uint64_t addr, char *buf, size_t len);

#endif
