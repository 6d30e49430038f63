/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * For tests: one EPB from a struct pcapng_epb, its options encoded on the
 * way (or taken from e->opts), through the writer's public packet path.
 * The capture encodes options once and writes with pcapng_write_packet;
 * tests write a packet whole, with every field at hand.
 */
#ifndef PS_TEST_PCAPNG_EPB_H
#define PS_TEST_PCAPNG_EPB_H

#include "pcapng.h"

int pcapng_write_epb(struct pcapng_writer *w, const struct pcapng_epb *e);

#endif
