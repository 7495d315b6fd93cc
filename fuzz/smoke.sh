#!/bin/sh
# smoke.sh SRCDIR BUILDDIR SEEDS SECONDS fresh|keep [NAME...] — run each
# fuzzer (or the NAMEs given) for SECONDS, one after the other, on its
# seeds and fuzz/NAME.dict; fail on a crash, a sanitizer report, a
# broken promise of its body, a slow input (-timeout) or too much
# memory. Its corpus is BUILDDIR/fuzz/corpus/NAME: made afresh from the
# seeds ("fresh", make fuzz-smoke), or kept from the last run with the
# seeds added ("keep", make fuzz-long). Each prints its runs and its
# final coverage; the logs stay in BUILDDIR/fuzz/logs, a failing input
# in BUILDDIR/fuzz/artifacts/NAME/. FUZZ_TIMEOUT (seconds, 10) is the
# slow input's bound: raise it on a machine busy with other work, where a
# starved run of a fine input can take longer. FUZZ_LANES (1) fuzzers
# run at a time, each lane one after the other; the lines come out in
# the fuzzers' order all the same.
src=$1 build=$2 seeds=$3 secs=${4:-40} mode=${5:-fresh}
if [ $# -ge 5 ]; then shift 5; else set --; fi
all="hprof nettrace gcdump mlpd v8 baseline clrmark gz cache step rules gates devtools mcp"
names=${*:-$all}
lanes=${FUZZ_LANES:-1}
case $lanes in ''|*[!0-9]*|0) echo "smoke.sh: FUZZ_LANES must be a count, not '$lanes'" >&2; exit 2 ;; esac
mkdir -p "$build/fuzz/logs"

# one NAME: its line into logs/NAME.line; its status 1 when it failed
one() {
	name=$1
	if [ ! -x "$build/fuzz/$name-fuzzer" ]; then
		echo "$name-fuzzer: no such fuzzer (they are: $all)"
		return 1
	fi
	corpus=$build/fuzz/corpus/$name art=$build/fuzz/artifacts/$name
	log=$build/fuzz/logs/$name.log
	[ "$mode" = keep ] || rm -rf "$corpus"
	rm -rf "$art"
	mkdir -p "$corpus" "$art"
	cp "$seeds/$name"/* "$corpus/"
	dict=
	[ -f "$src/fuzz/$name.dict" ] && dict=-dict=$src/fuzz/$name.dict
	# a Node snapshot is 4 MB: its first 256 kB (meta, nodes, edges) are
	# enough to mutate, and far faster to run
	maxlen=
	[ "$name" = v8 ] && maxlen=-max_len=262144
	"$build/fuzz/$name-fuzzer" -max_total_time="$secs" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$art/" $dict $maxlen "$corpus" > "$log" 2>&1
	rc=$?
	final=$(grep -E '^#[0-9]+[[:space:]]+(DONE|INITED|pulse|NEW|REDUCE)' "$log" | tail -1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(printf '%s\n' "$final" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(printf '%s\n' "$final" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	if [ $rc -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^SUMMARY: |^fuzz: ' "$log"; then
		echo "$name-fuzzer: FAILED (exit $rc) after ${runs:-?} runs: see $log and $art"
		grep -E 'ERROR:|runtime error:|^SUMMARY:|^fuzz: |^artifact_prefix|Test unit written' "$log" | head -5
		return 1
	fi
	echo "$name-fuzzer: ${runs:-?} runs in ${secs} s, cov: ${cov:-?} ft: ${ft:-?}, corpus $(ls "$corpus" | wc -l)"
}

# lane k (0-based) runs the names at k, k + lanes, ...; each name's
# words into logs/NAME.line and its failure into logs/NAME.failed
lane() {
	k=0
	for name in $names; do
		if [ $((k % lanes)) -eq "$1" ]; then
			rm -f "$build/fuzz/logs/$name.failed"
			one "$name" > "$build/fuzz/logs/$name.line" 2>&1 || : > "$build/fuzz/logs/$name.failed"
		fi
		k=$((k + 1))
	done
}

l=0
while [ $l -lt "$lanes" ]; do
	lane $l &
	l=$((l + 1))
done
wait
status=0
for name in $names; do
	cat "$build/fuzz/logs/$name.line"
	[ -e "$build/fuzz/logs/$name.failed" ] && status=1
done
exit $status
