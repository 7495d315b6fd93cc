#!/bin/sh
# run-suite.sh DIR/NAME.suite — make check's test of one Check suite:
# the runner ($CHECK_RUNNER) on suite NAME, its exit status the test's.
# Check's XML log goes to DIR/NAME.xml (each test's time, for
# tests/summary.sh); the log ends with the suite's seconds, on the clock
# and of CPU (user and system, of the processes it waited for: what the
# suite costs a machine that runs others beside it); Check's line
# ("100%: Checks: ...") goes to the terminal too, on fd 9 when make check
# opened it (AM_TESTS_FD_REDIRECT).
#
# Timeouts catch hangs only: a test case without one of its own has
# CK_DEFAULT_TIMEOUT (300 s unless set; the runner says so too), each
# one multiplied by CK_TIMEOUT_MULTIPLIER (the sanitizer build sets
# it). CK_RUN_SUITE=NAME
# in the environment runs that suite alone: the others are skipped.
set -u
file=$1
name=$(basename "$file" .suite)
base=${file%.suite}
if [ -n "${CK_RUN_SUITE:-}" ] && [ "$CK_RUN_SUITE" != "$name" ]; then
	echo "$name: skipped (CK_RUN_SUITE=$CK_RUN_SUITE)"
	exit 77
fi
rm -f "$base.xml" "$base.out"
start=$(date +%s.%N)
CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-300} CK_XML_LOG_FILE_NAME=$base.xml \
	"${CHECK_RUNNER:?run through make check}" "$name" >"$base.out" 2>&1
st=$?
end=$(date +%s.%N)
times >"$base.times" # the shell's line, then its children's: "0m1.5s 0m0.3s"
cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += 60 * t[1] + t[2] }
	   printf "%.1f", n }' "$base.times")
rm -f "$base.times"
cat "$base.out"
line=$(grep -E '^[0-9]+%: Checks: ' "$base.out" | tail -1)
rm -f "$base.out"
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
echo "suite $name: $secs s, $cpu s CPU, exit status $st"
if { true >&9; } 2>/dev/null; then
	printf '%-12s %s (%s s)\n' "$name:" "${line:-no Checks line: exit status $st}" "$secs" >&9
fi
exit $st
