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

/*
 * -p PID: refused for a process that does not exist or a thread; with
 * @filtering, PID and its descendants now go into the BPF side's filter
 * (their children follow by themselves). Returns 0, or -1 said on stderr.
 */
int snapshot__seed_filter(struct loader *l, pid_t root, bool filtering);

#endif /* __SNAPSHOT_H */
