// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What this kernel offers, found by probes, never by version: each missing
 * feature has a fallback (bpf/), each level what it needs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kbtf.h"
#include "probes.h"
#include "msg.h"

/* CAP_BPF and CAP_PERFMON (5.8+), or CAP_SYS_ADMIN, in the effective set. */
bool probes__caps(void)
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
 * The kernel functions the probes and the fentry level ask about, found in
 * one scan of the kernel's BTF (kbtf.c), not a parse of it: libbpf's load
 * parses it anyway, and a second parse cost 46-50 ms of a start.
 */
enum kfunc {
	KF_DISASSOCIATE_CTTY,
	KF_TASK_FROM_PID,
	KF_MEM_ALLOC,
	KF_FIXED,
};

static struct kbtf_query kfuncs[KF_FIXED] = {
	[KF_DISASSOCIATE_CTTY] = { .name = "disassociate_ctty", .kind = BTF_KIND_FUNC },
	[KF_TASK_FROM_PID] = { .name = "bpf_task_from_pid", .kind = BTF_KIND_FUNC },
	[KF_MEM_ALLOC] = { .name = "bpf_mem_alloc_init", .kind = BTF_KIND_FUNC },
};
static int kfuncs_err;
static bool kfuncs_found;

int probes__kernel_func(const char *name)
{
	int i;

	if (!kfuncs_found) {
		kfuncs_found = true;
		kfuncs_err = kbtf__find(KBTF_VMLINUX, kfuncs, KF_FIXED);
		if (kfuncs_err)
			p_err("cannot read the kernel's BTF (%s): %s", KBTF_VMLINUX,
			      strerror(-kfuncs_err));
	}
	if (kfuncs_err)
		return kfuncs_err;
	for (i = 0; i < KF_FIXED; i++)
		if (!strcmp(kfuncs[i].name, name))
			return kfuncs[i].id;
	return -EINVAL;
}

/* What this kernel offers, probed once. */
static struct features kfeat;
static bool probed;

/* Whether an atomic fetch-and-add (BPF_ATOMIC | BPF_FETCH) passes the verifier. */
static bool probe_atomic_fetch(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1,
		  .off = -8,
		  .imm = BPF_ADD | BPF_FETCH },
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

/*
 * Whether a tracing program may use a hash allocated as it fills: BPF's
 * allocator (bpf_mem_alloc_init(), 6.1) in the kernel's BTF, and then a
 * tracepoint program that looks one up loads. Before 6.1 such a load passes
 * with a kernel warning, so it is tried only where the allocator is.
 */
static bool probe_mem_alloc(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
	int map, fd;

	if (probes__kernel_func("bpf_mem_alloc_init") <= 0)
		return false;
	map = bpf_map_create(BPF_MAP_TYPE_HASH, "pgt_alloc_probe", 4, 4, 1, &mo);
	if (map < 0)
		return false;
	{
		const struct bpf_insn insns[] = {
			{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4 },
			{ .code = BPF_ALU64 | BPF_MOV | BPF_X,
			  .dst_reg = BPF_REG_2,
			  .src_reg = BPF_REG_10 },
			{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4 },
			{ .code = BPF_LD | BPF_DW | BPF_IMM,
			  .dst_reg = BPF_REG_1,
			  .src_reg = BPF_PSEUDO_MAP_FD,
			  .imm = map },
			{},
			{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
			{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
			{ .code = BPF_JMP | BPF_EXIT },
		};

		fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "pgt_alloc_probe", "GPL", insns,
				   sizeof(insns) / sizeof(insns[0]), NULL);
	}
	close(map);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

const struct features *probes__features(bool verbose)
{
	const char *off;

	if (probed)
		return &kfeat;
	probed = true;
	kfeat.task_from_pid = probes__kernel_func("bpf_task_from_pid") > 0;
	kfeat.loop = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_loop, NULL) > 0;
	kfeat.snprintf = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_snprintf, NULL) > 0;
	kfeat.task_storage = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) > 0;
	kfeat.atomic_fetch = probe_atomic_fetch();
	kfeat.mem_alloc = probe_mem_alloc();
	/*
	 * Testing aid: PGRPTRACE_TEST_NO_FEATURES=loop,snprintf,task_storage,
	 * atomic_fetch,mem_alloc (or all) takes the fallbacks of an older kernel on this one.
	 */
	if ((off = getenv("PGRPTRACE_TEST_NO_FEATURES"))) {
		bool all = !strcmp(off, "all");

		kfeat.loop &= !all && !strstr(off, "loop");
		kfeat.snprintf &= !all && !strstr(off, "snprintf");
		kfeat.task_storage &= !all && !strstr(off, "task_storage");
		kfeat.atomic_fetch &= !all && !strstr(off, "atomic_fetch");
		kfeat.mem_alloc &= !all && !strstr(off, "mem_alloc");
	}
	if (verbose)
		p_err("kernel offers: bpf_task_from_pid %s, bpf_loop %s, "
		      "bpf_snprintf %s, task storage %s, atomic fetch %s, BPF allocator %s",
		      kfeat.task_from_pid ? "yes" : "no", kfeat.loop ? "yes" : "no",
		      kfeat.snprintf ? "yes" : "no", kfeat.task_storage ? "yes" : "no",
		      kfeat.atomic_fetch ? "yes" : "no", kfeat.mem_alloc ? "yes" : "no");
	return &kfeat;
}

/* What @level needs that this kernel lacks, in @why; 0 if nothing. */
int probes__level_missing(enum hook_level level, char *why, size_t len)
{
	if (level == HOOK_TRACEPOINT && !probes__features(false)->task_from_pid) {
		snprintf(why, len,
			 "needs kfunc bpf_task_from_pid (Linux 6.2), which this "
			 "kernel lacks");
		return -1;
	}
	return 0;
}

/*
 * Whether fentry programs load and attach here: a two-instruction fentry
 * program on disassociate_ctty, loaded with bpf(2) itself. Through the
 * skeleton, a kernel that refuses trampolines (as many do at load) would
 * cost an ELF parse and a relocation pass on top of the parse of vmlinux
 * BTF that finds the function (10 ms of the 30); what the real program
 * needs beyond this is checked by its own load, which falls back to tp_btf.
 */
int probes__fentry(char *why, size_t len)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_FENTRY);
	const char *step = "cannot load";
	int id, fd, link, err = 0;

	id = probes__kernel_func("disassociate_ctty");
	if (id == -ENOENT) {
		snprintf(why, len, "fentry/disassociate_ctty: not in the kernel's BTF");
		return -1;
	}
	if (id < 0) {
		snprintf(why, len, "cannot read kernel BTF: %s", strerror(-id));
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
