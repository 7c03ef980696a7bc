/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --record and --replay: the raw records in a file of their own.
 *
 *   header  "PGTREC\0\n", version, header size, the boot id, the clock
 *           offset (CLOCK_REALTIME - CLOCK_BOOTTIME) at the start, CRC-32;
 *           since version 2 also the host name and machine id
 *   record  u32 length, u32 CRC-32 of the bytes, the bytes
 *   end     u32 0xffffffff, u32 CRC-32 of the count, u64 record count
 *   index   since version 3: u32 0xfffffffe, u32 CRC-32 of what follows up
 *           to the footer, u64 n, n checkpoint entries (offset, records
 *           before, the latest record time before, time written); then
 *           the footer: u64 the index's offset, "PGTIDX\0\n"
 *
 * A checkpoint (user/core/checkpoint.h) is written as records of their own
 * type (REC_CHECKPOINT, never a kernel record's), its bytes cut in parts;
 * a replay from the start passes over them.
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
#include "pgrptrace.h"

#define REC_MAX_LEN    (1U << 20)
/* The type, in pgt_hdr.type, of a checkpoint's parts: not a kernel record's. */
#define REC_CHECKPOINT 0x7fff

/* A checkpoint part: the header, then up to REC_CKPT_PART bytes of it. */
struct rec_ckpt_part {
	struct pgt_hdr hdr; /* ts_ns: when it was taken; seq 0 */
	__u32 part;	    /* 0, 1, ... */
	__u32 last;	    /* 1 on its last part */
	__u64 total;	    /* the checkpoint's bytes */
	char data[];
};
#define REC_CKPT_PART (REC_MAX_LEN - sizeof(struct rec_ckpt_part))

/* Where a checkpoint is, in the index. */
struct rec_index_entry {
	__u64 offset; /* of its first part */
	__u64 count;  /* records before it */
	__u64 max_ts; /* the latest record time before it: the model's moment */
	__u64 ts;     /* when it was taken */
};

struct rec_writer {
	FILE *f;
	const char *path;
	__u64 count;
	__u64 bytes;	  /* written, header and frames included */
	__u64 max_ts;	  /* the latest record time written */
	__u64 ckpt_bytes; /* bytes at the last checkpoint */
	struct rec_index_entry *index;
	unsigned int nindex, index_cap;
	int err; /* first error, as -errno */
};

/* Creates @path (0600, never an existing file or a symlink). Returns 0 or -errno. */
int rec__create(struct rec_writer *w, const char *path, const struct host_id *host,
		__s64 boot_to_real_ns);
/* Returns 0, or the first error (the writer then stops writing). */
int rec__write(struct rec_writer *w, const void *data, __u32 len);
/*
 * A checkpoint of @len bytes taken at @ts_ns: parts, and an entry of the
 * index. The model must hold every record written before. Returns 0 or
 * the first error.
 */
int rec__checkpoint(struct rec_writer *w, const void *data, size_t len, __u64 ts_ns);
/* Writes the end marker and the index, and closes. Returns 0 or the first error. */
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
	__u32 version;
	long long data_off;	       /* of the first record */
	struct rec_index_entry *index; /* rec__read_index()'s, NULL if none */
	unsigned int nindex;
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
/*
 * The checkpoints' index of a version 3 recording that was closed: returns
 * their number (r->index), 0 for none or an older file, -1 on a damaged
 * index (said).
 */
int rec__read_index(struct rec_reader *r);
/* Read on from checkpoint @i of the index, or from the first record with -1. Returns 0 or -1. */
int rec__seek(struct rec_reader *r, int i);
/*
 * The checkpoint whose first part rec__next() just gave in @data: its bytes
 * (malloc'd, in *out), read on to its last part. Returns its length, or -1
 * (said).
 */
long rec__read_checkpoint(struct rec_reader *r, const void *data, __u32 len, void **out);
void rec__free(struct rec_reader *r);

#endif /* __RECORDING_H */
