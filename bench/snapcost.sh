#!/bin/sh
# snapcost.sh SRCDIR BUILDDIR OUTDIR — part of `make bench`: what a
# snapshot of a live process costs, per runtime, heapwalk's against the
# runtime's own tool on the same process (heaps of about 1.5 M objects,
# more for .NET): the target's pause as the target saw it (the longest a
# thread of its own, a 1 ms sleep or timer, was held: bench/snapcost/
# Hold.java, hold.js, bench/dotnet), the processor time the target spent
# (its utime + stime before and after) and how far its RSS rose above
# what it was (its VmHWM reset first: what a writer inside it costs it),
# the client's wall, processor time and peak RSS, and the file's size.
# Prints figures; asserts nothing. A runtime or a peer that is absent is
# skipped with a line.
set -u
src=$1 build=$2 out=$3/snapcost
mkdir -p "$out"
hw=$build/heapwalk
tick=$(getconf CLK_TCK)

# the target's processor time so far, in ticks
cpu_of() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

# start NAME CMD...: CMD as the target, its standard input a FIFO held on
# fd 8, its output in $out/NAME.log; waits for its "pid P" line and sets
# $pid to P (the process itself, not a wrapper).
start() {
	name=$1
	shift
	rm -f "$out/$name.in" "$out/$name.log"
	mkfifo "$out/$name.in"
	"$@" <"$out/$name.in" >"$out/$name.log" 2>&1 &
	exec 8>"$out/$name.in"
	i=0
	until grep -q '^pid ' "$out/$name.log"; do
		sleep 0.2
		i=$((i + 1))
		[ $i -lt 1500 ] || { echo "$name: did not start: $(cat "$out/$name.log")"; return 1; }
	done
	pid=$(awk '/^pid / { print $2; exit }' "$out/$name.log")
	echo "== $name: $(head -1 "$out/$name.log")"
}

# stall: the target's longest hold since the last ask, in ms
stall() {
	n=$(grep -c '^stall_ms' "$out/$name.log")
	echo stall >&8
	i=0
	until [ "$(grep -c '^stall_ms' "$out/$name.log")" -gt "$n" ]; do
		sleep 0.1
		i=$((i + 1))
		[ $i -lt 6000 ] || break
	done
	grep '^stall_ms' "$out/$name.log" | tail -1 | awk '{ print $2 }'
}

# the target's peak RSS reset to its RSS now (clear_refs 5), and later
# how far above that RSS it went meanwhile, in MB ("?" where the kernel
# does not let us reset it): what a writer inside the target costs it
hwm_reset() {
	rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	echo 5 2>/dev/null >"/proc/$pid/clear_refs" || rss0=
}
hwm_growth() {
	if [ -n "$rss0" ]; then
		awk -v r="$rss0" '/^VmHWM:/ { printf "%d", ($2 - r) / 1024 }' "/proc/$pid/status"
	else
		echo "?"
	fi
}

stop() {
	exec 8>&-
	rm -f "$out/$name.in"
	wait 2>/dev/null
}

# cost LABEL FILE CMD...: CMD takes a snapshot of $pid into FILE
cost() {
	label=$1 file=$2
	shift 2
	stall >/dev/null # from now
	hwm_reset
	c0=$(cpu_of "$pid")
	/usr/bin/time -f '%e %U %S %M' -o "$out/time" "$@" >/dev/null 2>"$out/$label.err" || {
		echo "${label}: failed: $(head -c 300 "$out/$label.err")"
		return 0
	}
	c1=$(cpu_of "$pid")
	s=$(stall)
	set -- $(cat "$out/time")
	echo "$label: target_pause_ms: $s  target_cpu_s: $(echo "$c0 $c1 $tick" | awk '{ printf "%.2f", ($2 - $1) / $3 }')" \
		" target_rss_growth_mb: $(hwm_growth)" \
		" client_wall_s: $1  client_cpu_s: $(echo "$2 $3" | awk '{ printf "%.2f", $1 + $2 }')" \
		" client_peak_rss_mb: $(($4 / 1024))  file_mb: $(($(stat -c %s "$file" 2>/dev/null || echo 0) / 1048576))"
}

if ! [ -x /usr/bin/time ]; then
	echo "snapshot cost: no /usr/bin/time: skipped"
	exit 0
fi

# JVM: heapwalk's agent snapshot (tags as ids, after a full GC), the
# attach's own heap dump without the agent (--plain: HotSpot's writer,
# as jcmd's), then jcmd GC.heap_dump.
agent=$build/contrib/agent/libheapwalk-agent.so
if command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1; then
	mkdir -p "$out/classes"
	javac -d "$out/classes" "$src/bench/snapcost/Hold.java"
	if start jvm java -Xmx3g -cp "$out/classes" Hold 1.5; then
		rm -f "$out"/jvm-*.hprof
		# the first tags every object; the second only what is new
		if [ -f "$agent" ]; then
			HEAPWALK_AGENT=$agent cost jvm_heapwalk_snapshot_first "$out/jvm-agent.hprof" \
				"$hw" snapshot "$pid" "$out/jvm-agent.hprof"
			HEAPWALK_AGENT=$agent cost jvm_heapwalk_snapshot_again "$out/jvm-agent2.hprof" \
				"$hw" snapshot "$pid" "$out/jvm-agent2.hprof"
		else
			echo "jvm_heapwalk_snapshot: no agent built ($agent): skipped"
		fi
		if "$hw" --help 2>&1 | grep -q -- '--plain'; then
			cost jvm_heapwalk_snapshot_plain "$out/jvm-plain.hprof" "$hw" snapshot --plain "$pid" "$out/jvm-plain.hprof"
		fi
		if command -v jcmd >/dev/null 2>&1; then
			cost jvm_jcmd_gc_heap_dump "$out/jvm-jcmd.hprof" jcmd "$pid" GC.heap_dump "$out/jvm-jcmd.hprof"
		else
			echo "jvm_jcmd_gc_heap_dump: no jcmd (a JRE only): the peer skipped"
		fi
		for f in "$out"/jvm-*.hprof; do
			[ -f "$f" ] && echo "$(basename "$f"): $("$hw" -q --no-cache info "$f" | grep '^objects:')"
		done
		stop
		rm -f "$out"/jvm-*.hprof "$out"/jvm-*.hprof.hwi
	fi
else
	echo "snapshot cost: no JDK: the JVM skipped"
fi

# Node: heapwalk's snapshot over the inspector, then Node's own writer
# (--heapsnapshot-signal: the process writes it on its main thread).
if command -v node >/dev/null 2>&1; then
	rm -f "$out"/Heap.*.heapsnapshot "$out"/node-*.heapsnapshot
	pid=
	start node node --heapsnapshot-signal=SIGUSR2 --diagnostic-dir="$out" "$src/bench/snapcost/hold.js" 1.5
	if [ -n "${pid:-}" ] && [ -d "/proc/$pid" ]; then
		cost node_heapwalk_snapshot "$out/node-hw.heapsnapshot" "$hw" snapshot "$pid" "$out/node-hw.heapsnapshot"
		# Node's own: the signal, then the file whole (the process
		# answers "stall" only when its main thread is free again)
		stall >/dev/null
		hwm_reset
		c0=$(cpu_of "$pid")
		t0=$(date +%s.%N)
		kill -USR2 "$pid"
		sleep 1
		s=$(stall)
		t1=$(date +%s.%N)
		c1=$(cpu_of "$pid")
		f=$(ls "$out"/Heap.*.heapsnapshot 2>/dev/null | head -1)
		echo "node_heapsnapshot_signal: target_pause_ms: $s  target_cpu_s: $(echo "$c0 $c1 $tick" |
			awk '{ printf "%.2f", ($2 - $1) / $3 }')  target_rss_growth_mb: $(hwm_growth)" \
			" wall_s: $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')" \
			" file_mb: $(($(stat -c %s "$f" 2>/dev/null || echo 0) / 1048576))"
		for f in "$out"/node-hw.heapsnapshot "$out"/Heap.*.heapsnapshot; do
			[ -f "$f" ] && echo "$(basename "$f"): $("$hw" -q --no-cache info "$f" | grep '^objects:')"
		done
		stop
		rm -f "$out"/Heap.*.heapsnapshot* "$out"/node-*.heapsnapshot*
	fi
else
	echo "snapshot cost: no node: Node skipped"
fi

# .NET: heapwalk's snapshot over the diagnostics socket, then
# dotnet-gcdump collect, on bench/dotnet's process of 5 M objects (built
# into OUTDIR/dotnet/out, as run.sh's .NET part does).
dn=$3/dotnet
heapbench=$dn/out/HeapBench
if command -v dotnet >/dev/null 2>&1 &&
	{ ! [ -x "$heapbench" ] || [ "$src/bench/dotnet/Program.cs" -nt "$heapbench" ]; }; then
	rm -rf "$dn/src" "$dn/out" && mkdir -p "$dn/src"
	cp "$src/bench/dotnet/Program.cs" "$src/bench/dotnet/HeapBench.csproj" "$dn/src/"
	(cd "$dn/src" && DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet build -c Release -o ../out >/dev/null)
fi
if [ -x "$heapbench" ]; then
	if start dotnet "$heapbench" 5; then
		rm -f "$out"/dotnet-*
		cost dotnet_heapwalk_snapshot "$out/dotnet-hw.nettrace" "$hw" snapshot "$pid" "$out/dotnet-hw.nettrace"
		# a global tool is installed into ~/.dotnet/tools, which PATH
		# often lacks
		gcdump=$(command -v dotnet-gcdump 2>/dev/null || true)
		[ -z "$gcdump" ] && [ -x "${HOME:-/nonexistent}/.dotnet/tools/dotnet-gcdump" ] &&
			gcdump=$HOME/.dotnet/tools/dotnet-gcdump
		if [ -n "$gcdump" ]; then
			cost dotnet_gcdump_collect "$out/dotnet-gcdump.gcdump" "$gcdump" collect -p "$pid" \
				-o "$out/dotnet-gcdump.gcdump"
		else
			echo "dotnet_gcdump_collect: no dotnet-gcdump (dotnet tool install -g dotnet-gcdump): the peer skipped"
		fi
		stop
		rm -f "$out"/dotnet-*
	fi
else
	echo "snapshot cost: no .NET SDK: .NET skipped"
fi
