/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --record and --replay: the raw records in a file of their own.
 *
 *   header  "PGTREC\0\n", version, header size, the boot id, the clock
 *           offset (CLOCK_REALTIME - CLOCK_BOOTTIME) at the start, CRC-32;
 *           since version 2 also the host name and machine id
 *   record  u32 length, u32 CRC-32 of the bytes, the bytes
 *   end     u32 0xffffffff, u32 CRC-32 of the count, u64 record count
 *
 * A file without its end marker was cut short; a record whose checksum
 * does not match was damaged. Either fails the replay. All numbers are in
 * the host's byte order: a recording is replayed on a machine like its own.
 */
#ifndef __RECORDING_H
#define __RECORDING_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "host.h"

#define REC_MAX_LEN (1U << 20)

struct rec_writer {
	FILE *f;
	const char *path;
	__u64 count;
	int err; /* first error, as -errno */
};

/* Creates @path (0600, never an existing file or a symlink). Returns 0 or -errno. */
int rec__create(struct rec_writer *w, const char *path, const struct host_id *host,
		__s64 boot_to_real_ns);
/* Returns 0, or the first error (the writer then stops writing). */
int rec__write(struct rec_writer *w, const void *data, __u32 len);
/* Writes the end marker and closes. Returns 0 or the first error. */
int rec__close(struct rec_writer *w);

struct rec_reader {
	FILE *f;
	const char *path;
	char boot_id[40];
	char host_name[72];  /* "" if unknown (a version 1 recording) */
	char machine_id[40]; /* "" if unknown */
	__s64 boot_to_real_ns;
	__u64 count;   /* records read */
	__u64 damaged; /* records skipped: checksum mismatch */
	bool ended;    /* the end marker was read, and agreed */
	void *buf;
	size_t cap;
};

/* Opens and checks the header; says what is wrong on stderr. Returns 0 or -1. */
int rec__open(struct rec_reader *r, const char *path);
/*
 * The next record, in data and len: returns 1, 0 at a good end, or -1 on an
 * error it has said on stderr (a cut, a bad length, a read error).
 */
int rec__next(struct rec_reader *r, void **data, __u32 *len);
void rec__free(struct rec_reader *r);

#endif /* __RECORDING_H */
