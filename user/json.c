// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* JSON Lines, schema 1: see docs/events.md. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "format.h"

#define YEAR_9999_END	253402300799LL	/* the last second RFC 3339 can write */

void fmt__split_time(const struct fmt_ctx *fc, __u64 boot_ns, time_t *secs, long *nsec)
{
	/* Unsigned, so that a bogus stamp wraps instead of overflowing. */
	__s64 real = (__s64)(boot_ns + (__u64)fc->boot_to_real_ns);

	*secs = real / 1000000000LL;
	*nsec = real % 1000000000LL;
	if (*nsec < 0) {
		*nsec += 1000000000L;
		*secs -= 1;
	}
	if (*secs < 0 || *secs > YEAR_9999_END) {
		*secs = *secs < 0 ? 0 : YEAR_9999_END;
		*nsec = 0;
	}
}

void fmt__rfc3339(const struct fmt_ctx *fc, __u64 boot_ns, char *buf, size_t len)
{
	/* Records come in bursts within a second: the date part is cached. */
	static time_t cached_secs = -1;
	static char date[32];
	static size_t date_len;
	struct tm tm;
	time_t secs;
	long nsec;
	int i;

	fmt__split_time(fc, boot_ns, &secs, &nsec);
	if (secs != cached_secs) {
		gmtime_r(&secs, &tm);
		date_len = strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S.", &tm);
		cached_secs = secs;
	}
	if (len < date_len + 11) {
		if (len)
			buf[0] = '\0';
		return;
	}
	memcpy(buf, date, date_len);
	for (i = 8; i >= 0; i--) {
		buf[date_len + i] = (char)('0' + nsec % 10);
		nsec /= 10;
	}
	buf[date_len + 9] = 'Z';
	buf[date_len + 10] = '\0';
}

/* "name":"value" with "name_hex" added when the bytes were not UTF-8. */
/* "key": */
static void json_key(struct sbuf *sb, const char *key)
{
	sbuf__putc(sb, '"');
	sbuf__puts(sb, key);
	sbuf__puts(sb, "\":");
}

static void json_untrusted(struct sbuf *sb, const char *key, const char *s, size_t max)
{
	json_key(sb, key);
	if (sbuf__put_json_str(sb, s, max)) {
		sbuf__printf(sb, ",\"%s_hex\":", key);
		sbuf__put_json_hex(sb, s, max);
	}
}

static void json_id_or_null(struct sbuf *sb, const char *key, __u32 v)
{
	json_key(sb, key);
	if (v == PGT_ID_UNSET)
		sbuf__puts(sb, "null");
	else
		sbuf__put_u64(sb, v);
}

/* "pts/3" or null; false for null. */
static bool json_tty_name(struct sbuf *sb, const char *kname, __u32 tty_nr)
{
	char name[32];

	if (!decode__tty_name(kname, tty_nr, name, sizeof(name))) {
		sbuf__puts(sb, "null");
		return false;
	}
	sbuf__put_json_str(sb, name, sizeof(name));
	return true;
}

static void json_tty(struct sbuf *sb, const char *kname, __u32 tty_nr)
{
	unsigned int major, minor;

	sbuf__puts(sb, "\"tty\":");
	if (!json_tty_name(sb, kname, tty_nr)) {
		sbuf__puts(sb, ",\"tty_dev\":null");
		return;
	}
	decode__tty_dev(tty_nr, &major, &minor);
	sbuf__printf(sb, ",\"tty_dev\":{\"major\":%u,\"minor\":%u}", major, minor);
}

/* @prefix (the comma, key and colon), then the number. */
static void json_u64(struct sbuf *sb, const char *prefix, __u64 v)
{
	sbuf__puts(sb, prefix);
	sbuf__put_u64(sb, v);
}

static void json_proc(struct sbuf *sb, const char *key, const struct pgt_proc *p)
{
	char eid[17];

	/* The hottest formatting there is: no printf. */
	decode__entity_id(p->pid, p->start_ns, eid);
	sbuf__putc(sb, '"');
	sbuf__puts(sb, key);
	json_u64(sb, "\":{\"pid\":", p->pid);
	json_u64(sb, ",\"tid\":", p->tid);
	json_u64(sb, ",\"ppid\":", p->ppid);
	json_u64(sb, ",\"pgid\":", p->pgid);
	json_u64(sb, ",\"sid\":", p->sid);
	sbuf__putc(sb, ',');
	json_tty(sb, p->tty, p->tty_nr);
	json_u64(sb, ",\"uid\":", p->uid);
	sbuf__putc(sb, ',');
	json_id_or_null(sb, "auid", p->auid);
	sbuf__putc(sb, ',');
	json_id_or_null(sb, "ses", p->ses);
	sbuf__putc(sb, ',');
	json_untrusted(sb, "comm", p->comm, sizeof(p->comm));
	json_u64(sb, ",\"start_ns\":", p->start_ns);
	sbuf__puts(sb, ",\"entity_id\":\"");
	sbuf__puts(sb, eid);
	json_u64(sb, "\",\"ns_pid\":", p->ns_pid);
	json_u64(sb, ",\"pidns\":", p->pidns_ino);
	sbuf__puts(sb, p->flags & PGT_F_SESSION_LEADER ? ",\"session_leader\":true"
						      : ",\"session_leader\":false");
	sbuf__puts(sb, p->flags & PGT_F_GROUP_LEADER ? ",\"group_leader\":true"
						    : ",\"group_leader\":false");
	sbuf__puts(sb, p->flags & PGT_F_IS_SUBREAPER ? ",\"subreaper\":true}"
						    : ",\"subreaper\":false}");
}

static void json_grp(struct sbuf *sb, const char *key, __u32 pgid, __u32 sid, const char *tty,
		     __u32 tty_nr)
{
	sbuf__puts(sb, ",\"");
	sbuf__puts(sb, key);
	json_u64(sb, "\":{\"pgid\":", pgid);
	json_u64(sb, ",\"sid\":", sid);
	sbuf__puts(sb, ",\"tty\":");
	json_tty_name(sb, tty, tty_nr);
	sbuf__putc(sb, '}');
}

static void json_error(struct sbuf *sb, int ret)
{
	char buf[16];

	sbuf__printf(sb, ",\"error\":\"%s\"", decode__errname((int)(0U - (unsigned int)ret), buf, sizeof(buf)));
}

/*
 * The fields every record starts with. seq is a placeholder (the output
 * numbers records as it writes them); kseq is the kernel record's number,
 * null for records made in user space (lost, survivor, correction).
 */
static void json_head(struct sbuf *sb, const struct fmt_ctx *fc, const __u64 *kseq, __u64 ts,
		      const char *event)
{
	char when[64];

	fmt__rfc3339(fc, ts, when, sizeof(when));
	_Static_assert(PGT_SCHEMA_VERSION == 2, "PGT_JSON_SEQ_AT assumes one digit");
	sbuf__puts(sb, "{\"schema\":2,\"seq\":0");
	if (kseq)
		json_u64(sb, ",\"kseq\":", *kseq);
	else
		sbuf__puts(sb, ",\"kseq\":null");
	sbuf__puts(sb, ",\"time\":\"");
	sbuf__puts(sb, when);
	sbuf__puts(sb, "\",\"event\":\"");
	sbuf__puts(sb, event);
	sbuf__puts(sb, "\",");
}

/*
 * One case per record type, each the fields docs/events.md lists for it, in
 * that order: long, but it reads as the schema does, next to text__event().
 */
void json__event(struct sbuf *sb, const struct fmt_ctx *fc, const struct pgt_event *ev)
{
	const struct pgt_hdr *h = ev->hdr;
	struct exit_info xi;
	char sig[16];

	json_head(sb, fc, &h->seq, h->ts_ns,
		  h->type == PGT_TTY ? (ev->tty->acquire ? "tty_acquire" : "tty_release")
				     : decode__type_name(h->type));
	switch (h->type) {
	case PGT_FORK:
		json_proc(sb, "process", &ev->fork->proc);
		sbuf__putc(sb, ',');
		json_proc(sb, "child", &ev->fork->child);
		break;
	case PGT_EXEC:
		json_proc(sb, "process", &ev->exec->proc);
		sbuf__putc(sb, ',');
		json_untrusted(sb, "filename", ev->exec->filename, sizeof(ev->exec->filename));
		sbuf__puts(sb, ev->exec->flags & PGT_EXEC_FILENAME_CUT ?
			   ",\"filename_truncated\":true" : ",\"filename_truncated\":false");
		if (ev->exec->old_tid != ev->exec->proc.pid)
			sbuf__printf(sb, ",\"old_tid\":%u", ev->exec->old_tid);
		break;
	case PGT_EXIT:
		json_proc(sb, "process", &ev->exit->proc);
		decode__exit_status(ev->exit->status, &xi);
		if (xi.exited)
			sbuf__printf(sb, ",\"exit\":{\"code\":%d,\"signal\":null,\"core\":false}",
				     xi.code);
		else
			sbuf__printf(sb, ",\"exit\":{\"code\":null,\"signal\":\"%s\",\"core\":%s}",
				     decode__signame(xi.signal, sig, sizeof(sig)),
				     xi.core ? "true" : "false");
		break;
	case PGT_SETSID: {
		const struct pgt_setsid *s = ev->setsid;

		json_proc(sb, "process", &s->proc);
		json_grp(sb, "old", s->old.pgid, s->old.sid, s->old.tty, s->old.tty_nr);
		if (s->ret < 0)
			json_error(sb, s->ret);
		else
			json_grp(sb, "new", s->proc.pgid, s->proc.sid, s->proc.tty,
				 s->proc.tty_nr);
		break;
	}
	case PGT_SETPGID: {
		const struct pgt_setpgid *s = ev->setpgid;

		json_proc(sb, "process", &s->proc);
		sbuf__putc(sb, ',');
		if (s->target_found)
			json_proc(sb, "target", &s->target);
		else
			sbuf__puts(sb, "\"target\":null");
		sbuf__printf(sb, ",\"args\":{\"pid\":%d,\"pgid\":%d},\"job_control\":%s",
			     s->arg_pid, s->arg_pgid, ev->notes & EV_JOB_CONTROL ? "true" : "false");
		if (s->target_found)
			json_grp(sb, "old", s->old.pgid, s->old.sid, s->old.tty, s->old.tty_nr);
		if (s->ret < 0)
			json_error(sb, s->ret);
		else if (s->target_found)
			json_grp(sb, "new", s->target.pgid, s->target.sid, s->target.tty,
				 s->target.tty_nr);
		break;
	}
	case PGT_REPARENT: {
		const struct pgt_reparent *r = ev->reparent;
		char eid[17];

		json_proc(sb, "process", &r->proc);
		decode__entity_id(r->child_pid, r->child_start_ns, eid);
		sbuf__printf(sb, ",\"child\":{\"pid\":%u,\"start_ns\":%llu,\"entity_id\":\"%s\",",
			     r->child_pid, (unsigned long long)r->child_start_ns, eid);
		json_untrusted(sb, "comm", r->child_comm, sizeof(r->child_comm));
		decode__entity_id(r->reaper_pid, r->reaper_start_ns, eid);
		sbuf__printf(sb, "},\"old_ppid\":%u,\"new_ppid\":%u,\"new_parent\":{\"pid\":%u,"
				 "\"tid\":%u,\"start_ns\":%llu,\"entity_id\":\"%s\",",
			     r->proc.pid, r->reaper_pid, r->reaper_pid, r->reaper_tid,
			     (unsigned long long)r->reaper_start_ns, eid);
		json_untrusted(sb, "comm", r->reaper_comm, sizeof(r->reaper_comm));
		sbuf__printf(sb, "},\"reason\":\"%s\"", decode__reason_name(r->reason));
		break;
	}
	case PGT_TTY: {
		const struct pgt_tty *t = ev->tty;
		unsigned int major, minor;

		json_proc(sb, "process", &t->proc);
		sbuf__printf(sb, ",\"how\":\"%s\",\"tty\":", decode__tty_how_name(t->how));
		json_tty_name(sb, t->tty, t->tty_nr);
		decode__tty_dev(t->tty_nr, &major, &minor);
		sbuf__printf(sb, ",\"tty_dev\":{\"major\":%u,\"minor\":%u},\"sid\":%u,"
				 "\"session_wide\":%s",
			     major, minor, t->sid, t->session_wide ? "true" : "false");
		if (t->acquire)
			sbuf__printf(sb, ",\"foreground\":%u", t->fg_pgid);
		break;
	}
	case PGT_FOREGROUND: {
		const struct pgt_foreground *f = ev->fg;

		json_proc(sb, "process", &f->proc);
		sbuf__puts(sb, ",\"tty\":");
		json_tty_name(sb, f->tty, f->tty_nr);
		sbuf__printf(sb, ",\"sid\":%u,\"old_pgid\":%u", f->sid, f->old_pgid);
		if (f->ret < 0)
			json_error(sb, f->ret);
		else
			sbuf__printf(sb, ",\"new_pgid\":%u", f->new_pgid);
		break;
	}
	case PGT_CGROUP:
		json_proc(sb, "process", &ev->cgroup->proc);
		sbuf__printf(sb, ",\"cgroup_id\":%llu,\"hierarchy\":%u,",
			     (unsigned long long)ev->cgroup->cgroup_id, ev->cgroup->hierarchy_id);
		json_untrusted(sb, "path", ev->cgroup->path, sizeof(ev->cgroup->path));
		break;
	case PGT_SUBREAPER:
		json_proc(sb, "process", &ev->subreaper->proc);
		sbuf__printf(sb, ",\"enabled\":%s", ev->subreaper->enabled ? "true" : "false");
		if (ev->subreaper->ret < 0)
			json_error(sb, ev->subreaper->ret);
		break;
	}
	sbuf__puts(sb, "}\n");
}

void json__lost(struct sbuf *sb, const struct fmt_ctx *fc, const struct lost_info *li)
{
	char from[64];
	const char *sep = "";
	unsigned int t;

	json_head(sb, fc, NULL, li->to_ns, "lost");
	fmt__rfc3339(fc, li->from_ns, from, sizeof(from));
	sbuf__printf(sb, "\"process\":null,\"lost\":{\"total\":%llu,\"by_type\":{",
		     (unsigned long long)li->total);
	for (t = 1; t < PGT_TYPE_MAX; t++) {
		if (!li->by_type[t])
			continue;
		sbuf__printf(sb, "%s\"%s\":%llu", sep, decode__type_name(t),
			     (unsigned long long)li->by_type[t]);
		sep = ",";
	}
	sbuf__printf(sb, "},\"from\":\"%s\"}}\n", from);
}

void json__signal(struct sbuf *sb, const struct fmt_ctx *fc, const struct sig_cause *c)
{
	const struct pgt_signal *r = &c->first;
	char sig[16];
	unsigned int i;

	json_head(sb, fc, &r->hdr.seq, r->hdr.ts_ns, "signal");
	json_proc(sb, "process", &r->proc);
	sbuf__puts(sb, ",\"signal\":\"");
	sbuf__puts(sb, decode__signame((int)r->sig, sig, sizeof(sig)));
	sbuf__puts(sb, "\",\"scope\":\"");
	sbuf__puts(sb, decode__scope_name(r->scope));
	sbuf__puts(sb, "\",\"target\":");
	/* 0: a failed kill from inside a pid namespace, with no recipient to name it */
	if (r->scope == PGT_SCOPE_ALL || r->target == 0)
		sbuf__puts(sb, "null");
	else
		sbuf__put_s64(sb, r->target);
	sbuf__puts(sb, ",\"cause\":\"");
	sbuf__puts(sb, decode__cause_name(r->cause));
	sbuf__puts(sb, "\",\"tty\":");
	json_tty_name(sb, r->tty, r->tty_nr);
	sbuf__puts(sb, ",\"si_code\":");
	sbuf__put_s64(sb, r->code);
	sbuf__puts(sb, c->flags & PGT_SIG_FATAL ? ",\"fatal\":true" : ",\"fatal\":false");
	if (c->ret < 0)
		json_error(sb, c->ret);
	sbuf__puts(sb, ",\"recipients\":[");
	for (i = 0; i < c->nr; i++) {
		json_u64(sb, i ? ",{\"pid\":" : "{\"pid\":", c->rcpt[i].pid);
		json_u64(sb, ",\"tid\":", c->rcpt[i].tid);
		json_u64(sb, ",\"pgid\":", c->rcpt[i].pgid);
		sbuf__puts(sb, ",\"result\":\"");
		sbuf__puts(sb, decode__sig_result_name(c->rcpt[i].result));
		sbuf__puts(sb, "\"}");
	}
	sbuf__puts(sb, "]}\n");
}

static void json_where(struct sbuf *sb, const char *key, const struct escape_where *w)
{
	sbuf__printf(sb, ",\"%s\":{\"sid\":%u,\"pgid\":%u,\"ppid\":%u,\"tty\":", key, w->sid,
		     w->pgid, w->ppid);
	json_tty_name(sb, w->tty, w->tty_nr);
	sbuf__putc(sb, '}');
}

#define LINEAGE_MAX	32

/* The login a process descends from, and the ancestors up to it. */
static void json_origin(struct sbuf *sb, const struct lineage *self, const struct lineage *entry,
			const struct pgt_proc *c)
{
	const struct lineage *l;
	char eid[17];
	int n;

	sbuf__puts(sb, ",\"origin\":{\"entry_leader\":");
	if (entry) {
		decode__entity_id(entry->pid, entry->start_ns, eid);
		sbuf__printf(sb, "{\"pid\":%u,\"entity_id\":\"%s\",", entry->pid, eid);
		json_untrusted(sb, "comm", entry->comm, sizeof(entry->comm));
		sbuf__puts(sb, ",\"tty\":");
		json_tty_name(sb, entry->tty, entry->tty_nr);
		sbuf__putc(sb, '}');
	} else {
		sbuf__puts(sb, "null");
	}
	sbuf__putc(sb, ',');
	json_id_or_null(sb, "auid", c->auid);
	sbuf__putc(sb, ',');
	json_id_or_null(sb, "ses", c->ses);
	sbuf__puts(sb, "},\"lineage\":[");
	for (l = self ? self->parent : NULL, n = 0; l && n < LINEAGE_MAX;
	     l = l->parent, n++) {
		decode__entity_id(l->pid, l->start_ns, eid);
		sbuf__printf(sb, "%s{\"pid\":%u,\"entity_id\":\"%s\",", n ? "," : "", l->pid, eid);
		json_untrusted(sb, "comm", l->comm, sizeof(l->comm));
		sbuf__putc(sb, '}');
		if (l == entry)
			break;
	}
	/* Cut at LINEAGE_MAX before the entry leader or the root: said. */
	sbuf__printf(sb, "],\"lineage_truncated\":%s", n == LINEAGE_MAX && l ? "true" : "false");
}

void json__escape(struct sbuf *sb, const struct fmt_ctx *fc, const struct escape *e)
{
	json_head(sb, fc, &e->seq, e->ts_ns, "escape");
	sbuf__printf(sb, "\"kind\":\"%s\",", escape__kind_name(e->kind));
	json_proc(sb, "process", &e->proc);
	json_where(sb, "from", &e->from);
	json_where(sb, "to", &e->to);
	if (e->detail[0]) {
		sbuf__putc(sb, ',');
		json_untrusted(sb, "cgroup", e->detail, sizeof(e->detail));
	}
	json_origin(sb, e->lineage, e->entry, &e->proc);
	sbuf__puts(sb, "}\n");
}

void json__survivor(struct sbuf *sb, const struct fmt_ctx *fc, const struct mproc *p,
		    __u64 now_ns)
{
	json_head(sb, fc, NULL, now_ns, "survivor");
	json_proc(sb, "process", &p->ctx);
	sbuf__printf(sb, ",\"born\":{\"sid\":%u,\"pgid\":%u}", p->born_sid, p->born_pgid);
	json_origin(sb, p->lineage, p->entry, &p->ctx);
	sbuf__puts(sb, "}\n");
}

static const char *correction_name(enum model_note_kind kind)
{
	return kind == NOTE_RESYNC_ADDED ? "added" : kind == NOTE_RESYNC_REMOVED ? "removed"
										 : "changed";
}

void json__correction(struct sbuf *sb, const struct fmt_ctx *fc, const struct model_note *n,
		      const struct mproc *p, __u64 now_ns)
{
	json_head(sb, fc, NULL, now_ns, "correction");
	if (p && n->kind != NOTE_RESYNC_REMOVED)
		json_proc(sb, "process", &p->ctx);
	else
		sbuf__puts(sb, "\"process\":null");
	sbuf__printf(sb, ",\"pid\":%u,\"correction\":\"%s\",\"uncertain\":true}\n", n->pid,
		     correction_name(n->kind));
}

const struct formatter json_formatter = {
	.event = json__event,
	.signal = json__signal,
	.escape = json__escape,
	.survivor = json__survivor,
	.correction = json__correction,
	.lost = json__lost,
};
