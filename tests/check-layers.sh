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
	util.* | progress.* | stream.* | config.h) echo 0 ;;
	graph/*) echo 1 ;;
	format/* | runtime/*) echo 2 ;;
	engine/*) echo 3 ;;
	query/*) echo 4 ;;
	tui/*) echo 5 ;;
	cli/*) echo 6 ;;
	*) echo '' ;;
	esac
}

# FILE HEADER pairs allowed against the order (none: keep it so)
allowed() {
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
