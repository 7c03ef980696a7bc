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
#include "ecs.h"
#include "format.h"
#include "pipeline.h"
#include "tree.h"

static struct sbuf out;
/* The model is set for each input: the process objects look it up. */
static struct fmt_ctx fc = { .boot_to_real_ns = 1700000000LL * 1000000000LL };
static struct expect_list rules;
static const char rules_text[] = "[any-sh]\ncomm = sh*\n[uid0]\nuid = 0\nkind = setsid pgrp\n";

static void on_cause(void *ctx, const struct sig_cause *c)
{
	json__signal(&out, &fc, c);
	text__signal(&out, &fc, c);
	ecs_formatter.signal(&out, &fc, c);
}

static void on_escape(void *ctx, const struct escape *e)
{
	json__escape(&out, &fc, e);
	text__escape(&out, &fc, e);
	ecs_formatter.escape(&out, &fc, e);
}

static void on_event(void *ctx, const struct pgt_event *ev)
{
	json__event(&out, &fc, ev);
	text__event(&out, &fc, ev);
	ecs_formatter.event(&out, &fc, ev);
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
	fc.model = m;
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
	fc.model = NULL;
	model__free(m);
	sbuf__free(&out);
	return 0;
}
