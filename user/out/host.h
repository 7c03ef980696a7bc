/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The machine a record comes from: its host name, /etc/machine-id and boot
 * id. Every JSON record and ECS document carries them (docs/events.md says
 * why), and a --record file keeps them, so that a replay elsewhere names the
 * machine that was traced.
 */
#ifndef __HOST_H
#define __HOST_H

#include <stddef.h>

#define HOST_NAME_LEN 72 /* a host name is at most 64 bytes */
#define HOST_ID_LEN   40 /* 32 hex digits (machine-id), 36 (boot id) */

struct host_id {
	char name[HOST_NAME_LEN];     /* "" if unknown */
	char machine_id[HOST_ID_LEN]; /* "" if unknown */
	char boot_id[HOST_ID_LEN];    /* "" if unknown */
	char json[640];		      /* {"name":...,"id":...,"boot_id":...}, escaped */
	size_t json_len;
};

struct jsonw;

/* {"name":...,"id":...,"boot_id":...}, as every JSON record ends. */
void host__write(struct jsonw *w, const struct host_id *h);
/* This machine's; what cannot be read stays unknown. */
void host__read(struct host_id *h);
/* A recorded machine's (NULL or "": unknown). */
void host__set(struct host_id *h, const char *name, const char *machine_id, const char *boot_id);

#endif /* __HOST_H */
