#!/bin/sh
# refs-run.sh OUTDIR — run tests/java/Refs and dump it with
# `jcmd GC.heap_dump -all` into OUTDIR/refs.hprof: no GC before the dump,
# so the weak and phantom referents and the objects awaiting
# finalization are still there. Needs no standard input.
set -eu
out=${1:?usage: refs-run.sh OUTDIR}
prog=refs-run.sh
. "$(cd "$(dirname "$0")" && pwd)/jvm-lib.sh"
workload Refs
"$JAVA" -Xms256m -Xmn200m -cp "$out/classes" Refs </dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
"$JCMD" "$pid" GC.heap_dump -all "$out/refs.hprof.tmp" >/dev/null
mv "$out/refs.hprof.tmp" "$out/refs.hprof"
