/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests: synthetic process contexts, as the BPF side fills them. */
#ifndef __TEST_RECORDS_H
#define __TEST_RECORDS_H

#include <string.h>
#include "decode.h"
#include "pgrptrace.h"

static inline struct pgt_proc ctx(__u32 pid, __u32 ppid, __u32 pgid, __u32 sid, __u64 start,
				  const char *comm)
{
	struct pgt_proc p = {};

	p.pid = p.tid = pid;
	p.ppid = ppid;
	p.pgid = pgid;
	p.sid = sid;
	p.start_ns = start;
	p.auid = p.ses = PGT_ID_UNSET;
	if (pid == sid)
		p.flags |= PGT_F_SESSION_LEADER;
	strncpy(p.comm, comm, sizeof(p.comm) - 1);
	return p;
}

/*
 * @rec as the BPF side sends it: its header stamped (type, size, and @ts as
 * both time and sequence number), then decoded into @ev. Include cmocka.h
 * first.
 */
static inline void as_event(void *rec, __u16 type, size_t size, __u64 ts, struct pgt_event *ev)
{
	struct pgt_hdr *h = rec;

	h->type = type;
	h->size = (__u16)size;
	h->seq = ts;
	h->ts_ns = ts;
	assert_int_equal(decode__record(rec, size, ev), 0);
}

#endif /* __TEST_RECORDS_H */
