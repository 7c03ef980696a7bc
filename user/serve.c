// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include "dlib.h"
#include "serve.h"
#include "msg.h"

/* At most this many clients at once; each has this much memory and time. */
#define SERVE_CONNECTIONS 32
#define SERVE_PER_IP	  16
#define SERVE_MEMORY	  (32 * 1024)
#define SERVE_TIMEOUT_S	  5

struct server {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	char *page; /* the latest, malloc'd */
	size_t len;
};

union addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

/* @where as an address; 0, or -1 with why. */
static int parse(const char *where, union addr *a, char *why, size_t why_len)
{
	char host[64] = "127.0.0.1";
	const char *port = where, *colon;
	unsigned long p;
	char *end;
	size_t n;

	memset(a, 0, sizeof(*a));
	if (where[0] == '[') {
		colon = strstr(where, "]:");
		n = colon ? (size_t)(colon - where - 1) : 0;
		if (!colon || n == 0 || n >= sizeof(host)) {
			snprintf(why, why_len, "want [ADDRESS]:PORT for IPv6");
			return -1;
		}
		memcpy(host, where + 1, n);
		host[n] = '\0';
		port = colon + 2;
	} else if ((colon = strrchr(where, ':'))) {
		n = (size_t)(colon - where);
		if (n >= sizeof(host)) {
			snprintf(why, why_len, "the address is too long");
			return -1;
		}
		if (n) {
			memcpy(host, where, n);
			host[n] = '\0';
		}
		port = colon + 1;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (errno || end == port || *end || p == 0 || p > 65535) {
		snprintf(why, why_len, "want a port from 1 to 65535");
		return -1;
	}
	if (inet_pton(AF_INET, host, &a->in.sin_addr) == 1) {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons((unsigned short)p);
	} else if (inet_pton(AF_INET6, host, &a->in6.sin6_addr) == 1) {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons((unsigned short)p);
	} else {
		snprintf(why, why_len, "'%s' is not a numeric IPv4 or IPv6 address", host);
		return -1;
	}
	return 0;
}

int serve__parse(const char *where, char *why, size_t why_len)
{
	union addr a;

	return parse(where, &a, why, why_len);
}

/*
 * libmicrohttpd, loaded when --metrics asks for it (dlib.h). The soname is
 * Debian 12's and 13's (libmicrohttpd12).
 */
#define MHD_SONAME "libmicrohttpd.so.12"

static struct {
	typeof(MHD_start_daemon) *MHD_start_daemon;
	typeof(MHD_stop_daemon) *MHD_stop_daemon;
	typeof(MHD_create_response_from_buffer) *MHD_create_response_from_buffer;
	typeof(MHD_add_response_header) *MHD_add_response_header;
	typeof(MHD_queue_response) *MHD_queue_response;
	typeof(MHD_destroy_response) *MHD_destroy_response;
} mhd;

static int mhd_load(void)
{
	static const struct dlib_sym syms[] = {
		DLIB_SYM(mhd, MHD_start_daemon),
		DLIB_SYM(mhd, MHD_stop_daemon),
		DLIB_SYM(mhd, MHD_create_response_from_buffer),
		DLIB_SYM(mhd, MHD_add_response_header),
		DLIB_SYM(mhd, MHD_queue_response),
		DLIB_SYM(mhd, MHD_destroy_response),
	};
	static int loaded;

	if (!loaded)
		loaded = dlib__load(MHD_SONAME, "--metrics", syms, sizeof(syms) / sizeof(syms[0])) ?
				 -1 :
				 1;
	return loaded > 0 ? 0 : -1;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, char *body, size_t len,
			     const char *type)
{
	struct MHD_Response *r = mhd.MHD_create_response_from_buffer(
		len, body, body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = mhd.MHD_queue_response(c, status, r);
	mhd.MHD_destroy_response(r);
	return ret;
}

static char *text(const char *s, size_t *len)
{
	*len = strlen(s);
	return strdup(s);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	static int started;
	struct server *s = cls;
	char *body;
	size_t len = 0;

	(void)version;
	(void)upload_data;
	/* The first call has the headers only; a body, if any, is read and dropped. */
	if (!*con_cls) {
		*con_cls = &started;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		body = text("only GET /metrics\n", &len);
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, body, len, "text/plain");
	}
	if (strcmp(url, "/metrics")) {
		body = text("not found: pgrptrace serves /metrics\n", &len);
		return reply(c, MHD_HTTP_NOT_FOUND, body, len, "text/plain");
	}
	pthread_mutex_lock(&s->lock);
	body = s->page ? malloc(s->len ? s->len : 1) : NULL;
	if (body) {
		memcpy(body, s->page, s->len);
		len = s->len;
	}
	pthread_mutex_unlock(&s->lock);
	if (!body)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, text("starting\n", &len), len,
			     "text/plain");
	return reply(c, MHD_HTTP_OK, body, len, "text/plain; version=0.0.4; charset=utf-8");
}

/* libmicrohttpd's own complaints (a bad request is not ours to print). */
static void on_mhd_error(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

struct server *serve__start(const char *where)
{
	struct server *s = calloc(1, sizeof(*s));
	sigset_t all, old;
	char why[128];
	union addr a;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;

	if (!s)
		return NULL;
	if (mhd_load()) {
		free(s);
		return NULL;
	}
	if (parse(where, &a, why, sizeof(why))) {
		p_err("bad --metrics '%s': %s", where, why);
		free(s);
		return NULL;
	}
	if (a.sa.sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	pthread_mutex_init(&s->lock, NULL);
	/* Signals are the record loop's: the server's thread takes none. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	errno = 0;
	s->d = mhd.MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
				    &a.sa, MHD_OPTION_CONNECTION_LIMIT,
				    (unsigned int)SERVE_CONNECTIONS,
				    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)SERVE_PER_IP,
				    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_MEMORY,
				    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_TIMEOUT_S,
				    MHD_OPTION_EXTERNAL_LOGGER, on_mhd_error, NULL, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->d) {
		p_err("cannot serve --metrics on %s: %s", where,
		      errno ? strerror(errno) : "libmicrohttpd refused it");
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

void serve__publish(struct server *s, const char *page, size_t len)
{
	char *copy = malloc(len ? len : 1), *old;

	if (!copy)
		return; /* the last page stays */
	memcpy(copy, page, len);
	pthread_mutex_lock(&s->lock);
	old = s->page;
	s->page = copy;
	s->len = len;
	pthread_mutex_unlock(&s->lock);
	free(old);
}

void serve__stop(struct server *s)
{
	if (!s)
		return;
	mhd.MHD_stop_daemon(s->d);
	pthread_mutex_destroy(&s->lock);
	free(s->page);
	free(s);
}
