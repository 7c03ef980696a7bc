/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests: synthetic records fed to a model. Include cmocka.h first. */
#ifndef __TEST_FEED_H
#define __TEST_FEED_H

#include "model.h"
#include "records.h"

/* The time and sequence number of the next record. */
static __u64 feed_now = 1000;

static inline void apply(struct model *m, void *rec, __u16 type, size_t size)
{
	struct pgt_event ev;

	as_event(rec, type, size, feed_now++, &ev);
	model__apply(m, &ev);
}

static inline void snap(struct model *m, struct pgt_proc p)
{
	struct pgt_snap r = { .proc = p };

	apply(m, &r, PGT_SNAP, sizeof(r));
}

static inline void fork_(struct model *m, struct pgt_proc parent, struct pgt_proc child)
{
	struct pgt_fork r = { .proc = parent, .child = child };

	apply(m, &r, PGT_FORK, sizeof(r));
}

#endif /* __TEST_FEED_H */
