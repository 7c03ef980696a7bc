/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests: synthetic process contexts, as the BPF side fills them. */
#ifndef __TEST_RECORDS_H
#define __TEST_RECORDS_H

#include <string.h>
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

#endif /* __TEST_RECORDS_H */
