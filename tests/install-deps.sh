#!/bin/sh
# Install the Debian packages named in $PKGS that are not installed yet.
# Used by `make deps`, `make check` and `make bench`; silent when nothing is missing.
# No service is started by the install.
set -eu
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "pgrptrace: cannot install packages:$missing: run as root, or install them" >&2
	exit 1
fi
echo "  DEPS     installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# Packages such as openssh-server and auditd start their daemon on install.
# PID 1 is not ours: forbid service starts while installing (policy-rc.d(8)).
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
