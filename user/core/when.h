/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --at TIME in a recording: RFC 3339 ("2026-12-07T03:12:00Z", an offset or
 * a fraction allowed), a time of day on the recording's first day
 * ("03:12", "03:12:05.250"), or an offset from its first record ("+90s",
 * "+1.5m", "+250ms", "+2h").
 */
#ifndef __WHEN_H
#define __WHEN_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * @s as a boot-time stamp of the recording whose first record is at
 * @first_ns, its clocks @boot_to_real_ns apart (CLOCK_REALTIME minus
 * CLOCK_BOOTTIME); a time of day is local unless @utc. Returns 0, or -1
 * with what is wrong in @why.
 */
int when__parse(const char *s, __u64 first_ns, __s64 boot_to_real_ns, bool utc, __u64 *boot_ns,
		const char **why);

#endif /* __WHEN_H */
