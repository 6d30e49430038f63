// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "notify.h"

int ps_notify(const char *text)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	ssize_t n;
	int fd, err = 0;

	if (!path || !*path)
		return 0;
	/* An absolute path, or '@' for an abstract socket. */
	if ((path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, text, strlen(text), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
	if (n < 0)
		err = -errno;
	close(fd);
	return err ? err : 1;
}

int ps_notify_reloading(void)
{
	struct timespec ts;
	char text[80];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(text, sizeof(text), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ull +
			 (unsigned long long)ts.tv_nsec / 1000);
	return ps_notify(text);
}
