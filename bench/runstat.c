// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run a command and report the CPU it used and its peak RSS, like
 * /usr/bin/time but to the microsecond: a capture of a flood costs so
 * little CPU that time(1)'s two decimals round away the differences the
 * benchmark is after.
 *
 * Usage: bench_runstat OUTFILE CMD [ARG...]
 * Writes "user_s sys_s maxrss_kib" to OUTFILE; exits with CMD's status.
 * SIGINT and SIGTERM are left to CMD (the benchmark stops captures with
 * them), so this process outlives it and collects its usage.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: %s OUTFILE CMD [ARG...]\n", argv[0]);
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 1;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	fprintf(out, "%ld.%06ld %ld.%06ld %ld\n", (long)ru.ru_utime.tv_sec,
		(long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec,
		ru.ru_maxrss);
	fclose(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
