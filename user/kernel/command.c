// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "command.h"
#include "model.h"
#include "msg.h"

int command__spawn(struct command *c, char **argv, bool stdout_to_stderr)
{
	int pfd[2];
	char x;

	c->release_fd = -1;
	if (pipe2(pfd, O_CLOEXEC)) {
		p_err("cannot create pipe: %s", strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		p_err("cannot fork: %s", strerror(errno));
		c->pid = 0;
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (c->pid == 0) {
		close(pfd[1]);
		if (read(pfd[0], &x, 1) != 1)
			_exit(127); /* the tracer failed to start */
		if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(126);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		execvp(argv[0], argv);
		p_err("cannot run %s: %s", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(pfd[0]);
	c->release_fd = pfd[1];
	return 0;
}

int command__release(struct command *c, const char *name)
{
	if (c->release_fd < 0)
		return 0;
	if (write(c->release_fd, "x", 1) != 1) {
		p_err("cannot start %s: %s", name, strerror(errno));
		return -1;
	}
	close(c->release_fd);
	c->release_fd = -1;
	return 0;
}

void command__reap(struct command *c, bool block, const volatile sig_atomic_t *stop)
{
	pid_t r;
	int st;

	while (c->adopts && (r = waitpid(-1, &st, WNOHANG)) > 0)
		if (r == c->pid && !c->done) {
			c->status = st;
			c->done = true;
		}
	if (!c->pid || c->done)
		return;
	/* A blocking wait gives way to SIGINT and SIGTERM. */
	do {
		r = waitpid(c->pid, &c->status, block ? 0 : WNOHANG);
	} while (r < 0 && errno == EINTR && !*stop);
	if (r == c->pid)
		c->done = true;
}

int command__exit_code(const struct command *c)
{
	if (!c->done)
		return 0;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 1;
}

void command__close(struct command *c)
{
	if (c->release_fd >= 0)
		close(c->release_fd);
	c->release_fd = -1;
}

bool command__born_below(const struct lineage *line, const struct mproc *p)
{
	const struct lineage *l;

	for (l = p->lineage; l && line; l = l->parent)
		if (l == line)
			return true;
	return false;
}
