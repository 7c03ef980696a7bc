// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pgrptrace's BPF programs, one translation unit. The programs live in a
 * file per topic; they are compiled together because libbpf 1.1's static
 * linker (bpftool gen object, Debian 12) cannot merge a kfunc extern that
 * two objects declare ("failed to resolve size of underlying type"), and
 * the pid-lookup kfuncs are used by three topics.
 */
#include "lifecycle.bpf.c"
#include "syscalls.bpf.c"
#include "signals.bpf.c"
#include "tty.bpf.c"
#include "cgroups.bpf.c"
#include "fentry.bpf.c"
#include "snapshot.bpf.c"

char LICENSE[] SEC("license") = "Dual BSD/GPL";
