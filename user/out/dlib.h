/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Libraries that only an option needs (--metrics' libmicrohttpd, --journal's
 * libsystemd), loaded when it is given: linked, their dependencies (GnuTLS,
 * libgcrypt and a dozen more) cost every start 11 ms here, pgrptrace --
 * true's most of all.
 */
#ifndef __DLIB_H
#define __DLIB_H

struct dlib_sym {
	const char *name;
	void **fn; /* where the symbol's address goes */
};

#define DLIB_SYM(table, name)                 \
	{                                     \
#name, (void **)&(table).name \
	}

/*
 * Loads @soname once and resolves each of @syms: 0, or -1 with the reason
 * said on stderr, naming @option (the option that needs it).
 */
int dlib__load(const char *soname, const char *option, const struct dlib_sym *syms, int n);

#endif /* __DLIB_H */
