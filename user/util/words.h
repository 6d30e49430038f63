/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The words pktsample says about a packet: "key=value", separated by
 * spaces, in the pcapng comment and -v's annotation, and read back by -r.
 * Each key is spelled once, here, for the writers and the readers alike;
 * doc/guide.md lists what each value says.
 */
#ifndef PS_WORDS_H
#define PS_WORDS_H

#include <stddef.h>

#define PS_WORDS(X)               \
	X(HOOK, "hook")           \
	X(CPU, "cpu")             \
	X(QUEUE, "queue")         \
	X(CLOCK, "clock")         \
	X(VERDICT, "verdict")     \
	X(DROP, "drop")           \
	X(AT, "at")               \
	X(OWNER, "owner")         \
	X(PID, "pid")             \
	X(TID, "tid")             \
	X(COMM, "comm")           \
	X(POD, "pod")             \
	X(CONTAINER, "container") \
	X(IMAGE, "image")         \
	X(CID, "cid")             \
	X(CGROUP, "cgroup")       \
	X(NETNS, "netns")         \
	X(TRIGGER, "trigger")     \
	X(ID, "id")               \
	X(PREV, "prev")           \
	X(AFTER, "after")

enum ps_word {
#define PS_WORD_ENUM(name, key) PS_WORD_##name,
	PS_WORDS(PS_WORD_ENUM)
#undef PS_WORD_ENUM
		PS_WORD_N,
};

/* The key of w ("verdict"). */
const char *ps_word_key(enum ps_word w);
/*
 * Append w's "key=value" to the words in buf (len bytes), which hold n
 * characters: after a space unless n is 0. Returns the new length as
 * snprintf would (n as it was if buf is already full or n < 0). Pure.
 */
int ps_word_put(char *buf, size_t len, int n, enum ps_word w, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/*
 * w's value in words (up to the next space) into buf: buf, or NULL if
 * the words do not say w, or its value is empty or longer than len - 1.
 * Pure.
 */
const char *ps_word_get(const char *words, enum ps_word w, char *buf, size_t len);

#endif
