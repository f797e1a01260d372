#!/bin/sh
# bench/mpi/rma-run.sh [rma|rma_shared] - one-sided latency, 2 ranks:
#   rma         an MPI_Win_allocate window (bench/mpi/rma.c); the old path
#               is MPI_Win_create over a block of the module's malloc
#               (MPIWASM_WIN_ALLOCATE_CREATE=1);
#   rma_shared  an MPI_Win_allocate_shared window (bench/mpi/rma_shared.c),
#               loads and stores through MPI_Win_shared_query's pointer,
#               Put and Get; the old path is the bridge's own shared
#               memory under MPI_Win_create (MPIWASM_WIN_SHARED_CREATE=1).
# Native, wasm, and wasm on the old path, all in this one invocation,
# alternating, 3 passes; each figure is the best.  Prints the table with
# the ratios to native.
#   B=build MPI=openmpi|mpich
#   BEFORE=/path/to/mpiwasm   the third column is that engine (e.g. one
#             built before a change) instead of the old path
set -u
BEFORE=${BEFORE:-}
PROG=${1:-rma}
case $PROG in
rma) OLD=MPIWASM_WIN_ALLOCATE_CREATE WHAT="an MPI_Win_allocate window" ;;
rma_shared) OLD=MPIWASM_WIN_SHARED_CREATE WHAT="an MPI_Win_allocate_shared window" ;;
*) echo "bench/mpi/rma-run.sh: rma or rma_shared" >&2; exit 1 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
B=${B:-build}
MPI=${MPI:-openmpi}
OUT=$B/bench/mpi/$MPI
mkdir -p "$OUT" || exit 1
. "$here/launcher.sh"
case $MPI in
openmpi) FWD="-x $OLD" ;;
*) FWD= ;;
esac

$NCC -O2 -o "$OUT/$PROG" "$here/$PROG.c" || exit 1
"$B/mpiwasm-cc" -O2 -o "$OUT/$PROG.wasm" "$here/$PROG.c" || exit 1
"$B/mpiwasm" compile "$OUT/$PROG.wasm" >/dev/null 2>&1   # fill the cache first

run() {   # run native|wasm|old
	case $1 in
	native) set -- "$OUT/$PROG" ;;
	wasm) set -- "$B/mpiwasm -q $OUT/$PROG.wasm" ;;
	old) if [ -n "$BEFORE" ]; then set -- "$BEFORE -q $OUT/$PROG.wasm"
	     else set -- "$B/mpiwasm -q $OUT/$PROG.wasm"; export "$OLD=1"; fi ;;
	esac
	# shellcheck disable=SC2086
	timeout 600 nice $LAUNCH 2 $FWD $1 2>/dev/null | grep -E '^[a-z_]+ [0-9]+ '
	unset "$OLD"
}
: > "$OUT/$PROG.native.txt"; : > "$OUT/$PROG.wasm.txt"; : > "$OUT/$PROG.old.txt"
for pass in 1 2 3; do
	for m in native wasm old; do
		run $m >> "$OUT/$PROG.$m.txt" || echo "bench/mpi/rma-run.sh: the $m run failed" >&2
	done
done
best() { awk '{ k = $1 " " $2; if (!(k in b) || $3 < b[k]) b[k] = $3; if (!(k in o)) { o[k] = ++c; key[c] = k } }
              END { for (i = 1; i <= c; i++) print key[i], b[key[i]] }' "$1"; }
best "$OUT/$PROG.native.txt" > "$OUT/$PROG.n"
best "$OUT/$PROG.wasm.txt" > "$OUT/$PROG.w"
best "$OUT/$PROG.old.txt" > "$OUT/$PROG.o"
echo "RMA on $WHAT, 2 ranks, $MPI ($(date -u +%Y-%m-%d), $(nproc) cores)"
old=old; [ -n "$BEFORE" ] && old=before
echo "| test | bytes | native us | wasm us | $old wasm us | wasm/native | $old/native |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
awk 'FILENAME == ARGV[1] { n[$1] = $3; next } FILENAME == ARGV[2] { w[$1] = $3; next }
     { o[$1] = $3; b[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; key[++c] = $1 } }
     END { for (i = 1; i <= c; i++) { k = key[i];
           printf "| %s | %s | %.3f | %.3f | %.3f | %.2f | %.2f |\n", k, b[k], n[k], w[k], o[k],
                  w[k] / n[k], o[k] / n[k] } }' "$OUT/$PROG.n" "$OUT/$PROG.w" "$OUT/$PROG.o"
