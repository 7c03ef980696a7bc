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
#define REC_VERSION 3 /* 1: no host name or machine id; 2: no index; both still read */
#define REC_END	    0xffffffffU
#define REC_INDEX   0xfffffffeU
#define REC_FOOTER  "PGTIDX\0\n"

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

/* The index's checksum: its count, then its entries. */
static __u32 index_crc(__u64 n, const struct rec_index_entry *e)
{
	uLong sum = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)&n, sizeof(n));

	if (n)
		sum = crc32(sum, (const Bytef *)e, (uInt)(n * sizeof(*e)));
	return (__u32)sum;
}

static int put(struct rec_writer *w, const void *p, size_t n)
{
	if (!w->err && fwrite(p, n, 1, w->f) != 1)
		w->err = -(errno ?: EIO);
	if (!w->err)
		w->bytes += n;
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
	if (len >= sizeof(struct pgt_hdr) &&
	    ((const struct pgt_hdr *)data)->type != REC_CHECKPOINT &&
	    ((const struct pgt_hdr *)data)->ts_ns > w->max_ts)
		w->max_ts = ((const struct pgt_hdr *)data)->ts_ns;
	return w->err;
}

int rec__checkpoint(struct rec_writer *w, const void *data, size_t len, __u64 ts_ns)
{
	struct rec_index_entry e = { w->bytes, w->count, w->max_ts, ts_ns };
	struct rec_ckpt_part *part = malloc(REC_MAX_LEN);
	size_t off = 0, n;
	__u32 i = 0;

	if (w->err || !part) {
		free(part);
		return w->err ?: -ENOMEM;
	}
	do {
		n = len - off < REC_CKPT_PART ? len - off : REC_CKPT_PART;
		memset(part, 0, sizeof(*part));
		part->hdr.ts_ns = ts_ns;
		part->hdr.type = REC_CHECKPOINT;
		part->hdr.size = sizeof(*part);
		part->part = i++;
		part->last = off + n == len;
		part->total = len;
		memcpy(part->data, (const char *)data + off, n);
		off += n;
	} while (!rec__write(w, part, (__u32)(sizeof(*part) + n)) && off < len);
	free(part);
	if (w->err)
		return w->err;
	if (w->nindex == w->index_cap) {
		unsigned int cap = w->index_cap ? 2 * w->index_cap : 16;
		struct rec_index_entry *ni = realloc(w->index, cap * sizeof(*ni));

		if (!ni)
			return 0; /* the checkpoint stays in the stream, out of the index */
		w->index = ni;
		w->index_cap = cap;
	}
	w->index[w->nindex++] = e;
	w->ckpt_bytes = w->bytes;
	return 0;
}

int rec__close(struct rec_writer *w)
{
	__u32 frame[2] = { REC_END, crc(&w->count, sizeof(w->count)) };
	__u64 n = w->nindex, at;

	if (!w->f)
		return w->err;
	put(w, frame, sizeof(frame));
	put(w, &w->count, sizeof(w->count));
	at = w->bytes;
	frame[0] = REC_INDEX;
	frame[1] = index_crc(n, w->index);
	put(w, frame, sizeof(frame));
	put(w, &n, sizeof(n));
	if (n)
		put(w, w->index, n * sizeof(*w->index));
	put(w, &at, sizeof(at));
	put(w, REC_FOOTER, 8);
	free(w->index);
	w->index = NULL;
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
	r->version = h.version;
	r->data_off = ftello(r->f);
	return 0;
}

/* The index of @n entries at the file's position, checked against @sum; into r->index. */
static int read_entries(struct rec_reader *r, __u32 sum, bool keep)
{
	struct rec_index_entry *e = NULL;
	__u64 n;

	if (fread(&n, sizeof(n), 1, r->f) != 1 || n > REC_MAX_LEN)
		return -1;
	if (n) {
		e = malloc(n * sizeof(*e));
		if (!e || fread(e, sizeof(*e), n, r->f) != n) {
			free(e);
			return -1;
		}
	}
	if (sum != index_crc(n, e)) {
		free(e);
		return -1;
	}
	if (keep) {
		free(r->index);
		r->index = e;
		r->nindex = (unsigned int)n;
	} else {
		free(e);
	}
	return 0;
}

int rec__read_index(struct rec_reader *r)
{
	__u32 frame[2];
	char magic[8];
	__u64 at;

	if (r->version < 3)
		return 0;
	if (fseeko(r->f, -16, SEEK_END) || fread(&at, sizeof(at), 1, r->f) != 1 ||
	    fread(magic, sizeof(magic), 1, r->f) != 1 || memcmp(magic, REC_FOOTER, 8))
		return 0; /* not closed: no index, a replay from the start says what is wrong */
	if (fseeko(r->f, (off_t)at, SEEK_SET) || fread(frame, sizeof(frame), 1, r->f) != 1 ||
	    frame[0] != REC_INDEX || read_entries(r, frame[1], true)) {
		p_err("%s: the checkpoints' index is damaged", r->path);
		return -1;
	}
	return (int)r->nindex;
}

int rec__seek(struct rec_reader *r, int i)
{
	off_t at = i < 0 ? r->data_off : (off_t)r->index[i].offset;

	if (fseeko(r->f, at, SEEK_SET)) {
		p_err("cannot read %s: %s", r->path, strerror(errno));
		return -1;
	}
	r->count = i < 0 ? 0 : r->index[i].count;
	r->damaged = 0;
	return 0;
}

long rec__read_checkpoint(struct rec_reader *r, const void *data, __u32 len, void **out)
{
	const struct rec_ckpt_part *part = data;
	__u64 total = len >= sizeof(*part) ? part->total : 0, got = 0;
	__u32 expect = 0;
	void *next;
	char *buf;
	int ret = 1;

	*out = NULL;
	if (len < sizeof(*part) || part->part || total > (1ULL << 32)) {
		p_err("%s: a checkpoint's first part is damaged", r->path);
		return -1;
	}
	buf = malloc(total + 1);
	if (!buf) {
		p_err("out of memory reading %s", r->path);
		return -1;
	}
	for (;;) {
		__u32 n = len - (__u32)sizeof(*part);

		if (part->hdr.type != REC_CHECKPOINT || part->part != expect++ ||
		    part->total != total || n > total - got)
			break;
		memcpy(buf + got, part->data, n);
		got += n;
		if (part->last) {
			if (got != total)
				break;
			*out = buf;
			return (long)total;
		}
		ret = rec__next(r, &next, &len);
		if (ret <= 0 || len < sizeof(*part))
			break;
		part = next;
	}
	if (ret > 0)
		p_err("%s: a checkpoint's parts are damaged", r->path);
	free(buf);
	return -1;
}

/* The footer after the index: the index's offset, @index_at, then the magic. */
static bool footer_ok(struct rec_reader *r, long long index_at)
{
	char magic[8];
	__u64 at;

	return fread(&at, sizeof(at), 1, r->f) == 1 && fread(magic, sizeof(magic), 1, r->f) == 1 &&
	       !memcmp(magic, REC_FOOTER, sizeof(magic)) && index_at >= 0 && at == (__u64)index_at;
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
	long long index_at;
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
			index_at = ftello(r->f);
			if (r->version >= 3 &&
			    (fread(frame, sizeof(frame), 1, r->f) != 1 || frame[0] != REC_INDEX ||
			     read_entries(r, frame[1], false) || !footer_ok(r, index_at))) {
				if (feof(r->f))
					return cut(r, "no whole index after the end marker");
				p_err("%s: the checkpoints' index is damaged", r->path);
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
	free(r->index);
	memset(r, 0, sizeof(*r));
}
