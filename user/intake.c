// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "checkpoint.h"
#include "clock.h"
#include "decode.h"
#include "intake.h"
#include "msg.h"

/*
 * Records handled per poll: then the loop writes what is due, ticks and
 * sees signals. libbpf reads a ring buffer until it is empty, which under a
 * flood it never is: the lines formatted meanwhile (hundreds of megabytes)
 * and a stop would wait for the flood to end.
 */
#define POLL_BUDGET  4096
/* The most rounds of POLL_BUDGET that reading the ring buffer dry may take. */
#define DRAIN_ROUNDS 256

/* A copy of a record that arrived while the snapshot was being taken. */
struct queued {
	struct queued *next;
	size_t size;
	__u64 data[]; /* aligned for the record structs */
};

int intake__record(void *ctx, void *data, size_t size)
{
	struct intake *in = ctx;
	struct pgt_event ev;
	struct queued *q;
	__u32 len = (__u32)size;

	/* --record: each record as it came; a failure is said once, and fails the run. */
	if (in->record && in->record->f && !in->record->err && rec__write(in->record, data, len))
		p_err("cannot write %s: %s; recording stopped", in->record_path,
		      strerror(-in->record->err));

	if (decode__record(data, size, &ev)) {
		if (!in->bad_records++)
			p_err("skipping a malformed record (%zu bytes)", size);
		return 0;
	}
	if (in->queueing) {
		q = malloc(sizeof(*q) + size);
		if (!q)
			return -ENOMEM;
		q->next = NULL;
		q->size = size;
		memcpy(q->data, data, size);
		*in->queue_tail = q;
		in->queue_tail = &q->next;
		return 0;
	}
	pipeline__record(in->pl, &ev);
	/* The model now holds every record written: a checkpoint may be taken. */
	if (in->record && in->checkpoint_every && in->record->f &&
	    in->record->bytes - in->record->ckpt_bytes >= in->checkpoint_every)
		intake__checkpoint(in);
	return 0;
}

int intake__checkpoint(struct intake *in)
{
	struct sbuf b = {};
	int err;

	if (!in->record || !in->record->f || in->record->err || !in->checkpoint_every)
		return 0;
	err = checkpoint__dump(in->pl->model, &b);
	/* A replay written again is at its records' time, not ours. */
	err = err   ?:
		      rec__checkpoint(in->record, b.buf, b.len,
				      in->offline ? in->record->max_ts : clock_ns(CLOCK_BOOTTIME));
	sbuf__free(&b);
	if (err == -ENOMEM) {
		/* The next one may fit; a replay only starts further back. */
		in->record->ckpt_bytes = in->record->bytes;
		return 0;
	}
	if (err)
		p_err("cannot write %s: %s; recording stopped", in->record_path, strerror(-err));
	return err;
}

/* libbpf's callback: a record, and -EAGAIN (it stops there) once the budget is spent. */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct intake *in = ctx;
	int err = intake__record(ctx, data, size);

	if (!err && in->budget && !--in->budget)
		return -EAGAIN;
	return err;
}

int intake__open(struct intake *in, int fd)
{
	in->rb = ring_buffer__new(fd, on_sample, in, NULL);
	if (!in->rb) {
		p_err("cannot create ring buffer reader: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The command's exit wakes the loop when it happens: a pidfd (5.3) beside
 * the ring buffer's own epoll fd in an epoll of ours. Without it the exit was
 * seen at the next poll's timeout (up to 50 ms of every `pgrptrace --
 * CMD`), since records wake the reader only in batches. Best effort: on
 * failure the loop polls as before.
 */
void intake__wake_on_exit(struct intake *in, pid_t pid)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep, pidfd;

	if (!in->rb || in->wake)
		return;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		goto fail;
	ev.data.fd = ring_buffer__epoll_fd(in->rb);
	if (epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev))
		goto fail;
	/*
	 * Once: a pidfd stays readable after the exit, and the polls that
	 * follow it (--contain's rounds) must wait for records again.
	 */
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLONESHOT, .data.fd = pidfd };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, pidfd, &ev))
		goto fail;
	in->wake = true;
	in->wake_ep = ep;
	in->wake_pidfd = pidfd;
	return;
fail:
	if (ep >= 0)
		close(ep);
	close(pidfd);
}

int intake__poll(struct intake *in, int timeout_ms)
{
	struct epoll_event evs[2];
	int err;

	in->budget = POLL_BUDGET;
	if (in->wake)
		err = epoll_wait(in->wake_ep, evs, 2, timeout_ms) < 0 ? -errno : 0;
	else
		err = ring_buffer__poll(in->rb, timeout_ms);
	if (err == -EINTR || err == -EAGAIN)
		err = 0;
	if (err < 0)
		return err;
	/* Records submitted without a wakeup are picked up here. */
	if (in->budget) {
		err = ring_buffer__consume(in->rb);
		if (err == -EAGAIN)
			err = 0;
	}
	return err < 0 ? err : 0;
}

int intake__drain(struct intake *in)
{
	int err, round = 0;

	if (!in->rb)
		return 0;
	do {
		in->budget = POLL_BUDGET;
		err = ring_buffer__consume(in->rb);
		if (err == -EAGAIN && !in->queueing && in->flush)
			in->flush(in->ctx);
	} while (err == -EAGAIN && ++round < DRAIN_ROUNDS);
	return err == -EAGAIN ? 0 : err;
}

void intake__hold(struct intake *in)
{
	in->queueing = true;
	in->queue = NULL;
	in->queue_tail = &in->queue;
}

void intake__release(struct intake *in)
{
	struct queued *q, *next;
	struct pgt_event ev;

	in->queueing = false;
	for (q = in->queue; q; q = next) {
		next = q->next;
		if (!decode__record(q->data, q->size, &ev))
			pipeline__record(in->pl, &ev);
		free(q);
	}
	in->queue = NULL;
}

void intake__free(struct intake *in)
{
	if (in->wake) {
		close(in->wake_ep);
		close(in->wake_pidfd);
		in->wake = false;
	}
	ring_buffer__free(in->rb);
	in->rb = NULL;
}
