#!/bin/sh
# bench/mpi/rma-run.sh - one-sided latency on an MPI_Win_allocate window,
# 2 ranks (bench/mpi/rma.c): native, wasm, and wasm on the bridge's
# former MPI_Win_allocate (MPI_Win_create over a block of the module's
# malloc, selected with MPIWASM_WIN_ALLOCATE_CREATE=1), all in this one
# invocation, alternating, 3 passes; each figure is the best.  Prints the
# table with the ratios to native.
#   B=build MPI=openmpi|mpich
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=${B:-build}
MPI=${MPI:-openmpi}
OUT=$B/bench/mpi/$MPI
mkdir -p "$OUT" || exit 1
. "$here/launcher.sh"
case $MPI in
openmpi) FWD="-x MPIWASM_WIN_ALLOCATE_CREATE" ;;
*) FWD= ;;
esac

$NCC -O2 -o "$OUT/rma" "$here/rma.c" || exit 1
"$B/mpiwasm-cc" -O2 -o "$OUT/rma.wasm" "$here/rma.c" || exit 1
"$B/mpiwasm" compile "$OUT/rma.wasm" >/dev/null 2>&1   # fill the cache first

run() {   # run native|wasm|old
	case $1 in
	native) set -- "$OUT/rma" ;;
	wasm) set -- "$B/mpiwasm -q $OUT/rma.wasm" ;;
	old) set -- "$B/mpiwasm -q $OUT/rma.wasm"
	     export MPIWASM_WIN_ALLOCATE_CREATE=1 ;;
	esac
	# shellcheck disable=SC2086
	timeout 600 nice $LAUNCH 2 $FWD $1 2>/dev/null | grep -E '^[a-z_]+ [0-9]+ '
	unset MPIWASM_WIN_ALLOCATE_CREATE
}
: > "$OUT/rma.native.txt"; : > "$OUT/rma.wasm.txt"; : > "$OUT/rma.old.txt"
for pass in 1 2 3; do
	for m in native wasm old; do
		run $m >> "$OUT/rma.$m.txt" || echo "bench/mpi/rma-run.sh: the $m run failed" >&2
	done
done
best() { awk '{ k = $1 " " $2; if (!(k in b) || $3 < b[k]) b[k] = $3; if (!(k in o)) { o[k] = ++c; key[c] = k } }
              END { for (i = 1; i <= c; i++) print key[i], b[key[i]] }' "$1"; }
best "$OUT/rma.native.txt" > "$OUT/rma.n"
best "$OUT/rma.wasm.txt" > "$OUT/rma.w"
best "$OUT/rma.old.txt" > "$OUT/rma.o"
echo "RMA on an MPI_Win_allocate window, 2 ranks, $MPI ($(date -u +%Y-%m-%d), $(nproc) cores)"
echo "| test | bytes | native us | wasm us | old wasm us | wasm/native | old/native |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
awk 'FILENAME == ARGV[1] { n[$1] = $3; next } FILENAME == ARGV[2] { w[$1] = $3; next }
     { o[$1] = $3; b[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; key[++c] = $1 } }
     END { for (i = 1; i <= c; i++) { k = key[i];
           printf "| %s | %s | %.3f | %.3f | %.3f | %.2f | %.2f |\n", k, b[k], n[k], w[k], o[k],
                  w[k] / n[k], o[k] / n[k] } }' "$OUT/rma.n" "$OUT/rma.w" "$OUT/rma.o"
