/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The record ABI shared by the BPF programs and user space.
 *
 * Rules: fixed-width types only, largest fields first, explicit padding, and a
 * size assertion on every struct, so that both compilers lay the records out
 * the same way. BPF sends raw kernel values; user space decodes them.
 */
#ifndef __PGRPTRACE_H
#define __PGRPTRACE_H

#define PGT_COMM_LEN 16
#define PGT_TTY_LEN  16
#define PGT_PATH_LEN 256

/* Record types; also the index into the per-type drop counters. */
enum pgt_type {
	PGT_FORK = 1,
	PGT_EXEC,
	PGT_EXIT,
	PGT_SETSID,
	PGT_SETPGID,
	PGT_SUBREAPER,
	PGT_REPARENT,	/* an orphan gets a new parent (predicted at exit) */
	PGT_REAP,	/* a process is freed: model only, not printed */
	PGT_SNAP,	/* one process of the startup snapshot (iter/task) */
	PGT_SIGNAL,	/* recipients of one signal from one cause */
	PGT_TTY,	/* a session gained or lost its controlling tty */
	PGT_FOREGROUND, /* a tty's foreground process group changed */
	PGT_CGROUP,	/* a process moved to another cgroup */
	PGT_TYPE_MAX,
};

/* What a signal reached (pgt_signal.scope). */
enum pgt_sig_scope {
	PGT_SCOPE_PROCESS = 1,
	PGT_SCOPE_THREAD,
	PGT_SCOPE_GROUP,   /* target: a pgid */
	PGT_SCOPE_SESSION, /* target: a sid */
	PGT_SCOPE_ALL,	   /* kill(-1) */
};

/* Why a signal was generated (pgt_signal.cause). */
enum pgt_sig_cause {
	PGT_CAUSE_KILL = 1,	/* kill, tkill, tgkill, rt_sigqueueinfo, pidfd_send_signal */
	PGT_CAUSE_TTY,		/* ^C ^\ ^Z through the line discipline, or TIOCSIG */
	PGT_CAUSE_HANGUP,	/* the tty hung up, or its session leader let go of it */
	PGT_CAUSE_LEADER_EXIT,	/* disassociate_ctty() as the session leader exits */
	PGT_CAUSE_ORPHANED,	/* kill_orphaned_pgrp(): SIGHUP+SIGCONT to stopped jobs */
	PGT_CAUSE_JOB_CONTROL,	/* SIGTTIN/SIGTTOU to a background group */
	PGT_CAUSE_RESIZE,	/* SIGWINCH after TIOCSWINSZ */
	PGT_CAUSE_PARENT_DEATH, /* PR_SET_PDEATHSIG */
	PGT_CAUSE_CHILD,	/* SIGCHLD */
	PGT_CAUSE_KERNEL,	/* anything else */
	PGT_CAUSE_CGROUP_KILL,	/* a write to cgroup.kill: SIGKILL, SI_USER, outside kill(2) */
	PGT_CAUSE_BROKEN_PIPE,	/* SIGPIPE: a write to a pipe or socket with no reader */
	PGT_CAUSE_FAULT,	/* the process's own fault, or a seccomp kill (si_code > 0) */
	PGT_CAUSE_RLIMIT,	/* SIGXCPU, SIGXFSZ */
	PGT_CAUSE_OOM,		/* the OOM killer's SIGKILL (exit records only: mark_victim) */
};

/* How a controlling tty was gained or lost (pgt_tty.how). */
enum pgt_tty_how {
	PGT_TTY_OPEN = 1, /* implicit, on open() by a session leader */
	PGT_TTY_TIOCSCTTY,
	PGT_TTY_TIOCNOTTY,
	PGT_TTY_SETSID,
	PGT_TTY_LEADER_EXIT,
	PGT_TTY_HANGUP,
	PGT_TTY_STOLEN, /* another session took it with TIOCSCTTY(1) */
};

/* Why an orphan got its new parent: find_new_reaper()'s cases. */
enum pgt_reparent_reason {
	PGT_REAPER_THREAD = 1, /* another live thread of the same process */
	PGT_REAPER_SUBREAPER,  /* nearest PR_SET_CHILD_SUBREAPER ancestor */
	PGT_REAPER_NS_INIT,    /* the pid namespace's init */
};

/*
 * pgt_reparent.reason: the orphan is already dying (exiting, a fatal signal
 * taking it, SIGKILL pending), so it escapes nothing.
 */
#define PGT_REPARENT_DYING   (1U << 31)
#define PGT_REPARENT_REASONS 0xff

/* Indices of the global counters in the "stats" map, besides drops. */
enum pgt_stat {
	PGT_STAT_THREADS = 0, /* threads created (counted, not reported) */
	PGT_STAT_FORK_UNSEEN, /* classic tracepoint level: a fork whose child was not found */
	PGT_STAT_NO_STATE,    /* a syscall's per-thread state could not be stored */
	PGT_STAT_ORPHANS_CUT, /* an exit with more children than reported */
	PGT_STAT_MAX,
};

/* proc.flags */
#define PGT_F_SESSION_LEADER (1U << 0) /* signal->leader */
#define PGT_F_IS_SUBREAPER   (1U << 1) /* signal->is_child_subreaper */
/* (1U << 2) and (1U << 5) are no longer set; older recordings may carry them. */
#define PGT_F_GROUP_LEADER   (1U << 3) /* pid == pgid */
#define PGT_F_HAS_TTY	     (1U << 4) /* signal->tty != NULL */
#define PGT_F_ZOMBIE	     (1U << 6) /* exit_state set (snapshot) */
#define PGT_F_KTHREAD	     (1U << 7) /* PF_KTHREAD */
/* fork's child: born in cgroups other than its forker's (clone3's CLONE_INTO_CGROUP) */
#define PGT_F_OWN_CGROUP     (1U << 8)

#define PGT_ID_UNSET 0xffffffffU /* loginuid/sessionid when unset */

/* Common header, first in every record. */
struct pgt_hdr {
	__u64 ts_ns; /* bpf_ktime_get_boot_ns() after reserve */
	__u64 seq;   /* global sequence number, gaps mean loss */
	__u16 type;  /* enum pgt_type */
	__u16 size;  /* size of the whole record in bytes */
	__u32 cpu;   /* CPU that produced the record */
};
_Static_assert(sizeof(struct pgt_hdr) == 24, "pgt_hdr size");

/* Who a process is and where it stands, read from its task_struct. */
struct pgt_proc {
	__u64 start_ns;		 /* task->start_boottime: identity with tgid */
	__u64 pidns_ino;	 /* inode number of the task's pid namespace */
	__u32 pid;		 /* tgid, init-namespace number */
	__u32 tid;		 /* thread id, init-namespace number */
	__u32 ppid;		 /* real_parent->tgid */
	__u32 pgid;		 /* signal->pids[PIDTYPE_PGID] */
	__u32 sid;		 /* signal->pids[PIDTYPE_SID] */
	__u32 uid;		 /* real uid */
	__u32 auid;		 /* audit loginuid, PGT_ID_UNSET when unset */
	__u32 ses;		 /* audit session id, PGT_ID_UNSET when unset */
	__u32 ns_pid;		 /* tgid as seen in its own pid namespace */
	__u32 tty_nr;		 /* ctty as in /proc/PID/stat field 7, 0 if none */
	__u32 flags;		 /* PGT_F_* */
	__u32 tty_fg_pgid;	 /* foreground group of the ctty, 0 if none */
	char tty[PGT_TTY_LEN];	 /* tty->name, e.g. "pts3" */
	char comm[PGT_COMM_LEN]; /* task->comm, untrusted bytes */
};
_Static_assert(sizeof(struct pgt_proc) == 96, "pgt_proc size");

struct pgt_fork {
	struct pgt_hdr hdr;
	struct pgt_proc proc;  /* the forking process */
	struct pgt_proc child; /* the new process */
};
_Static_assert(sizeof(struct pgt_fork) == 24 + 96 * 2, "pgt_fork size");
/* Recordings before December 2026 carry 8 more bytes (clone flags, never set). */
#define PGT_FORK_OLD_SIZE (sizeof(struct pgt_fork) + 8)

#define PGT_EXEC_FILENAME_CUT 0x1 /* filename longer than PGT_PATH_LEN - 1: cut */
#define PGT_EXEC_HAS_ARGS     0x2 /* args read (not in recordings before args) */
#define PGT_EXEC_ARGS_CUT     0x4 /* the argument vector is longer than PGT_ARGS_MAX */
#define PGT_EXEC_HAS_CWD      0x8
#define PGT_EXEC_CWD_CUT      0x10 /* deeper or longer than the walk goes: leaf part only */
#define PGT_EXEC_HAS_EXE      0x20
#define PGT_EXEC_EXE_CUT      0x40
#define PGT_EXEC_CWD_DELETED  0x80  /* the directory was removed: /proc adds " (deleted)" */
#define PGT_EXEC_EXE_DELETED  0x100 /* the file was unlinked before the exec */
#define PGT_EXEC_EXE_ANON     0x200 /* a file with no directory (memfd_create()): its name only */

#define PGT_ARGS_MAX	  4096 /* bytes of the argument vector kept */
#define PGT_EXEC_PATH_MAX 1024 /* bytes of each of cwd and executable */
#define PGT_EXEC_DATA_MAX (PGT_ARGS_MAX + 2 * PGT_EXEC_PATH_MAX)

/*
 * An exec record carries only the part of data[] that it uses: args_len
 * bytes of the argument vector (NUL-separated, as /proc/PID/cmdline), then
 * cwd_len bytes of the working directory and exe_len bytes of the
 * executable's path, each as its names from the leaf up, every name
 * NUL-terminated (the BPF side walks dentries upwards; user space joins them
 * in reverse). Recordings made before these fields have records of
 * PGT_EXEC_V1_SIZE bytes, ending at filename.
 */
struct pgt_exec {
	struct pgt_hdr hdr;
	struct pgt_proc proc;	     /* after exec */
	__u32 old_tid;		     /* tid that called exec (differs: non-leader) */
	__u32 flags;		     /* PGT_EXEC_* */
	char filename[PGT_PATH_LEN]; /* bprm->filename */
	__u16 args_len;
	__u16 cwd_len;
	__u16 exe_len;
	__u16 __pad;
	char data[PGT_EXEC_DATA_MAX];
};
_Static_assert(sizeof(struct pgt_exec) == 24 + 96 + 8 + 256 + 8 + 4096 + 2048, "pgt_exec size");

#define PGT_EXEC_V1_SIZE   (24 + 96 + 8 + 256)
#define PGT_EXEC_SIZE(len) (__builtin_offsetof(struct pgt_exec, data) + (len))

#define PGT_DEATH_MEMCG	   (1U << 0) /* oom: a memory cgroup at its limit, memcg_level deep */
#define PGT_DEATH_MEMCG_V2 (1U << 1) /* ... in the unified hierarchy (else a v1 one) */

/*
 * The fatal signal a process died of, as the kernel generated it: the first
 * of that signal delivered to the process at its default action, kept until
 * its exit (the deaths map). group_id 0: none seen.
 */
struct pgt_death {
	__u64 group_id;	    /* the signal record's group_id */
	__u64 sender_start; /* the process current at generation: its identity */
	__u32 sender_pid;   /* its tgid (the writer of cgroup.kill, the OOM's allocator, ...) */
	__u32 sig;
	__u32 cause; /* enum pgt_sig_cause */
	__s32 code;  /* si_code */
	__u32 flags; /* PGT_DEATH_* */
	__u32 memcg_level;
	__u32 tty_nr; /* the tty, for tty causes */
	__u32 __pad;
	char tty[PGT_TTY_LEN];
};
_Static_assert(sizeof(struct pgt_death) == 64, "pgt_death size");

struct pgt_exit {
	struct pgt_hdr hdr;
	struct pgt_proc proc; /* the last thread of the process */
	__u32 status;	      /* raw wait status as wait(2) will report it */
	__u32 __pad;
	struct pgt_death death; /* signaled: what generated the signal */
};
_Static_assert(sizeof(struct pgt_exit) == 24 + 96 + 8 + 64, "pgt_exit size");
/* Recordings before December 2026 end at __pad. */
#define PGT_EXIT_V1_SIZE (24 + 96 + 8)

/* What a setsid or setpgid changed: pgid, sid and ctty before or after. */
struct pgt_grp {
	__u32 pgid;
	__u32 sid;
	__u32 tty_nr;
	__u32 __pad;
	char tty[PGT_TTY_LEN];
};
_Static_assert(sizeof(struct pgt_grp) == 32, "pgt_grp size");

struct pgt_setsid {
	struct pgt_hdr hdr;
	struct pgt_proc proc; /* the caller, after the call */
	struct pgt_grp old;   /* the caller before the call */
	__s32 ret;	      /* new sid, or -errno */
	__u32 __pad;
};
_Static_assert(sizeof(struct pgt_setsid) == 24 + 96 + 32 + 8, "pgt_setsid size");

struct pgt_setpgid {
	struct pgt_hdr hdr;
	struct pgt_proc proc;	/* the caller */
	struct pgt_proc target; /* the process whose group was set, after */
	struct pgt_grp old;	/* the target before the call */
	__s32 ret;		/* 0 or -errno */
	__s32 arg_pid;		/* setpgid() arguments, caller's namespace */
	__s32 arg_pgid;
	__u32 target_found; /* 1 if target was resolved */
};
_Static_assert(sizeof(struct pgt_setpgid) == 24 + 96 * 2 + 32 + 16, "pgt_setpgid size");

struct pgt_subreaper {
	struct pgt_hdr hdr;
	struct pgt_proc proc; /* the caller, after the call */
	__s32 ret;	      /* 0 or -errno */
	__u32 enabled;	      /* the prctl argument, as a boolean */
};
_Static_assert(sizeof(struct pgt_subreaper) == 24 + 96 + 8, "pgt_subreaper size");

/*
 * One orphan of an exiting thread, and the parent the kernel will give it,
 * computed the way find_new_reaper() does, just before exit_notify() runs.
 */
struct pgt_reparent {
	struct pgt_hdr hdr;
	struct pgt_proc proc;  /* the exiting thread's process */
	__u64 child_start_ns;  /* the orphan's identity */
	__u64 reaper_start_ns; /* the new parent's identity */
	__u32 child_pid;
	__u32 reaper_pid; /* tgid of the new parent */
	__u32 reaper_tid; /* the thread it is attached to */
	__u32 reason;	  /* enum pgt_reparent_reason, | PGT_REPARENT_DYING */
	char child_comm[PGT_COMM_LEN];
	char reaper_comm[PGT_COMM_LEN];
};
_Static_assert(sizeof(struct pgt_reparent) == 24 + 96 + 32 + 32, "pgt_reparent size");

struct pgt_reap {
	struct pgt_hdr hdr;
	__u64 start_ns; /* identity of the freed process */
	__u32 pid;
	__u32 __pad;
};
_Static_assert(sizeof(struct pgt_reap) == 24 + 16, "pgt_reap size");

struct pgt_snap {
	struct pgt_hdr hdr; /* seq 0; ts_ns when this task was read */
	struct pgt_proc proc;
	__u32 __pad[2];
};
_Static_assert(sizeof(struct pgt_snap) == 24 + 96 + 8, "pgt_snap size");

#define PGT_SIG_RCPTS 16	/* recipients per signal record */
#define PGT_SIG_FINAL (1U << 0) /* the cause is complete */
#define PGT_SIG_FATAL (1U << 1) /* a recipient dies of it by default */

/*
 * One signal from one cause and the processes it reached. A cause with more
 * recipients continues in further records with the same group_id; the last
 * carries PGT_SIG_FINAL when the kernel knows the cause ended: a syscall's
 * exit, or the last of a counted loop over a process group (@expect).
 */
struct pgt_signal {
	struct pgt_hdr hdr;
	struct pgt_proc proc; /* the sender: current at generation */
	__u64 group_id;	      /* same for all records of one cause */
	__u32 sig;
	__u32 scope;  /* enum pgt_sig_scope */
	__u32 cause;  /* enum pgt_sig_cause */
	__s32 target; /* pid, pgid or sid by scope (global); -1 for all */
	__u32 nr;     /* recipients in this record */
	__u32 flags;  /* PGT_SIG_* */
	__s32 ret;    /* the syscall's return, 0 outside one */
	__s32 code;   /* si_code (SI_USER 0, SI_KERNEL 0x80, ...) */
	__u32 tty_nr; /* the tty, for tty causes, 0 if unknown */
	__u32 expect; /* outside a syscall: recipients the cause reaches, 0 if unknown */
	char tty[PGT_TTY_LEN];
	struct {
		__u32 pid; /* tgid */
		__u32 tid;
		__s32 result; /* TRACE_SIGNAL_*: 0 delivered, 1 ignored, 2 pending, ... */
		__u32 pgid;
	} rcpt[PGT_SIG_RCPTS];
};
_Static_assert(sizeof(struct pgt_signal) == 24 + 96 + 8 + 40 + 16 + 16 * 16, "pgt_signal size");

/* A signal record carries only the recipient slots it uses: @n of them. */
#define PGT_SIGNAL_SIZE(n) (__builtin_offsetof(struct pgt_signal, rcpt) + (n)*16)

struct pgt_tty {
	struct pgt_hdr hdr;
	struct pgt_proc proc; /* the process that acted (or exited) */
	__u32 how;	      /* enum pgt_tty_how */
	__u32 acquire;	      /* 1 gained, 0 lost */
	__u32 tty_nr;
	__u32 sid;	    /* the session that gained or lost it */
	__u32 session_wide; /* every member of sid lost it at once */
	__u32 __pad0;	    /* never set (was victim_sid): recordings keep the layout */
	__u32 fg_pgid;	    /* the tty's foreground group afterwards */
	__u32 __pad;
	char tty[PGT_TTY_LEN];
};
_Static_assert(sizeof(struct pgt_tty) == 24 + 96 + 32 + 16, "pgt_tty size");

struct pgt_foreground {
	struct pgt_hdr hdr;
	struct pgt_proc proc; /* the caller of TIOCSPGRP */
	__u32 tty_nr;
	__u32 sid;
	__u32 old_pgid;
	__u32 new_pgid;
	__s32 ret; /* 0 or -errno */
	__u32 __pad;
	char tty[PGT_TTY_LEN];
};
_Static_assert(sizeof(struct pgt_foreground) == 24 + 96 + 24 + 16, "pgt_foreground size");

#define PGT_CGROUP_PATH_LEN 128

struct pgt_cgroup {
	struct pgt_hdr hdr;
	struct pgt_proc proc; /* the process that was moved */
	__u64 cgroup_id;      /* kernfs id of the destination */
	__u32 hierarchy_id;   /* 0 is the unified (v2) hierarchy */
	__u32 __pad;
	char path[PGT_CGROUP_PATH_LEN]; /* destination, within its hierarchy */
};
_Static_assert(sizeof(struct pgt_cgroup) == 24 + 96 + 16 + 128, "pgt_cgroup size");

#endif /* __PGRPTRACE_H */
