// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cgroup.h"

/*
 * The prefixes of a container's own cgroup, by runtime: with the systemd
 * cgroup driver a scope ("<prefix><id>.scope"), with cgroupfs a directory
 * ("libpod-<id>", or a bare id under "docker/" or a kubepods pod).
 */
static const struct layout {
	const char *prefix;
	const char *runtime;
} layouts[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "cri-o" },
	{ "libpod-", "podman" },
	{ "", NULL },		/* a bare id: the runtime from the parent's name */
};

static bool is_hex_id(const char *s, size_t len)
{
	size_t i;

	if (len != CGROUP_CONTAINER_ID_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Does the component @c (@len bytes) name a container? */
static bool component_id(const char *c, size_t len, const char *parent, size_t plen,
			 char *id, const char **runtime)
{
	size_t i, n;

	if (len > 6 && !memcmp(c + len - 6, ".scope", 6))
		len -= 6;
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		n = strlen(layouts[i].prefix);
		if (len < n || memcmp(c, layouts[i].prefix, n) || !is_hex_id(c + n, len - n))
			continue;
		memcpy(id, c + n, CGROUP_CONTAINER_ID_LEN);
		id[CGROUP_CONTAINER_ID_LEN] = '\0';
		*runtime = layouts[i].runtime;
		if (!n && plen == 6 && !memcmp(parent, "docker", 6))
			*runtime = "docker";
		return true;
	}
	return false;
}

bool cgroup__container(const char *path, size_t len, char id[CGROUP_CONTAINER_ID_LEN + 1],
		       const char **runtime)
{
	const char *end = path + strnlen(path, len), *c, *p, *pend;

	id[0] = '\0';
	*runtime = NULL;
	/* From the leaf up: a runtime may nest cgroups inside its container's. */
	while (end > path) {
		for (c = end; c > path && c[-1] != '/'; c--)
			;
		pend = c > path ? c - 1 : path;
		for (p = pend; p > path && p[-1] != '/'; p--)
			;
		if (component_id(c, end - c, p, pend - p, id, runtime))
			return true;
		end = c > path ? c - 1 : path;
	}
	return false;
}

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
	} else if (!strncmp(ctl, ":name=systemd:", 14) ||
		   (!cp->v1[0] && strcmp(path, "/"))) {
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
