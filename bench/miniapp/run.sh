#!/bin/sh
# bench/miniapp/run.sh - the HPCG-shaped miniapp (minihpcg.c) native vs
# wasm, on 1 and 2 ranks (see bench/miniapp/REPORT.md).
#
#   sh bench/miniapp/run.sh [B]          full run, writes bench/miniapp/REPORT.md
#   sh bench/miniapp/run.sh --check [B]  a small grid once on 1, 2 and 4 ranks:
#                                        each wasm build's checksum must equal native's
#
# Three builds of the same source, none with FMA contraction (wasm rounds
# every operation):
#   native  mpicc -O3 -march=native
#   O2      mpiwasm-cc -O2              (the build a user would make)
#   SIMD    mpiwasm-cc -O3 -msimd128
# A round runs native, O2 and SIMD one after the other; a ratio is wasm /
# native within one round; the report gives the median of the rounds'
# ratios with their range, for wall and for CPU time (each the slowest
# rank's best of REPS solves).  Environment:
#   MPI=openmpi|mpich  RUNS=5 (rounds)  REPS=3 (solves per run)
#   NX=48 (box per rank)  ITERS=50  NPS="1 2"  MINI_REPORT=path
#   MINI_BASELINE=path  another mpiwasm binary (e.g. one built from an older
#                       commit): it runs the O2 build too, as a fourth build
#                       in each round, so before and after share one run
set -u
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
B=${1:-${B:-build}}
here=$(cd "$(dirname "$0")" && pwd)
MPI=${MPI:-openmpi}
RUNS=${RUNS:-5}
REPS=${REPS:-3}
NX=${NX:-48}
ITERS=${ITERS:-50}
NPS=${NPS:-1 2}
REPORT=${MINI_REPORT:-$here/REPORT.md}
OUT=$B/bench/miniapp/$MPI
die() { echo "miniapp/run.sh: $*" >&2; exit 1; }
[ -x "$B/mpiwasm" ] || die "$B/mpiwasm missing: run 'make' first"
mkdir -p "$OUT" || exit 1
. "$here/../mpi/launcher.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-miniapp.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
export MPIWASM_CACHE_DIR=$T/cache
# A private copy of the engine: others may relink $B/mpiwasm meanwhile.
cp "$B/mpiwasm" "$T/mpiwasm" || die "cannot copy $B/mpiwasm"
BUILDS="native O2 simd"
NAMES="native -O3 -march=native|mpiwasm-cc -O2|mpiwasm-cc -O3 -msimd128"
PNAMES="native|-O2|SIMD"
if [ -n "${MINI_BASELINE:-}" ]; then
	cp "$MINI_BASELINE" "$T/mpiwasm-base" || die "cannot copy $MINI_BASELINE"
	BUILDS="$BUILDS O2base"
	NAMES="$NAMES|mpiwasm-cc -O2, baseline engine"
	PNAMES="$PNAMES|-O2 baseline"
fi
NB=$(echo $BUILDS | wc -w)

COMMON="-std=gnu11 -ffp-contract=off -Wall -Wextra -Wshadow"
NATIVE_FLAGS="$COMMON -O3 -march=native"
O2_FLAGS="$COMMON -O2"
SIMD_FLAGS="$COMMON -O3 -msimd128"
src=$here/minihpcg.c
$NCC $NATIVE_FLAGS -o "$OUT/minihpcg" "$src" || die "native build failed"
"$B/mpiwasm-cc" $O2_FLAGS -o "$OUT/minihpcg.O2.wasm" "$src" || die "mpiwasm-cc -O2 failed"
"$B/mpiwasm-cc" $SIMD_FLAGS -o "$OUT/minihpcg.simd.wasm" "$src" || die "mpiwasm-cc -O3 -msimd128 failed"
for v in O2 simd; do   # compile before timing: cold compile is measured elsewhere
	"$T/mpiwasm" compile -q "$OUT/minihpcg.$v.wasm" || die "mpiwasm compile minihpcg.$v.wasm failed"
done
if [ -n "${MINI_BASELINE:-}" ]; then
	"$T/mpiwasm-base" compile -q "$OUT/minihpcg.O2.wasm" || die "baseline: mpiwasm compile minihpcg.O2.wasm failed"
fi

# run NP BUILD ARGS...: the BENCH and MINIHPCG lines of one job into $T/line
# (BUILD native, O2 or simd); fails with the reason in $T/line.
run() {
	np=$1; b=$2; shift 2
	if [ "$b" = native ]; then cmd="$OUT/minihpcg"
	elif [ "$b" = O2base ]; then cmd="$T/mpiwasm-base -q $OUT/minihpcg.O2.wasm"
	else cmd="$T/mpiwasm -q $OUT/minihpcg.$b.wasm"; fi
	# shellcheck disable=SC2086 # LAUNCH and cmd are command lines
	if timeout 900 $LAUNCH "$np" $cmd "$@" >"$T/o" 2>"$T/e" &&
	   grep -q '^BENCH kernel=minihpcg_np' "$T/o"; then
		grep -E '^(BENCH|MINIHPCG) ' "$T/o" | tr '\n' ' ' >"$T/line"
		return 0
	fi
	echo "np=$np $b: $(grep -v '^[[:space:]]*$' "$T/e" | head -n 1)" >"$T/line"
	return 1
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$T/line"; }

if [ $check = 1 ]; then
	pass=0; fail=0
	for np in 1 2 4; do
		if ! run $np native 1 12 20; then
			echo "FAIL $(cat "$T/line")"; fail=$((fail + 2)); continue
		fi
		cn=$(field checksum)
		for b in O2 simd; do
			if ! run $np $b 1 12 20; then
				echo "FAIL $(cat "$T/line")"; fail=$((fail + 1)); continue
			fi
			cw=$(field checksum)
			if [ -n "$cn" ] && [ "$cn" = "$cw" ]; then pass=$((pass + 1))
			else echo "FAIL np=$np $b: checksum native $cn, wasm $cw"; fail=$((fail + 1)); fi
		done
	done
	echo "miniapp: $pass passed, $fail failed"
	[ $fail = 0 ]
	exit
fi

load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date -u '+%Y-%m-%d %H:%M')
: >"$T/rows"
for np in $NPS; do
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		row="$np"
		for b in $BUILDS; do
			run "$np" $b "$REPS" "$NX" "$ITERS" || die "$(cat "$T/line")"
			row="$row $(field best_s) $(field cpu_s) $(field checksum) $(field spmv_s) $(field symgs_s) $(field halo_s) $(field dot_s)"
		done
		echo "$row" >>"$T/rows"
		echo "  np=$np round $i: $row" >&2
	done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
t1=$(date -u '+%H:%M')
cp "$T/rows" "$OUT/rows.txt"

# rows: np, then per build (native O2 simd) wall cpu checksum spmv symgs halo dot
summary() {
	awk -v np="$1" -v it="$ITERS" -v nb="$NB" -v names="$NAMES" '
	function med(a, n,   i, j, t, b) { for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2 }
	function lo(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
	function hi(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	$1 == np { n++
		for (b = 0; b < nb; b++) { o = 2 + 7 * b
			w[b, n] = $o; c[b, n] = $(o + 1)
			if ($(o + 2) != $4) bad = 1
			rw[b, n] = $o / $2; rc[b, n] = $(o + 1) / $3 }
	}
	END {
		split(names, name, "|")
		for (b = 0; b < nb; b++) {
			for (i = 1; i <= n; i++) { x[i] = w[b, i]; y[i] = c[b, i]; p[i] = rw[b, i]; q[i] = rc[b, i] }
			r1 = b ? sprintf("**%.3f** (%.3f-%.3f)", med(p, n), lo(p, n), hi(p, n)) : ""
			r2 = b ? sprintf("**%.3f** (%.3f-%.3f)", med(q, n), lo(q, n), hi(q, n)) : ""
			printf "| %d | %s | %.4f | %.2f | %.4f | %.2f | %s | %s | %s |\n",
				np, name[b + 1], med(x, n), med(x, n) / it * 1e3, med(y, n), med(y, n) / it * 1e3,
				r1, r2, b ? (bad ? "**MISMATCH**" : "match") : ""
		}
	}' "$T/rows"
}
# Median phase times of rank 0's best solve, per build.
phases() {
	awk -v np="$1" -v nb="$NB" -v names="$PNAMES" '
	function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	$1 == np { n++; for (b = 0; b < nb; b++) for (k = 0; k < 4; k++) v[b, k, n] = $(5 + 7 * b + k) }
	END { split(names, name, "|")
		for (b = 0; b < nb; b++) {
			line = "| " np " | " name[b + 1] " |"
			for (k = 0; k < 4; k++) { for (i = 1; i <= n; i++) a[i] = v[b, k, i]; line = line sprintf(" %.4f |", med(a, n)) }
			print line } }' "$T/rows"
}
{
	echo "# HPCG-shaped miniapp: native vs wasm ($MPI)"
	echo
	echo "Generated by \`make bench-miniapp\` (bench/miniapp/run.sh) on $t0-$t1 UTC,"
	echo "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores shared with other jobs:"
	echo "load average **$load0** at the start, **$load1** at the end."
	echo
	echo "- source: bench/miniapp/minihpcg.c: a ${NX}^3 box of a 27-point stencil matrix per rank"
	echo "  (CSR, ghost columns per neighbour), 3D process grid, halo exchange (Irecv/Isend/Waitall)"
	echo "  before every SpMV and Gauss-Seidel sweep, symmetric Gauss-Seidel preconditioner,"
	echo "  MPI_Allreduce in every dot product; $ITERS CG iterations from x = 0 per solve"
	echo "- native: \`$NCC $NATIVE_FLAGS\` ($(${NCC} --version | head -n 1))"
	echo "- wasm: \`mpiwasm-cc $O2_FLAGS\` and \`mpiwasm-cc $SIMD_FLAGS\`, run by \`mpiwasm -q\`"
	echo "  ($("$T/mpiwasm" --version 2>/dev/null | head -n 1)), cache filled before timing"
	[ -n "${MINI_BASELINE:-}" ] && echo "- baseline: the -O2 build run by \`$MINI_BASELINE\` ($("$T/mpiwasm-base" --version 2>/dev/null | head -n 1)), a fourth build in every round"
	echo "- each run: \`$LAUNCH NP ... $REPS $NX $ITERS\`, the slowest rank's best of $REPS solves;"
	echo "  $RUNS rounds of native, O2, SIMD (and the baseline) in turn per rank count; ratio = wasm / native in the"
	echo "  same round, median of the rounds (range in brackets); CPU = CLOCK_PROCESS_CPUTIME_ID"
	echo "  (on a loaded machine the steadier figure; it includes MPI's polling in waits)"
	echo "- checksum: bits of r.r after the last iteration and of a weighted sum of the solution;"
	echo "  \"match\" = every round's wasm checksums equal native's"
	echo
	echo "| ranks | build | wall s | ms / iteration | CPU s | CPU ms / iteration | wall ratio | CPU ratio | checksums |"
	echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	for np in $NPS; do summary "$np"; done
	echo
	echo "Phases of rank 0's best solve (wall s, median of the rounds): SpMV, symmetric"
	echo "Gauss-Seidel, halo exchange (pack, Irecv/Isend, Waitall), dot products with Allreduce."
	echo
	echo "| ranks | build | spmv | symgs | halo | dot |"
	echo "| ---: | --- | ---: | ---: | ---: | ---: |"
	for np in $NPS; do phases "$np"; done
	echo
	echo "Native checksums: $(awk '!seen[$1 " " $4]++ { printf "%snp=%s %s", (n++ ? ", " : ""), $1, $4 }' "$T/rows")."
} >"$T/report"
cp "$T/report" "$REPORT" || die "cannot write $REPORT"
cat "$REPORT"
