// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The startup snapshot: one record per process (thread-group leader),
 * zombies and kernel threads included, written to the iterator's seq_file.
 * Each task is read under RCU in one pass, with the same fill_proc() as the
 * events, and stamped with the time it was read so that user space can
 * replay only the events that are newer.
 */
#include "common.bpf.h"

/* Testing aid: the verifier refuses this program, as a kernel without iterators would. */
const volatile bool test_fault_iter = false;

SEC("iter/task")
int snapshot_task(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct pgt_snap rec = {};

	if (test_fault_iter)
		return *(volatile int *)(long)bpf_get_smp_processor_id(); /* scalar as pointer */
	if (!t || t->pid != t->tgid)
		return 0;
	rec.hdr.type = PGT_SNAP;
	rec.hdr.size = sizeof(rec);
	rec.hdr.ts_ns = bpf_ktime_get_boot_ns();
	fill_proc(&rec.proc, t);
	bpf_seq_write(seq, &rec, sizeof(rec));
	return 0;
}
