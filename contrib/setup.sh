#!/bin/sh
# setup.sh — install what heapwalk needs on a fresh Debian machine, build
# it, and then either open a demo dump or run the whole test suite.
#
#   sh contrib/setup.sh demo    install, build, make a demo dump, open it
#   sh contrib/setup.sh test    install, build, run every test: a -Werror
#                               build, a sanitizer build, make distcheck
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-demo}
jobs=$(nproc 2>/dev/null || echo 2)

say() { printf '== %s\n' "$*" >&2; }

install_deps() {
	pkgs="autoconf automake make gcc pkg-config libncurses-dev libpcre2-dev
	      liblz4-dev check tmux openjdk-17-jdk-headless time"
	missing=
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && { say "dependencies present"; return 0; }
	say "installing:$missing"
	sudo=
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	$sudo apt-get update -q </dev/null
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing </dev/null
}

bootstrap() {
	cd "$top"
	[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] ||
		autoreconf -fi
}

# build DIR [configure options]: an out-of-tree build.
build() {
	dir=$1
	shift
	mkdir -p "$top/$dir"
	cd "$top/$dir"
	[ -f Makefile ] && [ Makefile -nt "$top/configure" ] || "$top/configure" "$@"
	make -j"$jobs"
}

# check DIR: make check, always showing the Check runner's log.
check() {
	cd "$top/$1"
	status=0
	make -j"$jobs" check || status=$?
	cat tests/check_heapwalk.log 2>/dev/null || true
	return $status
}

install_deps
bootstrap
case $what in
demo)
	build build --enable-werror
	dump="$top/build/demo/demo.hprof"
	if [ ! -f "$dump" ]; then
		say "making a demo dump with the JDK on this machine"
		DUMP_NAME=demo sh "$top/tests/gen-dump.sh" "$top/build/demo"
	fi
	if [ -t 0 ] && [ -t 1 ]; then
		say "heapwalk $dump  (? lists the keys, q quits)"
		exec "$top/build/heapwalk" "$dump"
	fi
	say "no terminal: heapwalk classes $dump (open the browser with: build/heapwalk $dump)"
	"$top/build/heapwalk" classes --top 25 "$dump"
	;;
test)
	say "build with -Werror, make check"
	build build --enable-werror
	check build
	say "build with AddressSanitizer and UBSan, make check"
	build build-san --enable-werror --enable-sanitizers
	ASAN_OPTIONS=detect_leaks=1 check build-san
	say "make distcheck"
	cd "$top/build"
	make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror
	;;
*)
	echo "usage: sh contrib/setup.sh demo|test" >&2
	exit 1
	;;
esac
