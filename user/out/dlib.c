// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dlfcn.h>
#include <stddef.h>
#include "dlib.h"
#include "msg.h"

int dlib__load(const char *soname, const char *option, const struct dlib_sym *syms, int n)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	int i;

	if (!h) {
		p_err("%s needs %s: %s", option, soname, dlerror());
		return -1;
	}
	for (i = 0; i < n; i++) {
		*syms[i].fn = dlsym(h, syms[i].name);
		if (!*syms[i].fn) {
			p_err("%s needs %s from %s: %s", option, syms[i].name, soname, dlerror());
			while (i >= 0)
				*syms[i--].fn = NULL;
			dlclose(h);
			return -1;
		}
	}
	/* Kept open: its functions are called until the end. */
	return 0;
}
