/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --syslog[=TARGET]: each record as an RFC 5424 message, MSGID its kind and
 * its fields as structured data, to the local socket (/dev/log), to a
 * collector over TCP (RFC 6587 octet counting) or over UDP. A collector that
 * is away never blocks the reader of the ring buffer: messages wait in a
 * bounded queue while the sink reconnects, and what does not fit is counted
 * and reported as lost (docs/service.md).
 */
#ifndef __SYSLOG_H
#define __SYSLOG_H

#include <stdbool.h>
#include <stddef.h>
#include "sink.h"

#define SYSLOG_DEFAULT_TARGET "/dev/log"
#define SYSLOG_DEFAULT_QUEUE  (8u << 20)
/* The SD-ID suffix: RFC 5612's enterprise number for documentation (we have none). */
#define SYSLOG_PEN	      "32473"

enum syslog_kind { SYSLOG_UNIX, SYSLOG_UDP, SYSLOG_TCP };

struct syslog_cfg {
	const char *target; /* "/dev/log", "unix:PATH", "tcp://HOST:PORT", "udp://HOST:PORT" */
	int facility;	    /* 0-23 */
	size_t queue_bytes; /* what may wait while the collector is away */
};

struct syslog;

extern const struct sink_ops syslog_sink;

/* 0 if @target is well formed; else -EINVAL and @err says why. */
int syslog__parse_target(const char *target, enum syslog_kind *kind, char *err, size_t errlen);
/* The facility's number for its name ("daemon", "local0"...), or -1. */
int syslog__facility(const char *name);
/* Returns NULL and says why when the target cannot be used. */
struct syslog *syslog__open(const struct syslog_cfg *cfg);
/* Records that never reached the collector (counted at close too). */
unsigned long long syslog__lost(const struct syslog *sl);
void syslog__free(struct syslog *sl);

/*
 * The RFC 5424 message of one record (without framing) into @sb: for the
 * tests. @host and @procid as they go on the wire.
 */
struct sbuf;
void syslog__format(struct sbuf *sb, int facility, const char *host, const char *procid,
		    const struct sink_msg *m);

#endif /* __SYSLOG_H */
