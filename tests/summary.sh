#!/bin/sh
# summary.sh — the last test of make check (its log depends on every
# suite's): Check's lines of the suites ($SUITE_LOGS) added up into one,
# then the ten slowest suites, the ten that took the most CPU, and the
# ten slowest tests (from each suite's Check XML log), on the terminal (fd 9) and in its log. Fails
# only when a suite left no line at all (crashed or killed).
set -u
out=${TMPDIR:-/tmp}/summary.$$
trap 'rm -f "$out" "$out".*' EXIT
status=0
: >"$out.suites"
: >"$out.cpu"
: >"$out.tests"
: >"$out.lines"
for log in ${SUITE_LOGS:?run through make check}; do
	name=$(basename "$log" .log)
	[ -f "$log" ] || continue
	grep -q ': skipped (CK_RUN_SUITE=' "$log" && continue
	grep -E '^[0-9]+%: Checks: ' "$log" | tail -1 | sed "s/^/$name /" >>"$out.lines" ||
		{ echo "$name: no Checks line in $log"; status=1; }
	sed -n "s/^suite $name: \([0-9.]*\) s.*/\1 $name/p" "$log" >>"$out.suites"
	sed -n "s/^suite $name: [0-9.]* s, \([0-9.]*\) s CPU.*/\1 $name/p" "$log" >>"$out.cpu"
	xml=${log%.log}.xml
	# <test> ... <id>NAME</id> ... <duration>SECONDS</duration>: one line each
	[ -f "$xml" ] && awk -v s="$name" '
		/<id>/ { sub(/.*<id>/, ""); sub(/<\/id>.*/, ""); id = $0 }
		/<duration>/ && id != "" { sub(/.*<duration>/, ""); sub(/<\/duration>.*/, "");
			printf "%s %s:%s\n", $0, s, id; id = "" }' "$xml" >>"$out.tests"
done
{
	awk '{ sub(/,/, "", $4); sub(/,/, "", $6); c += $4; f += $6; e += $8; n++ }
	     END { printf "total of %d suites: %d%%: Checks: %d, Failures: %d, Errors: %d\n",
		   n, c ? 100 * (c - f - e) / c : 0, c, f, e }' "$out.lines" 2>/dev/null
	echo "the slowest suites (seconds):"
	sort -rn "$out.suites" | head -10 | awk '{ printf "  %7.1f  %s\n", $1, $2 }'
	awk '{ c += $1 } END { printf "the most CPU (user and system seconds; %.0f in all):\n", c }' "$out.cpu"
	sort -rn "$out.cpu" | head -10 | awk '{ printf "  %7.1f  %s\n", $1, $2 }'
	echo "the slowest tests (seconds):"
	sort -rn "$out.tests" | head -10 | awk '{ printf "  %7.1f  %s\n", $1, $2 }'
} >"$out"
cat "$out"
{ true >&9; } 2>/dev/null && cat "$out" >&9
exit $status
