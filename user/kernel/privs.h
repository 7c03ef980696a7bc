/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --user USER: once the programs are attached and every descriptor it needs
 * is open, pgrptrace becomes USER with no capability left, as tcpdump -Z.
 */
#ifndef __PRIVS_H
#define __PRIVS_H

#include <stdbool.h>
#include <sys/types.h>

struct privs_user {
	char *name; /* malloc'd */
	uid_t uid;
	gid_t gid;
};

/*
 * @spec (a user name, or a numeric uid with a passwd entry) into @u.
 * Returns 0, or -1 with a message in @err.
 */
int privs__lookup(const char *spec, struct privs_user *u, char *err, size_t len);

/*
 * Become @u: its groups, gid and uid, the capability bounding set emptied
 * and no_new_privs set. Returns 0, or -errno with nothing half done that
 * matters (the caller exits).
 */
int privs__drop(const struct privs_user *u);

/*
 * --user: become @u, then check as @u what needs privileges later:
 * @still_allowed(@ctx) (0 or -errno: the maps' bpf() calls), creating files
 * in -o @output's directory (logrotate), so that it is refused before
 * tracing starts. Returns 0, or -1 said on stderr.
 */
int privs__become(const struct privs_user *u, int (*still_allowed)(const void *ctx),
		  const void *ctx, const char *output, bool verbose);

#endif /* __PRIVS_H */
