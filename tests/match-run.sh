#!/bin/sh
# match-run.sh OUTDIR [JVM options...] — two ordinary dumps of one JVM
# for the matcher's tests: tests/java/Matched, `jcmd GC.heap_dump` after
# READY (a.hprof), then after its changes (b.hprof). Needs JAVA, JAVAC,
# JCMD; no standard input.
set -eu

out=${1:?usage: match-run.sh OUTDIR [JVM options...]}
shift
prog=match-run.sh
. "$(dirname "$0")/jvm-lib.sh"
workload Matched
# shellcheck disable=SC2086
"$JAVA" "$@" -cp "$out/classes" Matched "$out" </dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
"$JCMD" "$pid" GC.heap_dump "$out/a.hprof" >/dev/null
sleep 1 # the dumps' timestamps are in milliseconds; keep them apart
touch "$out/go1"
wait_for PHASE2
"$JCMD" "$pid" GC.heap_dump "$out/b.hprof" >/dev/null
touch "$out/go2"
exit 0
