// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests: --record files. A whole recording replays; every cut and
 * every single flipped bit is noticed (issue 14, item 13).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <zlib.h>
#include "recording.h"

static const char boot[] = "0c6b8a2e-4f7d-4e5b-9a51-3d2f1e0a9b8c";

static char path[64];
static struct host_id host;

static int setup(void **state)
{
	int fd;

	(void)state;
	host__set(&host, "recorded-host", "0123456789abcdef0123456789abcdef", boot);
	snprintf(path, sizeof(path), "/tmp/pgt-rec-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(path); /* rec__create makes it, and refuses an existing file */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static const char blob[] = "a checkpoint's bytes";

/* Three records of 24, 1 and 40 bytes, a checkpoint before the third. */
static void write_three(void)
{
	struct rec_writer w;
	char a[24], b[1] = { 7 }, c[40];

	memset(a, 0x11, sizeof(a));
	memset(c, 0x22, sizeof(c));
	assert_int_equal(rec__create(&w, path, &host, 123456789), 0);
	assert_int_equal(rec__write(&w, a, sizeof(a)), 0);
	assert_int_equal(rec__write(&w, b, sizeof(b)), 0);
	assert_int_equal(rec__checkpoint(&w, blob, sizeof(blob), 5000), 0);
	assert_int_equal(rec__write(&w, c, sizeof(c)), 0);
	assert_int_equal(rec__close(&w), 0);
}

/*
 * Replays the file: 0 if it read to a good end with nothing damaged. What
 * the reader says goes to /dev/null: the loops below say it a thousand times.
 */
static int replay(__u64 *records)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);
	struct rec_reader r;
	void *data;
	__u32 len;
	int ret = -1;

	dup2(null, STDERR_FILENO);
	if (rec__open(&r, path))
		goto out;
	while ((ret = rec__next(&r, &data, &len)) > 0)
		;
	if (records)
		*records = r.count;
	if (!ret && r.damaged)
		ret = -1;
out:
	rec__free(&r);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(null);
	return ret;
}

static char *slurp(size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(4096);

	assert_non_null(f);
	*n = fread(buf, 1, 4096, f);
	fclose(f);
	return buf;
}

static void spill(const char *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
}

static void test_whole_recording_replays(void **state)
{
	struct rec_reader r;
	struct stat st;
	__u64 n = 0;

	(void)state;
	write_three();
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(replay(&n), 0);
	assert_int_equal(n, 4); /* the checkpoint is a record too */
	assert_int_equal(rec__open(&r, path), 0);
	assert_string_equal(r.boot_id, boot);
	assert_string_equal(r.host_name, "recorded-host");
	assert_string_equal(r.machine_id, "0123456789abcdef0123456789abcdef");
	assert_int_equal(r.boot_to_real_ns, 123456789);
	rec__free(&r);
}

static void test_existing_file_is_refused(void **state)
{
	struct rec_writer w;

	(void)state;
	write_three();
	assert_int_equal(rec__create(&w, path, &host, 0), -EEXIST);
}

static void test_every_cut_fails(void **state)
{
	size_t n, cut;
	char *buf;

	(void)state;
	write_three();
	buf = slurp(&n);
	for (cut = 0; cut < n; cut++) {
		spill(buf, cut);
		if (replay(NULL) != -1)
			fail_msg("a recording cut to %zu of %zu bytes replayed as whole", cut, n);
	}
	spill(buf, n);
	assert_int_equal(replay(NULL), 0);
	free(buf);
}

static void test_every_bit_flip_fails(void **state)
{
	size_t n, bit;
	char *buf;

	(void)state;
	write_three();
	buf = slurp(&n);
	for (bit = 0; bit < n * 8; bit++) {
		buf[bit / 8] ^= (char)(1 << (bit % 8));
		spill(buf, n);
		if (replay(NULL) != -1)
			fail_msg("bit %zu of %zu flipped, and the recording replayed clean", bit,
				 n * 8);
		buf[bit / 8] ^= (char)(1 << (bit % 8));
	}
	free(buf);
}

static void test_data_after_end_fails(void **state)
{
	size_t n;
	char *buf;

	(void)state;
	write_three();
	buf = slurp(&n);
	buf[n] = 'x';
	spill(buf, n + 1);
	assert_int_equal(replay(NULL), -1);
	free(buf);
}

/* A version 1 recording (no host name or machine id) still replays; the host is unknown. */
static void test_version_1_is_read(void **state)
{
	struct {
		char magic[8];
		__u32 version, size;
		char boot_id[40];
		__s64 boot_to_real_ns;
		__u32 crc, pad;
	} h = { .version = 1, .size = 72, .boot_to_real_ns = 42 };
	__u64 count = 0;
	__u32 end[2] = { 0xffffffffU,
			 (__u32)crc32(crc32(0L, Z_NULL, 0), (void *)&count, sizeof(count)) };
	struct rec_reader r;
	FILE *f;

	(void)state;
	_Static_assert(sizeof(h) == 72, "version 1 header");
	memcpy(h.magic, "PGTREC\0\n", 8);
	strcpy(h.boot_id, boot);
	h.crc = (__u32)crc32(crc32(0L, Z_NULL, 0), (void *)&h, sizeof(h));
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	assert_int_equal(fwrite(end, sizeof(end), 1, f), 1);
	assert_int_equal(fwrite(&count, sizeof(count), 1, f), 1);
	fclose(f);
	assert_int_equal(replay(NULL), 0);
	assert_int_equal(rec__open(&r, path), 0);
	assert_string_equal(r.boot_id, boot);
	assert_string_equal(r.host_name, "");
	assert_string_equal(r.machine_id, "");
	assert_int_equal(r.boot_to_real_ns, 42);
	rec__free(&r);
}

/* The index finds the checkpoint; its parts give its bytes; the records go on after it. */
static void checkpoint_back(const char *want, size_t n, __u64 before)
{
	struct rec_reader r;
	void *data, *got;
	__u32 len;

	assert_int_equal(rec__open(&r, path), 0);
	assert_int_equal(rec__read_index(&r), 1);
	assert_int_equal(r.index[0].count, before);
	assert_int_equal(rec__seek(&r, 0), 0);
	assert_int_equal(rec__next(&r, &data, &len), 1);
	assert_int_equal(((struct pgt_hdr *)data)->type, REC_CHECKPOINT);
	assert_int_equal(rec__read_checkpoint(&r, data, len, &got), (long)n);
	assert_memory_equal(got, want, n);
	free(got);
	assert_int_equal(rec__next(&r, &data, &len), 1);
	assert_int_equal(len, 40);
	assert_int_equal(rec__next(&r, &data, &len), 0);
	assert_int_equal(rec__seek(&r, -1), 0);
	assert_int_equal(rec__next(&r, &data, &len), 1);
	assert_int_equal(len, 24);
	rec__free(&r);
}

static void test_checkpoint_found(void **state)
{
	(void)state;
	write_three();
	checkpoint_back(blob, sizeof(blob), 2);
}

/* A checkpoint longer than a record: in parts. */
static void test_checkpoint_in_parts(void **state)
{
	size_t n = 2 * REC_MAX_LEN + 12345, i;
	char *big = malloc(n), c[40] = {};
	struct rec_writer w;

	(void)state;
	for (i = 0; i < n; i++)
		big[i] = (char)(i * 7);
	assert_int_equal(rec__create(&w, path, &host, 0), 0);
	assert_int_equal(rec__checkpoint(&w, big, n, 1), 0);
	assert_int_equal(w.count, 3);
	assert_int_equal(rec__write(&w, c, sizeof(c)), 0);
	assert_int_equal(rec__close(&w), 0);
	assert_int_equal(replay(NULL), 0);
	/* The first read back from the start is the checkpoint's first part, at record 0. */
	{
		struct rec_reader r;
		void *data, *got;
		__u32 len;

		assert_int_equal(rec__open(&r, path), 0);
		assert_int_equal(rec__read_index(&r), 1);
		assert_int_equal(rec__seek(&r, 0), 0);
		assert_int_equal(rec__next(&r, &data, &len), 1);
		assert_int_equal(rec__read_checkpoint(&r, data, len, &got), (long)n);
		assert_memory_equal(got, big, n);
		free(got);
		rec__free(&r);
	}
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_whole_recording_replays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_file_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_cut_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_bit_flip_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_data_after_end_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_version_1_is_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_in_parts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
