// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "procfs.h"
#include "fate.h"
#include "model.h"

int procfs__read_exec(pid_t pid, char *exe, size_t exe_size, char *args, size_t size, size_t *len,
		      bool *cut)
{
	char path[64], more;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, exe_size - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*len = fread(args, 1, size, f);
	*cut = *len == size && fread(&more, 1, 1, f) == 1;
	fclose(f);
	return 0;
}

/*
 * /proc/PID/stat: "pid (comm) state ppid pgrp session tty_nr tpgid flags
 * ... starttime(22)". The comm may hold spaces and ")", so parse from the
 * last ")".
 */
int procfs__read_stat(pid_t pid, struct proc_stat *st)
{
	char path[64], buf[1024], *open_paren, *close_paren;
	struct stat sb;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->pid = pid;
	n = (size_t)(close_paren - open_paren - 1);
	if (n > sizeof(st->comm) - 1)
		n = sizeof(st->comm) - 1;
	memcpy(st->comm, open_paren + 1, n);
	/* Fields 3 to 24 of proc(5). */
	if (sscanf(close_paren + 2,
		   "%c %d %d %d %u %d %u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu "
		   "%llu %lld",
		   &st->state, &st->ppid, &st->pgid, &st->sid, &st->tty_nr, &st->tpgid, &st->flags,
		   &st->utime, &st->stime, &st->start_ticks, &st->vsize, &st->rss) != 12)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &sb) == 0)
		st->uid = sb.st_uid;
	return 0;
}

/* "SigBlk:\t0000000000010000": the mask of line @key in @path, or -1 with none. */
static int status_mask(const char *path, const char *key, __u64 *mask)
{
	size_t klen = strlen(key);
	char line[256];
	int found = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			*mask = strtoull(line + klen + 1, NULL, 16);
			found = 0;
			break;
		}
	fclose(f);
	return found;
}

int procfs__read_sigs(pid_t pid, struct fate_sigs *s)
{
	char path[64], tpath[64 + 256 + 8];
	struct proc_stat st;
	struct dirent *de;
	__u64 blk;
	DIR *d;
	int err;

	memset(s, 0, sizeof(*s));
	err = procfs__read_stat(pid, &st);
	if (err)
		return err;
	s->stopped = st.state == 'T';
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (status_mask(path, "SigIgn", &s->ignored) || status_mask(path, "SigCgt", &s->caught))
		return -ENOENT;
	/* Blocked for the process: blocked by every one of its threads. */
	s->blocked = ~0ULL;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(tpath, sizeof(tpath), "%s/%s/status", path, de->d_name);
			if (!status_mask(tpath, "SigBlk", &blk))
				s->blocked &= blk;
		}
	closedir(d);
	if (s->blocked == ~0ULL)
		s->blocked = 0;
	return 0;
}

int procfs__tgid(pid_t pid)
{
	char path[64], line[256];
	int tgid = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int procfs__list(struct proc_stat **out)
{
	struct proc_stat *all = NULL, *tmp;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			tmp = realloc(all, cap * sizeof(*all));
			if (!tmp) {
				free(all);
				closedir(d);
				return -ENOMEM;
			}
			all = tmp;
		}
		if (procfs__read_stat(pid, &all[n]) == 0)
			n++;
	}
	closedir(d);
	*out = all;
	return (int)n;
}

int procfs__descendants(pid_t root, pid_t **out)
{
	struct proc_stat *all;
	pid_t *res;
	size_t nres = 0, head = 0, i;
	int n;

	*out = NULL;
	n = procfs__list(&all);
	if (n < 0)
		return n;
	/* Breadth-first from root: res doubles as the queue. */
	res = malloc(((size_t)n + 1) * sizeof(*res));
	if (!res) {
		free(all);
		return -ENOMEM;
	}
	res[nres++] = root;
	while (head < nres) {
		pid_t parent = res[head++];

		for (i = 0; i < (size_t)n; i++)
			if (all[i].ppid == parent && all[i].pid != root)
				res[nres++] = all[i].pid;
	}
	free(all);
	memmove(res, res + 1, (nres - 1) * sizeof(*res));
	*out = res;
	return (int)(nres - 1);
}

/* The environment's first bytes: sshd puts SSH_CONNECTION near the start. */
#define ENVIRON_READ 65536

static int parse_ssh_connection(const char *v, char *ip, size_t ip_size, __u16 *port)
{
	unsigned char addr[sizeof(struct in6_addr)];
	const char *sp = strchr(v, ' ');
	unsigned long n;
	char *end;

	if (!sp || (size_t)(sp - v) >= ip_size || sp == v)
		return -EINVAL;
	memcpy(ip, v, sp - v);
	ip[sp - v] = '\0';
	if (inet_pton(AF_INET, ip, addr) != 1 && inet_pton(AF_INET6, ip, addr) != 1)
		return -EINVAL;
	errno = 0;
	n = strtoul(sp + 1, &end, 10);
	if (errno || end == sp + 1 || (*end != ' ' && *end) || n == 0 || n > 65535)
		return -EINVAL;
	*port = (__u16)n;
	return 0;
}

int procfs__ssh_client(pid_t pid, char *ip, size_t ip_size, __u16 *port)
{
	static const char key[] = "SSH_CONNECTION=";
	char path[64], *buf, *p, *end;
	ssize_t len = 0, r;
	int fd, ret = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(ENVIRON_READ + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < ENVIRON_READ && (r = read(fd, buf + len, ENVIRON_READ - len)) > 0)
		len += r;
	close(fd);
	buf[len] = '\0';
	for (p = buf, end = buf + len; p < end; p += strlen(p) + 1) {
		if (!strncmp(p, key, sizeof(key) - 1)) {
			ret = parse_ssh_connection(p + sizeof(key) - 1, ip, ip_size, port);
			break;
		}
	}
	free(buf);
	return ret;
}

long procfs__tick_ns(void)
{
	static long tick_ns;

	if (!tick_ns)
		tick_ns = 1000000000L / sysconf(_SC_CLK_TCK);
	return tick_ns;
}

int procfs__model_stat(pid_t pid, struct model_stat *st)
{
	struct proc_stat ps;
	int err = procfs__read_stat(pid, &ps);

	if (err)
		return err;
	st->ppid = ps.ppid > 0 ? (__u32)ps.ppid : 0;
	st->flags = ps.flags;
	st->start_ticks = ps.start_ticks;
	st->state = ps.state;
	return 0;
}
