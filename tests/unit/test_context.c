// SPDX-License-Identifier: GPL-2.0-only
/* Containers from cgroup paths, and the words a packet's owner becomes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "cgroupfs.h"
#include "clock.h"
#include "container.h"
#include "who.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "6b2f8f2e-1c1e-4b9e-9d7a-0c2f4a1e9b11"

static void name_of(const char *path, const char *want)
{
	struct ps_container c;
	char name[128];

	ps_container_of_path(path, &c);
	ps_container_name(&c, name, sizeof(name));
	if (strcmp(name, want))
		fail_msg("%s: got '%s', want '%s'", path, name, want);
}

static void runtimes(void **state)
{
	(void)state;
	name_of("/system.slice/docker-" ID ".scope", "docker:0123456789ab");
	name_of("/docker/" ID, "docker:0123456789ab");
	name_of("/machine.slice/libpod-" ID ".scope", "podman:0123456789ab");
	name_of("/machine.slice/libpod-" ID ".scope/container", "podman:0123456789ab");
	name_of("/system.slice/containerd.service/kubepods-burstable-pod6b2f8f2e_1c1e_4b9e_9d7a_"
		"0c2f4a1e9b11.slice/cri-containerd-" ID ".scope",
		"containerd:0123456789ab");
	name_of("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod6b2f8f2e_1c1e_"
		"4b9e_9d7a_0c2f4a1e9b11.slice/crio-" ID ".scope",
		"crio:0123456789ab");
	/* cgroupfs drivers: the bare id. */
	name_of("/kubepods/burstable/pod" UID "/" ID, "containerd:0123456789ab");
	/* A container's own systemd: the container, not the unit in it. */
	name_of("/system.slice/docker-" ID ".scope/system.slice/nginx.service",
		"docker:0123456789ab");
}

static void pods_units_and_none(void **state)
{
	(void)state;
	name_of("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod6b2f8f2e_1c1e_"
		"4b9e_9d7a_0c2f4a1e9b11.slice",
		"pod:" UID);
	name_of("/kubepods/burstable/pod" UID, "pod:" UID);
	name_of("/system.slice/nginx.service", "unit:nginx.service");
	name_of("/user.slice/user-1000.slice/session-2.scope", "unit:session-2.scope");
	name_of("/", "");
	name_of("/pktsample-it-1/a", "");
	/* Not ids (too short, upper case, conmon's cgroup): units. */
	name_of("/docker-0123.scope", "unit:docker-0123.scope");
	name_of("/system.slice/docker-" ID "X.scope", "unit:docker-" ID "X.scope");
	name_of("/machine.slice/libpod-conmon-" ID ".scope", "unit:libpod-conmon-" ID ".scope");
	name_of("/docker-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.scope",
		"unit:docker-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.scope");
}

static void matching(void **state)
{
	struct ps_container c;

	(void)state;
	ps_container_of_path("/system.slice/docker-" ID ".scope", &c);
	assert_true(ps_container_matches(&c, ID));
	assert_true(ps_container_matches(&c, "0123456789ab"));
	assert_true(ps_container_matches(&c, "0123"));
	assert_true(ps_container_matches(&c, "docker:0123456789ab"));
	assert_false(ps_container_matches(&c, "012"));	/* too short a prefix */
	assert_false(ps_container_matches(&c, "1234")); /* not a prefix */
	assert_false(ps_container_matches(&c, ""));
	ps_container_of_path("/system.slice/nginx.service", &c);
	assert_true(ps_container_matches(&c, "unit:nginx.service"));
	assert_true(ps_container_matches(&c, "nginx.service"));
	assert_false(ps_container_matches(&c, "ngin"));
	ps_container_of_path("/", &c);
	assert_false(ps_container_matches(&c, "x"));
}

static void format(const struct ps_who *w, const char *want)
{
	char buf[400];
	int n = ps_who_format(w, buf, sizeof(buf), true);

	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(buf, want);
}

static void words(void **state)
{
	struct ps_who w = { .ctx = PS_CTX_SKB, .known = true, .pid = 42, .tid = 42 };

	(void)state;
	strcpy(w.comm, "curl");
	format(&w, "pid=42 comm=curl");
	w.tid = 43;
	strcpy(w.container, "docker:0123456789ab");
	strcpy(w.netns, "blue");
	format(&w, "pid=42 tid=43 comm=curl container=docker:0123456789ab netns=blue");
	w.container[0] = '\0';
	strcpy(w.cgroup, "/a/b");
	format(&w, "pid=42 tid=43 comm=curl cgroup=/a/b netns=blue");
	w.ctx = PS_CTX_SENDER;
	format(&w, "owner=sender pid=42 tid=43 comm=curl cgroup=/a/b netns=blue");
	/* By name where the runtime's records name it, the id after. */
	strcpy(w.container, "docker:0123456789ab");
	strcpy(w.names.name, "shopweb");
	strcpy(w.names.image, "bb:1");
	format(&w, "owner=sender pid=42 tid=43 comm=curl container=shopweb image=bb:1 "
		   "cid=docker:0123456789ab netns=blue");
	strcpy(w.names.pod, "cart-7d9f");
	strcpy(w.names.pod_ns, "shop");
	strcpy(w.names.k8s_container, "cart");
	format(&w, "owner=sender pid=42 tid=43 comm=curl pod=shop/cart-7d9f container=cart "
		   "image=bb:1 cid=docker:0123456789ab netns=blue");
	/* A pod without a namespace, its sandbox (no container name); an
	 * image alone does not name a container. */
	w.names = (struct ps_ctr_names){ .pod = "cart" };
	format(&w, "owner=sender pid=42 tid=43 comm=curl pod=cart cid=docker:0123456789ab "
		   "netns=blue");
	w.names = (struct ps_ctr_names){ .image = "bb:1" };
	format(&w, "owner=sender pid=42 tid=43 comm=curl container=docker:0123456789ab netns=blue");
	w = (struct ps_who){ .ctx = PS_CTX_LOOKUP };
	format(&w, "owner=unknown:socket-not-found");
	strcpy(w.container, "pod:" UID);
	format(&w, "owner=unknown:socket-not-found container=pod:" UID);
	w = (struct ps_who){ .ctx = PS_CTX_NO_SOCKET };
	format(&w, "owner=none:no-socket");
	w.ctx = PS_CTX_NOT_L4;
	format(&w, "owner=none:not-tcp-udp");
	w.ctx = PS_CTX_UNNAMED;
	format(&w, "owner=unknown:socket-without-cookie");
	w.ctx = PS_CTX_OFF;
	format(&w, "");
}

/* Without why (a pcapng block's words): an owner not known says nothing
 * of it, its container still said; a known one as with. */
static void format_without_why(void **state)
{
	char buf[200];
	struct ps_who w = { .ctx = PS_CTX_LOOKUP };

	(void)state;
	assert_int_equal(ps_who_format(&w, buf, sizeof(buf), false), 0);
	assert_string_equal(buf, "");
	strcpy(w.container, "docker:0123456789ab");
	ps_who_format(&w, buf, sizeof(buf), false);
	assert_string_equal(buf, "container=docker:0123456789ab");
	w = (struct ps_who){ .ctx = PS_CTX_SENDER, .known = true, .pid = 7, .comm = "ping" };
	ps_who_format(&w, buf, sizeof(buf), false);
	assert_string_equal(buf, "owner=sender pid=7 comm=ping");
	for (uint8_t ctx = PS_CTX_SKB; ctx < PS_CTX_MAX; ctx++) {
		w = (struct ps_who){ .ctx = ctx };
		assert_int_equal(ps_who_format(&w, buf, sizeof(buf), false), 0);
		assert_non_null(ps_who_why(ctx, false));
	}
	assert_null(ps_who_why(PS_CTX_OFF, false));
	assert_null(ps_who_why(PS_CTX_LOOKUP, true));
	assert_string_equal(ps_who_why(PS_CTX_NO_SOCKET, true), "none:no-socket");
}

static void small_buffers(void **state)
{
	struct ps_who w = { .ctx = PS_CTX_SKB, .known = true, .pid = 42, .tid = 43 };
	char buf[400];

	(void)state;
	strcpy(w.comm, "curl");
	strcpy(w.container, "docker:0123456789ab");
	strcpy(w.netns, "blue");
	/* Every length: cut, terminated, never past the end. */
	for (size_t len = 1; len < 80; len++) {
		memset(buf, 'Z', sizeof(buf));
		ps_who_format(&w, buf, len, true);
		assert_true(strlen(buf) < len);
		assert_int_equal(buf[len], 'Z');
	}
}

/* The words of what a packet says, and what ps_who_resolve() gave. */
static void says(struct ps_who_table *t, const struct ps_meta *m, const char *want,
		 const struct ps_who **got)
{
	char buf[256];

	*got = ps_who_resolve(t, m);
	assert_non_null(*got);
	ps_who_format(*got, buf, sizeof(buf), true);
	assert_string_equal(buf, want);
}

/*
 * The owner is put in words once per (socket, cgroup, pid, thread), and
 * every packet still gets its own: packets of two kinds taking turns each
 * get their words, and one like the previous gets the same answer back.
 */
static void owners_are_worded_once(void **state)
{
	struct ps_cgroup_index cg = { 0 }; /* no cgroup tree: no walks */
	struct ps_who_table *t = ps_who_new(-1, &cg, "");
	const struct ps_meta none = { .ctx = PS_CTX_NO_SOCKET };
	const struct ps_meta l4 = { .ctx = PS_CTX_NOT_L4 };
	const struct ps_meta cgroup = { .ctx = PS_CTX_NO_SOCKET, .cgroup_id = 4242 };
	const struct ps_who *a, *b, *c;

	(void)state;
	assert_non_null(t);
	for (int round = 0; round < 3; round++) {
		says(t, &none, "owner=none:no-socket", &a);
		says(t, &l4, "owner=none:not-tcp-udp", &b);
		assert_ptr_not_equal(a, b);
		says(t, &none, "owner=none:no-socket", &c);
		/* A cgroup the tree does not have: asked again after a
		 * while (it may come), and still worded right. */
		says(t, &cgroup, "owner=none:no-socket", &c);
		says(t, &cgroup, "owner=none:no-socket", &c);
	}
	says(t, &none, "owner=none:no-socket", &a);
	says(t, &none, "owner=none:no-socket", &b);
	assert_ptr_equal(a, b);
	ps_who_free(t);
}

/* Scans of the sockets are 2 s apart at least, and a scan that cost more
 * than 40 ms of CPU keeps the next 50 times that away: at most 2 % of a
 * CPU however many processes the host runs. */
static void rescans_keep_to_their_share(void **state)
{
	(void)state;
	assert_int_equal(ps_who_rescan_gap_ns(0), 2000000000ull);
	assert_int_equal(ps_who_rescan_gap_ns(3000000), 2000000000ull);
	assert_int_equal(ps_who_rescan_gap_ns(40000000), 2000000000ull);
	assert_int_equal(ps_who_rescan_gap_ns(40000001), 2000000050ull);
	/* a thousand processes of ten sockets: some 0.2 s a scan */
	assert_int_equal(ps_who_rescan_gap_ns(200000000), 10000000000ull);
	for (uint64_t cost = 1; cost < 4000000000ull; cost *= 3)
		assert_true(cost * PS_WHO_RESCAN_SHARE <= ps_who_rescan_gap_ns(cost));
}

/*
 * The words of a cgroup the tree no longer has are let go at the next
 * walk (one a new cgroup's packet has made): a host whose containers come
 * and go holds the words of those that are there. A tree of directories
 * stands for the cgroup mount (a cgroup's id is its directory's inode).
 */
static void gone_cgroups_are_let_go(void **state)
{
	char root[] = "/tmp/test_context.XXXXXX", dir[256];
	const char *ids[3] = { "a", "b", "c" };
	uint64_t ino[3];
	struct ps_cgroup_index cg = { 0 };
	struct ps_who_table *t;
	const struct ps_who *w;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/docker", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(dir, sizeof(dir), "%s/docker/%s", root, ids[i]);
		for (int k = 0; k < 63; k++)
			strncat(dir, ids[i], 1);
		if (i < 2) /* c: made later */
			assert_int_equal(mkdir(dir, 0700), 0);
		ids[i] = strdup(dir);
		assert_non_null(ids[i]);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(stat(ids[i], &st), 0);
		ino[i] = st.st_ino;
	}
	snprintf(cg.root, sizeof(cg.root), "%s", root);
	t = ps_who_new(-1, &cg, "");
	assert_non_null(t);
	for (int i = 0; i < 2; i++) {
		const struct ps_meta m = { .ctx = PS_CTX_NO_SOCKET, .cgroup_id = ino[i] };

		w = ps_who_resolve(t, &m);
		assert_string_equal(w->container,
				    i ? "docker:bbbbbbbbbbbb" : "docker:aaaaaaaaaaaa");
	}
	assert_int_equal(ps_who_cgroups(t), 2);
	/* a goes, c comes: c's first packet walks the tree (a second after
	 * the last walk at the soonest), and a's words go. */
	assert_int_equal(mkdir(ids[2], 0700), 0);
	assert_int_equal(stat(ids[2], &st), 0);
	ino[2] = st.st_ino;
	/* After c is made: a filesystem that is not cgroupfs may give c a's
	 * inode again, which cgroupfs's ids never are. */
	assert_int_equal(rmdir(ids[0]), 0);
	usleep(1100 * 1000);
	{
		const struct ps_meta m = { .ctx = PS_CTX_NO_SOCKET, .cgroup_id = ino[2] };

		w = ps_who_resolve(t, &m);
		assert_string_equal(w->container, "docker:cccccccccccc");
	}
	assert_int_equal(ps_who_cgroups(t), 2); /* b and c */
	ps_who_free(t);
	rmdir(ids[1]);
	rmdir(ids[2]);
	snprintf(dir, sizeof(dir), "%s/docker", root);
	rmdir(dir);
	rmdir(root);
	for (int i = 0; i < 3; i++)
		free((void *)ids[i]);
}

/*
 * A socket first seen after the last scan has the sockets scanned again
 * (spaced by the scans' cost), but not one the hook said is no TCP or UDP
 * socket (a packet socket's flood): no scan can find it.
 */
static void scans_only_for_what_a_scan_finds(void **state)
{
	struct ps_cgroup_index cg = { 0 };
	struct ps_who_table *t = ps_who_new(-1, &cg, "");
	const struct ps_meta packet = { .ctx = PS_CTX_SENDER,
					.flags = PS_F_SOCK_NOT_INET,
					.sock_cookie = 77 };
	const struct ps_meta udp = { .ctx = PS_CTX_SENDER, .sock_cookie = 78 };
	const struct ps_who *w;

	(void)state;
	assert_non_null(t);
	assert_int_equal(ps_who_scans(t), 0);
	says(t, &packet, "owner=sender:socket-not-found", &w);
	assert_int_equal(ps_who_scans(t), 0);
	says(t, &udp, "owner=sender:socket-not-found", &w);
	assert_int_equal(ps_who_scans(t), 1);
	/* looked for once: its next packets do not scan again */
	says(t, &udp, "owner=sender:socket-not-found", &w);
	says(t, &packet, "owner=sender:socket-not-found", &w);
	assert_int_equal(ps_who_scans(t), 1);
	ps_who_free(t);
}

/*
 * A socket that waits for the next scan keeps its words until then, in
 * the packets' time: its packets are not put in words again one by one,
 * and the first one past the scan's time has the scan made.
 */
static void waiting_owners_are_worded_once(void **state)
{
	struct ps_cgroup_index cg = { 0 };
	struct ps_who_table *t = ps_who_new(-1, &cg, "");
	struct ps_meta udp = { .ctx = PS_CTX_SENDER, .sock_cookie = 90 };
	const struct ps_who *a, *b;

	(void)state;
	assert_non_null(t);
	ps_who_scan(t); /* the start's: the next is 2 s away at least */
	udp.ts_ns = ps_clock_mono_ns();
	says(t, &udp, "owner=sender:socket-not-found", &a);
	assert_int_equal(ps_who_scans(t), 1);
	usleep(2100000); /* the scan's gap has passed */
	/* a packet from before its words are due again: the same words */
	says(t, &udp, "owner=sender:socket-not-found", &b);
	assert_ptr_equal(a, b);
	assert_int_equal(ps_who_scans(t), 1);
	/* one from now: looked for again, by a scan */
	udp.ts_ns = ps_clock_mono_ns();
	says(t, &udp, "owner=sender:socket-not-found", &b);
	assert_int_equal(ps_who_scans(t), 2);
	ps_who_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runtimes),
		cmocka_unit_test(pods_units_and_none),
		cmocka_unit_test(matching),
		cmocka_unit_test(words),
		cmocka_unit_test(format_without_why),
		cmocka_unit_test(small_buffers),
		cmocka_unit_test(owners_are_worded_once),
		cmocka_unit_test(rescans_keep_to_their_share),
		cmocka_unit_test(scans_only_for_what_a_scan_finds),
		cmocka_unit_test(waiting_owners_are_worded_once),
		cmocka_unit_test(gone_cgroups_are_let_go),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
