/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Raw ring-buffer records: validation, and decoding of raw kernel values. */
#ifndef __DECODE_H
#define __DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "pgrptrace.h"
#include "sbuf.h"

#define EV_JOB_CONTROL (1U << 0) /* a shell's job control: not an escape */
#define EV_DERIVED     (1U << 1) /* made by user space from another record, its cause */
#define EV_NO_DEATH    (1U << 2) /* an exit recorded before pgt_death: joined by pid */

/* A validated record; the pointers alias the ring-buffer memory. */
struct pgt_event {
	const struct pgt_hdr *hdr;
	unsigned int notes; /* EV_*: what user space concluded about it */
	union {
		const void *raw;
		const struct pgt_fork *fork;
		const struct pgt_exec *exec;
		const struct pgt_exit *exit;
		const struct pgt_setsid *setsid;
		const struct pgt_setpgid *setpgid;
		const struct pgt_subreaper *subreaper;
		const struct pgt_reparent *reparent;
		const struct pgt_reap *reap;
		const struct pgt_snap *snap;
		const struct pgt_signal *signal;
		const struct pgt_tty *tty;
		const struct pgt_foreground *fg;
		const struct pgt_cgroup *cgroup;
	};
};

/* Arguments of an exec that the outputs write, at most. */
#define PGT_ARGS_SHOWN 128

/*
 * The NUL-separated arguments in @len bytes at @p: up to @max into @out,
 * how many were put; *more when there were more.
 */
size_t decode__split_args(const char *p, size_t len, struct span *out, size_t max, bool *more);

/*
 * An exec's argument vector: up to @max arguments into @out, how many were
 * put. *cut when the vector was longer than the record or than @max.
 */
size_t decode__exec_args(const struct pgt_exec *e, struct span *out, size_t max, bool *cut);

/*
 * An exec's working directory (@exe false) or executable, joined into @buf
 * as /proc/PID/{cwd,exe} names it: "/usr/bin/sleep"; "/tmp/x (deleted)"
 * once unlinked; "/memfd:NAME (deleted)" for a file with no directory. When
 * the walk was cut (*cut), the leaf part, with no leading '/': "lib/x/y".
 * Returns its length, or -1 when the record has none. @size: at least
 * DECODE_PATH_SIZE for the whole of any record's path.
 */
#define DECODE_PATH_SIZE (PGT_EXEC_PATH_MAX + 16) /* '/', " (deleted)", NUL */
int decode__exec_path(const struct pgt_exec *e, bool exe, char *buf, size_t size, bool *cut);
/* The path's file or directory was deleted ((deleted) in /proc), or never had one. */
bool decode__exec_deleted(const struct pgt_exec *e, bool exe);

/* What wait(2) would say about a raw exit status. */
struct exit_info {
	bool exited; /* normal exit: code is valid */
	int code;    /* WEXITSTATUS */
	int signal;  /* WTERMSIG, 0 if none */
	bool core;   /* WCOREDUMP */
};

/* The size of a record of @type, 0 for an unknown type. */
size_t decode__record_size(unsigned int type);

/* Validate @size bytes at @data as one record. Returns 0 or -EINVAL. */
int decode__record(const void *data, size_t size, struct pgt_event *ev);

void decode__exit_status(__u32 status, struct exit_info *out);

/* "SIGSEGV", "SIGRTMIN+3"; @buf must hold 16 bytes. */
const char *decode__signame(int sig, char *buf, size_t len);

/* "EPERM"; @buf must hold 16 bytes for unknown numbers ("E123"). */
const char *decode__errname(int err, char *buf, size_t len);

/* "fork", "exec", ...; NULL for an unknown type. */
const char *decode__type_name(unsigned int type);
/* The record's kind as the outputs name it: a tty record is "tty_acquire" or "tty_release". */
const char *decode__event_name(const struct pgt_event *ev);
/* The process the record names as its "process" (a fork's forker); NULL for none. */
const struct pgt_proc *decode__event_proc(const struct pgt_event *ev);

/* "thread", "subreaper", "ns_init"; "?" for anything else. */
const char *decode__reason_name(unsigned int reason);

/* Names of enum pgt_sig_scope, pgt_sig_cause, pgt_tty_how; "?" if unknown. */
const char *decode__scope_name(unsigned int scope);
const char *decode__cause_name(unsigned int cause);
const char *decode__tty_how_name(unsigned int how);
/* TRACE_SIGNAL_* results: "delivered", "ignored", "pending", ... */
const char *decode__sig_result_name(int result);

/*
 * Controlling tty name as ps(1) shows it ("pts/3", "tty1", "ttyS0"), from the
 * kernel's tty->name and tty_nr. Returns false when there is no tty.
 */
bool decode__tty_name(const char *kname, __u32 tty_nr, char *buf, size_t len);

/* Major and minor number of an encoded tty_nr (new_encode_dev()). */
void decode__tty_dev(__u32 tty_nr, unsigned int *major, unsigned int *minor);

/*
 * The boot the entity ids are of: host__set() sets it with the machine's
 * (this one's, or a recording's), the tests directly.
 */
void decode__set_boot_id(const char *boot_id);
/* A stable id for a process: hash of (boot id, tgid, start time); 16 hex digits. */
void decode__entity_id(__u32 tgid, __u64 start_ns, char buf[17]);

#endif /* __DECODE_H */
