// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "loader.h"
#include "pgrptrace.skel.h"
#include "pgrptrace_nofetch.skel.h"

#define TRACEFS_MAGIC	0x74726163
#define TRACEFS_PATH	"/sys/kernel/tracing"
#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"

static int verbosity;
/* Where start-up time goes, for -v: open, load (verifier included), attach. */
static __u64 t_open_ms, t_load_ms, t_attach_ms;

static __u64 mono_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1000000;
}
/*
 * The first warning of a load: what failed before any program did (an
 * extern kfunc the kernel lacks, a map type it does not know), which the
 * summaries that follow ("failed to load object") no longer name.
 */
static char first_warn[512];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	char line[512];
	va_list copy;

	va_copy(copy, args);
	vsnprintf(line, sizeof(line), fmt, copy);
	va_end(copy);
	if (level == LIBBPF_WARN && !first_warn[0])
		snprintf(first_warn, sizeof(first_warn), "%s",
			 strncmp(line, "libbpf: ", 8) ? line : line + 8);
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	if (verbosity < 1)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static const char *const level_names[HOOK_LEVELS] = {
	[HOOK_FENTRY] = "fentry",
	[HOOK_TP_BTF] = "tp_btf",
	[HOOK_RAW_TP] = "raw_tp",
	[HOOK_TRACEPOINT] = "tracepoint",
};

const char *loader__level_name(enum hook_level level)
{
	return level < HOOK_LEVELS ? level_names[level] : "?";
}

/* CAP_BPF and CAP_PERFMON (5.8+), or CAP_SYS_ADMIN, in the effective set. */
static bool has_bpf_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
#define HAS(cap) (data[(cap) / 32].effective & (1U << ((cap) % 32)))
	return HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON));
#undef HAS
}

/*
 * The syscall tracepoints attach through perf events, which libbpf finds by
 * their ids in tracefs. Mount it where libbpf looks if nobody has.
 */
static int ensure_tracefs(struct loader *l)
{
	struct statfs st;

	if (access("/sys/kernel/debug/tracing/events", F_OK) == 0)
		return 0;
	if (statfs(TRACEFS_PATH, &st) == 0 && st.f_type == TRACEFS_MAGIC)
		return 0;
	if (mount("tracefs", TRACEFS_PATH, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		fprintf(stderr,
			"pgrptrace: cannot mount tracefs on %s: %s: the syscall tracepoints "
			"(setsid, setpgid, prctl) need it; mount it with 'mount -t tracefs "
			"tracefs %s'\n",
			TRACEFS_PATH, strerror(errno), TRACEFS_PATH);
		return -1;
	}
	l->mounted_tracefs = true;
	if (verbosity)
		fprintf(stderr, "pgrptrace: mounted tracefs on %s\n", TRACEFS_PATH);
	return 0;
}

/* The kernel's own BTF, parsed once: which functions the fentry programs can hook. */
static struct btf *kernel_btf(void)
{
	static struct btf *vmlinux;
	static bool tried;

	if (!tried) {
		tried = true;
		vmlinux = btf__load_vmlinux_btf();
	}
	return vmlinux;
}

/*
 * What this kernel offers that the programs can do without, found by
 * probes, never by version: each missing one has a fallback (bpf/).
 */
static struct {
	bool probed;
	bool task_from_pid;	/* kfunc bpf_task_from_pid (6.2) */
	bool loop;		/* helper bpf_loop (5.17) */
	bool snprintf;		/* helper bpf_snprintf (5.13) */
	bool task_storage;	/* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	bool atomic_fetch;	/* atomic add returning the old value (5.12) */
} kfeat;

/* Whether an atomic fetch-and-add (BPF_ATOMIC | BPF_FETCH) passes the verifier. */
static bool probe_atomic_fetch(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "pgt_atomic_probe", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void probe_features(void)
{
	struct btf *vmlinux;
	const char *off;

	if (kfeat.probed)
		return;
	kfeat.probed = true;
	vmlinux = kernel_btf();
	kfeat.task_from_pid = vmlinux &&
		btf__find_by_name_kind(vmlinux, "bpf_task_from_pid", BTF_KIND_FUNC) > 0;
	kfeat.loop = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_loop, NULL) > 0;
	kfeat.snprintf = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_snprintf, NULL) > 0;
	kfeat.task_storage = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) > 0;
	kfeat.atomic_fetch = probe_atomic_fetch();
	/*
	 * Testing aid: PGRPTRACE_TEST_NO_FEATURES=loop,snprintf,task_storage,
	 * atomic_fetch (or all) takes the fallbacks of an older kernel on this one.
	 */
	if ((off = getenv("PGRPTRACE_TEST_NO_FEATURES"))) {
		bool all = !strcmp(off, "all");

		kfeat.loop &= !all && !strstr(off, "loop");
		kfeat.snprintf &= !all && !strstr(off, "snprintf");
		kfeat.task_storage &= !all && !strstr(off, "task_storage");
		kfeat.atomic_fetch &= !all && !strstr(off, "atomic_fetch");
	}
	if (verbosity)
		fprintf(stderr, "pgrptrace: kernel offers: bpf_task_from_pid %s, bpf_loop %s, "
				"bpf_snprintf %s, task storage %s, atomic fetch %s\n",
			kfeat.task_from_pid ? "yes" : "no", kfeat.loop ? "yes" : "no",
			kfeat.snprintf ? "yes" : "no", kfeat.task_storage ? "yes" : "no",
			kfeat.atomic_fetch ? "yes" : "no");
}

void loader__features(struct loader_features *out)
{
	probe_features();
	out->task_from_pid = kfeat.task_from_pid;
	out->loop = kfeat.loop;
	out->snprintf = kfeat.snprintf;
	out->task_storage = kfeat.task_storage;
	out->atomic_fetch = kfeat.atomic_fetch;
}

/* Threads in a signalling syscall at once, where sigacc is a hash (before 5.11). */
#define SIGACC_THREADS	4096

/*
 * Before bpf_snprintf() (5.13) the signal programs cannot name a kworker's
 * work function: tell them the two that send signals, by their addresses in
 * /proc/kallsyms. Where those read as 0 (kptr_restrict), a kworker's ^C is
 * reported with the kernel as its cause.
 */
static void fill_work_funcs(struct pgrptrace_bpf *skel)
{
	static const struct {
		const char *name;
		__u32 kind;
	} funcs[] = {
		{ "flush_to_ldisc", PGT_CAUSE_TTY },
		{ "do_tty_hangup", PGT_CAUSE_HANGUP },
	};
	char line[256], sym[128], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "re");
	__u64 key;
	int found = 0;
	size_t i;

	if (!f)
		return;
	while (found < 2 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) != 3 || !addr)
			continue;
		for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
			if (strcmp(sym, funcs[i].name))
				continue;
			key = addr;
			bpf_map__update_elem(skel->maps.work_funcs, &key, sizeof(key),
					     &funcs[i].kind, sizeof(funcs[i].kind), BPF_ANY);
			found++;
		}
	}
	fclose(f);
	if (verbosity && found < 2)
		fprintf(stderr, "pgrptrace: /proc/kallsyms names %d of the tty's work functions: "
				"a tty's signals may be reported as the kernel's\n", found);
}

/* What @level needs that this kernel lacks, in @why; 0 if nothing. */
static int level_missing(enum hook_level level, char *why, size_t len)
{
	probe_features();
	if (level == HOOK_TRACEPOINT && !kfeat.task_from_pid) {
		snprintf(why, len, "needs kfunc bpf_task_from_pid (Linux 6.2), which this "
				   "kernel lacks");
		return -1;
	}
	return 0;
}

#if defined(__x86_64__)
#define SYSCALL_FN(name)	"__x64_sys_" name
#elif defined(__aarch64__)
#define SYSCALL_FN(name)	"__arm64_sys_" name
#else
#define SYSCALL_FN(name)	"sys_" name
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

#define MAX_SYS_PROGS	10

/* A program of the skeleton, by its place in struct pgrptrace_bpf. */
#define PROG(name)	offsetof(struct pgrptrace_bpf, progs.name)

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

/*
 * Whether the kernel's BTF has every function that syscall hook @h's fentry
 * programs attach to; else the first it lacks goes in sys_hooks[h].missing,
 * and the hook keeps its tracepoints at the fentry level.
 */
static bool sys_hook_fentry_ok(struct pgrptrace_bpf *skel, enum sys_hook h)
{
	struct btf *vmlinux = kernel_btf();
	const char *sec, *fn;
	int i;

	if (sys_hooks[h].decided)
		return sys_hooks[h].fentry;
	sys_hooks[h].decided = true;
	for (i = 0; i < MAX_SYS_PROGS && sys_progs[h].fe[i]; i++) {
		sec = bpf_program__section_name(prog_at(skel, sys_progs[h].fe[i]));
		fn = strchr(sec, '/');
		fn = fn ? fn + 1 : sec;
		if (!vmlinux || btf__find_by_name_kind(vmlinux, fn, BTF_KIND_FUNC) < 0) {
			snprintf(sys_hooks[h].missing, sizeof(sys_hooks[h].missing), "%s", fn);
			return false;
		}
	}
	sys_hooks[h].fentry = true;
	return true;
}

const char *loader__sys_hook(enum sys_hook h, enum hook_level level, const char **missing)
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

#define PROGS3(name)	{ PROG(name), PROG(name), PROG(name##_raw), PROG(name##_tp) }

/* What the syscall tracepoints cost against fentry/fexit. */
#define SYSCALL_TP_LOSS \
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
	size_t prog[HOOK_LEVELS];		/* PROG(); 0: a syscall group */
	const char *loses[HOOK_LEVELS];		/* NULL: nothing */
	int sys;				/* enum sys_hook + 1 */
} hook_defs[] = {
	{ .event = "fork", .prog = PROGS3(sched_process_fork),
	  .loses = { [HOOK_TRACEPOINT] = "the child is found on its parent's lists; a fork racing "
					 "another by the same parent can be missed" } },
	{ .event = "exec", .prog = PROGS3(sched_process_exec) },
	{ .event = "exit, reparent", .prog = PROGS3(sched_process_exit) },
	{ .event = "reap", .prog = PROGS3(sched_process_free),
	  .loses = { [HOOK_TRACEPOINT] = "no start time: a reap is applied only to a process seen "
					 "exiting" } },
	{ .event = "tty lost by an exiting leader",
	  .prog = { PROG(disassociate_ctty), PROG(sched_process_exit), PROG(sched_process_exit_raw),
		    PROG(sched_process_exit_tp) },
	  .loses = { [HOOK_TP_BTF] = "predicted at exit, just before the kernel does it" } },
	{ .event = "signal", .prog = PROGS3(signal_generate),
	  .loses = { [HOOK_TRACEPOINT] = "the recipient is looked up by pid; one already gone is "
					 "missed" } },
	{ .event = "cgroup", .prog = PROGS3(cgroup_attach_task),
	  .loses = { [HOOK_TRACEPOINT] = "the task is looked up by pid; one already gone is "
					 "missed" } },
	{ .event = "setsid, setpgid, subreaper", .sys = SYS_HOOK_GROUPS + 1,
	  .loses = { [HOOK_TP_BTF] = SYSCALL_TP_LOSS } },
	{ .event = "tty acquire, release, foreground", .sys = SYS_HOOK_TTY + 1,
	  .loses = { [HOOK_TP_BTF] = SYSCALL_TP_LOSS } },
	{ .event = "signal causes (kill family)", .sys = SYS_HOOK_KILL + 1,
	  .loses = { [HOOK_TP_BTF] = SYSCALL_TP_LOSS } },
};

#define NHOOKS	(sizeof(hook_defs) / sizeof(hook_defs[0]))

/* A program's attach point as --check names it: classic tracepoints in full. */
static void hook_name(const struct bpf_program *prog, char *buf, size_t len)
{
	const char *sec = bpf_program__section_name(prog);

	if (!strncmp(sec, "tp/", 3))
		snprintf(buf, len, "tracepoint/%s", sec + 3);
	else
		snprintf(buf, len, "%s", sec);
}

int loader__hook_rows(struct hook_row *rows, int max)
{
	static char names[NHOOKS][HOOK_LEVELS][96];
	static bool named;
	struct pgrptrace_bpf *skel;
	const char *missing;
	int i, l;

	if (!named) {
		skel = pgrptrace_bpf__open();
		if (!skel)
			return -errno;
		for (i = 0; i < (int)NHOOKS; i++)
			for (l = 0; l < HOOK_LEVELS && hook_defs[i].prog[l]; l++)
				hook_name(prog_at(skel, hook_defs[i].prog[l]), names[i][l],
					  sizeof(names[i][l]));
		pgrptrace_bpf__destroy(skel);
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
			r->at[l] = loader__sys_hook(d->sys - 1, l, &missing);
			if (l == HOOK_FENTRY)
				r->fentry_missing = missing;
		}
	}
	return i;
}

int loader__for_each_program(loader_prog_fn fn, void *ctx)
{
	struct pgrptrace_bpf *skel = pgrptrace_bpf__open();
	struct bpf_program *prog;
	int n = 0;

	if (!skel)
		return -errno;
	bpf_object__for_each_program(prog, skel->obj) {
		fn(ctx, bpf_program__name(prog), bpf_program__section_name(prog));
		n++;
	}
	pgrptrace_bpf__destroy(skel);
	return n;
}

/* The programs of @level, from hook_defs: the syscall groups and fentry aside. */
static void select_level(struct pgrptrace_bpf *skel, enum hook_level level)
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
	/* Without bpf_loop(), the exit programs' bounded-loop twins. */
	{
		struct bpf_program *loop[] = { skel->progs.sched_process_exit,
					       skel->progs.sched_process_exit_raw,
					       skel->progs.sched_process_exit_tp };
		struct bpf_program *noloop[] = { skel->progs.sched_process_exit_noloop,
						 skel->progs.sched_process_exit_raw_noloop,
						 skel->progs.sched_process_exit_tp_noloop };

		for (i = 0; i < 3; i++) {
			bool on = bpf_program__autoload(loop[i]);

			bpf_program__set_autoload(loop[i], on && kfeat.loop);
			bpf_program__set_autoload(noloop[i], on && !kfeat.loop);
		}
	}
	/* The syscalls: fentry/fexit at the fentry level where BTF has the functions. */
	for (h = 0; h < SYS_HOOKS; h++) {
		bool fentry = level == HOOK_FENTRY && sys_hook_fentry_ok(skel, h);

		for (j = 0; j < MAX_SYS_PROGS; j++) {
			if (sys_progs[h].tp[j])
				bpf_program__set_autoload(prog_at(skel, sys_progs[h].tp[j]), !fentry);
			if (sys_progs[h].fe[j])
				bpf_program__set_autoload(prog_at(skel, sys_progs[h].fe[j]), fentry);
		}
		if (verbosity && level == HOOK_FENTRY)
			fprintf(stderr, "pgrptrace: %s%s%s\n",
				fentry ? sys_hook_names[h].fentry : sys_hook_names[h].tp,
				fentry ? "" : ": fentry would need ", fentry ? "" : sys_hooks[h].missing);
	}
	skel->rodata->leader_tty_at_fentry = level == HOOK_FENTRY;
}

/*
 * Whether fentry programs load and attach here: a two-instruction fentry
 * program on disassociate_ctty, loaded with bpf(2) itself. Through the
 * skeleton, a kernel that refuses trampolines (as many do at load) would
 * cost an ELF parse and a relocation pass on top of the parse of vmlinux
 * BTF that finds the function (10 ms of the 30); what the real program
 * needs beyond this is checked by its own load, which falls back to tp_btf.
 */
static int probe_fentry(char *why, size_t len)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_FENTRY);
	const char *step = "cannot load";
	struct btf *vmlinux;
	int id, fd, link, err = 0;

	vmlinux = kernel_btf();
	if (!vmlinux) {
		snprintf(why, len, "cannot read kernel BTF: %s", strerror(errno));
		return -1;
	}
	id = btf__find_by_name_kind(vmlinux, "disassociate_ctty", BTF_KIND_FUNC);
	if (id < 0) {
		snprintf(why, len, "fentry/disassociate_ctty: not in the kernel's BTF");
		return -1;
	}
	po.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pgt_fentry_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &po);
	if (fd < 0) {
		err = -errno;
	} else {
		link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
		if (link < 0) {
			err = -errno;
			step = "cannot attach";
		}
		if (link >= 0)
			close(link);
		close(fd);
	}
	if (err)
		snprintf(why, len, "fentry/disassociate_ctty: %s: %s", step, strerror(-err));
	return err ? -1 : 0;
}

/*
 * Testing aid: PGRPTRACE_TEST_FAULT=<level>|all makes the exec programs of
 * that level fail the verifier, as on a kernel that refuses them; "iter"
 * makes the snapshot iterator fail it.
 */
static bool fault_injected(const char *what)
{
	const char *f = getenv("PGRPTRACE_TEST_FAULT");

	return f && (!strcmp(f, "all") || !strcmp(f, what));
}

/*
 * Each program's verifier log goes to a buffer of its own, so that a refused
 * program is known by its own load result, not by libbpf's messages: a load
 * runs without a log, and libbpf repeats a failed one with the log on, into
 * that program's buffer. The size is libbpf's own (BPF_LOG_BUF_SIZE), so that
 * a long log is not cut short into ENOSPC; mapped without reserve, only the
 * pages a log fills cost memory.
 */
#define PROG_LOG_SIZE	(UINT32_MAX >> 8)

struct prog_logs {
	char *base;		/* NULL: no buffers, the failing program unknown */
	size_t len;
};

static void logs_set(struct prog_logs *pl, struct bpf_object *obj)
{
	struct bpf_program *prog;
	size_t n = 0;

	bpf_object__for_each_program(prog, obj)
		n++;
	pl->len = n * (size_t)PROG_LOG_SIZE;
	pl->base = mmap(NULL, pl->len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pl->base == MAP_FAILED) {
		pl->base = NULL;
		return;
	}
	n = 0;
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_log_buf(prog, pl->base + n++ * (size_t)PROG_LOG_SIZE,
					 PROG_LOG_SIZE);
}

/* The program whose load failed: the one with a log; NULL if none has (an object-level failure). */
static struct bpf_program *logs_failed(const struct prog_logs *pl, struct bpf_object *obj,
				       const char **log)
{
	struct bpf_program *prog;
	size_t n = 0;

	if (!pl->base)
		return NULL;
	bpf_object__for_each_program(prog, obj) {
		const char *buf = pl->base + n++ * (size_t)PROG_LOG_SIZE;

		if (bpf_program__autoload(prog) && buf[0]) {
			*log = buf;
			return prog;
		}
	}
	return NULL;
}

static void logs_free(struct prog_logs *pl, struct bpf_object *obj)
{
	struct bpf_program *prog;

	if (!pl->base)
		return;
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_log_buf(prog, NULL, 0);
	munmap(pl->base, pl->len);
	pl->base = NULL;
}

/*
 * One line that names the program that failed, with libbpf's error; the
 * verifier's log with -v. A failure before any program loaded (an extern
 * kfunc the kernel lacks, a map type it does not know) is named by libbpf's
 * first warning.
 */
static void load_failure(struct loader *l, const struct bpf_program *prog, const char *log,
			 enum hook_level level, int err, bool quiet)
{
	if (prog)
		snprintf(l->failure, sizeof(l->failure), "cannot load BPF program %s (%s): %s",
			 bpf_program__name(prog), bpf_program__section_name(prog), strerror(-err));
	else if (first_warn[0])
		snprintf(l->failure, sizeof(l->failure), "cannot load BPF object (%s hooks): %.*s",
			 level_names[level], (int)strcspn(first_warn, "\n"), first_warn);
	else
		snprintf(l->failure, sizeof(l->failure), "cannot load BPF object (%s hooks): %s",
			 level_names[level], strerror(-err));
	if (quiet) {
		if (verbosity)
			fprintf(stderr, "pgrptrace: %s hooks do not load here (%s), trying the next\n",
				level_names[level], l->failure);
		return;
	}
	fprintf(stderr, "pgrptrace: %s\n", l->failure);
	if (prog && verbosity)
		fprintf(stderr, "pgrptrace: the verifier's log of %s:\n%s\n", bpf_program__name(prog),
			log);
	else if (!verbosity)
		fprintf(stderr, "pgrptrace: run with -v for the verifier log\n");
}

/*
 * The skeleton, opened from the object this kernel can load. Before 5.12
 * that is the one built without atomic fetch-and-add (bpf/common.bpf.h,
 * pgt_next()): both come from one source with the same maps, programs and
 * variables, so one skeleton struct serves either, as open_opts() would.
 */
static struct pgrptrace_bpf *open_skel(const struct bpf_object_open_opts *opts)
{
	struct pgrptrace_bpf *skel;
	int err;

	if (kfeat.atomic_fetch)
		return pgrptrace_bpf__open_opts(opts);
	skel = calloc(1, sizeof(*skel));
	if (!skel) {
		errno = ENOMEM;
		return NULL;
	}
	err = pgrptrace_bpf__create_skeleton(skel);
	if (!err) {
		skel->skeleton->data =
			(void *)pgrptrace_nofetch_bpf__elf_bytes(&skel->skeleton->data_sz);
		err = bpf_object__open_skeleton(skel->skeleton, opts);
	}
	if (err) {
		pgrptrace_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

static int open_and_load(struct loader *l, const struct loader_cfg *cfg, enum hook_level level,
			 bool with_iter, bool quiet)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = cfg->btf_path);
	struct prog_logs logs = {};
	struct bpf_program *failed;
	struct pgrptrace_bpf *skel;
	const char *log = NULL;
	__u64 t0 = mono_ms();
	int err;

	probe_features();
	skel = open_skel(&oo);
	if (!skel) {
		fprintf(stderr, "pgrptrace: cannot open BPF object: %s\n", strerror(errno));
		return -1;
	}
	t_open_ms = mono_ms() - t0;
	skel->rodata->self_tgid = cfg->self_tgid;
	skel->rodata->filter_enabled = cfg->filter;
	skel->rodata->wakeup_bytes = cfg->wakeup_bytes;
	skel->rodata->wakeup_idle_ns = cfg->wakeup_idle_ns;
	skel->rodata->signal_mode = cfg->signal_mode;
	if (cfg->ringbuf_bytes)
		bpf_map__set_max_entries(skel->maps.events, cfg->ringbuf_bytes);
	skel->rodata->test_fault_exec = fault_injected(level_names[level]);
	skel->rodata->test_fault_iter = !strcmp(getenv("PGRPTRACE_TEST_FAULT") ?: "", "iter");
	skel->rodata->have_task_storage = kfeat.task_storage;
	skel->rodata->have_snprintf = kfeat.snprintf;
	if (!kfeat.task_storage) {
		bpf_map__set_type(skel->maps.sigacc, BPF_MAP_TYPE_LRU_HASH);
		bpf_map__set_map_flags(skel->maps.sigacc, 0);
		bpf_map__set_max_entries(skel->maps.sigacc, SIGACC_THREADS);
	}
	select_level(skel, level);
	/* The iterator runs on demand, not at attach. */
	bpf_program__set_autoload(skel->progs.snapshot_task, with_iter);
	bpf_program__set_autoattach(skel->progs.snapshot_task, false);

	first_warn[0] = '\0';
	logs_set(&logs, skel->obj);
	t0 = mono_ms();
	err = pgrptrace_bpf__load(skel);
	t_load_ms = mono_ms() - t0;
	failed = err ? logs_failed(&logs, skel->obj, &log) : NULL;
	if (err && with_iter && (!failed || failed == skel->progs.snapshot_task)) {
		/* Without task iterators, the snapshot comes from /proc. */
		logs_free(&logs, skel->obj);
		pgrptrace_bpf__destroy(skel);
		return open_and_load(l, cfg, level, false, quiet);
	}
	if (err) {
		load_failure(l, failed, log, level, err, quiet);
		logs_free(&logs, skel->obj);
		pgrptrace_bpf__destroy(skel);
		return -1;
	}
	logs_free(&logs, skel->obj);
	if (!kfeat.snprintf)
		fill_work_funcs(skel);
	l->skel = skel;
	l->level = level;
	l->has_iter = with_iter;
	return 0;
}

static int parse_level(const char *s, enum hook_level *out)
{
	int i;

	for (i = 0; i < HOOK_LEVELS; i++) {
		if (!strcmp(s, level_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

/*
 * The skeleton's attach, one program at a time, so that a refusal names its
 * program from libbpf's own result. Links go where the skeleton's destroy
 * finds them.
 */
static int attach_all(struct loader *l)
{
	const struct bpf_object_skeleton *s = l->skel->skeleton;
	int i, err;

	for (i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *prog = *s->progs[i].prog;
		struct bpf_link **link = s->progs[i].link;

		if (!bpf_program__autoload(prog) || !bpf_program__autoattach(prog) || *link)
			continue;
		*link = bpf_program__attach(prog);
		if (!*link) {
			err = -errno;
			snprintf(l->failure, sizeof(l->failure),
				 "cannot attach BPF program %s (%s): %s", bpf_program__name(prog),
				 bpf_program__section_name(prog), strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Open, load and attach one level; on failure nothing stays loaded. */
static int start_level(struct loader *l, const struct loader_cfg *cfg, enum hook_level level,
		       bool quiet)
{
	char why[200];
	__u64 t0;

	l->failure[0] = '\0';
	if (level_missing(level, why, sizeof(why))) {
		snprintf(l->failure, sizeof(l->failure), "%s", why);
		if (!quiet)
			fprintf(stderr, "pgrptrace: cannot use %s hooks here: %s\n",
				level_names[level], why);
		else if (verbosity)
			fprintf(stderr, "pgrptrace: %s hooks: %s, trying the next\n",
				level_names[level], why);
		return -1;
	}
	if (open_and_load(l, cfg, level, !getenv("PGRPTRACE_TEST_NO_ITER"), quiet))
		return -1;
	t0 = mono_ms();
	if (!attach_all(l)) {
		t_attach_ms = mono_ms() - t0;
		return 0;
	}
	if (!quiet)
		fprintf(stderr, "pgrptrace: %s\n", l->failure);
	else if (verbosity)
		fprintf(stderr, "pgrptrace: %s hooks do not attach here (%s), trying the next\n",
			level_names[level], l->failure);
	loader__stop(l);
	return -1;
}

bool loader__has_caps(void)
{
	return has_bpf_caps();
}

int loader__tracefs(struct loader *l)
{
	return ensure_tracefs(l);
}

int loader__start(struct loader *l, const struct loader_cfg *cfg)
{
	const char *forced = getenv("PGRPTRACE_HOOKS");
	enum hook_level level = HOOK_FENTRY;
	char why[256];

	memset(l, 0, sizeof(*l));
	verbosity = cfg->verbose;
	libbpf_set_print(libbpf_print);

	if (!has_bpf_caps()) {
		fprintf(stderr, "pgrptrace: cannot trace: permission denied: run as root, or "
				"with CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN\n");
		return -1;
	}
	if (cfg->btf_path && access(cfg->btf_path, R_OK)) {
		fprintf(stderr, "pgrptrace: cannot read BTF %s: %s\n", cfg->btf_path,
			strerror(errno));
		return -1;
	}
	if (access(VMLINUX_BTF, R_OK)) {
		fprintf(stderr, "pgrptrace: cannot read BTF %s: %s: the kernel needs "
				"CONFIG_DEBUG_INFO_BTF=y\n",
			VMLINUX_BTF, strerror(errno));
		return -1;
	}
	if (forced && parse_level(forced, &level)) {
		fprintf(stderr, "pgrptrace: bad PGRPTRACE_HOOKS '%s': use fentry, tp_btf, raw_tp "
				"or tracepoint\n", forced);
		return -1;
	}
	if (ensure_tracefs(l))
		return -1;

	/* Try each level, best first, unless one is forced. */
	if (!forced && probe_fentry(why, sizeof(why))) {
		if (verbosity)
			fprintf(stderr, "pgrptrace: no fentry here (%s), trying tp_btf\n", why);
		level = HOOK_TP_BTF;
	}
	while (start_level(l, cfg, level, !forced && level < HOOK_LEVELS - 1)) {
		if (forced || level == HOOK_LEVELS - 1)
			return -1;
		level++;
	}
	if (verbosity)
		fprintf(stderr, "pgrptrace: attached with %s hooks (open %llu ms, load %llu ms, "
				"attach %llu ms)\n", level_names[l->level],
			(unsigned long long)t_open_ms, (unsigned long long)t_load_ms,
			(unsigned long long)t_attach_ms);
	return 0;
}

int loader__probe(const struct loader_cfg *cfg, enum hook_level level, char *why, size_t len,
		  bool *has_iter)
{
	struct loader l = {};

	verbosity = cfg->verbose;
	libbpf_set_print(libbpf_print);
	*why = '\0';
	if (level == HOOK_FENTRY && probe_fentry(why, len))
		return -1;
	if (start_level(&l, cfg, level, true)) {
		snprintf(why, len, "%s", l.failure[0] ? l.failure : "refused");
		return -1;
	}
	*has_iter = l.has_iter;
	loader__stop(&l);
	return 0;
}

static void *destroy_link(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

/*
 * Detaching a syscall tracepoint waits for RCU grace periods: the perf
 * event's release syncs in perf_trace_event_unreg(), under event_mutex, and
 * more waits follow outside it. One link after another, the ~20 links of a
 * level took 1.0-1.3 s to release on 6.18 (55 ms each); a thread per link
 * lets the waits outside the mutex overlap, and the release took about half.
 * A link whose thread cannot start is destroyed here.
 */
static void detach_all(struct loader *l)
{
	const struct bpf_object_skeleton *s = l->skel->skeleton;
	pthread_t *threads = calloc(s->prog_cnt, sizeof(*threads));
	int i, n = 0;

	for (i = 0; i < s->prog_cnt; i++) {
		struct bpf_link *link = *s->progs[i].link;

		if (!link)
			continue;
		*s->progs[i].link = NULL;
		if (!threads || pthread_create(&threads[n], NULL, destroy_link, link))
			bpf_link__destroy(link);
		else
			n++;
	}
	while (n--)
		pthread_join(threads[n], NULL);
	free(threads);
}

void loader__stop(struct loader *l)
{
	__u64 t0 = mono_ms();

	if (l->skel)
		detach_all(l);
	if (verbosity > 1 && l->skel)
		fprintf(stderr, "pgrptrace: detached in %llu ms\n",
			(unsigned long long)(mono_ms() - t0));
	bpf_link__destroy(l->iter_link);
	l->iter_link = NULL;
	pgrptrace_bpf__destroy(l->skel);
	l->skel = NULL;
}

int loader__ringbuf_fd(const struct loader *l)
{
	return bpf_map__fd(l->skel->maps.events);
}

/*
 * The iterator's link is made once and kept: a snapshot after --user has
 * dropped every capability then only reads a new iterator from it.
 */
int loader__snapshot(struct loader *l, struct pgt_snap **out)
{
	size_t cap = 1024, n = 0;
	struct pgt_snap *recs, *tmp;
	ssize_t got;
	int fd, err = 0;

	*out = NULL;
	if (!l->has_iter)
		return -EOPNOTSUPP;
	if (!l->iter_link) {
		l->iter_link = bpf_program__attach_iter(l->skel->progs.snapshot_task, NULL);
		if (!l->iter_link)
			return -errno;
	}
	fd = bpf_iter_create(bpf_link__fd(l->iter_link));
	if (fd < 0)
		return -errno;
	recs = malloc(cap * sizeof(*recs));
	/* Records are written whole; read() returns whole seq_file pages. */
	while (recs) {
		if (n == cap) {
			tmp = realloc(recs, 2 * cap * sizeof(*recs));
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
			recs = tmp;
			cap *= 2;
		}
		got = read(fd, (char *)(recs + n), (cap - n) * sizeof(*recs));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			break;
		}
		if (got == 0)
			break;
		if (got % sizeof(*recs)) {
			err = -EIO;
			break;
		}
		n += got / sizeof(*recs);
	}
	close(fd);
	if (!recs)
		return -ENOMEM;
	if (err) {
		free(recs);
		return err;
	}
	*out = recs;
	return (int)n;
}

int loader__trace(struct loader *l, __u32 tgid)
{
	__u8 one = 1;

	return bpf_map__update_elem(l->skel->maps.traced, &tgid, sizeof(tgid), &one, sizeof(one),
				    BPF_ANY);
}

static __u64 percpu_sum(const struct bpf_map *map, __u32 key)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals, sum = 0;
	int i;

	if (ncpu <= 0)
		return 0;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map__lookup_elem(map, &key, sizeof(key), vals, sizeof(*vals) * ncpu, 0))
		for (i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

void loader__drops(const struct loader *l, __u64 out[PGT_TYPE_MAX])
{
	__u32 t;

	for (t = 0; t < PGT_TYPE_MAX; t++)
		out[t] = percpu_sum(l->skel->maps.drops, t);
}

int loader__check_unprivileged(const struct loader *l)
{
	int ncpu = libbpf_num_possible_cpus();
	__u32 key = 0;
	__u64 *vals;
	int err;

	if (ncpu <= 0)
		return ncpu ?: -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	err = bpf_map__lookup_elem(l->skel->maps.stats, &key, sizeof(key), vals,
				   sizeof(*vals) * ncpu, 0);
	free(vals);
	return err;
}

__u64 loader__stat(const struct loader *l, enum pgt_stat idx)
{
	return percpu_sum(l->skel->maps.stats, idx);
}
