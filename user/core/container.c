// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "container.h"

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
	{ "", NULL }, /* a bare id: the runtime from the parent's name */
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
static bool component_id(const char *c, size_t len, const char *parent, size_t plen, char *id,
			 const char **runtime)
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
