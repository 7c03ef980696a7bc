// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "descent.h"
#include "model.h"
#include "procfs.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* Whether the kernel has /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN). */
static bool have_children_files(void)
{
	static int have = -1;
	char path[64];

	if (have < 0) {
		snprintf(path, sizeof(path), "/proc/self/task/%ld/children",
			 (long)syscall(SYS_gettid));
		have = access(path, R_OK) == 0;
	}
	return have;
}

/* @pid's children, from each of its threads' children file: how many. */
static int children_of(pid_t pid, pid_t *out, int max)
{
	char path[320], buf[4096];
	struct dirent *d;
	int n = 0, got;
	DIR *tasks;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	tasks = opendir(path);
	if (!tasks)
		return 0; /* gone */
	while ((d = readdir(tasks)) && n < max) {
		char *p, *end;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue; /* the thread is gone */
		got = (int)fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[got > 0 ? got : 0] = '\0';
		for (p = buf; n < max; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			out[n++] = (pid_t)c;
		}
	}
	closedir(tasks);
	return n;
}

/* The same from every process's parent (no children files): the whole tree below @root. */
static int walk_by_parent(pid_t root, pid_t *out, int max)
{
	struct model_stat st;
	struct dirent *d;
	int n = 0, i, grown = 1;
	pid_t *all = NULL, *ppid = NULL;
	size_t cnt = 0, cap = 0;
	DIR *proc = opendir("/proc");

	if (!proc)
		return -errno;
	while ((d = readdir(proc))) {
		pid_t pid = (pid_t)atoi(d->d_name);

		if (pid <= 0 || procfs__model_stat(pid, &st))
			continue;
		if (cnt == cap) {
			size_t c = cap ? cap * 2 : 1024;
			pid_t *a = realloc(all, c * sizeof(*a)), *b;

			if (!a)
				break;
			all = a;
			b = realloc(ppid, c * sizeof(*b));
			if (!b)
				break;
			ppid = b;
			cap = c;
		}
		all[cnt] = pid;
		ppid[cnt++] = (pid_t)st.ppid;
	}
	closedir(proc);
	/* Down from @root, a level a pass, until a pass adds nothing. */
	while (grown && n < max) {
		grown = 0;
		for (size_t k = 0; k < cnt && n < max; k++) {
			bool below = ppid[k] == root;

			for (i = 0; i < n && !below; i++)
				below = ppid[k] == out[i];
			for (i = 0; i < n && below; i++)
				if (out[i] == all[k])
					below = false;
			if (below) {
				out[n++] = all[k];
				grown = 1;
			}
		}
	}
	free(all);
	free(ppid);
	return n;
}

int descent__walk(pid_t root, pid_t *out, int max)
{
	int n, at = 0;

	if (!have_children_files())
		return walk_by_parent(root, out, max);
	n = children_of(root, out, max);
	while (at < n && n < max)
		n += children_of(out[at++], out + n, max - n);
	return n;
}

int descent__signal(pid_t pid, unsigned long long start_ticks, int sig)
{
	struct model_stat st;
	int fd, err = 0;

	if (pid <= 1 || pid == getpid())
		return -EPERM;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return -errno;
	/* The pidfd holds the process: its /proc entry now is its own, whatever comes. */
	if (procfs__model_stat(pid, &st) || st.start_ticks != start_ticks)
		err = -ESRCH;
	else if (syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) < 0)
		err = -errno;
	close(fd);
	return err;
}
