#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# record.sh PGRPTRACE OUT: how tests/golden/f89e23e.rec was made (as root,
# from the top of the tree, after make test-bins, with PGRPTRACE built from
# f89e23e): a mixed stream of forks, execs with arguments, setsid and
# setpgid, a double fork, group and session kills, controlling ttys, a job
# control shell on a pty with ^Z and ^C, and hostile names. The expected
# outputs beside it were then written by outputs.sh with the same binary,
# and gzipped (gzip -9 -n).
set -eu
bin=$1
out=$2
w=.output/tests/workload
ulimit -c 0	# workload signals dies of signals that dump core
rm -f "$out"
"$bin" --record "$out" --signals=all -o /dev/null -- sh -c '
	w=$0
	$w churn 50
	$w signals
	$w setsid
	$w setpgid
	$w daemonize
	$w killgroup
	$w ctty
	$w hostile
	/usr/bin/python3 tests/integration/pty_session.py
	sh -c "exec /bin/echo with \"two words\" and\ttab" >/dev/null
	setsid sh -c "exit 3" & wait
' "$w"
