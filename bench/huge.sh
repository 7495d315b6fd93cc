#!/bin/sh
# huge.sh SRCDIR BUILDDIR — `make bench-huge`: a heap dump of twice the
# machine's memory made by tests/hprofgen, opened cold to the class
# histogram with dominator-based retained sizes (writing its index
# cache), then from the cache; its per-class counts and bytes and the
# planted objects' retained sizes checked against what the generator
# wrote; the time of each phase and the memory in it (the bench driver's
# table), the time spent waiting (elapsed less CPU), peak resident
# memory split into anonymous (the engine's) and file-backed (the dump's
# pages), bytes per object; the browser opened on it from the cache and
# the time of each key that computes nothing. Not part of make check
# (tests/test_hprofgen.c runs the same checks at a hundredth of the
# size). HUGE_GB=N asks for another size; HUGE_DIR=DIR puts the files
# there (default BUILDDIR/bench-huge). Cleans up after itself.
set -eu
src=$1
build=$2
dir=${HUGE_DIR:-$build/bench-huge}
gb=1073741824
say() { printf '%s\n' "$*"; }
fail() { printf 'bench-huge: %s\n' "$*" >&2; exit 1; }

mkdir -p "$dir"
ram_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
want=${HUGE_GB:-$((ram_kb * 2 / 1048576))}
# room: the dump, its index cache (a fifth of it at most, measured ~1/8),
# the scratch file of the open (as much again at its largest) and 1 GB
# to spare
need_kb=$((want * 1048576 * 7 / 5 + 1048576))
free_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
if [ "$free_kb" -lt "$need_kb" ]; then
	fit=$(((free_kb - 1048576) * 5 / 7 / 1048576))
	[ -z "${HUGE_GB:-}" ] && [ "$fit" -ge 30 ] ||
		fail "$dir has $((free_kb / 1048576)) GB free; a $want GB dump and its index cache need $((need_kb / 1048576)) GB (HUGE_DIR=DIR elsewhere, or HUGE_GB=N)"
	say "bench-huge: $dir has room for a $fit GB dump, not $want GB (2x RAM): making that"
	want=$fit
fi
dump=$dir/huge.hprof
sock=hwhuge-$$
trap 'rm -f "$dump" "$dir/huge.expect" "$dump.hwi" "$dir"/*.txt "$dir"/*.csv; env -u TMUX tmux -L "$sock" kill-server 2>/dev/null || true' EXIT INT TERM
# hprofgen writes about 65 bytes an object
objects=$((want * gb / 65))
# the engine's memory at its peak, at most 28 bytes an object
# (HEAP_BUILD_BYTES, graph/open.h: heapwalk refuses a dump it cannot
# analyse in the memory there is, after reading it; this refuses before
# generating it): HUGE_FORCE=1 tries anyway
bpo=${HUGE_BYTES_PER_OBJECT:-28}
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
need_mem_kb=$((objects / 1024 * bpo))
if [ "$need_mem_kb" -gt "$avail_kb" ] && [ -z "${HUGE_FORCE:-}" ]; then
	fail "a $want GB dump ($objects objects) needs about $((need_mem_kb / 1048576)) GB of memory at $bpo bytes an object; $((avail_kb / 1048576)) GB are available: not started (HUGE_FORCE=1 tries anyway)"
fi

# runs "$@" with its output in $dir/out.txt; sets secs, cpu (user + sys),
# anon_mb and file_mb (the peaks of RssAnon and RssFile, sampled)
measure() {
	t0=$(date +%s.%N)
	"$@" >"$dir/out.txt" &
	pid=$!
	anon=0 file=0
	while kill -0 "$pid" 2>/dev/null; do
		x=$(awk '/^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 } END { print a + 0, f + 0 }' \
			"/proc/$pid/status" 2>/dev/null || echo 0 0)
		[ "${x% *}" -gt "$anon" ] && anon=${x% *}
		[ "${x#* }" -gt "$file" ] && file=${x#* }
		cpu_ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo "${cpu_ticks:-0}")
		sleep 0.1
	done
	wait "$pid" || fail "$1 failed"
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	cpu=$(awk -v t="${cpu_ticks:-0}" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz }')
	anon_mb=$((anon / 1024))
	file_mb=$((file / 1024))
}

say "== generating $dump: $objects objects (~$want GB)"
measure "$build/tests/hprofgen" -n "$objects" -o "$dump"
size=$(stat -c %s "$dump")
say "generate_s: $secs  size_bytes: $size  mb_per_s: $(awk -v s="$size" -v t="$secs" 'BEGIN { printf "%.0f", s / 1e6 / t }')"
n=$(awk '$1 == "objects" { print $2 }' "$dir/huge.expect")

say "== cold open to the class histogram, writing the index cache"
sync
measure "$build/tests/bench_heapwalk" --open "$dump"
cat "$dir/out.txt"
say "cold_open_s: $secs  cpu_s: $cpu  waiting_s: $(awk -v a="$secs" -v c="$cpu" 'BEGIN { printf "%.1f", a - c }')"
say "peak_anon_mb: $anon_mb  peak_file_mb: $file_mb  anon_bytes_per_object: $(awk -v a="$anon_mb" -v n="$n" 'BEGIN { printf "%.1f", a * 1048576 / n }')"

say "== from the cache: the histogram, and the planted objects' retained sizes"
sync
echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true # the dump's pages, if root may
measure "$build/heapwalk" -q -f csv classes -n 0 "$dump"
say "cached_classes_s: $secs  peak_anon_mb: $anon_mb  peak_file_mb: $file_mb"
cp "$dir/out.txt" "$dir/classes.csv"
# class NAME COUNT BYTES against the CSV's class,instances,shallow,...
bad=$(awk -F, 'NR == FNR { if (FNR > 1) { c[$1] = $2; b[$1] = $3 } next }
	$1 == "class" { split($0, f, " "); if (c[f[2]] != f[3] || b[f[2]] != f[4]) { print f[2]; n++ } }
	END { exit n > 0 }' "$dir/classes.csv" FS=' ' "$dir/huge.expect") ||
	fail "classes differ from the generator's: $bad"
say "classes: every count and byte total as written"
# the planted objects: ids, classes and retained sizes alone from the
# cache (the whole graph of this heap is more than the memory)
ids=$(awk '$1 == "holder" || $1 == "shared" { printf "%s ", $2 }' "$dir/huge.expect")
# shellcheck disable=SC2086
measure "$build/tests/bench_heapwalk" --retained "$dump" $ids
say "cached_planted_s: $secs  peak_anon_mb: $anon_mb"
awk 'NR == FNR { if (NF == 3) r[$1] = $3; next }
	$1 == "holder" || $1 == "shared" { if (r[$2] != $3) { print $2 " retains " r[$2] ", not " $3; bad = 1 } }
	END { exit bad }' "$dir/out.txt" "$dir/huge.expect" || fail "planted retained sizes differ"
say "planted: every retained size as built"

# The browser on it from the cache, in a 200x50 tmux terminal: the time
# to its first screen (the classes), and each key that computes nothing
# (moving, paging), from reading it to the end of its redraw
# (HEAPWALK_KEYLOG); then a key that needs the object graph: refused
# with a message when it does not fit, the session kept.
if command -v tmux >/dev/null 2>&1; then
	say "== the browser, from the cache"
	log=$dir/keylog.txt
	rm -f "$log"
	env -u TMUX tmux -L "$sock" -f /dev/null new-session -d -s b -x 200 -y 50 \
		"env LANG=C.UTF-8 HEAPWALK_KEYLOG=$log $build/heapwalk $dump"
	t0=$(date +%s.%N)
	i=0
	while ! env -u TMUX tmux -L "$sock" capture-pane -p -t b 2>/dev/null | grep -q "Step 1: All objects"; do
		sleep 0.1
		i=$((i + 1))
		[ $i -lt 3000 ] || fail "the browser showed no first screen in 300 s"
	done
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "browser_open_to_first_screen_s: %.2f\n", b - a }'
	key() { env -u TMUX tmux -L "$sock" send-keys -t b "$@"; sleep 0.15; }
	for k in j j j j j j j j j j k k k k k NPage NPage PPage End Home j j k; do key "$k"; done
	sleep 0.5
	awk '{ print $2 }' "$log" | sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "redraw: no keys logged"; exit }
		printf "redraw_keys: %d\nredraw_ms_median: %.2f\nredraw_ms_p90: %.2f\nredraw_ms_max: %.2f\n",
			NR, v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.5)], v[NR] }'
	key Tab
	i=0
	while ! env -u TMUX tmux -L "$sock" capture-pane -p -t b | grep -qE "dominator tree|available"; do
		sleep 1
		i=$((i + 1))
		[ $i -lt 900 ] || break
	done
	say "the Biggest view: $(env -u TMUX tmux -L "$sock" capture-pane -p -t b | grep -E "dominator tree|available" | head -1 | cut -c1-150)"
	env -u TMUX tmux -L "$sock" send-keys -t b q
	sleep 1
	env -u TMUX tmux -L "$sock" kill-server 2>/dev/null || true
fi
