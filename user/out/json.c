// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* JSON Lines, schema 3: see docs/events.md. */
#include <string.h>
#include "format.h"
#include "host.h"
#include "jsonw.h"

static void json_id_or_null(struct jsonw *w, const char *key, __u32 v)
{
	jsonw_name(w, key);
	if (v == PGT_ID_UNSET)
		jsonw_null(w);
	else
		jsonw_uint(w, v);
}

/* "pts/3" or null, as the member @key; false for null. */
static bool json_tty_name(struct jsonw *w, const char *key, const char *kname, __u32 tty_nr)
{
	char name[32];

	jsonw_name(w, key);
	if (!decode__tty_name(kname, tty_nr, name, sizeof(name))) {
		jsonw_null(w);
		return false;
	}
	jsonw_string(w, name);
	return true;
}

static void json_tty_dev(struct jsonw *w, __u32 tty_nr)
{
	unsigned int major, minor;

	decode__tty_dev(tty_nr, &major, &minor);
	jsonw_name(w, "tty_dev");
	jsonw_start_object(w);
	jsonw_uint_field(w, "major", major);
	jsonw_uint_field(w, "minor", minor);
	jsonw_end_object(w);
}

static void json_tty(struct jsonw *w, const char *kname, __u32 tty_nr)
{
	if (json_tty_name(w, "tty", kname, tty_nr))
		json_tty_dev(w, tty_nr);
	else
		jsonw_null_field(w, "tty_dev");
}

static void json_entity_id(struct jsonw *w, __u32 pid, __u64 start_ns)
{
	char eid[17];

	decode__entity_id(pid, start_ns, eid);
	jsonw_plain_field(w, "entity_id", eid);
}

/* "executable", or null where unknown. */
static void json_image_exe(struct jsonw *w, const struct image *im)
{
	if (im && im->exe)
		jsonw_untrusted(w, "executable", im->exe, strlen(im->exe) + 1);
	else
		jsonw_null_field(w, "executable");
}

/* {"pid", "entity_id"} of a leader of @p's, @pid: null where unknown. */
static void json_ref(struct jsonw *w, const char *key, const struct pgt_proc *p,
		     const struct proc_view *v, __u32 pid, enum leader which)
{
	char eid[17];

	jsonw_name(w, key);
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", pid);
	if (pid == p->pid)
		json_entity_id(w, p->pid, p->start_ns);
	else if (view__leader_id(v, p, which, eid))
		jsonw_plain_field(w, "entity_id", eid);
	else
		jsonw_null_field(w, "entity_id");
	jsonw_end_object(w);
}

/* "remote": an sshd login's client, or null. */
static void json_remote(struct jsonw *w, const struct lineage *entry)
{
	const struct login_remote *r = fmt__entry_remote(entry);

	if (!r) {
		jsonw_null_field(w, "remote");
		return;
	}
	jsonw_name(w, "remote");
	jsonw_start_object(w);
	jsonw_plain_field(w, "ip", r->ip); /* checked by inet_pton() */
	jsonw_uint_field(w, "port", r->port);
	jsonw_end_object(w);
}

void json__entry(struct jsonw *w, const struct fmt_ctx *fc, const struct proc_view *v)
{
	const struct lineage *l = v->entry;
	char start[64];

	fmt__rfc3339(fc, l->start_ns, start, sizeof(start));
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", l->pid);
	json_entity_id(w, l->pid, l->start_ns);
	jsonw_untrusted(w, "comm", v->entry_comm, sizeof(v->entry_comm));
	json_image_exe(w, v->entry_image);
	json_tty_name(w, "tty", l->tty, l->tty_nr);
	jsonw_uint_field(w, "start_ns", l->start_ns);
	jsonw_plain_field(w, "start", start);
	jsonw_plain_field(w, "type", fmt__entry_type(l));
	json_remote(w, l);
	jsonw_end_object(w);
}

/* "cgroup" (the unified hierarchy's) and "container": null where unknown or none. */
static void json_cgroup(struct jsonw *w, const struct pcgroup *cg)
{
	if (cg && (cg->v2[0] || cg->id)) {
		jsonw_name(w, "cgroup");
		jsonw_start_object(w);
		if (cg->id)
			jsonw_uint_field(w, "id", cg->id);
		else
			jsonw_null_field(w, "id");
		if (cg->v2[0]) /* names any user with a delegated subtree can choose */
			jsonw_untrusted(w, "path", cg->v2, strlen(cg->v2) + 1);
		else
			jsonw_null_field(w, "path");
		jsonw_end_object(w);
	} else {
		jsonw_null_field(w, "cgroup");
	}
	if (cg && cg->container[0]) {
		jsonw_name(w, "container");
		jsonw_start_object(w);
		jsonw_plain_field(w, "id", cg->container); /* 64 hex digits */
		if (cg->runtime)
			jsonw_plain_field(w, "runtime", cg->runtime);
		else
			jsonw_null_field(w, "runtime");
		jsonw_end_object(w);
	} else {
		jsonw_null_field(w, "container");
	}
}

/* The hottest formatting there is. */
static void json_proc_fields(struct jsonw *w, const struct fmt_ctx *fc, const struct pgt_proc *p,
			     const struct proc_view *v)
{
	char start[64];

	fmt__rfc3339(fc, p->start_ns, start, sizeof(start));
	jsonw_uint_field(w, "pid", p->pid);
	jsonw_uint_field(w, "tid", p->tid);
	jsonw_uint_field(w, "ppid", p->ppid);
	jsonw_uint_field(w, "pgid", p->pgid);
	jsonw_uint_field(w, "sid", p->sid);
	json_tty(w, p->tty, p->tty_nr);
	jsonw_uint_field(w, "uid", p->uid);
	json_id_or_null(w, "auid", p->auid);
	json_id_or_null(w, "ses", p->ses);
	jsonw_untrusted(w, "comm", p->comm, sizeof(p->comm));
	jsonw_uint_field(w, "start_ns", p->start_ns);
	jsonw_plain_field(w, "start", start);
	json_entity_id(w, p->pid, p->start_ns);
	jsonw_uint_field(w, "ns_pid", p->ns_pid);
	jsonw_uint_field(w, "pidns", p->pidns_ino);
	jsonw_bool_field(w, "subreaper", p->flags & PGT_F_IS_SUBREAPER);
	json_ref(w, "parent", p, v, p->ppid, LEADER_PARENT);
	json_ref(w, "group_leader", p, v, p->pgid, LEADER_GROUP);
	json_ref(w, "session_leader", p, v, p->sid, LEADER_SESSION);
	jsonw_name(w, "entry_leader");
	if (v->entry)
		json__entry(w, fc, v);
	else
		jsonw_null(w);
	if (v->known)
		jsonw_bool_field(w, "entry_leader_inferred", v->entry_inferred);
	else
		jsonw_null_field(w, "entry_leader_inferred");
	json_cgroup(w, v->cg);
}

/* A process object with what it runs as last seen: its executable and arguments. */
static void json_proc_image(struct jsonw *w, const struct fmt_ctx *fc, const char *key,
			    const struct pgt_proc *p, const struct proc_view *v)
{
	const struct image *im = v->image;
	struct span args[PGT_ARGS_SHOWN];
	bool more = false;
	size_t n;

	jsonw_name(w, key);
	jsonw_start_object(w);
	json_proc_fields(w, fc, p, v);
	json_image_exe(w, im);
	if (im && im->args) {
		n = decode__split_args(im->args, im->args_len, args, PGT_ARGS_SHOWN, &more);
		jsonw_untrusted_array(w, "args", args, n);
	} else {
		jsonw_null_field(w, "args");
	}
	jsonw_bool_field(w, "args_truncated", (im && im->args_cut) || more);
	jsonw_end_object(w);
}

/* A record's "process", as the model saw it when the record was made. */
static void json_subject(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r,
			 const struct pgt_proc *p)
{
	json_proc_image(w, fc, "process", p, &r->views[0]);
}

static void json_grp(struct jsonw *w, const char *key, __u32 pgid, __u32 sid, const char *tty,
		     __u32 tty_nr)
{
	jsonw_name(w, key);
	jsonw_start_object(w);
	jsonw_uint_field(w, "pgid", pgid);
	jsonw_uint_field(w, "sid", sid);
	json_tty_name(w, "tty", tty, tty_nr);
	jsonw_end_object(w);
}

static void json_error(struct jsonw *w, int ret)
{
	char buf[16];

	jsonw_plain_field(w, "error",
			  decode__errname((int)(0U - (unsigned int)ret), buf, sizeof(buf)));
}

/*
 * The fields every record starts with, in an object left open: its seq
 * (its number in the output); kseq, the kernel record's number, null for
 * records made in user space (lost, survivor, correction); a derived
 * record's (an escape, a tty change the kernel made) "cause_seq", the seq
 * of the record it comes from, null when that is no longer known.
 */
static void json_head(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r,
		      const __u64 *kseq)
{
	char when[64];

	fmt__rfc3339(fc, r->ts_ns, when, sizeof(when));
	jsonw_start_object(w);
	jsonw_uint_field(w, "schema", PGT_SCHEMA_VERSION);
	jsonw_uint_field(w, "seq", r->seq);
	if (kseq)
		jsonw_uint_field(w, "kseq", *kseq);
	else
		jsonw_null_field(w, "kseq");
	if (r->derived && r->has_cause_seq)
		jsonw_uint_field(w, "cause_seq", r->cause_seq);
	else if (r->derived)
		jsonw_null_field(w, "cause_seq");
	jsonw_plain_field(w, "time", when);
	jsonw_plain_field(w, "event", record__name(r));
}

/*
 * The machine, last, on every record: merged logs of many machines stay
 * unambiguous, and a record's first fields read as they always have.
 */
static void json_end(struct jsonw *w, const struct fmt_ctx *fc)
{
	jsonw_name(w, "host");
	if (fc->host && fc->host->json_len && jsonw_is_fields(w))
		host__write(w, fc->host);
	else if (fc->host && fc->host->json_len)
		jsonw_raw(w, fc->host->json, fc->host->json_len);
	else
		jsonw_null(w);
	jsonw_end_object(w);
}

/* An exec's path, or null; its "_truncated" and "_deleted" flags. */
static void json_exec_path(struct jsonw *w, const struct pgt_exec *e, bool exe)
{
	const char *name = exe ? "executable" : "cwd";
	char path[DECODE_PATH_SIZE];
	bool cut = false;

	if (decode__exec_path(e, exe, path, sizeof(path), &cut) < 0)
		jsonw_null_field(w, name);
	else
		jsonw_untrusted(w, name, path, sizeof(path));
	jsonw_bool_field(w, exe ? "executable_truncated" : "cwd_truncated", cut);
	jsonw_bool_field(w, exe ? "executable_deleted" : "cwd_deleted",
			 decode__exec_deleted(e, exe));
}

/* What an exec ran: the name it was asked for, the arguments, where. */
static void json_exec(struct jsonw *w, const struct pgt_exec *e)
{
	struct span args[PGT_ARGS_SHOWN];
	bool cut = false;
	size_t n;

	jsonw_untrusted(w, "filename", e->filename, sizeof(e->filename));
	jsonw_bool_field(w, "filename_truncated", e->flags & PGT_EXEC_FILENAME_CUT);
	if (e->flags & PGT_EXEC_HAS_ARGS) {
		n = decode__exec_args(e, args, PGT_ARGS_SHOWN, &cut);
		jsonw_untrusted_array(w, "args", args, n);
	} else {
		jsonw_null_field(w, "args");
	}
	jsonw_bool_field(w, "args_truncated", cut);
	json_exec_path(w, e, true);
	json_exec_path(w, e, false);
	if (e->old_tid != e->proc.pid)
		jsonw_uint_field(w, "old_tid", e->old_tid);
}

/* A signal's sender: who it is, what it ran, its login. */
static void json_sender(struct jsonw *w, const struct fmt_ctx *fc, const struct death_cause *dc,
			const struct proc_view *v)
{
	const struct pgt_proc *p = &dc->sender;
	const struct lineage *l = v->entry;

	jsonw_name(w, "sender");
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", p->pid);
	json_entity_id(w, p->pid, p->start_ns);
	if (dc->sender_partial) {
		/* Gone before it was known: its pid and identity only. */
		jsonw_null_field(w, "comm");
		jsonw_null_field(w, "executable");
		jsonw_null_field(w, "uid");
		jsonw_null_field(w, "auid");
		jsonw_null_field(w, "ses");
		jsonw_null_field(w, "tty");
	} else {
		jsonw_untrusted(w, "comm", p->comm, sizeof(p->comm));
		json_image_exe(w, v->image);
		jsonw_uint_field(w, "uid", p->uid);
		json_id_or_null(w, "auid", p->auid);
		json_id_or_null(w, "ses", p->ses);
		json_tty_name(w, "tty", p->tty, p->tty_nr);
	}
	jsonw_name(w, "entry_leader");
	if (l) {
		jsonw_start_object(w);
		jsonw_uint_field(w, "pid", l->pid);
		json_entity_id(w, l->pid, l->start_ns);
		jsonw_plain_field(w, "type", fmt__entry_type(l));
		json_tty_name(w, "tty", l->tty, l->tty_nr);
		json_remote(w, l);
		jsonw_end_object(w);
	} else {
		jsonw_null(w);
	}
	jsonw_end_object(w);
	(void)fc;
}

void json__cause(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct death_cause *dc = &r->death;
	const struct pcgroup *cg = r->views[0].cg;
	const char *code = dc->sig ? death__code_name(dc->sig, dc->code) : NULL;
	bool seen = dc->mech != DEATH_EXIT && dc->mech != DEATH_UNKNOWN;
	char path[PGT_CGROUP_PATH_LEN + 1];

	jsonw_name(w, "cause");
	jsonw_start_object(w);
	jsonw_plain_field(w, "mechanism", death__mech_name(dc->mech));
	if (seen) {
		jsonw_int_field(w, "si_code", dc->code);
		if (code)
			jsonw_plain_field(w, "si_code_name", code);
		else
			jsonw_null_field(w, "si_code_name");
	} else {
		jsonw_null_field(w, "si_code");
		jsonw_null_field(w, "si_code_name");
	}
	if (dc->has_seq)
		jsonw_uint_field(w, "signal_seq", dc->signal_seq);
	else
		jsonw_null_field(w, "signal_seq");
	if (dc->why)
		jsonw_plain_field(w, "reason", dc->why);
	else
		jsonw_null_field(w, "reason");
	if (dc->has_sender)
		json_sender(w, fc, dc, &r->views[1]);
	else
		jsonw_null_field(w, "sender");
	if (dc->mech == DEATH_TTY)
		json_tty_name(w, "tty", dc->tty, dc->tty_nr);
	else
		jsonw_null_field(w, "tty");
	if (dc->mech == DEATH_TTY && dc->code > 0 && death__key(dc->sig)) {
		jsonw_name(w, "key"); /* ^\ has a backslash: escaped */
		jsonw_string(w, death__key(dc->sig));
	} else
		jsonw_null_field(w, "key");
	/*
	 * The process's cgroup for cgroup.kill (the one killed, or below it);
	 * for an OOM, the memory cgroup at its limit, where it is in the
	 * unified hierarchy (a prefix of the process's path).
	 */
	if (cg && cg->v2[0] &&
	    (dc->mech == DEATH_CGROUP_KILL ||
	     (dc->mech == DEATH_OOM && dc->memcg_level && dc->memcg_v2))) {
		const char *at =
			dc->mech == DEATH_OOM ?
				death__cgroup_prefix(cg->v2, dc->memcg_level, path, sizeof(path)) :
				cg->v2;

		jsonw_untrusted(w, "cgroup", at, strlen(at) + 1);
	} else {
		jsonw_null_field(w, "cgroup");
	}
	if (dc->mech == DEATH_OOM)
		jsonw_plain_field(w, "constraint", dc->memcg_level ? "memcg" : "global");
	else
		jsonw_null_field(w, "constraint");
	if (dc->mech == DEATH_OOM && dc->memcg_level)
		jsonw_uint_field(w, "memcg_level", dc->memcg_level);
	else
		jsonw_null_field(w, "memcg_level");
	jsonw_end_object(w);
}

static void json_exit(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct pgt_exit *e = r->ev.exit;
	struct exit_info xi;
	char sig[16];

	decode__exit_status(e->status, &xi);
	jsonw_name(w, "exit");
	jsonw_start_object(w);
	if (xi.exited) {
		jsonw_int_field(w, "code", xi.code);
		jsonw_null_field(w, "signal");
		jsonw_bool_field(w, "core", false);
	} else {
		jsonw_null_field(w, "code");
		jsonw_plain_field(w, "signal", decode__signame(xi.signal, sig, sizeof(sig)));
		jsonw_bool_field(w, "core", xi.core);
	}
	if (r->death.set)
		json__cause(w, fc, r);
	jsonw_end_object(w);
}

static void json_setpgid(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct pgt_event *ev = &r->ev;
	const struct pgt_setpgid *s = ev->setpgid;

	json_subject(w, fc, r, &s->proc);
	if (s->target_found)
		json_proc_image(w, fc, "target", &s->target, &r->views[1]);
	else
		jsonw_null_field(w, "target");
	jsonw_name(w, "args");
	jsonw_start_object(w);
	jsonw_int_field(w, "pid", s->arg_pid);
	jsonw_int_field(w, "pgid", s->arg_pgid);
	jsonw_end_object(w);
	jsonw_bool_field(w, "job_control", ev->notes & EV_JOB_CONTROL);
	if (s->target_found)
		json_grp(w, "old", s->old.pgid, s->old.sid, s->old.tty, s->old.tty_nr);
	if (s->ret < 0)
		json_error(w, s->ret);
	else if (s->target_found)
		json_grp(w, "new", s->target.pgid, s->target.sid, s->target.tty, s->target.tty_nr);
}

/* A process named by a reparent: pid, [tid,] start, entity id, comm. */
static void json_reparent_proc(struct jsonw *w, const char *key, __u32 pid, const __u32 *tid,
			       __u64 start_ns, const char *comm, size_t comm_len)
{
	jsonw_name(w, key);
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", pid);
	if (tid)
		jsonw_uint_field(w, "tid", *tid);
	jsonw_uint_field(w, "start_ns", start_ns);
	json_entity_id(w, pid, start_ns);
	jsonw_untrusted(w, "comm", comm, comm_len);
	jsonw_end_object(w);
}

static void json_reparent(struct jsonw *w, const struct fmt_ctx *fc, const struct record *rec)
{
	const struct pgt_reparent *r = rec->ev.reparent;

	json_subject(w, fc, rec, &r->proc);
	json_reparent_proc(w, "child", r->child_pid, NULL, r->child_start_ns, r->child_comm,
			   sizeof(r->child_comm));
	jsonw_uint_field(w, "old_ppid", r->proc.pid);
	jsonw_uint_field(w, "new_ppid", r->reaper_pid);
	json_reparent_proc(w, "new_parent", r->reaper_pid, &r->reaper_tid, r->reaper_start_ns,
			   r->reaper_comm, sizeof(r->reaper_comm));
	jsonw_plain_field(w, "reason", decode__reason_name(r->reason));
	jsonw_bool_field(w, "child_dying", r->reason & PGT_REPARENT_DYING);
}

/*
 * One case per record type, each the fields docs/events.md lists for it, in
 * that order, next to text__event(): long, but it reads as the schema does.
 */
static void json_event(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct pgt_event *ev = &r->ev;
	const struct pgt_hdr *h = ev->hdr;

	json_head(w, fc, r, &h->seq);
	switch (h->type) {
	case PGT_FORK:
		json_subject(w, fc, r, &ev->fork->proc);
		json_proc_image(w, fc, "child", &ev->fork->child, &r->views[1]);
		break;
	case PGT_EXEC:
		json_subject(w, fc, r, &ev->exec->proc);
		json_exec(w, ev->exec);
		break;
	case PGT_EXIT:
		json_subject(w, fc, r, &ev->exit->proc);
		json_exit(w, fc, r);
		break;
	case PGT_SETSID: {
		const struct pgt_setsid *s = ev->setsid;

		json_subject(w, fc, r, &s->proc);
		json_grp(w, "old", s->old.pgid, s->old.sid, s->old.tty, s->old.tty_nr);
		if (s->ret < 0)
			json_error(w, s->ret);
		else
			json_grp(w, "new", s->proc.pgid, s->proc.sid, s->proc.tty, s->proc.tty_nr);
		break;
	}
	case PGT_SETPGID:
		json_setpgid(w, fc, r);
		break;
	case PGT_REPARENT:
		json_reparent(w, fc, r);
		break;
	case PGT_TTY: {
		const struct pgt_tty *t = ev->tty;

		json_subject(w, fc, r, &t->proc);
		jsonw_plain_field(w, "how", decode__tty_how_name(t->how));
		json_tty_name(w, "tty", t->tty, t->tty_nr);
		json_tty_dev(w, t->tty_nr);
		jsonw_uint_field(w, "sid", t->sid);
		jsonw_bool_field(w, "session_wide", t->session_wide);
		if (t->acquire)
			jsonw_uint_field(w, "foreground", t->fg_pgid);
		break;
	}
	case PGT_FOREGROUND: {
		const struct pgt_foreground *f = ev->fg;

		json_subject(w, fc, r, &f->proc);
		json_tty_name(w, "tty", f->tty, f->tty_nr);
		jsonw_uint_field(w, "sid", f->sid);
		jsonw_uint_field(w, "old_pgid", f->old_pgid);
		if (f->ret < 0)
			json_error(w, f->ret);
		else
			jsonw_uint_field(w, "new_pgid", f->new_pgid);
		break;
	}
	case PGT_CGROUP:
		json_subject(w, fc, r, &ev->cgroup->proc);
		jsonw_uint_field(w, "cgroup_id", ev->cgroup->cgroup_id);
		jsonw_uint_field(w, "hierarchy", ev->cgroup->hierarchy_id);
		jsonw_untrusted(w, "path", ev->cgroup->path, sizeof(ev->cgroup->path));
		break;
	case PGT_SUBREAPER:
		json_subject(w, fc, r, &ev->subreaper->proc);
		jsonw_bool_field(w, "enabled", ev->subreaper->enabled);
		if (ev->subreaper->ret < 0)
			json_error(w, ev->subreaper->ret);
		break;
	}
	json_end(w, fc);
}

static void json_lost(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct lost_info *li = &r->lost;
	char from[64];
	unsigned int t;

	json_head(w, fc, r, NULL);
	fmt__rfc3339(fc, li->from_ns, from, sizeof(from));
	jsonw_null_field(w, "process");
	jsonw_name(w, "lost");
	jsonw_start_object(w);
	jsonw_uint_field(w, "total", li->total);
	jsonw_name(w, "by_type");
	jsonw_start_object(w);
	for (t = 1; t < PGT_TYPE_MAX; t++)
		if (li->by_type[t])
			jsonw_uint_field(w, decode__type_name(t), li->by_type[t]);
	jsonw_end_object(w);
	jsonw_plain_field(w, "from", from);
	if (li->output) {
		jsonw_untrusted(w, "output", li->output, strlen(li->output) + 1);
		jsonw_uint_field(w, "first_seq", li->first_seq);
		jsonw_uint_field(w, "last_seq", li->last_seq);
	}
	jsonw_end_object(w);
	json_end(w, fc);
}

static void json_signal(struct jsonw *w, const struct fmt_ctx *fc, const struct record *rec)
{
	const struct sig_cause *c = &rec->sig;
	const struct pgt_signal *r = &c->first;
	char sig[16];
	unsigned int i;

	json_head(w, fc, rec, &r->hdr.seq);
	json_proc_image(w, fc, "process", &r->proc, &rec->views[0]);
	jsonw_plain_field(w, "signal", decode__signame((int)r->sig, sig, sizeof(sig)));
	jsonw_plain_field(w, "scope", decode__scope_name(r->scope));
	/* 0: a failed kill from inside a pid namespace, with no recipient to name it */
	if (r->scope == PGT_SCOPE_ALL || r->target == 0)
		jsonw_null_field(w, "target");
	else
		jsonw_int_field(w, "target", r->target);
	jsonw_plain_field(w, "cause", decode__cause_name(r->cause));
	json_tty_name(w, "tty", r->tty, r->tty_nr);
	jsonw_int_field(w, "si_code", r->code);
	jsonw_bool_field(w, "fatal", c->flags & PGT_SIG_FATAL);
	if (c->ret < 0)
		json_error(w, c->ret);
	jsonw_name(w, "recipients");
	jsonw_start_array(w);
	for (i = 0; i < c->nr; i++) {
		jsonw_start_object(w);
		jsonw_uint_field(w, "pid", c->rcpt[i].pid);
		jsonw_uint_field(w, "tid", c->rcpt[i].tid);
		jsonw_uint_field(w, "pgid", c->rcpt[i].pgid);
		jsonw_plain_field(w, "result", decode__sig_result_name(c->rcpt[i].result));
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	json_end(w, fc);
}

static void json_where(struct jsonw *w, const char *key, const struct escape_where *e)
{
	jsonw_name(w, key);
	jsonw_start_object(w);
	jsonw_uint_field(w, "sid", e->sid);
	jsonw_uint_field(w, "pgid", e->pgid);
	jsonw_uint_field(w, "ppid", e->ppid);
	json_tty_name(w, "tty", e->tty, e->tty_nr);
	jsonw_end_object(w);
}

#define LINEAGE_MAX 32

/* A link of a lineage: pid, entity id, comm, executable. */
static void json_link(struct jsonw *w, const struct lineage *l)
{
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", l->pid);
	json_entity_id(w, l->pid, l->start_ns);
	jsonw_untrusted(w, "comm", l->comm, sizeof(l->comm));
	json_image_exe(w, l->image);
	jsonw_end_object(w);
}

/* The login a process descends from, and the ancestors up to it. */
static void json_origin(struct jsonw *w, const struct fmt_ctx *fc, const struct lineage *self,
			const struct proc_view *v, const struct pgt_proc *c)
{
	const struct lineage *entry = v->entry;
	const struct lineage *l;
	int n;

	jsonw_name(w, "origin");
	jsonw_start_object(w);
	jsonw_name(w, "entry_leader");
	if (entry)
		json__entry(w, fc, v);
	else
		jsonw_null(w);
	json_id_or_null(w, "auid", c->auid);
	json_id_or_null(w, "ses", c->ses);
	jsonw_end_object(w);
	jsonw_name(w, "lineage");
	jsonw_start_array(w);
	for (l = self ? self->parent : NULL, n = 0; l && n < LINEAGE_MAX; l = l->parent, n++) {
		json_link(w, l);
		if (l == entry)
			break;
	}
	jsonw_end_array(w);
	/* Cut at LINEAGE_MAX before the entry leader or the root: said. */
	jsonw_bool_field(w, "lineage_truncated", n == LINEAGE_MAX && l);
}

static void json_escape(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct escape *e = &r->esc;

	json_head(w, fc, r, &e->seq);
	jsonw_plain_field(w, "kind", escape__kind_name(e->kind));
	json_proc_image(w, fc, "process", &e->proc, &r->views[0]);
	json_where(w, "from", &e->from);
	json_where(w, "to", &e->to);
	if (e->detail[0])
		jsonw_untrusted(w, "cgroup", e->detail, sizeof(e->detail));
	if (e->expected) /* a rule's name: letters, digits, '.', '_', '-' */
		jsonw_plain_field(w, "expected", e->expected);
	else
		jsonw_null_field(w, "expected");
	json_origin(w, fc, e->lineage, &r->views[0], &e->proc);
	json_end(w, fc);
}

static void json_survivor(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct mproc *p = &r->mp.proc;

	json_head(w, fc, r, NULL);
	json_proc_image(w, fc, "process", &p->ctx, &r->views[0]);
	jsonw_name(w, "born");
	jsonw_start_object(w);
	jsonw_uint_field(w, "sid", p->born_sid);
	jsonw_uint_field(w, "pgid", p->born_pgid);
	jsonw_end_object(w);
	json_origin(w, fc, p->lineage, &r->views[0], &p->ctx);
	json_end(w, fc);
}

void json__status(struct jsonw *w, __u32 status)
{
	struct exit_info xi;
	char sig[16];

	decode__exit_status(status, &xi);
	if (xi.exited) {
		jsonw_int_field(w, "code", xi.code);
		jsonw_null_field(w, "signal");
	} else {
		jsonw_null_field(w, "code");
		jsonw_plain_field(w, "signal", decode__signame(xi.signal, sig, sizeof(sig)));
	}
}

static void json_seq_or_null(struct jsonw *w, const char *key, bool has, __u64 seq)
{
	if (has)
		jsonw_uint_field(w, key, seq);
	else
		jsonw_null_field(w, key);
}

/* The login (or the command) that ended: who led it, from when to when. */
static void json_logout_leader(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct logout *lo = &r->lo;
	const struct lineage *l = r->views[0].line;
	char when[64];

	jsonw_name(w, "login");
	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", lo->leader.pid);
	json_entity_id(w, lo->leader.pid, lo->leader.start_ns);
	jsonw_untrusted(w, "comm", lo->leader.comm, sizeof(lo->leader.comm));
	json_image_exe(w, r->views[0].image);
	if (lo->command) {
		json_tty_name(w, "tty", lo->leader.tty, lo->leader.tty_nr);
		jsonw_plain_field(w, "type", "command");
		jsonw_null_field(w, "remote");
	} else {
		json_tty_name(w, "tty", l ? l->tty : "", l ? l->tty_nr : 0);
		jsonw_plain_field(w, "type", l ? fmt__entry_type(l) : "unknown");
		if (l)
			json_remote(w, l);
		else
			jsonw_null_field(w, "remote");
	}
	jsonw_uint_field(w, "start_ns", lo->start_ns);
	fmt__rfc3339(fc, lo->start_ns, when, sizeof(when));
	jsonw_plain_field(w, "start", when);
	jsonw_uint_field(w, "end_ns", lo->end_ns);
	fmt__rfc3339(fc, lo->end_ns, when, sizeof(when));
	jsonw_plain_field(w, "end", when);
	jsonw_uint_field(w, "duration_ns", lo->end_ns - lo->start_ns);
	json_seq_or_null(w, "exit_seq", lo->has_exit_seq, lo->exit_seq);
	json__status(w, lo->leader_status);
	jsonw_end_object(w);
}

/* One process of a logout report: who, where now, its fate and what shows it. */
static void json_logout_proc(struct jsonw *w, const struct logout_proc *lp)
{
	struct span args[PGT_ARGS_SHOWN];
	bool more = false;
	size_t n;

	jsonw_start_object(w);
	jsonw_uint_field(w, "pid", lp->proc.pid);
	json_entity_id(w, lp->proc.pid, lp->proc.start_ns);
	jsonw_untrusted(w, "comm", lp->proc.comm, sizeof(lp->proc.comm));
	json_image_exe(w, lp->image);
	if (lp->image && lp->image->args) {
		n = decode__split_args(lp->image->args, lp->image->args_len, args, PGT_ARGS_SHOWN,
				       &more);
		jsonw_untrusted_array(w, "args", args, n);
	} else {
		jsonw_null_field(w, "args");
	}
	jsonw_plain_field(w, "fate", logout__fate_name(lp->fate));
	jsonw_uint_field(w, "ppid", lp->proc.ppid);
	jsonw_uint_field(w, "pgid", lp->proc.pgid);
	jsonw_uint_field(w, "sid", lp->proc.sid);
	json_tty_name(w, "tty", lp->proc.tty, lp->proc.tty_nr);
	if (lp->hup) {
		jsonw_name(w, "hangup");
		jsonw_start_object(w);
		jsonw_uint_field(w, "sender_pid", lp->hup_sender);
		jsonw_bool_field(w, "ignored", lp->hup_ignored);
		jsonw_end_object(w);
	} else {
		jsonw_null_field(w, "hangup");
	}
	if (lp->escape) {
		jsonw_name(w, "escape");
		jsonw_start_object(w);
		jsonw_plain_field(w, "kind", escape__kind_name(lp->escape));
		json_seq_or_null(w, "seq", lp->has_escape_seq, lp->escape_seq);
		jsonw_end_object(w);
	} else {
		jsonw_null_field(w, "escape");
	}
	if (lp->exited || lp->gone) {
		jsonw_name(w, "exit");
		jsonw_start_object(w);
		json_seq_or_null(w, "seq", lp->has_exit_seq, lp->exit_seq);
		json__status(w, lp->status);
		jsonw_plain_field(w, "mechanism", death__mech_name(lp->mech));
		if (lp->sender_pid)
			jsonw_uint_field(w, "sender_pid", lp->sender_pid);
		else
			jsonw_null_field(w, "sender_pid");
		jsonw_end_object(w);
	} else {
		jsonw_null_field(w, "exit");
	}
	jsonw_end_object(w);
}

static void json_logout(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	const struct logout *lo = &r->lo;
	unsigned int i;

	json_head(w, fc, r, NULL);
	jsonw_plain_field(w, "scope", lo->command ? "command" : "login");
	json_proc_image(w, fc, "process", &lo->leader, &r->views[0]);
	json_logout_leader(w, fc, r);
	jsonw_name(w, "processes");
	jsonw_start_array(w);
	for (i = 0; i < lo->nr; i++)
		json_logout_proc(w, &lo->procs[i]);
	jsonw_end_array(w);
	jsonw_name(w, "counts");
	jsonw_start_object(w);
	for (i = 0; i < FATE_MAX; i++)
		jsonw_uint_field(w, logout__fate_name(i), lo->counts[i]);
	jsonw_end_object(w);
	json_end(w, fc);
}

const char *fmt__correction_name(enum model_note_kind kind)
{
	return kind == NOTE_RESYNC_ADDED   ? "added" :
	       kind == NOTE_RESYNC_REMOVED ? "removed" :
					     "changed";
}

static void json_correction(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	json_head(w, fc, r, NULL);
	if (r->mp.has_proc)
		json_proc_image(w, fc, "process", &r->mp.proc.ctx, &r->views[0]);
	else
		jsonw_null_field(w, "process");
	jsonw_uint_field(w, "pid", r->mp.note.pid);
	jsonw_plain_field(w, "correction", fmt__correction_name(r->mp.note.kind));
	jsonw_bool_field(w, "uncertain", true);
	json_end(w, fc);
}

/* The record's JSON, into @w. */
static void json_write(struct jsonw *w, const struct fmt_ctx *fc, const struct record *r)
{
	switch (r->kind) {
	case RECORD_EVENT:
		json_event(w, fc, r);
		break;
	case RECORD_SIGNAL:
		json_signal(w, fc, r);
		break;
	case RECORD_ESCAPE:
		json_escape(w, fc, r);
		break;
	case RECORD_SURVIVOR:
		json_survivor(w, fc, r);
		break;
	case RECORD_CORRECTION:
		json_correction(w, fc, r);
		break;
	case RECORD_LOST:
		json_lost(w, fc, r);
		break;
	case RECORD_LOGOUT:
		json_logout(w, fc, r);
		break;
	}
}

void json__record(struct sbuf *sb, const struct fmt_ctx *fc, const struct record *r)
{
	struct jsonw w;

	jsonw_init(&w, sb);
	json_write(&w, fc, r);
	sbuf__putc(sb, '\n');
}

void json__walk(const struct fmt_ctx *fc, const struct record *r, field_fn fn, void *ctx)
{
	struct jsonw w;

	jsonw_init_fields(&w, fn, ctx);
	if (jsonw_is_fields(&w))
		json_write(&w, fc, r);
	jsonw_fini(&w);
}
