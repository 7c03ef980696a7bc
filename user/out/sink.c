// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "sbuf.h"
#include "sink.h"

int sink__severity(const char *event)
{
	const struct record_kind_info *k =
		event ? record__kind_by_name(event, strlen(event), NULL) : NULL;

	return k ? k->severity : 6;
}

void sink__line(struct sbuf *sb, const struct sink_msg *m, record_fmt fmt, bool text)
{
	sbuf__reset(sb);
	fmt(sb, text ? m->tfc : m->fc, m->rec);
	/* Without its newline: a message is one record. */
	if (sb->len && sb->buf[sb->len - 1] == '\n')
		sb->buf[--sb->len] = '\0';
}
