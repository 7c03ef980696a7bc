// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "msg.h"

static msg_fn redirect;
static void *redirect_ctx;

void msg__redirect(msg_fn fn, void *ctx)
{
	redirect = fn;
	redirect_ctx = ctx;
}

void p_err(const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("pgrptrace: out of memory for a message\n", stderr);
		return;
	}
	if (redirect)
		redirect(redirect_ctx, text);
	else
		fprintf(stderr, "pgrptrace: %s\n", text); /* one write: a line stays whole */
	free(text);
}
