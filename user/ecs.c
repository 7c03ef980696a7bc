// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --ecs: each JSON record as an Elastic Common Schema document. The ECS
 * fields describe the record's subject process (for a fork, the child, with
 * the forker as its parent); the whole native record rides along under
 * "pgrptrace", so nothing is lost. docs/ecs.md has the mapping.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecs.h"

#define ECS_VERSION	"8.11.0"

/* process.* of ECS from a native process object. */
static json_t *ecs_process(const struct fmt_ctx *fc, json_t *p, json_t *rec)
{
	json_t *e = json_object(), *v;
	json_int_t pid = json_integer_value(json_object_get(p, "pid"));
	json_int_t pgid = json_integer_value(json_object_get(p, "pgid"));
	json_int_t sid = json_integer_value(json_object_get(p, "sid"));
	char when[64], uid[24];

	json_object_set_new(e, "pid", json_integer(pid));
	json_object_set_new(e, "vpid", json_incref(json_object_get(p, "ns_pid")));
	json_object_set_new(e, "thread", json_pack("{s:O}", "id", json_object_get(p, "tid")));
	json_object_set_new(e, "name", json_incref(json_object_get(p, "comm")));
	json_object_set_new(e, "entity_id", json_incref(json_object_get(p, "entity_id")));
	fmt__rfc3339(fc, (__u64)json_integer_value(json_object_get(p, "start_ns")), when,
		     sizeof(when));
	json_object_set_new(e, "start", json_string(when));
	json_object_set_new(e, "parent", json_pack("{s:O}", "pid", json_object_get(p, "ppid")));
	json_object_set_new(e, "pgid", json_integer(pgid));
	json_object_set_new(e, "group_leader",
			    json_pack("{s:I,s:b}", "pid", pgid, "same_as_process", pid == pgid));
	json_object_set_new(e, "session_leader",
			    json_pack("{s:I,s:b}", "pid", sid, "same_as_process", pid == sid));
	v = json_object_get(p, "tty_dev");
	json_object_set_new(e, "interactive", json_boolean(json_is_object(v)));
	if (json_is_object(v))
		json_object_set_new(e, "tty", json_pack("{s:{s:O,s:O}}", "char_device", "major",
							json_object_get(v, "major"), "minor",
							json_object_get(v, "minor")));
	/* ECS user ids are strings. */
	snprintf(uid, sizeof(uid), "%lld", (long long)json_integer_value(json_object_get(p, "uid")));
	json_object_set_new(e, "real_user", json_pack("{s:s}", "id", uid));
	/* The login it came from, where the record knows it (escapes). */
	v = json_object_get(json_object_get(rec, "origin"), "entry_leader");
	if (json_is_object(v))
		json_object_set_new(e, "entry_leader",
				    json_pack("{s:O,s:O,s:O}", "pid", json_object_get(v, "pid"),
					      "entity_id", json_object_get(v, "entity_id"), "name",
					      json_object_get(v, "comm")));
	return e;
}

static const char *event_type(const char *event)
{
	if (!strcmp(event, "fork") || !strcmp(event, "exec"))
		return "start";
	if (!strcmp(event, "exit"))
		return "end";
	if (!strcmp(event, "signal") || !strcmp(event, "lost") || !strcmp(event, "survivor"))
		return "info";
	return "change";
}

int ecs__convert(const struct fmt_ctx *fc, const char *line, size_t len, struct sbuf *out)
{
	json_t *rec, *doc, *subject, *p, *v;
	const char *event;
	json_error_t jerr;
	char *text;

	rec = json_loadb(line, len, 0, &jerr);
	if (!rec)
		return -1;
	event = json_string_value(json_object_get(rec, "event"));
	doc = json_object();
	json_object_set_new(doc, "@timestamp", json_incref(json_object_get(rec, "time")));
	json_object_set_new(doc, "ecs", json_pack("{s:s}", "version", ECS_VERSION));
	json_object_set_new(doc, "event",
			    json_pack("{s:s,s:[s],s:[s],s:s,s:O,s:s,s:s}", "kind",
				      event && !strcmp(event, "escape") ? "alert" : "event",
				      "category", "process", "type", event_type(event ?: ""),
				      "action", event ?: "", "sequence", json_object_get(rec, "seq"),
				      "module", "pgrptrace", "dataset", "pgrptrace.events"));
	/* The subject: a fork's child, otherwise the record's process. */
	subject = json_object_get(rec, event && !strcmp(event, "fork") ? "child" : "process");
	if (json_is_object(subject)) {
		p = ecs_process(fc, subject, rec);
		v = json_object_get(rec, "filename");
		if (event && !strcmp(event, "exec") && json_is_string(v))
			json_object_set(p, "executable", v);
		v = json_object_get(json_object_get(rec, "exit"), "code");
		if (json_is_integer(v))
			json_object_set(p, "exit_code", v);
		json_object_set_new(doc, "process", p);
	}
	json_object_set(doc, "pgrptrace", rec);
	text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(doc);
	json_decref(rec);
	if (!text)
		return -1;
	sbuf__puts(out, text);
	sbuf__putc(out, '\n');
	free(text);
	return 0;
}
