#!/bin/sh
# plain-run.sh OUTDIR — HotSpot's own dumps taken by heapwalk (snapshot
# --plain, --gz=3; no jcmd on heapwalk's PATH) of tests/java/Marked, each
# between two class histograms (jcmd's, the test's peer), retried until
# the two agree: plain.hprof with plain.histo, gz.hprof.gz with gz.histo.
# The same from a JVM of a JRE that jlink makes (java.base alone): the
# agent's (jre) and HotSpot's gzip dump (jregz).
# Then the same JVM in its own mount and PID namespaces (unshare, a tmpfs
# on its /tmp, another on the agent's directory, which it then cannot
# see), as root (ns) and as nobody (nsu): snapshot with no option
# (ns.hprof; its stderr, ns.err: the fallback's line), then mark
# (ns-mark.err, refused), the JVM's /tmp listed after (ns.ls, through
# /proc/PID/root), whether it is alive (ns.alive), and its histogram
# around the snapshot (ns.histo); and one that sees the agent (nsa). Each
# heapwalk's exit status in NAME.rc. Needs HEAPWALK, HEAPWALK_AGENT, JAVA,
# JAVAC, JCMD, unshare and root (to mount); no standard input.
set -eu

out=${1:?usage: plain-run.sh OUTDIR}
prog=plain-run.sh
. "$(dirname "$0")/jvm-lib.sh"
workload Marked
mkdir -p "$out/nojcmd"
hw() { PATH="$out/nojcmd" "$HEAPWALK" "$@"; }
histo() { "$JCMD" "$pid" GC.class_histogram | sed 1d >"$1"; }

# snap NAME FILE HEAPWALK-OPTIONS...: FILE between two equal histograms
snap() {
	name=$1 file=$2
	shift 2
	for try in 1 2 3 4 5; do
		rm -f "$file"
		histo "$out/$name.histo"
		set +e
		hw snapshot "$@" "$pid" "$file" >"$out/$name.out" 2>"$out/$name.err"
		echo $? >"$out/$name.rc"
		set -e
		histo "$out/$name.histo2"
		cmp -s "$out/$name.histo" "$out/$name.histo2" && return 0
		echo "$prog: histograms differ around the $name snapshot (try $try); again" >&2
		sleep 0.5
	done
	echo "$prog: the heap did not settle" >&2
	exit 1
}

"$JAVA" -cp "$out/classes" Marked "$out" </dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
snap plain "$out/plain.hprof" --plain
snap gz "$out/gz.hprof.gz" --gz=3
kill "$pid"
wait "$pid" 2>/dev/null || true

# a JRE, not a JDK: the JDK's jlink makes one of java.base alone (no
# jdk.attach, no jcmd in it), the JVM started from it with no JDK on
# its PATH either: the agent's snapshot (jre.hprof) and HotSpot's
# gzip dump (jregz.hprof.gz) taken all the same; without jlink or the
# JDK's jmods, jre.skipped says why
jlink=$(dirname "$(readlink -f "$JAVAC")")/jlink
rm -rf "$out/jre"
if [ -x "$jlink" ] && "$jlink" --add-modules java.base --output "$out/jre" --strip-debug --no-header-files \
	--no-man-pages >"$out/jlink.log" 2>&1; then
	if [ -e "$out/jre/bin/jcmd" ] || [ -e "$out/jre/lib/libattach.so" ]; then
		echo "$prog: the JRE has jcmd or the attach client" >&2
		exit 1
	fi
	rm -f "$out/jvm.log"
	PATH="$out/nojcmd" "$out/jre/bin/java" -cp "$out/classes" Marked "$out" </dev/null >"$out/jvm.log" 2>&1 &
	pid=$!
	wait_for READY
	readlink "/proc/$pid/exe" >"$out/jre.exe"
	snap jre "$out/jre.hprof"
	snap jregz "$out/jregz.hprof.gz" --gz=3
	kill "$pid"
	wait "$pid" 2>/dev/null || true
else
	echo "no jlink beside $JAVAC, or it failed: $(tail -1 "$out/jlink.log" 2>/dev/null)" >"$out/jre.skipped"
fi

# nsjvm NAME HIDE [setpriv ...]: the JVM in its own namespaces (pid 1
# there, its /tmp its own, a tmpfs over HIDE: the agent's directory, or
# one of no matter), as the user the
# command before java makes it: snapshot with no option (NAME.hprof, its
# stderr NAME.err), mark (NAME-mark.*), its /tmp after (NAME.ls),
# NAME.alive, NAME.nspid, NAME.owner (the dump's owner and mode)
agentdir=$(dirname "$HEAPWALK_AGENT")
nsjvm() {
	name=$1 hide=$2
	shift 2
	rm -f "$out/jvm.log"
	mkdir -p "$out/hidden"
	unshare -m -p -f --mount-proc sh -c \
		'mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs "$1" && shift && exec "$@"' \
		sh "$hide" "$@" "$JAVA" -cp "$out/classes" Marked "$out" </dev/null >"$out/jvm.log" 2>&1 &
	outer=$!
	pid=
	for i in $(seq 100); do
		pid=$(cat "/proc/$outer/task/$outer/children" 2>/dev/null | tr -d ' ') || true
		[ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || { echo "$prog: no JVM under unshare" >&2; exit 1; }
	wait_for READY
	grep NSpid "/proc/$pid/status" >"$out/$name.nspid"
	snap "$name" "$out/$name.hprof"
	stat -c '%U %a' "$out/$name.hprof" >"$out/$name.owner" 2>/dev/null || echo none >"$out/$name.owner"
	set +e
	hw mark "$pid" >"$out/$name-mark.out" 2>"$out/$name-mark.err"
	echo $? >"$out/$name-mark.rc"
	set -e
	ls -A "/proc/$pid/root/tmp" >"$out/$name.ls"
	kill -0 "$pid" && echo alive >"$out/$name.alive"
	kill "$pid"
	wait "$outer" 2>/dev/null || true
	pid=
}
nsjvm ns "$agentdir" env
# nobody's JVM, heapwalk as root: the directory in its /tmp made, read
# and removed as nobody
nsjvm nsu "$agentdir" setpriv --reuid=nobody --regid=nogroup --clear-groups
# one that sees the agent (only its /tmp is its own): the agent's
# snapshot and mark, through its /tmp and the pid it has there
nsjvm nsa "$out/hidden" env
exit 0
