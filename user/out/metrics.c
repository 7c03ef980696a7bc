// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --metrics: the counters, counted as records are written, and the exposition. */
#include <stdio.h>
#include <string.h>
#include "decode.h"
#include "escape.h"
#include "format.h"
#include "metrics.h"
#include "record.h"

void metrics__count(struct metrics *m, const struct record *r)
{
	const char *name = record__name(r);
	unsigned int i;

	if (record__kind_by_name(name, strlen(name), &i) && i < METRICS_KINDS)
		m->records[i]++;
	switch (r->kind) {
	case RECORD_ESCAPE:
		if ((unsigned int)r->esc.kind < METRICS_ESCAPES)
			m->escapes[r->esc.kind]++;
		break;
	case RECORD_SIGNAL:
		if (r->sig.first.cause < METRICS_CAUSES)
			m->causes[r->sig.first.cause]++;
		break;
	case RECORD_CORRECTION:
		if ((unsigned int)r->mp.note.kind < METRICS_NOTES)
			m->corrections[r->mp.note.kind]++;
		break;
	case RECORD_LOST:
		/* The kernel side's losses; an output's own are its channel's. */
		if (!r->lost.output)
			for (i = 0; i < PGT_TYPE_MAX; i++)
				m->kernel_lost[i] += r->lost.by_type[i];
		break;
	default:
		break;
	}
}

/* A metric's HELP and TYPE lines. */
static void head(struct sbuf *b, const char *name, const char *type, const char *help)
{
	sbuf__printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: our names are plain, but escape as the format says anyway. */
static void label(struct sbuf *b, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			sbuf__putc(b, '\\');
		if (*v == '\n') {
			sbuf__puts(b, "\\n");
			continue;
		}
		sbuf__putc(b, *v);
	}
}

static void sample(struct sbuf *b, const char *name, const char *key, const char *val, __u64 v)
{
	sbuf__puts(b, name);
	if (key) {
		sbuf__printf(b, "{%s=\"", key);
		label(b, val);
		sbuf__puts(b, "\"}");
	}
	sbuf__putc(b, ' ');
	sbuf__put_u64(b, v);
	sbuf__putc(b, '\n');
}

static void gauge(struct sbuf *b, const char *name, const char *help, __u64 v)
{
	head(b, name, "gauge", help);
	sample(b, name, NULL, NULL, v);
}

void metrics__render(const struct metrics *m, const struct metrics_gauges *g, struct sbuf *b)
{
	const struct record_kind_info *k;
	unsigned int i;

	sbuf__reset(b);
	head(b, "pgrptrace_records_total", "counter",
	     "Records written, by kind (the \"event\" of each JSON record).");
	for (i = 0; (k = record__kind(i)) && i < METRICS_KINDS; i++)
		sample(b, "pgrptrace_records_total", "event", k->name, m->records[i]);
	head(b, "pgrptrace_kernel_lost_records_total", "counter",
	     "Records the BPF side could not put in the ring buffer, by record type.");
	for (i = 1; i < PGT_TYPE_MAX; i++)
		if (decode__type_name(i))
			sample(b, "pgrptrace_kernel_lost_records_total", "type",
			       decode__type_name(i), m->kernel_lost[i]);
	head(b, "pgrptrace_resyncs_total", "counter",
	     "Times the machine was read again after records were lost.");
	sample(b, "pgrptrace_resyncs_total", NULL, NULL, m->resyncs);
	head(b, "pgrptrace_corrections_total", "counter",
	     "Processes a resync added, changed or removed in the model.");
	for (i = NOTE_RESYNC_ADDED; i <= NOTE_RESYNC_REMOVED; i++)
		sample(b, "pgrptrace_corrections_total", "kind", fmt__correction_name(i),
		       m->corrections[i]);
	head(b, "pgrptrace_escapes_total", "counter", "Escape records, by kind.");
	for (i = ESC_SETSID; i <= ESC_PIDNS; i++)
		sample(b, "pgrptrace_escapes_total", "kind", escape__kind_name(i), m->escapes[i]);
	head(b, "pgrptrace_signal_causes_total", "counter", "Signal records, by cause.");
	for (i = 1; i < METRICS_CAUSES; i++)
		if (decode__cause_name(i) && strcmp(decode__cause_name(i), "unknown"))
			sample(b, "pgrptrace_signal_causes_total", "cause", decode__cause_name(i),
			       m->causes[i]);
	head(b, "pgrptrace_output_records_total", "counter",
	     "Records each output took (standard output or -o, the journal, syslog).");
	for (i = 0; i < g->nchannels; i++)
		sample(b, "pgrptrace_output_records_total", "output", g->channels[i].name,
		       g->channels[i].delivered);
	head(b, "pgrptrace_output_lost_records_total", "counter",
	     "Records an output lost, its queue full.");
	for (i = 0; i < g->nchannels; i++)
		sample(b, "pgrptrace_output_lost_records_total", "output", g->channels[i].name,
		       g->channels[i].lost);
	head(b, "pgrptrace_output_queue_bytes", "gauge",
	     "Bytes waiting to be written, per output.");
	for (i = 0; i < g->nchannels; i++)
		sample(b, "pgrptrace_output_queue_bytes", "output", g->channels[i].name,
		       g->channels[i].queued_bytes);
	gauge(b, "pgrptrace_processes", "Processes in the model.", g->processes);
	gauge(b, "pgrptrace_process_groups", "Process groups in the model.", g->groups);
	gauge(b, "pgrptrace_sessions", "Sessions in the model.", g->sessions);
	gauge(b, "pgrptrace_logins", "Logins (entry leaders alive) in the model.", g->logins);
	gauge(b, "pgrptrace_ringbuf_used_bytes",
	      "Bytes of records in the ring buffer, not yet read.", g->ringbuf_used);
	gauge(b, "pgrptrace_ringbuf_size_bytes", "The ring buffer's size.", g->ringbuf_size);
	head(b, "pgrptrace_info", "gauge", "pgrptrace's version, hook level and kernel.");
	sbuf__puts(b, "pgrptrace_info{version=\"");
	label(b, g->version ?: "");
	sbuf__puts(b, "\",hook_level=\"");
	label(b, g->hook_level ?: "");
	sbuf__puts(b, "\",kernel=\"");
	label(b, g->kernel ?: "");
	sbuf__puts(b, "\"} 1\n");
	head(b, "process_cpu_seconds_total", "counter", "User and system CPU time, in seconds.");
	sbuf__printf(b, "process_cpu_seconds_total %.2f\n", g->cpu_seconds);
	gauge(b, "process_resident_memory_bytes", "Resident memory, in bytes.", g->resident_bytes);
	gauge(b, "process_virtual_memory_bytes", "Virtual memory, in bytes.", g->virtual_bytes);
	gauge(b, "process_open_fds", "Open file descriptors.", g->open_fds);
	gauge(b, "process_max_fds", "The limit of open file descriptors.", g->max_fds);
	head(b, "process_start_time_seconds", "gauge",
	     "Start time of the process since the epoch, in seconds.");
	sbuf__printf(b, "process_start_time_seconds %.2f\n", g->start_time_seconds);
}
