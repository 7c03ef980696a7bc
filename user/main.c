// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pgrptrace: trace the lifecycle of process groups and sessions. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "opts.h"
#include "trace.h"
#include "msg.h"

/*
 * Started with fd 0, 1 or 2 closed, the first file opened (a recording, a
 * BPF map) would take its number and receive text meant for the terminal.
 * Hold each closed one on /dev/null, as daemons do, before opening anything.
 * Returns a mask of the descriptors that were closed, or -1.
 */
static int hold_stdio(void)
{
	int fd, mask = 0;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (open("/dev/null", O_RDWR) != fd)
			return -1;
		mask |= 1 << fd;
	}
	return mask;
}

int main(int argc, char **argv)
{
	int closed = hold_stdio();
	struct opts o;
	int ret;

	if (closed < 0)
		return 1; /* nowhere to say it */
	opts__parse(argc, argv, &o);
	/* Records with nowhere to go: refused, as any failure of ours (125 with a command). */
	if ((closed & 1 << STDOUT_FILENO) && !o.output && !o.record && !o.journal && !o.syslog &&
	    !o.check) {
		p_err("standard output is closed; give -o FILE (or "
		      "--record, --journal, --syslog)");
		return o.cmd ? PGT_EXIT_OWN_FAILURE : 1;
	}
	ret = o.check ? check__run(&o) : trace__run(&o);
	expect__free(&o.expected);
	free(o.user.name);
	return ret;
}
