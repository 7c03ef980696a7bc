// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests: which events are escapes, fed as the tracer feeds them
 * (classify, apply to the model, report) in synthetic sequences.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "escape.h"
#include "records.h"

static __u64 now = 1000;

struct seen {
	int n;
	enum escape_kind kind[16];
	__u32 pid[16];
	__u32 from_pgid[16];
};

static void collect(void *ctx, const struct escape *e)
{
	struct seen *s = ctx;

	if (s->n < 16) {
		s->kind[s->n] = e->kind;
		s->pid[s->n] = e->proc.pid;
		s->from_pgid[s->n] = e->from.pgid;
	}
	s->n++;
}

struct world {
	struct model *m;
	struct escapes es;
	struct seen seen;
	unsigned int last_notes;
};

/* As trace.c's apply(): classify, model, report. */
static void feed(struct world *w, void *rec, __u16 type, size_t size)
{
	struct pgt_event ev;

	as_event(rec, type, size, now++, &ev);
	escapes__classify(&w->es, w->m, &ev);
	model__apply(w->m, &ev);
	escapes__report(&w->es, w->m, &ev);
	w->last_notes = ev.notes;
}

static void snap(struct world *w, struct pgt_proc p)
{
	struct pgt_snap r = { .proc = p };

	feed(w, &r, PGT_SNAP, sizeof(r));
}

static void fork_(struct world *w, struct pgt_proc parent, struct pgt_proc child)
{
	struct pgt_fork r = { .proc = parent, .child = child };

	feed(w, &r, PGT_FORK, sizeof(r));
}

static void exit_(struct world *w, struct pgt_proc p)
{
	struct pgt_exit r = { .proc = p };

	feed(w, &r, PGT_EXIT, sizeof(r));
}

static void setpgid_(struct world *w, struct pgt_proc caller, struct pgt_proc target_after,
		     __u32 old_pgid, int ret)
{
	struct pgt_setpgid r = {
		.proc = caller, .target = target_after, .ret = ret, .target_found = 1
	};

	r.old.pgid = old_pgid;
	r.old.sid = target_after.sid;
	r.arg_pid = caller.pid == target_after.pid ? 0 : (__s32)target_after.pid;
	r.arg_pgid = (__s32)target_after.pgid;
	feed(w, &r, PGT_SETPGID, sizeof(r));
}

/* Later than any hold: what was held is reported now. */
static void later(struct world *w)
{
	now += 1000000000ULL;
	escapes__tick(&w->es, w->m, now);
}

/* A script shell (no tty) in session 100, group 200, pid 200, under 100. */
static struct world *world(void)
{
	static struct world w;

	memset(&w, 0, sizeof(w));
	w.m = model__new();
	assert_non_null(w.m);
	escapes__init(&w.es, collect, &w.seen);
	snap(&w, ctx(1, 0, 1, 1, 10, "init"));
	snap(&w, ctx(100, 1, 100, 100, 20, "cron"));
	snap(&w, ctx(200, 100, 200, 100, 30, "bash"));
	model__snapshot_done(w.m);
	return &w;
}

static void done(struct world *w)
{
	escapes__flush(&w->es, w->m);
	escapes__free(&w->es);
	model__free(w->m);
}

/* set -m without a tty: the shell places each job, the job places itself. */
static void test_job_control_without_tty(void **state)
{
	struct world *w = world();
	struct pgt_proc sh = ctx(200, 100, 200, 100, 30, "bash");

	/* Job 300: the parent's call comes first, the child's is a no-op. */
	fork_(w, sh, ctx(300, 200, 200, 100, 40, "bash"));
	setpgid_(w, sh, ctx(300, 200, 300, 100, 40, "bash"), 200, 0);
	assert_true(w->last_notes & EV_JOB_CONTROL);
	setpgid_(w, ctx(300, 200, 300, 100, 40, "bash"), ctx(300, 200, 300, 100, 40, "bash"), 300,
		 0);
	/* Job 310: the child's call first; the parent's fails, it has exec'd. */
	fork_(w, sh, ctx(310, 200, 200, 100, 41, "bash"));
	setpgid_(w, ctx(310, 200, 200, 100, 41, "bash"), ctx(310, 200, 310, 100, 41, "bash"), 200,
		 0);
	setpgid_(w, sh, ctx(310, 200, 310, 100, 41, "true"), 310, -13);
	later(w);
	assert_int_equal(w->seen.n, 0);
	/* The job's child leaves the job's group by itself: an escape. */
	fork_(w, ctx(310, 200, 310, 100, 41, "true"), ctx(320, 310, 310, 100, 42, "true"));
	setpgid_(w, ctx(320, 310, 310, 100, 42, "true"), ctx(320, 310, 320, 100, 42, "true"), 310,
		 0);
	assert_int_equal(w->seen.n, 0); /* held: its parent may place it */
	later(w);
	assert_int_equal(w->seen.n, 1);
	assert_int_equal(w->seen.kind[0], ESC_PGRP);
	assert_int_equal(w->seen.pid[0], 320);
	assert_int_equal(w->seen.from_pgid[0], 310);
	done(w);
}

/* Out and back, 50 times: one escape, the first time it left home. */
static void test_home_again(void **state)
{
	struct world *w = world();
	struct pgt_proc in = ctx(300, 200, 200, 100, 40, "w"),
			out = ctx(300, 200, 300, 100, 40, "w");
	int i;

	fork_(w, ctx(200, 100, 200, 100, 30, "bash"), in);
	for (i = 0; i < 50; i++) {
		setpgid_(w, in, out, 200, 0);
		setpgid_(w, out, in, 300, 0);
	}
	later(w);
	assert_int_equal(w->seen.n, 1);
	assert_int_equal(w->seen.kind[0], ESC_PGRP);
	assert_int_equal(w->seen.from_pgid[0], 200);
	done(w);
}

/* A zombie adopted when its parent exits: no escape. A live orphan: one. */
static void test_zombie_adopted(void **state)
{
	struct world *w = world();
	struct pgt_proc p = ctx(300, 200, 200, 100, 40, "p");
	struct pgt_reparent r = { .proc = p,
				  .child_pid = 310,
				  .child_start_ns = 41,
				  .reaper_pid = 200,
				  .reaper_tid = 200,
				  .reason = PGT_REAPER_SUBREAPER };

	fork_(w, ctx(200, 100, 200, 100, 30, "bash"), p);
	fork_(w, p, ctx(310, 300, 200, 100, 41, "dead"));
	fork_(w, p, ctx(311, 300, 200, 100, 42, "alive"));
	exit_(w, ctx(310, 300, 200, 100, 41, "dead"));
	feed(w, &r, PGT_REPARENT, sizeof(r));
	r.child_pid = 311;
	r.child_start_ns = 42;
	feed(w, &r, PGT_REPARENT, sizeof(r));
	later(w);
	assert_int_equal(w->seen.n, 1);
	assert_int_equal(w->seen.pid[0], 311);
	done(w);
}

/*
 * A tty given up and a cgroup move are escapes that hold the lineage like
 * any other, and give it back once reported: the world is freed without a
 * leak (ASan's leak check in the sanitized pass says so).
 */
static void test_tty_drop_and_cgroup_release_lineage(void **state)
{
	struct world *w = world();
	struct pgt_tty t = { .how = PGT_TTY_TIOCNOTTY, .tty_nr = 0x8803 };
	struct pgt_cgroup c = { .hierarchy_id = 0 };

	fork_(w, ctx(200, 100, 200, 100, 30, "sh"), ctx(300, 200, 200, 100, 40, "job"));
	t.proc = ctx(300, 200, 200, 100, 40, "job");
	t.sid = 100;
	strcpy(t.tty, "pts3");
	feed(w, &t, PGT_TTY, sizeof(t));
	c.proc = ctx(300, 200, 200, 100, 40, "job");
	strcpy(c.path, "/elsewhere");
	feed(w, &c, PGT_CGROUP, sizeof(c));
	assert_int_equal(w->seen.n, 2);
	assert_int_equal(w->seen.kind[0], ESC_TTY_DROP);
	assert_int_equal(w->seen.kind[1], ESC_CGROUP);
	done(w);
}

static void setsid_(struct world *w, struct pgt_proc after, __u32 old_pgid, __u32 old_sid)
{
	struct pgt_setsid r = { .proc = after, .ret = (__s32)after.sid };

	r.old.pgid = old_pgid;
	r.old.sid = old_sid;
	feed(w, &r, PGT_SETSID, sizeof(r));
}

static void acquire(struct world *w, struct pgt_proc p, __u32 tty_nr)
{
	struct pgt_tty t = { .proc = p, .how = PGT_TTY_TIOCSCTTY, .acquire = 1 };

	t.tty_nr = tty_nr;
	t.sid = p.sid;
	strcpy(t.tty, "pts5");
	feed(w, &t, PGT_TTY, sizeof(t));
}

/*
 * A pty's child (a terminal, sshd, python's pty.fork()) takes its tty right
 * after its setsid: a login, not an escape, even when a starved machine
 * lets half a second pass between the calls. With no tty by the hold's
 * end, the setsid is an escape.
 */
static void test_setsid_login_held(void **state)
{
	struct world *w = world();
	struct pgt_proc sh = ctx(200, 100, 200, 100, 30, "bash");

	fork_(w, sh, ctx(300, 200, 200, 100, 40, "python3"));
	setsid_(w, ctx(300, 200, 300, 300, 40, "python3"), 200, 100);
	now += 500000000ULL;
	escapes__tick(&w->es, w->m, now);
	acquire(w, ctx(300, 200, 300, 300, 40, "python3"), 0x8805);
	later(w);
	assert_int_equal(w->seen.n, 0);

	fork_(w, sh, ctx(301, 200, 200, 100, 50, "daemon"));
	setsid_(w, ctx(301, 200, 301, 301, 50, "daemon"), 200, 100);
	escapes__tick(&w->es, w->m, now + 200000000ULL);
	assert_int_equal(w->seen.n, 0);
	later(w);
	assert_int_equal(w->seen.n, 1);
	assert_int_equal(w->seen.kind[0], ESC_SETSID);
	assert_int_equal(w->seen.pid[0], 301);
	done(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_control_without_tty),
		cmocka_unit_test(test_home_again),
		cmocka_unit_test(test_zombie_adopted),
		cmocka_unit_test(test_tty_drop_and_cgroup_release_lineage),
		cmocka_unit_test(test_setsid_login_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
