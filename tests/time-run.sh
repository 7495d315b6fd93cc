#!/bin/sh
# time-run.sh OUTDIR — a snapshot with allocation times for the times
# tests: tests/java/Timed with heapwalk's agent loaded at start sampling
# every allocation (sample:1), so that every Mark has its time; once it
# has made its batches, `heapwalk snapshot` writes OUTDIR/t.hprof. The
# batches' clock readings are in OUTDIR/jvm.log ("BATCH b FROM ms TO ms").
# Needs HEAPWALK, HEAPWALK_AGENT, JAVA, JAVAC; no standard input.
set -eu

out=${1:?usage: time-run.sh OUTDIR}
prog=time-run.sh
. "$(dirname "$0")/jvm-lib.sh"
workload Timed
"$JAVA" "-agentpath:$HEAPWALK_AGENT=sample:1" -cp "$out/classes" Timed "$out" \
	</dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
"$HEAPWALK" snapshot "$pid" "$out/t.hprof" >"$out/snapshot.out"
touch "$out/go"
wait "$pid"
pid=
exit 0
