// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: arbitrary bytes as a stream of ring-buffer records, fed
 * through decode and the pipeline that the tracer itself uses (derived tty
 * records, signal merging, escapes, the model), both encoders, and the tree
 * now and then. Input: repeated [u8 type][u16 length][bytes]; the
 * record is the bytes, padded with zeros or cut to the length declared for
 * the type (so that most inputs reach past validation), or taken as is when
 * the type byte is 0xff (to exercise validation itself). An exec's parts are
 * made to fit its record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "decode.h"
#include "format.h"
#include "pipeline.h"
#include "tree.h"

static struct sbuf out, arena;
static struct fmt_ctx fc = { .boot_to_real_ns = 1700000000LL * 1000000000LL };
/* Set for each input: the records take what it knows of their processes. */
static const struct model *model;
static struct expect_list rules;
static const char rules_text[] = "[any-sh]\ncomm = sh*\n[uid0]\nuid = 0\nkind = setsid pgrp\n";

static void on_field(void *ctx, const struct field *f)
{
	*(size_t *)ctx += f->text_len + f->bytes_len;
}

/* @r in every format, as it is and once held (moved into an arena, as the output does). */
static void formats(struct record *r)
{
	struct record *h;
	size_t n = 0, off;

	json__record(&out, &fc, r);
	text__record(&out, &fc, r);
	ecs__record(&out, &fc, r);
	json__walk(&fc, r, on_field, &n);
	sbuf__reset(&arena);
	off = record__hold(r, &arena);
	if (off == (size_t)-1)
		return;
	h = record__at(&arena, off);
	json__record(&out, &fc, h);
	json__walk(&fc, h, on_field, &n);
	record__release(h);
}

static void on_cause(void *ctx, const struct sig_cause *c)
{
	struct record r;

	record__signal(&r, model, c);
	formats(&r);
}

static void on_escape(void *ctx, const struct escape *e)
{
	struct record r;

	record__escape(&r, model, e);
	formats(&r);
}

static void on_event(void *ctx, const struct pgt_event *ev)
{
	struct record r;

	record__event(&r, model, ev);
	formats(&r);
}

static const struct pipeline_ops ops = {
	.event = on_event,
	.signal = on_cause,
	.escape = on_escape,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model *m = model__new();
	struct tree_opts to = { .ascii = true };
	struct pipeline pl;
	__u64 aligned[1024];
	unsigned int n = 0;

	char err[128];

	if (!m)
		return 0;
	if (!rules.nr && expect__parse(&rules, rules_text, "fuzz", err, sizeof(err)))
		abort();
	model = m;
	pipeline__init(&pl, m, &ops, NULL);
	pl.expect = &rules;
	while (size >= 3) {
		unsigned int type = data[0];
		size_t len = (size_t)data[1] | (size_t)data[2] << 8, rec;
		struct pgt_event ev;

		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		rec = decode__record_size(type) ?: len;
		if (rec > sizeof(aligned))
			rec = sizeof(aligned);
		memset(aligned, 0, rec);
		memcpy(aligned, data, len < rec ? len : rec);
		if (decode__record_size(type)) {
			((struct pgt_hdr *)aligned)->type = type;
			((struct pgt_hdr *)aligned)->size = rec;
		}
		if (type == PGT_EXEC && rec >= PGT_EXEC_SIZE(0)) {
			/* Parts that fit, so that args and paths get decoded. */
			struct pgt_exec *e = (void *)aligned;
			size_t room = rec - PGT_EXEC_SIZE(0);

			e->args_len %= (room < PGT_ARGS_MAX ? room : PGT_ARGS_MAX) + 1;
			room -= e->args_len;
			e->cwd_len %= (room < PGT_EXEC_PATH_MAX ? room : PGT_EXEC_PATH_MAX) + 1;
			room -= e->cwd_len;
			e->exe_len %= (room < PGT_EXEC_PATH_MAX ? room : PGT_EXEC_PATH_MAX) + 1;
		}
		data += len;
		size -= len;
		sbuf__reset(&out);
		if (decode__record(aligned, rec, &ev))
			continue;
		pipeline__record(&pl, &ev);
		if (++n % 8 == 0) {
			tree__render(m, &to, &out);
			pipeline__tick(&pl, ev.hdr->ts_ns);
			pipeline__close_causes(&pl, ev.hdr->ts_ns);
		}
	}
	pipeline__finish(&pl);
	tree__render(m, &to, &out);
	pipeline__free(&pl);
	model = NULL;
	model__free(m);
	sbuf__free(&out);
	return 0;
}
