// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text output: a header, then one aligned line per event. */
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "format.h"

#define TEXT_COLS "%-*s %-11s %-7s %-7s %-7s %-7s %-8s %-16s %s\n"

/*
 * The TIME column: "13:08:09.123" on a terminal; with the date and the
 * offset in a file (-o) or with --utc, where a line is read days later:
 * "2026-12-05T13:08:09.123+0100", "2026-12-05T13:08:09.123Z".
 */
static int time_width(const struct fmt_ctx *fc)
{
	return !fc->dated ? 12 : fc->utc ? 24 : 28;
}

void text__header(struct sbuf *sb, const struct fmt_ctx *fc)
{
	sbuf__printf(sb, TEXT_COLS, time_width(fc), "TIME", "EVENT", "PID", "PPID", "PGID", "SID",
		     "TTY", "COMM", "DETAILS");
}

void text__time(struct sbuf *sb, const struct fmt_ctx *fc, __u64 boot_ns)
{
	char date[24] = "", hms[16], zone[8] = "";
	struct tm tm;
	time_t secs;
	long nsec;

	fmt__split_time(fc, boot_ns, &secs, &nsec);
	if (fc->utc)
		gmtime_r(&secs, &tm);
	else
		localtime_r(&secs, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	if (fc->dated) {
		strftime(date, sizeof(date), "%Y-%m-%dT", &tm);
		if (fc->utc)
			strcpy(zone, "Z");
		else
			strftime(zone, sizeof(zone), "%z", &tm);
	}
	sbuf__printf(sb, "%s%s.%03ld%s ", date, hms, nsec / 1000000L, zone);
}

static const char *tty_or_dash(const char *kname, __u32 tty_nr, char *buf, size_t len)
{
	return decode__tty_name(kname, tty_nr, buf, len) ? buf : "-";
}

/* The columns that describe the acting process. */
static void text_proc(struct sbuf *sb, const struct pgt_proc *p)
{
	char tty[32];
	size_t cols;

	sbuf__printf(sb, "%-7u %-7u %-7u %-7u %-8s ", p->pid, p->ppid, p->pgid, p->sid,
		     tty_or_dash(p->tty, p->tty_nr, tty, sizeof(tty)));
	/* Padded by what a terminal shows, not by bytes. */
	cols = sbuf__put_text(sb, p->comm, sizeof(p->comm));
	if (cols < 16)
		sbuf__printf(sb, "%*s", (int)(16 - cols), "");
	sbuf__putc(sb, ' ');
}

static void text_error(struct sbuf *sb, int ret)
{
	char buf[16];

	sbuf__printf(sb, "failed: %s",
		     decode__errname((int)(0U - (unsigned int)ret), buf, sizeof(buf)));
}

static void text_grp_change(struct sbuf *sb, const struct pgt_grp *old, const struct pgt_proc *now)
{
	char a[32], b[32];

	sbuf__printf(sb, "sid %u -> %u, pgid %u -> %u", old->sid, now->sid, old->pgid, now->pgid);
	if (old->tty_nr != now->tty_nr)
		sbuf__printf(sb, ", tty %s -> %s", tty_or_dash(old->tty, old->tty_nr, a, sizeof(a)),
			     tty_or_dash(now->tty, now->tty_nr, b, sizeof(b)));
}

/* An argument, quoted where it holds a blank or a quote, or is empty: 'b c', '' */
static void text_arg(struct sbuf *sb, const struct span *a)
{
	bool quote = !a->len || memchr(a->s, ' ', a->len) || memchr(a->s, '\'', a->len) ||
		     memchr(a->s, '"', a->len);
	const char *p = a->s, *end = a->s + a->len, *q;

	if (quote)
		sbuf__putc(sb, '\'');
	while ((q = memchr(p, '\'', end - p))) { /* a quote inside: \' */
		sbuf__put_text(sb, p, q - p);
		sbuf__puts(sb, "\\'");
		p = q + 1;
	}
	sbuf__put_text(sb, p, end - p);
	if (quote)
		sbuf__putc(sb, '\'');
}

/* A file run, or a directory run in, that is no longer there, as /proc names it. */
static void text_deleted(struct sbuf *sb, const struct pgt_exec *e, bool exe)
{
	char path[DECODE_PATH_SIZE];
	bool cut;

	if (!decode__exec_deleted(e, exe) ||
	    decode__exec_path(e, exe, path, sizeof(path), &cut) < 0)
		return;
	sbuf__puts(sb, exe ? " [executable " : " [cwd ");
	sbuf__put_text(sb, path, sizeof(path));
	sbuf__putc(sb, ']');
}

/* The file exec'd, then its arguments after argv[0], as a command line. */
static void text_exec(struct sbuf *sb, const struct pgt_exec *e)
{
	struct span args[PGT_ARGS_SHOWN];
	bool cut = false;
	size_t n, i;

	sbuf__put_text(sb, e->filename, sizeof(e->filename));
	if (e->flags & PGT_EXEC_FILENAME_CUT)
		sbuf__puts(sb, " (truncated)");
	n = e->flags & PGT_EXEC_HAS_ARGS ? decode__exec_args(e, args, PGT_ARGS_SHOWN, &cut) : 0;
	for (i = 1; i < n; i++) {
		sbuf__putc(sb, ' ');
		text_arg(sb, &args[i]);
	}
	if (cut)
		sbuf__puts(sb, " ...");
	if (e->old_tid != e->proc.pid)
		sbuf__printf(sb, " (from thread %u)", e->old_tid);
	text_deleted(sb, e, true);
	text_deleted(sb, e, false);
}

/* "bash 4242 (uid 1000, ssh pts/3)": a signal's sender, and its login. */
static void text_sender(struct sbuf *sb, const struct death_cause *dc, const struct proc_view *v)
{
	const struct lineage *l = v->entry;
	char name[32];

	if (dc->sender_partial) {
		sbuf__printf(sb, "pid %u", dc->sender.pid);
		return;
	}
	sbuf__put_text(sb, dc->sender.comm, sizeof(dc->sender.comm));
	sbuf__printf(sb, " %u (uid %u", dc->sender.pid, dc->sender.uid);
	if (l)
		sbuf__printf(sb, ", %s %s", fmt__entry_type(l),
			     tty_or_dash(l->tty, l->tty_nr, name, sizeof(name)));
	sbuf__putc(sb, ')');
}

/* How a signal killed it: ": OOM in /a/b", " from ^C on pts/0", ", cause unknown". */
static void text_how(struct sbuf *sb, const struct record *r)
{
	const struct death_cause *dc = &r->death;
	const struct pcgroup *cg = r->views[0].cg;
	const char *code = death__code_name(dc->sig, dc->code);
	char tty[32], path[PGT_CGROUP_PATH_LEN + 1];

	switch (dc->set ? dc->mech : DEATH_UNKNOWN) {
	case DEATH_TTY:
		if (dc->code > 0 && death__key(dc->sig))
			sbuf__printf(sb, " from %s", death__key(dc->sig));
		else
			sbuf__puts(sb, " from TIOCSIG");
		sbuf__printf(sb, " on %s", tty_or_dash(dc->tty, dc->tty_nr, tty, sizeof(tty)));
		break;
	case DEATH_OOM:
		sbuf__puts(sb, ": OOM");
		if (cg && cg->v2[0] && dc->memcg_level && dc->memcg_v2) {
			sbuf__puts(sb, " in ");
			death__cgroup_prefix(cg->v2, dc->memcg_level, path, sizeof(path));
			sbuf__put_text(sb, path, strlen(path));
		} else if (dc->memcg_level) {
			sbuf__printf(sb, " in a memory cgroup %u deep", dc->memcg_level);
		} else {
			sbuf__puts(sb, " (global)");
		}
		break;
	case DEATH_CGROUP_KILL:
		sbuf__puts(sb, ": cgroup.kill");
		if (cg && cg->v2[0]) {
			sbuf__puts(sb, " of ");
			sbuf__put_text(sb, cg->v2, strlen(cg->v2));
		}
		break;
	case DEATH_FAULT:
		sbuf__printf(sb, ": fault %s", code ?: "?");
		break;
	case DEATH_BROKEN_PIPE:
		sbuf__puts(sb, ": broken pipe");
		break;
	case DEATH_RLIMIT:
		sbuf__puts(sb, dc->sig == SIGXFSZ ? ": file size limit" : ": CPU time limit");
		break;
	case DEATH_HANGUP:
		sbuf__puts(sb, ": hangup");
		if (decode__tty_name(dc->tty, dc->tty_nr, tty, sizeof(tty)))
			sbuf__printf(sb, " of %s", tty);
		break;
	case DEATH_ORPHANED:
		sbuf__puts(sb, ": its stopped group was orphaned");
		break;
	case DEATH_PARENT_DEATH:
		sbuf__puts(sb, ": its parent died (PR_SET_PDEATHSIG)");
		break;
	case DEATH_KERNEL:
		sbuf__puts(sb, ": the kernel's own");
		break;
	case DEATH_UNKNOWN:
		sbuf__puts(sb, ", cause unknown");
		break;
	default:
		break;
	}
}

void text__exit(struct sbuf *sb, const struct record *r)
{
	static const char *const by[DEATH_MECHS] = {
		[DEATH_KILL] = " from ",     [DEATH_TTY] = " by ",
		[DEATH_HANGUP] = " by ",     [DEATH_ORPHANED] = " by the exit of ",
		[DEATH_PARENT_DEATH] = ": ", [DEATH_CGROUP_KILL] = " by ",
	};
	const struct pgt_exit *e = r->ev.exit;
	const struct death_cause *dc = &r->death;
	struct exit_info xi;
	char sig[16];

	decode__exit_status(e->status, &xi);
	if (xi.exited) {
		sbuf__printf(sb, "code %d", xi.code);
		return;
	}
	sbuf__printf(sb, "killed by %s", decode__signame(xi.signal, sig, sizeof(sig)));
	text_how(sb, r);
	if (dc->has_sender && dc->sender.pid == e->proc.pid &&
	    dc->sender.start_ns == e->proc.start_ns) {
		sbuf__puts(sb, " from itself");
	} else if (dc->has_sender) {
		sbuf__puts(sb, by[dc->mech] ?: " by ");
		text_sender(sb, dc, &r->views[1]);
	}
	if (xi.core)
		sbuf__puts(sb, " (core dumped)");
}

static void text_setpgid(struct sbuf *sb, const struct pgt_event *ev)
{
	const struct pgt_setpgid *s = ev->setpgid;

	if (s->target_found)
		sbuf__printf(sb, "pid %u pgid %u -> ", s->target.pid, s->old.pgid);
	else
		sbuf__printf(sb, "pid %d pgid ? -> ", s->arg_pid);
	if (s->ret < 0) {
		sbuf__printf(sb, "%d ", s->arg_pgid ? s->arg_pgid : s->arg_pid);
		text_error(sb, s->ret);
	} else {
		sbuf__printf(sb, "%u", s->target.pgid);
	}
	if (ev->notes & EV_JOB_CONTROL)
		sbuf__puts(sb, " (job control)");
}

static void text_reparent(struct sbuf *sb, const struct pgt_reparent *r)
{
	sbuf__printf(sb, "child %u (", r->child_pid);
	sbuf__put_text(sb, r->child_comm, sizeof(r->child_comm));
	sbuf__printf(sb, ") ppid %u -> %u (", r->proc.pid, r->reaper_pid);
	sbuf__put_text(sb, r->reaper_comm, sizeof(r->reaper_comm));
	sbuf__printf(sb, ") %s", decode__reason_name(r->reason));
}

static void text_event(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r)
{
	const struct pgt_event *ev = &r->ev;
	const struct pgt_hdr *h = ev->hdr;

	text__time(sb, fc, h->ts_ns);
	sbuf__printf(sb, "%-11s ", decode__event_name(ev));
	switch (h->type) {
	case PGT_FORK:
		text_proc(sb, &ev->fork->proc);
		sbuf__printf(sb, "child %u", ev->fork->child.pid);
		if (ev->fork->child.ppid != ev->fork->proc.pid)
			sbuf__printf(sb, " (parent %u)", ev->fork->child.ppid);
		break;
	case PGT_EXEC:
		text_proc(sb, &ev->exec->proc);
		text_exec(sb, ev->exec);
		break;
	case PGT_EXIT:
		text_proc(sb, &ev->exit->proc);
		text__exit(sb, r);
		break;
	case PGT_SETSID:
		text_proc(sb, &ev->setsid->proc);
		if (ev->setsid->ret < 0)
			text_error(sb, ev->setsid->ret);
		else
			text_grp_change(sb, &ev->setsid->old, &ev->setsid->proc);
		break;
	case PGT_SETPGID:
		text_proc(sb, &ev->setpgid->proc);
		text_setpgid(sb, ev);
		break;
	case PGT_REPARENT:
		text_proc(sb, &ev->reparent->proc);
		text_reparent(sb, ev->reparent);
		break;
	case PGT_TTY: {
		const struct pgt_tty *t = ev->tty;
		char name[32];

		text_proc(sb, &t->proc);
		sbuf__printf(sb, "%s %s by %s, session %u%s", t->acquire ? "acquired" : "released",
			     tty_or_dash(t->tty, t->tty_nr, name, sizeof(name)),
			     decode__tty_how_name(t->how), t->sid,
			     t->session_wide ? " (whole session)" : "");
		break;
	}
	case PGT_FOREGROUND: {
		const struct pgt_foreground *f = ev->fg;
		char name[32];

		text_proc(sb, &f->proc);
		sbuf__printf(sb, "%s foreground %u -> ",
			     tty_or_dash(f->tty, f->tty_nr, name, sizeof(name)), f->old_pgid);
		if (f->ret < 0)
			text_error(sb, f->ret);
		else
			sbuf__printf(sb, "%u", f->new_pgid);
		break;
	}
	case PGT_CGROUP:
		text_proc(sb, &ev->cgroup->proc);
		sbuf__printf(sb, "moved to cgroup %s", ev->cgroup->hierarchy_id ? "v1:" : "");
		sbuf__put_text(sb, ev->cgroup->path, sizeof(ev->cgroup->path));
		break;
	case PGT_SUBREAPER:
		text_proc(sb, &ev->subreaper->proc);
		sbuf__puts(sb, ev->subreaper->enabled ? "on" : "off");
		if (ev->subreaper->ret < 0) {
			sbuf__putc(sb, ' ');
			text_error(sb, ev->subreaper->ret);
		}
		break;
	}
	sbuf__putc(sb, '\n');
}

static void text_lost(struct sbuf *sb, const struct fmt_ctx *fc, const struct lost_info *li)
{
	const char *sep = " (";
	unsigned int t;

	text__time(sb, fc, li->to_ns);
	if (li->output) {
		sbuf__printf(sb,
			     "%-11s %-7s %-7s %-7s %-7s %-8s %-16s %llu records not written to ",
			     "lost", "-", "-", "-", "-", "-", "-", (unsigned long long)li->total);
		sbuf__put_text(sb, li->output, strlen(li->output) + 1);
		sbuf__printf(sb, " (its queue was full), seq %llu to %llu\n",
			     (unsigned long long)li->first_seq, (unsigned long long)li->last_seq);
		return;
	}
	sbuf__printf(sb, "%-11s %-7s %-7s %-7s %-7s %-8s %-16s lost %llu events", "lost", "-", "-",
		     "-", "-", "-", "-", (unsigned long long)li->total);
	for (t = 1; t < PGT_TYPE_MAX; t++) {
		if (!li->by_type[t])
			continue;
		sbuf__printf(sb, "%s%s %llu", sep, decode__type_name(t),
			     (unsigned long long)li->by_type[t]);
		sep = ", ";
	}
	sbuf__puts(sb, *sep == ',' ? ")\n" : "\n");
}

/* "SIGINT tty -> group 1234 on pts/0: 1234 1235 (2)" */
static void text_signal(struct sbuf *sb, const struct fmt_ctx *fc, const struct sig_cause *c)
{
	const struct pgt_signal *r = &c->first;
	char sig[16], name[32];
	unsigned int i;

	text__time(sb, fc, r->hdr.ts_ns);
	sbuf__printf(sb, "%-11s ", "signal");
	/*
	 * A terminal's signal runs in a kernel worker, whose pid and groups
	 * say nothing: the row names the tty (the JSON record keeps the worker).
	 */
	if ((r->proc.flags & PGT_F_KTHREAD) &&
	    decode__tty_name(r->tty, r->tty_nr, name, sizeof(name)))
		sbuf__printf(sb, "%-7s %-7s %-7s %-7s %-8s %-16s ", "-", "-", "-", "-", name,
			     "[tty]");
	else
		text_proc(sb, &r->proc);
	sbuf__printf(sb, "%s %s -> %s", decode__signame((int)r->sig, sig, sizeof(sig)),
		     decode__cause_name(r->cause), decode__scope_name(r->scope));
	if (r->scope != PGT_SCOPE_ALL && r->target)
		sbuf__printf(sb, " %d", r->target);
	else if (r->scope != PGT_SCOPE_ALL)
		sbuf__puts(sb, " ?");
	if (decode__tty_name(r->tty, r->tty_nr, name, sizeof(name)))
		sbuf__printf(sb, " on %s", name);
	sbuf__putc(sb, ':');
	for (i = 0; i < c->nr && i < 8; i++)
		sbuf__printf(sb, " %u%s", c->rcpt[i].pid, c->rcpt[i].result ? "*" : "");
	if (c->nr > 8)
		sbuf__printf(sb, " +%u more", c->nr - 8);
	sbuf__printf(sb, " (%u)", c->nr);
	if (c->flags & PGT_SIG_FATAL)
		sbuf__puts(sb, " fatal");
	if (c->ret < 0) {
		sbuf__putc(sb, ' ');
		text_error(sb, c->ret);
	}
	sbuf__putc(sb, '\n');
}

static void text_where(struct sbuf *sb, const struct escape_where *w)
{
	char name[32];

	sbuf__printf(sb, "sid %u pgid %u ppid %u tty %s", w->sid, w->pgid, w->ppid,
		     tty_or_dash(w->tty, w->tty_nr, name, sizeof(name)));
}

static void text_login(struct sbuf *sb, const struct proc_view *v, __u32 auid, __u32 ses)
{
	const struct lineage *entry = v->entry;
	char name[32];

	if (!entry)
		return;
	sbuf__printf(sb, " [login %u ", entry->pid);
	sbuf__put_text(sb, v->entry_comm, sizeof(v->entry_comm));
	sbuf__putc(sb, ' ');
	sbuf__puts(sb, tty_or_dash(entry->tty, entry->tty_nr, name, sizeof(name)));
	if (auid != PGT_ID_UNSET)
		sbuf__printf(sb, " auid %u", auid);
	if (ses != PGT_ID_UNSET)
		sbuf__printf(sb, " ses %u", ses);
	sbuf__putc(sb, ']');
}

void text__escape_change(struct sbuf *sb, const struct escape *e)
{
	sbuf__printf(sb, "%s: ", escape__kind_name(e->kind));
	switch (e->kind) {
	case ESC_SETSID:
		sbuf__printf(sb, "sid %u -> %u", e->from.sid, e->to.sid);
		break;
	case ESC_PGRP:
		sbuf__printf(sb, "pgid %u -> %u", e->from.pgid, e->to.pgid);
		break;
	case ESC_REPARENT:
	case ESC_DAEMONIZE:
		sbuf__printf(sb, "ppid %u -> %u", e->from.ppid, e->to.ppid);
		break;
	case ESC_TTY_DROP: {
		char name[32];

		sbuf__printf(sb, "tty %s -> -",
			     tty_or_dash(e->from.tty, e->from.tty_nr, name, sizeof(name)));
		break;
	}
	case ESC_CGROUP:
		sbuf__puts(sb, "cgroup ");
		sbuf__put_text(sb, e->detail, sizeof(e->detail));
		break;
	case ESC_OUTLIVED_LOGIN:
	case ESC_PIDNS:
		text_where(sb, &e->to);
		break;
	}
}

/* "escape daemonize: ppid 812 -> 1 [login 700 bash pts/0 auid 1000 ses 3]", red on a terminal. */
static void text_escape(struct sbuf *sb, const struct fmt_ctx *fc, const struct escape *e,
			const struct proc_view *v)
{
	text__time(sb, fc, e->ts_ns);
	sbuf__printf(sb, "%s%-11s%s ", fc->color ? "\033[1;31m" : "", "escape",
		     fc->color ? "\033[0m" : "");
	text_proc(sb, &e->proc);
	text__escape_change(sb, e);
	text_login(sb, v, e->proc.auid, e->proc.ses);
	if (e->expected)
		sbuf__printf(sb, " (expected: %s)", e->expected);
	sbuf__putc(sb, '\n');
}

static void text_survivor(struct sbuf *sb, const struct fmt_ctx *fc, const struct mproc *p,
			  const struct proc_view *v, __u64 now_ns)
{
	struct escape_where w = { p->ctx.sid, p->ctx.pgid, p->ctx.ppid, p->ctx.tty_nr, {} };

	memcpy(w.tty, p->ctx.tty, sizeof(w.tty));
	text__time(sb, fc, now_ns);
	sbuf__printf(sb, "%-11s ", "survivor");
	text_proc(sb, &p->ctx);
	sbuf__printf(sb, "born in sid %u pgid %u, now ", p->born_sid, p->born_pgid);
	text_where(sb, &w);
	text_login(sb, v, p->ctx.auid, p->ctx.ses);
	sbuf__putc(sb, '\n');
}

/* "12.3s", "5m12s", "2h03m": a login's length at a glance. */
static void text_duration(struct sbuf *sb, __u64 ns)
{
	__u64 s = ns / 1000000000ULL;

	if (s < 60)
		sbuf__printf(sb, "%llu.%llus", (unsigned long long)s,
			     (unsigned long long)(ns / 100000000ULL % 10));
	else if (s < 3600)
		sbuf__printf(sb, "%llum%02llus", (unsigned long long)(s / 60),
			     (unsigned long long)(s % 60));
	else
		sbuf__printf(sb, "%lluh%02llum", (unsigned long long)(s / 3600),
			     (unsigned long long)(s / 60 % 60));
}

static void text_status(struct sbuf *sb, __u32 status)
{
	struct exit_info xi;
	char sig[16];

	decode__exit_status(status, &xi);
	if (xi.exited)
		sbuf__printf(sb, "exit %d", xi.code);
	else
		sbuf__printf(sb, "%s", decode__signame(xi.signal, sig, sizeof(sig)));
}

/* What shows a process's fate: its exit, the SIGHUP that reached it, its escape. */
static void text_fate_why(struct sbuf *sb, const struct logout_proc *lp)
{
	if (lp->exited || lp->gone) {
		sbuf__puts(sb, " (");
		text_status(sb, lp->status);
		if (lp->mech != DEATH_EXIT)
			sbuf__printf(sb, ", %s", death__mech_name(lp->mech));
		if (lp->sender_pid)
			sbuf__printf(sb, " from %u", lp->sender_pid);
		if (lp->has_exit_seq)
			sbuf__printf(sb, ", seq %llu", (unsigned long long)lp->exit_seq);
		sbuf__putc(sb, ')');
	} else if (lp->hup) {
		sbuf__printf(sb, " (SIGHUP from %u%s)", lp->hup_sender,
			     lp->hup_ignored ? ", ignored" : ", handled or blocked");
	} else if (lp->escape) {
		sbuf__printf(sb, " (%s", escape__kind_name(lp->escape));
		if (lp->has_escape_seq)
			sbuf__printf(sb, ", seq %llu", (unsigned long long)lp->escape_seq);
		sbuf__putc(sb, ')');
	}
}

/*
 * A block read at a glance: the login that ended, then one line per
 * process, "  hung_up        4250 sleep 300 (SIGHUP, hangup from 4242)".
 */
static void text_logout(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r)
{
	const struct logout *lo = &r->lo;
	const struct lineage *l = r->views[0].line;
	char tty[32];
	unsigned int i, f;
	bool first = true;

	text__time(sb, fc, r->ts_ns);
	sbuf__printf(sb, "%-11s ", "logout");
	text_proc(sb, &lo->leader);
	if (lo->command)
		sbuf__puts(sb, "command");
	else
		sbuf__printf(sb, "%s login on %s", l ? fmt__entry_type(l) : "unknown",
			     l ? tty_or_dash(l->tty, l->tty_nr, tty, sizeof(tty)) : "-");
	sbuf__puts(sb, " ended after ");
	text_duration(sb, lo->end_ns - lo->start_ns);
	sbuf__puts(sb, " (");
	text_status(sb, lo->leader_status);
	sbuf__printf(sb, "): %u process%s", lo->nr, lo->nr == 1 ? "" : "es");
	for (f = 0; f < FATE_MAX; f++) {
		if (!lo->counts[f])
			continue;
		sbuf__printf(sb, "%s %u %s", first ? ":" : ",", lo->counts[f],
			     logout__fate_name(f));
		first = false;
	}
	sbuf__putc(sb, '\n');
	for (i = 0; i < lo->nr; i++) {
		const struct logout_proc *lp = &lo->procs[i];
		const struct image *im = lp->image;
		struct span args[8];
		bool more = false;
		size_t n = 0, a;

		sbuf__printf(sb, "    %-15s %-7u ", logout__fate_name(lp->fate), lp->proc.pid);
		if (im && im->args)
			n = decode__split_args(im->args, im->args_len, args, 8, &more);
		if (!n)
			sbuf__put_text(sb, lp->proc.comm, sizeof(lp->proc.comm));
		for (a = 0; a < n; a++) {
			if (a)
				sbuf__putc(sb, ' ');
			sbuf__put_text(sb, args[a].s, args[a].len);
		}
		if (more || (im && im->args_cut))
			sbuf__puts(sb, " ...");
		text_fate_why(sb, lp);
		sbuf__printf(sb, " [sid %u pgid %u]\n", lp->proc.sid, lp->proc.pgid);
	}
}

static void text_correction(struct sbuf *sb, const struct fmt_ctx *fc, const struct model_note *n,
			    const struct mproc *p, __u64 now_ns)
{
	text__time(sb, fc, now_ns);
	sbuf__printf(sb, "%-11s ", "correction");
	if (p) {
		text_proc(sb, &p->ctx);
		sbuf__puts(sb, n->kind == NOTE_RESYNC_ADDED ?
				       "missed, added by resync (uncertain)" :
				       "corrected by resync (uncertain)");
	} else {
		sbuf__printf(sb, "%-7u %-7s %-7s %-7s %-8s %-16s gone, removed by resync", n->pid,
			     "-", "-", "-", "-", "-");
	}
	sbuf__putc(sb, '\n');
}

void text__record(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r)
{
	switch (r->kind) {
	case RECORD_EVENT:
		text_event(sb, fc, r);
		break;
	case RECORD_SIGNAL:
		text_signal(sb, fc, &r->sig);
		break;
	case RECORD_ESCAPE:
		text_escape(sb, fc, &r->esc, &r->views[0]);
		break;
	case RECORD_SURVIVOR:
		text_survivor(sb, fc, &r->mp.proc, &r->views[0], r->ts_ns);
		break;
	case RECORD_CORRECTION:
		text_correction(sb, fc, &r->mp.note, r->mp.has_proc ? &r->mp.proc : NULL, r->ts_ns);
		break;
	case RECORD_LOST:
		text_lost(sb, fc, &r->lost);
		break;
	case RECORD_LOGOUT:
		text_logout(sb, fc, r);
		break;
	}
}
