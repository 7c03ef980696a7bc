/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The hook levels, and the table of which program hooks which event at each. */
#ifndef __HOOKS_H
#define __HOOKS_H

#include <stdbool.h>

struct pgrptrace_bpf;

/* How the lifecycle, signal and cgroup events are hooked, best first. */
enum hook_level {
	HOOK_FENTRY,	 /* tp_btf, plus fentry where a tracepoint can only predict */
	HOOK_TP_BTF,	 /* BTF-typed tracepoints */
	HOOK_RAW_TP,	 /* raw tracepoints: same data, probe reads */
	HOOK_TRACEPOINT, /* classic tracepoints: tasks found from pids and lists */
	HOOK_LEVELS,
};

/* The syscalls hooked by tracepoints, or at the fentry level by fentry/fexit. */
enum sys_hook {
	SYS_HOOK_GROUPS, /* setsid, setpgid, prctl(PR_SET_CHILD_SUBREAPER) */
	SYS_HOOK_TTY,	 /* tty ioctls, the open that acquires a tty */
	SYS_HOOK_KILL,	 /* kill, tkill, tgkill, rt_sigqueueinfo, pidfd_send_signal */
	SYS_HOOKS,
};

/* "fentry", "tp_btf", "raw_tp", "tracepoint"; "?" for anything else. */
const char *hooks__level_name(enum hook_level level);
/*
 * Where syscall hook @h attaches at @level. At the fentry level, after a
 * load or probe of it, *@missing names the function that kept the
 * tracepoints (else NULL).
 */
const char *hooks__sys_hook(enum sys_hook h, enum hook_level level, const char **missing);
/* Where one kind of event is hooked at each level, and what a level loses. */
struct hook_row {
	const char *event;
	const char *at[HOOK_LEVELS];
	const char *loses[HOOK_LEVELS]; /* against the level above; NULL: nothing */
	const char *fentry_missing;	/* kept its syscall tracepoints: the function BTF lacks */
};
#define MAX_HOOK_ROWS 16
/*
 * The kinds of event and their hooks, from the table hooks__select()
 * enables, with the section names of @skel's programs (syscall groups as
 * decided by the last fentry load); their number.
 */
int hooks__rows(struct pgrptrace_bpf *skel, struct hook_row *rows, int max);
/*
 * @skel's programs of @level on (autoload), the others off; the exit
 * programs' bounded-loop twins without bpf_loop() (@loop false); the
 * syscalls by fentry where the kernel's BTF has their functions.
 */
void hooks__select(struct pgrptrace_bpf *skel, enum hook_level level, bool loop, bool verbose);
#endif /* __HOOKS_H */
