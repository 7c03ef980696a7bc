// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests: the rows of the full-screen tree (user/view.c) and their lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "model.h"
#include "records.h"
#include "feed.h"
#include "view.h"

static struct pgt_proc on_tty(struct pgt_proc p)
{
	p.tty_nr = (136 << 8) | 1;
	strcpy(p.tty, "pts1");
	p.tty_fg_pgid = 300;
	return p;
}

/*
 * init, two daemons (one with a child), a kernel thread, and a login on
 * pts/1: its shell, a job of one process in the foreground, a job of two.
 */
static struct model *machine(void)
{
	struct model *m = model__new();
	struct pgt_proc kt = ctx(3, 2, 0, 0, 5, "kworker/0:1");

	kt.flags |= PGT_F_KTHREAD;
	snap(m, ctx(1, 0, 1, 1, 10, "init"));
	snap(m, ctx(2, 0, 0, 0, 11, "kthreadd"));
	snap(m, kt);
	snap(m, ctx(50, 1, 50, 50, 15, "cron"));
	snap(m, ctx(51, 50, 50, 50, 16, "cron"));
	snap(m, ctx(100, 1, 100, 100, 20, "sshd"));
	snap(m, on_tty(ctx(200, 100, 200, 200, 30, "bash")));
	model__snapshot_done(m);
	fork_(m, on_tty(ctx(200, 100, 200, 200, 30, "bash")),
	      on_tty(ctx(300, 200, 300, 200, 40, "sleep")));
	fork_(m, on_tty(ctx(200, 100, 200, 200, 30, "bash")),
	      on_tty(ctx(310, 200, 310, 200, 50, "sh")));
	fork_(m, on_tty(ctx(310, 200, 310, 200, 50, "sh")),
	      on_tty(ctx(311, 310, 310, 200, 51, "cat")));
	return m;
}

/* The rows as "S sid", "G pgid[+][1:pid]", "P pid@depth". */
static void rows(const struct view *v, char *out, size_t len)
{
	size_t i, at = 0;

	out[0] = '\0';
	for (i = 0; i < v->n && at < len; i++) {
		const struct view_row *r = &v->rows[i];

		switch (r->kind) {
		case VIEW_SESSION:
			at += (size_t)snprintf(out + at, len - at, "S%u%s ", r->sid,
					       r->folded ? "~" : "");
			break;
		case VIEW_GROUP:
			at += (size_t)snprintf(out + at, len - at, "G%u%s%s ", r->pgid,
					       r->fg ? "+" : "", r->p ? "=1" : "");
			break;
		case VIEW_PROC:
			at += (size_t)snprintf(out + at, len - at, "P%u@%u ", r->pid, r->depth);
			break;
		}
	}
}

static bool fold_daemons(void *ctx, enum view_kind kind, __u32 id)
{
	(void)ctx;
	return kind == VIEW_SESSION && (id == 1 || id == 50 || id == 100);
}

static void test_rows(void **state)
{
	struct model *m = machine();
	struct view_opts o = {};
	struct view v = {};
	char got[512];

	/* Logins first; a one-process job is one row; kernel threads hidden. */
	assert_int_equal(view__build(&v, m, &o), 0);
	rows(&v, got, sizeof(got));
	assert_string_equal(got, "S200 G200=1 G300+=1 G310 P310@0 P311@1 "
				 "S1 G1=1 S50 G50 P50@0 P51@1 S100 G100=1 ");
	assert_int_equal(v.hidden_kthreads, 2);
	assert_int_equal(v.procs, 8);
	/* Shown on request, under session 0; folded sessions are one row. */
	o.kthreads = true;
	o.folded = fold_daemons;
	assert_int_equal(view__build(&v, m, &o), 0);
	rows(&v, got, sizeof(got));
	assert_string_equal(got, "S200 G200=1 G300+=1 G310 P310@0 P311@1 S0 G0 P2@0 P3@1 "
				 "S1~ S50~ S100~ ");
	/* The keys' filters: a session, a uid, a tty. */
	o = (struct view_opts){ .sid = 50 };
	assert_int_equal(view__build(&v, m, &o), 0);
	rows(&v, got, sizeof(got));
	assert_string_equal(got, "S50 G50 P50@0 P51@1 ");
	o = (struct view_opts){ .tty = "pts/1" };
	assert_int_equal(view__build(&v, m, &o), 0);
	rows(&v, got, sizeof(got));
	assert_string_equal(got, "S200 G200=1 G300+=1 G310 P310@0 P311@1 ");
	o = (struct view_opts){ .has_uid = true, .uid = 1000 };
	assert_int_equal(view__build(&v, m, &o), 0);
	assert_int_equal(v.n, 0);
	view__free(&v);
	model__free(m);
	(void)state;
}

static char state_of(void *ctx, const struct mproc *p)
{
	(void)ctx;
	return p->ctx.pid == 300 ? 'T' : 'S';
}

static const struct view_mark daemon_mark = { "daemonize", 200, 200, "pts/1" };

static const struct view_mark *mark_of(void *ctx, const struct mproc *p)
{
	(void)ctx;
	return p->ctx.pid == 311 ? &daemon_mark : NULL;
}

static void test_lines(void **state)
{
	struct model *m = machine();
	struct view_opts o = { .mark = mark_of };
	struct view_style st = { .utf8 = false, .state = state_of, .mark = mark_of };
	struct view v = {};
	struct sbuf sb = {};
	size_t i, at, cols;
	char all[2048] = "";

	assert_int_equal(view__build(&v, m, &o), 0);
	for (i = 0; i < 6; i++) {
		sbuf__reset(&sb);
		view__line(&sb, m, &v.rows[i], &st, 200, &at);
		sbuf__putc(&sb, '\0');
		strcat(all, sb.buf);
		strcat(all, "\n");
	}
	assert_string_equal(all,
			    "v session 200  pts/1  leader 200 bash  uid 0  login terminal  (4)\n"
			    "  group 200  200 Ss bash  ppid 100\n"
			    "  group 300 +  300 T sleep\n"
			    "  v group 310\n"
			    "    310 S sh\n"
			    "      311 S cat  ! daemonize from login 200 pts/1\n");
	/* Cut to 30 columns: the arguments give way, the mark stays as long as it can. */
	sbuf__reset(&sb);
	cols = view__line(&sb, m, &v.rows[5], &st, 30, &at);
	assert_true(cols <= 30);
	sbuf__putc(&sb, '\0');
	assert_string_equal(sb.buf, "      311 S cat  ! daemonize f");
	assert_int_equal(at, strlen("      311 S cat"));
	/* A glyph is one column. */
	st.utf8 = true;
	sbuf__reset(&sb);
	cols = view__line(&sb, m, &v.rows[0], &st, 10, &at);
	assert_int_equal(cols, 10);
	sbuf__putc(&sb, '\0');
	assert_string_equal(sb.buf, "\xe2\x96\xbe session ");
	sbuf__free(&sb);
	view__free(&v);
	model__free(m);
	(void)state;
}

static void test_fit(void **state)
{
	size_t used;

	assert_int_equal(view__fit("abc", 3, 2, &used), 2);
	assert_int_equal(used, 2);
	/* "é" is two bytes and one column; a wide character two columns. */
	assert_int_equal(view__fit("caf\xc3\xa9!", 6, 4, &used), 5);
	assert_int_equal(used, 4);
	assert_int_equal(view__fit("\xe4\xb8\xad\xe4\xb8\xad", 6, 3, &used), 3);
	assert_int_equal(used, 2);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
