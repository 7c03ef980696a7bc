// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Randomized fidelity workload for `pgrptrace --verify -- fidelity FIRST COUNT STEPS`.
 *
 * For each seed, a pool of worker processes is driven at random: fork, double
 * fork, setsid, setpgid (self, another group, a child), subreaper on/off,
 * reap, exit. Every few steps, at a quiet point where no operation is in
 * flight, the generator asks its parent (the tracer) to compare its model
 * with /proc (SIGUSR1) and waits for the answer (SIGUSR1 back).
 *
 * The generator is a child subreaper, so every orphan comes back to it and
 * none reaches PID 1; it signals only the workers it created.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define MAX_WORKERS 24
#define QUIET_EVERY 8

enum op {
	OP_FORK = 1,
	OP_DFORK,
	OP_SETSID,
	OP_PGID_SELF,
	OP_PGID_JOIN,
	OP_PGID_CHILD,
	OP_SUBREAPER,
	OP_REAP,
	OP_EXIT,
	OP_MAX,
};

struct cmd {
	int op;
	int arg;
};

struct reply {
	int kind; /* 0: result of a command, 1: a new worker is ready */
	int pid;
	int result;
	int err;
};

struct worker {
	pid_t pid;
	pid_t parent; /* the worker that forked it, 0 for a root */
	int fd;	      /* its command FIFO, opened for writing */
	int alive;
};

static char dir[64];
static int reply_fd;
static struct worker workers[4096];
static int nworkers;

static void die(const char *what)
{
	fprintf(stderr, "fidelity: %s: %s\n", what, strerror(errno));
	exit(100);
}

static void send_reply(int kind, int result, int err)
{
	struct reply r = { kind, getpid(), result, err };

	if (write(reply_fd, &r, sizeof(r)) != sizeof(r))
		_exit(101);
}

static void worker_loop(void) __attribute__((noreturn));

static pid_t worker_fork(void)
{
	pid_t p = fork();

	if (p == 0)
		worker_loop();
	return p;
}

static void worker_loop(void)
{
	char path[128];
	struct cmd c;
	pid_t p;
	int in, r, n;

	snprintf(path, sizeof(path), "%s/%d", dir, getpid());
	if (mkfifo(path, 0600))
		_exit(102);
	in = open(path, O_RDWR | O_CLOEXEC); /* RDWR: never EOF */
	if (in < 0)
		_exit(103);
	send_reply(1, 0, 0);
	for (;;) {
		if (read(in, &c, sizeof(c)) != sizeof(c))
			_exit(104);
		r = 0;
		errno = 0;
		switch (c.op) {
		case OP_FORK:
			close(in); /* the child opens its own */
			p = worker_fork();
			in = open(path, O_RDWR | O_CLOEXEC);
			r = p;
			break;
		case OP_DFORK:
			p = fork();
			if (p == 0) {
				worker_fork();
				_exit(0);
			}
			waitpid(p, NULL, 0);
			r = p;
			break;
		case OP_SETSID:
			r = setsid();
			break;
		case OP_PGID_SELF:
			r = setpgid(0, 0);
			break;
		case OP_PGID_JOIN:
			r = setpgid(0, c.arg);
			break;
		case OP_PGID_CHILD:
			r = setpgid(c.arg, c.arg);
			break;
		case OP_SUBREAPER:
			r = prctl(PR_SET_CHILD_SUBREAPER, c.arg, 0, 0, 0);
			break;
		case OP_REAP:
			for (n = 0; waitpid(-1, NULL, WNOHANG) > 0; n++)
				;
			r = n;
			break;
		case OP_EXIT:
			send_reply(0, 0, 0);
			_exit(0);
		}
		send_reply(0, r, r < 0 ? errno : 0);
	}
}

static void read_reply(struct reply *r)
{
	if (read(reply_fd, r, sizeof(*r)) != sizeof(*r))
		die("read reply");
}

static void add_worker(pid_t pid, pid_t parent)
{
	char path[128];

	if (nworkers == (int)(sizeof(workers) / sizeof(workers[0])))
		die("too many workers");
	snprintf(path, sizeof(path), "%s/%d", dir, pid);
	workers[nworkers].pid = pid;
	workers[nworkers].parent = parent;
	workers[nworkers].fd = open(path, O_WRONLY | O_CLOEXEC);
	if (workers[nworkers].fd < 0)
		die(path);
	workers[nworkers++].alive = 1;
}

/* Run one command; collect its reply and, for forks, the new worker's. */
static struct reply run(struct worker *w, int op, int arg)
{
	struct cmd c = { op, arg };
	struct reply r, got = {};
	int want = (op == OP_FORK || op == OP_DFORK) ? 2 : 1;

	if (write(w->fd, &c, sizeof(c)) != sizeof(c))
		die("write command");
	while (want--) {
		read_reply(&r);
		if (r.kind == 1)
			add_worker(r.pid, w->pid);
		else
			got = r;
	}
	if (op == OP_EXIT) {
		w->alive = 0;
		close(w->fd);
	}
	return got;
}

static int alive_count(void)
{
	int i, n = 0;

	for (i = 0; i < nworkers; i++)
		n += workers[i].alive;
	return n;
}

static struct worker *pick(void)
{
	int n = alive_count(), k, i;

	if (!n)
		return NULL;
	k = rand() % n;
	for (i = 0; i < nworkers; i++)
		if (workers[i].alive && k-- == 0)
			return &workers[i];
	return NULL;
}

static int pgid_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int pgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 2, "%*c %*d %d", &pgid);
	fclose(f);
	return pgid;
}

static void reap_ours(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static int cur_seed, cur_step;

/*
 * Ask the tracer to check its model now, and wait for its answer. It drains
 * its ring buffer and retries transient states itself; its answer carries
 * the number of differences: a run that differs says at which seed and
 * step, to be run again alone (fidelity SEED 1 STEPS).
 */
static void quiet_point(void)
{
	struct timespec timeout = { 60, 0 };
	siginfo_t info;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (kill(getppid(), SIGUSR1))
		die("kill tracer");
	if (sigtimedwait(&set, &info, &timeout) < 0)
		die("no answer from the tracer");
	if (info.si_code == SI_QUEUE && info.si_value.sival_int > 0)
		fprintf(stderr, "fidelity: seed %d, step %d: %d differences\n", cur_seed, cur_step,
			info.si_value.sival_int);
}

static void one_step(void)
{
	struct worker *w = pick(), *c;
	int op, i;

	if (!w || (alive_count() < 3 && rand() % 2)) {
		/* A new root worker, a child of the generator. */
		pid_t p = worker_fork();
		struct reply r;

		if (p < 0)
			die("fork");
		read_reply(&r);
		add_worker(r.pid, 0);
		return;
	}
	op = 1 + rand() % (OP_MAX - 1);
	if ((op == OP_FORK || op == OP_DFORK) && alive_count() >= MAX_WORKERS)
		op = OP_EXIT;
	switch (op) {
	case OP_PGID_JOIN:
		c = pick();
		run(w, op, pgid_of(c->pid));
		break;
	case OP_PGID_CHILD:
		for (i = 0; i < nworkers; i++)
			if (workers[i].alive && workers[i].parent == w->pid)
				break;
		if (i < nworkers)
			run(w, op, workers[i].pid);
		else
			run(w, OP_PGID_SELF, 0);
		break;
	case OP_SUBREAPER:
		run(w, op, rand() % 2);
		break;
	default:
		run(w, op, 0);
		break;
	}
	if (rand() % 4 == 0)
		reap_ours();
}

static void cleanup_all(void)
{
	int i;

	for (i = 0; i < nworkers; i++) {
		if (workers[i].alive) {
			kill(workers[i].pid, SIGKILL);
			close(workers[i].fd);
		}
	}
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	for (i = 0; i < nworkers; i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/%d", dir, workers[i].pid);
		unlink(path);
	}
	nworkers = 0;
}

int main(int argc, char **argv)
{
	int first, count, steps, seed, s, quiets = 0;
	char path[128];
	sigset_t set;

	if (argc != 4) {
		fprintf(stderr, "usage: fidelity FIRST_SEED COUNT STEPS\n");
		return 2;
	}
	first = atoi(argv[1]);
	count = atoi(argv[2]);
	steps = atoi(argv[3]);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("prctl");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	snprintf(dir, sizeof(dir), "/tmp/pgt-fidelity-XXXXXX");
	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(path, sizeof(path), "%s/reply", dir);
	if (mkfifo(path, 0600))
		die("mkfifo");
	reply_fd = open(path, O_RDWR | O_CLOEXEC);
	if (reply_fd < 0)
		die(path);
	for (seed = first; seed < first + count; seed++) {
		srand((unsigned int)seed);
		cur_seed = seed;
		for (s = 1; s <= steps; s++) {
			cur_step = s;
			one_step();
			if (s % QUIET_EVERY == 0) {
				quiet_point();
				quiets++;
			}
		}
		cleanup_all();
		quiet_point();
		quiets++;
	}
	close(reply_fd);
	unlink(path);
	rmdir(dir);
	fprintf(stderr, "fidelity: %d seeds, %d quiet points\n", count, quiets);
	return 0;
}
