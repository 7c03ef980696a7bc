// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pgrptrace: trace the lifecycle of process groups and sessions. */
#include "check.h"
#include "opts.h"
#include "trace.h"

int main(int argc, char **argv)
{
	struct opts o;

	opts__parse(argc, argv, &o);
	return o.check ? check__run(&o) : trace__run(&o);
}
