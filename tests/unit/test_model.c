// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests: the model's transitions on synthetic event sequences. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "model.h"
#include "procfs.h"
#include "tree.h"
#include "records.h"
#include "feed.h"

static void exit_(struct model *m, struct pgt_proc p, __u32 status)
{
	struct pgt_exit r = { .proc = p, .status = status };

	apply(m, &r, PGT_EXIT, sizeof(r));
}

static void reap(struct model *m, __u32 pid, __u64 start)
{
	struct pgt_reap r = { .pid = pid, .start_ns = start };

	apply(m, &r, PGT_REAP, sizeof(r));
}

static void reparent(struct model *m, struct pgt_proc father, __u32 child, __u64 cstart,
		     __u32 reaper, __u32 reason)
{
	struct pgt_reparent r = { .proc = father,
				  .child_pid = child,
				  .child_start_ns = cstart,
				  .reaper_pid = reaper,
				  .reaper_tid = reaper,
				  .reason = reason };

	apply(m, &r, PGT_REPARENT, sizeof(r));
}

/* The processes of group @pgid, zombies included. */
static unsigned int members(struct model *m, __u32 pgid)
{
	struct mproc *p;
	unsigned int n = 0;

	model__for_each_proc(m, p)
		if (p->ctx.pgid == pgid)
			n++;
	return n;
}

static struct model *base(void)
{
	struct model *m = model__new();

	assert_non_null(m);
	snap(m, ctx(1, 0, 1, 1, 10, "init"));
	snap(m, ctx(100, 1, 100, 100, 20, "sshd"));
	snap(m, ctx(200, 100, 200, 200, 30, "bash"));
	model__snapshot_done(m);
	return m;
}

static void test_pid_reuse(void **state)
{
	struct model *m = base();
	struct mproc *p;

	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 200, 200, 40, "old"));
	exit_(m, ctx(300, 200, 200, 200, 40, "old"), 0);
	/* The reap was lost; the pid comes back as another process. */
	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 200, 200, 90, "new"));
	p = model__find(m, 300);
	assert_non_null(p);
	assert_int_equal(p->ctx.start_ns, 90);
	assert_string_equal(p->ctx.comm, "new");
	assert_false(p->zombie);
	/* A late event about the old process does not resurrect it. */
	exit_(m, ctx(300, 200, 200, 200, 40, "old"), 0);
	p = model__find(m, 300);
	assert_int_equal(p->ctx.start_ns, 90);
	assert_false(p->zombie);
	/* Nor does a reap of the old identity remove the new one. */
	reap(m, 300, 40);
	assert_non_null(model__find(m, 300));
	reap(m, 300, 90);
	assert_null(model__find(m, 300));
	assert_int_equal(members(m, 200), 1);
	model__free(m);
}

/* The classic tracepoint level reaps by pid alone (start 0): zombies only. */
static void test_reap_without_start_time(void **state)
{
	struct model *m = base();

	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 200, 200, 40, "job"));
	reap(m, 300, 0); /* a thread's free, or early: not a zombie yet */
	assert_non_null(model__find(m, 300));
	exit_(m, ctx(300, 200, 200, 200, 40, "job"), 0);
	reap(m, 300, 0);
	assert_null(model__find(m, 300));
	assert_int_equal(members(m, 200), 1);
	model__free(m);
}

static void test_reparent_subreaper_and_init(void **state)
{
	struct model *m = base();
	struct mproc *c;

	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 200, 200, 40, "a"));
	fork_(m, ctx(300, 200, 200, 200, 40, "a"), ctx(301, 300, 200, 200, 41, "b"));
	/* a exits: b goes to the subreaper 100. */
	reparent(m, ctx(300, 200, 200, 200, 40, "a"), 301, 41, 100, PGT_REAPER_SUBREAPER);
	exit_(m, ctx(300, 200, 200, 200, 40, "a"), 0);
	c = model__find(m, 301);
	assert_int_equal(c->ctx.ppid, 100);
	assert_int_equal(c->adopted_from, 300);
	assert_int_equal(c->predicted_ppid, 100);
	/* Its next event confirms it. */
	fork_(m, ctx(301, 100, 200, 200, 41, "b"), ctx(302, 301, 200, 200, 42, "c"));
	assert_int_equal(c->predicted_ppid, 0);
	assert_int_equal(c->ctx.ppid, 100);
	/* Lineage survives: b was born to a, which was born to bash. */
	assert_non_null(c->lineage);
	assert_non_null(c->lineage->parent);
	assert_int_equal(c->lineage->parent->pid, 300);
	assert_string_equal(c->lineage->parent->comm, "a");
	assert_int_equal(c->lineage->parent->parent->pid, 200);
	reap(m, 300, 40);
	assert_int_equal(c->lineage->parent->pid, 300); /* kept for b */

	/* 100 exits: b goes to init. */
	reparent(m, ctx(100, 1, 100, 100, 20, "sshd"), 301, 41, 1, PGT_REAPER_NS_INIT);
	assert_int_equal(c->ctx.ppid, 1);
	assert_int_equal(c->adopted_from, 100);
	model__free(m);
}

static int mismatches, removed;

static void count_note(void *ctx, const struct model_note *n)
{
	if (n->kind == NOTE_REPARENT_MISMATCH)
		mismatches++;
	if (n->kind == NOTE_ZOMBIE_GONE)
		removed++;
}

static void test_reparent_mismatch_is_corrected(void **state)
{
	struct model *m = base();

	model__set_note_fn(m, count_note, NULL);
	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 200, 200, 40, "a"));
	reparent(m, ctx(200, 100, 200, 200, 30, "bash"), 300, 40, 100, PGT_REAPER_SUBREAPER);
	/* The kernel chose init after all: the next event says so. */
	fork_(m, ctx(300, 1, 200, 200, 40, "a"), ctx(301, 300, 200, 200, 41, "b"));
	assert_int_equal(mismatches, 1);
	assert_int_equal(model__find(m, 300)->ctx.ppid, 1);
	model__free(m);
}

/*
 * A prediction that /proc contradicts by still naming the old parent waits
 * for the kernel (exit_notify comes after the exit event), but not forever:
 * a parent that never died (the BPF side saw only some of its threads) is
 * believed after a second. The child here is real: /proc is read.
 */
static void test_reparent_pending_then_proc_wins(void **state)
{
	struct model *m = base();
	__u32 me = (__u32)getpid(), kid;
	struct mproc *c;
	int fds[2];
	char ch;

	assert_int_equal(pipe(fds), 0);
	kid = (__u32)fork();
	if (kid == 0) {
		close(fds[1]);
		_exit(read(fds[0], &ch, 1) < 0);
	}
	mismatches = 0;
	model__set_io(m, &(struct model_io){ .read_stat = procfs__model_stat });
	model__set_note_fn(m, count_note, NULL);
	fork_(m, ctx(me, 100, me, 100, 30, "test"), ctx(kid, me, me, 100, 40, "kid"));
	reparent(m, ctx(me, 100, me, 100, 30, "test"), kid, 40, 100, PGT_REAPER_SUBREAPER);
	c = model__find(m, kid);
	assert_int_equal(c->ctx.ppid, 100);
	/* On the next tick, and at a verify: /proc names the parent, still pending. */
	model__confirm_reparents(m, c->updated_ns + 500000000ULL, 0);
	model__confirm_reparents(m, 0, 0);
	assert_int_equal(c->predicted_ppid, 100);
	assert_int_equal(mismatches, 0);
	/* A second on, /proc wins. */
	model__confirm_reparents(m, c->updated_ns + 1500000000ULL, 0);
	assert_int_equal(c->predicted_ppid, 0);
	assert_int_equal(c->ctx.ppid, me);
	assert_int_equal(mismatches, 1);
	close(fds[1]);
	assert_int_equal(waitpid((pid_t)kid, NULL, 0), (pid_t)kid);
	close(fds[0]);
	model__free(m);
}

/* A /proc of the test's making: the child and its parent, which is exiting. */
static struct {
	pid_t kid, parent, kid_ppid;
	__u32 parent_flags;
	char parent_state;
} fake;

static int fake_stat(pid_t pid, struct model_stat *st)
{
	memset(st, 0, sizeof(*st));
	if (pid == fake.kid) {
		st->ppid = fake.kid_ppid;
		st->state = 'S';
		return 0;
	}
	if (pid == fake.parent && fake.parent_state) {
		st->state = fake.parent_state;
		st->flags = fake.parent_flags;
		return 0;
	}
	return -ENOENT;
}

/*
 * A parent that frees 4 GiB exits for longer than a second after its
 * sched_process_exit: while /proc shows it PF_EXITING, its orphan's new
 * parent stays predicted, not "corrected" back to the dying one (issue 14,
 * item 7). Once it is a zombie, or gone, /proc has the answer.
 */
/*
 * 30999 forked 31000 and exits; 31000's new parent is predicted to be 100.
 * /proc (fake) still names 30999, which is in state @state with @flags.
 */
static struct mproc *orphan_of_exiting(struct model *m, char state, __u32 flags)
{
	fake.kid = 31000;
	fake.parent = 30999;
	fake.kid_ppid = 30999; /* not reparented yet */
	fake.parent_state = state;
	fake.parent_flags = flags;
	model__set_io(m, &(struct model_io){ .read_stat = fake_stat });
	mismatches = 0;
	model__set_note_fn(m, count_note, NULL);
	fork_(m, ctx(30999, 100, 30999, 100, 30, "big"),
	      ctx(31000, 30999, 30999, 100, 40, "sleep"));
	reparent(m, ctx(30999, 100, 30999, 100, 30, "big"), 31000, 40, 100, PGT_REAPER_SUBREAPER);
	return model__find(m, 31000);
}

static void test_reparent_pending_while_parent_exits(void **state)
{
	struct model *m = base();
	struct mproc *c = orphan_of_exiting(m, 'R', 0x4); /* PF_EXITING */

	model__confirm_reparents(m, c->updated_ns + 5000000000ULL, 0);
	assert_int_equal(c->predicted_ppid, 100);
	assert_int_equal(model__pending_reparents(m), 1);
	assert_int_equal(mismatches, 0);
	/* exit_notify: the kernel reparents as predicted. */
	fake.parent_state = 'Z';
	fake.kid_ppid = 100;
	model__confirm_reparents(m, c->updated_ns + 6000000000ULL, 0);
	assert_int_equal(c->predicted_ppid, 0);
	assert_int_equal(c->ctx.ppid, 100);
	assert_int_equal(mismatches, 0);
	assert_int_equal(model__pending_reparents(m), 0);
	model__free(m);
}

/* A parent that names itself a second on and is not exiting did not die: /proc wins. */
static void test_reparent_parent_alive_proc_wins(void **state)
{
	struct model *m = base();
	struct mproc *c = orphan_of_exiting(m, 'S', 0);

	model__confirm_reparents(m, c->updated_ns + 1500000000ULL, 0);
	assert_int_equal(c->ctx.ppid, 30999);
	assert_int_equal(mismatches, 1);
	model__free(m);
}

/*
 * PID 1 read from /proc has a start rounded to a clock tick; its first event
 * makes it exact, and its link in every descendant's lineage with it: one
 * process, one entity id (issue 14, item 9).
 */
static void test_exact_start_reaches_lineage(void **state)
{
	struct pgt_snap r = { .proc = ctx(1, 0, 1, 1, 120000000, "init") };
	struct model *m = model__new();
	const struct mproc *init, *kid;
	char a[17], b[17];

	model__snapshot_add(m, &r, true); /* /proc: 12 ticks */
	model__snapshot_done(m);
	fork_(m, ctx(1, 0, 1, 1, 123456789, "init"), ctx(40, 1, 1, 1, 500000000, "kid"));
	init = model__find(m, 1);
	kid = model__find(m, 40);
	assert_int_equal(init->ctx.start_ns, 123456789);
	assert_non_null(kid->lineage->parent);
	assert_int_equal(kid->lineage->parent->start_ns, 123456789);
	decode__entity_id(1, init->ctx.start_ns, a);
	decode__entity_id(kid->lineage->parent->pid, kid->lineage->parent->start_ns, b);
	assert_string_equal(a, b);
	model__free(m);
}

/* --snapshot --json: a name that is not UTF-8 comes back exactly, from comm_hex. */
static void test_tree_json_comm_hex(void **state)
{
	struct tree_opts o = { .json = true, .ascii = true };
	struct model *m = model__new();
	struct sbuf sb = {};

	snap(m, ctx(1, 0, 1, 1, 10, "init"));
	snap(m, ctx(77, 1, 77, 77, 20, "a\xff\xfe"));
	model__snapshot_done(m);
	tree__render(m, &o, &sb);
	sbuf__putc(&sb, '\0');
	assert_non_null(strstr(sb.buf, "\"comm_hex\":\"61fffe\""));
	assert_null(strstr(sb.buf, "\"comm\":\"init\",\"comm_hex\""));
	sbuf__free(&sb);
	model__free(m);
}

/*
 * A zombie whose reap record never came (issue 14, item 8): gone from /proc
 * a while after its exit, it leaves the model, with a note; still in /proc,
 * or only just exited, it stays.
 */
static void test_zombie_without_reap_leaves(void **state)
{
	struct model *m = base();
	struct mproc *z;
	__u64 t;

	model__set_io(m, &(struct model_io){ .read_stat = fake_stat });
	model__set_note_fn(m, count_note, NULL);
	fork_(m, ctx(31342, 100, 31342, 100, 30, "sh"), ctx(31355, 31342, 31342, 100, 40, "mkdir"));
	exit_(m, ctx(31355, 31342, 31342, 100, 40, "mkdir"), 0);
	z = model__find(m, 31355);
	assert_true(z->zombie);
	t = z->updated_ns;
	/* /proc still has it (its parent has not waited): kept. */
	fake.kid = 31355;
	fake.kid_ppid = 31342;
	fake.parent = 0;
	assert_int_equal(model__audit_zombies(m, t + 10000000000ULL, 5000000000ULL), 0);
	/* Gone from /proc, but only just: its record may be in flight. */
	fake.kid = 0;
	assert_int_equal(model__audit_zombies(m, t + 1000000000ULL, 5000000000ULL), 0);
	assert_non_null(model__find(m, 31355));
	/* Gone, and 5 s on: removed. */
	removed = 0;
	assert_int_equal(model__audit_zombies(m, t + 6000000000ULL, 5000000000ULL), 1);
	assert_null(model__find(m, 31355));
	assert_int_equal(removed, 1);
	assert_non_null(model__find(m, 31342));
	model__free(m);
}

static struct pgt_proc on_tty(struct pgt_proc p, __u32 tty_nr, const char *tty)
{
	p.tty_nr = tty_nr;
	strncpy(p.tty, tty, sizeof(p.tty) - 1);
	return p;
}

static void exec_(struct model *m, struct pgt_proc p)
{
	struct pgt_exec r = { .proc = p, .old_tid = p.pid };

	apply(m, &r, PGT_EXEC, sizeof(r));
}

static __u32 entry_pid(struct model *m, __u32 pid)
{
	struct mproc *p = model__find(m, pid);

	return p && p->entry ? p->entry->pid : 0;
}

/*
 * An sshd started from a root shell on pts/6 serves a login on pts/10, from
 * which tmux and an ssh to localhost start logins of their own: each
 * process's entry leader is its innermost login, not the outer shell.
 */
static void test_innermost_login(void **state)
{
	struct model *m = model__new();

	snap(m, ctx(1, 0, 1, 1, 10, "init"));
	snap(m, on_tty(ctx(500, 1, 500, 500, 50, "bash"), 0x8806, "pts6"));
	model__snapshot_done(m);
	assert_int_equal(entry_pid(m, 500), 500);
	/* sshd daemonizes: setsid without a tty, still the outer login's. */
	fork_(m, on_tty(ctx(500, 1, 500, 500, 50, "bash"), 0x8806, "pts6"),
	      on_tty(ctx(510, 500, 500, 500, 51, "bash"), 0x8806, "pts6"));
	exec_(m, ctx(510, 500, 510, 510, 51, "sshd"));
	assert_int_equal(entry_pid(m, 510), 500);
	/* Its per-connection child leads a session: not a login. */
	fork_(m, ctx(510, 500, 510, 510, 51, "sshd"), ctx(520, 510, 510, 510, 52, "sshd"));
	exec_(m, ctx(520, 510, 520, 520, 52, "sshd"));
	assert_int_equal(entry_pid(m, 520), 500);
	/* The session child takes pts/10 and becomes the user's shell. */
	fork_(m, ctx(520, 510, 520, 520, 52, "sshd"), ctx(530, 520, 520, 520, 53, "sshd"));
	exec_(m, on_tty(ctx(530, 520, 530, 530, 53, "bash"), 0x880a, "pts10"));
	assert_int_equal(entry_pid(m, 530), 530);
	assert_string_equal(model__find(m, 530)->entry->tty, "pts10");
	fork_(m, on_tty(ctx(530, 520, 530, 530, 53, "bash"), 0x880a, "pts10"),
	      on_tty(ctx(540, 530, 540, 530, 54, "bash"), 0x880a, "pts10"));
	exec_(m, on_tty(ctx(540, 530, 540, 530, 54, "sleep"), 0x880a, "pts10"));
	assert_int_equal(entry_pid(m, 540), 530);
	/* tmux inside it: the server keeps the login, a pane is a login. */
	fork_(m, on_tty(ctx(530, 520, 530, 530, 53, "bash"), 0x880a, "pts10"),
	      on_tty(ctx(550, 530, 550, 530, 55, "bash"), 0x880a, "pts10"));
	exec_(m, ctx(550, 530, 550, 550, 55, "tmux: server"));
	assert_int_equal(entry_pid(m, 550), 530);
	fork_(m, ctx(550, 530, 550, 550, 55, "tmux: server"), ctx(560, 550, 550, 550, 56, "tmux"));
	exec_(m, on_tty(ctx(560, 550, 560, 560, 56, "bash"), 0x880b, "pts11"));
	assert_int_equal(entry_pid(m, 560), 560);
	/* A setsid without a tty escapes; it does not start a login. */
	fork_(m, on_tty(ctx(560, 550, 560, 560, 56, "bash"), 0x880b, "pts11"),
	      on_tty(ctx(570, 560, 570, 560, 57, "bash"), 0x880b, "pts11"));
	exec_(m, ctx(570, 560, 570, 570, 57, "sleep"));
	assert_int_equal(entry_pid(m, 570), 560);
	model__free(m);
}

/* Seeded from /proc: the innermost login too, whatever the hash order. */
static void test_innermost_login_snapshot(void **state)
{
	struct model *m = model__new();

	snap(m, ctx(1, 0, 1, 1, 10, "init"));
	snap(m, ctx(560, 550, 560, 560, 56, "bash")); /* tty below */
	snap(m, ctx(570, 560, 570, 570, 57, "sleep"));
	snap(m, ctx(510, 500, 510, 510, 51, "sshd"));
	snap(m, on_tty(ctx(500, 1, 500, 500, 50, "bash"), 0x8806, "pts6"));
	snap(m, ctx(520, 510, 520, 520, 52, "sshd"));
	snap(m, on_tty(ctx(530, 520, 530, 530, 53, "bash"), 0x880a, "pts10"));
	snap(m, ctx(550, 530, 550, 550, 55, "tmux: server"));
	model__find(m, 560)->ctx.tty_nr = 0x880b;
	model__snapshot_done(m);
	assert_int_equal(entry_pid(m, 510), 500);
	assert_int_equal(entry_pid(m, 520), 500);
	assert_int_equal(entry_pid(m, 530), 530);
	assert_int_equal(entry_pid(m, 550), 530);
	assert_int_equal(entry_pid(m, 560), 560);
	assert_int_equal(entry_pid(m, 570), 560);
	model__free(m);
}

static void test_zombies_stay_in_group(void **state)
{
	struct model *m = base();

	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 300, 200, 40, "job"));
	fork_(m, ctx(300, 200, 300, 200, 40, "job"), ctx(301, 300, 300, 200, 41, "job2"));
	exit_(m, ctx(301, 300, 300, 200, 41, "job2"), 9);
	assert_true(model__find(m, 301)->zombie);
	assert_int_equal(members(m, 300), 2);
	reap(m, 301, 41);
	assert_int_equal(members(m, 300), 1);
	exit_(m, ctx(300, 200, 300, 200, 40, "job"), 0);
	reap(m, 300, 40);
	assert_int_equal(members(m, 300), 0);
	model__free(m);
}

static void test_leader_exits_group_lives(void **state)
{
	struct model *m = base();
	struct msession *s;

	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 300, 200, 40, "job"));
	exit_(m, ctx(200, 100, 200, 200, 30, "bash"), 0);
	reap(m, 200, 30);
	assert_null(model__find(m, 200));
	assert_int_equal(members(m, 200), 0);
	s = model__session(m, 200);
	assert_non_null(s);
	assert_int_equal(s->members, 1);
	assert_true(members(m, 300) > 0);
	model__free(m);
}

static void test_setpgid_to_existing_group(void **state)
{
	struct model *m = base();
	struct pgt_setpgid r = {};

	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 200, 200, 40, "a"));
	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(301, 200, 200, 200, 41, "b"));
	r.proc = ctx(200, 100, 200, 200, 30, "bash");
	r.target = ctx(300, 200, 300, 200, 40, "a");
	r.target_found = 1;
	apply(m, &r, PGT_SETPGID, sizeof(r));
	r.target = ctx(301, 200, 300, 200, 41, "b");
	apply(m, &r, PGT_SETPGID, sizeof(r));
	assert_int_equal(members(m, 300), 2);
	assert_int_equal(members(m, 200), 1);
	assert_int_equal(model__find(m, 301)->ctx.pgid, 300);
	model__free(m);
}

static void test_non_leader_exec(void **state)
{
	struct model *m = base();
	struct pgt_exec r = {};
	struct pgt_proc p;

	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), ctx(300, 200, 200, 200, 40, "threads"));
	/* Thread 305 of process 300 execs: the process keeps pid and start. */
	p = ctx(300, 200, 200, 200, 40, "newimage");
	r.proc = p;
	r.old_tid = 305;
	apply(m, &r, PGT_EXEC, sizeof(r));
	assert_int_equal(model__count(m), 4);
	assert_string_equal(model__find(m, 300)->ctx.comm, "newimage");
	assert_string_equal(model__find(m, 300)->lineage->comm, "newimage");
	model__free(m);
}

static void test_stale_event_after_snapshot(void **state)
{
	struct model *m = model__new();
	struct pgt_snap s = { .proc = ctx(300, 1, 300, 300, 40, "now") };
	struct pgt_event ev;
	struct pgt_setsid r = {};

	/* The snapshot read 300 at t=500; a queued setsid from t=400 is older. */
	s.hdr.type = PGT_SNAP;
	s.hdr.size = sizeof(s);
	s.hdr.ts_ns = 500;
	decode__record(&s, sizeof(s), &ev);
	model__apply(m, &ev);
	r.proc = ctx(300, 1, 1, 1, 40, "before");
	r.hdr.type = PGT_SETSID;
	r.hdr.size = sizeof(r);
	r.hdr.ts_ns = 400;
	decode__record(&r, sizeof(r), &ev);
	model__apply(m, &ev);
	assert_int_equal(model__find(m, 300)->ctx.sid, 300);
	assert_string_equal(model__find(m, 300)->ctx.comm, "now");
	model__free(m);
}

static void test_tree_rendering(void **state)
{
	struct model *m = base();
	struct tree_opts o = { .ascii = true };
	struct sbuf sb = {};
	struct pgt_proc job = ctx(300, 200, 300, 200, 40, "job");

	job.tty_nr = (136 << 8) | 1;
	strcpy(job.tty, "pts1");
	job.tty_fg_pgid = 300;
	fork_(m, ctx(200, 100, 200, 200, 30, "bash"), job);
	fork_(m, job, ctx(301, 300, 300, 200, 41, "job2"));
	exit_(m, ctx(301, 300, 300, 200, 41, "job2"), 0);
	tree__render(m, &o, &sb);
	assert_string_equal(sb.buf, "session 1  leader 1 init  no tty  uid 0\n"
				    "`- group 1\n"
				    "   `- 1 init s  ppid 0\n"
				    "session 100  leader 100 sshd  no tty  uid 0\n"
				    "`- group 100\n"
				    "   `- 100 sshd s  ppid 1\n"
				    "session 200  leader 200 bash  tty pts/1  uid 0\n"
				    "|- group 200\n"
				    "|  `- 200 bash s  ppid 100\n"
				    "`- group 300 +\n"
				    "   `- 300 job  ppid 200\n"
				    "      `- 301 job2 Z\n");
	sbuf__reset(&sb);
	o.pid = 300;
	tree__render(m, &o, &sb);
	assert_non_null(strstr(sb.buf, "300 job"));
	assert_null(strstr(sb.buf, "sshd"));
	sbuf__free(&sb);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_reuse),
		cmocka_unit_test(test_reparent_subreaper_and_init),
		cmocka_unit_test(test_reparent_mismatch_is_corrected),
		cmocka_unit_test(test_reparent_pending_then_proc_wins),
		cmocka_unit_test(test_reparent_pending_while_parent_exits),
		cmocka_unit_test(test_exact_start_reaches_lineage),
		cmocka_unit_test(test_zombie_without_reap_leaves),
		cmocka_unit_test(test_reparent_parent_alive_proc_wins),
		cmocka_unit_test(test_innermost_login),
		cmocka_unit_test(test_innermost_login_snapshot),
		cmocka_unit_test(test_zombies_stay_in_group),
		cmocka_unit_test(test_leader_exits_group_lives),
		cmocka_unit_test(test_setpgid_to_existing_group),
		cmocka_unit_test(test_non_leader_exec),
		cmocka_unit_test(test_stale_event_after_snapshot),
		cmocka_unit_test(test_tree_rendering),
		cmocka_unit_test(test_tree_json_comm_hex),
		cmocka_unit_test(test_reap_without_start_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
