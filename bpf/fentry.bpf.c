// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The fentry level: where BPF trampolines load, kernel functions that the
 * tracepoints can only predict are hooked directly. At the tp_btf level and
 * below, sched_process_exit reports that an exiting session leader's tty
 * goes away (disassociate_ctty(1) runs after the tracepoint); here the call
 * itself reports it. The loader enables this program only at the fentry
 * level, with leader_tty_at_fentry set so the prediction is not made too.
 */
#include "common.bpf.h"

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
