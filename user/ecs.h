/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --ecs: JSON records as Elastic Common Schema documents. */
#ifndef __ECS_H
#define __ECS_H

#include "format.h"

/*
 * The ECS document of each record, the native JSON record inside. Two
 * placeholders for the output to number: the ECS_SEQ_KEY's and the native
 * record's seq (ECS_NATIVE_KEY then PGT_JSON_SEQ_AT into it).
 */
extern const struct formatter ecs_formatter;

#define ECS_SEQ_KEY	"\"sequence\":"
#define ECS_NATIVE_KEY	"\"pgrptrace\":"

#endif /* __ECS_H */
