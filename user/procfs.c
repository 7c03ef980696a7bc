// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procfs.h"

struct pp {
	pid_t pid, ppid;
};

/* ppid is the 4th field of /proc/PID/stat, after a comm that may hold ")". */
static int read_ppid(pid_t pid, pid_t *ppid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", ppid) != 1)
		return -EINVAL;
	return 0;
}

int procfs__descendants(pid_t root, pid_t **out)
{
	struct pp *all = NULL, *tmp;
	size_t n = 0, cap = 0, i, head = 0;
	pid_t *res = NULL, *rtmp;
	size_t nres = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t pid = atoi(de->d_name), ppid;

		if (pid <= 0 || read_ppid(pid, &ppid))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			tmp = realloc(all, cap * sizeof(*all));
			if (!tmp)
				goto oom;
			all = tmp;
		}
		all[n].pid = pid;
		all[n++].ppid = ppid;
	}
	closedir(d);
	d = NULL;

	/* Breadth-first from root: res doubles as the queue. */
	res = malloc((n + 1) * sizeof(*res));
	if (!res)
		goto oom;
	res[nres++] = root;
	while (head < nres) {
		pid_t parent = res[head++];

		for (i = 0; i < n; i++)
			if (all[i].ppid == parent && all[i].pid != root)
				res[nres++] = all[i].pid;
	}
	free(all);
	/* Drop root from the front. */
	memmove(res, res + 1, (nres - 1) * sizeof(*res));
	rtmp = realloc(res, nres * sizeof(*res));
	*out = rtmp ? rtmp : res;
	return (int)(nres - 1);
oom:
	if (d)
		closedir(d);
	free(all);
	free(res);
	return -ENOMEM;
}
