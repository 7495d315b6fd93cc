#!/bin/sh
# alloc-run.sh OUTDIR — a snapshot with allocation traces for the
# allocations tests: tests/java/Matched with heapwalk's agent loaded at
# start, sampling every 1 kB allocated on average (sample:1024); after
# its second phase, `heapwalk snapshot` writes OUTDIR/s.hprof. Needs
# HEAPWALK, HEAPWALK_AGENT, JAVA, JAVAC; no standard input.
set -eu

out=${1:?usage: alloc-run.sh OUTDIR}
prog=alloc-run.sh
. "$(dirname "$0")/jvm-lib.sh"
workload Matched
"$JAVA" "-agentpath:$HEAPWALK_AGENT=sample:1024" -cp "$out/classes" Matched "$out" \
	</dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
touch "$out/go1"
wait_for PHASE2
"$HEAPWALK" snapshot "$pid" "$out/s.hprof" >"$out/snapshot.out"
touch "$out/go2"
exit 0
