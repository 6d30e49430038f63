/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture file: opened before anything is attached (so an unwritable
 * path fails early), emptied only once the capture starts (so a failed
 * start leaves an existing file untouched), removed on a failed start if we
 * created it.
 */
#ifndef PS_OUTPUT_H
#define PS_OUTPUT_H

#include <stdbool.h>

struct ps_output {
	const char *path; /* as the user named it; "stdout" for '-' */
	int fd;
	bool created;  /* we made the file: remove it if setup fails */
	bool new_file; /* we made the file (stays true once it started) */
};

/* '-' is stdout (refused on a terminal: -ENOTTY). 0 or -errno, logged. */
int ps_output_open(struct ps_output *out, const char *path);
/* The capture starts: truncate a regular file. 0 or -errno, logged. */
int ps_output_start(struct ps_output *out);
/* Close; a file we created and never started is removed. */
void ps_output_close(struct ps_output *out);

#endif
