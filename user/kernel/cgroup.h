/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Where a process runs, as /proc and cgroupfs say: its cgroups and their ids. */
#ifndef __CGROUP_H
#define __CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "container.h"

/* A process's cgroups as /proc/PID/cgroup lists them. */
struct cgroup_paths {
	char v2[4096]; /* the unified hierarchy's path, "" if not listed */
	char v1[4096]; /* a v1 hierarchy's: name=systemd's, else the first not "/" */
};

/* Reads /proc/PID/cgroup. Returns 0, or -errno when the process is gone. */
int cgroup__read_proc(pid_t pid, struct cgroup_paths *cp);

/*
 * The id of the unified-hierarchy cgroup at @path (the kernfs inode
 * number, as BPF's cgroup ids), 0 if cgroup2 is not mounted or the cgroup
 * is gone.
 */
__u64 cgroup__v2_id(const char *path);

struct pcgroup;
/* @pid's cgroup now, from /proc and cgroupfs: a new reference, NULL if gone or unknown. */
struct pcgroup *cgroup__read_pcgroup(pid_t pid);

#endif /* __CGROUP_H */
