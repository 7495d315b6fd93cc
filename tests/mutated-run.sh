#!/bin/sh
# mutated-run.sh OUTDIR — an agent snapshot and an ordinary dump of one
# JVM, then another ordinary dump, for the matcher's tests:
# tests/java/Mutated; after READY, `heapwalk snapshot` (the agent,
# attached: ids are its tags) writes OUTDIR/a-agent.hprof and `jcmd
# GC.heap_dump` OUTDIR/a.hprof; after its changes, jcmd OUTDIR/b.hprof.
# Needs HEAPWALK, HEAPWALK_AGENT, JAVA, JAVAC, JCMD; no standard input.
set -eu

out=${1:?usage: mutated-run.sh OUTDIR}
prog=mutated-run.sh
. "$(dirname "$0")/jvm-lib.sh"
workload Mutated
"$JAVA" -cp "$out/classes" Mutated "$out" </dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
"$HEAPWALK" -q snapshot "$pid" "$out/a-agent.hprof" >"$out/snapshot.out"
sleep 1 # the dumps' timestamps are in milliseconds; keep them apart
"$JCMD" "$pid" GC.heap_dump "$out/a.hprof" >/dev/null
sleep 1
touch "$out/go1"
wait_for PHASE2
"$JCMD" "$pid" GC.heap_dump "$out/b.hprof" >/dev/null
touch "$out/go2"
wait "$pid"
pid=
exit 0
