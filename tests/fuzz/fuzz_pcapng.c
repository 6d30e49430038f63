// SPDX-License-Identifier: GPL-2.0-only
/*
 * Samples through the ingest into the capture-file sink, and the file read
 * back by a strict walker: whatever the samples hold (malformed ones are
 * counted and dropped), the output is whole blocks, each packet block's
 * lengths agree, and every packet has an interface described before it.
 * Input: records of [cpu u8][size u16][raw sample], a cpu byte of 0xff
 * settles the CPUs up to the next 8 bytes as a time.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include "capfile.h"
#include "ingest.h"
#include "pcapng.h"
#include "support/pcapng_walk.h"

#define NCPUS 4

static struct ps_ingest col;
static struct ps_capfile file;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_target targets[2] = {
		{ .ifname = "veth0", .ifindex = 5, .hook = PS_HOOK_XDP },
		{ .ifname = "veth0", .ifindex = 5, .hook = PS_HOOK_TC_EGRESS },
	};
	struct ps_capfile_iface idb[2] = { { .description = "x" }, { .description = "x" } };
	int fd = memfd_create("fuzz", 0);
	struct pn_block b;
	size_t off = 0, end;
	uint8_t *bytes;
	char path[64];
	int ifaces = 0, r;

	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (ps_capfile_open(&file, &(struct ps_capfile_cfg){ .output = path, .snaplen = 256 },
			    NULL) ||
	    ps_capfile_start(&file, targets, idb, 2, NCPUS, NULL, 0) ||
	    ps_ingest_init(&col, targets, 2, NCPUS, 256, 0) ||
	    ps_ingest_add_sink(&col, ps_capfile_sink(&file)))
		abort();
	while (off + 3 <= size) {
		uint8_t cpu = data[off];
		size_t n = (size_t)(data[off + 1] | data[off + 2] << 8);

		off += 3;
		if (cpu == 0xff) {
			uint64_t t = 0;

			memcpy(&t, data + off, size - off < 8 ? size - off : 8);
			for (int c = 0; c < NCPUS; c++)
				ps_ingest_settle(&col, c, t);
			ps_ingest_release(&col, false);
			continue;
		}
		if (n > size - off)
			n = size - off;
		ps_ingest_sample(&col, cpu % NCPUS, data + off, (uint32_t)n);
		off += n;
	}
	ps_ingest_release(&col, true);
	pcapng_flush(file.w);
	ps_ingest_free(&col);
	ps_capfile_free(&file);

	end = (size_t)lseek(fd, 0, SEEK_END);
	bytes = malloc(end ? end : 1);
	if (pread(fd, bytes, end, 0) != (ssize_t)end)
		abort();
	close(fd);
	off = 0;
	while ((r = pn_next(bytes, end, &off, &b)) == 1) {
		if (b.type == 1)
			ifaces++;
		if (b.type == 6) {
			uint32_t if_id, cap, wire;

			memcpy(&if_id, b.data + 8, 4);
			memcpy(&cap, b.data + 20, 4);
			memcpy(&wire, b.data + 24, 4);
			if ((int)if_id >= ifaces || cap > wire || 28 + cap + 4 > b.len)
				abort();
		}
	}
	if (r != 0)
		abort(); /* a block that does not parse */
	free(bytes);
	return 0;
}
