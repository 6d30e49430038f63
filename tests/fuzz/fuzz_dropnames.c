// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drop hook's places from arbitrary kallsyms text (its first 8 bytes
 * the address asked about): never past the text or a buffer, always
 * terminated, and an address a symbol covers named by the nearest one at
 * or below it.
 */
#include <stdlib.h>
#include <string.h>
#include "dropnames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_dropnames d = { 0 };
	char at[128], reason[32];
	uint64_t addr = 0;

	if (size >= 8) {
		memcpy(&addr, data, 8);
		data += 8;
		size -= 8;
	}
	if (ps_dropnames_add_kallsyms(&d, (const char *)data, size))
		return 0;
	for (size_t i = 1; i < d.n_syms; i++)
		if (d.syms[i - 1].addr > d.syms[i].addr || d.syms[i].name >= d.sym_names_len)
			abort();
	memset(at, 'Z', sizeof(at));
	ps_dropnames_at(&d, addr, at, sizeof(at));
	if (!memchr(at, '\0', sizeof(at)))
		abort();
	/* No BTF here: every reason is a number, in bounds. */
	ps_dropnames_reason(&d, (uint32_t)addr, reason, sizeof(reason));
	if (!memchr(reason, '\0', sizeof(reason)))
		abort();
	ps_dropnames_free(&d);
	return 0;
}
