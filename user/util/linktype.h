/* SPDX-License-Identifier: GPL-2.0-only */
/* The link types pktsample writes and reads (pcap's LINKTYPE_* numbers):
 * shared by the devices (user/kernel/device.h), the filter, the outputs
 * and the printer. */
#ifndef PS_LINKTYPE_H
#define PS_LINKTYPE_H

/* Link types we decode (pcap LINKTYPE_*; 12 is DLT_RAW as Linux numbers
 * it, which files from Linux hold). */
#define PS_LINKTYPE_NULL 0
#define PS_LINKTYPE_ETHERNET 1
#define PS_LINKTYPE_RAW_DLT 12
#define PS_LINKTYPE_RAW 101
#define PS_LINKTYPE_LOOP 108
#define PS_LINKTYPE_LINUX_SLL 113
#define PS_LINKTYPE_IPV4 228
#define PS_LINKTYPE_IPV6 229
#define PS_LINKTYPE_LINUX_SLL2 276
#define PS_LINKTYPE_PPP 9
#define PS_LINKTYPE_PPP_HDLC 50
#define PS_LINKTYPE_PPP_ETHER 51

#endif
