// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "procfs.h"
#include "verify.h"
#include "msg.h"

#define VERIFY_TRIES	     25
#define VERIFY_TRIES_EXITING 500
#define VERIFY_WAIT_MS	     20

static void diff(struct sbuf *r, struct verify_result *res, pid_t pid, const char *field,
		 long long model, long long proc)
{
	sbuf__printf(r, "verify: pid %d %s: model %lld, /proc %lld\n", pid, field, model, proc);
	res->differences++;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct proc_stat *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int verify__run(const struct model *m, struct sbuf *report, struct verify_result *res)
{
	struct proc_stat *all;
	struct mproc *p;
	int n, i;

	memset(res, 0, sizeof(*res));
	n = procfs__list(&all);
	if (n < 0)
		return n;
	res->processes = (unsigned int)n;
	for (i = 0; i < n; i++) {
		const struct proc_stat *st = &all[i];
		const struct mtty *t;

		p = model__find(m, (__u32)st->pid);
		if (!p) {
			sbuf__printf(report, "verify: pid %d (", st->pid);
			sbuf__put_text(report, st->comm, sizeof(st->comm));
			sbuf__puts(report, ") missing from the model\n");
			res->differences++;
			continue;
		}
		if (p->ctx.ppid != (__u32)st->ppid)
			diff(report, res, st->pid, "ppid", p->ctx.ppid, st->ppid);
		if (p->ctx.pgid != (__u32)st->pgid)
			diff(report, res, st->pid, "pgid", p->ctx.pgid, st->pgid);
		if (p->ctx.sid != (__u32)st->sid)
			diff(report, res, st->pid, "sid", p->ctx.sid, st->sid);
		if (p->ctx.tty_nr != st->tty_nr)
			diff(report, res, st->pid, "tty_nr", p->ctx.tty_nr, st->tty_nr);
		if (p->zombie != (st->state == 'Z'))
			diff(report, res, st->pid, "zombie", p->zombie, st->state == 'Z');
		if (st->tty_nr && st->tpgid > 0) {
			t = model__tty(m, st->tty_nr);
			if (!t || t->fg_pgid != (__u32)st->tpgid)
				diff(report, res, st->pid, "tpgid", t ? t->fg_pgid : 0, st->tpgid);
		}
	}
	qsort(all, (size_t)n, sizeof(*all), cmp_pid);
	model__for_each_proc(m, p) {
		struct proc_stat key = { .pid = (pid_t)p->ctx.pid };

		if (bsearch(&key, all, (size_t)n, sizeof(*all), cmp_pid))
			continue;
		sbuf__printf(report, "verify: pid %u (", p->ctx.pid);
		sbuf__put_text(report, p->ctx.comm, sizeof(p->ctx.comm));
		sbuf__puts(report, ") in the model, not in /proc\n");
		res->differences++;
	}
	free(all);
	return 0;
}

unsigned int verify__settled(struct model *m, void (*settle)(void *ctx), void *ctx,
			     struct sbuf *report)
{
	struct verify_result res = {};
	size_t from = report->len;
	int i, err = 0;

	for (i = 0; i < VERIFY_TRIES || (i < VERIFY_TRIES_EXITING && model__pending_reparents(m));
	     i++) {
		settle(ctx);
		/* Pending only while the old parent may still be in do_exit: bounded. */
		model__confirm_reparents(m, clock_ns(CLOCK_BOOTTIME), 0);
		model__drop_reaped(m);
		report->len = from;
		if (report->buf)
			report->buf[from] = '\0';
		err = verify__run(m, report, &res);
		if (err || !res.differences)
			break;
		usleep(VERIFY_WAIT_MS * 1000);
	}
	if (err) {
		p_err("cannot read /proc: %s", strerror(-err));
		res.differences = 1;
	}
	sbuf__printf(report, "verify: %u processes, %u differences\n", res.processes,
		     res.differences);
	return res.differences;
}
