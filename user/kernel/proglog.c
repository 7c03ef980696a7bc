// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdint.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>
#include "proglog.h"

/*
 * Each program's verifier log goes to a buffer of its own, so that a refused
 * program is known by its own load result, not by libbpf's messages: a load
 * runs without a log, and libbpf repeats a failed one with the log on, into
 * that program's buffer. The size is libbpf's own (BPF_LOG_BUF_SIZE), so that
 * a long log is not cut short into ENOSPC; mapped without reserve, only the
 * pages a log fills cost memory.
 */
#define PROG_LOG_SIZE (UINT32_MAX >> 8)

void proglog__set(struct prog_logs *pl, struct bpf_object *obj)
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
struct bpf_program *proglog__failed(const struct prog_logs *pl, struct bpf_object *obj,
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

void proglog__free(struct prog_logs *pl, struct bpf_object *obj)
{
	struct bpf_program *prog;

	if (!pl->base)
		return;
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_log_buf(prog, NULL, 0);
	munmap(pl->base, pl->len);
	pl->base = NULL;
}
