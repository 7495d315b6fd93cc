#!/bin/sh
# gen-dump.sh OUTDIR [JVM options...] — run tests/java/Workload (or the
# class in $WORKLOAD with its arguments in $WORKLOAD_ARGS) and take, on the
# quiet JVM, a class histogram, a heap dump and a second histogram, into
# OUTDIR/$DUMP_NAME.{histo,hprof}. Retries when the two histograms differ
# (a cleaner ran in between). With DUMP_GZ=N the dump is gzip, as
# `jcmd GC.heap_dump -gz=N` writes it: OUTDIR/$DUMP_NAME.hprof.gz.
# $JAVAC_OPTS go to javac.
# Needs no standard input.
set -eu

out=${1:?usage: gen-dump.sh OUTDIR [JVM options...]}
shift
name=${DUMP_NAME:-workload}
main=${WORKLOAD:-Workload}
src=$(cd "$(dirname "$0")" && pwd)/java
JAVA=${JAVA:-java} JAVAC=${JAVAC:-javac} JCMD=${JCMD:-jcmd}
# javac's own JVM with the quick compiler only and one GC thread: half
# its processor time (the suites compile a workload for each dump)
JAVAC_OPTS=${JAVAC_OPTS--J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC}
mkdir -p "$out/classes"
out=$(cd "$out" && pwd)

# one compiler at a time in the shared classes directory (suites make
# their dumps at once): a JVM never loads a class file half written
exec 8>"$out/classes.lock"
flock 8
if [ ! -f "$out/classes/$main.class" ] || [ "$src/$main.java" -nt "$out/classes/$main.class" ]; then
	# shellcheck disable=SC2086
	"$JAVAC" ${JAVAC_OPTS:-} -d "$out/classes" "$src/$main.java"
fi
exec 8>&-

pid=
log=$out/$name.log
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# shellcheck disable=SC2086
"$JAVA" "$@" -cp "$out/classes" "$main" ${WORKLOAD_ARGS:-} </dev/null >"$log" 2>&1 &
pid=$!
i=0
until grep -q '^READY' "$log" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 1200 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "gen-dump.sh: $main did not get ready; its output:" >&2
		cat "$log" >&2
		exit 1
	fi
	sleep 0.1
done

histo() { "$JCMD" "$pid" GC.class_histogram | sed 1d >"$1"; }
file=$out/$name.hprof gz=
if [ -n "${DUMP_GZ:-}" ]; then
	file=$out/$name.hprof.gz gz=-gz=$DUMP_GZ
fi
for try in 1 2 3 4 5; do
	rm -f "$file"
	histo "$out/$name.histo"
	# shellcheck disable=SC2086
	"$JCMD" "$pid" GC.heap_dump $gz "$file" >/dev/null
	histo "$out/$name.histo2"
	if cmp -s "$out/$name.histo" "$out/$name.histo2"; then
		rm -f "$out/$name.histo2"
		exit 0
	fi
	echo "gen-dump.sh: histograms differ around the dump (try $try); again" >&2
	sleep 0.5
done
echo "gen-dump.sh: the heap of $main did not settle" >&2
exit 1
