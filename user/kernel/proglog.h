/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Each program's verifier log in a buffer of its own, so that the program
 * a load refused is known by its own result.
 */
#ifndef __PROGLOG_H
#define __PROGLOG_H

#include <stddef.h>

struct bpf_object;
struct bpf_program;

struct prog_logs {
	char *base; /* NULL: no buffers, the failing program unknown */
	size_t len;
};

/* A buffer for each program of @obj, before its load. */
void proglog__set(struct prog_logs *pl, struct bpf_object *obj);
/* The program whose load failed: the one with a log (in *@log); NULL if none has. */
struct bpf_program *proglog__failed(const struct prog_logs *pl, struct bpf_object *obj,
				    const char **log);
void proglog__free(struct prog_logs *pl, struct bpf_object *obj);

#endif /* __PROGLOG_H */
