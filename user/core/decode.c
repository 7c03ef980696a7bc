// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "decode.h"

static const size_t record_size[PGT_TYPE_MAX] = {
	[PGT_FORK] = sizeof(struct pgt_fork),
	[PGT_EXEC] = sizeof(struct pgt_exec),
	[PGT_EXIT] = sizeof(struct pgt_exit),
	[PGT_SETSID] = sizeof(struct pgt_setsid),
	[PGT_SETPGID] = sizeof(struct pgt_setpgid),
	[PGT_SUBREAPER] = sizeof(struct pgt_subreaper),
	[PGT_REPARENT] = sizeof(struct pgt_reparent),
	[PGT_REAP] = sizeof(struct pgt_reap),
	[PGT_SNAP] = sizeof(struct pgt_snap),
	[PGT_SIGNAL] = sizeof(struct pgt_signal),
	[PGT_TTY] = sizeof(struct pgt_tty),
	[PGT_FOREGROUND] = sizeof(struct pgt_foreground),
	[PGT_CGROUP] = sizeof(struct pgt_cgroup),
};

static const char *const type_name[PGT_TYPE_MAX] = {
	[PGT_FORK] = "fork",	     [PGT_EXEC] = "exec",	[PGT_EXIT] = "exit",
	[PGT_SETSID] = "setsid",     [PGT_SETPGID] = "setpgid", [PGT_SUBREAPER] = "subreaper",
	[PGT_REPARENT] = "reparent", [PGT_REAP] = "reap",	[PGT_SNAP] = "snapshot",
	[PGT_SIGNAL] = "signal",     [PGT_TTY] = "tty",		[PGT_FOREGROUND] = "foreground",
	[PGT_CGROUP] = "cgroup",
};

static const char *name_of(const char *const *names, size_t n, unsigned int v)
{
	return v < n && names[v] ? names[v] : "?";
}

const char *decode__scope_name(unsigned int scope)
{
	static const char *const names[] = {
		[PGT_SCOPE_PROCESS] = "process", [PGT_SCOPE_THREAD] = "thread",
		[PGT_SCOPE_GROUP] = "group",	 [PGT_SCOPE_SESSION] = "session",
		[PGT_SCOPE_ALL] = "all",
	};

	return name_of(names, sizeof(names) / sizeof(names[0]), scope);
}

const char *decode__cause_name(unsigned int cause)
{
	static const char *const names[] = {
		[PGT_CAUSE_KILL] = "kill",
		[PGT_CAUSE_TTY] = "tty",
		[PGT_CAUSE_HANGUP] = "hangup",
		[PGT_CAUSE_LEADER_EXIT] = "session_leader_exit",
		[PGT_CAUSE_ORPHANED] = "orphaned_pgrp",
		[PGT_CAUSE_JOB_CONTROL] = "job_control",
		[PGT_CAUSE_RESIZE] = "resize",
		[PGT_CAUSE_PARENT_DEATH] = "parent_death",
		[PGT_CAUSE_CHILD] = "child",
		[PGT_CAUSE_KERNEL] = "kernel",
		[PGT_CAUSE_CGROUP_KILL] = "cgroup_kill",
		[PGT_CAUSE_BROKEN_PIPE] = "broken_pipe",
		[PGT_CAUSE_FAULT] = "fault",
		[PGT_CAUSE_RLIMIT] = "rlimit",
		[PGT_CAUSE_OOM] = "oom",
	};

	return name_of(names, sizeof(names) / sizeof(names[0]), cause);
}

const char *decode__tty_how_name(unsigned int how)
{
	static const char *const names[] = {
		[PGT_TTY_OPEN] = "open",
		[PGT_TTY_TIOCSCTTY] = "TIOCSCTTY",
		[PGT_TTY_TIOCNOTTY] = "TIOCNOTTY",
		[PGT_TTY_SETSID] = "setsid",
		[PGT_TTY_LEADER_EXIT] = "session_leader_exit",
		[PGT_TTY_HANGUP] = "hangup",
		[PGT_TTY_STOLEN] = "stolen",
	};

	return name_of(names, sizeof(names) / sizeof(names[0]), how);
}

const char *decode__sig_result_name(int result)
{
	static const char *const names[] = {
		"delivered", "ignored", "already_pending", "overflow_fail", "lose_info",
	};

	return result >= 0 && result < 5 ? names[result] : "?";
}

const char *decode__reason_name(unsigned int reason)
{
	switch (reason & PGT_REPARENT_REASONS) {
	case PGT_REAPER_THREAD:
		return "thread";
	case PGT_REAPER_SUBREAPER:
		return "subreaper";
	case PGT_REAPER_NS_INIT:
		return "ns_init";
	}
	return "?";
}

size_t decode__record_size(unsigned int type)
{
	return type < PGT_TYPE_MAX ? record_size[type] : 0;
}

/*
 * A signal record carries only the recipient slots it uses; the rest of the
 * pipeline sees a whole one, zero-filled, valid until the next record.
 */
static struct pgt_signal signal_whole;
static struct pgt_exec exec_whole;
static struct pgt_exit exit_whole;

static int widen_signal(const struct pgt_hdr *h, struct pgt_event *ev)
{
	const struct pgt_signal *r = (const void *)h;
	size_t slots;

	if (h->size < PGT_SIGNAL_SIZE(0) || h->size > sizeof(*r) ||
	    (h->size - PGT_SIGNAL_SIZE(0)) % sizeof(r->rcpt[0]))
		return -EINVAL;
	slots = (h->size - PGT_SIGNAL_SIZE(0)) / sizeof(r->rcpt[0]);
	if (r->nr > slots)
		return -EINVAL;
	if (h->size < sizeof(*r)) {
		memcpy(&signal_whole, h, h->size);
		memset((char *)&signal_whole + h->size, 0, sizeof(*r) - h->size);
		ev->hdr = &signal_whole.hdr;
		ev->raw = &signal_whole;
	}
	return 0;
}

/*
 * An exec record carries the part of data[] it uses. One from a recording
 * made before args, cwd and executable ended at filename: the pipeline sees
 * it widened, with none of them.
 */
static int check_exec(const struct pgt_hdr *h, struct pgt_event *ev)
{
	const struct pgt_exec *r = (const void *)h;

	if (h->size == PGT_EXEC_V1_SIZE) {
		memcpy(&exec_whole, h, PGT_EXEC_V1_SIZE);
		memset((char *)&exec_whole + PGT_EXEC_V1_SIZE, 0,
		       PGT_EXEC_SIZE(0) - PGT_EXEC_V1_SIZE);
		exec_whole.flags &= PGT_EXEC_FILENAME_CUT;
		ev->hdr = &exec_whole.hdr;
		ev->raw = &exec_whole;
		return 0;
	}
	if (h->size < PGT_EXEC_SIZE(0) || h->size > sizeof(*r))
		return -EINVAL;
	/* The BPF side never writes more; a recording may claim anything. */
	if (r->args_len > PGT_ARGS_MAX || r->cwd_len > PGT_EXEC_PATH_MAX ||
	    r->exe_len > PGT_EXEC_PATH_MAX)
		return -EINVAL;
	if ((size_t)r->args_len + r->cwd_len + r->exe_len > h->size - PGT_EXEC_SIZE(0))
		return -EINVAL;
	return 0;
}

size_t decode__split_args(const char *p, size_t len, struct span *out, size_t max, bool *more)
{
	const char *end = p + len, *nul;
	size_t n = 0;

	*more = false;
	while (p < end) {
		if (n == max) {
			*more = true;
			break;
		}
		nul = memchr(p, '\0', end - p);
		out[n].s = p;
		out[n].len = (nul ?: end) - p;
		p += out[n++].len + 1;
	}
	return n;
}

size_t decode__exec_args(const struct pgt_exec *e, struct span *out, size_t max, bool *cut)
{
	size_t n = decode__split_args(e->data, e->args_len, out, max, cut);

	*cut |= !!(e->flags & PGT_EXEC_ARGS_CUT);
	return n;
}

#define DELETED " (deleted)"

int decode__exec_path(const struct pgt_exec *e, bool exe, char *buf, size_t size, bool *cut)
{
	const char *names = e->data + e->args_len + (exe ? e->cwd_len : 0);
	size_t len = exe ? e->exe_len : e->cwd_len;
	const char *p, *name;
	size_t out = 0, n;

	if (!(e->flags & (exe ? PGT_EXEC_HAS_EXE : PGT_EXEC_HAS_CWD)) || size < 2)
		return -1;
	*cut = e->flags & (exe ? PGT_EXEC_EXE_CUT : PGT_EXEC_CWD_CUT);
	/* Names leaf first, each NUL-terminated: write them root first. */
	p = names + len;
	while (p > names) {
		name = p - 1; /* at the NUL that ends the name before p */
		while (name > names && name[-1])
			name--;
		n = p - 1 - name;
		if (out || !*cut) {
			if (out + 1 >= size)
				break;
			buf[out++] = '/';
		}
		if (n > size - 1 - out)
			n = size - 1 - out;
		memcpy(buf + out, name, n);
		out += n;
		p = name;
	}
	if (!out && !*cut)
		buf[out++] = '/';
	buf[out] = '\0';
	/* d_path()'s mark, which /proc shows */
	if (decode__exec_deleted(e, exe) && !*cut && size - out > sizeof(DELETED) - 1) {
		memcpy(buf + out, DELETED, sizeof(DELETED));
		out += sizeof(DELETED) - 1;
	}
	return out;
}

bool decode__exec_deleted(const struct pgt_exec *e, bool exe)
{
	return e->flags & (exe ? PGT_EXEC_EXE_DELETED | PGT_EXEC_EXE_ANON : PGT_EXEC_CWD_DELETED);
}

int decode__record(const void *data, size_t size, struct pgt_event *ev)
{
	const struct pgt_hdr *h = data;

	if (!data || size < sizeof(*h))
		return -EINVAL;
	if (h->type == 0 || h->type >= PGT_TYPE_MAX || size < h->size)
		return -EINVAL;
	ev->hdr = h;
	ev->raw = data;
	ev->notes = 0;
	if (h->type == PGT_SIGNAL)
		return widen_signal(h, ev);
	if (h->type == PGT_EXEC)
		return check_exec(h, ev);
	if (h->type == PGT_FORK && h->size == PGT_FORK_OLD_SIZE)
		return 0;
	if (h->type == PGT_EXIT && h->size == PGT_EXIT_V1_SIZE) {
		/* Before the death block: the cause is joined from the signal records. */
		memcpy(&exit_whole, h, PGT_EXIT_V1_SIZE);
		memset(&exit_whole.death, 0, sizeof(exit_whole.death));
		ev->hdr = &exit_whole.hdr;
		ev->raw = &exit_whole;
		ev->notes |= EV_NO_DEATH;
		return 0;
	}
	return h->size == record_size[h->type] ? 0 : -EINVAL;
}

const char *decode__type_name(unsigned int type)
{
	if (type == 0 || type >= PGT_TYPE_MAX)
		return NULL;
	return type_name[type];
}

const char *decode__event_name(const struct pgt_event *ev)
{
	if (ev->hdr->type == PGT_TTY)
		return ev->tty->acquire ? "tty_acquire" : "tty_release";
	return decode__type_name(ev->hdr->type) ?: "?";
}

const struct pgt_proc *decode__event_proc(const struct pgt_event *ev)
{
	switch (ev->hdr->type) {
	case PGT_FORK:
		return &ev->fork->proc;
	case PGT_EXEC:
		return &ev->exec->proc;
	case PGT_EXIT:
		return &ev->exit->proc;
	case PGT_SETSID:
		return &ev->setsid->proc;
	case PGT_SETPGID:
		return &ev->setpgid->proc;
	case PGT_SUBREAPER:
		return &ev->subreaper->proc;
	case PGT_REPARENT:
		return &ev->reparent->proc;
	case PGT_SIGNAL:
		return &ev->signal->proc;
	case PGT_TTY:
		return &ev->tty->proc;
	case PGT_FOREGROUND:
		return &ev->fg->proc;
	case PGT_CGROUP:
		return &ev->cgroup->proc;
	case PGT_SNAP:
		return &ev->snap->proc;
	default:
		return NULL;
	}
}

void decode__exit_status(__u32 status, struct exit_info *out)
{
	memset(out, 0, sizeof(*out));
	if ((status & 0x7f) == 0) {
		out->exited = true;
		out->code = (status >> 8) & 0xff;
	} else {
		out->signal = status & 0x7f;
		out->core = status & 0x80;
	}
}

const char *decode__signame(int sig, char *buf, size_t len)
{
	const char *abbrev;

	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
		if (sig == SIGRTMIN)
			snprintf(buf, len, "SIGRTMIN");
		else
			snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
		return buf;
	}
	abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "SIG%d", sig);
	return buf;
}

const char *decode__errname(int err, char *buf, size_t len)
{
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, len, "E%d", err);
	return buf;
}

void decode__tty_dev(__u32 tty_nr, unsigned int *major, unsigned int *minor)
{
	*major = (tty_nr >> 8) & 0xfff;
	*minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
}

bool decode__tty_name(const char *kname, __u32 tty_nr, char *buf, size_t len)
{
	unsigned int major, minor;
	size_t n = strnlen(kname, PGT_TTY_LEN);

	if (tty_nr == 0 && n == 0)
		return false;
	decode__tty_dev(tty_nr, &major, &minor);
	/* Unix98 pty slaves: majors 136..143 (UNIX98_PTY_SLAVE_MAJOR). */
	if (major >= 136 && major <= 143) {
		snprintf(buf, len, "pts/%u", (major - 136) * 256 + minor);
		return true;
	}
	if (n == 0) {
		snprintf(buf, len, "%u:%u", major, minor);
		return true;
	}
	snprintf(buf, len, "%.*s", (int)n, kname);
	return true;
}

static __u64 boot_hash = 0xcbf29ce484222325ULL;

static __u64 fnv1a(__u64 h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void decode__set_boot_id(const char *boot_id)
{
	boot_hash = fnv1a(0xcbf29ce484222325ULL, boot_id, strlen(boot_id));
}

void decode__entity_id(__u32 tgid, __u64 start_ns, char buf[17])
{
	__u64 h = fnv1a(boot_hash, &tgid, sizeof(tgid));
	static const char hex[] = "0123456789abcdef";
	int i;

	h = fnv1a(h, &start_ns, sizeof(start_ns));
	for (i = 15; i >= 0; i--, h >>= 4)
		buf[i] = hex[h & 0xf];
	buf[16] = '\0';
}
