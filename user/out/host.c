// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "decode.h"
#include "host.h"
#include "jsonw.h"

/* 32 lowercase hex digits, as machine-id(5) specifies; anything else is unknown. */
static bool valid_machine_id(const char *s)
{
	size_t i;

	for (i = 0; i < 32; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[32] == '\0';
}

static void field(struct jsonw *w, const char *name, const char *v)
{
	if (*v)
		jsonw_string_field(w, name, v);
	else
		jsonw_null_field(w, name);
}

void host__write(struct jsonw *w, const struct host_id *h)
{
	jsonw_start_object(w);
	field(w, "name", h->name);
	field(w, "id", h->machine_id);
	field(w, "boot_id", h->boot_id);
	jsonw_end_object(w);
}

void host__set(struct host_id *h, const char *name, const char *machine_id, const char *boot_id)
{
	struct sbuf sb = {};
	struct jsonw w;

	snprintf(h->name, sizeof(h->name), "%s", name ?: "");
	snprintf(h->machine_id, sizeof(h->machine_id), "%s", machine_id ?: "");
	snprintf(h->boot_id, sizeof(h->boot_id), "%s", boot_id ?: "");
	/* The entity ids are of this boot. */
	decode__set_boot_id(h->boot_id);
	jsonw_init(&w, &sb);
	host__write(&w, h);
	h->json_len = 0;
	h->json[0] = '\0';
	if (!sb.oom && sb.len < sizeof(h->json)) {
		memcpy(h->json, sb.buf, sb.len + 1);
		h->json_len = sb.len;
	}
	sbuf__free(&sb);
}

void host__read(struct host_id *h)
{
	char id[64] = "", boot[64] = "unknown";
	struct utsname u;
	FILE *f;

	if (uname(&u))
		u.nodename[0] = '\0';
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets(boot, sizeof(boot), f))
			snprintf(boot, sizeof(boot), "unknown");
		fclose(f);
		boot[strcspn(boot, "\n")] = '\0';
	}
	f = fopen("/etc/machine-id", "re");
	if (f) {
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		fclose(f);
		id[strcspn(id, "\n")] = '\0';
	}
	host__set(h, u.nodename, valid_machine_id(id) ? id : "", boot);
}
