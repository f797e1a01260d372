#!/bin/sh
# scripts/module-sizes.sh - module size with and without -g against the
# native dynamic executable (issue 12): every example and a few test
# programs, built with mpiwasm-cc/mpiwasm-c++ -O2 (stripped of debug
# sections by default; -g keeps them) and natively with Open MPI's
# mpicc/mpicxx -O2.  Prints a Markdown table.
#   B=build (the toolchain's build dir)
set -u
B=${B:-build}
OUT=$B/module-sizes
mkdir -p "$OUT" || exit 1
size() { wc -c < "$1" | tr -d ' '; }
echo "| program | wasm -O2 | wasm -O2 -g | native -O2 | wasm/native | wasm -g/native |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for src in examples/*.c examples/*.cpp tests/mpi/p2p.c tests/mpi/coll.c tests/mpi/fam_rma.c \
           tests/mpi/cxx.cc tests/toolchain/progs/fstreams.cc; do
	n=$(basename "$src"); n=${n%.*}
	case $src in
	*.cpp|*.cc) W="$B/mpiwasm-c++" N=mpicxx.openmpi ;;
	*) W="$B/mpiwasm-cc" N=mpicc.openmpi ;;
	esac
	inc="-Itests/mpi"
	"$W" -O2 $inc -o "$OUT/$n.wasm" "$src" 2>/dev/null &&
	"$W" -O2 -g $inc -o "$OUT/$n.g.wasm" "$src" 2>/dev/null &&
	$N -O2 $inc -o "$OUT/$n.native" "$src" -lm 2>/dev/null || {
		echo "| $n | (did not build) | | | | |"; continue; }
	a=$(size "$OUT/$n.wasm") g=$(size "$OUT/$n.g.wasm") x=$(size "$OUT/$n.native")
	awk -v n="$n" -v a="$a" -v g="$g" -v x="$x" 'BEGIN {
		printf "| %s | %d | %d | %d | %.2f | %.2f |\n", n, a, g, x, a / x, g / x }'
done
