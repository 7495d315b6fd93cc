#!/bin/sh
# run.sh SRCDIR BUILDDIR — `make bench`: make a ~100 MB and a ~1 GB dump
# with tests/java/Bench.java (kept between runs), then measure each with
# the bench driver under /usr/bin/time. Prints figures; asserts nothing.
set -eu
src=$1
build=$2
out=$build/bench-dumps
mkdir -p "$out"
for size in 100 1000; do
	dump=$out/bench-$size.hprof
	if [ ! -f "$dump" ] || [ "$src/tests/java/Bench.java" -nt "$dump" ]; then
		echo "== making $dump (live data ~$((size * 7 / 10)) MB of a $size MB target)"
		# Bench counts its own estimate of bytes; 0.7 of it lands near the size
		WORKLOAD=Bench WORKLOAD_ARGS=$((size * 7 / 10)) DUMP_NAME=bench-$size \
			sh "$src/tests/gen-dump.sh" "$out" -Xmx$((size * 4))m
	fi
	echo "== $dump ($(du -m "$dump" | cut -f1) MB)"
	sync
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f 'peak_rss_kb(time -v): %M' "$build/tests/bench_heapwalk" "$dump"
	else
		"$build/tests/bench_heapwalk" "$dump"
	fi
done
