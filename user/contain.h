/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --contain -- CMD: when the command ends (or pgrptrace is stopped), end
 * every process it started, wherever it went.
 */
#ifndef __CONTAIN_H
#define __CONTAIN_H

#include <signal.h>
#include <linux/types.h>

struct tracer;

/*
 * Before the command starts: pgrptrace becomes a child subreaper, so that
 * every orphan of the command's tree (a double fork, a daemon) is adopted
 * by it and stays below it in /proc's tree. Returns 0, or -1 said.
 */
int contain__prepare(void);

/*
 * End the command and every process below pgrptrace: SIGTERM, then
 * SIGKILL to what is left after @grace_ns, round after round while the
 * trace goes on, until /proc's tree below pgrptrace and the model both show
 * none alive; each signalled only while it is still the process seen
 * (descent__signal()), each said on stderr once. Reaps what it adopted (the
 * command too, its status kept). Returns 0, or -1 when processes were still
 * alive at the bound (said).
 */
int contain__run(struct tracer *s, __u64 grace_ns);

#endif /* __CONTAIN_H */
