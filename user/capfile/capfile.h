/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture-file session: -w's file, or with -C/-G/-W the files one
 * after another. It owns the output (user/capfile/output.h), the pcapng writer,
 * the rotation (user/capfile/rotate.h) and what each file counts: a file starts
 * with the section and one IDB per target (the same interface ids in every
 * file), gets the packets as EPBs with their annotations, and ends with
 * one ISB per target for what its hook did while that file was the output.
 * Rotation is internal: -C's happens before a packet that would go to a
 * full file, -G's when the capture asks (ps_capfile_tick). A packet held
 * by the merge across a rotation goes to the new file: none is lost or
 * written twice.
 *
 * It is a sink (user/ingest/sink.h); the capture calls downward only.
 */
#ifndef PS_CAPFILE_H
#define PS_CAPFILE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "output.h"
#include "pcapng.h"
#include "rotate.h"
#include "sink.h"
#include "target.h"

/* What the session needs of the options. */
struct ps_capfile_cfg {
	const char *output;	    /* -w: a file name, or "-" (stdout) */
	uint64_t file_size;	    /* -C, bytes; 0: none */
	uint64_t rotate_ns;	    /* -G; 0: none */
	uint32_t file_count;	    /* -W; 0: none */
	const char *postrotate_cmd; /* -z; NULL: none */
	uint32_t snaplen;
	bool epb_verdict;   /* --epb-verdict */
	const char *filter; /* the expression, for the IDBs; NULL */
	bool counts_filter; /* ISBs have filter_accept (filter or sampling) */
	const char *tag;    /* appended to every packet comment */
	bool incidents;	    /* --flight: a file per incident (rotate.h) */
};

/* Per target, what its IDB says besides name, link type and snaplen. */
struct ps_capfile_iface {
	char description[160]; /* the hook, as -r reads it back */
	char comment[320];     /* how it was attached, the sampling */
};

/* Per CPU: the EPB options of its last packet, encoded. Consecutive
 * packets mostly share them, and formatting and encoding them per packet
 * was the ingest's top cost. Valid for a packet of the same annotation. */
struct ps_epb_cache {
	bool valid;
	struct ps_annot key;
	struct pcapng_epb_opts opts;
};

/* Do the cached options serve p (no note of its own, the same
 * annotation)? */
static inline bool ps_epb_cache_fits(const struct ps_epb_cache *cs, const struct ps_sink_pkt *p)
{
	return cs->valid && !p->note && ps_annot_same(&cs->key, &p->a);
}

struct ps_capfile {
	struct ps_sink sink;
	struct ps_capfile_cfg cfg;
	struct ps_output out;
	struct pcapng_writer *w;	    /* NULL until started, and between files */
	const volatile sig_atomic_t *abort; /* a second signal: writes give up */
	struct ps_rotate rot;
	char path[PATH_MAX];	/* the current file's name */
	uint64_t file_start_ns; /* wall clock: the current file began */
	const struct ps_target *targets;
	const struct ps_capfile_iface *ifaces;
	int n_targets;
	struct ps_counter_src counters;
	/* Per target: the counters when the current file began, the packets
	 * in files already closed, and its pcapng interface id. */
	struct ps_counters *file_base;
	uint64_t *closed_written;
	uint32_t *if_id;
	bool *gone; /* its interface disappeared */
	int room;   /* the arrays' length */
	/* Packets of interfaces whose target another took over. */
	uint64_t retired_written;
	struct ps_epb_cache *cpus;
	int ncpus;
	/* Per process of the capture (ps_who.proc): its PIB's index in the
	 * current file, plus one; 0 = none written yet. */
	uint32_t *pib;
	uint32_t n_pib;
	int error; /* the first error: sticky */
};

/*
 * Open the first file, named as -C/-G name it, before anything is
 * attached; it is emptied only by ps_capfile_start. abort: a flag that
 * makes a blocked write give up. 0 or -errno, logged: -ENOTTY for a
 * terminal, -EINVAL/-ENAMETOOLONG for a bad name.
 */
int ps_capfile_open(struct ps_capfile *f, const struct ps_capfile_cfg *cfg,
		    const volatile sig_atomic_t *abort);
/*
 * The capture starts: empty the file, write the section and an IDB per
 * target (ifaces[t] for target t; both outlive the session), start -G's
 * timer at monotonic now_ns. counters: read for the ISBs. 0 or -errno,
 * logged.
 */
int ps_capfile_start(struct ps_capfile *f, const struct ps_target *targets,
		     const struct ps_capfile_iface *ifaces, int n_targets, int ncpus,
		     const struct ps_counter_src *counters, uint64_t now_ns);
/* The sink to register with the ingest. */
struct ps_sink *ps_capfile_sink(struct ps_capfile *f);
/* -G at monotonic now_ns: 0 (rotated if due), 1 the last file of -W is
 * complete (the capture should stop), or -errno. */
int ps_capfile_tick(struct ps_capfile *f, uint64_t now_ns);
/* --flight's next incident: close the current file and go on in the
 * next one (rotate.h names it); a FIFO (an extcap's) stays the one stream.
 * 0 or -errno, logged; sticky. */
int ps_capfile_next_incident(struct ps_capfile *f);
/* The interface ifindex disappeared: its ISBs say so. */
void ps_capfile_mark_gone(struct ps_capfile *f, int ifindex);
/*
 * A reload changed the filter or the sampling: every interface's ISB up to
 * now, then its IDB anew (filter: the expression its if_filter says; the
 * comments are the capture's file_ifaces, described again), which the
 * packets from now on are written under. 0 or -errno, logged; sticky.
 */
int ps_capfile_renew(struct ps_capfile *f, const char *filter, bool counts_filter);
/*
 * The capture follows interfaces. end: target t's interface is gone and
 * another takes the entry over: its last ISB, now; its packets still
 * count in ps_capfile_written's total. add: target t (and ifaces[t]) is a
 * new interface's, and there are n_targets: its IDB, after the packets
 * so far (pcapng allows that). 0 or -errno, logged; errors are sticky.
 */
void ps_capfile_end_target(struct ps_capfile *f, int t);
int ps_capfile_add_target(struct ps_capfile *f, int t, int n_targets);
/* Packets of target t (or of all, t < 0) in every file so far. */
uint64_t ps_capfile_written(const struct ps_capfile *f, int t);
/* Did writing fail (the file ends early)? */
bool ps_capfile_failed(const struct ps_capfile *f);
/* The current file, as the user named it ("stdout" for '-'). */
const char *ps_capfile_path(const struct ps_capfile *f);
/* Release everything; a file created and never started is removed. */
void ps_capfile_free(struct ps_capfile *f);

#endif
