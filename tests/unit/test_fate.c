// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --fate (issue 34): what a hangup, a leader's exit or a kill would do, by
 * the kernel's rules and each process's dispositions, with an interactive
 * bash's habit said apart; and the WHAT it takes.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "fate.h"
#include "feed.h"

#define BIT(sig) (1ULL << ((sig)-1))
#define PTS0	 (136U << 8) /* /proc's tty_nr of pts/0 */

/* Each process's dispositions, by pid. */
static struct fate_sigs sigs_of[256];

static int read_sigs(pid_t pid, struct fate_sigs *s)
{
	*s = sigs_of[pid];
	return 0;
}

static const struct fate_io io = { .read_sigs = read_sigs };

static struct pgt_proc on_tty(struct pgt_proc p, __u32 fg)
{
	p.tty_nr = PTS0;
	strcpy(p.tty, "pts0");
	p.tty_fg_pgid = fg;
	return p;
}

/*
 * An interactive bash 100 on pts/0 leads session 100: job 101, a nohup job
 * 102, a stopped job 103, the foreground job 104; 105 left for a session
 * of its own; 106 is another session's.
 */
static struct model *login(void)
{
	struct model *m = model__new();
	struct pgt_proc init = ctx(1, 0, 1, 1, 1, "init");

	memset(sigs_of, 0, sizeof(sigs_of));
	init.ns_pid = 1;
	snap(m, init);
	snap(m, on_tty(ctx(100, 1, 100, 100, 10, "bash"), 104));
	snap(m, on_tty(ctx(101, 100, 101, 100, 11, "sleep"), 104));
	snap(m, on_tty(ctx(102, 100, 102, 100, 12, "sleep"), 104));
	snap(m, on_tty(ctx(103, 100, 103, 100, 13, "sleep"), 104));
	snap(m, on_tty(ctx(104, 100, 104, 100, 14, "vi"), 104));
	snap(m, ctx(105, 100, 105, 105, 15, "daemon"));
	snap(m, ctx(106, 1, 106, 106, 16, "other"));
	model__snapshot_done(m);
	sigs_of[100].caught = BIT(SIGHUP) | BIT(SIGINT);
	sigs_of[100].ignored = BIT(SIGTERM) | BIT(SIGQUIT) | BIT(SIGTSTP);
	sigs_of[102].ignored = BIT(SIGHUP);
	sigs_of[103].stopped = true;
	sigs_of[104].caught = BIT(SIGWINCH);
	return m;
}

static const struct fate_proc *find(const struct fate_report *r, __u32 pid)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (r->procs[i].p->ctx.pid == pid)
			return &r->procs[i];
	return NULL;
}

static enum fate_outcome outcome(const struct fate_report *r, __u32 pid, const char **by)
{
	const struct fate_proc *fp = find(r, pid);
	const char *reason;

	assert_non_null(fp);
	return fate__final(fp, &reason, by);
}

static void test_parse(void **state)
{
	struct fate_what w;
	const char *why;

	assert_int_equal(fate__parse("hangup:/dev/pts/3", &w, &why), 0);
	assert_int_equal(w.kind, FATE_WHAT_HANGUP);
	assert_string_equal(w.tty, "pts/3");
	assert_int_equal(fate__parse("logout:4242", &w, &why), 0);
	assert_int_equal(w.pid, 4242);
	assert_int_equal(fate__parse("kill:-4250:TERM", &w, &why), 0);
	assert_int_equal(w.sig, SIGTERM);
	assert_int_equal(fate__parse("kill:-4250:SIGHUP", &w, &why), 0);
	assert_int_equal(w.sig, SIGHUP);
	assert_int_equal(fate__parse("kill:-4250:9", &w, &why), 0);
	assert_int_equal(w.sig, SIGKILL);
	assert_int_equal(fate__parse("kill:4250:TERM", &w, &why), -1);
	assert_int_equal(fate__parse("kill:-4250:NOPE", &w, &why), -1);
	assert_int_equal(fate__parse("logout:x", &w, &why), -1);
	assert_int_equal(fate__parse("hangup:", &w, &why), -1);
	assert_int_equal(fate__parse("reboot", &w, &why), -1);
	(void)state;
}

static void test_hangup(void **state)
{
	struct model *m = login();
	struct fate_what w;
	struct fate_report r;
	const char *why, *by;

	assert_int_equal(fate__parse("hangup:pts/0", &w, &why), 0);
	assert_int_equal(fate__predict(m, &io, &w, &r, &why), 0);
	assert_int_equal(r.leader, 100);
	/* The kernel signals bash only; bash catching it and dying is its habit. */
	assert_int_equal(outcome(&r, 100, &by), OUTCOME_DIES);
	assert_string_equal(by, "shell");
	assert_int_equal(find(&r, 100)->kernel.outcome, OUTCOME_SURVIVES);
	assert_int_equal(outcome(&r, 101, &by), OUTCOME_DIES);
	assert_string_equal(by, "shell");
	assert_int_equal(outcome(&r, 102, &by), OUTCOME_SURVIVES);
	/* The stopped job: bash's SIGTERM waits for its SIGCONT, then ends it. */
	assert_int_equal(outcome(&r, 103, &by), OUTCOME_DIES);
	assert_int_equal(outcome(&r, 104, &by), OUTCOME_DIES);
	assert_int_equal(outcome(&r, 105, &by), OUTCOME_SURVIVES);
	assert_string_equal(by, "none");
	assert_null(find(&r, 106));
	fate__free(&r);
	model__free(m);
	(void)state;
}

static void test_hangup_plain_leader(void **state)
{
	struct model *m = login();
	struct fate_what w;
	struct fate_report r;
	const char *why, *by;

	/* Not a shell: SIGHUP's default ends it; its exit signals the foreground. */
	sigs_of[100].caught = 0;
	assert_int_equal(fate__parse("hangup:pts/0", &w, &why), 0);
	assert_int_equal(fate__predict(m, &io, &w, &r, &why), 0);
	assert_int_equal(outcome(&r, 100, &by), OUTCOME_DIES);
	assert_string_equal(by, "kernel");
	assert_int_equal(outcome(&r, 104, &by), OUTCOME_DIES);
	assert_string_equal(by, "kernel");
	/* A background job: nothing of the kernel's, but its group is orphaned... */
	assert_int_equal(outcome(&r, 101, &by), OUTCOME_SURVIVES);
	/* ...and one with a stopped member gets SIGHUP and SIGCONT. */
	assert_int_equal(outcome(&r, 103, &by), OUTCOME_DIES);
	assert_string_equal(by, "kernel");
	assert_non_null(strstr(find(&r, 103)->kernel.reason, "orphaned-group rule"));
	fate__free(&r);
	model__free(m);
	(void)state;
}

static void test_kill(void **state)
{
	struct model *m = login();
	struct fate_what w;
	struct fate_report r;
	const char *why, *by;

	assert_int_equal(fate__parse("kill:-103:TERM", &w, &why), 0);
	assert_int_equal(fate__predict(m, &io, &w, &r, &why), 0);
	/* Stopped: it holds SIGTERM until a SIGCONT. */
	assert_int_equal(outcome(&r, 103, &by), OUTCOME_SURVIVES);
	assert_int_equal(r.nr, 1);
	fate__free(&r);
	assert_int_equal(fate__parse("kill:-104:WINCH", &w, &why), 0);
	assert_int_equal(fate__predict(m, &io, &w, &r, &why), 0);
	assert_int_equal(outcome(&r, 104, &by), OUTCOME_SURVIVES);
	fate__free(&r);
	assert_int_equal(fate__parse("kill:-101:TSTP", &w, &why), 0);
	assert_int_equal(fate__predict(m, &io, &w, &r, &why), 0);
	assert_int_equal(outcome(&r, 101, &by), OUTCOME_STOPS);
	fate__free(&r);
	assert_int_equal(fate__parse("kill:-777:TERM", &w, &why), 0);
	assert_int_equal(fate__predict(m, &io, &w, &r, &why), -ESRCH);
	fate__free(&r);
	model__free(m);
	(void)state;
}

static void test_logout(void **state)
{
	struct model *m = login();
	struct fate_what w;
	struct fate_report r;
	const char *why, *by;

	/* bash exits: on a pty, the kernel sends its foreground group SIGHUP. */
	assert_int_equal(fate__parse("logout:100", &w, &why), 0);
	assert_int_equal(fate__predict(m, &io, &w, &r, &why), 0);
	assert_int_equal(outcome(&r, 104, &by), OUTCOME_DIES);
	assert_string_equal(by, "kernel");
	assert_int_equal(outcome(&r, 101, &by), OUTCOME_SURVIVES);
	/* bash's habit on exit: SIGTERM and SIGCONT to its stopped job. */
	assert_int_equal(outcome(&r, 103, &by), OUTCOME_DIES);
	fate__free(&r);
	model__free(m);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_hangup),
		cmocka_unit_test(test_hangup_plain_leader),
		cmocka_unit_test(test_kill),
		cmocka_unit_test(test_logout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
