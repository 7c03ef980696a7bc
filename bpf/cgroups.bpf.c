// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Moves between cgroups (cgroup_attach_task): systemd-logind defines a login
 * session by its cgroup scope, so a process that moves itself out of it
 * leaves its login in a way no process-group event shows.
 */
#include "common.bpf.h"

static __always_inline int handle_attach(__u64 cgroup_id, __u32 hierarchy_id, const char *path,
					 struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct pgt_cgroup *e;

	/* A whole process moves with its leader; single-thread moves are skipped. */
	if (BPF_CORE_READ(task, pid) != tgid || !tgid_wanted(tgid))
		return 0;
	e = pgt_reserve(PGT_CGROUP, sizeof(*e));
	if (!e)
		return 0;
	fill_proc(&e->proc, task);
	e->cgroup_id = cgroup_id;
	e->hierarchy_id = hierarchy_id;
	bpf_probe_read_kernel_str(e->path, sizeof(e->path), path);
	pgt_submit(e);
	return 0;
}

SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(cgroup_attach_task, struct cgroup *dst, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	return handle_attach(BPF_CORE_READ(dst, kn, id), BPF_CORE_READ(dst, root, hierarchy_id),
			     path, task);
}

SEC("raw_tp/cgroup_attach_task")
int BPF_PROG(cgroup_attach_task_raw, struct cgroup *dst, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	return handle_attach(BPF_CORE_READ(dst, kn, id), BPF_CORE_READ(dst, root, hierarchy_id),
			     path, task);
}

#ifndef PGT_NO_KFUNCS
/* Classic tracepoint: ids and path from the record, the task by its pid. */
SEC("tp/cgroup/cgroup_attach_task")
int cgroup_attach_task_tp(struct trace_event_raw_cgroup_migrate *ctx)
{
	struct task_struct *task = bpf_task_from_pid(ctx->pid);
	unsigned int loc = ctx->__data_loc_dst_path & 0xffff;

	if (!task)
		return 0;
	handle_attach(ctx->dst_id, ctx->dst_root, (const char *)ctx + loc, task);
	bpf_task_release(task);
	return 0;
}
#endif /* PGT_NO_KFUNCS */
