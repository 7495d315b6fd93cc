#!/bin/sh
# agent-run.sh OUTDIR start|attach [JVM options...] — the agent tests'
# JVM session: run tests/java/Marked; take a snapshot before the mark
# (before.hprof), mark, let it allocate and free, then a class histogram,
# a snapshot (after.hprof) and a second histogram, retried until the two
# histograms agree. "start" loads the agent with -agentpath, "attach"
# only through heapwalk mark/snapshot. heapwalk runs with a PATH that
# holds no jcmd (the JVM's attach protocol is its own; the script's
# histograms are jcmd's); the first JVM's output is kept in jvm1.log (no
# thread dump in it: only the first attach signals the JVM, with the
# .attach_pid file that makes HotSpot open its socket instead of dumping
# its threads; a later SIGQUIT would print one). Then the error cases, each
# output in OUTDIR/*.err with its exit status in *.rc:
#   exists     a snapshot onto an existing file
#   toolarge   a snapshot that the file size limit stops (as a full disk
#              would): no file under the name, no temporary left
#   after      a snapshot after that failure: the JVM goes on
#   gone       mark of the process once it has exited
# Needs HEAPWALK, HEAPWALK_AGENT, JAVA, JAVAC, JCMD; no standard input.
set -eu

out=${1:?usage: agent-run.sh OUTDIR start|attach [JVM options...]}
mode=${2:?usage: agent-run.sh OUTDIR start|attach [JVM options...]}
shift 2
prog=agent-run.sh
. "$(dirname "$0")/jvm-lib.sh"
workload Marked
# a PATH without jcmd for heapwalk
mkdir -p "$out/nojcmd"
if PATH="$out/nojcmd" command -v jcmd >/dev/null 2>&1; then
	echo "$prog: jcmd is on heapwalk's PATH $out/nojcmd" >&2
	exit 1
fi
HEAPWALK_BIN=$HEAPWALK
hw() { PATH="$out/nojcmd" "$HEAPWALK_BIN" "$@"; }

agentopt=
[ "$mode" = start ] && agentopt="-agentpath:$HEAPWALK_AGENT"

# shellcheck disable=SC2086
"$JAVA" $agentopt "$@" -cp "$out/classes" Marked "$out" </dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
hw snapshot "$pid" "$out/before.hprof" >"$out/before.out"
hw mark "$pid" >"$out/mark.out"
touch "$out/go1"
wait_for PHASE2

histo() { "$JCMD" "$pid" GC.class_histogram | sed 1d >"$1"; }
ok=
for try in 1 2 3 4 5; do
	rm -f "$out/after.hprof"
	histo "$out/after.histo"
	hw snapshot "$pid" "$out/after.hprof" >"$out/after.out"
	histo "$out/after.histo2"
	if cmp -s "$out/after.histo" "$out/after.histo2"; then
		ok=1
		break
	fi
	echo "agent-run.sh: histograms differ around the snapshot (try $try); again" >&2
	sleep 0.5
done
[ -n "$ok" ] || { echo "agent-run.sh: the heap did not settle" >&2; exit 1; }

status() { echo $? >"$out/$1.rc"; }
set +e
hw snapshot "$pid" "$out/after.hprof" >"$out/exists.out" 2>"$out/exists.err"; status exists
# the JVM inherits the limit; a file past it fails with EFBIG, as a full
# disk fails with ENOSPC: the same path through the agent
kill "$pid"; wait "$pid" 2>/dev/null
mv "$out/jvm.log" "$out/jvm1.log" # and wait_for READY sees the next JVM's
rm -f "$out/go1"
(ulimit -f 256 && exec "$JAVA" $agentopt "$@" -cp "$out/classes" Marked "$out" </dev/null >"$out/jvm.log" 2>&1) &
pid=$!
wait_for READY
(ulimit -f 256 && PATH="$out/nojcmd" exec "$HEAPWALK_BIN" snapshot "$pid" "$out/toolarge.hprof") >"$out/toolarge.out" 2>"$out/toolarge.err"; status toolarge
ls -a "$out" >"$out/toolarge.ls"
hw mark "$pid" >"$out/after-fail.out" 2>"$out/after-fail.err"; status after-fail
kill "$pid"; wait "$pid" 2>/dev/null
gone=$pid
pid=
hw mark "$gone" >"$out/gone.out" 2>"$out/gone.err"; status gone
exit 0
