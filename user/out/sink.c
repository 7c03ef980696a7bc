// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "sbuf.h"
#include "sink.h"

int sink__severity(const char *event)
{
	if (!event)
		return 6;
	if (!strcmp(event, "lost"))
		return 3;	/* err: what was asked for is incomplete */
	if (!strcmp(event, "escape"))
		return 4;	/* warning */
	if (!strcmp(event, "correction") || !strcmp(event, "survivor"))
		return 5;	/* notice */
	return 6;		/* info */
}

void sink__line(struct sbuf *sb, const struct sink_msg *m, record_fmt fmt, bool text)
{
	sbuf__reset(sb);
	fmt(sb, text ? m->tfc : m->fc, m->rec);
	/* Without its newline: a message is one record. */
	if (sb->len && sb->buf[sb->len - 1] == '\n')
		sb->buf[--sb->len] = '\0';
}
