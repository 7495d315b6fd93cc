# jvm-lib.sh — sourced by the scripts that drive a test JVM. Expects
# $out (the output directory, holding jvm.log), $pid (the JVM) and
# $prog (the script's name, for messages).

JAVA=${JAVA:-java} JAVAC=${JAVAC:-javac} JCMD=${JCMD:-jcmd}
# javac's own JVM with the quick compiler only and one GC thread: half
# its processor time (as gen-dump.sh)
JAVAC_OPTS=${JAVAC_OPTS--J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC}

# workload NAME: a fresh $out (made absolute) with tests/java/NAME.java
# compiled into $out/classes.
workload() {
	rm -rf "$out"
	mkdir -p "$out/classes"
	out=$(cd "$out" && pwd)
	# shellcheck disable=SC2086
	"$JAVAC" $JAVAC_OPTS -d "$out/classes" "$(cd "$(dirname "$0")" && pwd)/java/$1.java"
}

pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# wait_for WORD: until the JVM prints a line starting with WORD (2 min).
wait_for() {
	i=0
	until grep -q "^$1" "$out/jvm.log" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 1200 ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "$prog: the JVM did not print $1; its output:" >&2
			cat "$out/jvm.log" >&2
			exit 1
		fi
		sleep 0.1
	done
}
