// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --ecs: each record as an Elastic Common Schema document. The ECS fields
 * describe the record's subject process (for a fork, the child, with the
 * forker as its parent); the whole native record, exactly as --json writes
 * it, rides along under "pgrptrace", so nothing is lost. docs/ecs.md has the
 * mapping. Written with the same writer as the native record, from the same
 * structs: nothing is parsed back.
 */
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "jsonw.h"

#define ECS_VERSION  "9.4.0"
#define ECS8_VERSION "8.11.0" /* --ecs-version 8.11 */

/* What the ECS fields of one record are made of. */
struct ecs_subject {
	const char *action;	      /* the native "event" */
	__u64 ts_ns;		      /* the native "time" */
	const struct pgt_proc *proc;  /* NULL: the record has no process */
	const struct lineage *entry;  /* the login, where the record names it */
	const struct pgt_exec *exec;  /* an exec: the executable */
	const struct image *image;    /* else what the process runs, where known */
	const struct pgt_exit *exit;  /* an exit: its code */
	const struct pcgroup *cg;     /* its cgroup, where known */
	const struct proc_view *view; /* what the model knew of proc */
	__u64 seq;		      /* the record's */
};

static const char *event_type(const char *action)
{
	const struct record_kind_info *k = record__kind_by_name(action, strlen(action), NULL);

	return k ? k->ecs_type : "change";
}

static void ecs_event(struct jsonw *w, const char *action, __u64 seq)
{
	jsonw_name(w, "event");
	jsonw_start_object(w);
	jsonw_plain_field(w, "kind", strcmp(action, "escape") ? "event" : "alert");
	jsonw_name(w, "category");
	jsonw_start_array(w);
	/* A login's end is a session's (ECS's "session" category, type "end"). */
	jsonw_plain(w, strcmp(action, "logout") ? "process" : "session");
	jsonw_end_array(w);
	jsonw_name(w, "type");
	jsonw_start_array(w);
	jsonw_plain(w, event_type(action));
	jsonw_end_array(w);
	jsonw_plain_field(w, "action", action);
	jsonw_uint_field(w, "sequence", seq);
	jsonw_plain_field(w, "module", "pgrptrace");
	jsonw_plain_field(w, "dataset", "pgrptrace.events");
	jsonw_end_object(w);
}

/* host.*: what is unknown is left out, as ECS prefers to a null. */
static void ecs_host(struct jsonw *w, const struct host_id *h)
{
	jsonw_name(w, "host");
	jsonw_start_object(w);
	if (h->name[0])
		jsonw_string_field(w, "name", h->name);
	if (h->machine_id[0])
		jsonw_plain_field(w, "id", h->machine_id);
	if (h->boot_id[0]) {
		jsonw_name(w, "boot");
		jsonw_start_object(w);
		jsonw_string_field(w, "id", h->boot_id);
		jsonw_end_object(w);
	}
	jsonw_end_object(w);
}

/* {"pid":N,"same_as_process":B} */
/* A leader of @p's: itself, or the process the model knows by @pid. */
static void ecs_leader(struct jsonw *w, const struct proc_view *v, const char *name,
		       const struct pgt_proc *p, __u32 pid, enum leader which)
{
	bool same = p->pid == pid;
	char eid[17];

	jsonw_name(w, name);
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", pid);
	if (same)
		decode__entity_id(p->pid, p->start_ns, eid);
	if (same || view__leader_id(v, p, which, eid))
		jsonw_plain_field(w, "entity_id", eid);
	jsonw_bool_field(w, "same_as_process", same);
	jsonw_end_object(w);
}

static void ecs_tty(struct jsonw *w, const struct pgt_proc *p)
{
	unsigned int major, minor;
	char name[32];
	bool tty = decode__tty_name(p->tty, p->tty_nr, name, sizeof(name));

	jsonw_bool_field(w, "interactive", tty);
	if (!tty)
		return;
	decode__tty_dev(p->tty_nr, &major, &minor);
	jsonw_name(w, "tty");
	jsonw_start_object(w);
	jsonw_name(w, "char_device");
	jsonw_start_object(w);
	jsonw_uint_field(w, "major", major);
	jsonw_uint_field(w, "minor", minor);
	jsonw_end_object(w);
	jsonw_end_object(w);
}

/* A string field of ECS: untrusted bytes, escaped (ECS has no _hex twin). */
static void ecs_string(struct jsonw *w, const char *name, const char *s, size_t max)
{
	jsonw_name(w, name);
	jsonw__sep(w);
	sbuf__put_json_str(w->sb, s, max);
}

/*
 * process.args, .args_count and .command_line: the arguments joined with
 * blanks, as ECS's examples do.
 */
static void ecs_args(struct jsonw *w, const struct span *args, size_t n)
{
	char line[PGT_ARGS_MAX + PGT_ARGS_SHOWN]; /* the arguments and the blanks between */
	size_t i, len;

	jsonw_name(w, "args");
	jsonw_start_array(w);
	for (i = 0; i < n; i++) {
		jsonw__sep(w);
		sbuf__put_json_str(w->sb, args[i].s, args[i].len);
	}
	jsonw_end_array(w);
	jsonw_uint_field(w, "args_count", n);
	for (i = 0, len = 0; i < n && len + 1 + args[i].len <= sizeof(line); i++) {
		if (i)
			line[len++] = ' ';
		memcpy(line + len, args[i].s, args[i].len);
		len += args[i].len;
	}
	ecs_string(w, "command_line", line, len);
}

/*
 * An exec: process.executable (the file, where the record has it whole,
 * else the name exec was given), .working_directory and the arguments.
 */
static void ecs_exec(struct jsonw *w, const struct pgt_exec *e)
{
	char path[DECODE_PATH_SIZE];
	struct span args[PGT_ARGS_SHOWN];
	size_t n;
	bool cut;

	if (decode__exec_path(e, true, path, sizeof(path), &cut) >= 0 && !cut)
		ecs_string(w, "executable", path, sizeof(path));
	else
		ecs_string(w, "executable", e->filename, sizeof(e->filename));
	if (decode__exec_path(e, false, path, sizeof(path), &cut) >= 0 && !cut)
		ecs_string(w, "working_directory", path, sizeof(path));
	if (!(e->flags & PGT_EXEC_HAS_ARGS))
		return;
	n = decode__exec_args(e, args, PGT_ARGS_SHOWN, &cut);
	ecs_args(w, args, n);
}

/* Any other record: what the model last saw the process run, where known. */
static void ecs_image(struct jsonw *w, const struct image *im)
{
	struct span args[PGT_ARGS_SHOWN];
	size_t n;
	bool more;

	if (!im)
		return;
	if (im->exe)
		ecs_string(w, "executable", im->exe, strlen(im->exe) + 1);
	if (im->args) {
		n = decode__split_args(im->args, im->args_len, args, PGT_ARGS_SHOWN, &more);
		ecs_args(w, args, n);
	}
}

/* process.* of ECS, from the subject process. */
static void ecs_process(struct jsonw *w, const struct fmt_ctx *fc, const struct ecs_subject *s)
{
	const struct pgt_proc *p = s->proc;
	char when[64], eid[17], uid[16];
	struct exit_info xi;

	jsonw_name(w, "process");
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", p->pid);
	jsonw_uint_field(w, "vpid", p->ns_pid);
	jsonw_name(w, "thread");
	jsonw_start_object(w);
	jsonw_uint_field(w, "id", p->tid);
	jsonw_end_object(w);
	ecs_string(w, "name", p->comm, sizeof(p->comm));
	decode__entity_id(p->pid, p->start_ns, eid);
	jsonw_plain_field(w, "entity_id", eid);
	fmt__rfc3339(fc, p->start_ns, when, sizeof(when));
	jsonw_plain_field(w, "start", when);
	jsonw_name(w, "parent");
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", p->ppid);
	if (view__leader_id(s->view, p, LEADER_PARENT, eid))
		jsonw_plain_field(w, "entity_id", eid);
	jsonw_end_object(w);
	/* ECS 9 removed process.pgid: the group leader's pid says it. */
	if (fc->ecs8)
		jsonw_uint_field(w, "pgid", p->pgid);
	ecs_leader(w, s->view, "group_leader", p, p->pgid, LEADER_GROUP);
	ecs_leader(w, s->view, "session_leader", p, p->sid, LEADER_SESSION);
	ecs_tty(w, p);
	/* ECS user ids are strings. */
	jsonw_name(w, "real_user");
	jsonw_start_object(w);
	snprintf(uid, sizeof(uid), "%u", p->uid);
	jsonw_plain_field(w, "id", uid);
	jsonw_end_object(w);
	if (s->entry) {
		jsonw_name(w, "entry_leader");
		jsonw_start_object(w);
		jsonw_uint_field(w, "pid", s->entry->pid);
		decode__entity_id(s->entry->pid, s->entry->start_ns, eid);
		jsonw_plain_field(w, "entity_id", eid);
		ecs_string(w, "name", s->view->entry_comm, sizeof(s->view->entry_comm));
		if (s->view->entry_image && s->view->entry_image->exe)
			ecs_string(w, "executable", s->view->entry_image->exe,
				   strlen(s->view->entry_image->exe) + 1);
		fmt__rfc3339(fc, s->entry->start_ns, when, sizeof(when));
		jsonw_plain_field(w, "start", when);
		jsonw_bool_field(w, "same_as_process",
				 s->entry->pid == p->pid && s->entry->start_ns == p->start_ns);
		jsonw_name(w, "entry_meta");
		jsonw_start_object(w);
		jsonw_plain_field(w, "type", fmt__entry_type(s->entry));
		if (s->entry->remote) {
			jsonw_name(w, "source");
			jsonw_start_object(w);
			/* ECS reuses only source.ip here; the port is in the native record. */
			jsonw_plain_field(w, "ip", s->entry->remote->ip);
			jsonw_end_object(w);
		}
		jsonw_end_object(w);
		jsonw_end_object(w);
	}
	if (s->exec)
		ecs_exec(w, s->exec);
	else
		ecs_image(w, s->image);
	if (s->exit) {
		decode__exit_status(s->exit->status, &xi);
		if (xi.exited)
			jsonw_int_field(w, "exit_code", xi.code);
	}
	jsonw_end_object(w);
}

/* The ECS fields, then "pgrptrace": the object left open for the native record. */
static void ecs_open(struct jsonw *w, struct sbuf *sb, const struct fmt_ctx *fc,
		     const struct ecs_subject *s)
{
	char when[64];

	jsonw_init(w, sb);
	jsonw_start_object(w);
	fmt__rfc3339(fc, s->ts_ns, when, sizeof(when));
	jsonw_plain_field(w, "@timestamp", when);
	jsonw_name(w, "ecs");
	jsonw_start_object(w);
	jsonw_plain_field(w, "version", fc->ecs8 ? ECS8_VERSION : ECS_VERSION);
	jsonw_end_object(w);
	ecs_event(w, s->action, s->seq);
	if (fc->host)
		ecs_host(w, fc->host);
	if (s->proc)
		ecs_process(w, fc, s);
	if (s->cg && s->cg->container[0]) {
		jsonw_name(w, "container");
		jsonw_start_object(w);
		jsonw_plain_field(w, "id", s->cg->container);
		if (s->cg->runtime)
			jsonw_plain_field(w, "runtime", s->cg->runtime);
		jsonw_end_object(w);
	}
	jsonw_name(w, "pgrptrace");
	jsonw__sep(w);
}

/* After the native record (its line, without the newline): the document's end. */
static void ecs_close(struct sbuf *sb)
{
	if (sb->len && sb->buf[sb->len - 1] == '\n')
		sb->len--;
	sbuf__puts(sb, "}\n");
}

/* What the ECS fields of @r are made of. */
static void ecs_subject_of(const struct record *r, struct ecs_subject *s)
{
	const struct proc_view *v = &r->views[0];

	memset(s, 0, sizeof(*s));
	s->action = record__name(r);
	s->ts_ns = r->ts_ns;
	s->seq = r->seq;
	s->proc = record__proc(r);
	if (r->kind == RECORD_EVENT) {
		const struct pgt_event *ev = &r->ev;

		/* The subject: a fork's child, otherwise the record's process. */
		if (ev->hdr->type == PGT_FORK) {
			s->proc = &ev->fork->child;
			v = &r->views[1];
		}
		if (ev->hdr->type == PGT_EXEC)
			s->exec = ev->exec;
		else if (ev->hdr->type == PGT_EXIT)
			s->exit = ev->exit;
	}
	if (!s->proc)
		return;
	s->view = v;
	s->image = v->image;
	s->entry = v->entry;
	s->cg = v->cg;
}

void ecs__record(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r)
{
	struct ecs_subject s;
	struct jsonw w;

	ecs_subject_of(r, &s);
	ecs_open(&w, sb, fc, &s);
	json__record(sb, fc, r);
	ecs_close(sb);
}
