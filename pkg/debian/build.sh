#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# pkg/debian/build.sh VERSION BUILD_DIR OUT.deb (run by `make deb`):
# pgrptrace as a Debian binary package, from `make install` staged with
# Debian's paths into BUILD_DIR/root/debian/pgrptrace (the binary built with Debian's
# hardening flags, stripped as dh_strip does), the man page and changelog
# compressed as Debian's tools do, the files of this folder as the
# package's documents and maintainer scripts, and its dependencies computed
# from the binary by dpkg-shlibdeps.
set -eu
version=$1
build=$(mkdir -p "$2" && cd "$2" && pwd)
out=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
stage=$build/root/debian/pgrptrace
doc=$stage/usr/share/doc/pgrptrace
arch=$(dpkg --print-architecture)

rm -rf "$build/root"
make -s -C "$top" install DEB=1 DESTDIR="$stage" prefix=/usr unitdir=/lib/systemd/system
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$stage/usr/sbin/pgrptrace"
gzip -9n "$stage/usr/share/man/man8/pgrptrace.8"
install -d -m 0755 "$doc/examples"
install -m 0644 "$here/copyright" "$here/README.Debian" "$doc/"
install -m 0644 "$top/docs/expected-escapes.example" "$doc/examples/"
gzip -9nc "$here/changelog" >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# Dependencies from the binary: dpkg-shlibdeps reads a control file's
# package names, so it runs beside one of its own, the stage in its place
# (a DEBIAN folder marks a package's root).
install -d -m 0755 "$stage/DEBIAN"
printf 'Source: pgrptrace\n\nPackage: pgrptrace\nArchitecture: any\n' \
	>"$build/root/debian/control"
depends=$(cd "$build/root" && dpkg-shlibdeps -O debian/pgrptrace/usr/sbin/pgrptrace |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# Loaded with dlopen() when --metrics or --journal asks (user/dlib.h), which
# dpkg-shlibdeps cannot see: the packages that hold them here.
for so in libmicrohttpd.so.12 libsystemd.so.0; do
	pkg=$(dpkg -S "*/$so" 2>/dev/null | head -n 1 | cut -d: -f1)
	[ -n "$pkg" ] || { echo "build.sh: no package holds $so" >&2; exit 1; }
	depends="$depends, $pkg"
done
# The maintainer scripts call deb-systemd-helper and deb-systemd-invoke.
depends="$depends, init-system-helpers (>= 1.54~)"

size=$(du -k -s --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" \
	-e "s|@DEPENDS@|$depends|" "$here/control.in" >"$stage/DEBIAN/control"
for f in postinst prerm postrm; do
	install -m 0755 "$here/$f" "$stage/DEBIAN/$f"
done
echo /etc/logrotate.d/pgrptrace >"$stage/DEBIAN/conffiles"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | sort |
	xargs md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 0755 {} +
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "  DEB      $out"
