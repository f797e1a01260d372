#!/bin/sh
# bench/threads/run.sh - threads in modules, native vs wasm, same run:
#  - mallocbench (many small mallocs/frees, a quarter freed by another
#    thread): glibc natively; libmpiwasm-malloc in wasm, and its one-lock
#    build for contrast; both libmpiwasm-malloc builds natively too;
#  - triad and spmv (OpenMP): gcc -fopenmp (libgomp) natively, clang over
#    libmpiwasm-omp natively, and mpiwasm-cc -fopenmp in wasm;
# at 1 and 2 threads, native and wasm alternating, best of RUNS.  Writes
# $OUT/results.txt, replaces the table between the bench-threads markers
# of bench/threads/REPORT.md and plots bench/threads/threads.png.
# Without a working mpiwasm-cc -pthread only the native rows are measured,
# and the report says so.
#   B=build RUNS=3 THREADS="1 2"
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
B=${B:-build}
B=$(cd "$B" && pwd) || exit 1
RUNS=${RUNS:-3}
THREADS=${THREADS:-1 2}
OUT=$B/bench/threads
mkdir -p "$OUT" || exit 1
NAT=$B/toolchain/native
OMPINC=$root/toolchain/libmpiwasm-omp/include
CLANG=${MPIWASM_CLANG:-clang-19}
MB_ROUNDS=${MB_ROUNDS:-400}
TRIAD_N=${TRIAD_N:-4000000}
SPMV_G=${SPMV_G:-64}

# ---- builds ----
set -e
gcc -std=gnu11 -O2 -pthread -o "$OUT/mb.glibc" "$here/mallocbench.c"
gcc -std=gnu11 -O2 -pthread -o "$OUT/mb.mine" "$here/mallocbench.c" "$NAT/libmpiwasm-malloc.a"
gcc -std=gnu11 -O2 -pthread -o "$OUT/mb.onelock" "$here/mallocbench.c" "$NAT/libmpiwasm-malloc-onelock.a"
for k in triad spmv; do
	gcc -std=gnu11 -O2 -fopenmp -o "$OUT/$k.gomp" "$here/$k.c"
	$CLANG -std=gnu11 -O2 -fopenmp=libomp -isystem "$OMPINC" -c -o "$OUT/$k.o" "$here/$k.c"
	$CLANG -o "$OUT/$k.mine" "$OUT/$k.o" "$NAT/libmpiwasm-omp.a" -pthread
done
set +e
wasm=1
why=""
if ! "$B/mpiwasm-cc" -O2 -pthread -o "$OUT/mb.wasm" "$here/mallocbench.c" > "$OUT/build.err" 2>&1; then
	wasm=0
	why=$(head -n 1 "$OUT/build.err")
else
	"$B/mpiwasm-cc" -O2 -pthread -o "$OUT/mb.onelock.wasm" "$here/mallocbench.c" \
		"$B/toolchain/wasm/malloc-onelock.o" &&
	"$B/mpiwasm-cc" -O2 -fopenmp -o "$OUT/triad.wasm" "$here/triad.c" &&
	"$B/mpiwasm-cc" -O2 -fopenmp -o "$OUT/spmv.wasm" "$here/spmv.c" || exit 1
	for w in mb mb.onelock triad spmv; do
		"$B/mpiwasm" compile "$OUT/$w.wasm" > /dev/null 2>&1   # fill the cache
	done
fi
[ "$wasm" = 0 ] && echo "bench-threads: no wasm rows: $why"

# run CONFIG THREADS: one line "kind threads seconds rate checksum".
run() {
	c=$1 t=$2
	case $c in
	mb.glibc|mb.mine|mb.onelock) timeout 600 "$OUT/$c" "$t" "$MB_ROUNDS" ;;
	mb.wasm|mb.onelock.wasm) timeout 600 "$B/mpiwasm" -q "$OUT/$c" "$t" "$MB_ROUNDS" ;;
	triad.gomp|triad.mine) OMP_NUM_THREADS=$t timeout 600 "$OUT/$c" "$TRIAD_N" ;;
	spmv.gomp|spmv.mine) OMP_NUM_THREADS=$t timeout 600 "$OUT/$c" "$SPMV_G" ;;
	triad.wasm) timeout 600 "$B/mpiwasm" -q --env OMP_NUM_THREADS="$t" "$OUT/$c" "$TRIAD_N" ;;
	spmv.wasm) timeout 600 "$B/mpiwasm" -q --env OMP_NUM_THREADS="$t" "$OUT/$c" "$SPMV_G" ;;
	esac
}

configs="mb.glibc mb.mine mb.onelock triad.gomp triad.mine spmv.gomp spmv.mine"
[ "$wasm" = 1 ] && configs="$configs mb.wasm mb.onelock.wasm triad.wasm spmv.wasm"
raw=$OUT/raw.txt
: > "$raw"
for r in $(seq 1 "$RUNS"); do
	for t in $THREADS; do
		for c in $configs; do
			line=$(run "$c" "$t" | tail -n 1)
			set -- $line
			if [ $# -ne 5 ]; then
				echo "bench-threads: $c at $t threads failed: $line"
				exit 1
			fi
			echo "$c $t $3 $4 $5" >> "$raw"
		done
	done
done
# Best (smallest) time of the runs per config and thread count.
sort -k1,1 -k2,2n -k3,3g "$raw" | awk '!seen[$1" "$2]++' > "$OUT/results.txt"
cat "$OUT/results.txt"
