/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Command mode (pgrptrace -- CMD): the command is forked at start but held
 * on a pipe until the programs are attached and it is in the filter set,
 * so that its exec and everything after it is seen.
 */
#ifndef __COMMAND_H
#define __COMMAND_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct command {
	pid_t pid;	/* 0 until spawned */
	int release_fd; /* the held child's pipe, -1 once released */
	int status;	/* as waitpid() gives it, valid when done */
	bool done;	/* reaped */
	bool adopts;	/* we are a subreaper (--contain): orphans of its tree are ours to reap */
};

/*
 * Forks @argv, held; with @stdout_to_stderr its standard output is our
 * standard error (our stdout carries the records). Returns 0, or -1 said on
 * stderr.
 */
int command__spawn(struct command *c, char **argv, bool stdout_to_stderr);
/* Lets the held command run. Returns 0, or -1 said on stderr. */
int command__release(struct command *c, const char *name);
/*
 * Reaps the command if it has ended; with @block, waits for it, giving way
 * when *@stop is set by a signal handler. With @c->adopts, also every
 * adopted orphan that has ended.
 */
void command__reap(struct command *c, bool block, const volatile sig_atomic_t *stop);
/* Its exit status as a shell gives it (128 + signal), 0 if not reaped. */
int command__exit_code(const struct command *c);
/* Closes the pipe of a command never released: it exits 127 unseen. */
void command__close(struct command *c);

struct lineage;
struct mproc;

/*
 * Whether @p is the command (whose lineage link is @line) or was born below
 * it, by birth lineage: one that daemonized has another parent now, and a
 * lineage has no depth limit.
 */
bool command__born_below(const struct lineage *line, const struct mproc *p);

#endif /* __COMMAND_H */
