// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include "privs.h"
#include "msg.h"

int privs__lookup(const char *spec, struct privs_user *u, char *err, size_t len)
{
	struct passwd *pw;
	char *end;
	unsigned long id;

	errno = 0;
	pw = getpwnam(spec);
	if (!pw && spec[0] >= '0' && spec[0] <= '9') {
		id = strtoul(spec, &end, 10);
		if (!*end && id < (uid_t)-1)
			pw = getpwuid((uid_t)id);
	}
	if (!pw) {
		snprintf(err, len, "no such user '%s'", spec);
		return -1;
	}
	if (pw->pw_uid == 0) {
		snprintf(err, len, "--user %s is root: nothing to drop", spec);
		return -1;
	}
	u->name = strdup(pw->pw_name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	if (!u->name) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	return 0;
}

int privs__drop(const struct privs_user *u)
{
	int cap;

	if (initgroups(u->name, u->gid) || setresgid(u->gid, u->gid, u->gid))
		return -errno;
	/*
	 * The bounding set too, where CAP_SETPCAP allows (a unit may not grant
	 * it): with no_new_privs set below, no exec could regain one anyway.
	 */
	for (cap = 0; cap <= CAP_LAST_CAP; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL) {
			if (errno == EPERM)
				break;
			return -errno;
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;
	/* From root to another uid, the kernel clears the permitted and effective sets. */
	if (setresuid(u->uid, u->uid, u->uid))
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (setuid(0) == 0)
		return -EPERM; /* still able to become root: not dropped */
	return 0;
}

int privs__become(const struct privs_user *u, int (*still_allowed)(const void *ctx),
		  const void *ctx, const char *output, bool verbose)
{
	char *dir = NULL, *slash;
	int err;

	err = privs__drop(u);
	if (err) {
		p_err("cannot become %s: %s", u->name, strerror(-err));
		return -1;
	}
	err = still_allowed(ctx);
	if (err) {
		p_err("as %s, this kernel refuses bpf() on pgrptrace's own "
		      "maps (%s; kernel.unprivileged_bpf_disabled): the loss counters "
		      "and the re-reading after a loss need it; run without --user",
		      u->name, strerror(-err));
		return -1;
	}
	/* logrotate moves -o FILE and SIGHUP reopens it: as the user, in its directory. */
	if (output) {
		dir = strdup(output);
		slash = dir ? strrchr(dir, '/') : NULL;
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		if (!dir || access(slash ? dir : ".", W_OK | X_OK)) {
			p_err("as %s, cannot create files in %s: -o FILE is "
			      "reopened there on SIGHUP (logrotate)",
			      u->name, slash ? dir : ".");
			free(dir);
			return -1;
		}
		free(dir);
	}
	if (verbose)
		p_err("now running as %s (uid %u), no capabilities", u->name, (unsigned int)u->uid);
	return 0;
}
