/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A checkpoint: the whole model at one moment, as bytes that give it back.
 * --record writes one after the snapshot, every --checkpoint-every bytes of
 * records and at the end, so that --replay --at and --diff start from the
 * last one before their first moment instead of from the file's start.
 *
 * The bytes are this program's own (a version, then tables of images,
 * lineage links, cgroups, processes, sessions and ttys, each entry of a
 * table naming entries of earlier tables by index); they are read back only
 * by a pgrptrace that knows their version, and checked entry by entry.
 */
#ifndef __CHECKPOINT_H
#define __CHECKPOINT_H

#include <stddef.h>
#include <linux/types.h>
#include "model.h"
#include "sbuf.h"

/* @m as bytes, appended to @out. Returns 0, or -ENOMEM. */
int checkpoint__dump(const struct model *m, struct sbuf *out);
/*
 * The model of @len bytes at @data into @m, which must be empty. Returns 0,
 * or -EINVAL for bytes that are not a checkpoint this program reads (@m
 * then holds what was read before the fault: clear it), -ENOMEM.
 */
int checkpoint__load(struct model *m, const void *data, size_t len);

#endif /* __CHECKPOINT_H */
