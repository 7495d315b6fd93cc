#!/bin/sh
# leaks-run.sh OUTDIR — the JVM session of the leaks tests: tests/java/Leaky
# started with heapwalk's agent, snapshotted by heapwalk (stable ids)
# before its action (base.hprof), after it (target.hprof) and after the
# undo (final.hprof), and HotSpot's own dump of that heap (final-plain.hprof:
# no stable ids); jcmd's class histograms of the base and final heaps
# (base.histo, final.histo). Needs HEAPWALK, HEAPWALK_AGENT, JAVA, JAVAC, JCMD; no
# standard input.
set -eu

out=${1:?usage: leaks-run.sh OUTDIR}
prog=leaks-run.sh
. "$(dirname "$0")/jvm-lib.sh"
workload Leaky
"$JAVA" -agentpath:"$HEAPWALK_AGENT" -XX:+UseSerialGC -cp "$out/classes" Leaky "$out" </dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
"$HEAPWALK" -q snapshot "$pid" "$out/base.hprof"
"$JCMD" "$pid" GC.class_histogram | sed 1d >"$out/base.histo"
touch "$out/go1"
wait_for PHASE2
"$HEAPWALK" -q snapshot "$pid" "$out/target.hprof"
touch "$out/go2"
wait_for PHASE3
"$HEAPWALK" -q snapshot "$pid" "$out/final.hprof"
"$HEAPWALK" -q snapshot --plain "$pid" "$out/final-plain.hprof"
"$JCMD" "$pid" GC.class_histogram | sed 1d >"$out/final.histo"
touch "$out/go3"
wait "$pid"
pid=
