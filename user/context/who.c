// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "container.h"
#include "log.h"
#include "sockscan.h"
#include "who.h"
#include "words.h"

#define BUCKETS 4096
/* Sockets and processes remembered: past this many, forgotten all at once
 * and asked for again (the kernel's map keeps PS_OWNERS_MAX sockets at most). A
 * process then gets a new number, and its file another PIB. */
#define SOCKS_MAX 65536
#define PROCS_MAX 16384

struct sock_node {
	struct sock_node *next;
	uint64_t cookie;
	bool known;	   /* owner valid; else the map had none when asked */
	uint64_t first_ns; /* first named by a packet */
	struct ps_owner owner;
};

struct proc_node {
	struct proc_node *next;
	uint32_t pid;
	char comm[PS_COMM_LEN];
	uint32_t number;
};

/* A cgroup's words, worked out once (the tree walked, the path parsed). */
struct cgroup_node {
	struct cgroup_node *next;
	uint64_t id;
	char container[sizeof(((struct ps_who *)0)->container)];
	struct ps_ctr_names names;
	char cgroup[sizeof(((struct ps_who *)0)->cgroup)];
	uint64_t container_key, pod_key, k8s_ns_key; /* ps_who's */
};
#define CGROUPS_MAX 16384

struct netns_name {
	uint32_t ino;
	char name[48];
};

/*
 * The owners last put in words, by what their packets said: a flood's
 * packets name the same few sockets, so most of them cost a compare here,
 * not a lookup and the copying of the words. An entry is good while the
 * table's generation is its own: a socket scan, or forgetting sockets,
 * processes or cgroups, can change the words, and starts a new one. Words
 * that may say more later (an owner a scan may still find, a cgroup the
 * tree may yet have) are good until retry_ns in the packets' time, when
 * a scan may come: until then, each packet of a socket waiting for a scan
 * was put in words again, a cost on every packet of a flood until the
 * first rescan (doc/performance.md#owners).
 */
#define MEMO_SLOTS 256
#define MEMO_RETRY_NS 100000000ull /* a cgroup the tree did not have: 100 ms */
struct memo {
	uint32_t gen; /* 0: empty */
	uint8_t ctx;
	uint32_t pid, tid;
	uint64_t cookie, cgroup;
	uint64_t retry_ns; /* 0: final; else in CLOCK_MONOTONIC, as ps_meta.ts_ns */
	struct ps_who who;
};

struct ps_who_table {
	int owners_fd;
	struct ps_cgroup_index cg;
	char records_root[PATH_MAX]; /* the runtimes' records under it */
	struct sock_node *socks[BUCKETS];
	struct proc_node *procs[BUCKETS];
	struct cgroup_node *cgroups[BUCKETS];
	uint32_t n_socks, n_procs_now, n_cgroups;
	uint32_t n_procs; /* numbers given so far */
	uint64_t last_scan_ns;
	uint64_t rescan_gap_ns; /* from the last scan's cost */
	unsigned long scans;	/* made so far */
	uint32_t host_netns;
	struct netns_name *names; /* /run/netns, read at the start */
	size_t n_names;
	uint32_t gen; /* the memo's: from 1 */
	struct memo memo[MEMO_SLOTS];
	struct memo *last; /* the entry the previous packet found */
};

static size_t hash64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return (size_t)(v % BUCKETS);
}

/* The names `ip netns add` gave (bind mounts under /run/netns). */
static void read_netns_names(struct ps_who_table *t)
{
	DIR *d = opendir("/run/netns");
	struct dirent *e;
	struct stat st;

	if (!stat("/proc/1/ns/net", &st))
		t->host_netns = (uint32_t)st.st_ino;
	while (d && (e = readdir(d))) {
		char path[300];
		struct netns_name *v;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		if (stat(path, &st))
			continue;
		v = realloc(t->names, (t->n_names + 1) * sizeof(*v));
		if (!v)
			break;
		t->names = v;
		v[t->n_names].ino = (uint32_t)st.st_ino;
		snprintf(v[t->n_names].name, sizeof(v->name), "%.47s", e->d_name);
		t->n_names++;
	}
	if (d)
		closedir(d);
}

struct ps_who_table *ps_who_new(int owners_fd, struct ps_cgroup_index *cg, const char *records_root)
{
	struct ps_who_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->owners_fd = owners_fd;
	t->gen = 1;
	snprintf(t->records_root, sizeof(t->records_root), "%s", records_root);
	t->rescan_gap_ns = ps_who_rescan_gap_ns(0);
	/* Without cgroup v2, packets have no container: not an error. */
	t->cg = *cg;
	memset(cg, 0, sizeof(*cg));
	read_netns_names(t);
	return t;
}

static void forget_socks(struct ps_who_table *t)
{
	t->gen++;
	for (size_t b = 0; b < BUCKETS; b++)
		while (t->socks[b]) {
			struct sock_node *n = t->socks[b];

			t->socks[b] = n->next;
			free(n);
		}
	t->n_socks = 0;
}

static void forget_procs(struct ps_who_table *t)
{
	t->gen++;
	for (size_t b = 0; b < BUCKETS; b++)
		while (t->procs[b]) {
			struct proc_node *n = t->procs[b];

			t->procs[b] = n->next;
			free(n);
		}
	t->n_procs_now = 0;
}

static void forget_cgroups(struct ps_who_table *t)
{
	t->gen++;
	for (size_t b = 0; b < BUCKETS; b++)
		while (t->cgroups[b]) {
			struct cgroup_node *n = t->cgroups[b];

			t->cgroups[b] = n->next;
			free(n);
		}
	t->n_cgroups = 0;
}

void ps_who_free(struct ps_who_table *t)
{
	if (!t)
		return;
	forget_socks(t);
	forget_procs(t);
	forget_cgroups(t);
	ps_cgroup_index_free(&t->cg);
	free(t->names);
	free(t);
}

static struct sock_node *sock_find(struct ps_who_table *t, uint64_t cookie)
{
	for (struct sock_node *n = t->socks[hash64(cookie)]; n; n = n->next)
		if (n->cookie == cookie)
			return n;
	return NULL;
}

static struct sock_node *sock_add(struct ps_who_table *t, uint64_t cookie)
{
	struct sock_node *n;
	size_t b = hash64(cookie);

	if (t->n_socks == SOCKS_MAX)
		forget_socks(t);
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	t->n_socks++;
	n->cookie = cookie;
	n->next = t->socks[b];
	t->socks[b] = n;
	return n;
}

static void scan_found(void *arg, uint64_t cookie, const struct ps_owner *o)
{
	struct ps_who_table *t = arg;
	struct sock_node *n = sock_find(t, cookie);

	if (!n)
		n = sock_add(t, cookie);
	if (!n || n->known)
		return;
	n->owner = *o;
	n->known = true;
	/* For the hooks' filter and ps_meta.pid; never over what the
	 * socket-owner program saw. */
	if (t->owners_fd >= 0)
		bpf_map_update_elem(t->owners_fd, &cookie, o, BPF_NOEXIST);
}

uint64_t ps_who_rescan_gap_ns(uint64_t scan_cpu_ns)
{
	uint64_t least = PS_WHO_RESCAN_MS * 1000000ull;

	return scan_cpu_ns > least / PS_WHO_RESCAN_SHARE ? scan_cpu_ns * PS_WHO_RESCAN_SHARE :
							   least;
}

int ps_who_scan(struct ps_who_table *t)
{
	uint64_t cpu0 = (uint64_t)ps_clock_read_ns(CLOCK_THREAD_CPUTIME_ID, NULL);
	int n = ps_sockscan(t->cg.root, scan_found, t);

	t->rescan_gap_ns = ps_who_rescan_gap_ns(
		(uint64_t)ps_clock_read_ns(CLOCK_THREAD_CPUTIME_ID, NULL) - cpu0);
	t->last_scan_ns = ps_clock_mono_ns();
	t->scans++;
	t->gen++;
	if (n < 0)
		pr_debug("cannot list the sockets that exist: %s\n", strerror(-n));
	return n;
}

size_t ps_who_cgroups(const struct ps_who_table *t)
{
	return t->n_cgroups;
}

unsigned long ps_who_scans(const struct ps_who_table *t)
{
	return t->scans;
}

/* The owner of cookie: from the cache, the owners map, or a new scan
 * (scannable: a TCP or UDP socket, which a scan can find). *pending: not
 * known yet, and a scan may still find it. */
static const struct ps_owner *owner_of(struct ps_who_table *t, uint64_t cookie, bool scannable,
				       bool *pending)
{
	struct sock_node *n = sock_find(t, cookie);

	if (!n) {
		n = sock_add(t, cookie);
		if (!n)
			return NULL;
		n->first_ns = ps_clock_mono_ns();
		if (t->owners_fd >= 0 && !bpf_map_lookup_elem(t->owners_fd, &cookie, &n->owner))
			n->known = true;
	}
	/* Looked for once: a socket no scan since its first packet found is
	 * no TCP or UDP socket any process holds (a packet socket, a kernel
	 * socket) and would have every packet of a flood scan again. */
	if (!n->known && scannable && n->first_ns > t->last_scan_ns &&
	    ps_clock_mono_ns() - t->last_scan_ns >= t->rescan_gap_ns)
		ps_who_scan(t);
	*pending = !n->known && scannable && n->first_ns > t->last_scan_ns;
	return n->known ? &n->owner : NULL;
}

static uint32_t proc_number(struct ps_who_table *t, uint32_t pid, const char *comm)
{
	size_t b = hash64(pid);
	struct proc_node *n;

	for (n = t->procs[b]; n; n = n->next)
		if (n->pid == pid && !strncmp(n->comm, comm, PS_COMM_LEN))
			return n->number;
	if (t->n_procs_now == PROCS_MAX)
		forget_procs(t);
	n = calloc(1, sizeof(*n));
	if (!n)
		return 0;
	t->n_procs_now++;
	n->pid = pid;
	memcpy(n->comm, comm, PS_COMM_LEN);
	n->number = ++t->n_procs;
	n->next = t->procs[b];
	t->procs[b] = n;
	return n->number;
}

static void netns_words(const struct ps_who_table *t, uint32_t ino, char *buf, size_t len)
{
	if (!ino) {
		buf[0] = '\0';
		return;
	}
	if (ino == t->host_netns) {
		snprintf(buf, len, "host");
		return;
	}
	for (size_t i = 0; i < t->n_names; i++)
		if (t->names[i].ino == ino) {
			snprintf(buf, len, "%s", t->names[i].name);
			return;
		}
	snprintf(buf, len, "%u", ino);
}

/* The number of the name a/b (FNV-1a); 0 for none. */
static uint64_t name_key(const char *a, const char *b)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (!a[0] && !b[0])
		return 0;
	for (const char *c = a; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	h = (h ^ '/') * 0x100000001b3ull;
	for (const char *c = b; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	return h ?: 1;
}

static void set_keys(struct cgroup_node *n)
{
	struct ps_who w = { .names = n->names };
	char label[sizeof(w.container) + sizeof(w.names)];

	strcpy(w.container, n->container);
	strcpy(w.cgroup, n->cgroup);
	ps_who_container_label(&w, label, sizeof(label));
	n->container_key = n->container[0] || n->cgroup[0] ? name_key(label, "") : 0;
	n->pod_key = name_key(n->names.pod_ns, n->names.pod);
	n->k8s_ns_key = name_key(n->names.pod_ns, "");
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* After a walk of the tree: the words of the cgroups it no longer has (a
 * container gone), and the sockets made in them, are let go, so that a
 * host whose containers come and go keeps those of the containers there
 * are. Memos hold copies: nothing to invalidate. */
static void forget_gone_cgroups(struct ps_who_table *t)
{
	uint64_t *ids;
	size_t n;

	if (ps_cgroup_index_ids(&t->cg, &ids, &n))
		return; /* kept until the cap: no harm but memory */
	for (size_t b = 0; b < BUCKETS; b++)
		for (struct cgroup_node **p = &t->cgroups[b]; *p;) {
			struct cgroup_node *c = *p;

			if (bsearch(&c->id, ids, n, sizeof(*ids), by_id)) {
				p = &c->next;
				continue;
			}
			*p = c->next;
			free(c);
			t->n_cgroups--;
		}
	/* And the sockets made in them: a container's go with it. */
	for (size_t b = 0; b < BUCKETS; b++)
		for (struct sock_node **p = &t->socks[b]; *p;) {
			struct sock_node *k = *p;

			if (!k->known || !k->owner.cgroup_id ||
			    bsearch(&k->owner.cgroup_id, ids, n, sizeof(*ids), by_id)) {
				p = &k->next;
				continue;
			}
			*p = k->next;
			free(k);
			t->n_socks--;
		}
	free(ids);
}

/* Cgroup id's container, or its path where it has none: from the cache,
 * else from the tree (walked again at most once a second for a new id).
 * NULL if it is not there. */
static const struct cgroup_node *cgroup_words(struct ps_who_table *t, uint64_t id)
{
	size_t b = hash64(id);
	struct cgroup_node *n;
	struct ps_container c;
	const char *path;
	uint64_t walked;

	for (n = t->cgroups[b]; n; n = n->next)
		if (n->id == id)
			return n;
	walked = t->cg.built_ns;
	path = ps_cgroup_index_path(&t->cg, id);
	if (t->cg.built_ns != walked)
		forget_gone_cgroups(t);
	if (!path)
		return NULL;
	if (t->n_cgroups == CGROUPS_MAX)
		forget_cgroups(t);
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->id = id;
	ps_container_of_path(path, &c);
	ps_container_name(&c, n->container, sizeof(n->container));
	/* Once a cgroup: its runtime's records, where it has any. */
	ps_ctr_names_read(t->records_root, &c, &n->names);
	if (!n->container[0] && strcmp(path, "/"))
		snprintf(n->cgroup, sizeof(n->cgroup), "%s", path);
	set_keys(n);
	n->next = t->cgroups[b];
	t->cgroups[b] = n;
	t->n_cgroups++;
	return n;
}

/* What m says, in words; false if it may say more later (its socket's
 * owner is still looked for). */
static bool resolve(struct ps_who_table *t, const struct ps_meta *m, struct ps_who *w)
{
	const struct ps_owner *o = NULL;
	uint64_t cgroup = m->cgroup_id;
	bool pending = false;

	memset(w, 0, sizeof(*w));
	w->ctx = m->ctx;
	if (m->ctx == PS_CTX_OFF)
		return true;
	if (m->sock_cookie)
		o = owner_of(t, m->sock_cookie, !(m->flags & PS_F_SOCK_NOT_INET), &pending);
	if (o) {
		w->known = true;
		/* The hook's pid and thread where it had them (the thread
		 * that sent it); the map's otherwise. */
		w->pid = m->pid ? m->pid : o->pid;
		w->tid = m->pid ? m->tid : o->tid;
		/* One word, as the comment's other values: a name's blanks and
		 * '=' become '_' (ps shows them; the comment cannot). */
		for (size_t i = 0; i < sizeof(w->comm) - 1 && o->comm[i]; i++)
			w->comm[i] = o->comm[i] <= ' ' || o->comm[i] == '=' ? '_' : o->comm[i];
		netns_words(t, o->netns_ino, w->netns, sizeof(w->netns));
		if (!cgroup)
			cgroup = o->cgroup_id;
		w->proc = proc_number(t, w->pid, w->comm);
	}
	if (cgroup) {
		const struct cgroup_node *c = cgroup_words(t, cgroup);

		if (c) {
			strcpy(w->container, c->container);
			w->names = c->names;
			w->container_key = c->container_key;
			w->pod_key = c->pod_key;
			w->k8s_ns_key = c->k8s_ns_key;
			strcpy(w->cgroup, c->cgroup);
		}
		/* A cgroup the tree did not have yet may be there next time. */
		pending |= !c;
	}
	return !pending;
}

static bool memo_fits(const struct ps_who_table *t, const struct memo *e, const struct ps_meta *m)
{
	return e && e->gen == t->gen && e->ctx == m->ctx && e->cookie == m->sock_cookie &&
	       e->cgroup == m->cgroup_id && e->pid == m->pid && e->tid == m->tid &&
	       (!e->retry_ns || m->ts_ns < e->retry_ns);
}

const struct ps_who *ps_who_resolve(struct ps_who_table *t, const struct ps_meta *m)
{
	struct memo *e;

	/* Runs of packets of one socket: the previous entry first. */
	if (memo_fits(t, t->last, m))
		return &t->last->who;
	e = &t->memo[hash64(m->sock_cookie ^ m->cgroup_id ^ m->pid ^ (uint64_t)m->tid << 32 ^
			    m->ctx) %
		     MEMO_SLOTS];
	t->last = e;
	if (memo_fits(t, e, m))
		return &e->who;
	/* Resolving may scan, which starts a new generation: read after. */
	e->retry_ns = 0;
	if (!resolve(t, m, &e->who)) {
		uint64_t scan_ns = t->last_scan_ns + t->rescan_gap_ns;

		e->retry_ns = m->ts_ns + MEMO_RETRY_NS;
		if (scan_ns < e->retry_ns)
			e->retry_ns = scan_ns;
		if (!e->retry_ns)
			e->retry_ns = 1; /* 0 is "final" */
	}
	e->gen = t->gen;
	e->ctx = m->ctx;
	e->cookie = m->sock_cookie;
	e->cgroup = m->cgroup_id;
	e->pid = m->pid;
	e->tid = m->tid;
	return &e->who;
}

const char *ps_who_why(uint8_t ctx, bool known)
{
	switch (ctx) {
	case PS_CTX_OFF:
		return NULL;
	case PS_CTX_NO_SOCKET:
		return "none:no-socket";
	case PS_CTX_NOT_L4:
		return "none:not-tcp-udp";
	case PS_CTX_UNNAMED:
		return "unknown:socket-without-cookie";
	case PS_CTX_SENDER:
		return known ? NULL : "sender:socket-not-found";
	default:
		return known ? NULL : "unknown:socket-not-found";
	}
}

int ps_who_format(const struct ps_who *w, char *buf, size_t len, bool why)
{
	const char *reason = ps_who_why(w->ctx, w->known);
	/* A sender's process is named as such: it sent the packet from
	 * another namespace, it does not own a socket here. */
	const char *owner = reason ? (why ? reason : NULL) :
				     (w->ctx == PS_CTX_SENDER ? "sender" : NULL);
	bool named = !reason;
	int n = 0;

	if (len)
		buf[0] = '\0';
	if (w->ctx == PS_CTX_OFF)
		return 0;
	if (owner)
		n = ps_word_put(buf, len, n, PS_WORD_OWNER, "%s", owner);
	if (named) {
		n = ps_word_put(buf, len, n, PS_WORD_PID, "%u", w->pid);
		if (w->tid && w->tid != w->pid)
			n = ps_word_put(buf, len, n, PS_WORD_TID, "%u", w->tid);
		n = ps_word_put(buf, len, n, PS_WORD_COMM, "%s", w->comm);
	}
	if (w->names.pod[0] || w->names.name[0]) {
		/* By name: a Kubernetes one by its pod's, the image and the
		 * runtime's id after. */
		if (w->names.pod[0])
			n = ps_word_put(buf, len, n, PS_WORD_POD, "%s%s%s", w->names.pod_ns,
					w->names.pod_ns[0] ? "/" : "", w->names.pod);
		if (!w->names.pod[0] || w->names.k8s_container[0])
			n = ps_word_put(buf, len, n, PS_WORD_CONTAINER, "%s",
					w->names.pod[0] ? w->names.k8s_container : w->names.name);
		if (w->names.image[0])
			n = ps_word_put(buf, len, n, PS_WORD_IMAGE, "%s", w->names.image);
		n = ps_word_put(buf, len, n, PS_WORD_CID, "%s", w->container);
	} else if (w->container[0])
		n = ps_word_put(buf, len, n, PS_WORD_CONTAINER, "%s", w->container);
	else if (w->cgroup[0])
		n = ps_word_put(buf, len, n, PS_WORD_CGROUP, "%s", w->cgroup);
	if (w->netns[0])
		n = ps_word_put(buf, len, n, PS_WORD_NETNS, "%s", w->netns);
	return n;
}

void ps_who_container_label(const struct ps_who *w, char *buf, size_t len)
{
	const struct ps_ctr_names *n = &w->names;

	if (n->pod[0])
		snprintf(buf, len, "%s%s%s/%s", n->pod_ns, n->pod_ns[0] ? "/" : "", n->pod,
			 n->k8s_container[0] ? n->k8s_container : "(sandbox)");
	else
		snprintf(buf, len, "%s",
			 n->name[0]	 ? n->name :
			 w->container[0] ? w->container :
			 w->cgroup[0]	 ? w->cgroup :
					   "(none)");
}
