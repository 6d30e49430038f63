// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "corebtf.h"
#include "counters.h"
#include "kfeatures.h"
#include "filter.h"
#include "hooks.h"
#include "loader.h"
#include "log.h"
#include "sampling.h"
#include "wake.h"
#include "splice.h"
#include "pktsample.skel.h"
#include "pktsample_nokfunc.skel.h"
#include "pktsample_compat.skel.h"

struct bpf_program *ps_loader_prog(const struct ps_loader *l, enum ps_prog p)
{
	struct bpf_program *prog;

	if (!l->skel)
		return NULL;
	switch (p) {
	case PS_PROG_XDP:
		prog = l->skel->progs.pktsample_xdp;
		break;
	case PS_PROG_TC_INGRESS:
		prog = l->skel->progs.pktsample_tc_ingress;
		break;
	case PS_PROG_TC_EGRESS:
		prog = l->skel->progs.pktsample_tc_egress;
		break;
	case PS_PROG_TICK:
		prog = l->skel->progs.pktsample_tick;
		break;
	case PS_PROG_XDP_SKB:
		prog = l->skel->progs.pktsample_xdp_skb;
		break;
	case PS_PROG_XDP_DEV:
		prog = l->skel->progs.pktsample_xdp_dev;
		break;
	case PS_PROG_XDP_ENTRY:
		prog = l->skel->progs.pktsample_xdp_entry;
		break;
	case PS_PROG_XDP_EXIT:
		prog = l->skel->progs.pktsample_xdp_exit;
		break;
	case PS_PROG_DROP:
		prog = l->skel->progs.pktsample_drop;
		break;
	default:
		return NULL;
	}
	return bpf_program__fd(prog) >= 0 ? prog : NULL;
}

int ps_loader_prog_fd(const struct ps_loader *l, enum ps_prog p)
{
	struct bpf_program *prog = ps_loader_prog(l, p);

	return prog ? bpf_program__fd(prog) : -ENOENT;
}

struct bpf_object *ps_loader_object(const struct ps_loader *l)
{
	return l->skel ? l->skel->obj : NULL;
}

int ps_loader_events_fd(const struct ps_loader *l)
{
	return l->skel ? bpf_map__fd(l->skel->maps.events) : -ENOENT;
}

int ps_loader_rings_fd(const struct ps_loader *l)
{
	return l->skel ? bpf_map__fd(l->skel->maps.rings) : -ENOENT;
}

int ps_loader_emit_state_fd(const struct ps_loader *l)
{
	return l->skel ? bpf_map__fd(l->skel->maps.emit_state) : -ENOENT;
}

/* Rodata knobs: set between open and load, constants to the verifier. */
static void set_knobs(struct pktsample *skel, const struct ps_load_opts *o)
{
	const struct ps_sampling *s = o->sampling;

	skel->rodata->snaplen = o->snaplen ? o->snaplen : PS_SNAPLEN_MAX;
	skel->rodata->filter_enabled = o->filter != NULL;
	skel->rodata->pool_enabled = o->sflow_pool;
	skel->rodata->transport = o->transport;
	skel->rodata->ring_wakeup_bytes = (__u32)ps_source_wake_bytes(o->ring_bytes);
	skel->rodata->drop_netns_ino = o->drop_netns_ino;
	skel->rodata->drop_skip_reason = o->drop_skip_reason;
	skel->rodata->paths_enabled = o->paths;
	/* Asked only of a capture that has the hook: the answers cost a
	 * trial load, or a parse of the kernel's BTF. */
	if (o->hooks & PS_HOOKS_DROP)
		skel->rodata->drop_reason_arg = ps_kfeature_has(PS_KF_DROP_REASON);
	if (o->hooks & PS_HOOK_BIT(PS_HOOK_XDP))
		skel->rodata->xdp_frags = ps_kfeature_has(PS_KF_XDP_FRAGS);
	if (o->ctx && o->ctx->enabled) {
		skel->rodata->ctx_enabled = 1;
		skel->rodata->ctx_task_helpers = ps_kfeature_has(PS_KF_TC_TASK);
		skel->rodata->ctx_filter = o->ctx->filter;
		skel->rodata->ctx_pid = o->ctx->pid;
		memcpy((char *)skel->rodata->ctx_comm, o->ctx->comm, PS_COMM_LEN);
	}
	if (!s)
		return;
	skel->rodata->sample_mode = s->bpf_mode;
	skel->rodata->sample_threshold = s->threshold;
	skel->rodata->sample_every = s->n ? s->n : 1;
	skel->rodata->flow_seed = s->seed;
	skel->rodata->sample_interval_ns = s->interval_ns;
	skel->rodata->rate_cost_ns = s->cost_ns;
	skel->rodata->rate_burst_ns = s->burst_ns;
}

/* Make an opened object use another loaded object's maps. */
static int share_maps(struct pktsample *skel, const struct pktsample *from)
{
	struct bpf_map *const mine[] = { skel->maps.events,   skel->maps.rings,
					 skel->maps.counters, skel->maps.emit_state,
					 skel->maps.sampler,  skel->maps.pools,
					 skel->maps.owners,   skel->maps.ctx_cgroups,
					 skel->maps.ifaces,   skel->maps.paths };
	const struct bpf_map *const theirs[] = { from->maps.events,   from->maps.rings,
						 from->maps.counters, from->maps.emit_state,
						 from->maps.sampler,  from->maps.pools,
						 from->maps.owners,   from->maps.ctx_cgroups,
						 from->maps.ifaces,   from->maps.paths };

	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++) {
		int err = bpf_map__reuse_fd(mine[i], bpf_map__fd(theirs[i]));

		if (err) {
			pr_err("cannot share map %s: %s\n", bpf_map__name(mine[i]), strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Not in Debian 12's uapi headers (6.3+). */
#define PS_BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)

/*
 * pktsample's skeleton, on the bytes of the object this kernel takes
 * (user/kernel/kfeatures.h: ps_kfeatures_object). Only the XDP program
 * bound to a device (o->xdp_dev_ifindex) calls the VLAN metadata kfunc;
 * every other loader's programs leave the call out (the vlan_meta knob),
 * and the probe, which parses the kernel's BTF, is not made for them.
 */
static struct pktsample *open_skeleton(const struct ps_load_opts *o, int core_btf)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	char core_path[32];
	bool vlan_meta = o->xdp_dev_ifindex && ps_kfeature_has(PS_KF_XDP_VLAN_META);
	unsigned int have = (ps_kfeature_has(PS_KF_ATOMIC_FETCH) ? PS_KF_BIT(PS_KF_ATOMIC_FETCH) :
								   0) |
			    (vlan_meta ? PS_KF_BIT(PS_KF_XDP_VLAN_META) : 0);
	enum ps_kobject which = ps_kfeatures_object(have, vlan_meta);
	struct pktsample *skel;
	const void *data;
	size_t size;
	int err;

	if (core_btf >= 0) {
		snprintf(core_path, sizeof(core_path), "/proc/self/fd/%d", core_btf);
		opts.btf_custom_path = core_path;
	}
	if (which == PS_KOBJ_FULL)
		return pktsample__open_opts(&opts);
	skel = calloc(1, sizeof(*skel));
	if (!skel)
		return NULL;
	err = pktsample__create_skeleton(skel);
	if (!err) {
		data = which == PS_KOBJ_COMPAT ? pktsample_compat__elf_bytes(&size) :
						 pktsample_nokfunc__elf_bytes(&size);
		skel->skeleton->data = data;
		skel->skeleton->data_sz = size;
		err = bpf_object__open_skeleton(skel->skeleton, &opts);
	}
	if (err) {
		pktsample__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

/* The owners map's sockets (loader.h). */
static uint32_t owners_size(const struct ps_ctx_knobs *ctx)
{
	if (!ctx || !ctx->enabled)
		return 1;
	return ctx->filter ? PS_OWNERS_MAX : PS_OWNERS_UNFILTERED;
}

/*
 * The kernel's BTF cut to the members the programs reach through CO-RE
 * (corebtf.h): a socket's cookie and a request socket's listener
 * (bpf/context.bpf.h), a task's network namespace
 * (cgroup/sock_owner.bpf.c). The drop hook's, the XDP trace's and the
 * device-bound program reach much more: with them, -1, and libbpf reads all
 * of it, as it does when the cut fails.
 */
static int core_btf_fd(const struct ps_load_opts *o)
{
	static const char *const paths[] = {
		"sock_common.skc_cookie",
		"sock_common.skc_listener",
		"task_struct.nsproxy",
		"nsproxy.net_ns",
		"net.ns.inum",
	};
	int fd;

	if (o->xdp_dev_ifindex || o->trace_func || (o->hooks & PS_HOOKS_DROP))
		return -1;
	fd = ps_corebtf_kernel_fd(paths, sizeof(paths) / sizeof(paths[0]));
	if (fd < 0)
		pr_debug("the kernel's BTF not cut (%s): libbpf reads all of it\n", strerror(-fd));
	return fd;
}

/*
 * The xdp-entry and xdp-exit programs asked for, on the traced program's
 * function. 0, or -errno logged (a target without BTF, say).
 */
static int pick_trace_programs(struct pktsample *skel, const struct ps_load_opts *o)
{
	struct bpf_program *const progs[2] = { skel->progs.pktsample_xdp_entry,
					       skel->progs.pktsample_xdp_exit };
	const unsigned int hooks[2] = { PS_HOOK_XDP_ENTRY, PS_HOOK_XDP_EXIT };

	for (int i = 0; i < 2; i++) {
		bool want = o->trace_func && (o->hooks & PS_HOOK_BIT(hooks[i]));
		int err;

		bpf_program__set_autoload(progs[i], want);
		if (!want)
			continue;
		err = bpf_program__set_attach_target(progs[i], o->trace_prog_fd, o->trace_func);
		if (err) {
			pr_err("cannot trace XDP program %s(): %s\n", o->trace_func,
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Only the programs the capture needs are verified and loaded. */
static int pick_programs(struct pktsample *skel, const struct ps_load_opts *o)
{
	/* A loader of its own: the device-bound XDP program, or the traced
	 * program's entry and exit. */
	bool dev = o->xdp_dev_ifindex != 0, alone = dev || o->trace_func;
	bool clock = !alone && o->sampling && o->sampling->mode == PS_SAMPLE_CLOCK;
	bool xdp = !alone && (o->hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	unsigned int hooks = alone ? 0 : o->hooks;
	struct bpf_program *p = skel->progs.pktsample_xdp_dev;

	bpf_program__set_autoload(p, dev);
	if (dev) {
		bpf_program__set_ifindex(p, o->xdp_dev_ifindex);
		bpf_program__set_flags(p, bpf_program__flags(p) | PS_BPF_F_XDP_DEV_BOUND_ONLY);
	}
	/* Multi-buffer programs where the kernel has them: elsewhere the
	 * flag is one it does not know, and refuses. */
	if ((dev || (xdp && o->xdp_native)) && !ps_kfeature_has(PS_KF_XDP_FRAGS)) {
		struct bpf_program *const frags[] = { p, skel->progs.pktsample_xdp };

		for (int i = 0; i < 2; i++)
			bpf_program__set_flags(frags[i],
					       bpf_program__flags(frags[i]) & ~BPF_F_XDP_HAS_FRAGS);
	}
	bpf_program__set_autoload(skel->progs.pktsample_xdp, xdp && o->xdp_native);
	bpf_program__set_autoload(skel->progs.pktsample_xdp_skb, xdp && o->xdp_skb);
	bpf_program__set_autoload(skel->progs.pktsample_tc_ingress,
				  hooks & PS_HOOK_BIT(PS_HOOK_TC_INGRESS));
	bpf_program__set_autoload(skel->progs.pktsample_tc_egress,
				  hooks & PS_HOOK_BIT(PS_HOOK_TC_EGRESS));
	bpf_program__set_autoload(skel->progs.pktsample_drop,
				  hooks & (PS_HOOK_BIT(PS_HOOK_DROP) |
					   PS_HOOK_BIT(PS_HOOK_DROP_IP)));
	bpf_program__set_autoload(skel->progs.pktsample_tick, clock);
	bpf_program__set_autoload(skel->progs.pktsample_sock_create,
				  !alone && !o->maps_from && o->ctx && o->ctx->enabled);
	return pick_trace_programs(skel, o);
}

/* The cgroup filter's map: its ids, and the room a filter that follows
 * wants; 1 (the least a map has) without a filter. */
static uint32_t ctx_cgroups_size(const struct ps_ctx_knobs *k)
{
	size_t n = k ? (k->cgroups_room > k->n_cgroups ? k->cgroups_room : k->n_cgroups) : 0;

	return n ? (uint32_t)n : 1;
}

/* Every map's size: the rings' array (a ring per possible CPU; the rings
 * themselves are the ingest's to make, of any size: the kernel compares an
 * inner ring with the template by type alone) and their scratch, the
 * context's maps (a socket per entry; the cgroups wanted), and per
 * interface and hook the counters and pools. 0 or -errno, logged. */
static int size_maps(struct ps_loader *l, struct pktsample *skel, const struct ps_load_opts *o)
{
	uint32_t max_ifaces = o->max_ifaces ? o->max_ifaces : 1;
	int err;

	err = bpf_map__set_max_entries(skel->maps.rings, (uint32_t)l->ncpus);
	if (err) {
		pr_err("cannot size the ring buffers' array (%d CPUs): %s\n", l->ncpus,
		       strerror(-err));
		return err;
	}
	/* The ring's records are put together in a CPU's scratch entry,
	 * 256 KiB each: only the ring transport has them. */
	if (o->transport != PS_TRANSPORT_RINGBUF)
		err = bpf_map__set_value_size(skel->maps.ring_scratch, 8);
	else
		err = bpf_map__set_max_entries(skel->maps.ring_scratch, (uint32_t)l->ncpus);
	if (err) {
		pr_err("cannot size the ring buffers' scratch: %s\n", strerror(-err));
		return err;
	}
	err = bpf_map__set_max_entries(skel->maps.owners, owners_size(o->ctx));
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.ctx_cgroups, ctx_cgroups_size(o->ctx));
	if (err) {
		pr_err("cannot size the context maps: %s\n", strerror(-err));
		return err;
	}
	err = bpf_map__set_max_entries(skel->maps.paths, o->paths ? PS_PATHS_MAX : 1);
	if (err) {
		pr_err("cannot size the packets' paths: %s\n", strerror(-err));
		return err;
	}
	err = bpf_map__set_max_entries(skel->maps.ifaces, max_ifaces);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.counters, max_ifaces * PS_HOOK_MAX);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.pools, max_ifaces * PS_HOOK_MAX);
	if (!err && !o->maps_from)
		err = ps_ifslots_init(&l->slots, max_ifaces);
	if (err)
		pr_err("cannot size the maps for %u interfaces: %s\n", max_ifaces, strerror(-err));
	return err;
}

/* The locked-memory limit in KiB (RLIM_INFINITY's too). */
static unsigned long long memlock_kib(void)
{
	struct rlimit r;

	return getrlimit(RLIMIT_MEMLOCK, &r) ? 0 : (unsigned long long)r.rlim_cur / 1024;
}

/* Is a refused load this kernel's accounting of BPF memory against a
 * locked-memory limit that libbpf could not lift (no CAP_SYS_RESOURCE)? */
static bool memlock_too_low(void)
{
	struct rlimit r;

	return !ps_kfeature_has(PS_KF_MEMCG) && !getrlimit(RLIMIT_MEMLOCK, &r) &&
	       r.rlim_cur != RLIM_INFINITY;
}

/* Into the kernel: the maps shared with another loader's, the filter
 * spliced, the object loaded, then the cgroups of the context filter. 0 or
 * -errno, logged. */
static int load_object(struct pktsample *skel, const struct ps_load_opts *o)
{
	int err = o->maps_from ? share_maps(skel, o->maps_from->skel) : 0;

	if (!err && o->filter)
		err = ps_splice_set(skel->obj, o->filter);
	if (err)
		return err;
	err = pktsample__load(skel);
	/* Loaded or not, the splice images are no longer needed. */
	ps_splice_forget(skel->obj);
	/* The limit first: a reload's second set of programs, with a filter,
	 * meets it too (the verifier refuses with EINVAL or EACCES). */
	if (err == -EPERM && memlock_too_low())
		pr_err("cannot load the BPF programs: this kernel counts BPF memory against the "
		       "locked-memory limit (Linux 5.11 charges the cgroup instead), %llu KiB "
		       "here, which only CAP_SYS_RESOURCE may raise; 'ulimit -l unlimited' "
		       "first, or LimitMEMLOCK=infinity in a systemd unit\n",
		       memlock_kib());
	else if (err && o->filter)
		pr_err("cannot load the BPF programs with this filter: %s; the kernel's "
		       "verifier rejected it or it is too complex (-v for the verifier log)\n",
		       strerror(-err));
	else if (err)
		pr_err("cannot load the BPF programs: %s (-v for the verifier log)\n",
		       strerror(-err));
	for (size_t i = 0; !err && !o->maps_from && o->ctx && i < o->ctx->n_cgroups; i++) {
		uint8_t one = 1;

		if (bpf_map_update_elem(bpf_map__fd(skel->maps.ctx_cgroups), &o->ctx->cgroups[i],
					&one, BPF_ANY)) {
			err = -errno;
			pr_err("cannot fill the cgroup filter: %s\n", strerror(-err));
		}
	}
	return err;
}

int ps_loader_load(struct ps_loader *l, const struct ps_load_opts *o)
{
	struct pktsample *skel;
	int err, core_btf;

	memset(l, 0, sizeof(*l));
	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus <= 0) {
		err = l->ncpus ? l->ncpus : -EINVAL;
		pr_err("cannot count possible CPUs: %s\n", strerror(-err));
		return err;
	}
	/* Our section handlers must exist before the object is opened. */
	err = ps_splice_register();
	if (err)
		return err;
	core_btf = core_btf_fd(o);
	skel = open_skeleton(o, core_btf);
	if (!skel) {
		if (core_btf >= 0)
			close(core_btf);
		err = errno ? -errno : -EINVAL;
		pr_err("cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	set_knobs(skel, o);
	err = pick_programs(skel, o);
	if (!err)
		err = size_maps(l, skel, o);
	if (!err)
		err = load_object(skel, o);
	if (core_btf >= 0)
		close(core_btf);
	if (err) {
		pktsample__destroy(skel);
		ps_ifslots_free(&l->slots);
		return err;
	}
	l->skel = skel;
	return 0;
}

int ps_loader_ctx_cgroups_fd(const struct ps_loader *l)
{
	return l->skel ? bpf_map__fd(l->skel->maps.ctx_cgroups) : -ENOENT;
}

int ps_loader_owners_fd(const struct ps_loader *l)
{
	return l->skel ? bpf_map__fd(l->skel->maps.owners) : -ENOENT;
}

int ps_loader_attach_owner(struct ps_loader *l, const char *cgroup_root)
{
	struct bpf_link *link;
	int fd, err;

	fd = open(cgroup_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	link = bpf_program__attach_cgroup(l->skel->progs.pktsample_sock_create, fd);
	err = libbpf_get_error(link);
	close(fd);
	if (err)
		return err;
	l->owner_link = link;
	return 0;
}

void ps_loader_close(struct ps_loader *l)
{
	bpf_link__destroy(l->owner_link);
	l->owner_link = NULL;
	pktsample__destroy(l->skel);
	l->skel = NULL;
	ps_ifslots_free(&l->slots);
}

/* Counter entry key of a slot and hook, summed over every CPU. */
static int read_slot(const struct ps_loader *l, uint32_t key, struct ps_counters *sum)
{
	struct ps_counters *v = calloc(l->ncpus, sizeof(*v));
	int err = 0;

	memset(sum, 0, sizeof(*sum));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.counters), &key, v))
		err = -errno;
	for (int i = 0; !err && i < l->ncpus; i++)
		ps_counters_add(sum, &v[i]);
	free(v);
	return err;
}

int ps_loader_add_iface(struct ps_loader *l, uint32_t ifindex, bool raw)
{
	struct ps_iface v = { .flags = raw ? PS_IFACE_RAW : 0 };
	int slot, err;

	if (!l->skel || !l->slots.capacity)
		return -ENOENT;
	slot = ps_ifslots_take(&l->slots, ifindex);
	if (slot < 0)
		return slot;
	v.slot = (uint32_t)slot;
	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.ifaces), &ifindex, &v, BPF_ANY)) {
		err = -errno;
		ps_ifslots_release(&l->slots, ifindex);
		pr_err("cannot add interface %u to the ifaces map: %s\n", ifindex, strerror(-err));
		return err;
	}
	return 0;
}

/*
 * The hooks stop counting the interface the moment its entry goes; its
 * counters are read after that, so they are final, then zeroed for the
 * slot's next interface (a packet a hook was still holding may count
 * into them: there is no interface left for it to be on).
 */
int ps_loader_remove_iface(struct ps_loader *l, uint32_t ifindex, struct ps_counters *final)
{
	int slot = l->skel ? ps_ifslots_find(&l->slots, ifindex) : -ENOENT;
	void *zeros;
	int err = 0;

	if (slot < 0)
		return slot;
	zeros = calloc(l->ncpus, sizeof(struct ps_counters));
	if (!zeros) {
		pr_err("cannot free the counters of interface %u: %s\n", ifindex, strerror(ENOMEM));
		return -ENOMEM;
	}
	bpf_map_delete_elem(bpf_map__fd(l->skel->maps.ifaces), &ifindex);
	for (uint32_t h = 0; h < PS_HOOK_MAX && !err; h++) {
		uint32_t key = (uint32_t)slot * PS_HOOK_MAX + h;
		uint64_t zero = 0;

		err = read_slot(l, key, &final[h]);
		if (!err &&
		    (bpf_map_update_elem(bpf_map__fd(l->skel->maps.counters), &key, zeros,
					 BPF_ANY) ||
		     bpf_map_update_elem(bpf_map__fd(l->skel->maps.pools), &key, &zero, BPF_ANY)))
			err = -errno;
	}
	free(zeros);
	if (err) {
		/* The slot stays taken: its counters are not clean. */
		pr_err("cannot free the counters of interface %u: %s\n", ifindex, strerror(-err));
		return err;
	}
	ps_ifslots_release(&l->slots, ifindex);
	return 0;
}

int ps_loader_read_counter(const struct ps_loader *l, uint32_t ifindex, unsigned int hook,
			   struct ps_counters *sum)
{
	int slot = l->skel ? ps_ifslots_find(&l->slots, ifindex) : -ENOENT;

	memset(sum, 0, sizeof(*sum));
	if (slot < 0 || hook >= PS_HOOK_MAX)
		return -ENOENT;
	return read_slot(l, (uint32_t)slot * PS_HOOK_MAX + hook, sum);
}

int ps_loader_read_drop_reasons(const struct ps_loader *l, uint64_t *counts)
{
	uint64_t *v;
	int err = 0;

	memset(counts, 0, PS_DROP_REASON_SLOTS * sizeof(*counts));
	if (!l->skel)
		return -ENOENT;
	v = calloc(l->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t r = 0; r < PS_DROP_REASON_SLOTS && !err; r++) {
		if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.drop_reasons), &r, v)) {
			err = -errno;
			break;
		}
		for (int i = 0; i < l->ncpus; i++)
			counts[r] += v[i];
	}
	free(v);
	return err;
}

int ps_loader_read_sampler(const struct ps_loader *l, struct ps_sampler *per_cpu)
{
	uint32_t zero = 0;

	if (!l->skel)
		return -ENOENT;
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.sampler), &zero, per_cpu))
		return -errno;
	return 0;
}
