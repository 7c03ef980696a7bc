/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Seed the model with what is already running. */
#ifndef __SNAPSHOT_H
#define __SNAPSHOT_H

#include "loader.h"
#include "model.h"

/*
 * The programs must be attached, and their events queued, before this runs:
 * events newer than a process's snapshot record then apply on top of it.
 * Uses iter/task, or /proc where the iterator did not load (said once on
 * stderr). Returns the number of processes, or -errno.
 */
int snapshot__take(struct loader *l, struct model *m);

#endif /* __SNAPSHOT_H */
