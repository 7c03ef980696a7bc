// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "when.h"

#define NS 1000000000LL

/* ".250" after a time: nanoseconds, and where it ends. */
static const char *fraction(const char *p, long long *ns)
{
	long long scale = NS / 10;

	*ns = 0;
	if (*p != '.')
		return p;
	for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
		*ns += (*p - '0') * scale;
	return p;
}

/* "+90s", "+1.5m", "+250ms", "+2h": nanoseconds, or -1. */
static long long offset(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	double unit;

	if (end == s || v < 0)
		return -1;
	if (!strcmp(end, "s") || !*end)
		unit = 1e9;
	else if (!strcmp(end, "ms"))
		unit = 1e6;
	else if (!strcmp(end, "m"))
		unit = 60e9;
	else if (!strcmp(end, "h"))
		unit = 3600e9;
	else
		return -1;
	return (long long)(v * unit + 0.5);
}

/* "Z", "+02:00", "-0530": seconds east of UTC, or -1 past the end. */
static int zone(const char *p, long *east)
{
	int h, m;

	if (!strcmp(p, "Z") || !strcmp(p, "z")) {
		*east = 0;
		return 0;
	}
	if ((*p != '+' && *p != '-') ||
	    (sscanf(p + 1, "%2d:%2d", &h, &m) != 2 && sscanf(p + 1, "%2d%2d", &h, &m) != 2))
		return -1;
	*east = (h * 3600L + m * 60L) * (*p == '-' ? -1 : 1);
	return 0;
}

int when__parse(const char *s, __u64 first_ns, __s64 boot_to_real_ns, bool utc, __u64 *boot_ns,
		const char **why)
{
	long long real_ns, ns;
	struct tm tm;
	const char *p;
	time_t t;
	long east;

	*why = "TIME is RFC 3339 (2026-12-07T03:12:00Z), a time of day (03:12:05) or an offset "
	       "from the recording's start (+90s)";
	if (s[0] == '+') {
		ns = offset(s + 1);
		if (ns < 0)
			return -1;
		*boot_ns = first_ns + (__u64)ns;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if (strchr(s, 'T') || strchr(s, 't')) {
		p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
		if (!p)
			p = strptime(s, "%Y-%m-%dt%H:%M:%S", &tm);
		if (!p)
			return -1;
		p = fraction(p, &ns);
		if (zone(p, &east))
			return -1;
		t = timegm(&tm) - east;
	} else {
		/* A time of day: on the day of the recording's first record. */
		time_t first = (time_t)(((__s64)first_ns + boot_to_real_ns) / NS);
		struct tm day;

		if (!(utc ? gmtime_r(&first, &day) : localtime_r(&first, &day)))
			return -1;
		p = strptime(s, "%H:%M:%S", &tm);
		if (!p) {
			p = strptime(s, "%H:%M", &tm);
			tm.tm_sec = 0;
		}
		if (!p)
			return -1;
		p = fraction(p, &ns);
		if (*p)
			return -1;
		tm.tm_year = day.tm_year;
		tm.tm_mon = day.tm_mon;
		tm.tm_mday = day.tm_mday;
		tm.tm_isdst = -1;
		t = utc ? timegm(&tm) : mktime(&tm);
	}
	real_ns = (long long)t * NS + ns;
	if (real_ns - boot_to_real_ns < 0) {
		*why = "TIME is before the machine booted";
		return -1;
	}
	*boot_ns = (__u64)(real_ns - boot_to_real_ns);
	return 0;
}
