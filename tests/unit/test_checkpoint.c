// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests: a checkpoint gives back the model it was taken of, and bad bytes are refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "checkpoint.h"
#include "records.h"
#include "feed.h"

static void exit_(struct model *m, struct pgt_proc p, __u32 status)
{
	struct pgt_exit r = { .proc = p, .status = status };

	apply(m, &r, PGT_EXIT, sizeof(r));
}

static void exec_(struct model *m, struct pgt_proc p)
{
	struct pgt_exec r = { .proc = p, .old_tid = p.pid };

	apply(m, &r, PGT_EXEC, sizeof(r));
}

static struct pgt_proc on_tty(struct pgt_proc p, __u32 fg)
{
	p.tty_nr = (136 << 8) | 3;
	p.tty_fg_pgid = fg;
	p.flags |= PGT_F_HAS_TTY;
	strcpy(p.tty, "pts3");
	return p;
}

/* A login with a job, a zombie, an image, a cgroup, a remote: what a checkpoint must keep. */
static struct model *login(void)
{
	static const char args[] = "sleep\0"
				   "100";
	struct model *m = model__new();
	struct pgt_proc init = ctx(1, 0, 1, 1, 10, "init");
	struct pgt_proc sshd = ctx(100, 1, 100, 100, 20, "sshd");
	struct pgt_proc sh = on_tty(ctx(200, 100, 200, 200, 30, "bash"), 300);
	struct pgt_proc job = on_tty(ctx(300, 200, 300, 200, 40, "sleep\xff\n"), 300);
	struct pgt_proc gone = on_tty(ctx(301, 300, 300, 200, 50, "true"), 300);
	struct pcgroup *cg = pcgroup__new("/user.slice/user-0.slice", 64, 42, NULL, 0);
	struct mproc *p;

	assert_non_null(m);
	snap(m, init);
	snap(m, sshd);
	model__snapshot_done(m);
	fork_(m, sshd, sh);
	exec_(m, sh); /* a session leader with a tty execs: a login */
	fork_(m, sh, job);
	fork_(m, job, gone);
	exit_(m, gone, 9);
	p = model__find(m, 300);
	assert_non_null(p);
	model__set_exec(p, "/usr/bin/sleep", args, sizeof(args), false);
	model__set_cgroup(p, cg);
	pcgroup__put(cg);
	p = model__find(m, 200);
	assert_non_null(p->lineage);
	p->lineage->remote = calloc(1, sizeof(*p->lineage->remote));
	strcpy(p->lineage->remote->ip, "192.0.2.7");
	p->lineage->remote->port = 50022;
	return m;
}

static struct sbuf dump(const struct model *m)
{
	struct sbuf b = {};

	assert_int_equal(checkpoint__dump(m, &b), 0);
	assert_true(b.len > 0);
	return b;
}

static void same_line(const struct lineage *a, const struct lineage *b)
{
	for (; a || b; a = a->parent, b = b->parent) {
		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->pid, b->pid);
		assert_int_equal(a->start_ns, b->start_ns);
		assert_memory_equal(a->comm, b->comm, sizeof(a->comm));
		assert_int_equal(!a->image, !b->image);
		if (a->image && a->image->exe)
			assert_string_equal(a->image->exe, b->image->exe);
		assert_int_equal(!a->remote, !b->remote);
		if (a->remote)
			assert_memory_equal(a->remote, b->remote, sizeof(*a->remote));
	}
}

static void test_round_trip(void **state)
{
	struct model *m = login(), *back = model__new();
	struct sbuf a = dump(m), b;
	const struct mproc *p, *q;
	const struct msession *s;

	assert_int_equal(checkpoint__load(back, a.buf, a.len), 0);
	assert_int_equal(model__count(back), model__count(m));
	model__for_each_proc(m, p) {
		q = model__find(back, p->ctx.pid);
		assert_non_null(q);
		assert_memory_equal(&p->ctx, &q->ctx, sizeof(p->ctx));
		assert_int_equal(p->zombie, q->zombie);
		assert_int_equal(p->exit_status, q->exit_status);
		assert_int_equal(p->born_sid, q->born_sid);
		assert_int_equal(p->born_pgid, q->born_pgid);
		assert_int_equal(p->entry_inferred, q->entry_inferred);
		same_line(p->lineage, q->lineage);
		same_line(p->entry, q->entry);
		assert_int_equal(!p->cg, !q->cg);
		if (p->cg) {
			assert_string_equal(p->cg->v2, q->cg->v2);
			assert_int_equal(p->cg->id, q->cg->id);
		}
	}
	/* Shared links stay shared: the job's entry is its login's own link. */
	q = model__find(back, 300);
	assert_ptr_equal(q->entry, model__find(back, 200)->lineage);
	assert_string_equal(model__image(q)->exe, "/usr/bin/sleep");
	assert_int_equal(model__image(q)->args_len, 10);
	assert_true(model__find(back, 301)->zombie);
	for (s = model__next_session(m, NULL); s; s = model__next_session(m, s)) {
		const struct msession *t = model__session(back, s->sid);

		assert_non_null(t);
		assert_int_equal(s->members, t->members);
		assert_int_equal(s->tty_nr, t->tty_nr);
		assert_int_equal(s->leader_start_ns, t->leader_start_ns);
	}
	assert_int_equal(model__tty(back, (136 << 8) | 3)->fg_pgid, 300);
	assert_int_equal(model__tty(back, (136 << 8) | 3)->sid, 200);
	/* Taken again, the same bytes. */
	b = dump(back);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	sbuf__free(&a);
	sbuf__free(&b);
	model__free(m);
	model__free(back);
}

/* Cut anywhere, or any byte changed: refused or read, never a crash (ASan watches). */
static void test_damage(void **state)
{
	struct model *m = login(), *back;
	struct sbuf a = dump(m);
	char *copy = malloc(a.len);
	size_t i;
	int bit;

	for (i = 0; i < a.len; i++) {
		back = model__new();
		copy = realloc(copy, i ? i : 1);
		memcpy(copy, a.buf, i);
		assert_int_equal(checkpoint__load(back, copy, i), -EINVAL);
		model__free(back);
	}
	copy = realloc(copy, a.len);
	for (i = 0; i < a.len; i++)
		for (bit = 0; bit < 8; bit += 3) {
			back = model__new();
			memcpy(copy, a.buf, a.len);
			copy[i] ^= (char)(1 << bit);
			checkpoint__load(back, copy, a.len);
			model__free(back);
		}
	/* Another version's bytes: refused. */
	memcpy(copy, a.buf, a.len);
	copy[4] = 99;
	back = model__new();
	assert_int_equal(checkpoint__load(back, copy, a.len), -EINVAL);
	model__free(back);
	free(copy);
	sbuf__free(&a);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
