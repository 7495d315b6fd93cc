#!/bin/sh
# check-suites.sh — every suite of the runner (tests/suite_list.h) is a
# test of make check (CHECK_SUITES in Makefile.am), and every name there
# a suite of the runner: a suite missing from either is never run, or
# runs nothing.
set -u
runner=${CHECK_RUNNER:?run through make check}
tmp=${TMPDIR:-/tmp}/check-suites.$$
trap 'rm -f "$tmp".*' EXIT
"$runner" --list | sort >"$tmp.runner" || { echo "check-suites.sh: $runner --list failed"; exit 1; }
for f in ${CHECK_SUITES:?run through make check}; do basename "$f" .suite; done | sort >"$tmp.make"
status=0
for s in $(comm -23 "$tmp.runner" "$tmp.make"); do
	echo "suite $s is in tests/suite_list.h but not in CHECK_SUITES (Makefile.am): make check never runs it"
	status=1
done
for s in $(comm -13 "$tmp.runner" "$tmp.make"); do
	echo "suite $s is in CHECK_SUITES (Makefile.am) but not in tests/suite_list.h: the runner has no such suite"
	status=1
done
dups=$(sort "$tmp.make" | uniq -d)
[ -z "$dups" ] || { echo "CHECK_SUITES names twice: $dups"; status=1; }
[ $status -ne 0 ] || echo "$(wc -l <"$tmp.runner") suites, each a test of make check"
exit $status
