/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Telling systemd (or anything that reads $NOTIFY_SOCKET, sd_notify(3)'s
 * protocol) how the service is: READY=1 once everything is attached,
 * RELOADING=1 while SIGHUP's configuration is applied, STOPPING=1, and a
 * STATUS= line. Without $NOTIFY_SOCKET, nothing is sent. No libsystemd:
 * the protocol is a datagram to a unix socket.
 */
#ifndef PS_NOTIFY_H
#define PS_NOTIFY_H

/* Send text (sd_notify's "KEY=VALUE\n..." lines): 1 sent, 0 no socket
 * to send to, -errno (not logged: systemd not listening is no reason to
 * stop a capture). */
int ps_notify(const char *text);
/* ps_notify of "RELOADING=1" with the MONOTONIC_USEC= systemd asks for. */
int ps_notify_reloading(void);

#endif
