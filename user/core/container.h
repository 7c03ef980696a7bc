/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The container that a cgroup's path names, in the layouts that container
 * runtimes and systemd use: from the path alone, no I/O.
 */
#ifndef __CONTAINER_H
#define __CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

#define CGROUP_CONTAINER_ID_LEN 64 /* hex digits of a container id */

/*
 * The container id that @path names, in @id (65 bytes), and the runtime
 * that makes that layout in *@runtime ("docker", "containerd", "cri-o",
 * "podman"; NULL where the layout does not say). The innermost component
 * that names one wins; a runtime's monitor (conmon's scope) is not a
 * container. Returns false, with @id empty, when @path names none.
 */
bool cgroup__container(const char *path, size_t len, char id[CGROUP_CONTAINER_ID_LEN + 1],
		       const char **runtime);

#endif /* __CONTAINER_H */
