/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The clsact guardian: a clsact filter, unlike a BPF link, stays attached
 * when the process that attached it is killed (SIGKILL, the OOM killer).
 * So where a capture will attach through clsact, it first forks a small
 * process that holds nothing but a pipe from it (or, where an interface
 * needs clsact when tcx was expected, forks it then, holding no descriptor
 * of the capture's but the pipe): told each filter the
 * capture attaches and each it removes, it removes exactly the ones left
 * when the pipe's other end closes without a goodbye, that is, when the
 * capture died, however it died. It ignores the signals a terminal or a
 * service manager sends the capture (they are the capture's to handle),
 * and it keeps the privilege the capture may drop with -Z. Should the
 * guardian be killed too, the next start on that hook removes what was
 * left (clsact.h).
 */
#ifndef PS_GUARDIAN_H
#define PS_GUARDIAN_H

#include "clsact.h"

/* Once, from main: the memory of argv's strings (argv[0] to the end of the
 * last), which the guardian's process overwrites with its own name. */
void ps_guardian_set_title_area(char *start, size_t len);
/* Fork the guardian; the write end of its pipe, or -errno (logged). */
int ps_guardian_start(void);
/* Tell the guardian c was attached (attached true) or removed. Closing
 * fd with nothing attached lets it go. */
void ps_guardian_tell(int fd, const struct ps_clsact *c, bool attached);

#endif
