/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pktsample as a service: --config FILE (its settings, then the command
 * line's, parsed as one command line: user/app/config.h), SIGHUP reading it
 * again into the running capture (what changes in place, what needs a
 * restart: ps_capture_reload), and systemd's readiness protocol
 * (user/util/notify.h). The file's options live here, from the first load
 * to ps_service_end(): the capture points into them.
 */
#ifndef PS_SERVICE_H
#define PS_SERVICE_H

#include "capture.h"
#include "cli.h"

/* The file at path and argv, checked; *opts the result, the service's. 0,
 * or -EINVAL/-ENOMEM with the one line said ("FILE:LINE: why"). */
int ps_service_load(int argc, char **argv, const char *path, struct ps_opts **opts);
/* systemd: ready (again), capturing on so many interfaces. */
void ps_service_ready(const struct ps_capture *cap);
/* SIGHUP: the file again. One that does not parse, or asks for what only a
 * restart can do, is one line, and the capture goes on as it was. */
void ps_service_reload(struct ps_capture *cap);
/* Everything the loads kept. */
void ps_service_end(void);

#endif
