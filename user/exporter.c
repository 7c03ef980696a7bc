// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include "clock.h"
#include "exporter.h"
#include "hooks.h"
#include "procfs.h"
#include "session.h"
#include "msg.h"

/* A new page this often: a scrape every second sees at most this much lag. */
#define EXPORT_EVERY_NS 250000000ULL

extern const char *argp_program_version;

static double boot_time(void)
{
	char line[256];
	double t = 0;
	FILE *f = fopen("/proc/stat", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "btime ", 6))
			t = strtod(line + 6, NULL);
	if (f)
		fclose(f);
	return t;
}

int exporter__start(struct exporter *e, struct tracer *s, const char *where)
{
	struct utsname u;

	memset(e, 0, sizeof(*e));
	e->tick = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	e->page_size = (size_t)sysconf(_SC_PAGESIZE);
	e->boot_time = boot_time();
	if (!uname(&u))
		snprintf(e->kernel, sizeof(e->kernel), "%s", u.release);
	e->srv = serve__start(where);
	if (!e->srv)
		return -1;
	output__set_metrics(s->out, &e->counts);
	return 0;
}

void exporter__ringbuf(struct exporter *e, int map_fd, __u64 size)
{
	void *c, *p;

	/* The consumer's page, then the producer's: what libbpf maps, read-only here. */
	c = mmap(NULL, e->page_size, PROT_READ, MAP_SHARED, map_fd, 0);
	p = mmap(NULL, e->page_size, PROT_READ, MAP_SHARED, map_fd, (off_t)e->page_size);
	if (c == MAP_FAILED || p == MAP_FAILED) {
		if (c != MAP_FAILED)
			munmap(c, e->page_size);
		if (p != MAP_FAILED)
			munmap(p, e->page_size);
		return; /* the fill reads 0 */
	}
	e->consumer = c;
	e->producer = p;
	e->ringbuf_size = size;
}

/* Groups and logins: counted from the processes. */
struct seen_id {
	__u32 id;
	UT_hash_handle hh;
};

static void model_gauges(const struct model *m, struct metrics_gauges *g)
{
	struct seen_id *groups = NULL, *x, *tmp;
	const struct msession *s;
	const struct mproc *p;

	model__for_each_proc(m, p) {
		if (p->ctx.flags & PGT_F_KTHREAD)
			continue;
		g->processes++;
		if (model__is_entry_leader(p) && !p->zombie)
			g->logins++;
		HASH_FIND(hh, groups, &p->ctx.pgid, sizeof(p->ctx.pgid), x);
		if (!x && (x = calloc(1, sizeof(*x)))) {
			x->id = p->ctx.pgid;
			HASH_ADD(hh, groups, id, sizeof(x->id), x);
		}
	}
	g->groups = HASH_COUNT(groups);
	HASH_ITER(hh, groups, x, tmp) {
		HASH_DEL(groups, x);
		free(x);
	}
	for (s = model__next_session(m, NULL); s; s = model__next_session(m, s))
		if (s->sid)
			g->sessions++;
}

/* This process, from /proc/self. */
static void self_gauges(const struct exporter *e, struct metrics_gauges *g)
{
	struct proc_stat st;
	struct rlimit rl;
	struct dirent *d;
	DIR *dir;

	if (!procfs__read_stat(getpid(), &st)) {
		g->cpu_seconds = (double)(st.utime + st.stime) / (double)e->tick;
		g->start_time_seconds = e->boot_time + (double)st.start_ticks / (double)e->tick;
		g->virtual_bytes = st.vsize;
		g->resident_bytes = (__u64)st.rss * e->page_size;
	}
	dir = opendir("/proc/self/fd");
	while (dir && (d = readdir(dir)))
		if (d->d_name[0] != '.')
			g->open_fds++;
	if (dir) {
		closedir(dir);
		g->open_fds--; /* the directory's own */
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		g->max_fds = rl.rlim_cur == RLIM_INFINITY ? 0 : (unsigned int)rl.rlim_cur;
}

void exporter__tick(struct exporter *e, struct tracer *s, __u64 now_ns)
{
	const char *v = strchr(argp_program_version, ' ');
	struct metrics_gauges g = {
		.version = v ? v + 1 : argp_program_version, /* "pgrptrace 0.1": "0.1" */
		.hook_level = s->loader.skel ? hooks__level_name(s->loader.level) : "",
		.kernel = e->kernel,
	};

	if (!e->srv || (now_ns && now_ns < e->next_ns))
		return;
	e->next_ns = (now_ns ?: clock_ns(CLOCK_MONOTONIC)) + EXPORT_EVERY_NS;
	model_gauges(s->model, &g);
	if (e->consumer) {
		__u64 c = __atomic_load_n(e->consumer, __ATOMIC_ACQUIRE);
		__u64 p = __atomic_load_n(e->producer, __ATOMIC_ACQUIRE);

		g.ringbuf_used = p - c;
		g.ringbuf_size = e->ringbuf_size;
	}
	g.nchannels = output__channels(s->out, g.channels, METRICS_CHANNELS);
	self_gauges(e, &g);
	metrics__render(&e->counts, &g, &e->page);
	if (!e->page.oom)
		serve__publish(e->srv, e->page.buf, e->page.len);
}

void exporter__stop(struct exporter *e)
{
	serve__stop(e->srv);
	e->srv = NULL;
	if (e->consumer)
		munmap((void *)e->consumer, e->page_size);
	if (e->producer)
		munmap((void *)e->producer, e->page_size);
	e->consumer = e->producer = NULL;
	sbuf__free(&e->page);
}
