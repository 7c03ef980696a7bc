// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pipeline's derived records: the tty changes the kernel makes to
 * processes that report nothing themselves (setsid drops the caller's tty,
 * a hangup takes it from the session, TIOCSCTTY(1) steals it from another
 * session), as the live loop, --replay and the fuzzer all get them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "pipeline.h"
#include "records.h"

#define PTS1 ((136 << 8) | 1)

/* What the pipeline handed on: each record's type and, for ttys, its fields. */
struct seen {
	unsigned int n;
	__u32 type[16];
	struct pgt_tty tty[16];
	unsigned int causes;
	unsigned int rcpts[16]; /* of each cause */
};

static void on_event(void *ctx, const struct pgt_event *ev)
{
	struct seen *s = ctx;

	if (s->n == 16)
		return;
	s->type[s->n] = ev->hdr->type;
	if (ev->hdr->type == PGT_TTY)
		s->tty[s->n] = *ev->tty;
	s->n++;
}

static void on_cause(void *ctx, const struct sig_cause *c)
{
	struct seen *s = ctx;

	if (s->causes < 16)
		s->rcpts[s->causes] = c->nr;
	s->causes++;
}

static const struct pipeline_ops ops = { .event = on_event, .signal = on_cause };

static __u64 now = 1000;

static void feed(struct pipeline *pl, void *rec, __u16 type, size_t size)
{
	struct pgt_event ev;

	as_event(rec, type, size, now++, &ev);
	pipeline__record(pl, &ev);
}

static struct pgt_proc with_tty(struct pgt_proc p)
{
	p.tty_nr = PTS1;
	p.flags |= PGT_F_HAS_TTY;
	strncpy(p.tty, "pts/1", sizeof(p.tty) - 1);
	return p;
}

/* A login on pts/1: bash (session 100) and a job, sleep (group 200). */
static struct model *login(void)
{
	struct model *m = model__new();
	struct pgt_snap a = { .proc = with_tty(ctx(100, 1, 100, 100, 10, "bash")) };
	struct pgt_snap b = { .proc = with_tty(ctx(200, 100, 200, 100, 20, "sleep")) };
	struct pgt_event ev;

	assert_non_null(m);
	as_event(&a, PGT_SNAP, sizeof(a), now++, &ev);
	model__snapshot_add(m, ev.snap, false);
	as_event(&b, PGT_SNAP, sizeof(b), now++, &ev);
	model__snapshot_add(m, ev.snap, false);
	model__snapshot_done(m);
	return m;
}

static void test_setsid_drops_tty(void **state)
{
	struct model *m = login();
	struct seen seen = {};
	struct pipeline pl;
	struct pgt_setsid r = { .proc = ctx(200, 100, 200, 200, 20, "sleep"), .ret = 200 };

	pipeline__init(&pl, m, &ops, &seen);
	r.old.pgid = 200;
	r.old.sid = 100;
	r.old.tty_nr = PTS1;
	strcpy(r.old.tty, "pts/1");
	feed(&pl, &r, PGT_SETSID, sizeof(r));
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.type[0], PGT_SETSID);
	assert_int_equal(seen.type[1], PGT_TTY);
	assert_int_equal(seen.tty[1].how, PGT_TTY_SETSID);
	assert_int_equal(seen.tty[1].acquire, 0);
	assert_int_equal(seen.tty[1].sid, 100);
	assert_int_equal(seen.tty[1].tty_nr, PTS1);
	assert_int_equal(seen.tty[1].session_wide, 0);
	assert_int_equal(model__find(m, 200)->ctx.tty_nr, 0);
	assert_int_equal(model__find(m, 100)->ctx.tty_nr, PTS1);
	pipeline__free(&pl);
	model__free(m);
}

static void test_hangup_clears_session(void **state)
{
	struct model *m = login();
	struct seen seen = {};
	struct pipeline pl;
	struct pgt_signal r = { .proc = ctx(50, 2, 0, 0, 5, "kworker/0:1"),
				.group_id = 7,
				.sig = 1,
				.scope = PGT_SCOPE_SESSION,
				.cause = PGT_CAUSE_HANGUP,
				.target = 100,
				.nr = 1 };

	pipeline__init(&pl, m, &ops, &seen);
	r.rcpt[0].pid = r.rcpt[0].tid = 100;
	r.rcpt[0].pgid = 100;
	feed(&pl, &r, PGT_SIGNAL, PGT_SIGNAL_SIZE(1));
	/* The tty goes at once; the SIGHUP itself waits for its cause to end. */
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.type[0], PGT_TTY);
	assert_int_equal(seen.tty[0].how, PGT_TTY_HANGUP);
	assert_int_equal(seen.tty[0].sid, 100);
	assert_int_equal(seen.tty[0].session_wide, 1);
	assert_int_equal(model__find(m, 100)->ctx.tty_nr, 0);
	assert_int_equal(model__find(m, 200)->ctx.tty_nr, 0);
	assert_int_equal(seen.causes, 0);
	pipeline__finish(&pl);
	assert_int_equal(seen.causes, 1);
	pipeline__free(&pl);
	model__free(m);
}

static void test_steal_reported_for_the_victim(void **state)
{
	struct model *m = login();
	struct seen seen = {};
	struct pipeline pl;
	struct pgt_tty r = { .proc = with_tty(ctx(300, 1, 300, 300, 30, "getty")),
			     .how = PGT_TTY_TIOCSCTTY,
			     .acquire = 1,
			     .tty_nr = PTS1,
			     .sid = 300 };

	pipeline__init(&pl, m, &ops, &seen);
	strcpy(r.tty, "pts/1");
	feed(&pl, &r, PGT_TTY, sizeof(r));
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.tty[0].how, PGT_TTY_STOLEN);
	assert_int_equal(seen.tty[0].sid, 100);
	assert_int_equal(seen.tty[0].session_wide, 1);
	assert_int_equal(seen.tty[1].how, PGT_TTY_TIOCSCTTY);
	assert_int_equal(model__find(m, 100)->ctx.tty_nr, 0);
	assert_int_equal(model__find(m, 200)->ctx.tty_nr, 0);
	pipeline__free(&pl);
	model__free(m);
}

/* One ^C to a foreground group of two, at @ts: record @i of 2. */
static void ctrl_c(struct pipeline *pl, __u64 id, __u32 expect, unsigned int i, __u64 ts)
{
	struct pgt_signal r = { .proc = ctx(50, 2, 0, 0, 5, "kworker/0:1"),
				.group_id = id,
				.sig = 2,
				.scope = PGT_SCOPE_GROUP,
				.cause = PGT_CAUSE_TTY,
				.target = 200,
				.nr = 1,
				.expect = expect };
	struct pgt_event ev;

	r.rcpt[0].pid = r.rcpt[0].tid = 200 + i;
	r.rcpt[0].pgid = 200;
	if (expect && i + 1 == expect)
		r.flags |= PGT_SIG_FINAL;
	as_event(&r, PGT_SIGNAL, PGT_SIGNAL_SIZE(1), ts, &ev);
	pipeline__record(pl, &ev);
}

/*
 * A cause the kernel counted ends with its final record, however long its
 * loop stalls (a vCPU descheduled under TCG); one it did not count ends when
 * its records stop; a counted one whose final record never comes is closed
 * later.
 */
static void test_cause_ends(void **state)
{
	struct model *m = login();
	struct seen seen = {};
	struct pipeline pl;
	__u64 t = 5000000000ULL;

	pipeline__init(&pl, m, &ops, &seen);
	ctrl_c(&pl, 1, 2, 0, t);
	pipeline__close_causes(&pl, t + 50 * SIGMERGE_QUIET_NS);
	assert_int_equal(seen.causes, 0);
	ctrl_c(&pl, 1, 2, 1, t + 60 * SIGMERGE_QUIET_NS);
	assert_int_equal(seen.causes, 1);
	assert_int_equal(seen.rcpts[0], 2);

	t += SIGMERGE_COUNTED_NS;
	ctrl_c(&pl, 2, 0, 0, t);
	pipeline__close_causes(&pl, t + SIGMERGE_QUIET_NS / 2);
	assert_int_equal(seen.causes, 1);
	pipeline__close_causes(&pl, t + SIGMERGE_QUIET_NS + 1);
	assert_int_equal(seen.causes, 2);

	t += SIGMERGE_COUNTED_NS;
	ctrl_c(&pl, 3, 2, 0, t);
	pipeline__close_causes(&pl, t + SIGMERGE_COUNTED_NS / 2);
	assert_int_equal(seen.causes, 2);
	pipeline__close_causes(&pl, t + SIGMERGE_COUNTED_NS + 1);
	assert_int_equal(seen.causes, 3);
	assert_int_equal(seen.rcpts[2], 1);

	/* Its last recipient not reported (pgrptrace itself): a final record without one. */
	t += 2 * SIGMERGE_COUNTED_NS;
	ctrl_c(&pl, 4, 2, 0, t);
	{
		struct pgt_signal r = { .proc = ctx(50, 2, 0, 0, 5, "kworker/0:1"),
					.group_id = 4,
					.sig = 2,
					.scope = PGT_SCOPE_GROUP,
					.cause = PGT_CAUSE_TTY,
					.target = 200,
					.nr = 0,
					.expect = 2,
					.flags = PGT_SIG_FINAL };
		struct pgt_event ev;

		as_event(&r, PGT_SIGNAL, PGT_SIGNAL_SIZE(1), t + 1000, &ev);
		pipeline__record(&pl, &ev);
	}
	assert_int_equal(seen.causes, 4);
	assert_int_equal(seen.rcpts[3], 1);
	pipeline__free(&pl);
	model__free(m);
}

/*
 * A cause whose final record was lost (a full ring buffer) would hold back
 * every line after it for a second: under a flood, hundreds of megabytes.
 * Past PIPELINE_HOLD_MAX held bytes the open causes are handed over as they
 * are, and nothing is held.
 */
static void test_hold_is_bounded(void **state)
{
	struct model *m = login();
	struct seen seen = {};
	struct pipeline pl;
	__u64 t = 5000000000ULL, first;

	pipeline__init(&pl, m, &ops, &seen);
	ctrl_c(&pl, 1, 3, 0, t);
	first = pipeline__oldest_open(&pl);
	assert_int_not_equal(first, (__u64)-1);
	assert_int_equal(pipeline__hold_point(&pl, PIPELINE_HOLD_MAX), first);
	assert_int_equal(seen.causes, 0);
	assert_int_equal(pipeline__hold_point(&pl, PIPELINE_HOLD_MAX + 1), (__u64)-1);
	assert_int_equal(seen.causes, 1);
	assert_int_equal(seen.rcpts[0], 1);
	assert_int_equal(pipeline__oldest_open(&pl), (__u64)-1);
	pipeline__free(&pl);
	model__free(m);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setsid_drops_tty),
		cmocka_unit_test(test_hangup_clears_session),
		cmocka_unit_test(test_steal_reported_for_the_victim),
		cmocka_unit_test(test_cause_ends),
		cmocka_unit_test(test_hold_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
