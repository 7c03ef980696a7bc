// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <uthash.h>
#include "clock.h"
#include "command.h"
#include "contain.h"
#include "descent.h"
#include "procfs.h"
#include "session.h"
#include "msg.h"

#define ROUND_MS     10		    /* the trace is read between rounds */
#define MAX_TARGETS  65536	    /* processes looked at per round */
#define STUCK_NS     10000000000ULL /* SIGKILL sent, and no fewer alive for this long: said */
#define MODEL_LAG_NS 1000000000ULL  /* /proc's tree is empty: the model's last exits */

/* A process signalled, by its identity: pid and start. */
struct target {
	struct {
		pid_t pid;
		unsigned long long ticks;
	} key;
	int sent; /* the last signal sent: 0, SIGTERM, SIGKILL */
	UT_hash_handle hh;
};

struct containment {
	struct tracer *s;
	struct target *done; /* every process signalled */
	unsigned int ended, killed;
	long tick_ns;
	unsigned long long *ticks; /* per process walked: its start, 0 if gone */
	bool paused;		   /* the testing aid's pause was taken */
};

int contain__prepare(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		p_err("--contain: cannot become a child subreaper: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* How @p left where it was born, for the report: ", which had left its session (...)". */
static void escapes_of(struct sbuf *sb, const struct mproc *p)
{
	const char *sep = ", which had";
	__u32 born_ppid = p->lineage && p->lineage->parent ? p->lineage->parent->pid : 0;

	if (p->ctx.sid != p->born_sid) {
		sbuf__printf(sb, "%s left its session (sid %u -> %u)", sep, p->born_sid,
			     p->ctx.sid);
		sep = " and";
	}
	if (p->ctx.pgid != p->born_pgid && p->ctx.sid == p->born_sid) {
		sbuf__printf(sb, "%s left its group (pgid %u -> %u)", sep, p->born_pgid,
			     p->ctx.pgid);
		sep = " and";
	}
	if (born_ppid && p->ctx.ppid != born_ppid)
		sbuf__printf(sb, "%s been reparented (ppid %u -> %u)", sep, born_ppid, p->ctx.ppid);
}

/* @sig to one process below us, once per signal; said the first time. */
static void end_one(struct containment *c, pid_t pid, unsigned long long ticks, int sig)
{
	const struct mproc *p = model__find(c->s->model, (__u32)pid);
	struct target *t, probe;
	struct sbuf sb = {};
	int err;

	memset(&probe.key, 0, sizeof(probe.key));
	probe.key.pid = pid;
	probe.key.ticks = ticks;
	HASH_FIND(hh, c->done, &probe.key, sizeof(probe.key), t);
	if (t && t->sent == sig)
		return;
	err = descent__signal(pid, ticks, sig);
	if (err)
		return; /* gone, or not the process seen: nothing sent */
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return;
		t->key = probe.key;
		HASH_ADD(hh, c->done, key, sizeof(t->key), t);
		c->ended++;
	}
	if (sig == SIGKILL)
		c->killed++;
	t->sent = sig;
	/* The model's view, if it is the same process (a start read from /proc is to the tick). */
	if (p && (unsigned long long)(p->ctx.start_ns / (__u64)c->tick_ns) != ticks)
		p = NULL;
	sbuf__printf(&sb, "contain: %s %d ", sig == SIGKILL ? "SIGKILL to" : "SIGTERM to", pid);
	if (p) {
		sbuf__put_text(&sb, p->ctx.comm, sizeof(p->ctx.comm));
		escapes_of(&sb, p);
	} else {
		sbuf__puts(&sb, "(not in the model: found below pgrptrace in /proc)");
	}
	if (!sb.oom)
		p_err("%s", sb.buf);
	sbuf__free(&sb);
}

/* Alive in the model and born below the command: the trace's own count. */
static unsigned int model_alive(const struct tracer *s)
{
	unsigned int n = 0;
	struct mproc *p;

	model__for_each_proc(s->model, p)
		if (!p->zombie && (pid_t)p->ctx.pid != getpid() &&
		    command__born_below(s->child_line, p))
			n++;
	return n;
}

/*
 * Testing aid: PGRPTRACE_TEST_CONTAIN_PAUSE=FILE holds the first round
 * between its walk and its signals: the processes found go to FILE ("pid
 * start_ticks" lines), and the round goes on once FILE.go exists (at most
 * 30 s), orphans reaped meanwhile. A test can end a target and give its pid
 * to a decoy in between, which the start check must spare.
 */
static void test_pause(struct containment *c, const pid_t *pids, int n)
{
	const char *path = getenv("PGRPTRACE_TEST_CONTAIN_PAUSE");
	static const volatile sig_atomic_t no_stop;
	char go[PATH_MAX], tmp[PATH_MAX];
	struct model_stat st;
	__u64 end = clock_ns(CLOCK_MONOTONIC) + 30000000000ULL;
	FILE *f;
	int i;

	if (!path || c->paused)
		return;
	c->paused = true;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return;
	for (i = 0; i < n; i++)
		if (!procfs__model_stat(pids[i], &st))
			fprintf(f, "%d %llu\n", pids[i], st.start_ticks);
	if (fclose(f) || rename(tmp, path))
		return;
	snprintf(go, sizeof(go), "%s.go", path);
	while (access(go, F_OK) && clock_ns(CLOCK_MONOTONIC) < end) {
		command__reap(&c->s->cmd, false, &no_stop);
		usleep(1000);
	}
}

/* One round: what is below us now gets @sig. Returns how many were alive. */
static int round_of(struct containment *c, pid_t *pids, int sig)
{
	unsigned long long *ticks = c->ticks;
	struct model_stat st;
	int n, i, alive = 0;

	n = descent__walk(getpid(), pids, MAX_TARGETS);
	/* Each one's start as the walk found it: the identity signalled below. */
	for (i = 0; i < n; i++)
		ticks[i] = procfs__model_stat(pids[i], &st) || st.state == 'Z' || st.state == 'X' ?
				   0 :
				   st.start_ticks;
	test_pause(c, pids, n);
	for (i = 0; i < n; i++) {
		if (!ticks[i])
			continue;
		alive++;
		end_one(c, pids[i], ticks[i], sig);
	}
	return alive;
}

/* Whether the kernel side lost records of this run (the ring buffer was full). */
static bool lost_any(const struct tracer *s)
{
	unsigned int i;

	for (i = 0; i < PGT_TYPE_MAX; i++)
		if (s->losses.drops_seen[i])
			return true;
	return false;
}

int contain__run(struct tracer *s, __u64 grace_ns)
{
	static const volatile sig_atomic_t no_stop;
	struct containment c = { .s = s, .tick_ns = procfs__tick_ns() };
	__u64 start = clock_ns(CLOCK_MONOTONIC), now, empty_since = 0, progress = 0;
	struct target *t, *tmp;
	int alive, fewest = -1, ret = 0;
	pid_t *pids = malloc(MAX_TARGETS * sizeof(*pids));

	c.ticks = malloc(MAX_TARGETS * sizeof(*c.ticks));
	if (!pids || !c.ticks) {
		free(pids);
		free(c.ticks);
		p_err("--contain: out of memory");
		return -1;
	}
	if (c.tick_ns <= 0)
		c.tick_ns = 10000000;
	if (lost_any(s))
		p_err("contain: records were lost: the trace's descent of the command may be "
		      "incomplete; what /proc shows below pgrptrace is ended, each checked by its "
		      "start time");
	for (;;) {
		now = clock_ns(CLOCK_MONOTONIC);
		command__reap(&s->cmd, false, &no_stop);
		alive = round_of(&c, pids, now - start >= grace_ns ? SIGKILL : SIGTERM);
		/* The trace goes on: forks made meanwhile come in, and are next. */
		intake__poll(&s->in, ROUND_MS);
		pipeline__tick(&s->pl, clock_ns(CLOCK_BOOTTIME));
		pipeline__close_causes(&s->pl, clock_ns(CLOCK_BOOTTIME));
		session__flush(s);
		if (alive == 0) {
			empty_since = empty_since ?: now;
			if (!model_alive(s) || now - empty_since > MODEL_LAG_NS)
				break;
		} else {
			empty_since = 0;
		}
		/*
		 * However many there are, and however slow the machine: a
		 * bound on time without progress, not on the whole.
		 */
		if (fewest < 0 || alive < fewest || now - start < grace_ns) {
			fewest = fewest < 0 || alive < fewest ? alive : fewest;
			progress = now;
		} else if (now - progress > STUCK_NS) {
			p_err("contain: %d processes still alive, none ended in the last %llu s "
			      "after SIGKILL (in uninterruptible sleep?)",
			      alive, STUCK_NS / 1000000000ULL);
			ret = -1;
			break;
		}
	}
	command__reap(&s->cmd, false, &no_stop);
	if (c.ended)
		p_err("contain: %u processes ended in %llu ms, %u of them by SIGKILL", c.ended,
		      (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - start) / 1000000, c.killed);
	HASH_ITER(hh, c.done, t, tmp) {
		HASH_DEL(c.done, t);
		free(t);
	}
	free(pids);
	free(c.ticks);
	return ret;
}
