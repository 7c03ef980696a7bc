/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records an output could not take: its queue was full while it was away
 * (a stalled reader, a full disk, a collector gone). Counted with their seq
 * range, told to the output itself once it takes records again, and in all
 * on standard error and in the exit status. The syslog sink and the stream
 * outputs (standard output, -o FILE) keep theirs alike.
 */
#ifndef __LOSS_H
#define __LOSS_H

#include <stdbool.h>
#include <linux/types.h>

struct loss {
	unsigned long long n;		/* lost and not yet told to the output */
	unsigned long long first, last; /* their seqs, when they had one */
	unsigned long long total;	/* lost in all */
	__u64 from_ns;			/* boot time of the first untold one */
	bool said;			/* the full queue was said on stderr */
};

static inline void loss__add(struct loss *l, bool has_seq, unsigned long long seq, __u64 now_ns)
{
	if (!l->n) {
		l->first = has_seq ? seq : 0;
		l->from_ns = now_ns;
	}
	if (has_seq)
		l->last = seq;
	l->n++;
	l->total++;
}

/* The output has been told (a record of the loss is queued). */
static inline void loss__told(struct loss *l)
{
	l->n = 0;
	l->first = l->last = 0;
}

#endif /* __LOSS_H */
