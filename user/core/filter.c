// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "filter.h"
#include "record.h"

/* The kinds of record (record.c's table), a bit each: their index. */
static int kind_bit(const char *name, size_t len)
{
	unsigned int i;

	return record__kind_by_name(name, len, &i) ? (int)i : -1;
}

int filter__parse_events(const char *list, __u32 *mask, const char **bad)
{
	const char *p = list;
	size_t len;
	int bit;

	*mask = 0;
	for (;;) {
		len = strcspn(p, ",");
		bit = kind_bit(p, len);
		if (bit < 0) {
			*bad = p;
			return -1;
		}
		*mask |= 1U << bit;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

bool filter__needs_signals(const struct filter *f)
{
	static const char *const need[] = { "signal", "exit", "tty_release", "escape", "logout" };
	size_t i;

	if (!f->events)
		return true;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (f->events & (1U << kind_bit(need[i], strlen(need[i]))))
			return true;
	return false;
}

const char *filter__event_names(void)
{
	static char names[256];
	const struct record_kind_info *k;
	size_t at = 0;
	unsigned int i;

	if (names[0])
		return names;
	for (i = 0; (k = record__kind(i)); i++)
		at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s", i ? ", " : "",
				       k->name);
	return names;
}

bool filter__on_procs(const struct filter *f)
{
	return f->has_uid || f->tty || f->has_session || f->comm;
}

bool filter__active(const struct filter *f)
{
	return filter__on_procs(f) || f->events || f->hide_expected;
}

static bool kind_wanted(const struct filter *f, const char *kind)
{
	int bit = kind_bit(kind, strlen(kind));

	return !f->events || (bit >= 0 && (f->events & (1U << bit)));
}

static bool tty_is(const char *kname, __u32 tty_nr, const char *want)
{
	char name[32];

	return decode__tty_name(kname, tty_nr, name, sizeof(name)) && !strcmp(name, want);
}

bool filter__proc(const struct filter *f, const struct pgt_proc *p)
{
	if (f->has_uid && p->uid != f->uid)
		return false;
	if (f->has_session && p->sid != f->session)
		return false;
	if (f->tty && !tty_is(p->tty, p->tty_nr, f->tty))
		return false;
	if (f->comm && strncmp(p->comm, f->comm, sizeof(p->comm)))
		return false;
	return true;
}

/* A process the model knows by pid: as filter__proc(); one it does not know matches nothing. */
static bool pid_matches(const struct filter *f, const struct model *m, __u32 pid)
{
	const struct mproc *p = model__find(m, pid);

	return p && filter__proc(f, &p->ctx);
}

bool filter__event(const struct filter *f, const struct model *m, const struct pgt_event *ev)
{
	if (!kind_wanted(f, decode__event_name(ev)))
		return false;
	if (!filter__on_procs(f))
		return true;
	switch (ev->hdr->type) {
	case PGT_FORK:
		return filter__proc(f, &ev->fork->proc) || filter__proc(f, &ev->fork->child);
	case PGT_SETPGID:
		return filter__proc(f, &ev->setpgid->proc) ||
		       (ev->setpgid->target_found && filter__proc(f, &ev->setpgid->target));
	case PGT_REPARENT:
		return filter__proc(f, &ev->reparent->proc) ||
		       pid_matches(f, m, ev->reparent->child_pid);
	default: {
		const struct pgt_proc *p = decode__event_proc(ev);

		return !p || filter__proc(f, p);
	}
	}
}

bool filter__signal(const struct filter *f, const struct model *m, const struct sig_cause *c)
{
	unsigned int i;

	if (!kind_wanted(f, "signal"))
		return false;
	if (!filter__on_procs(f) || filter__proc(f, &c->first.proc))
		return true;
	/* The terminal's own signals (^C, hangup) name the tty. */
	if (f->tty && !f->has_uid && !f->has_session && !f->comm &&
	    tty_is(c->first.tty, c->first.tty_nr, f->tty))
		return true;
	for (i = 0; i < c->nr; i++)
		if (pid_matches(f, m, c->rcpt[i].pid))
			return true;
	return false;
}

bool filter__escape(const struct filter *f, const struct escape *e)
{
	struct pgt_proc before = e->proc;

	if (f->hide_expected && e->expected)
		return false;
	if (!kind_wanted(f, "escape"))
		return false;
	/* Where it went, or where it left from: an escape from pts/1 matches --tty pts/1. */
	before.sid = e->from.sid;
	before.pgid = e->from.pgid;
	before.ppid = e->from.ppid;
	before.tty_nr = e->from.tty_nr;
	memcpy(before.tty, e->from.tty, sizeof(before.tty));
	return filter__proc(f, &e->proc) || filter__proc(f, &before);
}

bool filter__process(const struct filter *f, const char *kind, const struct mproc *p)
{
	if (!strcmp(kind, "lost"))
		return true;
	return kind_wanted(f, kind) && (!p || filter__proc(f, &p->ctx));
}

bool filter__logout(const struct filter *f, const struct logout *lo)
{
	unsigned int i;

	if (!kind_wanted(f, "logout"))
		return false;
	if (filter__proc(f, &lo->leader))
		return true;
	for (i = 0; i < lo->nr; i++)
		if (filter__proc(f, &lo->procs[i].proc))
			return true;
	return false;
}
