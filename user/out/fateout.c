// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include "fateout.h"
#include "format.h"
#include "jsonw.h"
#include "sbuf.h"

/* "hangup of pts/3", "logout of 4242", "kill -TERM to group 4250" */
static void text_what(struct sbuf *sb, const struct fate_report *r)
{
	const struct fate_what *w = &r->what;
	char sig[16];

	switch (w->kind) {
	case FATE_WHAT_HANGUP:
		sbuf__puts(sb, "if ");
		sbuf__put_text(sb, w->tty, sizeof(w->tty));
		sbuf__printf(sb, " hangs up (session %u, leader %u, foreground group %u):\n",
			     r->sid, r->leader, r->fg_pgid);
		break;
	case FATE_WHAT_LOGOUT:
		sbuf__printf(sb, "if %u exits (session %u, foreground group %u):\n", w->pid, r->sid,
			     r->fg_pgid);
		break;
	case FATE_WHAT_KILL:
		sbuf__printf(sb, "if %s is sent to group %u:\n",
			     decode__signame(w->sig, sig, sizeof(sig)), w->pid);
		break;
	}
}

static void write_text(const struct fate_report *r, struct sbuf *sb)
{
	unsigned int i;

	text_what(sb, r);
	for (i = 0; i < r->nr; i++) {
		const struct fate_proc *fp = &r->procs[i];
		const char *reason, *by;
		enum fate_outcome o = fate__final(fp, &reason, &by);
		size_t cols;

		sbuf__printf(sb, "  %-10s %-7u ", fate__outcome_name(o), fp->p->ctx.pid);
		cols = sbuf__put_text(sb, fp->p->ctx.comm, sizeof(fp->p->ctx.comm));
		if (cols < 16)
			sbuf__printf(sb, "%*s", (int)(16 - cols), "");
		sbuf__printf(sb, " %s%s: ", by, strcmp(by, "shell") ? "" : "'s habit");
		sbuf__put_text(sb, reason, strlen(reason));
		sbuf__putc(sb, '\n');
	}
}

static void json_step(struct jsonw *w, const char *key, const struct fate_step *st)
{
	jsonw_name(w, key);
	if (!st->outcome) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_plain_field(w, "outcome", fate__outcome_name(st->outcome));
	jsonw_untrusted(w, "reason", st->reason, sizeof(st->reason));
	jsonw_end_object(w);
}

static void write_json(const struct fate_report *r, struct sbuf *sb)
{
	const struct fate_what *fw = &r->what;
	struct jsonw w;
	unsigned int i;
	char eid[17], sig[16];

	jsonw_init(&w, sb);
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "schema", PGT_SCHEMA_VERSION);
	jsonw_name(&w, "fate");
	jsonw_start_object(&w);
	jsonw_plain_field(&w, "what",
			  fw->kind == FATE_WHAT_HANGUP ? "hangup" :
			  fw->kind == FATE_WHAT_LOGOUT ? "logout" :
							 "kill");
	if (fw->kind == FATE_WHAT_HANGUP)
		jsonw_untrusted(&w, "tty", fw->tty, sizeof(fw->tty));
	if (fw->kind == FATE_WHAT_KILL) {
		jsonw_uint_field(&w, "pgid", fw->pid);
		jsonw_plain_field(&w, "signal", decode__signame(fw->sig, sig, sizeof(sig)));
	} else {
		jsonw_uint_field(&w, "sid", r->sid);
		jsonw_uint_field(&w, "leader", r->leader);
		jsonw_uint_field(&w, "foreground_pgid", r->fg_pgid);
	}
	jsonw_name(&w, "processes");
	jsonw_start_array(&w);
	for (i = 0; i < r->nr; i++) {
		const struct fate_proc *fp = &r->procs[i];
		const struct pgt_proc *c = &fp->p->ctx;
		const char *reason, *by;
		enum fate_outcome o = fate__final(fp, &reason, &by);

		jsonw_start_object(&w);
		jsonw_uint_field(&w, "pid", c->pid);
		decode__entity_id(c->pid, c->start_ns, eid);
		jsonw_plain_field(&w, "entity_id", eid);
		jsonw_untrusted(&w, "comm", c->comm, sizeof(c->comm));
		jsonw_uint_field(&w, "pgid", c->pgid);
		jsonw_uint_field(&w, "sid", c->sid);
		jsonw_plain_field(&w, "outcome", fate__outcome_name(o));
		jsonw_untrusted(&w, "reason", reason, strlen(reason) + 1);
		jsonw_plain_field(&w, "by", by);
		/* The kernel's rules and the shell's habit, kept apart. */
		json_step(&w, "kernel", &fp->kernel);
		json_step(&w, "shell", &fp->shell);
		if (fp->shell.outcome) {
			jsonw_uint_field(&w, "shell_pid", fp->shell_pid);
			jsonw_untrusted(&w, "shell_name", fp->shell_name, sizeof(fp->shell_name));
		}
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_end_object(&w);
	jsonw_end_object(&w);
	jsonw_fini(&w);
	sbuf__putc(sb, '\n');
}

int fateout__write(const struct fate_report *r, FILE *f, bool json)
{
	struct sbuf sb = {};
	int err = 0;

	if (json)
		write_json(r, &sb);
	else
		write_text(r, &sb);
	err = fmt__write_file(&sb, f);
	sbuf__free(&sb);
	return err;
}
