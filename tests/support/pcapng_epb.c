// SPDX-License-Identifier: GPL-2.0-only
#include "pcapng_epb.h"

int pcapng_write_epb(struct pcapng_writer *w, const struct pcapng_epb *e)
{
	struct pcapng_epb_opts fresh;

	if (!e->opts)
		pcapng_epb_opts_encode(&fresh, e);
	return pcapng_write_packet(w, &(struct pcapng_packet){
					      .if_id = e->if_id,
					      .cap_len = e->cap_len,
					      .wire_len = e->wire_len,
					      .has_packet_id = e->has_packet_id,
					      .ts_ns = e->ts_ns,
					      .data = e->data,
					      .packet_id = e->packet_id,
					      .drop_count = e->drop_count,
					      .opts = e->opts ? e->opts : &fresh,
				      });
}
