// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fate.h"

#define BIT(sig) (1ULL << ((sig)-1))

static const char *const outcome_names[] = {
	[OUTCOME_NONE] = "none",	   [OUTCOME_DIES] = "dies",
	[OUTCOME_SURVIVES] = "survives",   [OUTCOME_STOPS] = "stops",
	[OUTCOME_CONTINUES] = "continues",
};

const char *fate__outcome_name(enum fate_outcome o)
{
	return o <= OUTCOME_CONTINUES ? outcome_names[o] : "?";
}

/* "TERM", "SIGTERM", "15": the signal's number, 0 if none. */
static int parse_sig(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {
		{ "HUP", SIGHUP },	 { "INT", SIGINT },   { "QUIT", SIGQUIT },
		{ "ILL", SIGILL },	 { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
		{ "BUS", SIGBUS },	 { "FPE", SIGFPE },   { "KILL", SIGKILL },
		{ "USR1", SIGUSR1 },	 { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
		{ "PIPE", SIGPIPE },	 { "ALRM", SIGALRM }, { "TERM", SIGTERM },
		{ "CHLD", SIGCHLD },	 { "CONT", SIGCONT }, { "STOP", SIGSTOP },
		{ "TSTP", SIGTSTP },	 { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
		{ "URG", SIGURG },	 { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
		{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "WINCH", SIGWINCH },
		{ "IO", SIGIO },	 { "PWR", SIGPWR },   { "SYS", SIGSYS },
	};
	char *end;
	long n;
	size_t i;

	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].sig;
	n = strtol(s, &end, 10);
	return *s && !*end && n > 0 && n < 65 ? (int)n : 0;
}

int fate__parse(const char *arg, struct fate_what *w, const char **why)
{
	const char *v = strchr(arg, ':');
	char *end;
	unsigned long n;

	memset(w, 0, sizeof(*w));
	*why = "WHAT is hangup:TTY, logout:PID or kill:-PGID:SIGNAL";
	if (!v)
		return -1;
	v++;
	if (!strncmp(arg, "hangup:", 7)) {
		if (!*v || strlen(v) >= sizeof(w->tty))
			return -1;
		w->kind = FATE_WHAT_HANGUP;
		snprintf(w->tty, sizeof(w->tty), "%s", strncmp(v, "/dev/", 5) ? v : v + 5);
		return 0;
	}
	if (!strncmp(arg, "logout:", 7) || !strncmp(arg, "kill:-", 6)) {
		bool kill = arg[0] == 'k';

		if (kill)
			v++; /* the '-' */
		n = strtoul(v, &end, 10);
		if (!*v || n == 0 || n > 4194304 || (kill ? *end != ':' : *end != '\0'))
			return -1;
		w->kind = kill ? FATE_WHAT_KILL : FATE_WHAT_LOGOUT;
		w->pid = (__u32)n;
		if (kill && !(w->sig = parse_sig(end + 1))) {
			*why = "kill:-PGID:SIGNAL takes a signal's name (TERM, SIGHUP) or number";
			return -1;
		}
		return 0;
	}
	return -1;
}

struct predict {
	const struct model *m;
	const struct fate_io *io;
	struct fate_report *r;
	struct fate_proc *all;
	bool *listed, *stopped; /* per entry: listed; stopped now (a SIGCONT resumes) */
	int *pending;		/* per entry: a deadly signal held while it is stopped */
	unsigned int n;
	bool hung_up; /* the tty hung up first: the leader's exit signals its old foreground */
};

static struct fate_proc *entry_of(struct predict *pr, __u32 pid)
{
	unsigned int i;

	for (i = 0; i < pr->n; i++)
		if (pr->all[i].p->ctx.pid == pid)
			return &pr->all[i];
	return NULL;
}

static void read_sigs(struct predict *pr, struct fate_proc *fp)
{
	if (fp->read)
		return;
	fp->read = true;
	if (pr->io->read_sigs((pid_t)fp->p->ctx.pid, &fp->sigs))
		memset(&fp->sigs, 0, sizeof(fp->sigs));
	pr->stopped[fp - pr->all] = fp->sigs.stopped;
}

static void say(struct fate_step *st, enum fate_outcome o, const char *fmt, ...)
{
	size_t len = st->outcome ? strlen(st->reason) : 0;
	va_list ap;

	/* A later step adds to what an earlier one said; stopping or going on outranks surviving. */
	if (!st->outcome || o != OUTCOME_SURVIVES)
		st->outcome = o;
	if (len && len + 3 < sizeof(st->reason)) {
		memcpy(st->reason + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(st->reason + len, sizeof(st->reason) - len, fmt, ap);
	va_end(ap);
}

/* An interactive bash or zsh: it catches SIGHUP and ignores SIGTERM and SIGQUIT. */
static bool interactive_shell(const struct fate_proc *fp)
{
	const char *c = fp->p->ctx.comm;

	return (!strcmp(c, "bash") || !strcmp(c, "zsh")) && fp->p->ctx.tty_nr &&
	       (fp->sigs.caught & BIT(SIGHUP)) &&
	       (fp->sigs.ignored & (BIT(SIGTERM) | BIT(SIGQUIT))) == (BIT(SIGTERM) | BIT(SIGQUIT));
}

/* Whether group @pgid would be orphaned once the dying have exited (will_become_orphaned_pgrp). */
static bool orphaned(struct predict *pr, __u32 pgid, const struct fate_proc *ignore)
{
	unsigned int i;

	for (i = 0; i < pr->n; i++) {
		const struct fate_proc *fp = &pr->all[i], *par;
		__u32 ppid;

		if (fp->p->ctx.pgid != pgid || fp == ignore || fp->dying)
			continue;
		/* Its parent after the exits: the nearest ancestor alive (a subreaper, or init). */
		ppid = fp->p->ctx.ppid;
		while ((par = entry_of(pr, ppid)) && par->dying)
			ppid = par->p->ctx.ppid;
		if (!par || par->p->ctx.ns_pid == 1)
			continue;
		if (par->p->ctx.pgid != pgid && par->p->ctx.sid == fp->p->ctx.sid)
			return false;
	}
	return true;
}

static bool has_stopped(struct predict *pr, __u32 pgid)
{
	unsigned int i;

	for (i = 0; i < pr->n; i++) {
		if (pr->all[i].p->ctx.pgid != pgid || pr->all[i].dying)
			continue;
		read_sigs(pr, &pr->all[i]);
		if (pr->stopped[i])
			return true;
	}
	return false;
}

static void deliver(struct predict *pr, struct fate_proc *fp, int sig, bool shell,
		    const char *from);

/* @sig to every member of group @pgid, from @from. */
static void to_group(struct predict *pr, __u32 pgid, int sig, bool shell, const char *from)
{
	unsigned int i;

	for (i = 0; i < pr->n; i++)
		if (pr->all[i].p->ctx.pgid == pgid)
			deliver(pr, &pr->all[i], sig, shell, from);
}

/* kill_orphaned_pgrp(): the groups @fp's exit orphans, with stopped members, get SIGHUP and SIGCONT. */
static void orphan_rule(struct predict *pr, struct fate_proc *fp)
{
	const struct pgt_proc *c = &fp->p->ctx;
	const struct fate_proc *par = entry_of(pr, c->ppid);
	__u32 done[64];
	unsigned int nd = 0, i, k;
	char from[160];

	snprintf(from, sizeof(from),
		 "the orphaned-group rule: %s %u's exit orphans the group, "
		 "which has stopped members",
		 c->comm, c->pid);
	/* Its own group, if its parent is in the session but not the group. */
	if (par && par->p->ctx.pgid != c->pgid && par->p->ctx.sid == c->sid &&
	    orphaned(pr, c->pgid, fp) && has_stopped(pr, c->pgid)) {
		to_group(pr, c->pgid, SIGHUP, false, from);
		to_group(pr, c->pgid, SIGCONT, false, from);
	}
	/* Its children's groups, in its session. */
	for (i = 0; i < pr->n; i++) {
		const struct pgt_proc *k_ = &pr->all[i].p->ctx;

		if (k_->ppid != c->pid || k_->pgid == c->pgid || k_->sid != c->sid)
			continue;
		for (k = 0; k < nd && done[k] != k_->pgid; k++)
			;
		if (k < nd || nd == 64)
			continue;
		done[nd++] = k_->pgid;
		if (orphaned(pr, k_->pgid, NULL) && has_stopped(pr, k_->pgid)) {
			to_group(pr, k_->pgid, SIGHUP, false, from);
			to_group(pr, k_->pgid, SIGCONT, false, from);
		}
	}
}

/* What follows @fp's exit: a session leader's tty, then the groups it orphans. */
static void exit_effects(struct predict *pr, struct fate_proc *fp)
{
	const struct pgt_proc *c = &fp->p->ctx;
	const struct mtty *t;
	char from[160];

	if (fp->exit_done)
		return;
	fp->exit_done = true;
	if ((c->flags & PGT_F_SESSION_LEADER) && c->pid == pr->r->leader && pr->hung_up &&
	    pr->r->fg_pgid) {
		/* disassociate_ctty(1) after a hangup: the foreground group then (tty_old_pgrp). */
		snprintf(from, sizeof(from),
			 "the session leader %s %u exits after the hangup: SIGHUP and SIGCONT to "
			 "the foreground group %u",
			 c->comm, c->pid, pr->r->fg_pgid);
		to_group(pr, pr->r->fg_pgid, SIGHUP, false, from);
		to_group(pr, pr->r->fg_pgid, SIGCONT, false, from);
	} else if ((c->flags & PGT_F_SESSION_LEADER) && c->tty_nr && !pr->hung_up &&
		   (t = model__tty(pr->m, c->tty_nr)) && t->fg_pgid && t->sid == c->sid) {
		unsigned int major, minor;

		decode__tty_dev(c->tty_nr, &major, &minor);
		/* disassociate_ctty(1): a pty's foreground group gets SIGHUP; another tty hangs up. */
		if (major >= 136 && major <= 143) {
			snprintf(from, sizeof(from),
				 "the session leader %s %u exits: SIGHUP to its pty's foreground "
				 "group %u",
				 c->comm, c->pid, t->fg_pgid);
			to_group(pr, t->fg_pgid, SIGHUP, false, from);
		}
	}
	orphan_rule(pr, fp);
}

/* @fp dies of @what (by the shell's habit when @shell): its exit's effects follow. */
static void dies(struct predict *pr, struct fate_proc *fp, bool shell, const char *fmt,
		 const char *what, const char *from)
{
	fp->dying = true;
	say(shell ? &fp->shell : &fp->kernel, OUTCOME_DIES, fmt, what, from);
	exit_effects(pr, fp);
}

/* An interactive shell's SIGHUP handler: its jobs get the hangup, then it re-raises it. */
static void shell_hangup(struct predict *pr, struct fate_proc *sh, bool on_exit)
{
	const struct pgt_proc *c = &sh->p->ctx;
	bool bash = !strcmp(c->comm, "bash");
	__u32 jobs[64];
	unsigned int nj = 0, i, k;
	char from[160];

	for (i = 0; i < pr->n; i++) {
		const struct pgt_proc *j = &pr->all[i].p->ctx;

		if (j->ppid != c->pid || j->pgid == c->pgid || j->sid != c->sid)
			continue;
		for (k = 0; k < nj && jobs[k] != j->pgid; k++)
			;
		if (k == nj && nj < 64)
			jobs[nj++] = j->pgid;
	}
	/*
	 * bash, on SIGHUP: SIGHUP to its running jobs; on its way out, SIGTERM
	 * and SIGCONT to its stopped ones (as bash 5 does: a stopped job gets
	 * no SIGHUP). zsh (its HUP option, on by default): SIGHUP to every
	 * job, with SIGCONT to a stopped one, on SIGHUP and on exit alike.
	 * Neither touches a job disowned (bash's disown -h, zsh's &!).
	 */
	for (k = 0; k < nj; k++) {
		bool stopped = has_stopped(pr, jobs[k]);

		if (bash ? !on_exit && !stopped : true) {
			snprintf(from, sizeof(from),
				 "%s %u passes the hangup on to its job %u (unless disowned)",
				 c->comm, c->pid, jobs[k]);
			to_group(pr, jobs[k], SIGHUP, true, from);
			if (stopped)
				to_group(pr, jobs[k], SIGCONT, true, from);
		}
		if (bash && stopped) {
			snprintf(from, sizeof(from), "bash %u ends its stopped job %u as it exits",
				 c->pid, jobs[k]);
			to_group(pr, jobs[k], SIGTERM, true, from);
			to_group(pr, jobs[k], SIGCONT, true, from);
		}
	}
	sh->shell_pid = c->pid;
	snprintf(sh->shell_name, sizeof(sh->shell_name), "%s", c->comm);
	if (!on_exit)
		dies(pr, sh, true, "%s%s",
		     "catches SIGHUP: an interactive shell passes it to its jobs, "
		     "then raises it again",
		     "");
}

/* @sig reaches @fp: what it does there, by its disposition, and what follows. */
static void deliver(struct predict *pr, struct fate_proc *fp, int sig, bool shell, const char *from)
{
	struct fate_step *st = shell ? &fp->shell : &fp->kernel;
	unsigned int i = (unsigned int)(fp - pr->all);
	char name[16];
	__u64 b = BIT(sig);

	pr->listed[i] = true;
	if (fp->dying)
		return;
	read_sigs(pr, fp);
	if (shell) {
		fp->shell_pid = 0;
		sscanf(from, "%15s %u", fp->shell_name, &fp->shell_pid);
	}
	decode__signame(sig, name, sizeof(name));
	if (fp->p->ctx.ns_pid == 1 && sig != SIGKILL && !(fp->sigs.caught & b)) {
		say(st, OUTCOME_SURVIVES,
		    "%s, %s: a pid namespace's init drops a signal it has no "
		    "handler for",
		    name, from);
		return;
	}
	if (sig == SIGKILL) {
		dies(pr, fp, shell, "SIGKILL, %s%s", from, "");
		return;
	}
	/* SIGCONT resumes a stopped process at its generation, whatever its disposition. */
	if (sig == SIGCONT) {
		if (pr->stopped[i]) {
			pr->stopped[i] = false;
			if (pr->pending[i]) {
				decode__signame(pr->pending[i], name, sizeof(name));
				dies(pr, fp, shell,
				     "SIGCONT, %s, resumes it, and the %s it held ends it", from,
				     name);
				return;
			}
			say(st, OUTCOME_CONTINUES, "SIGCONT, %s: resumes", from);
		} else {
			say(st, OUTCOME_SURVIVES, "SIGCONT, %s: not stopped", from);
		}
		return;
	}
	if (sig == SIGSTOP) {
		pr->stopped[i] = true;
		say(st, OUTCOME_STOPS, "SIGSTOP, %s", from);
		return;
	}
	if (fp->sigs.blocked & b) {
		say(st, OUTCOME_SURVIVES, "%s, %s: blocked, it stays pending", name, from);
		return;
	}
	if (fp->sigs.ignored & b) {
		say(st, OUTCOME_SURVIVES, "%s, %s: ignored (SIG_IGN)", name, from);
		return;
	}
	if (fp->sigs.caught & b) {
		if (sig == SIGHUP && interactive_shell(fp)) {
			say(st, OUTCOME_SURVIVES, "SIGHUP, %s: caught by the shell", from);
			shell_hangup(pr, fp, false);
			return;
		}
		say(st, OUTCOME_SURVIVES,
		    "%s, %s: caught: a handler runs, and what it does is the "
		    "program's",
		    name, from);
		return;
	}
	switch (sig) {
	case SIGCHLD:
	case SIGURG:
	case SIGWINCH:
		say(st, OUTCOME_SURVIVES, "%s, %s: its default action is to ignore it", name, from);
		return;
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
		if (orphaned(pr, fp->p->ctx.pgid, NULL)) {
			say(st, OUTCOME_SURVIVES,
			    "%s, %s: the orphaned-group rule: the kernel drops "
			    "it for a group with no parent in the session",
			    name, from);
			return;
		}
		pr->stopped[i] = true;
		say(st, OUTCOME_STOPS, "%s, %s: its default action stops it", name, from);
		return;
	}
	/*
	 * A stopped process wants no signal: a deadly one stays pending until
	 * SIGCONT resumes it (complete_signal() finds no thread to take it).
	 */
	if (pr->stopped[i]) {
		pr->pending[i] = pr->pending[i] ?: sig;
		say(st, OUTCOME_SURVIVES, "%s, %s: stopped, it holds it until SIGCONT", name, from);
		return;
	}
	dies(pr, fp, shell, "%s, %s: its default action ends it", name, from);
}

/* The session @sid's processes, and those below its leader that left it: listed. */
static void list_session(struct predict *pr, __u32 sid, const struct mproc *leader)
{
	unsigned int i;

	for (i = 0; i < pr->n; i++) {
		struct fate_proc *fp = &pr->all[i];
		const struct lineage *l;

		if (fp->p->ctx.sid == sid) {
			pr->listed[i] = true;
			continue;
		}
		for (l = fp->p->lineage; leader && l && l != leader->lineage; l = l->parent)
			;
		if (leader && l) {
			pr->listed[i] = true;
			say(&fp->why_not, OUTCOME_SURVIVES, "already escaped: in session %u",
			    fp->p->ctx.sid);
		}
	}
}

static int setup(struct predict *pr, const struct model *m, const struct fate_io *io,
		 struct fate_report *r)
{
	const struct mproc *p;
	unsigned int n = 0;

	memset(pr, 0, sizeof(*pr));
	pr->m = m;
	pr->io = io;
	pr->r = r;
	model__for_each_proc(m, p)
		n++;
	pr->all = calloc(n + 1, sizeof(*pr->all));
	pr->listed = calloc(n + 1, sizeof(bool));
	pr->stopped = calloc(n + 1, sizeof(bool));
	pr->pending = calloc(n + 1, sizeof(int));
	if (!pr->all || !pr->listed || !pr->stopped || !pr->pending)
		return -ENOMEM;
	model__for_each_proc(m, p)
		if (!p->zombie && !(p->ctx.flags & PGT_F_KTHREAD))
			pr->all[pr->n++].p = p;
	return 0;
}

static int find_tty(struct predict *pr, const char *name, const char **why)
{
	unsigned int i;
	char buf[32];

	for (i = 0; i < pr->n; i++) {
		const struct pgt_proc *c = &pr->all[i].p->ctx;
		const struct mtty *t;

		if (!c->tty_nr || !decode__tty_name(c->tty, c->tty_nr, buf, sizeof(buf)) ||
		    strcmp(buf, name) || !(t = model__tty(pr->m, c->tty_nr)) || !t->sid)
			continue;
		pr->r->sid = t->sid;
		pr->r->fg_pgid = t->fg_pgid;
		return 0;
	}
	*why = "no session has that tty as its controlling tty";
	return -ESRCH;
}

int fate__predict(const struct model *m, const struct fate_io *io, const struct fate_what *w,
		  struct fate_report *r, const char **why)
{
	struct predict pr;
	const struct mproc *lp = NULL;
	struct fate_proc *leader;
	unsigned int i, out = 0, major, minor;
	int err;

	memset(r, 0, sizeof(*r));
	r->what = *w;
	err = setup(&pr, m, io, r);
	if (err)
		goto end;
	if (w->kind == FATE_WHAT_HANGUP && (err = find_tty(&pr, w->tty, why)))
		goto end;
	if (w->kind == FATE_WHAT_LOGOUT) {
		lp = model__find(m, w->pid);
		if (!lp || lp->zombie) {
			*why = "no such process";
			err = -ESRCH;
			goto end;
		}
		r->sid = lp->ctx.sid;
		if (lp->ctx.tty_nr && model__tty(m, lp->ctx.tty_nr))
			r->fg_pgid = model__tty(m, lp->ctx.tty_nr)->fg_pgid;
	}
	if (w->kind == FATE_WHAT_KILL) {
		for (i = 0; i < pr.n; i++)
			if (pr.all[i].p->ctx.pgid == w->pid)
				pr.listed[i] = true;
		for (i = 0; i < pr.n && !pr.listed[i]; i++)
			;
		if (i == pr.n) {
			*why = "no such process group";
			err = -ESRCH;
			goto end;
		}
		to_group(&pr, w->pid, w->sig, false, "kill");
	} else {
		lp = lp ?: model__session_leader(m, r->sid);
		r->leader = lp ? lp->ctx.pid : 0;
		decode__tty_dev(lp ? lp->ctx.tty_nr : 0, &major, &minor);
		r->pty = major >= 136 && major <= 143;
		list_session(&pr, r->sid, lp);
		leader = lp ? entry_of(&pr, lp->ctx.pid) : NULL;
		if (w->kind == FATE_WHAT_HANGUP && leader) {
			pr.hung_up = true;
			deliver(&pr, leader, SIGHUP, false,
				"the hangup signals the session's leader");
			deliver(&pr, leader, SIGCONT, false,
				"the hangup signals the session's leader");
		} else if (leader) {
			read_sigs(&pr, leader);
			if (interactive_shell(leader))
				shell_hangup(&pr, leader, true);
			leader->dying = true;
			say(&leader->kernel, OUTCOME_DIES, "it exits (the logout asked about)");
			exit_effects(&pr, leader);
		}
	}
	for (i = 0; i < pr.n; i++) {
		struct fate_proc *fp = &pr.all[i];

		if (!pr.listed[i])
			continue;
		if (!fp->kernel.outcome && !fp->shell.outcome && !fp->why_not.outcome)
			say(&fp->why_not, OUTCOME_SURVIVES,
			    w->kind == FATE_WHAT_KILL ? "not in the group" :
			    pr.hung_up ? "no signal reaches it: it only loses its controlling tty" :
					 "no signal reaches it");
		pr.all[out++] = *fp;
	}
	r->procs = pr.all;
	r->nr = out;
	pr.all = NULL;
end:
	free(pr.all);
	free(pr.listed);
	free(pr.stopped);
	free(pr.pending);
	return err;
}

enum fate_outcome fate__final(const struct fate_proc *fp, const char **reason, const char **by)
{
	const struct fate_step *k = &fp->kernel, *s = &fp->shell;

	/* The step that ends it stands; else the kernel's; else the shell's; else why not. */
	if (k->outcome == OUTCOME_DIES || (k->outcome && s->outcome != OUTCOME_DIES)) {
		*reason = k->reason;
		*by = "kernel";
		return k->outcome;
	}
	if (s->outcome) {
		*reason = s->reason;
		*by = "shell";
		return s->outcome;
	}
	*reason = fp->why_not.reason;
	*by = "none";
	return fp->why_not.outcome ?: OUTCOME_SURVIVES;
}

void fate__free(struct fate_report *r)
{
	free(r->procs);
	r->procs = NULL;
	r->nr = 0;
}
