// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests: --html's page keeps hostile names inside its data, and its data is JSON. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>
#include "page.h"
#include "records.h"
#include "feed.h"

static const char hostile[] = "</script><img src=x onerror=alert(1)>\n\xff\"'&";

/* The page of a model with a process of that name (and those arguments). */
static char *page_of(const char *login, int *err)
{
	struct model *m = model__new();
	struct page *pg = page__new(login);
	struct pgt_proc init = ctx(1, 0, 1, 1, 10, "init");
	struct pgt_proc sh = ctx(200, 1, 200, 200, 30, "sh");
	struct pgt_proc bad = ctx(300, 200, 300, 200, 40, "x");
	struct host_id host = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memcpy(bad.comm, hostile, sizeof(bad.comm));
	snap(m, init);
	snap(m, sh);
	model__snapshot_done(m);
	page__begin(pg, m, 1000);
	fork_(m, sh, bad);
	{
		struct pgt_fork r = { .proc = sh, .child = bad };
		struct pgt_event ev;

		as_event(&r, PGT_FORK, sizeof(r), 2000, &ev);
		page__observe(pg, m, &ev);
	}
	model__set_exec(model__find(m, 300), hostile, hostile, sizeof(hostile), false);
	{
		struct pgt_snap r = { .proc = bad };
		struct pgt_event ev;

		as_event(&r, PGT_SNAP, sizeof(r), 3000, &ev);
		page__observe(pg, m, &ev);
	}
	strcpy(host.name, "<b>host</b>");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	*err = page__write(pg, f, &host, 0, 0);
	fclose(f);
	page__free(pg);
	model__free(m);
	return buf;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

static void test_hostile_names_stay_data(void **state)
{
	int err;
	char *page = page_of(NULL, &err);
	const char *open = "id=\"pgt-data\">", *from, *to;
	json_error_t jerr;
	json_t *doc, *procs, *p;
	size_t i;
	bool found = false;

	assert_int_equal(err, 0);
	/* The template's two script elements end where they should, and nothing else does. */
	assert_int_equal(count(page, "</script>"), 2);
	assert_int_equal(count(page, "<img"), 0);
	from = strstr(page, open);
	assert_non_null(from);
	from += strlen(open);
	to = strstr(from, "</script>");
	assert_non_null(to);
	assert_null(memchr(from, '<', (size_t)(to - from)));
	doc = json_loadb(from, (size_t)(to - from), 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "host")), "<b>host</b>");
	procs = json_object_get(doc, "procs");
	json_array_foreach(procs, i, p) {
		if (json_integer_value(json_object_get(p, "p")) != 300)
			continue;
		found = true;
		/* As the text output writes it: the markup kept, the rest escaped, one line. */
		assert_string_equal(json_string_value(json_object_get(p, "c")), "</script><img sr");
		assert_non_null(strstr(json_string_value(json_object_get(p, "x")), "\\x0a\\xff"));
		assert_true(json_object_get(p, "b") == json_true());
	}
	assert_true(found);
	json_decref(doc);
	free(page);
}

static void test_login_of_nobody(void **state)
{
	int err;
	char *page = page_of("4194303", &err);

	assert_int_equal(err, -ESRCH);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_names_stay_data),
		cmocka_unit_test(test_login_of_nobody),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
