#!/bin/sh
# seeds.sh SRCDIR BUILDDIR OUT — the seed corpora of the fuzzers, made at
# build time (nothing binary is committed), each with the fuzzer's
# fuzz/regress/NAME inputs:
#   OUT/hprof     the synthetic dumps of fuzz/mkseeds (two of them an
#                 agent's, before and after a mark), the test suite's JDK
#                 dumps (in FUZZ_DUMPS, default BUILDDIR/tests/dumps, those
#                 up to FUZZ_SEED_MAX bytes, default 4 MB)
#   OUT/nettrace  the recorded .NET traces of tests/dotnet
#   OUT/gcdump    the .gcdump of tests/dotnet
#   OUT/mlpd      the Mono heapshots of tests/mono
#   OUT/v8        a snapshot of a bare Node process (when node is there)
#   OUT/baseline  pairs of one format (fuzz/drive.h: H OLD SEP NEW): the
#                 agent's two synthetic phases, the JDK dumps' pairs
#                 (agent-*/before, after; match/a, b) that fit in
#                 FUZZ_SEED_MAX together, the two nettrace traces, the
#                 .gcdump against itself, heapshots of the .mlpd (1 to 2,
#                 1 to 3, 2 to 4, the last against itself), two small V8
#                 snapshots
#   OUT/clrmark   the recorded .NET marks of tests/dotnet (fuzz/drive.h:
#                 G D [GC] MARK SEP REC SEP SNAP [SEP PATCH])
#   OUT/cache     the real index caches of the cache fuzzer's dumps, one of
#                 each format
#   OUT/step      every step expression of the tests and the man page
#   OUT/rules     rules/*.rules
#   OUT/gates     fuzz/regress/gates alone: files of check's gates
#   OUT/devtools  fuzz/regress/devtools alone: what a real Node inspector
#                 sent (fuzz/devtools-record.py), each behind its mode byte
#   OUT/mcp       fuzz/regress/mcp alone: sessions of heapwalk mcp, a
#                 message a line (its rich dump open as d1)
#   OUT/gz        gzip files made with gzip: the synthetic dumps whole (one
#                 member) and in pieces of members concatenated, with a name
#                 and without, one cut short, one padded with zeros
set -e
src=$1 build=$2 out=$3
max=${FUZZ_SEED_MAX:-4194304}
rm -rf "$out"
"$build/fuzz/mkseeds" "$out"
mkdir -p "$out/step" "$out/rules" "$out/gates" "$out/v8" "$out/nettrace" "$out/gcdump" "$out/mlpd" "$out/baseline" \
	"$out/clrmark" "$out/devtools" "$out/mcp"
dumps=${FUZZ_DUMPS:-$build/tests/dumps}
size() { wc -c < "$1"; }
for d in "$dumps" "$dumps"/*; do
	for f in "$d"/*.hprof; do
		[ -f "$f" ] || continue
		[ "$(size "$f")" -le "$max" ] || continue
		cp "$f" "$out/hprof/jdk-$(basename "$d")-$(basename "$f")"
	done
done
cp "$src"/tests/dotnet/*.nettrace "$out/nettrace/"
cp "$src"/tests/dotnet/*.gcdump "$out/gcdump/"
cp "$src"/tests/mono/*.mlpd "$out/mlpd/"
cp "$src"/rules/*.rules "$out/rules/"

# pair NAME H OLD [NEW]: a baseline input; H the heapshots byte, 0-255
pair() {
	{
		printf "\\$(printf '%03o' "$2")"
		cat "$3"
		printf '\n==> NEW <==\n'
		[ -z "$4" ] || cat "$4"
	} >"$out/baseline/$1"
}
baseline_seeds() {
	pair agent-phases 0 "$out/hprof/agent-1.hprof" "$out/hprof/agent-2.hprof"
	pair agent-itself 0 "$out/hprof/agent-2.hprof"
	pair plain-hprof 0 "$out/hprof/sample.hprof" "$out/hprof/rich.hprof"
	for a in "$dumps"/agent-*/before.hprof "$dumps"/match/a.hprof; do
		case $a in
		*/before.hprof) b=${a%before.hprof}after.hprof ;;
		*) b=${a%a.hprof}b.hprof ;;
		esac
		[ -f "$a" ] && [ -f "$b" ] && [ $(($(size "$a") + $(size "$b"))) -le "$max" ] || continue
		pair "jdk-$(basename "$(dirname "$a")")" 0 "$a" "$b"
	done
	pair nettrace 0 "$src/tests/dotnet/workload-1.nettrace" "$src/tests/dotnet/workload-2.nettrace"
	pair gcdump-itself 0 "$src/tests/dotnet/workload.gcdump"
	m=$src/tests/mono/workload.mlpd
	pair mlpd-1-2 $((2 * 16 + 1)) "$m"
	pair mlpd-1-3 $((3 * 16 + 1)) "$m"
	pair mlpd-2-4 $((4 * 16 + 2)) "$m"
	pair mlpd-itself 0 "$m"
	pair v8-small-tracked 0 "$src/fuzz/regress/v8/small" "$src/fuzz/regress/v8/tracked"
}
baseline_seeds
# the recorded .NET marks (tests/dotnet/README: the mark's GC 2, the
# snapshot's 7), whole, without its recorder's stream, and with a patch
# over its mark file
clrmark_seeds() {
	d=$src/tests/dotnet
	{
		printf "$2"
		cat "$d/$3-heap.nettrace"
		printf '\n==> REC <==\n'
		[ "$1" = norec ] || cat "$d/$3-rec.nettrace"
		printf '\n==> SNAP <==\n'
		cat "$d/$3-snap.nettrace"
		[ "$1" != patch ] || printf '\n==> HWMARK <==\n\020\000\000\000\377'
	} >"$out/clrmark/recorded-$3-$1"
}
clrmark_seeds whole '\002\005' mark
clrmark_seeds norec '\002\005' mark
clrmark_seeds patch '\002\005' mark
# and those with background GCs (GCs 1753 to 1768; the server GC's, 13 to 25)
clrmark_seeds whole '\000\017\331\006\000\000' mark-bgc
clrmark_seeds patch '\000\017\331\006\000\000' mark-bgc
clrmark_seeds whole '\015\014' mark-sbgc
gz_seeds() {
	mkdir -p "$out/gz"
	i=0
	for f in "$out"/hprof/*.hprof; do
		[ -f "$f" ] && [ "$(size "$f")" -le 65536 ] || continue
		i=$((i + 1))
		[ $i -le 8 ] || break
		b=$out/gz/$(basename "$f" .hprof)
		gzip -c "$f" >"$b.gz"
		# members of 1 kB, as the JDK writes members of 1 MiB
		split -b 1024 "$f" "$b.part."
		for p in "$b".part.*; do gzip -n -1 -c "$p"; done >"$b.members.gz"
		rm -f "$b".part.*
		head -c $(($(size "$b.members.gz") * 2 / 3)) "$b.members.gz" >"$b.cut.gz"
		{ cat "$b.gz"; printf '\0\0\0\0\0\0\0\0'; } >"$b.padded.gz"
	done
}
gz_seeds
if command -v node > /dev/null 2>&1; then
	node -e "require('v8').writeHeapSnapshot(process.argv[1])" "$out/v8/node.heapsnapshot" > /dev/null
fi
for h in hprof nettrace gcdump mlpd v8 baseline clrmark cache step rules gates gz devtools mcp; do
	[ -d "$src/fuzz/regress/$h" ] || continue
	for f in "$src/fuzz/regress/$h"/*; do
		[ -f "$f" ] && cp "$f" "$out/$h/regress-$(basename "$f")"
	done
done

# Steps: C strings of the tests that start with a step's name (C escapes
# undone), -e '...' of the tests and the man page, and one of each step.
steps='all|instances|instanceof|retained|referrers|referents|dominated|object|new|old|gone|inspection|top|class-objects|elements|loaded|unreachable|live|unidentified'
{
	grep -hoE "\"($steps)( [^\"]*)?\"" "$src"/tests/*.c |
		sed -e 's/^"//' -e 's/"$//' -e 's/\\\\/\\/g'
	grep -hoE "\-e '[^'%]*'" "$src"/tests/*.c "$src"/man/heapwalk.1 |
		sed -e "s/^-e '//" -e "s/'\$//" -e 's/\\\\/\\/g'
	cat <<'LIST'
all | retained | biggest
instances java.lang.String | referrers weak | dominated | objects
instanceof /^java\.lang\..*/ | referents | top | class-objects | info
instances java.lang.ClassLoader | loaded | merged-out
instances [Ljava.lang.Object; | elements keys | elements values | merged-in
object 0x3011,0x3013 | referrers | merged-dom
object 12289 | paths
inspection duplicate-strings group 1 | allocations
inspection string-regex /dup/ group 1
inspection largest-arrays 3 group 1 | retained
new | old
unreachable | classes
live | biggest
new | unidentified | classes
LIST
} | sort -u | awk -v dir="$out/step" '{ f = sprintf("%s/e%03d", dir, NR); printf "%s", $0 > f; close(f) }'
n() { ls "$out/$1" | wc -l; }
echo "seeds: $(n hprof) HPROF dumps, $(n nettrace) nettrace, $(n gcdump) gcdump, $(n mlpd) mlpd," \
	"$(n v8) V8 snapshots, $(n baseline) baseline pairs, $(n clrmark) .NET marks, $(n cache) cache," \
	"$(n step) steps," \
	"$(n rules) rules files, $(n gz) gzip files, $(n devtools) inspector recordings"
