// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What --contain signals with (issue 34): the processes below one in /proc's
 * tree, and a signal that reaches a process only while it is the one that
 * started at the time given (a pid reused in between is never hit). Our own
 * children only: no root needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "descent.h"
#include "model.h"
#include "procfs.h"

static pid_t sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void test_walk_finds_children(void **state)
{
	pid_t a = sleeper(), b = sleeper(), got[16];
	int n = descent__walk(getpid(), got, 16), i, seen = 0;

	for (i = 0; i < n; i++)
		seen += got[i] == a || got[i] == b;
	assert_int_equal(seen, 2);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	(void)state;
}

static void test_signal_checks_the_start(void **state)
{
	pid_t pid = sleeper();
	struct model_stat st;
	int status;

	assert_int_equal(procfs__model_stat(pid, &st), 0);
	/* Another start: another process with this pid, never signalled. */
	assert_int_equal(descent__signal(pid, st.start_ticks + 1, SIGKILL), -ESRCH);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	/* Never pid 1, never ourselves. */
	assert_int_equal(descent__signal(1, 0, SIGKILL), -EPERM);
	assert_int_equal(descent__signal(getpid(), 0, SIGKILL), -EPERM);
	/* The process seen: signalled. */
	assert_int_equal(descent__signal(pid, st.start_ticks, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	/* Gone: nothing to signal. */
	assert_int_equal(descent__signal(pid, st.start_ticks, SIGTERM), -ESRCH);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_finds_children),
		cmocka_unit_test(test_signal_checks_the_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
