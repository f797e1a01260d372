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
MB_OPS=${MB_OPS:-2000000}
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
	mb.glibc|mb.mine|mb.onelock) timeout 600 "$OUT/$c" "$t" "$MB_OPS" ;;
	mb.wasm|mb.onelock.wasm) timeout 600 "$B/mpiwasm" -q "$OUT/$c" "$t" "$MB_OPS" ;;
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
			if [ $# -lt 5 ]; then
				echo "bench-threads: $c at $t threads failed: $line"
				exit 1
			fi
			echo "$c $t $3 $4 $5 ${6:-}" >> "$raw"
		done
	done
done
# Best (smallest) time of the runs per config and thread count.
sort -k1,1 -k2,2n -k3,3g "$raw" | awk '!seen[$1" "$2]++' > "$OUT/results.txt"
cat "$OUT/results.txt"

# ---- the report table and the plot ----
# val CONFIG THREADS FIELD (3 seconds, 4 rate)
val() { awk -v c="$1" -v t="$2" -v f="$3" '$1 == c && $2 == t { print $f }' "$OUT/results.txt"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }
table=$OUT/table.md
{
	echo "Best of $RUNS runs, native and wasm alternating; this machine has 2 cores"
	echo "shared with other jobs (load average $(cut -d' ' -f1-3 /proc/loadavg))."
	[ "$wasm" = 0 ] && echo "No wasm rows: $why."
	echo
	echo "mallocbench: Mops/s, then elapsed seconds (and natively CPU seconds of all"
	echo "threads) of the best run.  In wasm getrusage is emulated with elapsed time,"
	echo "so there is no CPU figure."
	echo
	echo "| threads | native glibc | native, project allocator | native, one lock | wasm, project allocator | wasm, one lock | wasm / glibc (elapsed) |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	cell() { printf '%s (%s, %s)' "$(val "$1" "$2" 4)" "$(val "$1" "$2" 3)" "$(val "$1" "$2" 6)"; }
	wcell() { printf '%s (%s)' "$(val "$1" "$2" 4)" "$(val "$1" "$2" 3)"; }
	for t in $THREADS; do
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$t" \
			"$(cell mb.glibc "$t")" "$(cell mb.mine "$t")" "$(cell mb.onelock "$t")" \
			"$(wcell mb.wasm "$t")" "$(wcell mb.onelock.wasm "$t")" \
			"$(ratio "$(val mb.wasm "$t" 3)" "$(val mb.glibc "$t" 3)")"
	done
	echo
	echo "| kernel | threads | native gcc + libgomp | native clang + libmpiwasm-omp | wasm + libmpiwasm-omp | wasm / libgomp (time) | clang+ours / libgomp |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	for k in triad spmv; do
		u=GB/s
		[ "$k" = spmv ] && u=GFlop/s
		for t in $THREADS; do
			g=$(val $k.gomp "$t" 3) m=$(val $k.mine "$t" 3) w=$(val $k.wasm "$t" 3)
			printf '| %s %s (ms) | %s | %s (%s) | %s (%s) | %s (%s) | %s | %s |\n' "$k" "$u" "$t" \
				"$(val $k.gomp "$t" 4)" "$(awk -v x="$g" 'BEGIN { printf "%.2f", x * 1000 }')" \
				"$(val $k.mine "$t" 4)" "$(awk -v x="$m" 'BEGIN { printf "%.2f", x * 1000 }')" \
				"$(val $k.wasm "$t" 4)" "$(awk -v x="$w" 'BEGIN { if (x == "") print "-"; else printf "%.2f", x * 1000 }')" \
				"$(ratio "$w" "$g")" "$(ratio "$m" "$g")"
		done
	done
	echo
	echo "Scaling, time at 1 thread / time at 2 (the malloc benchmark's work grows"
	echo "with the threads: there, throughput at 2 / throughput at 1):"
	echo
	for c in mb.glibc mb.mine mb.onelock mb.wasm mb.onelock.wasm; do
		a=$(val $c 1 4) b=$(val $c 2 4)
		# CPU seconds per operation at 1 thread over at 2: 1.00 when the
		# second thread's work costs nothing extra (no contention).
		ca=$(val $c 1 6) cb=$(val $c 2 6)
		cpu=""
		case $c in *.wasm) ;; *) cpu=" (CPU per operation, 1 thread / 2: $(awk -v a="$ca" -v b="$cb" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", 2 * a / b }'))" ;; esac
		[ -n "$a" ] && [ -n "$b" ] && echo "- $c: $(ratio "$b" "$a")$cpu"
	done
	for c in triad.gomp triad.mine triad.wasm spmv.gomp spmv.mine spmv.wasm; do
		a=$(val $c 1 3) b=$(val $c 2 3)
		[ -n "$a" ] && [ -n "$b" ] && echo "- $c: $(ratio "$a" "$b")"
	done
} > "$table"
cat "$table"
rep=$here/REPORT.md
if [ -f "$rep" ] && grep -q '^<!-- bench-threads:begin -->' "$rep"; then
	awk -v t="$table" '
		/^<!-- bench-threads:begin -->/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
		/^<!-- bench-threads:end -->/ { skip = 0 }
		!skip { print }' "$rep" > "$OUT/REPORT.md.new" && mv "$OUT/REPORT.md.new" "$rep"
fi

# Plot: malloc throughput, and OpenMP time relative to libgomp.
awk -v T="$THREADS" 'BEGIN { n = split(T, th, " ") }
	{ v[$1" "$2] = $4; s[$1" "$2] = $3 }
	END {
		for (i = 1; i <= n; i++) {
			t = th[i]
			printf "\"%s thr\" %s %s %s %s %s\n", t, v["mb.glibc "t], v["mb.mine "t], v["mb.onelock "t],
				(("mb.wasm "t) in v) ? v["mb.wasm "t] : 0, (("mb.onelock.wasm "t) in v) ? v["mb.onelock.wasm "t] : 0
		}
	}' "$OUT/results.txt" > "$OUT/malloc.dat"
awk -v T="$THREADS" 'BEGIN { n = split(T, th, " ") }
	{ s[$1" "$2] = $3 }
	END {
		split("triad spmv", ks, " ")
		for (k = 1; k <= 2; k++) for (i = 1; i <= n; i++) {
			t = th[i]; g = s[ks[k]".gomp "t]
			printf "\"%s %s thr\" %.3f %.3f\n", ks[k], t, s[ks[k]".mine "t] / g,
				((ks[k]".wasm "t) in s) ? s[ks[k]".wasm "t] / g : 0
		}
	}' "$OUT/results.txt" > "$OUT/omp.dat"
if command -v gnuplot > /dev/null; then
	gnuplot <<GP
set terminal pngcairo size 1100,460 font "sans,10"
set output "$here/threads.png"
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key below font ",8"
set grid ytics
set title "mallocbench: throughput (higher is better)"
set ylabel "Mops/s (mallocs+frees, all threads)"
set yrange [0:*]
plot "$OUT/malloc.dat" using 2:xtic(1) title "native glibc", \
     "" using 3 title "native, project allocator", \
     "" using 4 title "native, one lock", \
     "" using 5 title "wasm, project allocator", \
     "" using 6 title "wasm, one lock"
set title "OpenMP kernels: time / gcc+libgomp native (lower is better)"
set ylabel "time ratio"
set yrange [0:*]
plot "$OUT/omp.dat" using 2:xtic(1) title "native clang + libmpiwasm-omp", \
     "" using 3 title "wasm + libmpiwasm-omp", \
     1.10 with lines dt 2 lc rgb "black" title "goal 1.10"
unset multiplot
GP
fi
