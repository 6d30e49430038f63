// SPDX-License-Identifier: GPL-2.0-only
/*
 * -r on an arbitrary file: the pcap/pcapng reader, then every packet
 * through the printer (decoder, timestamps, dumps) as -r -e -X -v would,
 * and as -r --path would (its records joined by id, readpath.h). A file is
 * refused with one line, or read to its end; nothing reads out of bounds.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "capread.h"
#include "printer.h"
#include "readpath.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", 0);
	char path[64], err[320];
	struct ps_capread r;
	struct ps_capread_rec rec;
	struct ps_printer pr;
	struct ps_readpath *rp;
	FILE *out = fopen("/dev/null", "w");
	int ret;

	if (fd < 0 || !out || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ps_printer_init(&pr,
			&(struct ps_print_opts){ .link = true, .hex_ascii = 2, .annotate = true },
			out);
	rp = ps_readpath_new(&pr, 0);
	if (!rp)
		abort();
	ret = ps_capread_open(&r, path, err, sizeof(err));
	while (ret >= 0 && (ret = ps_capread_next(&r, &rec, err, sizeof(err))) > 0) {
		if (rec.kind != PS_REC_PACKET)
			continue;
		if (rec.cap_len > rec.raw_len || rec.data < rec.raw ||
		    rec.data + rec.cap_len > rec.raw + rec.raw_len)
			abort();
		ps_print_packet(&pr, &(struct ps_print_pkt){
					     .ts_ns = rec.ts_ns,
					     .linktype = rec.iface->linktype,
					     .data = rec.data,
					     .cap_len = rec.cap_len,
					     .wire_len = rec.wire_len,
					     .ifname = rec.iface->name[0] ? rec.iface->name : NULL,
					     .hook = rec.iface->hook,
					     .direction = rec.direction,
					     .comment = rec.comment[0] ? rec.comment : NULL,
					     .has_id = rec.has_id,
					     .id = rec.id,
				     });
		ps_readpath_add(rp, &rec);
	}
	ps_readpath_finish(rp);
	ps_readpath_free(rp);
	if (ret < 0 && (!err[0] || strchr(err, '\n')))
		abort();
	ps_capread_close(&r);
	ps_printer_free(&pr);
	fclose(out);
	close(fd);
	return 0;
}
