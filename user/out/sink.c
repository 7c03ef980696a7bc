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
	size_t i, o;

	sbuf__reset(sb);
	fmt(sb, text ? m->tfc : m->fc, m->rec);
	/* Without its newline: a message is one record. */
	if (sb->len && sb->buf[sb->len - 1] == '\n')
		sb->buf[--sb->len] = '\0';
	/*
	 * A block (a logout's processes) on one line: "; " for a newline and
	 * its indent (never longer than what it replaces), " " for a bare one.
	 */
	for (i = o = 0; i < sb->len; i++) {
		if (sb->buf[i] != '\n') {
			sb->buf[o++] = sb->buf[i];
		} else if (i + 1 < sb->len && sb->buf[i + 1] == ' ') {
			while (i + 1 < sb->len && sb->buf[i + 1] == ' ')
				i++;
			sb->buf[o++] = ';';
			sb->buf[o++] = ' ';
		} else {
			sb->buf[o++] = ' ';
		}
	}
	if (sb->len)
		sb->buf[sb->len = o] = '\0';
}
