#!/bin/sh
# gzstop-run.sh OUTDIR — heapwalk snapshot --gz=1 of tests/java/Bench
# (about 150 MB live), sent SIGTERM while it checks the dump: once the
# gzip dump, copied beside FILE as FILE.tmp-PID, is being inflated into
# $TMPDIR (OUTDIR/tmp) to be opened (two guarded temporary files at
# once). Written: stop.seen (the inflating file was there when the
# signal went; "missed": heapwalk ended first), stop.rc (heapwalk's exit
# status: 143 is SIGTERM's; "hung" if it had not ended 60 s after),
# stop.left (what is left of FILE, FILE.tmp-* and $TMPDIR's files).
# Needs HEAPWALK, JAVA, JAVAC; no standard input.
set -eu

out=${1:?usage: gzstop-run.sh OUTDIR}
prog=gzstop-run.sh
. "$(dirname "$0")/jvm-lib.sh"
workload Bench
mkdir -p "$out/nojcmd" "$out/tmp"

"$JAVA" -Xmx1g -cp "$out/classes" Bench 150 </dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
file=$out/stop.hprof.gz
TMPDIR=$out/tmp PATH="$out/nojcmd" "$HEAPWALK" snapshot --gz=1 "$pid" "$file" >"$out/stop.out" 2>"$out/stop.err" &
hw=$!
echo missed >"$out/stop.seen"
# until it inflates (10 min at most: a hang, not a speed)
i=0
while kill -0 "$hw" 2>/dev/null && [ $i -lt 30000 ]; do
	if ls "$out/tmp" | grep -q "^heapwalk-$hw\.inflating\."; then
		kill -TERM "$hw"
		echo seen >"$out/stop.seen"
		break
	fi
	i=$((i + 1))
	sleep 0.02
done
i=0
while kill -0 "$hw" 2>/dev/null && [ $i -lt 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
if kill -0 "$hw" 2>/dev/null; then
	echo hung >"$out/stop.rc"
	kill -KILL "$hw"
	wait "$hw" 2>/dev/null || true
else
	set +e
	wait "$hw"
	echo $? >"$out/stop.rc"
	set -e
fi
{ ls -A "$out" | grep '^stop\.hprof' || true; ls -A "$out/tmp"; } >"$out/stop.left"
exit 0
