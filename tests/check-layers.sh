#!/bin/sh
# check-layers.sh [SRCDIR] — fail when a file of a lower layer of src/
# includes a header of a higher one (src/README lists the layers). The
# exceptions below are known debts, each to go with the work named.
set -eu
src=${1:-${srcdir:-.}/src}
[ -d "$src" ] || src=$(dirname "$0")/../src

# layer numbers: a file may include its own layer and the ones below
layer() {
	case $1 in
	util.* | progress.* | config.h) echo 0 ;;
	graph/*) echo 1 ;;
	format/*) echo 2 ;;
	query/*) echo 3 ;;
	tui/*) echo 4 ;;
	cli/*) echo 5 ;;
	*) echo '' ;;
	esac
}

# FILE HEADER pairs allowed against the order: the graph still decodes
# HPROF records itself (until the format seam: a builder interface the
# readers call, and open.c above both)
allowed() {
	case "$1 $2" in
	"graph/build.c format/hprof.h" | "graph/classes.c format/hprof.h" | \
	"graph/jcoll.c format/hprof.h" | "graph/open.c format/hprof.h" | \
	"graph/build.c format/hprof_record.h" | "graph/classes.c format/hprof_record.h" | \
	"graph/idindex.c format/hprof_record.h") return 0 ;;
	esac
	return 1
}

bad=0
files=$(cd "$src" && find . -name '*.[ch]' | sed 's|^\./||' | sort)
for f in $files; do
	lf=$(layer "$f")
	[ -n "$lf" ] || { echo "check-layers: $f: in no layer (add it to tests/check-layers.sh and src/README)"; bad=1; continue; }
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src/$f"); do
		li=$(layer "$inc")
		[ -n "$li" ] || continue # a generated or system header
		if [ "$li" -gt "$lf" ] && ! allowed "$f" "$inc"; then
			echo "check-layers: src/$f includes $inc: layer $lf may not include layer $li"
			bad=1
		fi
	done
done
[ $bad -eq 0 ] && echo "check-layers: $(echo "$files" | wc -l) files, no include against the layers"
exit $bad
