/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Expected escapes: an allow-list of rules, read from a file (--expected),
 * that name the escapes a machine has by design (a tmux server, sshd's
 * per-connection processes, systemd-run). docs/expected-escapes.example
 * describes the format.
 */
#ifndef __EXPECT_H
#define __EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include "escape.h"

#define EXPECT_NAME_MAX 64

struct expect_rule {
	char name[EXPECT_NAME_MAX + 1];
	__u32 kinds; /* a bit per enum escape_kind; 0: any */
	char *comm;  /* patterns (fnmatch(3)); NULL: any */
	char *executable;
	char *parent_executable;
	bool has_uid;
	__u32 uid;
};

struct expect_list {
	struct expect_rule *rules;
	size_t nr;
};

/*
 * Read the rules of @path into @l. Returns 0, or -1 with a message naming
 * the file and line in @err.
 */
int expect__load(struct expect_list *l, const char *path, char *err, size_t errlen);
/* The same from a string, @what naming it in messages. */
int expect__parse(struct expect_list *l, const char *text, const char *what, char *err,
		  size_t errlen);
/* The name of the first rule that @e matches, or NULL. */
const char *expect__match(const struct expect_list *l, const struct escape *e);
void expect__free(struct expect_list *l);

#endif /* __EXPECT_H */
