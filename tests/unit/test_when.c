// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --at's TIME (issue 35): RFC 3339, a time of day on the recording's day, an offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "when.h"

#define NS	  1000000000ULL
/* A recording whose first record is 100 s after boot, at 2026-12-07T03:00:00Z. */
#define FIRST	  (100 * NS)
#define BOOT_REAL ((__s64)1796612400 * (__s64)NS - (__s64)FIRST)

static __u64 parse(const char *s)
{
	const char *why;
	__u64 ns = 0;

	assert_int_equal(when__parse(s, FIRST, BOOT_REAL, true, &ns, &why), 0);
	return ns;
}

static void test_forms(void **state)
{
	const char *why;
	__u64 ns;

	assert_int_equal(parse("+0s"), FIRST);
	assert_int_equal(parse("+90s"), FIRST + 90 * NS);
	assert_int_equal(parse("+250ms"), FIRST + 250000000ULL);
	assert_int_equal(parse("+1.5m"), FIRST + 90 * NS);
	assert_int_equal(parse("+2h"), FIRST + 7200 * NS);
	assert_int_equal(parse("2026-12-07T03:12:00Z"), FIRST + 720 * NS);
	assert_int_equal(parse("2026-12-07T03:12:00.250Z"), FIRST + 720 * NS + 250000000ULL);
	assert_int_equal(parse("2026-12-07T04:12:00+01:00"), FIRST + 720 * NS);
	assert_int_equal(parse("2026-12-07T02:42:00-0030"), FIRST + 720 * NS);
	/* A time of day: the recording's day (UTC here, as with --utc). */
	assert_int_equal(parse("03:12"), FIRST + 720 * NS);
	assert_int_equal(parse("03:12:05.5"), FIRST + 725 * NS + 500000000ULL);
	assert_int_equal(when__parse("yesterday", FIRST, BOOT_REAL, true, &ns, &why), -1);
	assert_int_equal(when__parse("+5x", FIRST, BOOT_REAL, true, &ns, &why), -1);
	assert_int_equal(when__parse("03:12junk", FIRST, BOOT_REAL, true, &ns, &why), -1);
	assert_int_equal(when__parse("2026-12-07T03:12:00", FIRST, BOOT_REAL, true, &ns, &why), -1);
	/* Before the machine booted. */
	assert_int_equal(when__parse("2020-01-01T00:00:00Z", FIRST, BOOT_REAL, true, &ns, &why),
			 -1);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_forms) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
