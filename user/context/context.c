// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cgfollow.h"
#include "cgroupfs.h"
#include "container.h"
#include "context.h"
#include "ctrnames.h"
#include "log.h"

/* The containers --container chose, by runtime and id. */
struct chosen {
	struct ps_container *c;
	size_t n;
};

static bool same(const struct ps_container *a, const struct ps_container *b)
{
	return a->kind == b->kind && !strcmp(a->id, b->id);
}

static bool is_chosen(const struct ps_container *c, void *arg)
{
	const struct chosen *ch = arg;

	for (size_t i = 0; i < ch->n; i++)
		if (same(&ch->c[i], c))
			return true;
	return false;
}

static int add(struct chosen *ch, const struct ps_container *c)
{
	struct ps_container *more;

	if (is_chosen(c, ch))
		return 0;
	more = realloc(ch->c, (ch->n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	ch->c = more;
	ch->c[ch->n++] = *c;
	return 0;
}

/*
 * Each container the tree has, once (a container may have several
 * cgroups), with the names its runtime's records (under root) give it:
 * visit(c, names, arg), until it returns an error. 0 or that error, or
 * -ENOMEM.
 */
static int each_container(const struct ps_cgroup_index *x, const char *root,
			  int (*visit)(const struct ps_container *c,
				       const struct ps_ctr_names *names, void *arg),
			  void *arg)
{
	struct chosen seen = { 0 };
	int err = 0;

	for (size_t i = 0; i < x->n && !err; i++) {
		struct ps_container c;
		struct ps_ctr_names names;

		ps_container_of_path(x->e[i].path, &c);
		if (c.kind == PS_CONTAINER_NONE || is_chosen(&c, &seen))
			continue;
		err = add(&seen, &c);
		if (err)
			break;
		ps_ctr_names_read(root, &c, &names); /* none: names cleared */
		err = visit(&c, &names, arg);
	}
	free(seen.c);
	return err;
}

/* --container's choice: the containers WHAT names whole, and those whose
 * id begins with it. */
struct by_container {
	const char *what;
	struct chosen *exact, prefix;
};

static int match_container(const struct ps_container *c, const struct ps_ctr_names *names,
			   void *arg)
{
	struct by_container *b = arg;
	char shown[sizeof(c->id) + 16];

	ps_container_name(c, shown, sizeof(shown));
	if (!strcmp(b->what, shown) || !strcmp(b->what, c->id) || !strcmp(b->what, names->name))
		return add(b->exact, c);
	return ps_container_matches(c, b->what) ? add(&b->prefix, c) : 0;
}

/*
 * --container WHAT as docker and podman take it: the containers whose
 * whole id or name is WHAT (the name its runtime's records give it, or as
 * pktsample shows it: docker:ID, pod:UID, unit:NAME), else the one whose
 * id begins with WHAT. 0, -ENOENT (none), -ENOTUNIQ (a beginning more than
 * one container's id has), -ENOMEM.
 */
static int choose_containers(const struct ps_cgroup_index *x, const char *root, const char *what,
			     struct chosen *exact)
{
	struct by_container b = { .what = what, .exact = exact };
	int err = each_container(x, root, match_container, &b);

	if (!err && !exact->n) {
		if (b.prefix.n > 1)
			err = -ENOTUNIQ;
		else if (b.prefix.n)
			err = add(exact, &b.prefix.c[0]);
	}
	free(b.prefix.c);
	return err ? err : exact->n ? 0 : -ENOENT;
}

/* --pod's and --k8s-namespace's choice: the pod's name (NULL: any) and
 * namespace ("": any), and whether the pods chosen are of more than one
 * namespace. */
struct by_pod {
	const char *pod; /* in name[] */
	char name[256], ns[64], first_ns[64];
	bool other_ns;
	struct chosen *ch;
};

static bool pod_fits(const struct by_pod *b, const struct ps_ctr_names *names)
{
	return names->pod[0] && (!b->pod || !strcmp(b->pod, names->pod)) &&
	       (!b->ns[0] || !strcmp(b->ns, names->pod_ns));
}

static int match_pod(const struct ps_container *c, const struct ps_ctr_names *names, void *arg)
{
	struct by_pod *b = arg;

	if (!pod_fits(b, names))
		return 0;
	if (!b->first_ns[0])
		snprintf(b->first_ns, sizeof(b->first_ns), "%s", names->pod_ns);
	b->other_ns |= strcmp(b->first_ns, names->pod_ns) != 0;
	return add(b->ch, c);
}

/*
 * --pod [NAMESPACE/]NAME and --k8s-namespace NAMESPACE: the containers
 * whose runtime's records put them in that pod or namespace. A pod's name
 * without its namespace is the pod of that name in whichever namespace has
 * one: -ENOTUNIQ where more than one has. 0, -ENOENT (none), -ENOMEM.
 */
static int choose_k8s(const struct ps_cgroup_index *x, const char *root, struct by_pod *b)
{
	int err = each_container(x, root, match_pod, b);

	if (!err && b->pod && !b->ns[0] && b->other_ns)
		err = -ENOTUNIQ;
	/* Followed from here on in the namespace where it is. */
	if (!err && b->pod && !b->ns[0])
		snprintf(b->ns, sizeof(b->ns), "%s", b->first_ns);
	return err ? err : b->ch->n ? 0 : -ENOENT;
}

/* A filter by name, kept for following: what it names (its own copies:
 * a reload frees the options), and the containers it has chosen. */
struct ps_ctx_byname {
	char records_root[PATH_MAX]; /* --host-root */
	char container[256];	     /* --container; "": --pod or --k8s-namespace */
	struct by_pod pod;
	struct chosen ch;
};

/* A cgroup made during the capture: one of a container chosen already
 * (a cgroup below it), or of one the filter names. */
static bool follow_wants(const char *path, void *arg)
{
	struct ps_ctx_byname *b = arg;
	struct ps_container k;
	struct ps_ctr_names names;

	ps_container_of_path(path, &k);
	if (k.kind == PS_CONTAINER_NONE)
		return false;
	if (is_chosen(&k, &b->ch))
		return true;
	ps_ctr_names_read(b->records_root, &k, &names);
	if (b->container[0] ? strcmp(b->container, names.name) != 0 : !pod_fits(&b->pod, &names))
		return false;
	/* A pod named without its namespace: the first one found is it. */
	if (b->pod.pod && !b->pod.ns[0])
		snprintf(b->pod.ns, sizeof(b->pod.ns), "%s", names.pod_ns);
	return add(&b->ch, &k) == 0;
}

/* --container, --pod or --k8s-namespace into the ids of their cgroups,
 * and what following them needs. None there: -ENOENT, or for an agent
 * (cfg->wait) an empty choice that waits for them. */
static int container_cgroups(struct ps_context *c, const struct ps_context_cfg *cfg, size_t *n)
{
	const char *opt = cfg->container ? "container" : cfg->pod ? "pod" : "k8s-namespace";
	const char *what = cfg->container ?: cfg->pod ?: cfg->k8s_ns;
	const char *slash = cfg->pod ? strchr(cfg->pod, '/') : NULL;
	struct ps_ctx_byname *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	c->byname = b;
	b->pod.ch = &b->ch;
	/* One of the three (cli_check). */
	if (cfg->container) {
		snprintf(b->container, sizeof(b->container), "%s", cfg->container);
	} else if (cfg->pod) {
		snprintf(b->pod.name, sizeof(b->pod.name), "%s", slash ? slash + 1 : cfg->pod);
		b->pod.pod = b->pod.name;
		if (slash)
			snprintf(b->pod.ns, sizeof(b->pod.ns), "%.*s", (int)(slash - cfg->pod),
				 cfg->pod);
	} else {
		snprintf(b->pod.ns, sizeof(b->pod.ns), "%s", cfg->k8s_ns);
	}
	snprintf(b->records_root, sizeof(b->records_root), "%s", c->records_root);
	err = cfg->container ? choose_containers(&c->cg, c->records_root, cfg->container, &b->ch) :
			       choose_k8s(&c->cg, c->records_root, &b->pod);
	if (!err)
		err = ps_cgroup_index_pick(&c->cg, is_chosen, &b->ch, &c->cgroups, n);
	if (err == -ENOENT && cfg->wait) {
		pr_warn("--%s %s: none there yet; waiting for it\n", opt, what);
		return 0;
	}
	if (err == -ENOENT && cfg->container)
		pr_err("--container %s: no such container (a docker, podman, containerd or CRI-O "
		       "name or id, pod:UID or unit:NAME) under %s\n",
		       what, c->cg.root);
	else if (err == -ENOENT)
		pr_err("--%s %s: no container of such a %s (as the runtimes' records on disk say)\n",
		       opt, what, cfg->pod ? "pod" : "namespace");
	if (err == -ENOTUNIQ && cfg->container)
		pr_err("--container %s: more than one container's id begins so: give more of it, "
		       "or the name\n",
		       what);
	else if (err == -ENOTUNIQ)
		pr_err("--pod %s: pods of that name in more than one namespace: give "
		       "NAMESPACE/%s\n",
		       what, what);
	return err;
}

int ps_context_resolve(struct ps_context *c, const struct ps_context_cfg *cfg)
{
	struct ps_cgroup_index *cg = &c->cg;
	size_t n = 0;
	int err = 0;

	memset(c, 0, sizeof(*c));
	c->knobs.enabled = cfg->enabled;
	snprintf(c->records_root, sizeof(c->records_root), "%s", cfg->host_root ?: "");
	if (!cfg->enabled)
		return 0;
	if (cfg->pid) {
		/* Gone before we start: a typo, most likely. */
		if (kill((pid_t)cfg->pid, 0) && errno == ESRCH) {
			pr_err("--pid %u: no such process\n", cfg->pid);
			return -ENOENT;
		}
		c->knobs.filter |= PS_CTXF_PID;
		c->knobs.pid = cfg->pid;
	}
	if (cfg->comm) {
		c->knobs.filter |= PS_CTXF_COMM;
		snprintf(c->knobs.comm, sizeof(c->knobs.comm), "%s", cfg->comm);
	}
	/* The cgroup v2 tree, walked once (the mount made now if need be,
	 * while single-threaded); the who table takes it over at the start. */
	c->cg_err = ps_cgroup_index_open(cg);
	if (!cfg->cgroup && !cfg->container && !cfg->pod && !cfg->k8s_ns)
		return 0;
	if (c->cg_err) {
		pr_err("--%s needs the cgroup v2 hierarchy mounted: %s\n",
		       cfg->cgroup    ? "cgroup" :
		       cfg->container ? "container" :
		       cfg->pod	      ? "pod" :
					"k8s-namespace",
		       c->cg_err == -ENOENT ? "there is no cgroup2 mount" : strerror(-c->cg_err));
		return -EOPNOTSUPP;
	}
	if (cfg->cgroup) {
		err = ps_cgroup_index_under(cg, cfg->cgroup, &c->cgroups, &n);
		if (err == -ENOENT)
			pr_err("--cgroup %s: no such cgroup under %s\n", cfg->cgroup, cg->root);
	} else {
		err = container_cgroups(c, cfg, &n);
	}
	if (err == -ENOMEM)
		pr_err("cannot list the cgroups: %s\n", strerror(ENOMEM));
	if (err)
		return err;
	c->knobs.filter |= PS_CTXF_CGROUP;
	c->knobs.cgroups = c->cgroups;
	c->knobs.n_cgroups = n;
	c->knobs.cgroups_room = n + (c->byname ? PS_CTX_FOLLOW_ROOM : 0);
	return 0;
}

int ps_context_start(struct ps_context *c, struct ps_loader *l)
{
	int err, found;

	if (!c->knobs.enabled)
		return 0;
	/* Sockets made from now on. Without cgroup v2, or where the program
	 * cannot be attached, only those the scans find are known: the
	 * capture goes on, unless a context filter needs them. */
	err = c->cg_err;
	if (!err)
		err = ps_loader_attach_owner(l, c->cg.root);
	if (err && c->knobs.filter) {
		pr_err("cannot see sockets being made, which --pid, --comm, --cgroup and "
		       "--container need: %s\n",
		       err == -ENOENT ? "no cgroup v2 mount" : strerror(-err));
		return err;
	}
	/* No cgroup v2 to be seen is the setup's (ip netns exec without
	 * CAP_SYS_ADMIN to mount one): said with -v. A refusal is news. */
	if (err)
		ps_log(err == -ENOENT ? PS_LOG_INFO : PS_LOG_WARN,
		       "cannot see sockets being made (%s): the owners of those made during the "
		       "capture are found by looking for them, at most every %d s\n",
		       err == -ENOENT ? "no cgroup v2 mount" : strerror(-err),
		       PS_WHO_RESCAN_MS / 1000);
	/* A filter by name follows from here on: what is made from now is
	 * seen, what was made since the start's walk is judged now. */
	if (c->byname) {
		err = ps_cgfollow_open(&c->cg, c->cgroups, c->knobs.n_cgroups,
				       ps_loader_ctx_cgroups_fd(l), follow_wants, c->byname,
				       &c->follow);
		if (err)
			return err;
	}
	c->who = ps_who_new(ps_loader_owners_fd(l), &c->cg, c->records_root);
	if (!c->who) {
		pr_err("cannot set up the packets' context: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* Then those that exist: made before, or not seen by it. Now, not
	 * at a first packet: the scan enters the other namespaces processes
	 * are in, which it may no longer do once privileges are dropped. */
	found = ps_who_scan(c->who);
	if (found >= 0)
		pr_debug("context: %d existing sockets and their owners found\n", found);
	return 0;
}

int ps_context_follow_fd(const struct ps_context *c)
{
	return ps_cgfollow_fd(c->follow);
}

int ps_context_follow(struct ps_context *c)
{
	return c->follow ? ps_cgfollow_run(c->follow) : 0;
}

void ps_context_free(struct ps_context *c)
{
	ps_cgroup_index_free(&c->cg);
	ps_who_free(c->who);
	c->who = NULL;
	free(c->cgroups);
	c->cgroups = NULL;
	ps_cgfollow_free(c->follow);
	c->follow = NULL;
	if (c->byname)
		free(c->byname->ch.c);
	free(c->byname);
	c->byname = NULL;
}
