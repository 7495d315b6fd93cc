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

# seconds (elapsed, user + sys) and peak RSS of a command, as
# "NAME_s: E  cpu_s: C  peak_rss_mb: M"
timed() {
	name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >/dev/null
	awk -v n="$name" '{ printf "%s_s: %.2f  cpu_s: %.2f  peak_rss_mb: %.0f\n", n, $1, $2 + $3, $4 / 1024 }' \
		"$out/time.txt"
}

# ab NAME FILE: with BENCH_VS set (another build's heapwalk, e.g. of the
# commit before a change), this build's cold open of FILE (--no-cache
# classes -n 20) and that one's, alternating BENCH_AB_RUNS times (5) so
# that a busy machine weighs on both alike; the medians of each one's
# processor time (user + sys) and peak RSS, and their ratio (this build
# over that one: below 1 is faster).
ab() {
	[ -n "${BENCH_VS:-}" ] && [ -x /usr/bin/time ] || return 0
	rm -f "$out/ab.txt"
	i=0
	while [ $i -lt "${BENCH_AB_RUNS:-5}" ]; do
		/usr/bin/time -a -o "$out/ab.txt" -f "new %U %S %M" "$build/heapwalk" -q --no-cache classes -n 20 "$2" >/dev/null
		/usr/bin/time -a -o "$out/ab.txt" -f "old %U %S %M" "$BENCH_VS" -q --no-cache classes -n 20 "$2" >/dev/null
		i=$((i + 1))
	done
	awk -v n="$1" '
	function median(a, k,   i, j, t) {
		for (i = 2; i <= k; i++) # k is a handful: insertion
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	$1 == "new" { nc[++k1] = $2 + $3; nm[k1] = $4 }
	$1 == "old" { oc[++k2] = $2 + $3; om[k2] = $4 }
	END {
		a = median(nc, k1); b = median(oc, k2); x = median(nm, k1); y = median(om, k2)
		printf "%s_ab_cpu_s: %.2f against %.2f (%.2fx)  peak_rss_mb: %.0f against %.0f  (medians of %d alternating)\n",
		       n, a, b, (b > 0 ? a / b : 0), x / 1024, y / 1024, k1 }' "$out/ab.txt"
}
[ -f "$out/bench-1000.hprof" ] && ab hprof_1gb "$out/bench-1000.hprof"

# gzip HPROF: the ~1 GB dump through gzip -1 (one member), and a dump of
# the same workload as the JDK writes it (jcmd -gz=1: members of ~1 MiB
# each); both kept between runs. Each opened cold (no cache, no inflated
# copy: --no-cache inflates into a temporary file), then once to write
# the cache (and the inflated copy of the one member, the index of the
# JDK's many), then reopened from the cache, beside the plain dump's
# same three; then a view that reads every string's record from the
# dump (duplicate-strings), the JDK's read at random through its index.
plain=$out/bench-1000.hprof
if [ -x /usr/bin/time ] && [ -f "$plain" ]; then
	echo "== gzip HPROF, the 1 GB workload"
	if [ ! -f "$plain.gz" ] || [ "$plain" -nt "$plain.gz" ]; then
		gzip -1 -c "$plain" >"$plain.gz.tmp" && mv "$plain.gz.tmp" "$plain.gz"
	fi
	jdk=$out/bench-1000-jdk.hprof.gz
	if [ ! -f "$jdk" ] || [ "$src/tests/java/Bench.java" -nt "$jdk" ]; then
		WORKLOAD=Bench WORKLOAD_ARGS=700 DUMP_NAME=bench-1000-jdk DUMP_GZ=1 \
			sh "$src/tests/gen-dump.sh" "$out" -Xmx4000m
	fi
	for f in "$plain" "$plain.gz" "$jdk"; do
		k=$(basename "$f" | tr '.-' '__')
		echo "$k: $(du -m "$f" | cut -f1) MB"
		rm -f "$f.hwi" "$f.inflated"
		timed "${k}_cold_open" "$build/heapwalk" -q --no-cache info "$f"
		timed "${k}_first_open_writing_cache" "$build/heapwalk" -q info "$f"
		timed "${k}_cached_reopen" "$build/heapwalk" -q info "$f"
		timed "${k}_cached_duplicate_strings" "$build/heapwalk" -q inspect "$f" duplicate-strings
		echo "${k}_kept_beside_the_cache_mb: $(cat "$f.inflated" "$f.gzi" 2>/dev/null | wc -c | awk '{ printf "%.1f", $1 / 1048576 }')"
		rm -f "$f.inflated" "$f.gzi"
		[ "$f" = "$plain" ] || rm -f "$f.hwi" # the plain dump's stays: the redraw below uses it
	done
	# old and new between the plain dump and the JDK's gzip one (another
	# JVM's run: every object recognised by its contents), the .gz read
	# at random through its view once its cache is there: the matcher
	# has it inflated once, not a member again for each read
	"$build/heapwalk" -q info "$jdk" >/dev/null
	timed diff_plain_and_jdk_gz "$build/heapwalk" -q diff -n 10 "$plain" "$jdk"
	rm -f "$jdk.hwi" "$jdk.gzi"
fi

# V8 heap snapshots of ~1.4 M and ~6.7 M nodes, made by bench/v8gen.js
# (kept between runs), opened to the class summary with retained sizes;
# peak memory per node with everything counted (the reader lets the
# file's pages go as it reads them: only its strings stay, read when
# shown), and without the file's pages as they were at the end, as the
# HPROF figure (peak_rss_minus_dump_bytes_per_object) is.
if [ -x /usr/bin/time ] && command -v node >/dev/null 2>&1; then
	for m in 1.4 6.7; do
		snap=$out/v8-$m.heapsnapshot
		if [ ! -f "$snap" ] || [ "$src/bench/v8gen.js" -nt "$snap" ]; then
			node --max-old-space-size=8192 "$src/bench/v8gen.js" "$m" "$snap.tmp" >/dev/null
			mv "$snap.tmp" "$snap"
		fi
		nodes=$(head -c 4096 "$snap" | tr -d ' \n' | sed -n 's/.*"node_count":\([0-9]*\).*/\1/p')
		bytes=$(stat -c %s "$snap")
		echo "== V8 $snap ($((bytes / 1048576)) MB, $nodes nodes)"
		rm -f "$snap.hwi"
		timed v8_classes_retained "$build/heapwalk" -q classes -n 20 "$snap"
		awk -v n="$nodes" -v b="$bytes" '{ cpu = $2 + $3
			printf "v8_nodes_per_cpu_s: %.0f\nv8_mb_per_cpu_s: %.1f\n", n / cpu, b / 1048576 / cpu
			printf "v8_peak_bytes_per_node: %.1f (all counted)\n", $4 * 1024 / n }' "$out/time.txt"
		timed v8_cached_classes "$build/heapwalk" -q classes -n 20 "$snap"
		timed v8_cached_biggest "$build/heapwalk" -q biggest -n 20 "$snap"
		"$build/tests/bench_heapwalk" "$snap" |
			grep -E '^(peak_rss_mb|dump_resident_mb|peak_rss_minus_dump_bytes_per_object|peak_anon_mb|peak_anon_bytes_per_object|phase)' |
			sed 's/^/v8_/'
		ab "v8_$m" "$snap"
	done
fi

# .NET: a process of bench/dotnet holding ~5 M objects (built with the
# .NET SDK, kept between runs), snapshotted by heapwalk over its
# diagnostics socket (the runtime's GC and pause from the trace's own
# events), then the trace opened as the HPROF dumps are, and reopened
# from its index cache; with
# dotnet-gcdump on the PATH, its collection of the same process too,
# and that .gcdump opened (and its own report of it, for comparison).
if [ -x /usr/bin/time ] && command -v dotnet >/dev/null 2>&1; then
	dn=$out/dotnet
	if [ ! -x "$dn/out/HeapBench" ] || [ "$src/bench/dotnet/Program.cs" -nt "$dn/out/HeapBench" ]; then
		rm -rf "$dn" && mkdir -p "$dn/src"
		cp "$src/bench/dotnet/Program.cs" "$src/bench/dotnet/HeapBench.csproj" "$dn/src/"
		(cd "$dn/src" && DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet build -c Release -o ../out >/dev/null)
	fi
	rm -f "$dn/bench.nettrace" "$dn/bench.gcdump"
	mkfifo "$dn/in.$$"
	"$dn/out/HeapBench" 5 <"$dn/in.$$" >"$dn/bench.log" 2>&1 &
	exec 8>"$dn/in.$$"
	i=0
	until grep -q '^pid' "$dn/bench.log"; do sleep 0.2; i=$((i + 1)); [ $i -lt 1500 ] || break; done
	pid=$(awk '/^pid/ { print $2 }' "$dn/bench.log")
	echo "== .NET process $pid: $(cat "$dn/bench.log")"
	timed dotnet_snapshot "$build/heapwalk" snapshot "$pid" "$dn/bench.nettrace"
	if command -v dotnet-gcdump >/dev/null 2>&1; then
		timed dotnet_gcdump_collect dotnet-gcdump collect -p "$pid" -o "$dn/bench.gcdump"
	fi
	exec 8>&-
	rm -f "$dn/in.$$"
	wait "$pid" 2>/dev/null || true
	"$build/heapwalk" -q info "$dn/bench.nettrace" | grep -E '^(objects|dump_gc_us|dump_pause_us):' | sed 's/^/dotnet_/'
	echo "dotnet_trace_mb: $(($(stat -c %s "$dn/bench.nettrace") / 1048576))"
	rm -f "$dn/bench.nettrace.hwi" "$dn/bench.gcdump.hwi"
	timed dotnet_classes_retained "$build/heapwalk" -q classes -n 20 "$dn/bench.nettrace"
	timed dotnet_cached_classes "$build/heapwalk" -q classes -n 20 "$dn/bench.nettrace"
	"$build/tests/bench_heapwalk" "$dn/bench.nettrace" |
		grep -E '^(objects|phase|cold_open|engine_bytes_per_object|peak_rss_mb|dump_resident_mb|peak_rss_minus_dump_bytes_per_object|peak_anon_mb|peak_anon_bytes_per_object)' |
		sed 's/^/dotnet_/'
	ab dotnet_trace "$dn/bench.nettrace"
	# the same trace as a writer of 64 kB pieces leaves it in the page
	# cache (heapwalk's snapshot writes 2 MiB ones: huge pages there,
	# mapped at once; in 4 kB pages each is mapped, on a virtual
	# machine at a cost)
	dd if="$dn/bench.nettrace" of="$dn/bench-64k.nettrace" bs=64k status=none
	timed dotnet_classes_retained_written_64k "$build/heapwalk" -q --no-cache classes -n 20 "$dn/bench-64k.nettrace"
	rm -f "$dn/bench-64k.nettrace"
	if [ -f "$dn/bench.gcdump" ]; then # the same heap as dotnet-gcdump wrote it
		echo "gcdump_file_mb: $(($(stat -c %s "$dn/bench.gcdump") / 1048576))"
		timed gcdump_classes_retained "$build/heapwalk" -q classes -n 20 "$dn/bench.gcdump"
		timed gcdump_cached_classes "$build/heapwalk" -q classes -n 20 "$dn/bench.gcdump"
		"$build/tests/bench_heapwalk" "$dn/bench.gcdump" |
			grep -E '^(objects|cold_open|engine_bytes_per_object|peak_rss_mb|peak_rss_minus_dump_bytes_per_object|peak_anon_mb|peak_anon_bytes_per_object)' |
			sed 's/^/gcdump_/'
		ab gcdump "$dn/bench.gcdump"
		timed gcdump_report dotnet-gcdump report "$dn/bench.gcdump"
	fi
fi

# Mono: bench/mono/Bench.cs keeping ~2.4 M objects, recorded by the log
# profiler (heapshot: one at its GC.Collect, one at shutdown; a nursery
# big enough that no collection comes before), kept between runs. The
# last heapshot opened cold by the bench driver; mprof-report's summary
# of the same file (a tally of each heapshot's classes, no graph); old
# and new between the two heapshots (the moves replayed).
if [ -x /usr/bin/time ] && command -v mono >/dev/null 2>&1 && command -v mcs >/dev/null 2>&1; then
	mo=$out/mono
	mkdir -p "$mo"
	if [ ! -f "$mo/bench.mlpd" ] || [ "$src/bench/mono/Bench.cs" -nt "$mo/bench.mlpd" ]; then
		echo "== making $mo/bench.mlpd"
		mcs -out:"$mo/bench.exe" "$src/bench/mono/Bench.cs" >/dev/null
		rm -f "$mo/bench.mlpd"
		(cd "$mo" && MONO_GC_PARAMS=nursery-size=256m mono --profile=log:heapshot,output=bench.mlpd \
			bench.exe >/dev/null)
	fi
	echo "== $mo/bench.mlpd ($(du -m "$mo/bench.mlpd" | cut -f1) MB)"
	"$build/tests/bench_heapwalk" "$mo/bench.mlpd" |
		grep -E '^(objects|references|phase|cold_open|engine_bytes_per_object|peak_rss_mb|peak_rss_minus_dump_bytes_per_object|peak_anon_mb|peak_anon_bytes_per_object)' |
		sed 's/^/mono_/'
	ab mono "$mo/bench.mlpd"
	if command -v mprof-report >/dev/null 2>&1; then
		timed mprof_report_heapshot mprof-report --reports=heapshot "$mo/bench.mlpd"
	fi
	rm -f "$mo"/bench.mlpd*.hwi
	timed mono_classes_retained "$build/heapwalk" -q classes -n 20 "$mo/bench.mlpd"
	timed mono_cached_classes "$build/heapwalk" -q classes -n 20 "$mo/bench.mlpd"
	timed mono_heapshot_1_classes "$build/heapwalk" -q --heapshot 1 classes -n 20 "$mo/bench.mlpd"
	timed mono_heapshot_1_cached "$build/heapwalk" -q --heapshot 1 classes -n 20 "$mo/bench.mlpd"
	timed mono_new_since_heapshot_1 "$build/heapwalk" -q --baseline "$mo/bench.mlpd:1" -e new "$mo/bench.mlpd"
fi

# The browser's redraw: heapwalk in a 200x50 tmux terminal on the 1 GB
# dump (its cache written above), a script of keys that compute nothing
# new (moving, paging, views and steps already built), each key's time
# from reading it to the end of the redraw logged by HEAPWALK_KEYLOG.
dump=$out/bench-1000.hprof
if command -v tmux >/dev/null 2>&1 && [ -f "$dump" ]; then
	echo "== browser redraw, 200x50, $dump"
	log=$out/keylog.txt
	sock=hwbench-$$
	rm -f "$log"
	env -u TMUX tmux -L "$sock" -f /dev/null new-session -d -s b -x 200 -y 50 \
		"env LANG=C.UTF-8 HEAPWALK_KEYLOG=$log $build/heapwalk $dump"
	t0=$(date +%s.%N)
	i=0
	while ! env -u TMUX tmux -L "$sock" capture-pane -p -t b 2>/dev/null | grep -q "Step 1: All objects"; do
		sleep 0.1
		i=$((i + 1))
		[ $i -lt 1200 ] || break
	done
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "browser_open_to_first_screen_s: %.2f\n", b - a }'
	key() { env -u TMUX tmux -L "$sock" send-keys -t b "$@"; sleep 0.15; }
	# build the Biggest view once (computes), then only move around
	key Tab
	sleep 2
	n0=$(wc -l < "$log")
	key BTab
	for k in j j j j j j j j j j k k k k k NPage NPage PPage End Home G T; do key "$k"; done
	key Tab; key BTab; key Tab; key BTab
	sleep 0.5
	nf=$(wc -l < "$log")
	key f; key -l 'String$'; key Enter
	key Enter; sleep 2    # a new step: instances of java.lang.String (computes)
	n1=$(wc -l < "$log")
	key Left; key Right; key Left; key Right
	for k in j j j j j k k k NPage PPage; do key "$k"; done
	sleep 0.5
	env -u TMUX tmux -L "$sock" send-keys -t b q
	sleep 0.5
	env -u TMUX tmux -L "$sock" kill-server 2>/dev/null || true
	# keys after n0 that compute nothing: all but the filter (its prompt
	# is one logged key) and the Enter that made the step
	awk -v n0="$n0" -v nf="$nf" -v n1="$n1" 'NR > n0 && !(NR > nf && NR <= n1) { print $2 }' "$log" |
		sort -n | awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "redraw: no keys logged"; exit }
			printf "redraw_keys: %d\nredraw_ms_median: %.2f\nredraw_ms_p90: %.2f\nredraw_ms_max: %.2f\n",
				NR, v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.5)], v[NR] }'
fi

# The analyses' focus, deep size, lifelines and the path between two
# objects, on the 1 GB dump from its cache: the info view as it is; with
# the top object of the dominator tree as the only root (the analyses
# again); with the last reference of that object's first path from a GC
# root left out (the rules' classification and the analyses again); the
# deep and exact retained sizes of the class that retains most; the
# object's lifelines; the path to it from its path's GC root.
if [ -x /usr/bin/time ] && [ -f "$plain" ]; then
	echo "== root, ignore, deep size, lifelines, between: the 1 GB workload"
	hw="$build/heapwalk"
	"$hw" -q info "$plain" >/dev/null # the cache, if the sections above did not write it
	cls=$("$hw" -q -f csv classes -s retained -n 1 "$plain" | awk -F, 'NR == 2 { print $1 }')
	# the biggest of the top objects that is no GC root itself; its path's
	# rows: the GC root first, the one before the object refers to it
	top= from= ref=
	for o in $("$hw" -q -f csv biggest -n 10 "$plain" | awk -F, 'NR > 1 && $1 == 0 { print $2 }'); do
		"$hw" -q -f csv paths --max 1 "$plain" "$o" >"$out/focus-paths.csv"
		[ "$(wc -l <"$out/focus-paths.csv")" -gt 2 ] || continue
		top=$o
		from=$(awk -F, 'NR == 2 { print $3 }' "$out/focus-paths.csv")
		ref=$(awk -F, 'NR > 1 { gsub(/"/, "", $5); prev = cur; cur = $3 " " $5 } END { print prev }' \
			"$out/focus-paths.csv")
		break
	done
	[ -n "$top" ] || top=$("$hw" -q -f csv biggest -n 1 "$plain" | awk -F, 'NR == 2 { print $2 }')
	echo "focus_object: $top ($cls retains most; left out: $ref)"
	timed focus_cached_info "$hw" -q info "$plain"
	timed focus_root_info "$hw" -q --root "$top" info "$plain"
	[ -n "$ref" ] && timed focus_ignore_info "$hw" -q --ignore "$ref" info "$plain"
	timed deep_and_retained_of_a_class "$hw" -q info --deep -e "instances $cls" "$plain"
	timed lifelines_of_the_object "$hw" -q lifelines "$plain" "$top"
	[ -n "$from" ] && timed between_its_root_and_it "$hw" -q between "$plain" "$from" "$top"
fi

# The HTML report of the 1 GB dump from its cache: the open alone (every
# part of the index loaded: what the report reads), then the report
# (defaults, and with the tree cut at 100,000 objects and no size
# cutoff: the treemap's worst case), its size, and, where Chromium is,
# how long the page takes to load and draw (report-browser.js: from the
# navigation to the load event, the script having drawn everything).
if [ -x /usr/bin/time ] && [ -f "$plain" ]; then
	echo "== HTML report: the 1 GB workload"
	hw="$build/heapwalk"
	"$hw" -q info "$plain" >/dev/null
	timed report_open_all_parts "$hw" -q -e all info "$plain"
	timed report_default "$hw" -q report "$plain" -o "$out/report.html"
	echo "report_default_bytes: $(stat -c %s "$out/report.html")"
	timed report_100k_objects "$hw" -q report --max 100000 --cutoff 0 "$plain" -o "$out/report-100k.html"
	echo "report_100k_objects_bytes: $(stat -c %s "$out/report-100k.html")"
	chromium=${CHROMIUM:-chromium}
	if command -v "$chromium" >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
		for f in report report-100k; do
			node "$src/tests/report-browser.js" "$chromium" "$out/$f.html" |
				node -e 'let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
					const r = JSON.parse(s);
					const t = r.timings, f = x => x.toFixed(0);
					console.log(process.argv[1] + "_chromium_load_ms: " + r.load_ms + "  script_ms: " + f(t.total_ms) +
						" (json " + f(t.parse_ms) + ", treemap " + f(t.treemap_ms) + ", sunburst " + f(t.sunburst_ms) +
						")  treemap_cells: " + r.treemap_cells + "  errors: " + r.errors.length); })' "$f"
		done
	fi
	rm -f "$out/report.html" "$out/report-100k.html"
fi

# The agent's cost on the ~1 GB workload: a mark (full GC, then tagging
# every object), a second mark (nothing left to tag), a snapshot, and
# `jcmd GC.heap_dump` on the same quiet heap; the JVM's resident size
# before and after tagging (the JVM's tag table).
agent=$build/contrib/agent/libheapwalk-agent.so
if [ -f "$agent" ] && command -v "${JCMD:-jcmd}" >/dev/null 2>&1; then
	echo "== agent cost, the 1 GB workload"
	JCMD=${JCMD:-jcmd}
	mkdir -p "$out/classes"
	javac -d "$out/classes" "$src/tests/java/Bench.java"
	java -Xmx4000m -cp "$out/classes" Bench 700 </dev/null >"$out/agent-bench.log" 2>&1 &
	pid=$!
	i=0
	until grep -q '^READY' "$out/agent-bench.log"; do
		sleep 0.2
		i=$((i + 1))
		[ $i -lt 3000 ] || { echo "Bench did not start"; kill $pid; exit 1; }
	done
	rss() { awk '/^VmRSS/ { print $2 }' /proc/$pid/status; }
	rss0=$(rss)
	export HEAPWALK_AGENT=$agent JCMD
	"$build/heapwalk" mark $pid >/dev/null # loads the agent; a first GC settles the heap
	rm -f "$out/agent-snap.hprof" "$out/jcmd-snap.hprof"
	t0=$(date +%s.%N)
	"$build/heapwalk" snapshot $pid "$out/agent-snap.hprof" >"$out/agent-snap.out"
	t1=$(date +%s.%N)
	"$JCMD" $pid GC.heap_dump "$out/jcmd-snap.hprof" >/dev/null
	t2=$(date +%s.%N)
	rss1=$(rss)
	"$build/heapwalk" mark $pid >"$out/agent-mark2.out"
	cat "$out/agent-snap.out" "$out/agent-mark2.out"
	kill $pid
	wait $pid 2>/dev/null || true
	# matching two 1 GB dumps of this JVM, a few seconds apart: the
	# snapshot (ids are tags) and jcmd's (ids are addresses) share no id,
	# so every object has to be recognised. Each dump opened cold first
	# (which writes its cache); the match then opens both from the cache,
	# so its time is the matcher's plus two cached opens.
	# Memory as anonymous (the engines and the matcher) and file-backed
	# (the mapped dumps and caches: clean, reclaimable) peaks, polled from
	# /proc, against one dump opened cold.
	peak_mem() { # command...: prints "anon_mb file_mb" of its peaks
		"$@" >/dev/null 2>&1 &
		p=$!
		a=0 f=0
		while kill -0 $p 2>/dev/null; do
			set -- $(awk '/^RssAnon/ { a = $2 } /^RssFile/ { f = $2 } END { print a + 0, f + 0 }' \
				/proc/$p/status 2>/dev/null || echo 0 0)
			[ "${1:-0}" -gt $a ] && a=$1
			[ "${2:-0}" -gt $f ] && f=$2
			sleep 0.1
		done
		wait $p || true
		echo "$((a / 1024)) $((f / 1024))"
	}
	for f in agent-snap jcmd-snap; do
		/usr/bin/time -f "cold_open_${f}_s: %e" "$build/heapwalk" -q --no-cache info "$out/$f.hprof" >/dev/null
	done
	/usr/bin/time -f 'match_two_1gb_dumps_s: %e  peak_rss_kb: %M' "$build/heapwalk" -q \
		--baseline "$out/agent-snap.hprof" "$out/jcmd-snap.hprof" info >"$out/match-info.txt"
	grep -E '^(objects|baseline|new_objects|gone_objects|paired_objects):' "$out/match-info.txt"
	peak_mem "$build/heapwalk" -q --no-cache info "$out/jcmd-snap.hprof" |
		awk '{ printf "one_dump_cold_open_peak_anon_mb: %d  file_mb: %d\n", $1, $2 }'
	peak_mem "$build/heapwalk" -q --baseline "$out/agent-snap.hprof" "$out/jcmd-snap.hprof" info |
		awk '{ printf "match_two_1gb_dumps_peak_anon_mb: %d  file_mb: %d\n", $1, $2 }'
	# tagging cost: a fresh JVM, the first mark tags everything
	java -Xmx4000m -cp "$out/classes" Bench 700 </dev/null >"$out/agent-bench.log" 2>&1 &
	pid=$!
	i=0
	until grep -q '^READY' "$out/agent-bench.log"; do sleep 0.2; i=$((i + 1)); [ $i -lt 3000 ] || break; done
	"$JCMD" $pid GC.run >/dev/null
	rss2=$(rss)
	"$build/heapwalk" mark $pid >"$out/agent-mark1.out"
	rss3=$(rss)
	"$build/heapwalk" mark $pid >"$out/agent-mark1b.out"
	kill $pid
	wait $pid 2>/dev/null || true
	cat "$out/agent-mark1.out" "$out/agent-mark1b.out"
	awk -v a="$t0" -v b="$t1" -v c="$t2" -v sa="$(stat -c %s "$out/agent-snap.hprof")" \
	    -v sj="$(stat -c %s "$out/jcmd-snap.hprof")" -v r2="$rss2" -v r3="$rss3" \
	    -v m1="$(cat "$out/agent-mark1.out")" -v m2="$(cat "$out/agent-mark1b.out")" 'BEGIN {
		split(m1, f, /[ =]/); for (i in f) if (f[i] == "newly_tagged") n = f[i + 1]; else if (f[i] == "ms") ms = f[i + 1]
		split(m2, g, /[ =]/); for (i in g) if (g[i] == "ms") ms2 = g[i + 1]
		printf "agent_first_mark_objects: %d\nagent_first_mark_ms: %d (%.0f ms per million objects, full GC included)\n", n, ms, ms / (n / 1e6)
		printf "agent_second_mark_ms: %d (nothing left to tag)\n", ms2
		printf "agent_tag_table_bytes_per_object: %.1f (JVM resident size after the first mark)\n", (r3 - r2) * 1024 / n
		printf "agent_snapshot_s: %.2f  (%d bytes)\njcmd_heap_dump_s: %.2f  (%d bytes)\n", b - a, sa, c - b, sj }'
	rm -f "$out/agent-snap.hprof" "$out/jcmd-snap.hprof" "$out/jcmd-snap.hprof.hwi"
fi

# heapwalk leaks over three V8 snapshots of one Node process of over a
# million nodes each (bench/leaks3.js, kept between runs): time and peak
# memory; then an MCP session on the 1 GB dump from its cache (heapwalk
# mcp, the messages a client sends): initialize, open and summary; the
# same with a paths call on the top object of the dominator tree after
# them (the difference: the paths call, the graph loaded from the cache).
if [ -x /usr/bin/time ] && command -v node >/dev/null 2>&1; then
	l3=$out/leaks3
	if [ ! -f "$l3/final.heapsnapshot" ] || [ "$src/bench/leaks3.js" -nt "$l3/final.heapsnapshot" ]; then
		echo "== making three V8 snapshots of one process (bench/leaks3.js)"
		mkdir -p "$l3"
		node --expose-gc "$src/bench/leaks3.js" "$l3" >/dev/null
	fi
	echo "== leaks BASE TARGET FINAL: V8, $(du -m "$l3/final.heapsnapshot" | cut -f1) MB each"
	"$build/heapwalk" -q -f json info "$l3/final.heapsnapshot" | sed -n 's/.*"objects":\([0-9]*\),.*/leaks_final_objects: \1/p'
	timed leaks_three_v8_cold "$build/heapwalk" -q --no-cache leaks "$l3/base.heapsnapshot" \
		"$l3/target.heapsnapshot" "$l3/final.heapsnapshot"
	"$build/heapwalk" -q info "$l3/base.heapsnapshot" >/dev/null # the caches
	"$build/heapwalk" -q info "$l3/target.heapsnapshot" >/dev/null
	"$build/heapwalk" -q info "$l3/final.heapsnapshot" >/dev/null
	timed leaks_three_v8_cached "$build/heapwalk" -q leaks "$l3/base.heapsnapshot" \
		"$l3/target.heapsnapshot" "$l3/final.heapsnapshot"
fi
if [ -x /usr/bin/time ] && [ -f "$plain" ]; then
	echo "== heapwalk mcp on the 1 GB dump, from its cache"
	"$build/heapwalk" -q info "$plain" >/dev/null
	top=$("$build/heapwalk" -q -f csv biggest -n 1 "$plain" | awk -F, 'NR == 2 { print $2 }')
	init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
	open="{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"open\",\"arguments\":{\"path\":\"$plain\"}}}"
	summ='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"summary","arguments":{"dump":"d1"}}}'
	paths="{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"paths\",\"arguments\":{\"dump\":\"d1\",\"object\":\"$top\"}}}"
	printf '%s\n%s\n%s\n' "$init" "$open" "$summ" >"$out/mcp1.in"
	printf '%s\n%s\n%s\n%s\n' "$init" "$open" "$summ" "$paths" >"$out/mcp2.in"
	timed mcp_open_summary sh -c "\"\$0\" mcp \"\$1\" <\"\$2\"" "$build/heapwalk" "$(dirname "$plain")" "$out/mcp1.in"
	timed mcp_open_summary_paths sh -c "\"\$0\" mcp \"\$1\" <\"\$2\"" "$build/heapwalk" "$(dirname "$plain")" "$out/mcp2.in"
	"$build/heapwalk" mcp "$(dirname "$plain")" <"$out/mcp2.in" | awk '{ n++; b += length($0) } END { printf "mcp_answers: %d lines, %d bytes\n", n, b }'
fi

# What a snapshot of a live process costs, per runtime, against the
# runtime's own tool (the target's pause as it saw it, its processor
# time, the client's): bench/snapcost.sh.
sh "$src/bench/snapcost.sh" "$src" "$build" "$out"
