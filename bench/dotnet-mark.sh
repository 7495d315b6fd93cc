#!/bin/sh
# dotnet-mark.sh HEAPWALK DIR [MILLIONS] [SECONDS] — what heapwalk mark's
# recorder costs a .NET process: bench/dotnet's process (MILLIONS of
# objects, default 6) replaces orders for SECONDS (default 20) four
# times: to warm up, unmarked, marked (the recorder following every GC),
# and after
# the snapshot that ends the recorder; each time it says its operations
# per second, its GCs and the time they paused it. Then the snapshot's
# own time (the dump and the replay). Built into DIR; run by hand (a
# measure, not a test).
set -e
hw=$1 dir=$2 m=${3:-6} secs=${4:-20}
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/src"
if [ ! -x "$dir/out/HeapBench" ] || [ "$src/dotnet/Program.cs" -nt "$dir/out/HeapBench" ]; then
	cp "$src/dotnet/Program.cs" "$src/dotnet/HeapBench.csproj" "$dir/src/"
	(cd "$dir/src" && DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet build -c Release -o ../out >/dev/null)
fi
rm -f "$dir/ctl" "$dir/log" "$dir/bench.nettrace" "$dir/bench.nettrace.hwmark"
mkfifo "$dir/ctl"
"$dir/out/HeapBench" "$m" < "$dir/ctl" > "$dir/log" 2>&1 &
exec 3>"$dir/ctl"
until grep -q '^pid' "$dir/log"; do sleep 1; done
pid=$(sed -n 's/^pid \([0-9]*\).*/\1/p' "$dir/log")
churn() {
	n=$(grep -c '^churn' "$dir/log" || true)
	echo "churn $secs" >&3
	until [ "$(grep -c '^churn' "$dir/log")" -gt "$n" ]; do sleep 1; done
	echo "$1: $(grep '^churn' "$dir/log" | tail -1)"
}
echo "churn $secs" >&3 # warming up: the JIT's tiers, the GC's budgets
until grep -q '^churn' "$dir/log"; do sleep 1; done
churn "unmarked"
t0=$(date +%s.%N)
"$hw" mark "$pid"
echo "mark took $(echo "$(date +%s.%N) - $t0" | bc) s"
churn "recorder on"
t0=$(date +%s.%N)
"$hw" snapshot "$pid" "$dir/bench.nettrace"
echo "snapshot (dump, recorder ended, replay) took $(echo "$(date +%s.%N) - $t0" | bc) s"
churn "after"
exec 3>&-
wait
