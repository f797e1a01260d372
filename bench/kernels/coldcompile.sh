#!/bin/sh
# coldcompile.sh - compile time of the large module (gen-big.sh), in the
# two cases the engine's cache is built for:
#
#   cold   nothing cached: `mpiwasm compile` of big.wasm into an empty cache
#   edit   then big-edit.wasm, the same program with a few functions'
#          constants changed (a rebuilt application): only the units whose
#          C changed are compiled, the rest come from the cache
#   tiered big-loop.wasm (the same 3,000 functions, main calling them all
#          in rounds for TIER_SECS seconds) run cold with the tiered
#          start: when it starts running (tier 0 ready), when tier 1 is
#          active, the CPU seconds of everything (tier 0's compile, the
#          run, tier 1's compile in the background), and the median round
#          on tier 0 and on tier 1
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
#   TIER_ONLY=1      only the tiered row
#   COLD_KEEP=dir    keep the tiered run's stdout (rounds) and stderr there
#   TIER_SECS=90     how long big-loop.wasm runs (tier 1 must be active
#                    before it ends to be measured)
#   MPIWASM_TIER1_NICE, MPIWASM_TIER0_CC: passed on (see README)
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
[ "${TIER_ONLY:-0}" = 1 ] && i=$RUNS   # the tiered row alone
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
[ "${TIER_ONLY:-0}" = 1 ] || {
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
}

# ---- the tiered start ---------------------------------------------------
L=$D/big-loop.wasm
[ -f "$L" ] || { echo; echo "($L missing: no tiered row; make bench-compile builds it)"; exit 0; }
SECS=${TIER_SECS:-90}
rm -rf "$T/cache"
mkdir -m 700 "$T/cache" || die "cannot create $T/cache"
if ! MPIWASM_CACHE_DIR=$T/cache /usr/bin/time -f "%e %U %S" -o "$T/time" \
	timeout $TMO "$MPIWASM" -t "$L" "$SECS" >"$T/lout" 2>"$T/lerr"; then
	cat "$T/lerr" >&2
	die "mpiwasm $L failed"
fi
[ -n "${COLD_RAW:-}" ] && grep 'timings:' "$T/lerr" >>"$COLD_RAW"
# Start: the load stages of the timings line (everything before "run").
start=$(sed -n 's/.*timings: decode \([0-9.]*\) ms, validate \([0-9.]*\) ms, translate \([0-9.]*\) ms, compile \([0-9.]*\) ms, verify \([0-9.]*\) ms, wait \([0-9.]*\) ms, load \([0-9.]*\) ms.*/\1 \2 \3 \4 \5 \6 \7/p' "$T/lerr" |
	awk '{ print ($1 + $2 + $3 + $4 + $5 + $6 + $7) / 1e3 }')
t0cc=$(sed -n 's/.*tier 0 by \([^ ]*\) -O0.*/\1/p' "$T/lerr")
up=$(sed -n 's/^mpiwasm: tier 1 active after \([0-9.]*\) s.*/\1/p' "$T/lerr")
[ -n "$start" ] || die "no timings line from $L"
# Rounds: "round R at S s: X ms", S from main's start (about $start after
# the process's); a round that began before the switch counts as tier 0.
awk -v st="$start" -v up="${up:-1e30}" -v d="$T" '
	/^round / { at = $4 + st; ms = $6 + 0
		if (at + ms / 1e3 < up) print ms > (d "/r0"); else if (at > up) print ms > (d "/r1") }' "$T/lout"
med() {   # FILE: count and median of its numbers ("0 -1" for none)
	[ -s "$1" ] || { echo "0 -1"; return; }
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%d %.3f\n", NR, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "$(med "$T/r0") $(med "$T/r1")" >"$T/rounds"
read -r na ma nb mb <"$T/rounds"
read -r wall usr sys <"$T/time"
echo
echo "Tiered start of big-loop.wasm (cold cache, ${SECS} s run, tier 0 by ${t0cc:-?} -O0,"
echo "tier 1 at niceness ${MPIWASM_TIER1_NICE:-10}); load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| tier 0 ready (starts running) s | tier 1 active s | wall s | CPU s | rounds tier 0 / 1 | median round tier 0 ms | median round tier 1 ms | tier 0 / tier 1 |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
echo "$start ${up:-none} $wall $usr $sys $na $ma $nb $mb" | awk '{
	r = ($9 > 0 && $7 > 0) ? sprintf("%.2f", $7 / $9) : "-"
	m0 = ($7 >= 0) ? sprintf("%.3f", $7) : "-"
	m1 = ($9 >= 0) ? sprintf("%.3f", $9) : "-"
	printf("| %.2f | %s | %.2f | %.2f | %d / %d | %s | %s | %s |\n", $1, $2, $3, $4 + $5, $6, $8, m0, m1, r) }'
# COLD_KEEP=dir: keep the tiered run's output (rounds) and stderr there.
[ -n "${COLD_KEEP:-}" ] && cp "$T/lout" "$T/lerr" "$COLD_KEEP"/
