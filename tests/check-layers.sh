#!/bin/sh
# check-layers.sh [SRCDIR [BUILDDIR]] — hold src/ to the layers src/README
# promises, and fail on the first thing against them:
#   includes  a file includes headers of its own layer and the layers
#             below it, never above (runtime/ is below format/); query/
#             and tui/ never include a reader's header (format/*.h), and
#             query/, tui/ and cli/ never touch a reader's h->fmt_data;
#   symbols   (nm over BUILDDIR's object files, so build first) no file
#             uses a symbol of a file in a higher layer; query/, tui/ and
#             cli/ call no reader's or runtime's function themselves
#             (struct format_ops and struct runtime_ops are the way: the
#             front ends parse nothing); no circle of calls between the
#             files of one layer (a table of ops a file refers to, data,
#             is dispatch, not a call).
# The exceptions below are known debts, each to go with the work named.
set -eu
src=${1:-${srcdir:-.}/src}
[ -d "$src" ] || src=$(dirname "$0")/../src
obj=${2:-.}
NM=${NM:-nm}

# layer ranks: a file may use its own layer and the ones below
layer() {
	case $1 in
	util.* | progress.* | stream.* | config.h) echo 0 ;;
	graph/*) echo 1 ;;
	runtime/*) echo 2 ;;
	format/*) echo 3 ;;
	engine/*) echo 4 ;;
	query/*) echo 5 ;;
	tui/*) echo 6 ;;
	cli/*) echo 7 ;;
	*) echo '' ;;
	esac
}

# FILE SYMBOL pairs allowed against the rules (keep them few)
allowed_syms='
'

bad=0
say() {
	echo "check-layers: $*"
	bad=1
}

# ---- includes ----
files=$(cd "$src" && find . -name '*.[ch]' | sed 's|^\./||' | sort)
for f in $files; do
	lf=$(layer "$f")
	[ -n "$lf" ] || { say "$f: in no layer (add it to tests/check-layers.sh and src/README)"; continue; }
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src/$f"); do
		li=$(layer "$inc")
		[ -n "$li" ] || continue # a generated or system header
		if [ "$li" -gt "$lf" ]; then
			say "src/$f includes $inc: ${f%%/*}/ is below ${inc%%/*}/"
		fi
		case $f:$inc in
		query/*:format/* | tui/*:format/*)
			say "src/$f includes $inc: query/ and tui/ read objects through graph/reader.h, never a reader's header" ;;
		esac
	done
	case $f in
	query/* | tui/* | cli/*)
		if grep -n 'fmt_data' "$src/$f" >/dev/null; then
			say "src/$f:$(grep -n 'fmt_data' "$src/$f" | head -1 | cut -d: -f1): reads h->fmt_data, the reader's own: go through struct runtime_ops or format_ops"
		fi ;;
	esac
done

# ---- symbols ----
# one line per symbol: SOURCE TYPE NAME (SOURCE as src/ names it)
objs=$(find "$obj/src" -name 'libheapwalk_a-*.o' -o -name 'heapwalk-*.o' 2>/dev/null | sort)
if [ -z "$objs" ]; then
	echo "check-layers: no object files under $obj/src: build first (make), the symbol checks read them" >&2
	exit 1
fi
# one nm for them all (-A: each line begins with its object's path; an
# nm each cost 70 ms to start, 8 s of the whole)
# shellcheck disable=SC2086
table=$($NM -P -A $objs | awk -v pre="$obj/src/" '
NF >= 3 {
	o = $1; sub(/:$/, "", o)
	s = substr(o, length(pre) + 1); n = split(s, part, "/"); b = part[n]
	d = substr(s, 1, length(s) - length(b))
	sub(/^libheapwalk_a-/, "", b); sub(/^heapwalk-/, "", b); sub(/\.o$/, ".c", b)
	print d b, $3, $2
}')
out=$(echo "$table" | awk -v allowed="$allowed_syms" '
function layer(f) {
	if (f ~ /^(util|progress|stream)\./) return 0
	if (f ~ /^graph\//) return 1
	if (f ~ /^runtime\//) return 2
	if (f ~ /^format\//) return 3
	if (f ~ /^engine\//) return 4
	if (f ~ /^query\//) return 5
	if (f ~ /^tui\//) return 6
	if (f ~ /^cli\//) return 7
	return -1
}
BEGIN { n = split(allowed, a, "\n"); for (i = 1; i <= n; i++) if (a[i] != "") ok[a[i]] = 1 }
$2 ~ /^[TDRBCVW]$/ { def[$3] = $1; if ($2 == "T" || $2 == "W") fn[$3] = 1; next }
$2 == "U" { nu++; uf[nu] = $1; us[nu] = $3 }
END {
	for (i = 1; i <= nu; i++) {
		f = uf[i]; s = us[i]; d = def[s]
		if (d == "" || d == f)
			continue
		lf = layer(f); ld = layer(d)
		if (ld > lf)
			print "src/" f " uses " s " of src/" d ": a layer below uses one above"
		if (lf >= 5 && (ld == 2 || ld == 3) && !((f " " s) in ok))
			print "src/" f " calls " s " of src/" d ": above the engine, a reader or runtime is reached through struct format_ops / runtime_ops"
		if (lf == ld && (s in fn)) {
			if (!((f, d) in edge)) { edge[f, d] = s; nodes[f] = 1; nodes[d] = 1 }
			else if (index(" " edge[f, d] " ", " " s " ") == 0) edge[f, d] = edge[f, d] " " s
		}
	}
	# circles: reach over the calls within each layer (Floyd-Warshall)
	for (e in edge) { split(e, p, SUBSEP); reach[p[1], p[2]] = 1 }
	for (k in nodes) for (i in nodes) if ((i, k) in reach) for (j in nodes)
		if ((k, j) in reach && layer(i) == layer(j)) reach[i, j] = 1
	for (e in edge) {
		split(e, p, SUBSEP)
		if ((p[2], p[1]) in reach)
			print "src/" p[1] " calls src/" p[2] " (" edge[e] ") and is called back: a circle in one layer"
	}
}' | sort)
if [ -n "$out" ]; then
	echo "$out" | sed 's/^/check-layers: /'
	bad=1
fi
[ $bad -eq 0 ] && echo "check-layers: $(echo "$files" | wc -l) files, $(echo "$objs" | wc -l) objects: no include or call against the layers, no circle"
exit $bad
