// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include "split.h"

int ps_split_sample(const void *raw, size_t raw_size, struct ps_meta *meta, const uint8_t **pkt)
{
	size_t need;

	if (!raw || raw_size < sizeof(*meta))
		return -EPROTO;
	/* Raw data sits 4 bytes past an 8-byte boundary: copy, don't cast. */
	memcpy(meta, raw, sizeof(*meta));
	if (meta->version != PS_META_VERSION || meta->hook >= PS_HOOK_MAX)
		return -EPROTO;
	if (meta->cap_len > meta->wire_len || meta->cap_len > PS_SNAPLEN_MAX ||
	    meta->net_off > meta->cap_len)
		return -EPROTO;
	need = sizeof(*meta) + meta->cap_len;
	if (raw_size < need || raw_size - need >= 8)
		return -EPROTO;
	*pkt = (const uint8_t *)raw + sizeof(*meta);
	return 0;
}

const uint8_t *ps_frame_on_wire(const struct ps_meta *meta, const uint8_t *pkt, uint8_t *out,
				uint32_t snaplen, uint32_t *cap_len, uint32_t *wire_len)
{
	uint16_t tag[2];
	uint32_t off = meta->net_off <= meta->cap_len ? meta->net_off : meta->cap_len;
	uint32_t cap = meta->cap_len - off;

	/* What the hook was given in front of the packet is not the packet. */
	pkt += off;
	*cap_len = cap;
	*wire_len = meta->wire_len > off ? meta->wire_len - off : 0;
	if (!(meta->flags & PS_F_VLAN_OOB))
		return pkt;

	/* Saturate: a corrupt wire_len near 2^32 must not wrap below cap_len. */
	*wire_len = *wire_len > UINT32_MAX - PS_VLAN_HLEN ? UINT32_MAX : *wire_len + PS_VLAN_HLEN;
	if (cap < PS_ETH_ADDRS_LEN)
		return pkt; /* the tag's place was not captured */

	tag[0] = meta->vlan_proto; /* already network order */
	tag[1] = htons(meta->vlan_tci);
	memcpy(out, pkt, PS_ETH_ADDRS_LEN);
	memcpy(out + PS_ETH_ADDRS_LEN, tag, PS_VLAN_HLEN);
	memcpy(out + PS_ETH_ADDRS_LEN + PS_VLAN_HLEN, pkt + PS_ETH_ADDRS_LEN,
	       cap - PS_ETH_ADDRS_LEN);
	cap += PS_VLAN_HLEN;
	*cap_len = cap < snaplen ? cap : snaplen;
	return out;
}
