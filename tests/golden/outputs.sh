#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# outputs.sh PGRPTRACE RECORDING DIR: the recording replayed by PGRPTRACE
# into every output, as DIR/text, json, ecs (and ecs8: ECS 8.11's), syslog (each message, hex) and
# journal (each entry's fields, hex): what t_golden.py compares. Root (the
# journal's socket is faked in a mount namespace of its own).
set -eu
bin=$1
rec=$2
dir=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -f "$dir/text" "$dir/json" "$dir/ecs" "$dir/ecs8" "$dir/syslog" "$dir/journal"

"$bin" --replay "$rec" --utc -o "$dir/text"
"$bin" --replay "$rec" --json -o "$dir/json"
"$bin" --replay "$rec" --ecs -o "$dir/ecs"
# ECS 8.11's documents, where this pgrptrace writes ECS 9.4's by default.
if "$bin" --help | grep -q -- --ecs-version; then
	"$bin" --replay "$rec" --ecs --ecs-version 8.11 -o "$dir/ecs8"
fi

# A receiver on a socket; its end once the replay is done. Bounded waits.
ready() {
	i=0
	while [ ! -e "$1.ready" ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || { echo "outputs.sh: no receiver on $1" >&2; exit 1; }
		sleep 0.02
	done
}
end() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"PGT_GOLDEN_END", sys.argv[1])' "$1"
}

sock="$dir/syslog.sock"
rm -f "$sock" "$sock.ready"
python3 "$here/receive.py" syslog "$sock" "$dir/syslog" &
ready "$sock"
"$bin" --replay "$rec" --syslog="unix:$sock" -o /dev/null
end "$sock"
wait
rm -f "$sock" "$sock.ready"

mkdir -p /run/systemd
unshare -m sh -c '
	set -eu
	mount -t tmpfs tmpfs /run/systemd
	mkdir /run/systemd/journal
	sock=/run/systemd/journal/socket
	python3 "$1/receive.py" journal $sock "$3/journal" &
	i=0
	while [ ! -e $sock.ready ]; do
		i=$((i + 1)); [ $i -lt 300 ] || exit 1; sleep 0.02
	done
	"$2" --replay "$4" --journal -o /dev/null
	python3 -c "import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b\"PGT_GOLDEN_END\", \"$sock\")"
	wait
' sh "$here" "$bin" "$dir" "$rec"
