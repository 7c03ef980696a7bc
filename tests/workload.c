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
#include <sched.h>
#include <termios.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sched.h>

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

/*
 * Children that die by @sig, with core dumps allowed; report each status.
 * They dump in a directory of their own, emptied after (with the kernel's
 * default core_pattern a dump lands in the working directory: the tree's).
 */
static int scenario_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGKILL, SIGSEGV, SIGABRT };
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	char dir[] = "/tmp/pgt-core-XXXXXX", path[64];
	unsigned int i;
	pid_t p;
	int st;

	if (!mkdtemp(dir)) {
		perror("workload: mkdtemp");
		return 1;
	}
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		p = xfork();
		if (p == 0) {
			if (chdir(dir))
				_exit(103);
			setrlimit(RLIMIT_CORE, &rl);
			signal(sigs[i], SIG_DFL);
			raise(sigs[i]);
			_exit(102);
		}
		st = xwait(p);
		fact("{\"what\":\"signal\",\"pid\":%d,\"sig\":%d,\"status\":%d}", p, sigs[i], st);
		snprintf(path, sizeof(path), "%s/core", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/core.%d", dir, p);
		unlink(path);
	}
	rmdir(dir);
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

/*
 * Wait until thread @tid of this process is in state @state (/proc's letter),
 * or with @state 0, gone; polling every millisecond for at most ten seconds.
 */
static void wait_thread_state(pid_t tid, char state)
{
	struct timespec ms = { 0, 1000000 };
	char path[64], buf[256], *p;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	for (i = 0; i < 10000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && !state)
			return;
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = 0;
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == state)
				return;
		}
		nanosleep(&ms, NULL); /* polling a state, bounded */
	}
	errno = ETIMEDOUT;
	die("waiting for a thread's state");
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int threads_left = 3;
static pid_t worker_tid[3];

static void *worker(void *arg)
{
	int last, i;

	worker_tid[(long)arg] = syscall(SYS_gettid);
	wait_thread_state(getpid(), 'Z'); /* the leader thread has exited */
	pthread_mutex_lock(&lock);
	last = --threads_left == 0;
	pthread_mutex_unlock(&lock);
	if (last) {
		/* The others are on their way out: exit_group() now could
		 * overtake them and leave one of them the last to die. */
		for (i = 0; i < 3; i++)
			if (worker_tid[i] != worker_tid[(long)arg])
				wait_thread_state(worker_tid[i], 0);
		fact("{\"what\":\"last_thread\",\"pid\":%d,\"tid\":%ld}", getpid(),
		     (long)syscall(SYS_gettid));
		exit(9);
	}
	return NULL;
}

/*
 * A dead child adopted: c exits, and its parent p exits before reaping it,
 * so the zombie c is reparented to us (a subreaper). It escapes nothing.
 */
static int scenario_zombie_orphan(void)
{
	siginfo_t si;
	pid_t p, c;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl");
	p = xfork();
	if (p == 0) {
		c = xfork();
		if (c == 0)
			_exit(0);
		/* Until c is a zombie, without reaping it. */
		if (waitid(P_PID, c, &si, WEXITED | WNOWAIT))
			_exit(101);
		fact("{\"what\":\"zombie_orphan\",\"parent\":%d,\"pid\":%d}", getpid(), c);
		_exit(0);
	}
	xwait(p);
	while (wait(NULL) > 0) /* c, adopted */
		;
	return 0;
}

/*
 * A child leaves the group it was born into, comes back, and does it again,
 * @n times: one escape, the first time.
 */
static int scenario_homegroup(int n)
{
	pid_t home = getpgrp(), c;
	int i;

	c = xfork();
	if (c == 0) {
		for (i = 0; i < n; i++)
			if (setpgid(0, 0) || setpgid(0, home))
				die("setpgid");
		fact("{\"what\":\"homegroup\",\"pid\":%d,\"home\":%d,\"moves\":%d}", getpid(), home,
		     2 * n);
		_exit(0);
	}
	i = xwait(c);
	return WIFEXITED(i) ? WEXITSTATUS(i) : 1;
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
	syscall(SYS_exit, 0); /* only the leader thread */
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
	int fds[2], hold[2];
	char ch;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl");
	if (pipe(fds) || pipe(hold))
		die("pipe");
	a = xfork();
	if (a == 0) {
		b = xfork();
		if (b == 0) {
			/* Alive until we have been adopted and said so. */
			close(fds[0]);
			close(hold[1]);
			if (read(hold[0], &ch, 1) < 0)
				_exit(101);
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
	close(hold[1]);
	xwait(b);
	return 0;
}

/*
 * A parent exits with @n children: all are adopted by us (a subreaper) at
 * once, more than one walk of the kernel side's may report.
 */
static int scenario_many_orphans(int n)
{
	int fds[2], hold[2], i;
	pid_t a, c;
	char ch;

	if (n < 1 || n > 4096)
		return 2;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl");
	if (pipe(fds) || pipe(hold))
		die("pipe");
	a = xfork();
	if (a == 0) {
		close(fds[0]);
		for (i = 0; i < n; i++) {
			c = xfork();
			if (c == 0) {
				/* Alive until we have been adopted and said so. */
				close(fds[1]);
				close(hold[1]);
				if (read(hold[0], &ch, 1) < 0)
					_exit(101);
				_exit(0);
			}
			if (write(fds[1], &c, sizeof(c)) != sizeof(c))
				_exit(103);
		}
		_exit(0);
	}
	close(fds[1]);
	close(hold[0]);
	xwait(a);
	fprintf(facts ? facts : stderr,
		"{\"what\":\"many_orphans\",\"pid\":%d,\"middle\":%d,"
		"\"children\":[",
		getpid(), a);
	for (i = 0; i < n; i++) {
		if (read(fds[0], &c, sizeof(c)) != sizeof(c))
			die("read");
		fprintf(facts ? facts : stderr, "%s%d", i ? "," : "", c);
	}
	fprintf(facts ? facts : stderr, "]}\n");
	if (facts)
		fflush(facts);
	close(hold[1]);
	while (wait(NULL) > 0)
		;
	return 0;
}

static pid_t thread_child, forking_tid;
static int thread_hold[2];

static void *forking_thread(void *arg)
{
	char ch;

	forking_tid = syscall(SYS_gettid);
	thread_child = xfork();
	if (thread_child == 0) {
		/* Alive until its parent thread is gone. */
		close(thread_hold[1]);
		if (read(thread_hold[0], &ch, 1) < 0)
			_exit(101);
		_exit(0);
	}
	fact("{\"what\":\"thread_reparent\",\"pid\":%d,\"main_tid\":%ld,\"tid\":%ld,"
	     "\"child\":%d}",
	     getpid(), (long)arg, (long)syscall(SYS_gettid), thread_child);
	return NULL; /* the thread exits with a live child */
}

/* A thread exits with a child: another thread of the process adopts it. */
static int scenario_thread_reparent(void)
{
	pthread_t t;

	if (pipe(thread_hold))
		die("pipe");
	if (pthread_create(&t, NULL, forking_thread, (void *)(long)syscall(SYS_gettid)))
		die("pthread_create");
	pthread_join(t, NULL);
	/* join returns at the thread's mm release; the reparent comes later */
	wait_thread_state(forking_tid, 0);
	close(thread_hold[1]);
	xwait(thread_child);
	return 0;
}

/* Processes that stay put until killed, in a known shape, for --snapshot. */
static int scenario_tree(void)
{
	pid_t a, b, c, d;
	int fds[2];
	char ch;

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
	setpgid(b, b); /* both sides, as a shell does: no race */
	d = xfork();
	if (d == 0) {
		setsid();
		if (write(fds[1], "d", 1) != 1)
			_exit(103);
		pause();
	}
	if (read(fds[0], &ch, 1) != 1) /* d leads its session now */
		die("read");
	fact("{\"what\":\"tree\",\"w\":%d,\"a\":%d,\"b\":%d,\"c\":%d,\"d\":%d,\"ppid\":%d}",
	     getpid(), a, b, c, d, getppid());
	pause();
	return 0;
}

static void on_usr(int sig)
{
	(void)sig;
}

/* Ask the tracer (our parent, under --verify) to check its model now. */
static void quiet_point(void)
{
	struct timespec timeout = { 30, 0 };
	sigset_t set;

	/* Only under `pgrptrace --verify`, which answers; nobody else is signalled. */
	if (!getenv("PGT_QUIET_POINTS"))
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* The tracer drains its ring buffer and retries transient states itself. */
	if (kill(getppid(), SIGUSR1) == 0 && sigtimedwait(&set, NULL, &timeout) < 0)
		fprintf(stderr, "workload: no answer from the tracer\n");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * kill(0) and kill(-pgid) from an unprivileged sender to a group of three,
 * one of which belongs to another uid and is refused.
 */
/*
 * The kill family, each call once, SIGUSR1 to a child that answers on a pipe
 * when its handler has run: kill, tkill, tgkill, rt_sigqueueinfo and
 * pidfd_send_signal (the syscalls themselves, whatever libc wraps).
 */
static int ack_fd = -1;

static void on_usr_ack(int sig)
{
	if (write(ack_fd, "a", 1) != 1)
		_exit(103);
}

static int scenario_killfamily(void)
{
	int ack[2], pidfd;
	siginfo_t si = {};
	pid_t c;
	char ch;
	int i;

	if (pipe(ack))
		die("pipe");
	c = xfork();
	if (c == 0) {
		struct sigaction sa = { .sa_handler = on_usr_ack };

		ack_fd = ack[1];
		sigaction(SIGUSR1, &sa, NULL);
		if (write(ack[1], "r", 1) != 1)
			_exit(101);
		for (;;)
			pause();
	}
	if (read(ack[0], &ch, 1) != 1) /* its handler is in place */
		die("child");
	pidfd = (int)syscall(SYS_pidfd_open, c, 0);
	si.si_signo = SIGUSR1;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	fact("{\"what\":\"killfamily\",\"sender\":%d,\"child\":%d,\"pidfd\":%s}", getpid(), c,
	     pidfd >= 0 ? "true" : "false");
	for (i = 0; i < 5; i++) {
		long r = -1;

		switch (i) {
		case 0:
			r = kill(c, SIGUSR1);
			break;
		case 1:
			r = syscall(SYS_tkill, c, SIGUSR1);
			break;
		case 2:
			r = syscall(SYS_tgkill, c, c, SIGUSR1);
			break;
		case 3:
			r = syscall(SYS_rt_sigqueueinfo, c, SIGUSR1, &si);
			break;
		case 4:
			r = pidfd >= 0 ? syscall(SYS_pidfd_send_signal, pidfd, SIGUSR1, NULL, 0) :
					 -1;
			break;
		}
		if (r == 0 && read(ack[0], &ch, 1) != 1) /* handled before the next */
			die("ack");
	}
	kill(c, SIGKILL);
	xwait(c);
	return 0;
}

static int scenario_killgroup(void)
{
	int go[2], done[2], ready[2];
	pid_t s, a, c;
	char ch;

	if (pipe(go) || pipe(done) || pipe(ready))
		die("pipe");
	s = xfork();
	if (s == 0) {
		setpgid(0, 0);
		signal(SIGUSR1, on_usr);
		signal(SIGUSR2, on_usr);
		if (read(go[0], &ch, 1) != 1)
			_exit(101);
		if (setgid(65534) || setuid(65534))
			_exit(102);
		kill(0, SIGUSR1);
		kill(-getpgrp(), SIGUSR2);
		_exit(0);
	}
	setpgid(s, s);
	a = xfork();
	if (a == 0) {
		close(done[1]);
		signal(SIGUSR1, on_usr);
		signal(SIGUSR2, on_usr);
		if (setgid(65534) || setuid(65534))
			_exit(102);
		if (write(ready[1], "r", 1) != 1 || read(done[0], &ch, 1) < 0)
			_exit(101);
		_exit(0);
	}
	setpgid(a, s);
	c = xfork();
	if (c == 0) {
		close(done[1]);
		signal(SIGUSR1, on_usr);
		signal(SIGUSR2, on_usr);
		if (setgid(65533) || setuid(65533)) /* another uid: refused */
			_exit(102);
		if (write(ready[1], "r", 1) != 1 || read(done[0], &ch, 1) < 0)
			_exit(101);
		_exit(0);
	}
	setpgid(c, s);
	/* Both have their handlers and their uid. */
	if (read(ready[0], &ch, 1) != 1 || read(ready[0], &ch, 1) != 1)
		die("read");
	fact("{\"what\":\"killgroup\",\"sender\":%d,\"member\":%d,\"other_uid\":%d,"
	     "\"pgid\":%d}",
	     s, a, c, s);
	if (write(go[1], "x", 1) != 1)
		die("write");
	xwait(s);
	close(done[1]);
	xwait(a);
	xwait(c);
	return 0;
}

/* kill(-1) inside a private pid namespace: every process in it but init and the sender. */
static int scenario_killall_ns(void)
{
	pid_t init;
	int st;

	if (unshare(CLONE_NEWPID))
		die("unshare");
	init = xfork();
	if (init == 0) {
		pid_t v1, v2, sender;

		v1 = xfork();
		if (v1 == 0) {
			pause();
			_exit(0);
		}
		v2 = xfork();
		if (v2 == 0) {
			pause();
			_exit(0);
		}
		sender = xfork();
		if (sender == 0) {
			kill(-1, SIGTERM); /* v1 and v2 exist: fork returned */
			_exit(0);
		}
		xwait(sender);
		xwait(v1);
		xwait(v2);
		_exit(0);
	}
	st = xwait(init);
	fact("{\"what\":\"killall_ns\",\"init\":%d,\"status\":%d}", init, st);
	return 0;
}

/*
 * Controlling ttys: implicit acquisition on open, TIOCNOTTY, TIOCSCTTY, a
 * steal with force from another session, and a session leader that exits
 * with a job in the foreground. Quiet points let the tracer check its ttys
 * and foreground groups against /proc.
 */
static int scenario_ctty(void)
{
	int master, slave, go[2], ready[2], fd;
	char name[64], ch;
	pid_t one, two, three, job;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl");
	if (openpty(&master, &slave, name, NULL, NULL))
		die("openpty");
	close(slave);
	if (pipe(go) || pipe(ready))
		die("pipe");
	one = xfork();
	if (one == 0) {
		/* TIOCNOTTY by a leader sends SIGHUP to the tty's group: ours. */
		signal(SIGHUP, SIG_IGN);
		setsid();
		fd = open(name, O_RDWR); /* a leader without a tty acquires it */
		if (fd < 0)
			_exit(101);
		if (write(ready[1], "1", 1) != 1 || read(go[0], &ch, 1) != 1)
			_exit(101);
		ioctl(fd, TIOCNOTTY); /* gives it up, for the whole session */
		if (write(ready[1], "2", 1) != 1 || read(go[0], &ch, 1) != 1)
			_exit(101);
		ioctl(fd, TIOCSCTTY, 0); /* takes it back */
		if (write(ready[1], "3", 1) != 1 || read(go[0], &ch, 1) != 1)
			_exit(101);
		_exit(0);
	}
	if (read(ready[0], &ch, 1) != 1)
		die("read");
	fact("{\"what\":\"open\",\"pid\":%d,\"tty\":\"%s\"}", one, name);
	quiet_point();
	if (write(go[1], "x", 1) != 1 || read(ready[0], &ch, 1) != 1)
		die("sync");
	quiet_point();
	if (write(go[1], "x", 1) != 1 || read(ready[0], &ch, 1) != 1)
		die("sync");
	quiet_point();

	/* Another session steals it with TIOCSCTTY(1) (root). */
	two = xfork();
	if (two == 0) {
		setsid();
		fd = open(name, O_RDWR | O_NOCTTY);
		if (fd < 0 || ioctl(fd, TIOCSCTTY, 1))
			_exit(102);
		if (write(ready[1], "4", 1) != 1 || read(go[0], &ch, 1) != 1)
			_exit(101);
		_exit(0);
	}
	if (read(ready[0], &ch, 1) != 1)
		die("read");
	fact("{\"what\":\"steal\",\"pid\":%d,\"victim\":%d}", two, one);
	quiet_point();
	if (write(go[1], "xx", 2) != 2)
		die("write");
	xwait(one);
	xwait(two);

	/* A session leader exits with a job in the foreground. */
	three = xfork();
	if (three == 0) {
		setsid();
		fd = open(name, O_RDWR);
		if (fd < 0)
			_exit(103);
		job = xfork();
		if (job == 0) {
			setpgid(0, 0);
			pause();
			_exit(0);
		}
		setpgid(job, job);
		/* A group of another session is refused (EPERM). */
		if (!tcsetpgrp(fd, getpgid(getppid())) || errno != EPERM)
			_exit(105);
		if (tcsetpgrp(fd, job))
			_exit(104);
		if (write(ready[1], &job, sizeof(job)) != sizeof(job) || read(go[0], &ch, 1) != 1)
			_exit(101);
		_exit(0);
	}
	if (read(ready[0], &job, sizeof(job)) != sizeof(job))
		die("read");
	quiet_point();
	fact("{\"what\":\"leader_exit\",\"pid\":%d,\"job\":%d}", three, job);
	if (write(go[1], "x", 1) != 1)
		die("write");
	xwait(three);
	/* The job got SIGHUP from the leader's exit and was adopted by us. */
	fact("{\"what\":\"job_status\",\"pid\":%d,\"status\":%d}", job, xwait(job));
	quiet_point();
	close(master);
	return 0;
}

/*
 * A process group with a stopped job becomes orphaned when the parent that
 * tied it to its session exits: kill_orphaned_pgrp() sends the group SIGHUP,
 * then SIGCONT. Mainline sends both to every member; a kernel build may send
 * SIGHUP to the stopped members only (seen on a 6.18 build), so the running
 * member m blocks both signals and reports which ones the kernel queued for
 * it, and the stopped job j keeps default dispositions and reports how it
 * ended. Nothing here depends on m dying; every wait is for a state, and the
 * whole scenario is bounded by an alarm that kills what it started.
 *
 *   workload (subreaper) -> leader (setsid) -> p -> m (own group) -> j
 */
static pid_t orphan_groups[2];

static void orphan_timeout(int sig)
{
	static const char msg[] = "workload orphan: timed out, killing what it started\n";
	unsigned int i;

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(99);
	for (i = 0; i < 2; i++)
		if (orphan_groups[i] > 0)
			kill(-orphan_groups[i], SIGKILL);
	_exit(99);
}

static int scenario_orphan(void)
{
	int up[2], stopped[2], reaped[2];
	pid_t leader, m = 0, j = 0, p;
	sigset_t set;
	int st, mst;
	char ch;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl");
	if (pipe(up) || pipe(stopped) || pipe(reaped))
		die("pipe");
	signal(SIGALRM, orphan_timeout);
	alarm(20);
	leader = xfork();
	if (leader == 0) {
		setsid();
		p = xfork();
		if (p == 0) {
			m = xfork();
			if (m == 0) {
				pid_t parent = getppid();
				siginfo_t si;
				sigset_t pend;

				setpgid(0, 0);
				sigemptyset(&set);
				sigaddset(&set, SIGHUP);
				sigaddset(&set, SIGCONT);
				sigprocmask(SIG_BLOCK, &set, NULL);
				j = xfork();
				if (j == 0) {
					/* Default dispositions, even under nohup. */
					signal(SIGHUP, SIG_DFL);
					signal(SIGCONT, SIG_DFL);
					sigprocmask(SIG_UNBLOCK, &set, NULL);
					raise(SIGSTOP);
					_exit(0);
				}
				/* j is stopped: p may go. */
				if (waitid(P_PID, j, &si, WSTOPPED) ||
				    write(stopped[1], "s", 1) != 1)
					_exit(101);
				/* p reaped: kill_orphaned_pgrp() has run. */
				if (read(reaped[0], &ch, 1) != 1)
					_exit(101);
				sigpending(&pend);
				if (waitpid(j, &st, 0) != j)
					_exit(101);
				fact("{\"what\":\"orphan\",\"group\":%d,\"running\":%d,\"stopped\":%d,\"parent\":%d,"
				     "\"running_got_sighup\":%s,\"running_got_sigcont\":%s,"
				     "\"stopped_status\":%d}",
				     getpid(), getpid(), j, parent,
				     sigismember(&pend, SIGHUP) ? "true" : "false",
				     sigismember(&pend, SIGCONT) ? "true" : "false", st);
				_exit(0);
			}
			setpgid(m, m);
			if (write(up[1], &m, sizeof(m)) != sizeof(m) ||
			    read(stopped[0], &ch, 1) != 1)
				_exit(101);
			_exit(0); /* m's group is orphaned now */
		}
		xwait(p);
		if (write(reaped[1], "r", 1) != 1)
			_exit(101);
		_exit(0);
	}
	orphan_groups[0] = leader;
	if (read(up[0], &m, sizeof(m)) != sizeof(m))
		die("read");
	orphan_groups[1] = m;
	/* m was adopted by us when p exited; the leader is ours already. */
	st = xwait(leader);
	mst = xwait(m);
	alarm(0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !WIFEXITED(mst) || WEXITSTATUS(mst)) {
		fprintf(stderr, "workload orphan: leader status %d, m status %d\n", st, mst);
		return 1;
	}
	return 0;
}

/*
 * For the harness's self-test: a child escapes into a session of its own,
 * keeps the tracer's stdout and stderr, and never exits; we wait for it.
 */
static int scenario_hang(void)
{
	pid_t p;

	p = xfork();
	if (p == 0) {
		setsid();
		fact("{\"what\":\"hang\",\"pid\":%d}", getpid());
		for (;;)
			pause();
	}
	xwait(p);
	return 1;
}

/*
 * A fork storm for a tiny ring buffer: most children exit at once, every
 * 40th leaves in a session of its own and stays. The tracer loses events and
 * must resync; the quiet points check the result.
 */
static int scenario_storm(void)
{
	pid_t kept[64];
	int i, n = 0, reaped = 0;
	pid_t p;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl");
	for (i = 0; i < 2000; i++) {
		p = xfork();
		if (p == 0) {
			if (i % 40 == 0) {
				setsid();
				pause();
			}
			_exit(0);
		}
		if (i % 40 == 0)
			kept[n++] = p;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			reaped++;
	}
	/* Every child but the kept ones exits at once: reap them all. */
	while (reaped < 2000 - n) {
		if (waitpid(-1, NULL, 0) < 0)
			die("waitpid");
		reaped++;
	}
	fact("{\"what\":\"storm\",\"kept\":%d}", n);
	quiet_point();
	for (i = 0; i < n; i++)
		kill(kept[i], SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	quiet_point();
	return 0;
}

/*
 * A flood of group signals: @n kill(-pgid) of an ignored signal to a group
 * of one, as fast as they go (a record each, faster than a tracer drains).
 */
static int scenario_sigflood(long n)
{
	int fds[2];
	pid_t g;
	long i;

	signal(SIGUSR1, SIG_IGN); /* inherited by the group's member */
	g = held_child(fds);
	setpgid(g, g);
	for (i = 0; i < n; i++)
		kill(-g, SIGUSR1);
	if (write(fds[1], "x", 1) != 1)
		die("write");
	xwait(g);
	fact("{\"what\":\"sigflood\",\"kills\":%ld}", n);
	return 0;
}

/*
 * A child born straight into the cgroup @dir (clone3's CLONE_INTO_CGROUP,
 * 5.7 and later), waiting there to be killed by the test.
 */
static int scenario_into_cgroup(const char *dir)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long pid;

	if (fd < 0) {
		perror(dir);
		return 1;
	}
	ca.flags = CLONE_INTO_CGROUP;
	ca.cgroup = (__u64)fd;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0) {
		fact("{\"into_cgroup\":null,\"errno\":%d}", errno);
		return 0;
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	fact("{\"into_cgroup\":%ld}", pid);
	xwait((pid_t)pid);
	return 0;
}

/*
 * A login whose names are all hostile, run in an image of its own (argv[1]
 * "hostile_login"): exec'd through a symlink named in invalid UTF-8 to a
 * memfd so named (its executable), it names itself so, starts a session and
 * takes a pty (an entry leader). Its child leaves the session (an escape
 * whose lineage and login carry those names) and, with $PGT_HOSTILE_CGROUP,
 * moves into that cgroup (a cgroup escape, its path in invalid UTF-8).
 */
static int scenario_hostile_login(void)
{
	const char *cg = getenv("PGT_HOSTILE_CGROUP");
	int master, slave, fd;
	char path[4096];
	pid_t c;

	if (prctl(PR_SET_NAME, "\xff\xfe\x80login", 0, 0, 0) || setsid() < 0)
		die("setsid");
	if (openpty(&master, &slave, NULL, NULL, NULL) || ioctl(slave, TIOCSCTTY, 0))
		die("pty");
	c = xfork();
	if (c == 0) {
		if (setsid() < 0)
			_exit(101);
		if (cg) {
			snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
			fd = open(path, O_WRONLY);
			if (fd < 0 || write(fd, "0", 1) != 1)
				_exit(102);
		}
		_exit(0);
	}
	fact("{\"what\":\"hostile_login\",\"leader\":%d,\"child\":%d,\"status\":%d}", getpid(), c,
	     xwait(c));
	return 0;
}

/* Copy this program into a memfd named @name; its fd. */
static int self_memfd(const char *name)
{
	char buf[65536];
	int in, fd = (int)syscall(SYS_memfd_create, name, 0);
	ssize_t n;

	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || in < 0)
		die("memfd");
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			die("memfd write");
	close(in);
	return fd;
}

/* Processes with names a tracer must not choke on, each leaving its session. */
static int scenario_hostile(void)
{
	static const char *const names[] = {
		"new\nline",
		"\x1b[2J\x1b[H",
		"q\"uo'te",
		"back\\slash",
		"\xff\xfe\x80"
		"bad",
		"caf\xc3\xa9",
		"0123456789abcde",
		"brack]et",
	};
	char link[64], target[64];
	unsigned int i;
	pid_t p;
	int st;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p = xfork();
		if (p == 0) {
			prctl(PR_SET_NAME, names[i], 0, 0, 0);
			setsid();
			_exit(0);
		}
		xwait(p);
		fact("{\"what\":\"hostile\",\"pid\":%d,\"index\":%u}", p, i);
	}
	snprintf(link, sizeof(link), "/tmp/pgt-\xff\nlogin-%d", (int)getpid());
	snprintf(target, sizeof(target), "/proc/self/fd/%d", self_memfd("\xff\xfe"));
	if (symlink(target, link))
		die("symlink");
	p = xfork();
	if (p == 0) {
		char *argv[] = { "workload", "hostile_login", NULL };

		execv(link, argv);
		_exit(103);
	}
	st = xwait(p);
	unlink(link);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
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
	if (argc == 2 && !strcmp(argv[1], "zombie_orphan"))
		return scenario_zombie_orphan();
	if (argc == 3 && !strcmp(argv[1], "homegroup"))
		return scenario_homegroup(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "thread_exec"))
		return scenario_thread_exec();
	if (argc == 2 && !strcmp(argv[1], "subreaper"))
		return scenario_subreaper();
	if (argc == 2 && !strcmp(argv[1], "daemonize"))
		return scenario_daemonize();
	if (argc == 3 && !strcmp(argv[1], "many_orphans"))
		return scenario_many_orphans(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "thread_reparent"))
		return scenario_thread_reparent();
	if (argc == 2 && !strcmp(argv[1], "tree"))
		return scenario_tree();
	if (argc == 2 && !strcmp(argv[1], "killgroup"))
		return scenario_killgroup();
	if (argc == 2 && !strcmp(argv[1], "killfamily"))
		return scenario_killfamily();
	if (argc == 2 && !strcmp(argv[1], "killall_ns"))
		return scenario_killall_ns();
	if (argc == 2 && !strcmp(argv[1], "ctty"))
		return scenario_ctty();
	if (argc == 2 && !strcmp(argv[1], "orphan"))
		return scenario_orphan();
	if (argc == 3 && !strcmp(argv[1], "into_cgroup"))
		return scenario_into_cgroup(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "sigflood"))
		return scenario_sigflood(atol(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "hostile_login"))
		return scenario_hostile_login();
	if (argc == 2 && !strcmp(argv[1], "hostile"))
		return scenario_hostile();
	if (argc == 2 && !strcmp(argv[1], "hang"))
		return scenario_hang();
	if (argc == 2 && !strcmp(argv[1], "storm"))
		return scenario_storm();
	if (argc == 3 && !strcmp(argv[1], "churn")) {
		/* fork, exit, wait: N short-lived processes, one at a time. */
		long i, n = atol(argv[2]);

		for (i = 0; i < n; i++) {
			pid_t p = xfork();

			if (p == 0)
				_exit(0);
			xwait(p);
		}
		return 0;
	}

	fprintf(stderr, "usage: workload exit N | raise SIG | signals | setsid | setpgid | "
			"threads | thread_exec | subreaper | daemonize | thread_reparent | tree | "
			"zombie_orphan | homegroup N | ...\n");
	return 2;
}
