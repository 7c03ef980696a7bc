// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cgroup.h"
#include "lineage.h"

/* "N:controllers:path": the path, if the line is the one wanted in @cp. */
static void take_line(char *line, struct cgroup_paths *cp)
{
	char *ctl = strchr(line, ':'), *path;
	size_t len;

	if (!ctl || !(path = strchr(ctl + 1, ':')))
		return;
	path++;
	len = strcspn(path, "\n");
	path[len] = '\0';
	if (len >= sizeof(cp->v2))
		return;
	if (!strncmp(line, "0::", 3)) {
		memcpy(cp->v2, path, len + 1);
	} else if (!strncmp(ctl, ":name=systemd:", 14) || (!cp->v1[0] && strcmp(path, "/"))) {
		memcpy(cp->v1, path, len + 1);
	}
}

int cgroup__read_proc(pid_t pid, struct cgroup_paths *cp)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	cp->v2[0] = cp->v1[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0)
		take_line(line, cp);
	free(line);
	fclose(f);
	return 0;
}

/* Where cgroup2 is mounted: /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid. */
static const char *v2_mount(void)
{
	static const char *const where[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	static const char *found;
	static bool looked;
	struct stat st;
	char path[64];
	size_t i;

	if (looked)
		return found;
	looked = true;
	for (i = 0; i < sizeof(where) / sizeof(where[0]) && !found; i++) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", where[i]);
		if (stat(path, &st) == 0)
			found = where[i];
	}
	return found;
}

__u64 cgroup__v2_id(const char *path)
{
	const char *mnt = v2_mount();
	struct stat st;
	char *full;
	__u64 id = 0;

	if (!mnt || path[0] != '/' || asprintf(&full, "%s%s", mnt, path) < 0)
		return 0;
	if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
		id = st.st_ino;
	free(full);
	return id;
}

struct pcgroup *cgroup__read_pcgroup(pid_t pid)
{
	struct cgroup_paths *cp = malloc(sizeof(*cp));
	struct pcgroup *cg = NULL;

	if (!cp)
		return NULL;
	if (cgroup__read_proc(pid, cp) == 0)
		cg = pcgroup__new(cp->v2[0] ? cp->v2 : NULL, sizeof(cp->v2),
				  cp->v2[0] ? cgroup__v2_id(cp->v2) : 0, cp->v1[0] ? cp->v1 : NULL,
				  sizeof(cp->v1));
	free(cp);
	return cg;
}
