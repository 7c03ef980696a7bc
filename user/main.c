// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pgrptrace: trace the lifecycle of process groups and sessions. */
#include "opts.h"
#include "trace.h"

int main(int argc, char **argv)
{
	struct opts o;

	opts__parse(argc, argv, &o);
	return trace__run(&o);
}
