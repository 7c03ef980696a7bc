/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a process runs: its cgroup, and the container that the cgroup's
 * path names, in the layouts that container runtimes and systemd use.
 */
#ifndef __CGROUP_H
#define __CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#define CGROUP_CONTAINER_ID_LEN	64	/* hex digits of a container id */

/*
 * The container id that @path names, in @id (65 bytes), and the runtime
 * that makes that layout in *@runtime ("docker", "containerd", "cri-o",
 * "podman"; NULL where the layout does not say). The innermost component
 * that names one wins; a runtime's monitor (conmon's scope) is not a
 * container. Returns false, with @id empty, when @path names none.
 */
bool cgroup__container(const char *path, size_t len, char id[CGROUP_CONTAINER_ID_LEN + 1],
		       const char **runtime);

/* A process's cgroups as /proc/PID/cgroup lists them. */
struct cgroup_paths {
	char v2[4096];		/* the unified hierarchy's path, "" if not listed */
	char v1[4096];		/* a v1 hierarchy's: name=systemd's, else the first not "/" */
};

/* Reads /proc/PID/cgroup. Returns 0, or -errno when the process is gone. */
int cgroup__read_proc(pid_t pid, struct cgroup_paths *cp);

/*
 * The id of the unified-hierarchy cgroup at @path (the kernfs inode
 * number, as BPF's cgroup ids), 0 if cgroup2 is not mounted or the cgroup
 * is gone.
 */
__u64 cgroup__v2_id(const char *path);

#endif /* __CGROUP_H */
