/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --journal: each record as one journal entry, through libsystemd's
 * sd_journal_sendv(): MESSAGE is its text line, every field of the JSON
 * record a PGRPTRACE_* field, and PGRPTRACE_JSON the record itself.
 */
#ifndef __JOURNAL_H
#define __JOURNAL_H

#include "sink.h"

struct journal;

extern const struct sink_ops journal_sink;

/* Returns NULL and says why when no journal listens here. */
struct journal *journal__open(void);
/* Entries that could not be sent, and the first error. */
unsigned long long journal__failed(const struct journal *j, int *first_err);

#endif /* __JOURNAL_H */
