// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules file: blocks of "key = value" lines, each block headed by the
 * rule's name in brackets; "#" starts a comment line.
 *
 *   [tmux-server]
 *   kind = daemonize setsid
 *   executable = /usr/bin/tmux
 *
 * Every condition of a rule must hold; the first rule that matches names
 * the escape. Anything the parser does not understand is an error that
 * names the line: a rule file that says less than its author meant would
 * hide escapes nobody expected.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expect.h"

#define EXPECT_FILE_MAX	 (1 << 20)
#define EXPECT_RULES_MAX 1024

struct parser {
	struct expect_list *l;
	const char *what;
	unsigned int line;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(p->err, p->errlen, "%s:%u: ", p->what, p->line);
	if (n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static int parse_kinds(struct parser *p, char *v, __u32 *kinds)
{
	char *save = NULL, *tok;
	int k;

	for (tok = strtok_r(v, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
		for (k = ESC_SETSID; k <= ESC_PIDNS; k++)
			if (!strcmp(tok, escape__kind_name(k)))
				break;
		if (k > ESC_PIDNS)
			return fail(p,
				    "unknown escape kind '%s' (setsid, pgrp, reparent, daemonize, "
				    "tty_drop, outlived_login, cgroup, pidns)",
				    tok);
		*kinds |= 1U << k;
	}
	if (!*kinds)
		return fail(p, "'kind' names no kind");
	return 0;
}

static int parse_uid(struct parser *p, const char *v, struct expect_rule *r)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (!isdigit((unsigned char)*v) || *end || errno || n > 4294967294ULL)
		return fail(p, "uid '%s' is not a number from 0 to 4294967294", v);
	r->has_uid = true;
	r->uid = (__u32)n;
	return 0;
}

static int set_pattern(struct parser *p, const char *key, const char *v, char **slot)
{
	if (*slot)
		return fail(p, "'%s' given twice in one rule", key);
	*slot = strdup(v);
	if (!*slot)
		return fail(p, "out of memory");
	return 0;
}

static int parse_setting(struct parser *p, char *s)
{
	struct expect_rule *r = p->l->nr ? &p->l->rules[p->l->nr - 1] : NULL;
	char *eq = strchr(s, '='), *key, *v;

	if (!eq)
		return fail(p, "expected '[name]' or 'key = value'");
	if (!r)
		return fail(p, "a setting before the first '[name]'");
	*eq = '\0';
	key = trim(s);
	v = trim(eq + 1);
	if (!*v)
		return fail(p, "'%s' has no value", key);
	if (!strcmp(key, "kind")) {
		if (r->kinds)
			return fail(p, "'kind' given twice in one rule");
		return parse_kinds(p, v, &r->kinds);
	}
	if (!strcmp(key, "uid")) {
		if (r->has_uid)
			return fail(p, "'uid' given twice in one rule");
		return parse_uid(p, v, r);
	}
	if (!strcmp(key, "comm"))
		return set_pattern(p, key, v, &r->comm);
	if (!strcmp(key, "executable"))
		return set_pattern(p, key, v, &r->executable);
	if (!strcmp(key, "parent_executable"))
		return set_pattern(p, key, v, &r->parent_executable);
	return fail(p, "unknown key '%s' (kind, comm, executable, parent_executable, uid)", key);
}

static bool has_condition(const struct expect_rule *r)
{
	return r->comm || r->executable || r->parent_executable || r->has_uid;
}

/* A rule that names only kinds would pass every escape of them: refused. */
static int check_last(struct parser *p, unsigned int header_line)
{
	const struct expect_rule *r;

	if (!p->l->nr)
		return 0;
	r = &p->l->rules[p->l->nr - 1];
	if (has_condition(r))
		return 0;
	p->line = header_line;
	return fail(p, "rule '%s' names no process (comm, executable, parent_executable or uid)",
		    r->name);
}

static int start_rule(struct parser *p, char *s)
{
	struct expect_rule *rules;
	char *end = strchr(s, ']');
	size_t i, len;

	if (!end || trim(end + 1)[0])
		return fail(p, "a rule's header is '[name]' alone on its line");
	*end = '\0';
	len = strlen(s + 1);
	if (!len || len > EXPECT_NAME_MAX)
		return fail(p, "a rule's name has 1 to %d characters", EXPECT_NAME_MAX);
	for (i = 1; i <= len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return fail(p, "a rule's name has letters, digits, '.', '_' and '-' only");
	for (i = 0; i < p->l->nr; i++)
		if (!strcmp(p->l->rules[i].name, s + 1))
			return fail(p, "rule '%s' named twice", s + 1);
	if (p->l->nr == EXPECT_RULES_MAX)
		return fail(p, "more than %d rules", EXPECT_RULES_MAX);
	rules = realloc(p->l->rules, (p->l->nr + 1) * sizeof(*rules));
	if (!rules)
		return fail(p, "out of memory");
	p->l->rules = rules;
	memset(&rules[p->l->nr], 0, sizeof(*rules));
	memcpy(rules[p->l->nr].name, s + 1, len + 1);
	p->l->nr++;
	return 0;
}

int expect__parse(struct expect_list *l, const char *text, const char *what, char *err,
		  size_t errlen)
{
	struct parser p = { .l = l, .what = what, .err = err, .errlen = errlen };
	unsigned int header = 0;
	char *copy, *line, *next, *s;
	int ret = 0;

	memset(l, 0, sizeof(*l));
	copy = strdup(text);
	if (!copy)
		return fail(&p, "out of memory");
	for (line = copy; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p.line++;
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		if (*s == '[') {
			ret = check_last(&p, header);
			if (!ret) {
				header = p.line;
				ret = start_rule(&p, s);
			}
		} else {
			ret = parse_setting(&p, s);
		}
	}
	if (!ret)
		ret = check_last(&p, header);
	free(copy);
	if (ret)
		expect__free(l);
	return ret;
}

int expect__load(struct expect_list *l, const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	FILE *f;
	int ret;

	memset(l, 0, sizeof(*l));
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	text = malloc(EXPECT_FILE_MAX + 1);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	len = fread(text, 1, EXPECT_FILE_MAX + 1, f);
	ret = ferror(f);
	fclose(f);
	if (ret || len > EXPECT_FILE_MAX || memchr(text, '\0', len)) {
		snprintf(err, errlen, "%s: %s", path,
			 ret		       ? "cannot be read" :
			 len > EXPECT_FILE_MAX ? "larger than 1 MiB" :
						 "not a text file");
		free(text);
		return -1;
	}
	text[len] = '\0';
	ret = expect__parse(l, text, path, err, errlen);
	free(text);
	return ret;
}

static bool matches(const char *pattern, const char *s, int flags)
{
	return !pattern || (s && !fnmatch(pattern, s, flags));
}

static const char *exe_of(const struct image *img)
{
	return img ? img->exe : NULL;
}

const char *expect__match(const struct expect_list *l, const struct escape *e)
{
	const struct lineage *parent = e->lineage ? e->lineage->parent : NULL;
	char comm[PGT_COMM_LEN + 1];
	size_t i;

	memcpy(comm, e->proc.comm, PGT_COMM_LEN);
	comm[PGT_COMM_LEN] = '\0';
	for (i = 0; l && i < l->nr; i++) {
		const struct expect_rule *r = &l->rules[i];

		if (r->kinds && !(r->kinds & (1U << e->kind)))
			continue;
		if (r->has_uid && e->proc.uid != r->uid)
			continue;
		if (!matches(r->comm, comm, 0) ||
		    !matches(r->executable, exe_of(e->image), FNM_PATHNAME) ||
		    !matches(r->parent_executable, parent ? exe_of(parent->image) : NULL,
			     FNM_PATHNAME))
			continue;
		return r->name;
	}
	return NULL;
}

void expect__free(struct expect_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->rules[i].comm);
		free(l->rules[i].executable);
		free(l->rules[i].parent_executable);
	}
	free(l->rules);
	memset(l, 0, sizeof(*l));
}
