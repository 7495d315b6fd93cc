#!/bin/sh
# setup.sh — install what heapwalk needs on a fresh Debian machine, build
# it, and then either open a demo dump or run the whole test suite.
#
#   sh contrib/setup.sh demo    install, build, make a demo dump, open it
#   sh contrib/setup.sh test    install, build, run every test: a -Werror
#                               build, a sanitizer build, the fuzzers on
#                               their seeds and 5 s more, make distcheck
#                               (a fast subset of the suites:
#                               DISTCHECK_SUITES)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-demo}
jobs=$(nproc 2>/dev/null || echo 2)

# each step says how long the script has run (seconds), to find the slow ones
start=$(date +%s)
say() { printf '== [%ss] %s\n' "$(( $(date +%s) - start ))" "$*" >&2; }

install_deps() {
	pkgs="autoconf automake make gcc pkg-config libncurses-dev libpcre2-dev
	      liblz4-dev libdeflate-dev zlib1g-dev check tmux openjdk-17-jdk-headless time clang libclang-rt-14-dev"
	# Mono records the .mlpd heapshots of the tests; headless Chromium (and a
	# font for its text) renders the HTML report, graphviz's dot draws the
	# graphs heapwalk writes (their recommends: not needed)
	lean="mono-runtime mono-mcs libmono-profiler mono-utils chromium fonts-dejavu-core graphviz"
	# Node makes the V8 snapshots of the tests; Debian's where none is installed
	command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
	# npm fetches the MCP SDK client of the mcpsdk tests (npm_tools)
	command -v npm >/dev/null 2>&1 || lean="$lean npm"
	missing=
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	missing_lean=
	for p in $lean; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing_lean="$missing_lean $p"
	done
	[ -z "$missing$missing_lean" ] && { say "dependencies present"; return 0; }
	say "installing:$missing$missing_lean"
	sudo=
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	$sudo apt-get update -q </dev/null
	# shellcheck disable=SC2086
	[ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing </dev/null
	# shellcheck disable=SC2086
	[ -z "$missing_lean" ] ||
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing_lean </dev/null
}

# The protocol's official TypeScript SDK (its client drives heapwalk mcp
# in the mcpsdk suite) and its conformance suite, from the npm registry,
# pinned, into a directory of their own outside the source tree, where the
# suite looks (HEAPWALK_MCP_NPM names another node_modules). Without npm
# or the registry, said in a line: the suite then skips, in a line too.
npm_dir=${HOME:-/root}/.cache/heapwalk-tests/mcp-npm
npm_pkgs="@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/conformance@0.1.16"
npm_tools() {
	if [ "$(cat "$npm_dir/installed" 2>/dev/null)" = "$npm_pkgs" ]; then
		say "npm test packages present ($npm_dir)"
		return 0
	fi
	command -v npm >/dev/null 2>&1 || { say "no npm: the MCP SDK tests (mcpsdk) will be skipped"; return 0; }
	say "npm install $npm_pkgs into $npm_dir"
	if ! { mkdir -p "$npm_dir" && rm -rf "$npm_dir/node_modules" "$npm_dir/installed" "$npm_dir/package-lock.json" &&
		printf '{ "private": true, "description": "heapwalk test tools (contrib/setup.sh)" }\n' >"$npm_dir/package.json"; }; then
		say "cannot write $npm_dir: the MCP SDK tests (mcpsdk) will be skipped"
		return 0
	fi
	# shellcheck disable=SC2086
	if (cd "$npm_dir" && npm install --no-audit --no-fund --ignore-scripts --save-exact --fetch-retries=1 \
		--fetch-timeout=60000 $npm_pkgs) </dev/null >"$npm_dir/install.log" 2>&1; then
		echo "$npm_pkgs" >"$npm_dir/installed"
	else
		rm -rf "$npm_dir/node_modules"
		say "npm install failed (the registry unreachable?): the MCP SDK tests (mcpsdk) will be skipped; see $npm_dir/install.log"
	fi
	return 0
}

bootstrap() {
	cd "$top"
	[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] ||
		autoreconf -fi
}

# build DIR [configure options]: an out-of-tree build.
build() {
	dir=$1
	shift
	mkdir -p "$top/$dir"
	cd "$top/$dir"
	[ -f Makefile ] && [ Makefile -nt "$top/configure" ] || "$top/configure" "$@"
	make -j"$jobs"
}

# check DIR: make check, a Check suite per test, one more at a time
# than there are cores (a suite waits now and then: for a runtime to
# start, a process to answer; one suite per core left a core idle a
# sixth of the time); then the logs of the suites that failed, and the
# summary (every suite's line added up, the slowest ten).
check() {
	cd "$top/$1"
	status=0
	make -j"$((jobs + 1))" check || status=$?
	failed_logs tests/suites
	cat tests/summary.sh.log 2>/dev/null || true
	return $status
}

# failed_logs DIR: the logs there of the tests that did not pass.
failed_logs() {
	for trs in "$1"/*.trs; do
		[ -f "$trs" ] || continue
		grep -q '^:test-result: \(FAIL\|ERROR\)' "$trs" || continue
		say "failed: ${trs%.trs}.log"
		cat "${trs%.trs}.log"
	done
}

# A build where pkg-config cannot see Check (a wrapper hides it).
nocheck() {
	dir=$top/build-nocheck
	mkdir -p "$dir"
	cat >"$dir/pkg-config-nocheck" <<-'EOS'
		#!/bin/sh
		for a; do case $a in check*) exit 1 ;; esac; done
		exec pkg-config "$@"
	EOS
	chmod +x "$dir/pkg-config-nocheck"
	cd "$dir"
	# at -O0: this build shows that heapwalk builds without Check (the
	# optimised builds are the others), in half the compiler's time
	PKG_CONFIG=$dir/pkg-config-nocheck "$top/configure" --enable-werror CFLAGS=-O0 >configure.log 2>&1 ||
		{ cat configure.log; return 1; }
	grep -q "check not found" configure.log || { echo "setup.sh: configure did not warn that Check is missing" >&2; return 1; }
	make -j"$jobs" heapwalk >/dev/null
	./heapwalk --version
	if make check >check.log 2>&1 || ! grep -q 'need Check' check.log; then
		echo "setup.sh: make check without Check did not say what is missing:" >&2
		cat check.log >&2
		return 1
	fi
}

install_deps
bootstrap
if [ "$what" = test ]; then npm_tools; fi
case $what in
demo)
	build build --enable-werror
	dump="$top/build/demo/demo.hprof"
	if [ ! -f "$dump" ]; then
		say "making a demo dump with the JDK on this machine"
		DUMP_NAME=demo sh "$top/tests/gen-dump.sh" "$top/build/demo"
	fi
	if [ -t 0 ] && [ -t 1 ]; then
		say "heapwalk $dump  (? lists the keys, q quits)"
		exec "$top/build/heapwalk" "$dump"
	fi
	say "no terminal: heapwalk classes $dump (open the browser with: build/heapwalk $dump)"
	"$top/build/heapwalk" classes --top 25 "$dump"
	;;
test)
	# The sanitizer build's make check is the longest part: it runs
	# beside all the rest, on every core too (a Check suite per test),
	# its output kept in a file and shown when it has ended; the script's
	# status is the first failure's. Configured as if inside tmux, which
	# sets TMUX to its socket: the terminal tests must still find tmux.
	# The dumps and programs that no build of heapwalk goes into (the
	# JVM workloads' dumps, the .NET workload's build: made by the
	# runtimes at test time) are made once for both builds' tests, by
	# whichever asks first, in a directory of their own named by a hash
	# of the workload and the runtime's version (tests/shared-fixture.sh)
	HEAPWALK_TEST_SHARED=$top/build-shared
	export HEAPWALK_TEST_SHARED
	say "build with AddressSanitizer and UBSan (configured with TMUX set), make check: beside the rest, shown at the end"
	san_log=$top/build-san.log
	(
		# at -O1, as the sanitizers' documentation advises: its build takes
		# 155 CPU-s where -O2's took 216, and its suites as long (sweepcli
		# and formats: 77 and 83 CPU-s at -O1, 75 and 86 at -O2); -O1's
		# warnings are errors too (-O2's are the other build's)
		TMUX=/tmp/tmux-0/default,4242,0 build build-san --enable-werror --enable-sanitizers CFLAGS="-g -O1"
		# Check's timeouts catch hangs only: four times as long under the
		# sanitizers, which run beside the rest (a busy machine took the
		# HPROF reader's every-prefix test past its 60 s)
		# ASan zeroes the shadow of a big block by remapping it: the next
		# block there faults every page in again, which on this kind of
		# machine (a VM, each fresh page a trip to the host) is most of the
		# suites' system time; zeroed in place instead (the checks are the
		# same: only how the shadow is cleared differs)
		ASAN_OPTIONS=detect_leaks=1:clear_shadow_mmap_threshold=1073741824 \
			CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4} check build-san
		say "the sanitizer build's make check has ended"
	) >"$san_log" 2>&1 </dev/null &
	san=$!
	san_end() {
		st=$?
		trap - EXIT
		san_st=0
		wait "$san" || san_st=$?
		say "the sanitizer build and its make check (exit status $san_st):"
		cat "$san_log"
		[ "$st" -ne 0 ] && exit "$st"
		exit "$san_st"
	}
	trap san_end EXIT

	say "build with -Werror, make check"
	build build --enable-werror
	# glibc's malloc keeps the big blocks it frees for the next ones
	# instead of unmapping them (mapped afresh, every page faulted in
	# again: a third of the suites' time was the system's); the tests
	# that need the other behaviour set it themselves
	(
		GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=4294967296
		export GLIBC_TUNABLES
		check build
	)
	say "configure without Check: heapwalk builds, make check says what is missing"
	nocheck
	# libFuzzer needs clang; the engine is instrumented, the fourteen
	# harnesses run 5 s each past their seeds, as many at a time as there
	# are processors (each one's seeds are run whole however long they
	# take: the HPROF one's 16 s; about 1.2 minutes of one in all, 2.6 at
	# 10 s: a smoke test that each one runs and finds
	# nothing on its seeds; make fuzz-long is the fuzzing), the HPROF and baseline
	# fuzzers seeded with the JDK dumps the first build's tests made too;
	# configured, built and run beside distcheck, the fuzzers and their
	# seed maker alone (make fuzz-smoke's own prerequisites: not the
	# program, which the other builds make)
	say "build with libFuzzer (clang) and make fuzz-smoke, beside make distcheck"
	fuzz_log=$top/build-fuzz.log
	(
		mkdir -p "$top/build-fuzz"
		cd "$top/build-fuzz"
		[ -f Makefile ] && [ Makefile -nt "$top/configure" ] ||
			"$top/configure" CC=clang --enable-fuzzing --enable-werror
		make -j"$jobs" fuzz-smoke FUZZ_SECONDS=5 FUZZ_LANES="$jobs" FUZZ_DUMPS="$top/build/tests/dumps"
	) >"$fuzz_log" 2>&1 </dev/null &
	fuzz=$!

	# distcheck's make check runs DISTCHECK_SUITES only (Makefile.am);
	# its build at -O0 (the tarball builds and its suites pass: the
	# optimised builds are the others)
	say "make distcheck"
	cd "$top/build"
	status=0
	make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS="--enable-werror CFLAGS=-O0" || status=$?
	say "make distcheck has ended (exit status $status)"
	if [ $status -ne 0 ]; then
		# the failing checks last, where a log's tail shows them
		for dir in heapwalk-*/_build/*/tests/suites; do
			[ -d "$dir" ] && failed_logs "$dir"
		done
	fi
	fuzz_st=0
	wait "$fuzz" || fuzz_st=$?
	say "the fuzzers' build and make fuzz-smoke (exit status $fuzz_st):"
	if [ $fuzz_st -eq 0 ]; then # the build's lines are many: the runs' alone
		sed -n '/^FUZZ_DUMPS=/,$p' "$fuzz_log"
	else
		cat "$fuzz_log"
	fi
	[ $status -ne 0 ] && exit $status
	exit $fuzz_st
	;;
*)
	echo "usage: sh contrib/setup.sh demo|test" >&2
	exit 1
	;;
esac
