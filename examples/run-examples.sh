#!/bin/sh
# run-examples.sh - builds every example with mpiwasm-cc/mpiwasm-c++ and
# runs it under $MPIRUN on each rank count in $NP; a run passes when it
# exits 0, prints a line ending in " OK" (programs that check themselves)
# and, if $MPICC / $MPICXX work, prints the same lines as the native build.
# Called by `make check-examples` (examples/rules.mk) with B, NP, MPICC,
# MPICXX, MPIRUN set.
B=${B:-build}
NP=${NP:-2}
MPIRUN=${MPIRUN:-mpirun}
out=$B/examples/check
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
export MPIWASM_CACHE_DIR="$out/cache"
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# name, source, extra link flags, run arguments (the program's, after
# the module), mpiwasm options (before the module)
build() {
	src=examples/$2
	case $src in
	*.cpp) cc=$B/mpiwasm-c++ ncc=$MPICXX ;;
	*) cc=$B/mpiwasm-cc ncc=$MPICC ;;
	esac
	if ! $cc -O2 "$src" -o "$out/$1.wasm" $3 >"$out/$1.build.log" 2>&1; then
		bad "$1: $cc $src failed: $(head -1 "$out/$1.build.log")"
		return 1
	fi
	rm -f "$out/$1.native"
	if [ -n "$ncc" ] && command -v "$ncc" >/dev/null 2>&1; then
		$ncc -O2 "$src" -o "$out/$1.native" $3 >/dev/null 2>&1 || rm -f "$out/$1.native"
	fi
	return 0
}

run() {
	name=$1 np=$2 args=$3 opts=$4 pre=$5
	[ -n "$pre" ] && sh -c "$pre"
	# shellcheck disable=SC2086
	timeout 300 $MPIRUN -np "$np" "$B/mpiwasm" -q $opts "$out/$name.wasm" $args \
		>"$out/$name.$np.out" 2>"$out/$name.$np.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name np=$np: exit $rc: $(grep -v '^$' "$out/$name.$np.err" | head -2 | tr '\n' ' ')"
		return
	fi
	if ! grep -q ' OK$' "$out/$name.$np.out"; then
		bad "$name np=$np: no OK line: $(head -2 "$out/$name.$np.out" | tr '\n' ' ')"
		return
	fi
	if [ -x "$out/$name.native" ]; then
		[ -n "$pre" ] && sh -c "$pre"
		nargs=$(echo "$args" | sed "s|/ckpt|$out/ckpt|")
		# shellcheck disable=SC2086
		timeout 300 $MPIRUN -np "$np" "$out/$name.native" $nargs >"$out/$name.$np.native" 2>/dev/null
		if ! sort "$out/$name.$np.out" | sed "s|$out/ckpt|/ckpt|" >"$out/a" ||
		   ! sort "$out/$name.$np.native" | sed "s|$out/ckpt|/ckpt|" >"$out/b" ||
		   ! cmp -s "$out/a" "$out/b"; then
			bad "$name np=$np: output differs from the native build ($out/$name.$np.out vs .native)"
			return
		fi
		ok "$name np=$np: $(grep ' OK$' "$out/$name.$np.out" | head -1) (same as native)"
		return
	fi
	ok "$name np=$np: $(grep ' OK$' "$out/$name.$np.out" | head -1)"
}

build jacobi jacobi.c -lm && for np in $NP; do run jacobi "$np" 48; done
build userop userop.c -lm && for np in $NP; do run userop "$np"; done
build vecsort vecsort.cpp && for np in $NP; do run vecsort "$np" 20000; done
if build checkpoint checkpoint.c; then
	for np in $NP; do
		run checkpoint "$np" /ckpt "--dir $out/ckpt:/ckpt" "rm -rf '$out/ckpt' && mkdir '$out/ckpt'"
	done
fi
# mpi_ring prints no OK line; its exit status is its check.
if $B/mpiwasm-cc -O2 examples/mpi_ring.c -o "$out/ring.wasm" 2>"$out/ring.build.log"; then
	for np in $NP; do
		if timeout 120 $MPIRUN -np "$np" "$B/mpiwasm" -q "$out/ring.wasm" >"$out/ring.$np.out" 2>&1 &&
		   grep -q "^ring of $np: token $np (expect $np)" "$out/ring.$np.out"; then
			ok "mpi_ring np=$np"
		else
			bad "mpi_ring np=$np: $(head -2 "$out/ring.$np.out" | tr '\n' ' ')"
		fi
	done
else
	bad "mpi_ring: $(head -1 "$out/ring.build.log")"
fi
echo "examples: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
