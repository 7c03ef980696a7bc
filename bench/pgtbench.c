// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pgtbench: the workloads of `make bench`. Each mode repeats one operation
 * that changes process groups or sends group signals, for a bounded time and
 * count, and prints one JSON line: the mode, its pid, the operations done,
 * the seconds taken, and what an observer should have seen (forks and
 * signal deliveries generated).
 *
 *   pgtbench MODE [SECONDS [MAX_OPS]]
 *
 * Modes: fork, spawn, setsid, setpgid, signal, signal_ign, pty, mixed;
 * syscall, a null syscall (getppid) that pgrptrace does not trace, for what
 * its hooks cost every other task; and hold (SECONDS N): N sleeping
 * children, for memory figures.
 *
 *   pgtbench startstop PGRPTRACE RUNS OUT [BASE]
 *
 * What pgrptrace costs a command it wraps (issue 37), RUNS rounds
 * interleaved: the wall time of `true`, of `strace -f -o /dev/null -- true`
 * (if strace is on PATH) and of `PGRPTRACE --json -o OUT -- true` started
 * when the last run's links are released (no pgrptrace-links left) and
 * again at once after it; from the command's exit (stamp mode: the clock,
 * then exit) to pgrptrace's; and from pgrptrace's start to the first
 * event on its output, while a child is forked (and exits) every ms; with BASE, another
 * build's the same, round by round. One JSON line of the seconds of each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define GROUP_SIZE 4

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "pgtbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return status;
}

/* One child doing @what, waited for: fork, spawn, setsid, setpgid. */
static void one_child(char what)
{
	static char *const true_argv[] = { "true", NULL };
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		if (what == 's')
			setsid();
		else if (what == 'p')
			setpgid(0, 0);
		else if (what == 'e')
			execv("/bin/true", true_argv);
		_exit(0);
	}
	reap(pid);
}

static int handled_fd = -1; /* pty mode: each handled signal writes a byte */

static void on_signal(int sig)
{
	if (handled_fd >= 0 && write(handled_fd, "s", 1) != 1)
		_exit(1);
}

static void member(int sig, bool ignore, int ready)
{
	struct sigaction sa = { .sa_handler = ignore ? SIG_IGN : on_signal };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigaction(sig, &sa, NULL);
	if (write(ready, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/*
 * A process group of GROUP_SIZE members that handle (or ignore) @sig and
 * wait for it. With @tty, the first member makes a session with that tty as
 * its controlling tty and the group its foreground group, and forks the
 * others (a group cannot span sessions).
 */
static pid_t make_group(int sig, bool ignore, const char *tty)
{
	int ready[2], i;
	pid_t pgid;

	if (pipe(ready))
		die("pipe");
	pgid = fork();
	if (pgid < 0)
		die("fork");
	if (!pgid) {
		if (tty) {
			int fd;

			setsid();
			fd = open(tty, O_RDWR); /* acquires it */
			if (fd < 0 || tcsetpgrp(fd, getpid()))
				_exit(1);
		} else {
			setpgid(0, 0);
		}
		for (i = 1; i < GROUP_SIZE; i++) {
			pid_t pid = fork();

			if (pid < 0)
				_exit(1);
			if (!pid)
				member(sig, ignore, ready[1]);
		}
		member(sig, ignore, ready[1]);
	}
	if (!tty)
		setpgid(pgid, pgid); /* both sides, as a shell does */
	close(ready[1]);	     /* a member's failure ends the read */
	for (i = 0; i < GROUP_SIZE; i++)
		if (read(ready[0], &(char){ 0 }, 1) != 1)
			die("group member");
	close(ready[0]);
	return pgid;
}

/* Kill the group; its members come back to us (a subreaper) to be reaped. */
static void end_group(pid_t pgid)
{
	kill(-pgid, SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

/* A pty whose slave side has ISIG and no echo: ^C written to the master
 * signals the slave's foreground group. */
static int open_pty(char *name, size_t len)
{
	struct termios t;
	int master, slave;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) || ptsname_r(master, name, len))
		die("pty");
	slave = open(name, O_RDWR | O_NOCTTY);
	if (slave < 0 || tcgetattr(slave, &t))
		die("pty slave");
	t.c_lflag |= ISIG;
	t.c_lflag &= ~(ECHO | ECHOCTL | ICANON);
	t.c_cc[VINTR] = 3;
	if (tcsetattr(slave, TCSANOW, &t))
		die("pty attributes");
	close(slave);
	return master;
}

extern char **environ;

/* startstop's bound: its process group (every pgrptrace it ran) goes with it. */
static void on_alarm(int sig)
{
	kill(0, SIGKILL);
}

/* Spawns @argv (PATH searched) with stdout on @out_fd (-1: /dev/null); its pid. */
static pid_t spawn(char *const argv[], int out_fd)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int err;

	posix_spawn_file_actions_init(&fa);
	if (out_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		errno = err;
		die(argv[0]);
	}
	return pid;
}

static double run_wall(char *const argv[])
{
	double t0 = now();
	int status = reap(spawn(argv, -1));

	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fprintf(stderr, "pgtbench: %s exited with status %#x\n", argv[0], status);
	return now() - t0;
}

/* Whether a process named pgrptrace-links (a run's links being released) is left. */
static bool links_left(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;
	char path[300], comm[32];

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = fgets(comm, sizeof(comm), f) && !strcmp(comm, "pgrptrace-links\n");
		fclose(f);
	}
	closedir(d);
	return found;
}

/* Until no run's links are left; they come back to us (a subreaper) to be reaped. */
static void wait_links_released(void)
{
	double end = now() + 10;

	do
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	while (links_left() && now() < end && !usleep(5000));
}

static bool on_path(const char *name)
{
	char buf[4096], *dir, *save = NULL;
	const char *path = getenv("PATH");

	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char full[4200];

		snprintf(full, sizeof(full), "%s/%s", dir, name);
		if (!access(full, X_OK))
			return true;
	}
	return false;
}

static void print_list(const char *name, const double *v, int n, bool last)
{
	int i;

	printf("\"%s\":[", name);
	for (i = 0; i < n; i++)
		printf("%s%.6f", i ? "," : "", v[i]);
	printf("]%s", last ? "}\n" : ",");
}

#define MAX_RUNS 64

/* One build's figures, each a list of seconds, one a run. */
struct pgt_runs {
	double cold[MAX_RUNS], again[MAX_RUNS], stop[MAX_RUNS], first[MAX_RUNS];
};

/* One round of one build: -- true cold and again, the stop, the first event. */
static void pgt_round(char *pgrptrace, char *out, char *self, char *stamp, struct pgt_runs *r,
		      int i)
{
	char *pgt_argv[] = { pgrptrace, "--json", "-o", out, "--", "true", NULL };
	char *stop_argv[] = { pgrptrace, "--json", "-o", out, "--", self, "stamp", stamp, NULL };
	char *first_argv[] = { pgrptrace, "--json", NULL };
	double t0, end, stamped = 0;
	struct pollfd pfd;
	int p[2];
	FILE *f;
	pid_t pid;

	wait_links_released();
	r->cold[i] = run_wall(pgt_argv);
	r->again[i] = run_wall(pgt_argv);

	wait_links_released();
	unlink(stamp); /* a round whose command never ran has no stamp, not the last one's */
	run_wall(stop_argv);
	end = now();
	f = fopen(stamp, "r");
	if (!f || fscanf(f, "%lf", &stamped) != 1)
		die("the stamp");
	fclose(f);
	r->stop[i] = end - stamped;

	wait_links_released();
	if (pipe2(p, O_CLOEXEC)) /* spawn's dup2 makes stdout inheritable */
		die("pipe");
	t0 = now();
	pid = spawn(first_argv, p[1]);
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	r->first[i] = -1;
	/*
	 * A fork every millisecond, the child gone at once: the probe takes
	 * little CPU from the tracer starting beside it (a spawn of true(1)
	 * each time kept one of this VM's two vCPUs half busy).
	 */
	while (now() - t0 < 30) {
		pid_t child = fork();

		if (child == 0)
			_exit(0);
		if (child > 0)
			waitpid(child, NULL, 0);
		if (poll(&pfd, 1, 1) > 0) {
			char c;

			/* An end of file (pgrptrace failed) is no first event. */
			if ((pfd.revents & POLLIN) && read(p[0], &c, 1) == 1)
				r->first[i] = now() - t0;
			break;
		}
	}
	kill(pid, SIGINT);
	close(p[0]);
	reap(pid);
}

static void print_runs(const char *prefix, const struct pgt_runs *r, int runs, bool last)
{
	char name[64];

	snprintf(name, sizeof(name), "%s", prefix);
	print_list(name, r->cold, runs, false);
	snprintf(name, sizeof(name), "%s_again", prefix);
	print_list(name, r->again, runs, false);
	snprintf(name, sizeof(name), "%s_stop", prefix);
	print_list(name, r->stop, runs, false);
	snprintf(name, sizeof(name), "%s_first_event", prefix);
	print_list(name, r->first, runs, last);
}

static int startstop(char *pgrptrace, int runs, char *out, char *self, char *base)
{
	static double t_true[MAX_RUNS], t_strace[MAX_RUNS];
	static struct pgt_runs cur, old;
	char dir[] = "/tmp/pgtbench-XXXXXX", stamp[64];
	char *true_argv[] = { "true", NULL };
	char *strace_argv[] = { "strace", "-f", "-o", "/dev/null", "--", "true", NULL };
	bool strace = on_path("strace");
	int i;

	/* The stamp in a directory of our own: removed and made again each round. */
	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(stamp, sizeof(stamp), "%s/stamp", dir);
	if (runs > MAX_RUNS)
		runs = MAX_RUNS;
	for (i = 0; i < runs; i++) {
		t_true[i] = run_wall(true_argv);
		if (strace)
			t_strace[i] = run_wall(strace_argv);
		pgt_round(pgrptrace, out, self, stamp, &cur, i);
		if (base)
			pgt_round(base, out, self, stamp, &old, i);
	}
	unlink(stamp);
	rmdir(dir);
	wait_links_released();
	printf("{\"mode\":\"startstop\",\"runs\":%d,", runs);
	print_list("true", t_true, runs, false);
	if (strace)
		print_list("strace", t_strace, runs, false);
	if (base)
		print_runs("base", &old, runs, false);
	print_runs("pgrptrace", &cur, runs, true);
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 0.5, start, end;
	long max_ops = argc > 3 ? atol(argv[3]) : 10000000, ops = 0;
	long forks = 0, deliveries = 0;
	const char *mode;

	if (argc == 3 && !strcmp(argv[1], "stamp")) {
		/* The clock, for startstop: this command's last act before its exit. */
		FILE *f = fopen(argv[2], "w");

		if (!f || fprintf(f, "%.9f\n", now()) < 0 || fclose(f))
			die(argv[2]);
		return 0;
	}
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "startstop")) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n < 0)
			die("/proc/self/exe");
		self[n] = '\0';
		signal(SIGPIPE, SIG_IGN);
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		/* Bounded, whatever blocks: then everything it started goes too. */
		setpgid(0, 0);
		signal(SIGALRM, on_alarm);
		alarm(60 * 15);
		return startstop(argv[2], atoi(argv[3]), argv[4], self, argc == 6 ? argv[5] : NULL);
	}
	if (argc < 2 || secs <= 0 || max_ops <= 0) {
		fprintf(stderr, "usage: pgtbench fork|spawn|setsid|setpgid|signal|signal_ign|"
				"pty|mixed [SECONDS [MAX_OPS]]\n");
		return 2;
	}
	mode = argv[1];
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	alarm((unsigned int)secs + 30); /* bounded, whatever blocks */

	if (!strcmp(mode, "fork") || !strcmp(mode, "spawn") || !strcmp(mode, "setsid") ||
	    !strcmp(mode, "setpgid")) {
		char what = mode[1] == 'o' ? 'f' :
			    mode[1] == 'p' ? 'e' :
			    mode[4] == 'i' ? 's' :
					     'p';

		start = now();
		end = start + secs;
		do {
			one_child(what);
			ops++;
		} while (ops < max_ops && now() < end);
		forks = ops;
	} else if (!strcmp(mode, "signal") || !strcmp(mode, "signal_ign")) {
		pid_t pgid = make_group(SIGUSR1, mode[6] == '_', NULL);

		start = now();
		end = start + secs;
		do {
			if (kill(-pgid, SIGUSR1))
				die("kill");
			ops++;
		} while (ops < max_ops && (ops & 63 || now() < end));
		deliveries = ops * GROUP_SIZE;
		end = now();
		end_group(pgid);
		secs = end - start;
		goto report;
	} else if (!strcmp(mode, "pty")) {
		/*
		 * A round trip per ^C: written to the master, then all four
		 * members' handlers have run (n_tty discards ^Cs still queued
		 * when one is handled, so a stream of writes is not a count).
		 */
		char name[64], got[GROUP_SIZE];
		int master = open_pty(name, sizeof(name)), handled[2];
		size_t have;

		if (pipe(handled))
			die("pipe");
		handled_fd = handled[1];
		pid_t pgid = make_group(SIGINT, false, name);

		handled_fd = -1;
		close(handled[1]);

		start = now();
		end = start + secs;
		/*
		 * Non-blocking: a master writer waiting for room is woken only when
		 * the slave side flushes or reads, and that wakeup can be missed.
		 */
		fcntl(master, F_SETFL, O_NONBLOCK);
		do {
			ssize_t n = write(master, "\003", 1);

			if (n != 1) {
				if (errno != EAGAIN)
					die("write pty");
				usleep(100);
				continue;
			}
			for (have = 0; have < GROUP_SIZE;) {
				n = read(handled[0], got, GROUP_SIZE - have);
				if (n <= 0)
					die("group member");
				have += n;
			}
			ops++;
		} while (ops < max_ops && now() < end);
		deliveries = ops * GROUP_SIZE;
		end = now();
		end_group(pgid);
		close(master);
		close(handled[0]);
		secs = end - start;
		goto report;
	} else if (!strcmp(mode, "mixed")) {
		/* A shell's day: jobs, sessions, commands, and a job signalled. */
		static const char cycle[] = "fspfefsp";
		pid_t pgid = make_group(SIGUSR1, false, NULL);

		start = now();
		end = start + secs;
		do {
			one_child(cycle[ops % (sizeof(cycle) - 1)]);
			forks++;
			if (!(ops % 8)) {
				kill(-pgid, SIGUSR1);
				deliveries += GROUP_SIZE;
			}
			ops++;
		} while (ops < max_ops && now() < end);
		end = now();
		end_group(pgid);
		secs = end - start;
		goto report;
	} else if (!strcmp(mode, "syscall")) {
		start = now();
		end = start + secs;
		do {
			syscall(SYS_getppid); /* glibc does not cache it, but be sure */
			ops++;
		} while (ops < max_ops && (ops & 1023 || now() < end));
		end = now();
		secs = end - start;
		goto report;
	} else if (!strcmp(mode, "hold")) {
		/* hold SECONDS N: N sleeping children, for the memory figure. */
		long i;

		start = now();
		for (i = 0; i < max_ops; i++) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork");
			if (!pid) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				for (;;)
					pause();
			}
		}
		forks = ops = max_ops;
		printf("{\"mode\":\"hold\",\"pid\":%d,\"held\":%ld}\n", getpid(), ops);
		fflush(stdout);
		sleep((unsigned int)secs);
		return 0; /* PR_SET_PDEATHSIG ends the children */
	} else {
		fprintf(stderr, "pgtbench: unknown mode '%s'\n", mode);
		return 2;
	}
	secs = now() - start;
report:
	printf("{\"mode\":\"%s\",\"pid\":%d,\"ops\":%ld,\"secs\":%.6f,\"ops_per_sec\":%.1f,"
	       "\"forks\":%ld,\"deliveries\":%ld}\n",
	       mode, getpid(), ops, secs, ops / secs, forks, deliveries);
	return 0;
}
