// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The loaded object's maps: the ring buffer, the snapshot iterator, the filter, the counters. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader.h"
#include "pgrptrace.skel.h"
#include "msg.h"

int loader__ringbuf_fd(const struct loader *l)
{
	return bpf_map__fd(l->skel->maps.events);
}

/*
 * The iterator's link is made once and kept: a snapshot after --user has
 * dropped every capability then only reads a new iterator from it.
 */
int loader__snapshot(struct loader *l, struct pgt_snap **out)
{
	size_t cap = 1024, n = 0;
	struct pgt_snap *recs, *tmp;
	ssize_t got;
	int fd, err = 0;

	*out = NULL;
	if (!l->has_iter)
		return -EOPNOTSUPP;
	if (!l->iter_link) {
		l->iter_link = bpf_program__attach_iter(l->skel->progs.snapshot_task, NULL);
		if (!l->iter_link)
			return -errno;
	}
	fd = bpf_iter_create(bpf_link__fd(l->iter_link));
	if (fd < 0)
		return -errno;
	recs = malloc(cap * sizeof(*recs));
	/* Records are written whole; read() returns whole seq_file pages. */
	while (recs) {
		if (n == cap) {
			tmp = realloc(recs, 2 * cap * sizeof(*recs));
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
			recs = tmp;
			cap *= 2;
		}
		got = read(fd, (char *)(recs + n), (cap - n) * sizeof(*recs));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			break;
		}
		if (got == 0)
			break;
		if (got % sizeof(*recs)) {
			err = -EIO;
			break;
		}
		n += got / sizeof(*recs);
	}
	close(fd);
	if (!recs)
		return -ENOMEM;
	if (err) {
		free(recs);
		return err;
	}
	*out = recs;
	return (int)n;
}

int loader__trace(struct loader *l, __u32 tgid)
{
	__u8 one = 1;

	return bpf_map__update_elem(l->skel->maps.traced, &tgid, sizeof(tgid), &one, sizeof(one),
				    BPF_ANY);
}

static __u64 percpu_sum(const struct bpf_map *map, __u32 key)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals, sum = 0;
	int i;

	if (ncpu <= 0)
		return 0;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map__lookup_elem(map, &key, sizeof(key), vals, sizeof(*vals) * ncpu, 0))
		for (i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

void loader__drops(const struct loader *l, __u64 out[PGT_TYPE_MAX])
{
	__u32 t;

	for (t = 0; t < PGT_TYPE_MAX; t++)
		out[t] = percpu_sum(l->skel->maps.drops, t);
}

int loader__check_unprivileged(const struct loader *l)
{
	int ncpu = libbpf_num_possible_cpus();
	__u32 key = 0;
	__u64 *vals;
	int err;

	if (ncpu <= 0)
		return ncpu ?: -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	err = bpf_map__lookup_elem(l->skel->maps.stats, &key, sizeof(key), vals,
				   sizeof(*vals) * ncpu, 0);
	free(vals);
	return err;
}

__u64 loader__stat(const struct loader *l, enum pgt_stat idx)
{
	return percpu_sum(l->skel->maps.stats, idx);
}

/*
 * Before bpf_snprintf() (5.13) the signal programs cannot name a kworker's
 * work function: tell them the two that send signals, by their addresses in
 * /proc/kallsyms. Where those read as 0 (kptr_restrict), a kworker's ^C is
 * reported with the kernel as its cause.
 */
void loader__fill_work_funcs(struct pgrptrace_bpf *skel, bool verbose)
{
	static const struct {
		const char *name;
		__u32 kind;
	} funcs[] = {
		{ "flush_to_ldisc", PGT_CAUSE_TTY },
		{ "do_tty_hangup", PGT_CAUSE_HANGUP },
	};
	char line[256], sym[128], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "re");
	__u64 key;
	int found = 0;
	size_t i;

	if (!f)
		return;
	while (found < 2 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) != 3 || !addr)
			continue;
		for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
			if (strcmp(sym, funcs[i].name))
				continue;
			key = addr;
			bpf_map__update_elem(skel->maps.work_funcs, &key, sizeof(key),
					     &funcs[i].kind, sizeof(funcs[i].kind), BPF_ANY);
			found++;
		}
	}
	fclose(f);
	if (verbose && found < 2)
		p_err("/proc/kallsyms names %d of the tty's work functions: "
		      "a tty's signals may be reported as the kernel's",
		      found);
}
