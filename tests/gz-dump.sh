#!/bin/sh
# gz-dump.sh OUTDIR — run tests/java/Workload and dump the quiet JVM twice
# with jcmd: OUTDIR/plain.hprof, then OUTDIR/jdk.hprof.gz (-gz=1, the
# JDK's many members); OUTDIR/plain.hprof.gz, the plain dump through gzip
# (one member); and OUTDIR/jdk.gunzip, the JDK's file inflated by gzip, an
# inflater that is not the one under test. Needs no standard input.
set -eu
out=${1:?usage: gz-dump.sh OUTDIR}
prog=gz-dump.sh
. "$(cd "$(dirname "$0")" && pwd)/jvm-lib.sh"
workload Workload
"$JAVA" -Xmx256m -cp "$out/classes" Workload </dev/null >"$out/jvm.log" 2>&1 &
pid=$!
wait_for READY
"$JCMD" "$pid" GC.heap_dump "$out/plain.hprof" >/dev/null
"$JCMD" "$pid" GC.heap_dump -gz=1 "$out/jdk.hprof.gz" >/dev/null
gzip -c "$out/plain.hprof" >"$out/plain.hprof.gz.tmp"
mv "$out/plain.hprof.gz.tmp" "$out/plain.hprof.gz"
gzip -dc "$out/jdk.hprof.gz" >"$out/jdk.gunzip.tmp"
mv "$out/jdk.gunzip.tmp" "$out/jdk.gunzip"
