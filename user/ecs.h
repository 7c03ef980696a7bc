/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --ecs: JSON records as Elastic Common Schema documents. */
#ifndef __ECS_H
#define __ECS_H

#include <stddef.h>
#include "format.h"
#include "sbuf.h"

/* Appends the ECS document for one native JSON line to @out; -1 if unparsable. */
int ecs__convert(const struct fmt_ctx *fc, const char *line, size_t len, struct sbuf *out);

#endif /* __ECS_H */
