/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --explain PID|ENTITY_ID: one process's story, told from the records as
 * they are written (a message sink: each record typed, its seq and its
 * exit's cause set): what it ran, its login and lineage, how it left its
 * groups, how it died and by whom, and the sender's own login and lineage.
 */
#ifndef __EXPLAIN_H
#define __EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>
#include "model.h"
#include "sink.h"

struct explain;

/* @target: a pid, or a 16-hex-digit entity id; NULL when it is neither. */
struct explain *explain__new(const char *target);
void explain__free(struct explain *e);
/* Whether @target is a pid or an entity id (for the option's check). */
bool explain__valid(const char *target);
/*
 * Live: the process as it runs now, in @m. Returns 0, or -ESRCH when no
 * process of @m is the target (it ended before: explain it from a
 * recording).
 */
int explain__bind(struct explain *e, const struct model *m);
/* Its exit was written: the story is complete. */
bool explain__done(const struct explain *e);
/* The story, as text or as one JSON object, to @f. Returns 0, or -errno. */
int explain__write(const struct explain *e, FILE *f, bool json);

extern const struct sink_ops explain_sink;

#endif /* __EXPLAIN_H */
