#!/bin/sh
# seeds.sh SRCDIR BUILDDIR OUT — the seed corpora of the fuzzers, made at
# build time (nothing binary is committed):
#   OUT/hprof  the synthetic dumps of fuzz/mkseeds, the test suite's JDK
#              dumps (in FUZZ_DUMPS, default BUILDDIR/tests/dumps, those up
#              to FUZZ_SEED_MAX bytes, default 4 MB), the recorded .NET
#              files of tests/dotnet and tests/mono (the harness opens any
#              format) and
#              fuzz/regress/hprof
#   OUT/cache  the real index cache of the cache fuzzer's dump
#   OUT/step   every step expression of the tests and the man page
#   OUT/rules  rules/*.rules
#   OUT/gz     gzip files made with gzip: the synthetic dumps whole (one
#              member) and in pieces of members concatenated, with a name
#              and without, one cut short, one padded with zeros
#   OUT/v8     a snapshot of a bare Node process (when node is there) and
#              fuzz/regress/v8
set -e
src=$1 build=$2 out=$3
max=${FUZZ_SEED_MAX:-4194304}
rm -rf "$out"
"$build/fuzz/mkseeds" "$out"
mkdir -p "$out/step" "$out/rules" "$out/v8"
dumps=${FUZZ_DUMPS:-$build/tests/dumps}
for d in "$dumps" "$dumps"/*; do
	for f in "$d"/*.hprof; do
		[ -f "$f" ] || continue
		[ "$(wc -c < "$f")" -le "$max" ] || continue
		cp "$f" "$out/hprof/jdk-$(basename "$d")-$(basename "$f")"
	done
done
cp "$src"/tests/dotnet/workload-1.nettrace "$src"/tests/dotnet/workload.gcdump "$src"/tests/mono/workload.mlpd "$out/hprof/"
cp "$src"/rules/*.rules "$out/rules/"
gz_seeds() {
	mkdir -p "$out/gz"
	i=0
	for f in "$out"/hprof/*.hprof; do
		[ -f "$f" ] && [ "$(wc -c < "$f")" -le 65536 ] || continue
		i=$((i + 1))
		[ $i -le 8 ] || break
		b=$out/gz/$(basename "$f" .hprof)
		gzip -c "$f" >"$b.gz"
		# members of 1 kB, as the JDK writes members of 1 MiB
		split -b 1024 "$f" "$b.part."
		for p in "$b".part.*; do gzip -n -1 -c "$p"; done >"$b.members.gz"
		rm -f "$b".part.*
		head -c $(($(wc -c < "$b.members.gz") * 2 / 3)) "$b.members.gz" >"$b.cut.gz"
		{ cat "$b.gz"; printf '\0\0\0\0\0\0\0\0'; } >"$b.padded.gz"
	done
}
gz_seeds
if command -v node > /dev/null 2>&1; then
	node -e "require('v8').writeHeapSnapshot(process.argv[1])" "$out/v8/node.heapsnapshot" > /dev/null
fi
for h in hprof cache step rules gz v8; do
	[ -d "$src/fuzz/regress/$h" ] || continue
	for f in "$src/fuzz/regress/$h"/*; do
		[ -f "$f" ] && cp "$f" "$out/$h/regress-$(basename "$f")"
	done
done

# Steps: C strings of the tests that start with a step's name (C escapes
# undone), -e '...' of the tests and the man page, and one of each step.
steps='all|instances|instanceof|retained|referrers|referents|dominated|object|new|old|gone|inspection|top|class-objects|elements|loaded'
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
LIST
} | sort -u | awk -v dir="$out/step" '{ f = sprintf("%s/e%03d", dir, NR); printf "%s", $0 > f; close(f) }'
echo "seeds: $(ls "$out/hprof" | wc -l) dumps, $(ls "$out/cache" | wc -l) cache, $(ls "$out/step" | wc -l) steps, $(ls "$out/rules" | wc -l) rules files, $(ls "$out/gz" | wc -l) gzip files, $(ls "$out/v8" | wc -l) V8 snapshots"
