/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The time of one clock, in nanoseconds. */
#ifndef __CLOCK_H
#define __CLOCK_H

#include <time.h>
#include <linux/types.h>

static inline __u64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

#endif /* __CLOCK_H */
