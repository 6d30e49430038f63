/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A start-up that does not parse all of the kernel's BTF. libbpf resolves
 * an object's CO-RE relocations against /sys/kernel/btf/vmlinux, which it
 * reads, checks and indexes whole: every type the kernel has, a large part
 * of a capture's start (doc/performance.md#start-up). The programs every
 * capture loads reach a handful of members. ps_corebtf_cut() finds them in
 * two passes over the raw BTF and builds a BTF of those alone, at the
 * kernel's offsets, as `bpftool gen min_core_btf` does; libbpf takes it as
 * btf_custom_path and checks each relocation against it as it would
 * against the whole.
 */
#ifndef PS_COREBTF_H
#define PS_COREBTF_H

#include <stddef.h>

struct btf;

/*
 * The types of raw (BTF as /sys/kernel/btf/vmlinux has it) that paths
 * reach, each "struct.member[.member...]": the struct by its name (which
 * must be one struct's alone), each member by its name, found through
 * anonymous structs and unions as libbpf finds it. Members keep their
 * offsets and their kind: an integer its size and encoding, a pointer
 * becomes void * (a relocation never follows one), a struct or union its
 * size and the members asked for. Pure: reads raw alone, never exits.
 * A new BTF, or NULL with errno: EINVAL raw is not BTF this reads, ENOENT
 * a struct or member is not there, ENOTUNIQ two structs have the name,
 * ENOTSUP a member is of a kind this does not copy, ENOMEM.
 */
struct btf *ps_corebtf_cut(const void *raw, size_t len, const char *const *paths, size_t n);

/*
 * The running kernel's BTF cut to paths: a file descriptor (a memfd) that
 * holds it as raw BTF, for libbpf's btf_custom_path as /proc/self/fd/N.
 * The file is mapped where the kernel allows (6.16+), else read. -errno.
 */
int ps_corebtf_kernel_fd(const char *const *paths, size_t n);

#endif
