// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Why a process died: the kernel's death block, named and joined to its signal record. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "death.h"
#include "record.h"

static const char *const mech_names[DEATH_MECHS] = {
	[DEATH_EXIT] = "exit",
	[DEATH_KILL] = "kill",
	[DEATH_TTY] = "tty",
	[DEATH_HANGUP] = "hangup",
	[DEATH_ORPHANED] = "orphaned_pgrp",
	[DEATH_PARENT_DEATH] = "parent_death",
	[DEATH_OOM] = "oom",
	[DEATH_CGROUP_KILL] = "cgroup_kill",
	[DEATH_BROKEN_PIPE] = "broken_pipe",
	[DEATH_FAULT] = "fault",
	[DEATH_RLIMIT] = "rlimit",
	[DEATH_KERNEL] = "kernel",
	[DEATH_UNKNOWN] = "unknown",
};

const char *death__mech_name(enum death_mech m)
{
	return m < DEATH_MECHS ? mech_names[m] : "?";
}

/* asm-generic/siginfo.h: the codes of the faults, from 1 */
static const char *const segv_codes[] = { "SEGV_MAPERR",  "SEGV_ACCERR",  "SEGV_BNDERR",
					  "SEGV_PKUERR",  "SEGV_ACCADI",  "SEGV_ADIDERR",
					  "SEGV_ADIPERR", "SEGV_MTEAERR", "SEGV_MTESERR",
					  "SEGV_CPERR" };
static const char *const bus_codes[] = { "BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR",
					 "BUS_MCEERR_AO" };
static const char *const ill_codes[] = { "ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR",
					 "ILL_ILLTRP", "ILL_PRVOPC", "ILL_PRVREG",
					 "ILL_COPROC", "ILL_BADSTK", "ILL_BADIADDR" };
static const char *const fpe_codes[] = { "FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV",  "FPE_FLTOVF",
					 "FPE_FLTUND", "FPE_FLTRES", "FPE_FLTINV",  "FPE_FLTSUB",
					 "FPE_DECOVF", "FPE_DECDIV", "FPE_DECERR",  "FPE_INVASC",
					 "FPE_INVDEC", "FPE_FLTUNK", "FPE_CONDTRAP" };
static const char *const trap_codes[] = { "TRAP_BRKPT",	 "TRAP_TRACE", "TRAP_BRANCH",
					  "TRAP_HWBKPT", "TRAP_UNK",   "TRAP_PERF" };

#define CODE_OF(tab, code) \
	((code) >= 1 && (size_t)(code) <= sizeof(tab) / sizeof(tab[0]) ? tab[(code)-1] : NULL)

const char *death__code_name(int sig, int code)
{
	switch (code) {
	case 0:
		return "SI_USER";
	case 0x80:
		return "SI_KERNEL";
	case -1:
		return "SI_QUEUE";
	case -2:
		return "SI_TIMER";
	case -6:
		return "SI_TKILL";
	}
	switch (sig) {
	case SIGSEGV:
		return CODE_OF(segv_codes, code);
	case SIGBUS:
		return CODE_OF(bus_codes, code);
	case SIGILL:
		return CODE_OF(ill_codes, code);
	case SIGFPE:
		return CODE_OF(fpe_codes, code);
	case SIGTRAP:
		return CODE_OF(trap_codes, code);
	case SIGSYS:
		return code == 1 ? "SYS_SECCOMP" : NULL;
	}
	return NULL;
}

const char *death__key(int sig)
{
	switch (sig) {
	case SIGINT:
		return "^C";
	case SIGQUIT:
		return "^\\";
	case SIGTSTP:
		return "^Z";
	}
	return NULL;
}

const char *death__cgroup_prefix(const char *path, unsigned int level, char *buf, size_t len)
{
	const char *p = path;
	unsigned int i;

	for (i = 0; i < level && *p; i++) {
		p = strchr(p + 1, '/');
		if (!p) {
			p = path + strlen(path);
			break;
		}
	}
	snprintf(buf, len, "%.*s", (int)(p - path), path);
	return buf[0] ? buf : "/";
}

static enum death_mech mech_of(__u32 cause)
{
	switch (cause) {
	case PGT_CAUSE_KILL:
		return DEATH_KILL;
	case PGT_CAUSE_TTY:
		return DEATH_TTY;
	case PGT_CAUSE_HANGUP:
	case PGT_CAUSE_LEADER_EXIT:
		return DEATH_HANGUP;
	case PGT_CAUSE_ORPHANED:
		return DEATH_ORPHANED;
	case PGT_CAUSE_PARENT_DEATH:
		return DEATH_PARENT_DEATH;
	case PGT_CAUSE_OOM:
		return DEATH_OOM;
	case PGT_CAUSE_CGROUP_KILL:
		return DEATH_CGROUP_KILL;
	case PGT_CAUSE_BROKEN_PIPE:
		return DEATH_BROKEN_PIPE;
	case PGT_CAUSE_FAULT:
		return DEATH_FAULT;
	case PGT_CAUSE_RLIMIT:
		return DEATH_RLIMIT;
	}
	return DEATH_KERNEL;
}

/* The mechanisms whose signal a process sent, rather than the kernel for its own reasons. */
static bool sent_by_process(enum death_mech m)
{
	return m != DEATH_OOM && m != DEATH_BROKEN_PIPE && m != DEATH_FAULT && m != DEATH_RLIMIT &&
	       m != DEATH_KERNEL;
}

enum death_mech death__kernel_mech(const struct pgt_exit *e)
{
	struct exit_info xi;

	decode__exit_status(e->status, &xi);
	if (xi.exited)
		return DEATH_EXIT;
	if (!e->death.group_id || (int)e->death.sig != xi.signal)
		return DEATH_UNKNOWN;
	return mech_of(e->death.cause);
}

bool death__sent(enum death_mech m)
{
	return m != DEATH_EXIT && m != DEATH_UNKNOWN && sent_by_process(m);
}

/* A fatal signal record written, as one recipient's death may name it. */
struct note {
	__u64 group_id;
	__u64 seq;
	__u32 sig, cause;
	__s32 code;
	__u32 tty_nr;
	char tty[PGT_TTY_LEN];
	struct pgt_proc sender;
	bool kthread;
	struct proc_view view; /* the sender's, its references */
};

/* The latest fatal signals delivered to one process, until it exits. */
#define NOTES_PER_PROC 4

struct notes {
	__u32 pid;
	unsigned int n, next; /* slots used; the one to replace next */
	struct note slot[NOTES_PER_PROC];
	UT_hash_handle hh;
};

/* Processes kept at most: the oldest go first (recipients that never died of their signal). */
#define NOTES_MAX 4096

struct deaths {
	struct notes *by_pid; /* in the order they came */
	unsigned int n;
};

struct deaths *deaths__new(void)
{
	return calloc(1, sizeof(struct deaths));
}

static void drop(struct deaths *d, struct notes *ns)
{
	unsigned int i;

	HASH_DEL(d->by_pid, ns);
	for (i = 0; i < ns->n; i++)
		view__put(&ns->slot[i].view);
	free(ns);
	d->n--;
}

void deaths__free(struct deaths *d)
{
	struct notes *ns, *tmp;

	if (!d)
		return;
	HASH_ITER(hh, d->by_pid, ns, tmp)
		drop(d, ns);
	free(d);
}

static struct notes *notes_of(struct deaths *d, __u32 pid, bool create)
{
	struct notes *ns;

	HASH_FIND(hh, d->by_pid, &pid, sizeof(pid), ns);
	if (ns || !create)
		return ns;
	if (d->n >= NOTES_MAX)
		drop(d, d->by_pid);
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return NULL;
	ns->pid = pid;
	HASH_ADD(hh, d->by_pid, pid, sizeof(ns->pid), ns);
	d->n++;
	return ns;
}

void deaths__signal(struct deaths *d, const struct record *r)
{
	const struct sig_cause *c = &r->sig;
	struct notes *ns;
	struct note *k;
	unsigned int i;

	if (!d || !(c->flags & PGT_SIG_FATAL))
		return;
	for (i = 0; i < c->nr; i++) {
		if (c->rcpt[i].result != 0)
			continue;
		ns = notes_of(d, c->rcpt[i].pid, true);
		if (!ns)
			return;
		if (ns->n && ns->slot[(ns->next + NOTES_PER_PROC - 1) % NOTES_PER_PROC].group_id ==
				     c->first.group_id)
			continue; /* a thread of the same process */
		k = &ns->slot[ns->next];
		if (ns->n == NOTES_PER_PROC)
			view__put(&k->view);
		else
			ns->n++;
		ns->next = (ns->next + 1) % NOTES_PER_PROC;
		memset(k, 0, sizeof(*k));
		k->group_id = c->first.group_id;
		k->seq = r->seq;
		k->sig = c->first.sig;
		k->cause = c->first.cause;
		k->code = c->first.code;
		k->tty_nr = c->first.tty_nr;
		memcpy(k->tty, c->first.tty, sizeof(k->tty));
		k->sender = c->first.proc;
		k->kthread = c->first.proc.flags & PGT_F_KTHREAD;
		view__copy(&k->view, &r->views[0]);
	}
}

/*
 * The note of @ns's death by @group_id; or, @group_id 0 (a recording
 * before the death block), the first of @sig it was sent.
 */
static struct note *find(struct notes *ns, __u64 group_id, int sig)
{
	unsigned int i, at;

	if (!ns)
		return NULL;
	for (i = 0; i < ns->n; i++) {
		/* Oldest first. */
		at = ns->n < NOTES_PER_PROC ? i : (ns->next + i) % NOTES_PER_PROC;
		if (group_id ? ns->slot[at].group_id == group_id : (int)ns->slot[at].sig == sig)
			return &ns->slot[at];
	}
	return NULL;
}

/* The notes of a process that is gone. */
static void forget(struct deaths *d, struct notes *ns)
{
	if (d && ns)
		drop(d, ns);
}

/*
 * The sender: the signal record's, as it was then; else what the model knew
 * when the exit came (record__exit_sender()); else the kernel's pid and
 * identity, no more. None for the kernel's own.
 */
static void take_sender(struct record *r, const struct note *k, const struct pgt_death *kd)
{
	struct death_cause *dc = &r->death;

	if (!sent_by_process(dc->mech) || (k && k->kthread) || (!k && !kd->sender_pid)) {
		dc->has_sender = false;
		view__put(&r->views[1]);
		memset(&r->views[1], 0, sizeof(r->views[1]));
	} else if (k) {
		dc->has_sender = true;
		dc->sender = k->sender;
		view__put(&r->views[1]);
		view__copy(&r->views[1], &k->view);
	} else if (!dc->has_sender) {
		dc->has_sender = true;
		dc->sender_partial = true;
		memset(&dc->sender, 0, sizeof(dc->sender));
		dc->sender.pid = kd->sender_pid;
		dc->sender.tid = kd->sender_pid;
		dc->sender.start_ns = kd->sender_start;
		dc->sender.auid = PGT_ID_UNSET;
		dc->sender.ses = PGT_ID_UNSET;
	}
}

/* What generated the signal: the kernel's death block, or (@old) the recording's note. */
static void take_generation(struct death_cause *dc, const struct note *k,
			    const struct pgt_death *kd, bool old)
{
	dc->mech = mech_of(old ? k->cause : kd->cause);
	dc->code = old ? k->code : kd->code;
	dc->tty_nr = old ? k->tty_nr : kd->tty_nr;
	memcpy(dc->tty, old ? k->tty : kd->tty, sizeof(dc->tty));
	if (!old && dc->mech == DEATH_OOM && (kd->flags & PGT_DEATH_MEMCG)) {
		dc->memcg_level = kd->memcg_level;
		dc->memcg_v2 = kd->flags & PGT_DEATH_MEMCG_V2;
	}
	if (k) {
		dc->has_seq = true;
		dc->signal_seq = k->seq;
	} else {
		dc->why = "its signal record was not written: lost, or not asked for "
			  "(--signals=none, --event, a filter)";
	}
}

void deaths__exit(struct deaths *d, struct record *r)
{
	const struct pgt_exit *e = r->ev.exit;
	const struct pgt_death *kd = &e->death;
	struct death_cause *dc = &r->death;
	struct notes *ns = d ? notes_of(d, e->proc.pid, false) : NULL;
	bool old = r->ev.notes & EV_NO_DEATH;
	struct note *k = NULL;
	struct exit_info xi;

	decode__exit_status(e->status, &xi);
	dc->set = true;
	dc->sig = xi.exited ? 0 : xi.signal;
	if (xi.exited) {
		dc->mech = DEATH_EXIT;
	} else if (!old && (!kd->group_id || (int)kd->sig != xi.signal)) {
		dc->mech = DEATH_UNKNOWN;
		dc->why = "its generation was not seen: before pgrptrace started, with "
			  "--signals=none, or a record lost";
	} else if (!(k = find(ns, old ? 0 : kd->group_id, xi.signal)) && old) {
		dc->mech = DEATH_UNKNOWN;
		dc->why = "no signal record of it in the recording";
	} else {
		take_generation(dc, k, kd, old);
	}
	if (dc->mech == DEATH_EXIT || dc->mech == DEATH_UNKNOWN)
		dc->has_sender = false;
	else
		take_sender(r, k, kd);
	forget(d, ns);
}
