#!/bin/sh
# run.sh B - translator checks that depend on the back-end C compiler:
# each .wast here is run by the spec runner once per compiler installed
# (gcc, clang-19, clang), each with its own cache; terminal*.wast a second
# time with spec_run -t (translated as `mpiwasm run` does: a trap ends the
# process).  Prints "xlate: N passed, N failed" (one count per file, mode
# and compiler).
B=${1:-build}
HERE=$(dirname "$0")
RUN=$B/tests/spec/spec_run
T=$(mktemp -d "${TMPDIR:-/tmp}/xlate-check.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
[ -x "$RUN" ] || { echo "src/xlate/test/run.sh: $RUN missing (make $RUN)" >&2; exit 1; }
pass=0; fail=0
for w in "$HERE"/*.wast; do
	n=$(basename "$w" .wast)
	modes=exact
	feat=
	case $n in terminal*) modes="exact terminal"; feat=--enable-threads ;; esac
	if ! wast2json $feat "$w" -o "$T/$n.json" 2>"$T/err"; then
		echo "FAIL $n: wast2json: $(head -n 1 "$T/err")"; fail=$((fail + 1)); continue
	fi
	for mode in $modes; do
	t=; [ $mode = terminal ] && t=-t
	for cc in gcc clang-19 clang; do
		command -v "$cc" >/dev/null || continue
		if MPIWASM_CC=$cc timeout 300 "$RUN" $t -c "$T/cache-$cc" "$T/$n.json" >"$T/out" 2>&1 &&
		   tail -n 1 "$T/out" | grep -q " 0 failed"; then
			pass=$((pass + 1))
		else
			echo "FAIL $n ($mode) with $cc:"; grep -v '^[[:space:]]*$' "$T/out" | head -n 5
			fail=$((fail + 1))
		fi
	done
	done
done
echo "xlate: $pass passed, $fail failed"
[ $fail = 0 ]
