// SPDX-License-Identifier: GPL-2.0-only
/* The ingest's account at the end of a capture (ingest.h: ps_ingest_report),
 * and of followed packets' times (ps_ingest_path_times). */
#include "ingest.h"
#include "log.h"
#include "pathseen.h"

void ps_ingest_path_times(struct ps_ingest *c, const char *prefix, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (c->paths)
		ps_pathtime_format(&c->paths->times, prefix, ps_ingest_target_name, c, buf, len);
}

void ps_ingest_report(const struct ps_ingest *c, bool ring)
{
	struct ps_ingest_stats st;

	ps_ingest_stats(c, &st);
	for (int i = 0; i < c->n_src; i++)
		if (c->src[i].corrupt)
			pr_warn("%s buffer of CPU %d: %llu bytes were no record, skipped\n",
				ring ? "ring" : "perf", c->src[i].cpu, /* a group's: its first */
				(unsigned long long)c->src[i].corrupt);
	if (st.rd.malformed || st.unknown)
		pr_warn("%llu malformed and %llu unexpected samples ignored\n",
			(unsigned long long)st.rd.malformed, (unsigned long long)st.unknown);
	if (st.forced)
		pr_warn("%llu packets written before their place in time was certain "
			"(the reorder memory was full); the file may be out of order\n",
			(unsigned long long)st.forced);
	pr_info("merge: %llu rounds, %llu packets handed on unheld, at most %llu KiB held, %llu "
		"packets out of order, %llu copied out of a full buffer\n",
		(unsigned long long)st.rounds, (unsigned long long)st.passed,
		(unsigned long long)st.peak_held >> 10, (unsigned long long)st.late,
		(unsigned long long)st.unpinned);
	if (ring)
		pr_info("ring buffer: %llu sequence gaps\n", (unsigned long long)st.rd.seq_gaps);
	else
		pr_info("perf buffer: %llu lost records reported, %llu sequence gaps\n",
			(unsigned long long)st.lost, (unsigned long long)st.rd.seq_gaps);
}
