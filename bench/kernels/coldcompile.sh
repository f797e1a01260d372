#!/bin/sh
# coldcompile.sh - compile time of the large module (gen-big.sh), in the
# two cases the engine's cache is built for:
#
#   cold   nothing cached: `mpiwasm compile` of big.wasm into an empty cache
#   edit   then big-edit.wasm, the same program with a few functions'
#          constants changed (a rebuilt application): only the units whose
#          C changed are compiled, the rest come from the cache
#
#   sh bench/kernels/coldcompile.sh [B]    prints a Markdown table
#
# B is the build directory (default build); big.wasm and big-edit.wasm come
# from `make bench-kernels-build`.  Wall seconds and CPU seconds (user+sys
# of mpiwasm and every compiler it ran, from /usr/bin/time) per run; on a
# shared machine the CPU seconds are the steadier figure.  Environment:
#   COLD_RUNS=1      runs of each case (each cold run starts from an empty
#                    cache); the table shows each run and the median
#   MPIWASM=path     the engine to measure (default B/mpiwasm)
#   COLD_RAW=file    also append each run's --timings line there
set -u

B=${1:-build}
D=$B/bench/kernels
MPIWASM=${MPIWASM:-$B/mpiwasm}
RUNS=${COLD_RUNS:-1}
TMO=600

die() { echo "coldcompile.sh: $*" >&2; exit 1; }
for f in "$D/big.wasm" "$D/big-edit.wasm"; do
	[ -f "$f" ] || die "$f missing: run 'make bench-kernels-build' first"
done
[ -x "$MPIWASM" ] || die "$MPIWASM not found or not executable: run 'make' first"
case $RUNS in ''|*[!0-9]*|0) die "bad COLD_RUNS '$RUNS'";; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/coldcompile.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$T"' EXIT

# timed CACHE WASM NAME: one `mpiwasm compile --timings`, appending
# "NAME wall cpu units" to $T/rows; units is "compiled/total" from the
# timings line ("K of N units compiled before").
timed() {
	if ! MPIWASM_CACHE_DIR=$1 /usr/bin/time -f "%e %U %S" -o "$T/time" \
		timeout $TMO "$MPIWASM" compile --timings "$2" >"$T/out" 2>&1; then
		cat "$T/out" >&2
		die "mpiwasm compile $2 failed"
	fi
	[ -n "${COLD_RAW:-}" ] && grep 'timings:' "$T/out" >>"$COLD_RAW"
	units=$(sed -n 's/.* \([0-9]*\) of \([0-9]*\) units compiled before.*/\1 \2/p' "$T/out")
	[ -n "$units" ] || die "no unit counts in the --timings output of $2"
	set -- "$3" $(cat "$T/time") $units
	echo "$1 $2 $(echo "$3 $4" | awk '{ print $1 + $2 }') $(( $6 - $5 ))/$6" >>"$T/rows"
}

: >"$T/rows"
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	rm -rf "$T/cache"
	mkdir -m 700 "$T/cache" || die "cannot create $T/cache"
	timed "$T/cache" "$D/big.wasm" cold
	timed "$T/cache" "$D/big-edit.wasm" edit
done

nf=$(wasm-objdump -h "$D/big.wasm" 2>/dev/null | sed -n 's/.* Code .*count: \([0-9]*\).*/\1/p')
echo "big.wasm: $(wc -c <"$D/big.wasm") bytes, ${nf:-?} functions; big-edit.wasm: the same with"
echo "$(cat "$D/big-edit.n" 2>/dev/null || echo a few) functions' constants changed. $("$MPIWASM" --version | head -n 1)."
echo "CPU = user+sys of mpiwasm and its compilers; $(nproc) cores, load average at the end"
echo "$(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| case | run | units compiled | wall s | CPU s |"
echo "| --- | ---: | ---: | ---: | ---: |"
for c in cold edit; do
	awk -v c=$c '$1 == c { n++; printf "| %s | %d | %s | %.2f | %.2f |\n", c, n, $4, $2, $3 }' "$T/rows"
done
if [ "$RUNS" -gt 1 ]; then
	for c in cold edit; do
		for col in 2 3; do
			awk -v c=$c -v k=$col '$1 == c { print $k }' "$T/rows" | sort -g |
				awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
		done | paste -sd' ' | awk -v c=$c '{ printf "| %s | median | | **%.2f** | **%.2f** |\n", c, $1, $2 }'
	done
fi
