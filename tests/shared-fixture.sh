#!/bin/sh
# shared-fixture.sh KEY VERSION MAKE COPY [FILE...] — a fixture that no
# build of heapwalk goes into (a JVM workload's dump, the .NET
# workload's build), made once for all the build directories whose
# tests name the same $HEAPWALK_TEST_SHARED (contrib/setup.sh sets it
# for its -Werror and sanitizer builds), then copied into the build's
# own dumps: still made at test time, by the runtime on the machine.
#
# MAKE, a shell command, makes it in $out: a directory of its own under
# $HEAPWALK_TEST_SHARED named by KEY and a hash of MAKE, of the FILEs it
# is made from and of what the shell command VERSION prints (the
# runtime's version), so that another runtime or a changed workload
# makes it again. COPY, a shell command, copies it from $out into the
# build. Under flock(1) of $out.lock: a build that asks while another
# makes it waits for it; $out.done marks it whole (a run killed halfway
# is made again).
set -eu
key=$1 version=$2 make=$3 copy=$4
shift 4
shared=${HEAPWALK_TEST_SHARED:?shared-fixture.sh: HEAPWALK_TEST_SHARED is not set}
mkdir -p "$shared"
shared=$(cd "$shared" && pwd)
hash=$({ printf '%s\n' "$make"; cat "$@"; sh -c "$version" 2>&1; } | sha256sum | cut -c1-16)
out=$shared/$key-$hash
export out HEAPWALK_TEST_SHARED="$shared"
exec 7>"$out.lock"
flock 7
if [ -f "$out.done" ]; then
	echo "fixture $key: made by another build, copied from $out" >&2
else
	rm -rf "$out"
	mkdir -p "$out"
	sh -c "$make"
	: >"$out.done"
fi
exec 7>&-
sh -c "$copy"
