/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration file (--config FILE), for running as a service: one
 * setting a line, the long option's name and its value,
 *
 *     # comment
 *     iface veth*
 *     sample 256
 *     sflow 192.0.2.10
 *     filter not port 22
 *
 * made into the command line's own arguments ("--iface=veth*"), so the
 * file and the command line mean the same and are checked by the same
 * parser (cli.c). The value is the rest of the line, blanks at its ends
 * trimmed. Parsing is pure; ps_config_read reads the file.
 */
#ifndef PS_CONFIG_H
#define PS_CONFIG_H

#include <stddef.h>

struct ps_config {
	char **args; /* "--name" or "--name=value", one per setting */
	int *lines;  /* the line of each */
	int n;
};

/*
 * text (len bytes) into c: 0, or -EINVAL with "LINE: why" in err (the
 * first bad line: an unknown setting, one that is not for a file, a value
 * missing or one too many), or -ENOMEM. c is empty on failure.
 */
int ps_config_parse(const char *text, size_t len, struct ps_config *c, char *err, size_t errlen);
/* ps_config_parse on the file at path: errors read "PATH:LINE: why", or
 * "PATH: why" when it cannot be read (-errno). */
int ps_config_read(const char *path, struct ps_config *c, char *err, size_t errlen);
void ps_config_free(struct ps_config *c);

#endif
