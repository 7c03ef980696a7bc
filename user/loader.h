/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF side's lifecycle: checks, tracefs, open, load with fallbacks, attach. */
#ifndef __LOADER_H
#define __LOADER_H

#include <stdbool.h>
#include <linux/types.h>
#include "pgrptrace.h"

/* How the lifecycle, signal and cgroup events are hooked, best first. */
enum hook_level {
	HOOK_FENTRY,	/* tp_btf, plus fentry where a tracepoint can only predict */
	HOOK_TP_BTF,	/* BTF-typed tracepoints */
	HOOK_RAW_TP,	/* raw tracepoints: same data, probe reads */
	HOOK_TRACEPOINT,	/* classic tracepoints: tasks found from pids and lists */
	HOOK_LEVELS,
};

/* The syscalls hooked by tracepoints, or at the fentry level by fentry/fexit. */
enum sys_hook {
	SYS_HOOK_GROUPS,	/* setsid, setpgid, prctl(PR_SET_CHILD_SUBREAPER) */
	SYS_HOOK_TTY,		/* tty ioctls, the open that acquires a tty */
	SYS_HOOK_KILL,		/* kill, tkill, tgkill, rt_sigqueueinfo, pidfd_send_signal */
	SYS_HOOKS,
};

struct loader_cfg {
	__u32 self_tgid;	/* never reported */
	bool filter;		/* report only tgids added with loader__trace() */
	__u64 wakeup_bytes;	/* batch wakeups below this many pending bytes */
	__u64 wakeup_idle_ns;	/* ... unless none for this long; 0: batch */
	__u32 ringbuf_bytes;	/* ring buffer size, a power of two */
	const char *btf_path;	/* BTF for CO-RE instead of the kernel's */
	int verbose;		/* 0 quiet, 1 libbpf info, 2 libbpf debug */
	__u32 signal_mode;	/* 0 none, 1 group, 2 all */
};

struct loader {
	struct pgrptrace_bpf *skel;
	enum hook_level level;
	bool mounted_tracefs;
	bool has_iter;		/* the iter/task snapshot program loaded */
	struct bpf_link *iter_link;	/* its link, made at the first snapshot */
	char failure[256];	/* why the last level did not start, in one line */
};

/* Everything up to attached programs; prints why and returns -1 on failure. */
int loader__start(struct loader *l, const struct loader_cfg *cfg);
void loader__stop(struct loader *l);

int loader__ringbuf_fd(const struct loader *l);
/*
 * Run the iter/task snapshot program: a malloc'd array of struct pgt_snap
 * in @out, their number returned, or -errno.
 */
int loader__snapshot(struct loader *l, struct pgt_snap **out);
/* Add a process to the filter set. */
int loader__trace(struct loader *l, __u32 tgid);
/* Failed reserves per record type, summed over CPUs. */
void loader__drops(const struct loader *l, __u64 out[PGT_TYPE_MAX]);
__u64 loader__stat(const struct loader *l, enum pgt_stat idx);
/*
 * Whether bpf() still reads our maps without capabilities (the loss
 * counters): 0, or -errno (-EPERM where the kernel refuses every bpf()
 * call to a process without capabilities while
 * kernel.unprivileged_bpf_disabled is set, as older kernels do).
 */
int loader__check_unprivileged(const struct loader *l);
const char *loader__level_name(enum hook_level level);

/* What the kernel offers that the programs can do without, as probed. */
struct loader_features {
	bool task_from_pid;	/* kfunc bpf_task_from_pid (6.2): the tracepoint level */
	bool loop;		/* bpf_loop (5.17); else bounded loops */
	bool snprintf;		/* bpf_snprintf (5.13); else /proc/kallsyms */
	bool task_storage;	/* task storage (5.11); else an LRU hash */
	bool atomic_fetch;	/* atomic fetch-and-add (5.12); else the boot clock numbers */
};
void loader__features(struct loader_features *out);

/* Whether privileges allow loading BPF programs. */
bool loader__has_caps(void);
/*
 * For --check: load and attach the programs of @level, then unload them.
 * 0, or -1 with the reason in @why. @has_iter says whether iter/task loads.
 */
int loader__probe(const struct loader_cfg *cfg, enum hook_level level, char *why, size_t len,
		  bool *has_iter);
/*
 * Where syscall hook @h attaches at @level. At the fentry level, after a
 * load or probe of it, *@missing names the function that kept the
 * tracepoints (else NULL).
 */
const char *loader__sys_hook(enum sys_hook h, enum hook_level level, const char **missing);
/* Where one kind of event is hooked at each level, and what a level loses. */
struct hook_row {
	const char *event;
	const char *at[HOOK_LEVELS];
	const char *loses[HOOK_LEVELS];	/* against the level above; NULL: nothing */
	const char *fentry_missing;	/* kept its syscall tracepoints: the function BTF lacks */
};
#define MAX_HOOK_ROWS	16
/*
 * The kinds of event and their hooks, from the table select_level() enables
 * (syscall groups as decided by the last fentry load); their number, or -errno.
 */
int loader__hook_rows(struct hook_row *rows, int max);
/* Every program of the object, loaded or not: its name and section. Their number, or -errno. */
typedef void (*loader_prog_fn)(void *ctx, const char *name, const char *section);
int loader__for_each_program(loader_prog_fn fn, void *ctx);
/* Make tracefs available for the syscall tracepoints (mounting it if needed). */
int loader__tracefs(struct loader *l);

#endif /* __LOADER_H */
