// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The fentry level: where BPF trampolines load, kernel functions are hooked
 * directly. The loader enables these programs only at the fentry level.
 *
 * - disassociate_ctty(1): at the tp_btf level and below, sched_process_exit
 *   reports that an exiting session leader's tty goes away (the call runs
 *   after the tracepoint); here the call itself reports it, with
 *   leader_tty_at_fentry set so the prediction is not made too.
 * - The group-changing syscalls, the tty's ioctls and opens, and the kill
 *   family, in place of their syscall tracepoints: while any syscall
 *   tracepoint is attached, every syscall of every task takes the slow path
 *   (docs/performance.md); a trampoline costs only the calls it hooks. The
 *   bodies are the tracepoints' own (syscalls.bpf.c, tty.bpf.c,
 *   signals.bpf.c). The loader keeps the tracepoints of a group whose
 *   functions this kernel's BTF lacks, and --check says so.
 *
 * The functions, and why each (../shared/docs/kernel-notes.md, section 9,
 * checked on Debian's 5.10, 6.1 and 6.12):
 * - ksys_setsid: setsid(2)'s body; the syscall wrapper is not in BTF.
 * - SYSCALL(setpgid), SYSCALL(prctl): the wrappers; __do_sys_setpgid and
 *   __do_sys_prctl are inlined and notrace, ksys_setpgid is not in BTF.
 *   The wrappers take the user's registers: the arguments are read from
 *   them as the syscall reads them.
 * - SYSCALL(kill) and the rest of the family: kill_pid_info() no longer
 *   runs for kill(2) on 6.12, and __kill_pgrp_info() only for a group.
 * - tty_ioctl: every ioctl on a tty, and only those (tiocspgrp() and
 *   tiocsctty() are not in BTF).
 * - tty_open_proc_set_tty: called by tty_open() for an open without
 *   O_NOCTTY; it gives a session leader without a tty this one.
 */
#include "common.bpf.h"

#include "sigacc.bpf.h"

#if defined(__TARGET_ARCH_x86)
#define SYSCALL(name) "__x64_sys_" #name
#elif defined(__TARGET_ARCH_arm64)
#define SYSCALL(name) "__arm64_sys_" #name
#else
#error "the syscall functions' names are not known for this architecture"
#endif

SEC("fentry/disassociate_ctty")
int BPF_PROG(disassociate_ctty, int on_exit)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct signal_struct *sig = BPF_CORE_READ(cur, signal);

	/* setsid() and TIOCNOTTY are reported by their syscall hooks. */
	if (!on_exit || !tgid_wanted(BPF_CORE_READ(cur, tgid)))
		return 0;
	if (BPF_CORE_READ(sig, leader) && BPF_CORE_READ(sig, tty))
		report_leader_tty(cur, sig);
	return 0;
}

/* ---- setsid, setpgid, prctl(PR_SET_CHILD_SUBREAPER) ---- */

SEC("fentry/ksys_setsid")
int BPF_PROG(fentry_setsid)
{
	return setsid_enter();
}

SEC("fexit/ksys_setsid")
int BPF_PROG(fexit_setsid, int ret)
{
	return setsid_exit(ret);
}

SEC("fentry/" SYSCALL(setpgid))
int BPF_PROG(fentry_setpgid, struct pt_regs *regs)
{
	return setpgid_enter((__s32)PT_REGS_PARM1_CORE_SYSCALL(regs),
			     (__s32)PT_REGS_PARM2_CORE_SYSCALL(regs), true);
}

SEC("fentry/" SYSCALL(setpgid))
int BPF_PROG(fentry_setpgid_noloop, struct pt_regs *regs)
{
	return setpgid_enter((__s32)PT_REGS_PARM1_CORE_SYSCALL(regs),
			     (__s32)PT_REGS_PARM2_CORE_SYSCALL(regs), false);
}

SEC("fexit/" SYSCALL(setpgid))
int BPF_PROG(fexit_setpgid, struct pt_regs *regs, long ret)
{
	return setpgid_exit(ret, true);
}

SEC("fexit/" SYSCALL(setpgid))
int BPF_PROG(fexit_setpgid_noloop, struct pt_regs *regs, long ret)
{
	return setpgid_exit(ret, false);
}

/* One program: the arguments are still there at the exit. */
SEC("fexit/" SYSCALL(prctl))
int BPF_PROG(fexit_prctl, struct pt_regs *regs, long ret)
{
	if (PT_REGS_PARM1_CORE_SYSCALL(regs) != PR_SET_CHILD_SUBREAPER || !tgid_wanted(cur_tgid()))
		return 0;
	report_subreaper(PT_REGS_PARM2_CORE_SYSCALL(regs) != 0, ret);
	return 0;
}

/* ---- the tty: implicit acquisition at open, and the ioctls ---- */

SEC("fentry/tty_open_proc_set_tty")
int BPF_PROG(fentry_tty_open, struct file *filp, struct tty_struct *tty)
{
	return open_enter();
}

SEC("fexit/tty_open_proc_set_tty")
int BPF_PROG(fexit_tty_open, struct file *filp, struct tty_struct *tty)
{
	return open_exit(0);
}

SEC("fentry/tty_ioctl")
int BPF_PROG(fentry_tty_ioctl, struct file *file, unsigned int cmd, unsigned long arg)
{
	return ioctl_enter(cmd, arg);
}

SEC("fexit/tty_ioctl")
int BPF_PROG(fexit_tty_ioctl, struct file *file, unsigned int cmd, unsigned long arg, long ret)
{
	return ioctl_exit(ret);
}

/* ---- the kill family ---- */

SEC("fentry/" SYSCALL(kill))
int BPF_PROG(fentry_kill, struct pt_regs *regs)
{
	return kill_enter((__s32)PT_REGS_PARM1_CORE_SYSCALL(regs),
			  (__u32)PT_REGS_PARM2_CORE_SYSCALL(regs));
}

SEC("fexit/" SYSCALL(kill))
int BPF_PROG(fexit_kill, struct pt_regs *regs, long ret)
{
	return acc_end(ret);
}

SEC("fentry/" SYSCALL(tkill))
int BPF_PROG(fentry_tkill, struct pt_regs *regs)
{
	return tkill_enter((__u32)PT_REGS_PARM2_CORE_SYSCALL(regs));
}

SEC("fexit/" SYSCALL(tkill))
int BPF_PROG(fexit_tkill, struct pt_regs *regs, long ret)
{
	return acc_end(ret);
}

SEC("fentry/" SYSCALL(tgkill))
int BPF_PROG(fentry_tgkill, struct pt_regs *regs)
{
	return tgkill_enter((__s32)PT_REGS_PARM1_CORE_SYSCALL(regs),
			    (__u32)PT_REGS_PARM3_CORE_SYSCALL(regs));
}

SEC("fexit/" SYSCALL(tgkill))
int BPF_PROG(fexit_tgkill, struct pt_regs *regs, long ret)
{
	return acc_end(ret);
}

SEC("fentry/" SYSCALL(rt_sigqueueinfo))
int BPF_PROG(fentry_rt_sigqueueinfo, struct pt_regs *regs)
{
	return sigqueueinfo_enter((__s32)PT_REGS_PARM1_CORE_SYSCALL(regs),
				  (__u32)PT_REGS_PARM2_CORE_SYSCALL(regs));
}

SEC("fexit/" SYSCALL(rt_sigqueueinfo))
int BPF_PROG(fexit_rt_sigqueueinfo, struct pt_regs *regs, long ret)
{
	return acc_end(ret);
}

SEC("fentry/" SYSCALL(pidfd_send_signal))
int BPF_PROG(fentry_pidfd_send_signal, struct pt_regs *regs)
{
	return pidfd_send_signal_enter((__u32)PT_REGS_PARM2_CORE_SYSCALL(regs));
}

SEC("fexit/" SYSCALL(pidfd_send_signal))
int BPF_PROG(fexit_pidfd_send_signal, struct pt_regs *regs, long ret)
{
	return acc_end(ret);
}
