// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the formats share: wall-clock times from the records' boot-time stamps. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "format.h"

#define YEAR_9999_END 253402300799LL /* the last second RFC 3339 can write */

void fmt__split_time(const struct fmt_ctx *fc, __u64 boot_ns, time_t *secs, long *nsec)
{
	/* Unsigned, so that a bogus stamp wraps instead of overflowing. */
	__s64 real = (__s64)(boot_ns + (__u64)fc->boot_to_real_ns);

	*secs = real / 1000000000LL;
	*nsec = real % 1000000000LL;
	if (*nsec < 0) {
		*nsec += 1000000000L;
		*secs -= 1;
	}
	if (*secs < 0 || *secs > YEAR_9999_END) {
		*secs = *secs < 0 ? 0 : YEAR_9999_END;
		*nsec = 0;
	}
}

void fmt__rfc3339(const struct fmt_ctx *fc, __u64 boot_ns, char *buf, size_t len)
{
	/*
	 * The date part of the last seconds seen, direct-mapped: records come
	 * in bursts within a second, and the start times of the processes they
	 * name are few.
	 */
	static struct {
		time_t secs;
		char date[32];
		size_t len;
	} cache[64] = { [0 ... 63] = { .secs = -1 } };
	struct tm tm;
	time_t secs;
	long nsec;
	int i, slot;

	fmt__split_time(fc, boot_ns, &secs, &nsec);
	slot = (int)(secs % 64);
	if (cache[slot].secs != secs) {
		gmtime_r(&secs, &tm);
		cache[slot].len = strftime(cache[slot].date, sizeof(cache[slot].date),
					   "%Y-%m-%dT%H:%M:%S.", &tm);
		cache[slot].secs = secs;
	}
	if (len < cache[slot].len + 11) {
		if (len)
			buf[0] = '\0';
		return;
	}
	memcpy(buf, cache[slot].date, cache[slot].len);
	buf += cache[slot].len;
	for (i = 8; i >= 0; i--) {
		buf[i] = (char)('0' + nsec % 10);
		nsec /= 10;
	}
	buf[9] = 'Z';
	buf[10] = '\0';
}

const struct login_remote *fmt__entry_remote(const struct lineage *entry)
{
	return entry ? entry->remote : NULL;
}

/* The file name of @path, after its last '/'. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * How a login came in, from its entry leader: the values of ECS's
 * process.entry_leader.entry_meta.type that can be told from the process
 * tree. A session led by init, a shell whose parent is sshd (the
 * per-session sshd, or OpenSSH 9.8's sshd-session), a pty (a terminal
 * emulator, tmux, su --pty), a virtual console or serial line; else
 * "unknown".
 */
const char *fmt__entry_type(const struct lineage *entry)
{
	const struct lineage *parent = entry->parent;
	const char *exe = parent && parent->image ? parent->image->exe : NULL;
	unsigned int major, minor;

	if (entry->pid == 1)
		return "init";
	if (exe && (!strcmp(base_name(exe), "sshd") || !strcmp(base_name(exe), "sshd-session")))
		return "sshd";
	if (!entry->tty_nr)
		return "unknown";
	/* Unix98 ptys: majors 136-143. */
	decode__tty_dev(entry->tty_nr, &major, &minor);
	if (major >= 136 && major <= 143)
		return "terminal";
	return "console";
}

int fmt__write_file(const struct sbuf *sb, FILE *f)
{
	int err = 0;

	if (sb->oom)
		err = -ENOMEM;
	else if (sb->len && fwrite(sb->buf, 1, sb->len, f) != sb->len)
		err = -errno;
	if (fflush(f) && !err)
		err = -errno;
	return err;
}
