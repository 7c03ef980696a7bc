// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The hook table: for each kind of event, the program each level uses and
 * what a level loses, named by the programs' own section names. It selects
 * a level's programs (hooks__select()), and --check and the tests read it
 * (hooks__rows()).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kbtf.h"
#include "probes.h"
#include "hooks.h"
#include "pgrptrace.skel.h"
#include "msg.h"

static const char *const level_names[HOOK_LEVELS] = {
	[HOOK_FENTRY] = "fentry",
	[HOOK_TP_BTF] = "tp_btf",
	[HOOK_RAW_TP] = "raw_tp",
	[HOOK_TRACEPOINT] = "tracepoint",
};

const char *hooks__level_name(enum hook_level level)
{
	return level < HOOK_LEVELS ? level_names[level] : "?";
}

#if defined(__x86_64__)
#define SYSCALL_FN(name) "__x64_sys_" name
#elif defined(__aarch64__)
#define SYSCALL_FN(name) "__arm64_sys_" name
#else
#define SYSCALL_FN(name) "sys_" name
#endif

/* The syscall hooks, as --check names them: tracepoints, or fentry/fexit. */
static const struct {
	const char *tp;
	const char *fentry;
} sys_hook_names[SYS_HOOKS] = {
	[SYS_HOOK_GROUPS] = {
		"tracepoint/syscalls/sys_{enter,exit}_{setsid,setpgid,prctl}",
		"fentry+fexit/{ksys_setsid," SYSCALL_FN("setpgid") "}, fexit/" SYSCALL_FN("prctl"),
	},
	[SYS_HOOK_TTY] = {
		"tracepoint/syscalls/sys_{enter,exit}_{ioctl,openat,openat2}",
		"fentry+fexit/{tty_ioctl,tty_open_proc_set_tty}",
	},
	[SYS_HOOK_KILL] = {
		"tracepoint/syscalls/sys_{enter,exit}_{kill,tkill,tgkill,rt_sigqueueinfo,"
		"pidfd_send_signal}",
		"fentry+fexit/" SYSCALL_FN("{kill,tkill,tgkill,rt_sigqueueinfo,pidfd_send_signal}"),
	},
};

/* Per syscall hook, at the fentry level: whether fentry is used, else what is missing. */
static struct {
	bool decided;
	bool fentry;
	char missing[128];
} sys_hooks[SYS_HOOKS];

#define MAX_SYS_PROGS 10

/* A program of the skeleton, by its place in struct pgrptrace_bpf. */
#define PROG(name) offsetof(struct pgrptrace_bpf, progs.name)

static struct bpf_program *prog_at(struct pgrptrace_bpf *skel, size_t off)
{
	return *(struct bpf_program **)((char *)skel + off);
}

/* Each syscall hook's programs: its tracepoints, and its fentry twins (0 ends a list). */
static const struct {
	size_t tp[MAX_SYS_PROGS];
	size_t fe[MAX_SYS_PROGS];
} sys_progs[SYS_HOOKS] = {
	[SYS_HOOK_GROUPS] = {
		{ PROG(sys_enter_setsid), PROG(sys_exit_setsid), PROG(sys_enter_setpgid),
		  PROG(sys_exit_setpgid), PROG(sys_enter_prctl), PROG(sys_exit_prctl) },
		{ PROG(fentry_setsid), PROG(fexit_setsid), PROG(fentry_setpgid),
		  PROG(fexit_setpgid), PROG(fexit_prctl) },
	},
	[SYS_HOOK_TTY] = {
		{ PROG(sys_enter_ioctl), PROG(sys_exit_ioctl), PROG(sys_enter_openat),
		  PROG(sys_exit_openat), PROG(sys_enter_openat2), PROG(sys_exit_openat2) },
		{ PROG(fentry_tty_ioctl), PROG(fexit_tty_ioctl), PROG(fentry_tty_open),
		  PROG(fexit_tty_open) },
	},
	[SYS_HOOK_KILL] = {
		{ PROG(sys_enter_kill), PROG(sys_exit_kill), PROG(sys_enter_tkill),
		  PROG(sys_exit_tkill), PROG(sys_enter_tgkill), PROG(sys_exit_tgkill),
		  PROG(sys_enter_rt_sigqueueinfo), PROG(sys_exit_rt_sigqueueinfo),
		  PROG(sys_enter_pidfd_send_signal), PROG(sys_exit_pidfd_send_signal) },
		{ PROG(fentry_kill), PROG(fexit_kill), PROG(fentry_tkill), PROG(fexit_tkill),
		  PROG(fentry_tgkill), PROG(fexit_tgkill), PROG(fentry_rt_sigqueueinfo),
		  PROG(fexit_rt_sigqueueinfo), PROG(fentry_pidfd_send_signal),
		  PROG(fexit_pidfd_send_signal) },
	},
};

/* The function an fentry/fexit program attaches to, from its section name. */
static const char *attach_fn(struct pgrptrace_bpf *skel, size_t prog)
{
	const char *sec = bpf_program__section_name(prog_at(skel, prog));
	const char *fn = strchr(sec, '/');

	return fn ? fn + 1 : sec;
}

/*
 * Whether the kernel's BTF has every function that syscall hook @h's fentry
 * programs attach to; else the first it lacks goes in sys_hooks[h].missing,
 * and the hook keeps its tracepoints at the fentry level. The functions of
 * every hook are looked up at the first call, in one scan (kbtf.c).
 */
static bool sys_hook_fentry_ok(struct pgrptrace_bpf *skel, enum sys_hook h)
{
	struct kbtf_query q[SYS_HOOKS * MAX_SYS_PROGS];
	_Static_assert(SYS_HOOKS * MAX_SYS_PROGS <= KBTF_QUERIES, "one scan for every hook");
	int n = 0, i, k, err;

	if (sys_hooks[h].decided)
		return sys_hooks[h].fentry;
	for (k = 0; k < SYS_HOOKS; k++)
		for (i = 0; i < MAX_SYS_PROGS && sys_progs[k].fe[i]; i++)
			q[n++] = (struct kbtf_query){ .name = attach_fn(skel, sys_progs[k].fe[i]),
						      .kind = BTF_KIND_FUNC };
	err = kbtf__find(KBTF_VMLINUX, q, n);
	n = 0;
	for (k = 0; k < SYS_HOOKS; k++) {
		sys_hooks[k].decided = true;
		sys_hooks[k].fentry = true;
		for (i = 0; i < MAX_SYS_PROGS && sys_progs[k].fe[i]; i++, n++) {
			if (q[n].id > 0 || !sys_hooks[k].fentry)
				continue;
			sys_hooks[k].fentry = false;
			snprintf(sys_hooks[k].missing, sizeof(sys_hooks[k].missing), "%s%s%s",
				 q[n].name, err ? ": cannot read the kernel's BTF: " : "",
				 err ? strerror(-err) : "");
		}
	}
	return sys_hooks[h].fentry;
}

const char *hooks__sys_hook(enum sys_hook h, enum hook_level level, const char **missing)
{
	*missing = NULL;
	if (h >= SYS_HOOKS)
		return "?";
	if (level != HOOK_FENTRY || !sys_hooks[h].decided)
		return sys_hook_names[h].tp;
	if (sys_hooks[h].fentry)
		return sys_hook_names[h].fentry;
	*missing = sys_hooks[h].missing;
	return sys_hook_names[h].tp;
}

#define PROGS3(name)                                                      \
	{                                                                 \
		PROG(name), PROG(name), PROG(name##_raw), PROG(name##_tp) \
	}

/* What the syscall tracepoints cost against fentry/fexit. */
#define SYSCALL_TP_LOSS                                                                \
	"nothing traced, but every syscall of every task takes the slow path while a " \
	"syscall tracepoint is attached"

/*
 * Each kind of event: the program each level uses, and what a level loses
 * against the one above it. select_level() enables these programs, and
 * --check names them (loader__hook_rows()). The syscalls' programs are
 * chosen per group (sys_progs).
 */
static const struct hook_def {
	const char *event;
	size_t prog[HOOK_LEVELS];	/* PROG(); 0: a syscall group */
	const char *loses[HOOK_LEVELS]; /* NULL: nothing */
	int sys;			/* enum sys_hook + 1 */
} hook_defs[] = {
	{ .event = "fork",
	  .prog = PROGS3(sched_process_fork),
	  .loses = { [HOOK_TRACEPOINT] = "the child is found on its parent's lists; a fork racing "
					 "another by the same parent can be missed" } },
	{ .event = "exec", .prog = PROGS3(sched_process_exec) },
	{ .event = "exit, reparent", .prog = PROGS3(sched_process_exit) },
	{ .event = "reap",
	  .prog = PROGS3(sched_process_free),
	  .loses = { [HOOK_TRACEPOINT] = "no start time: a reap is applied only to a process seen "
					 "exiting" } },
	{ .event = "tty lost by an exiting leader",
	  .prog = { PROG(disassociate_ctty), PROG(sched_process_exit), PROG(sched_process_exit_raw),
		    PROG(sched_process_exit_tp) },
	  .loses = { [HOOK_TP_BTF] = "predicted at exit, just before the kernel does it" } },
	{ .event = "signal",
	  .prog = PROGS3(signal_generate),
	  .loses = { [HOOK_TRACEPOINT] = "the recipient is looked up by pid; one already gone is "
					 "missed" } },
	{ .event = "OOM kill (an exit's cause)",
	  .prog = { PROG(mark_victim), PROG(mark_victim), PROG(mark_victim), PROG(mark_victim) } },
	{ .event = "cgroup",
	  .prog = PROGS3(cgroup_attach_task),
	  .loses = { [HOOK_TRACEPOINT] = "the task is looked up by pid; one already gone is "
					 "missed" } },
	{ .event = "setsid, setpgid, subreaper",
	  .sys = SYS_HOOK_GROUPS + 1,
	  .loses = { [HOOK_TP_BTF] = SYSCALL_TP_LOSS } },
	{ .event = "tty acquire, release, foreground",
	  .sys = SYS_HOOK_TTY + 1,
	  .loses = { [HOOK_TP_BTF] = SYSCALL_TP_LOSS } },
	{ .event = "signal causes (kill family)",
	  .sys = SYS_HOOK_KILL + 1,
	  .loses = { [HOOK_TP_BTF] = SYSCALL_TP_LOSS } },
};

#define NHOOKS (sizeof(hook_defs) / sizeof(hook_defs[0]))

/* A program's attach point as --check names it: classic tracepoints in full. */
static void hook_name(const struct bpf_program *prog, char *buf, size_t len)
{
	const char *sec = bpf_program__section_name(prog);

	if (!strncmp(sec, "tp/", 3))
		snprintf(buf, len, "tracepoint/%s", sec + 3);
	else
		snprintf(buf, len, "%s", sec);
}

int hooks__rows(struct pgrptrace_bpf *skel, struct hook_row *rows, int max)
{
	static char names[NHOOKS][HOOK_LEVELS][96];
	static bool named;
	const char *missing;
	int i, l;

	if (!named) {
		for (i = 0; i < (int)NHOOKS; i++)
			for (l = 0; l < HOOK_LEVELS && hook_defs[i].prog[l]; l++)
				hook_name(prog_at(skel, hook_defs[i].prog[l]), names[i][l],
					  sizeof(names[i][l]));
		named = true;
	}
	for (i = 0; i < (int)NHOOKS && i < max; i++) {
		const struct hook_def *d = &hook_defs[i];
		struct hook_row *r = &rows[i];

		memset(r, 0, sizeof(*r));
		r->event = d->event;
		for (l = 0; l < HOOK_LEVELS; l++) {
			r->loses[l] = d->loses[l];
			if (!d->sys) {
				r->at[l] = names[i][l];
				continue;
			}
			r->at[l] = hooks__sys_hook(d->sys - 1, l, &missing);
			if (l == HOOK_FENTRY)
				r->fentry_missing = missing;
		}
	}
	return i;
}

/*
 * The programs that walk a list (an exit's children, setpgid's caller's
 * children, an exec's path, a signalled group) do it in a bpf_loop()
 * callback, which the verifier checks once. Before 5.17 each has a twin,
 * <name>_noloop, that walks with a bounded loop instead: it stands in for
 * the chosen program, which stays unloaded.
 */
static void select_loop_twins(struct pgrptrace_bpf *skel, bool loop)
{
	static const char suffix[] = "_noloop";
	struct bpf_program *twin, *prog;
	char name[128];

	bpf_object__for_each_program(twin, skel->obj) {
		const char *n = bpf_program__name(twin);
		size_t len = strlen(n), sl = sizeof(suffix) - 1;
		bool on;

		if (len <= sl || len - sl >= sizeof(name) || strcmp(n + len - sl, suffix))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - sl), n);
		prog = bpf_object__find_program_by_name(skel->obj, name);
		on = prog && bpf_program__autoload(prog);
		if (prog)
			bpf_program__set_autoload(prog, on && loop);
		bpf_program__set_autoload(twin, on && !loop);
	}
}

/* The programs of @level, from hook_defs: the syscall groups and fentry aside. */
void hooks__select(struct pgrptrace_bpf *skel, enum hook_level level, bool loop, bool verbose)
{
	size_t i;
	int h, j, l;

	/* Off first: one program serves several levels (tp_btf's below fentry). */
	for (i = 0; i < NHOOKS; i++)
		for (l = 0; l < HOOK_LEVELS && hook_defs[i].prog[l]; l++)
			bpf_program__set_autoload(prog_at(skel, hook_defs[i].prog[l]), false);
	for (i = 0; i < NHOOKS; i++) {
		const struct hook_def *d = &hook_defs[i];

		if (!d->prog[level])
			continue;
		bpf_program__set_autoload(prog_at(skel, d->prog[level]), true);
		/* Above tp_btf the tp_btf programs stay: fentry adds to them. */
		if (level == HOOK_FENTRY)
			bpf_program__set_autoload(prog_at(skel, d->prog[HOOK_TP_BTF]), true);
	}
	/* The syscalls: fentry/fexit at the fentry level where BTF has the functions. */
	for (h = 0; h < SYS_HOOKS; h++) {
		bool fentry = level == HOOK_FENTRY && sys_hook_fentry_ok(skel, h);

		for (j = 0; j < MAX_SYS_PROGS; j++) {
			if (sys_progs[h].tp[j])
				bpf_program__set_autoload(prog_at(skel, sys_progs[h].tp[j]),
							  !fentry);
			if (sys_progs[h].fe[j])
				bpf_program__set_autoload(prog_at(skel, sys_progs[h].fe[j]),
							  fentry);
		}
		if (verbose && level == HOOK_FENTRY)
			p_err("%s%s%s", fentry ? sys_hook_names[h].fentry : sys_hook_names[h].tp,
			      fentry ? "" : ": fentry would need ",
			      fentry ? "" : sys_hooks[h].missing);
	}
	skel->rodata->leader_tty_at_fentry = level == HOOK_FENTRY;
	select_loop_twins(skel, loop);
}
