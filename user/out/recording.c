// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "recording.h"
#include "msg.h"

#define REC_MAGIC   "PGTREC\0\n"
#define REC_VERSION 2 /* 1: no host name or machine id; still read */
#define REC_END	    0xffffffffU

struct rec_file_header {
	char magic[8];
	__u32 version;
	__u32 size;	  /* of this header: 72 in version 1 */
	char boot_id[40]; /* NUL-terminated */
	__s64 boot_to_real_ns;
	__u32 crc; /* CRC-32 of the header (size bytes) with this field 0 */
	__u32 pad;
	/* version 2 */
	char host_name[72];  /* NUL-terminated, "" if unknown */
	char machine_id[40]; /* NUL-terminated, "" if unknown */
};

#define REC_V1_SIZE 72
_Static_assert(offsetof(struct rec_file_header, host_name) == REC_V1_SIZE, "recording v1 layout");
_Static_assert(sizeof(struct rec_file_header) == 184, "recording header layout");

static __u32 crc(const void *data, size_t len)
{
	return (__u32)crc32(crc32(0L, Z_NULL, 0), data, (uInt)len);
}

static int put(struct rec_writer *w, const void *p, size_t n)
{
	if (!w->err && fwrite(p, n, 1, w->f) != 1)
		w->err = -(errno ?: EIO);
	return w->err;
}

int rec__create(struct rec_writer *w, const char *path, const struct host_id *host,
		__s64 boot_to_real_ns)
{
	struct rec_file_header h = { .version = REC_VERSION, .size = sizeof(h) };
	int fd;

	memset(w, 0, sizeof(*w));
	w->path = path;
	/* The same data as -o gets the same care: private, and never followed. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	w->f = fdopen(fd, "wb");
	if (!w->f) {
		close(fd);
		return -errno;
	}
	memcpy(h.magic, REC_MAGIC, sizeof(h.magic));
	snprintf(h.boot_id, sizeof(h.boot_id), "%s", host->boot_id);
	snprintf(h.host_name, sizeof(h.host_name), "%s", host->name);
	snprintf(h.machine_id, sizeof(h.machine_id), "%s", host->machine_id);
	h.boot_to_real_ns = boot_to_real_ns;
	h.crc = crc(&h, sizeof(h));
	return put(w, &h, sizeof(h));
}

int rec__write(struct rec_writer *w, const void *data, __u32 len)
{
	__u32 frame[2] = { len, crc(data, len) };

	if (w->err)
		return w->err;
	put(w, frame, sizeof(frame));
	put(w, data, len);
	if (!w->err)
		w->count++;
	return w->err;
}

int rec__close(struct rec_writer *w)
{
	__u32 frame[2] = { REC_END, crc(&w->count, sizeof(w->count)) };

	if (!w->f)
		return w->err;
	put(w, frame, sizeof(frame));
	put(w, &w->count, sizeof(w->count));
	if (fclose(w->f) && !w->err)
		w->err = -(errno ?: EIO);
	w->f = NULL;
	return w->err;
}

int rec__open(struct rec_reader *r, const char *path)
{
	struct rec_file_header h;
	__u32 sum;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->f = fopen(path, "rbe");
	if (!r->f) {
		p_err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	setvbuf(r->f, NULL, _IOFBF, 1 << 20);
	memset(&h, 0, sizeof(h));
	if (fread(&h, REC_V1_SIZE, 1, r->f) != 1 || memcmp(h.magic, REC_MAGIC, sizeof(h.magic))) {
		p_err("%s is not a pgrptrace recording", path);
		return -1;
	}
	if (h.version > REC_VERSION || h.version == 0) {
		p_err("%s: recording version %u, this pgrptrace reads 1 to %u", path, h.version,
		      REC_VERSION);
		return -1;
	}
	if (h.size != (h.version == 1 ? REC_V1_SIZE : sizeof(h)) ||
	    (h.size > REC_V1_SIZE &&
	     fread((char *)&h + REC_V1_SIZE, h.size - REC_V1_SIZE, 1, r->f) != 1)) {
		p_err("%s: the recording's header is damaged", path);
		return -1;
	}
	sum = h.crc;
	h.crc = 0;
	if (sum != crc(&h, h.size)) {
		p_err("%s: the recording's header is damaged", path);
		return -1;
	}
	h.boot_id[sizeof(h.boot_id) - 1] = '\0';
	h.host_name[sizeof(h.host_name) - 1] = '\0';
	h.machine_id[sizeof(h.machine_id) - 1] = '\0';
	memcpy(r->boot_id, h.boot_id, sizeof(r->boot_id));
	memcpy(r->host_name, h.host_name, sizeof(r->host_name));
	memcpy(r->machine_id, h.machine_id, sizeof(r->machine_id));
	r->boot_to_real_ns = h.boot_to_real_ns;
	return 0;
}

static int cut(struct rec_reader *r, const char *what)
{
	if (ferror(r->f))
		p_err("cannot read %s: %s", r->path, strerror(errno));
	else
		p_err("%s: %s after %llu records: the recording is incomplete", r->path, what,
		      (unsigned long long)r->count);
	return -1;
}

int rec__next(struct rec_reader *r, void **data, __u32 *len)
{
	__u32 frame[2];
	__u64 count;

	for (;;) {
		if (fread(frame, sizeof(frame), 1, r->f) != 1)
			return cut(r, "no end marker");
		if (frame[0] == REC_END) {
			if (fread(&count, sizeof(count), 1, r->f) != 1 ||
			    frame[1] != crc(&count, sizeof(count)))
				return cut(r, "a damaged end marker");
			if (count != r->count + r->damaged) {
				p_err("%s: %llu records, the end marker says %llu", r->path,
				      (unsigned long long)(r->count + r->damaged),
				      (unsigned long long)count);
				return -1;
			}
			if (fgetc(r->f) != EOF) {
				p_err("%s: data after the end marker", r->path);
				return -1;
			}
			r->ended = true;
			return 0;
		}
		if (frame[0] > REC_MAX_LEN) {
			p_err("%s: bad record length %u after %llu records", r->path, frame[0],
			      (unsigned long long)r->count);
			return -1;
		}
		if (frame[0] > r->cap) {
			void *nb = realloc(r->buf, frame[0]);

			if (!nb) {
				p_err("out of memory reading %s", r->path);
				return -1;
			}
			r->buf = nb;
			r->cap = frame[0];
		}
		if (frame[0] && fread(r->buf, frame[0], 1, r->f) != 1)
			return cut(r, "a record cut short");
		if (frame[1] != crc(r->buf, frame[0])) {
			/* The frame held; the bytes did not: skip just this one. */
			if (!r->damaged++)
				p_err("%s: record %llu is damaged (checksum); "
				      "skipping it",
				      r->path, (unsigned long long)(r->count + r->damaged - 1));
			continue;
		}
		r->count++;
		*data = r->buf;
		*len = frame[0];
		return 1;
	}
}

void rec__free(struct rec_reader *r)
{
	if (r->f)
		fclose(r->f);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}
