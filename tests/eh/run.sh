#!/bin/sh
# tests/eh/run.sh B FILE.json... - the exception handling .wast files
# (converted to FILE.json by rules.mk), run by the spec harness once per C
# compiler the engine may use (cc, and clang-19 when installed: the
# translation relies on __builtin_setjmp/__builtin_longjmp, so both
# compilers' code must be right).  Prints "eh: N passed, N failed", N
# counting assertions.
B=$1
shift
RUN=$B/tests/spec/spec_run
T=$(mktemp -d "${TMPDIR:-/tmp}/mpiwasm-eh.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
for cc in cc clang-19; do
	command -v "$cc" > /dev/null || { echo "eh: $cc not installed, not run with it"; continue; }
	for j in "$@"; do
		n=$(basename "$j" .json)
		MPIWASM_CC=$cc timeout 600 "$RUN" -c "$T/cache-$cc" "$j" > "$T/out" 2>&1
		pf=$(tail -n 1 "$T/out" | sed -n 's/^.*: \([0-9]*\) passed, \([0-9]*\) failed, .*$/\1 \2/p')
		if [ -z "$pf" ]; then
			echo "FAIL $n with $cc: no summary"; sed 's/^/  | /' "$T/out" | head -n 8
			fail=$((fail + 1))
			continue
		fi
		p=${pf% *} f=${pf#* }
		pass=$((pass + p)) fail=$((fail + f))
		echo "$n with $cc: $p passed, $f failed"
		[ "$f" = 0 ] || grep -v '^[[:space:]]*$' "$T/out" | head -n 10
	done
done
echo "eh: $pass passed, $fail failed"
[ "$fail" = 0 ]
