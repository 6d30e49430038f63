/* SPDX-License-Identifier: GPL-2.0-only */
/* When the kernel's buffers wake their reader: one rule for the perf
 * buffers' watermark (user/ingest/) and the ring's programs' mark, a knob
 * the loader sets. */
#ifndef PS_WAKE_H
#define PS_WAKE_H

#include <stdint.h>

/*
 * The kernel wakes the reader each time this much more of a buffer of
 * `size` bytes (a power of two) has been written: a sixteenth, the perf
 * buffers' wakeup watermark and the ring's programs' mark; a round reads
 * at most as much of a buffer. A per-record wakeup would cost the sender
 * most of its rate. In fast bulk transfers at tcpdump's -B 4096, through
 * the perf buffers, a quarter lost more packets than an eighth and an
 * eighth more than a sixteenth (the ring the same either way), and a
 * thirty-second more again (doc/performance.md#wakeups): a reader woken
 * sooner and holding less per round leaves the producer more room.
 */
static inline uint64_t ps_source_wake_bytes(uint64_t size)
{
	return size / 16;
}

#endif
