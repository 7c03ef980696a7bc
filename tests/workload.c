// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Workloads for the integration tests. Each scenario does something the
 * tracer must report, and writes what really happened (pids, statuses,
 * errnos) as JSON lines to the file named by $PGT_FACTS, so that the tests
 * compare the tracer's report with the truth rather than with a guess.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static FILE *facts;

static void fact(const char *fmt, ...)
{
	va_list ap;

	if (!facts)
		return;
	va_start(ap, fmt);
	vfprintf(facts, fmt, ap);
	va_end(ap);
	fputc('\n', facts);
	fflush(facts);
}

static void die(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(100);
}

static pid_t xfork(void)
{
	pid_t p = fork();

	if (p < 0)
		die("fork");
	return p;
}

static int xwait(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	return st;
}

/* A child that waits for a byte on @fd, then exits 0. */
static pid_t held_child(int fds[2])
{
	pid_t p;
	char c;

	if (pipe(fds))
		die("pipe");
	p = xfork();
	if (p == 0) {
		close(fds[1]);
		if (read(fds[0], &c, 1) < 0)
			_exit(101);
		_exit(0);
	}
	close(fds[0]);
	return p;
}

/* Children that die by @sig, with core dumps allowed; report each status. */
static int scenario_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGKILL, SIGSEGV, SIGABRT };
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned int i;
	pid_t p;
	int st;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		p = xfork();
		if (p == 0) {
			setrlimit(RLIMIT_CORE, &rl);
			signal(sigs[i], SIG_DFL);
			raise(sigs[i]);
			_exit(102);
		}
		st = xwait(p);
		fact("{\"what\":\"signal\",\"pid\":%d,\"sig\":%d,\"status\":%d}", p, sigs[i], st);
	}
	p = xfork();
	if (p == 0)
		_exit(42);
	st = xwait(p);
	fact("{\"what\":\"code\",\"pid\":%d,\"status\":%d}", p, st);
	return 0;
}

static int scenario_setsid(void)
{
	pid_t p = xfork();
	int st;

	if (p == 0) {
		pid_t old_sid = getsid(0), old_pgid = getpgrp(), sid;
		int err;

		sid = setsid();
		fact("{\"what\":\"setsid\",\"pid\":%d,\"old_sid\":%d,\"old_pgid\":%d,\"ret\":%d}",
		     getpid(), old_sid, old_pgid, sid);
		/* A session leader leads its group: a second setsid fails. */
		err = setsid() < 0 ? errno : 0;
		fact("{\"what\":\"setsid_again\",\"pid\":%d,\"errno\":%d}", getpid(), err);
		_exit(0);
	}
	st = xwait(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int scenario_setpgid(void)
{
	int hold_b[2], hold_c[2], hold_d[2], ready[2];
	pid_t a, b, c, d, e;
	int r, err;
	char ch;

	/* A: a child puts itself in a new group. */
	a = xfork();
	if (a == 0) {
		r = setpgid(0, 0);
		fact("{\"what\":\"self\",\"pid\":%d,\"ret\":%d}", getpid(), r);
		_exit(0);
	}
	xwait(a);

	/* B: the parent moves its child into a new group, as a shell does. */
	b = held_child(hold_b);
	r = setpgid(b, b);
	fact("{\"what\":\"child\",\"pid\":%d,\"ret\":%d}", b, r);

	/* EPERM: C may not join the group of D, which lives in another session. */
	if (pipe(ready))
		die("pipe");
	if (pipe(hold_d))
		die("pipe");
	d = xfork();
	if (d == 0) {
		close(ready[0]);
		close(hold_d[1]);
		setsid();
		if (write(ready[1], "x", 1) != 1)
			_exit(103);
		if (read(hold_d[0], &ch, 1) < 0)
			_exit(101);
		_exit(0);
	}
	close(ready[1]);
	close(hold_d[0]);
	if (read(ready[0], &ch, 1) != 1)
		die("read");
	c = held_child(hold_c);
	r = setpgid(c, d);
	err = r ? errno : 0;
	fact("{\"what\":\"eperm\",\"pid\":%d,\"pgid\":%d,\"errno\":%d}", c, d, err);

	/* EACCES: E has exec'd already (its CLOEXEC pipe end closed). */
	if (pipe2(ready, O_CLOEXEC))
		die("pipe");
	e = xfork();
	if (e == 0) {
		close(ready[0]);
		execl("/bin/sleep", "sleep", "0.5", (char *)NULL);
		_exit(104);
	}
	close(ready[1]);
	if (read(ready[0], &ch, 1) != 0)
		die("exec");
	r = setpgid(e, e);
	err = r ? errno : 0;
	fact("{\"what\":\"eacces\",\"pid\":%d,\"errno\":%d}", e, err);

	close(hold_b[1]);
	close(hold_c[1]);
	close(hold_d[1]);
	xwait(b);
	xwait(c);
	xwait(d);
	xwait(e);
	return 0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int threads_left = 3;

static void *worker(void *arg)
{
	int last;

	usleep(100000 + 50000 * (long)arg);
	pthread_mutex_lock(&lock);
	last = --threads_left == 0;
	pthread_mutex_unlock(&lock);
	if (last) {
		fact("{\"what\":\"last_thread\",\"pid\":%d,\"tid\":%ld}", getpid(),
		     (long)syscall(SYS_gettid));
		exit(9);
	}
	return NULL;
}

/* The leader thread exits first; the process ends with its last thread. */
static int scenario_threads(void)
{
	pthread_t t;
	long i;

	for (i = 0; i < 3; i++)
		if (pthread_create(&t, NULL, worker, (void *)i))
			die("pthread_create");
	fact("{\"what\":\"threads\",\"pid\":%d}", getpid());
	syscall(SYS_exit, 0);	/* only the leader thread */
	return 1;
}

static char *self_path;

static void *exec_worker(void *arg)
{
	fact("{\"what\":\"thread_exec\",\"pid\":%d,\"tid\":%ld}", getpid(),
	     (long)syscall(SYS_gettid));
	execl(self_path, "workload", "exit", "4", (char *)NULL);
	die("execl");
	return NULL;
}

/* exec from a non-leader thread: the kernel swaps the tids. */
static int scenario_thread_exec(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, exec_worker, NULL))
		die("pthread_create");
	pause();
	return 1;
}

static int scenario_subreaper(void)
{
	int on = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	int off = prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);

	fact("{\"what\":\"subreaper\",\"pid\":%d,\"on\":%d,\"off\":%d}", getpid(), on, off);
	return 0;
}

/* Double fork under a subreaper: the grandchild is adopted by us. */
static int scenario_daemonize(void)
{
	pid_t a, b;
	int fds[2];

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl");
	if (pipe(fds))
		die("pipe");
	a = xfork();
	if (a == 0) {
		b = xfork();
		if (b == 0) {
			close(fds[0]);
			usleep(300000);
			_exit(0);
		}
		if (write(fds[1], &b, sizeof(b)) != sizeof(b))
			_exit(103);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &b, sizeof(b)) != sizeof(b))
		die("read");
	xwait(a);
	fact("{\"what\":\"daemonize\",\"pid\":%d,\"middle\":%d,\"daemon\":%d}", getpid(), a, b);
	xwait(b);
	return 0;
}

static pid_t thread_child;

static void *forking_thread(void *arg)
{
	thread_child = xfork();
	if (thread_child == 0) {
		usleep(300000);
		_exit(0);
	}
	fact("{\"what\":\"thread_reparent\",\"pid\":%d,\"main_tid\":%ld,\"tid\":%ld,"
	     "\"child\":%d}", getpid(), (long)arg, (long)syscall(SYS_gettid), thread_child);
	return NULL;	/* the thread exits with a live child */
}

/* A thread exits with a child: another thread of the process adopts it. */
static int scenario_thread_reparent(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, forking_thread, (void *)(long)syscall(SYS_gettid)))
		die("pthread_create");
	pthread_join(t, NULL);
	xwait(thread_child);
	return 0;
}

/* Processes that stay put until killed, in a known shape, for --snapshot. */
static int scenario_tree(void)
{
	pid_t a, b, c, d;
	int fds[2];

	if (pipe(fds))
		die("pipe");
	a = xfork();
	if (a == 0)
		pause();
	b = xfork();
	if (b == 0) {
		setpgid(0, 0);
		c = xfork();
		if (c == 0)
			pause();
		if (write(fds[1], &c, sizeof(c)) != sizeof(c))
			_exit(103);
		pause();
	}
	if (read(fds[0], &c, sizeof(c)) != sizeof(c))
		die("read");
	setpgid(b, b);	/* both sides, as a shell does: no race */
	d = xfork();
	if (d == 0) {
		setsid();
		pause();
	}
	usleep(100000);
	fact("{\"what\":\"tree\",\"w\":%d,\"a\":%d,\"b\":%d,\"c\":%d,\"d\":%d,\"ppid\":%d}",
	     getpid(), a, b, c, d, getppid());
	pause();
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = getenv("PGT_FACTS");

	self_path = argv[0];
	if (path) {
		facts = fopen(path, "ae");
		if (!facts)
			die(path);
	}
	if (argc == 3 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "raise")) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 102;
	}
	if (argc == 2 && !strcmp(argv[1], "signals"))
		return scenario_signals();
	if (argc == 2 && !strcmp(argv[1], "setsid"))
		return scenario_setsid();
	if (argc == 2 && !strcmp(argv[1], "setpgid"))
		return scenario_setpgid();
	if (argc == 2 && !strcmp(argv[1], "threads"))
		return scenario_threads();
	if (argc == 2 && !strcmp(argv[1], "thread_exec"))
		return scenario_thread_exec();
	if (argc == 2 && !strcmp(argv[1], "subreaper"))
		return scenario_subreaper();
	if (argc == 2 && !strcmp(argv[1], "daemonize"))
		return scenario_daemonize();
	if (argc == 2 && !strcmp(argv[1], "thread_reparent"))
		return scenario_thread_reparent();
	if (argc == 2 && !strcmp(argv[1], "tree"))
		return scenario_tree();

	fprintf(stderr, "usage: workload exit N | raise SIG | signals | setsid | setpgid | "
			"threads | thread_exec | subreaper | daemonize | thread_reparent | tree\n");
	return 2;
}
