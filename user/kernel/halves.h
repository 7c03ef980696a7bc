/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One BPF object's programs verified in two halves at once: two opens of
 * the same object, each loading part of its programs, both on maps made
 * here first.
 */
#ifndef __HALVES_H
#define __HALVES_H

#include <stdbool.h>

/* The most maps an object split in halves may have. */
#define HALVES_MAX_MAPS 64

struct bpf_object;
struct bpf_program;

/*
 * Move part of @a's programs to @b, an open of the same programs built
 * without kfuncs (bpf/common.bpf.h): each program that @a would load is
 * loaded by one of them, heavier first (by instruction count) to the
 * lighter half; to @b only those it has and can load without the kernel's
 * BTF. @keep stays in @a. False, and nothing moved, when none can go.
 */
bool halves__split(struct bpf_object *a, struct bpf_object *b, const struct bpf_program *keep);
/* Give @a back what halves__split() moved to @b. */
void halves__unsplit(struct bpf_object *a, struct bpf_object *b);
/* @b's program of @a's @prog, when @b loads it; otherwise @prog. */
struct bpf_program *halves__loaded(struct bpf_object *b, struct bpf_program *prog);
/*
 * Find the targets of @obj's tracing programs in the kernel's BTF before
 * its load. It reads only those programs: another thread may meanwhile
 * halves__split() @obj's others.
 */
void halves__resolve(struct bpf_object *obj);
/*
 * Create @a's maps as libbpf's load would (global data written, .rodata
 * frozen), their fds into @fds in @a's order: how many (at most
 * HALVES_MAX_MAPS), or -errno (none made) where @b's maps differ from
 * @a's or one cannot be made here.
 */
int halves__make(struct bpf_object *a, struct bpf_object *b, int *fds);
/* Have @obj use those maps (each fd duplicated): 0 or -errno. */
int halves__take(struct bpf_object *obj, const int *fds, int n);

#endif /* __HALVES_H */
