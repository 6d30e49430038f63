/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wireshark asks what pktsample offers: its interfaces (with the help
 * link), their DLTs, the capture dialog, whether a capture filter is good
 * (user/app/extcap.h has the protocol's text, pure). The answer on stdout.
 */
#ifndef PS_EXTCAP_QUERY_H
#define PS_EXTCAP_QUERY_H

#include "cli.h"
#include "extcap.h"

/* 0, or -errno with the one line said. */
int ps_extcap_query(const struct ps_opts *o, enum ps_extcap_request req);

#endif
