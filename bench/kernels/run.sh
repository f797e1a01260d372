#!/bin/sh
# run.sh - native vs wasm kernel benchmarks (see bench/README.md).
#
#   sh bench/kernels/run.sh [B]          full run, writes bench/kernels/REPORT.md
#   sh bench/kernels/run.sh --check [B]  each kernel once (scalar and SIMD
#                                        builds), checksums must match native
#
# B is the build directory (default build); binaries come from `make
# bench-kernels-build`.  Environment:
#   BENCH_RUNS=5        alternating native/wasm runs per kernel (median taken)
#   BENCH_NODE=1        add a column for Node's WASI (V8) as a second runtime
#   BENCH_REPORT=path   where to write the report (default bench/kernels/REPORT.md;
#                       with BENCH_VS_O3=1, B/bench/kernels/REPORT-O3.md)
#   BENCH_NOVER=0       skip the extra mpiwasm --no-loop-versioning runs
#   BENCH_KERNELS="a b" only these kernels (default: all; a partial report)
#   BENCH_COLD=0        skip the cold-compile and start-up sections
#   BENCH_VS_O3=1       the scalar wasm build (-O2) against native -O3 -march=native
#                       (issue 14's goal for the real-code kernels: geomean
#                       <= 1.05, none above 1.15) instead of native -O2, and
#                       no SIMD variant; default kernels: the real-code ones
#   BENCH_BASELINE=path another mpiwasm binary (e.g. one built from an older
#                       commit) run in the same alternation, with its own
#                       cache: a before/after column (CPU time) in the report
#   WASM_RUN="cmd"      run wasm with this instead of "$B/mpiwasm -q", e.g.
#                       "node --no-warnings --single-threaded bench/kernels/node-wasi.mjs"
#                       (to validate the suite with node before the engine runs)
set -u

check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
B=${1:-build}
D=$B/bench/kernels
HERE=$(dirname "$0")
VS_O3=${BENCH_VS_O3:-0}
if [ "$VS_O3" = 1 ]; then
	KERNELS=${BENCH_KERNELS:-"hpcg_spmv hpcg_symgs hpcg_cg verify memloop gather search soa indirect"}
else
	KERNELS=${BENCH_KERNELS:-"dgemm jacobi triad isort spmv fib indirect hpcg_spmv hpcg_symgs hpcg_cg verify memloop gather search soa"}
fi
RUNS=${BENCH_RUNS:-5}
# BENCH_VS_O3's table goes to the build directory (REPORT.md quotes it).
if [ "$VS_O3" = 1 ]; then REPORT=${BENCH_REPORT:-$D/REPORT-O3.md}
else REPORT=${BENCH_REPORT:-$HERE/REPORT.md}; fi
MPIWASM=$B/mpiwasm
WASM_RUN=${WASM_RUN:-$MPIWASM -q}
TMO=600

die() { echo "run.sh: $*" >&2; exit 1; }

[ -d "$D" ] || die "$D missing: run 'make bench-kernels-build' first"
if [ -z "${WASM_RUN%%"$MPIWASM"*}" ] && [ ! -x "$MPIWASM" ]; then
	die "$MPIWASM not found or not executable: run 'make' first"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-kernels.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
# A fresh cache for every run: an entry left by an older translator (the
# key has XLATE_VERSION, not the engine build) must not be measured, and
# the warm-up column is then a true cold compile.
export MPIWASM_CACHE_DIR=${MPIWASM_CACHE_DIR:-$T/cache}
mkdir -p "$MPIWASM_CACHE_DIR"
# Run a private copy: others may relink $B/mpiwasm while this runs.
WASM_RUN_SHOWN=$WASM_RUN
if [ -x "$MPIWASM" ]; then
	cp "$MPIWASM" "$T/mpiwasm" || die "cannot copy $MPIWASM to $T"
	case $WASM_RUN in "$MPIWASM"*) WASM_RUN="$T/mpiwasm${WASM_RUN#"$MPIWASM"}" ;; esac
	MPIWASM=$T/mpiwasm
fi
WASM_RUN_BASE=
if [ -n "${BENCH_BASELINE:-}" ]; then
	cp "$BENCH_BASELINE" "$T/mpiwasm-baseline" || die "cannot copy $BENCH_BASELINE"
	mkdir -p "$T/cache-baseline"
	WASM_RUN_BASE="$T/mpiwasm-baseline -q --cache-dir $T/cache-baseline"
	basever=$("$T/mpiwasm-baseline" --version 2>/dev/null | head -n 1)
fi
# The same engine without loop versioning (src/xlate/loop.h), to show what
# the fast loop copies buy; only when the wasm runner is mpiwasm.
WASM_RUN_NV=
case $WASM_RUN in "$MPIWASM"*)
	[ "${BENCH_NOVER:-1}" = 1 ] && WASM_RUN_NV="$WASM_RUN --no-loop-versioning" ;;
esac

# run NAME OUTFILE CMD... : run a benchmark command; on success OUTFILE holds
# its BENCH line; on failure it holds one line saying why.
run() {
	_out=$2; shift 2
	if timeout $TMO nice -n 2 "$@" >"$T/o" 2>"$T/e"; then
		if grep '^BENCH ' "$T/o" >"$_out"; then return 0; fi
		echo "no BENCH line in output" >"$_out"
	else
		_rc=$?
		if [ $_rc = 124 ]; then echo "timed out after ${TMO}s" >"$_out"
		else
			_msg=$(grep -v '^[[:space:]]*$' "$T/e" | head -n 1)
			echo "exit $_rc: ${_msg:-no message}" >"$_out"
		fi
	fi
	return 1
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END {
	if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
	else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ---- --check: one repetition each, native and wasm checksums must agree ----
if [ $check = 1 ]; then
	# Scalar and SIMD builds of every kernel, each against its native build.
	pass=0; fail=0
	for k in $KERNELS; do
		for v in "$k:$k.wasm" "$k.o3:$k.simd.wasm"; do
			nat=${v%%:*}; wasm=${v#*:}
			if ! run "$k" "$T/n" "$D/$nat" 1; then
				echo "FAIL $nat: native: $(cat "$T/n")"; fail=$((fail + 1)); continue
			fi
			# shellcheck disable=SC2086 # WASM_RUN is a command line
			if ! run "$k" "$T/w" $WASM_RUN "$D/$wasm" 1; then
				echo "FAIL $wasm: $(cat "$T/w")"; fail=$((fail + 1)); continue
			fi
			cn=$(field checksum "$T/n"); cw=$(field checksum "$T/w")
			if [ -n "$cn" ] && [ "$cn" = "$cw" ]; then
				pass=$((pass + 1))
			else
				echo "FAIL $wasm: checksum native $cn, wasm $cw"; fail=$((fail + 1))
			fi
		done
	done
	echo "bench-kernels: $pass passed, $fail failed"
	[ $fail = 0 ]
	exit
fi

# ---- full run ----------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
ncpu=$(nproc)
ccver=$(${BENCH_CC:-cc} --version | head -n 1)
clangver=$(clang-19 --version | head -n 1)
engver=$("$MPIWASM" --version 2>/dev/null | head -n 1)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
use_node=0
if [ "${BENCH_NODE:-0}" = 1 ] && command -v node >/dev/null; then use_node=1; fi

# kernel_pair KERNEL NATIVE WASM LABEL: warm up, then RUNS alternating runs;
# appends "kernel native_med wasm_med ratio status [node_med]" to $T/rows.$LABEL
kernel_pair() {
	k=$1; nat=$2; wasm=$3; label=$4
	: >"$T/nt"; : >"$T/wt"; : >"$T/jt"; : >"$T/nc"; : >"$T/wc"; : >"$T/vt"; : >"$T/bc"; status=ok; cks=""
	t0=$(date +%s.%N)
	# The warm-up fills the compile cache; its wall time includes the compile.
	# shellcheck disable=SC2086
	if ! run "$k" "$T/w" $WASM_RUN "$wasm" 1; then
		# The engine refusing SIMD (until it supports it) is not a failure.
		if [ "$label" = simd ]; then status="refused: $(cat "$T/w")"
		else status="wasm: $(cat "$T/w")"; fi
	fi
	t1=$(date +%s.%N)
	# shellcheck disable=SC2086
	[ -n "$WASM_RUN_NV" ] && run "$k" "$T/v" $WASM_RUN_NV "$wasm" 1
	# shellcheck disable=SC2086
	[ -n "$WASM_RUN_BASE" ] && run "$k" "$T/b" $WASM_RUN_BASE "$wasm" 1
	warm=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		if run "$k" "$T/n" "$nat"; then
			field best_s "$T/n" >>"$T/nt"; field cpu_s "$T/n" >>"$T/nc"
			c=$(field checksum "$T/n"); [ -z "$cks" ] && cks=$c
			[ "$c" = "$cks" ] || status="checksum varies between native runs"
		else
			status="native: $(cat "$T/n")"; break
		fi
		case $status in wasm:* | refused:*) continue ;; esac
		# shellcheck disable=SC2086
		if run "$k" "$T/w" $WASM_RUN "$wasm"; then
			field best_s "$T/w" >>"$T/wt"; field cpu_s "$T/w" >>"$T/wc"
			# This pair's ratios (wall, CPU), for the per-pair medians.
			echo "$k $(field best_s "$T/n") $(field best_s "$T/w") $(field cpu_s "$T/n") $(field cpu_s "$T/w")" >>"$T/pairs.$label"
			c=$(field checksum "$T/w")
			[ "$c" = "$cks" ] || status="CHECKSUM MISMATCH native $cks wasm $c"
		else
			status="wasm: $(cat "$T/w")"
		fi
		# shellcheck disable=SC2086
		if [ -n "$WASM_RUN_NV" ] && run "$k" "$T/v" $WASM_RUN_NV "$wasm"; then
			field best_s "$T/v" >>"$T/vt"
			c=$(field checksum "$T/v")
			[ "$c" = "$cks" ] || status="CHECKSUM MISMATCH native $cks wasm (no versioning) $c"
		fi
		# shellcheck disable=SC2086
		if [ -n "$WASM_RUN_BASE" ] && run "$k" "$T/b" $WASM_RUN_BASE "$wasm"; then
			field cpu_s "$T/b" >>"$T/bc"
			c=$(field checksum "$T/b")
			[ "$c" = "$cks" ] || status="CHECKSUM MISMATCH native $cks wasm (baseline) $c"
		fi
		if [ $use_node = 1 ] && [ "$label" = scalar ] && run "$k" "$T/j" node --no-warnings --single-threaded "$HERE/node-wasi.mjs" "$wasm"; then
			field best_s "$T/j" >>"$T/jt"
		fi
	done
	mn=$(median <"$T/nt"); mw=$(median <"$T/wt"); mj=$(median <"$T/jt")
	cn=$(median <"$T/nc"); cw=$(median <"$T/wc"); mv=$(median <"$T/vt"); mb=$(median <"$T/bc")
	echo "$k $mn $mw $mj $warm $cn $cw $mv $mb $status" >>"$T/rows.$label"
	echo "$k $mn $mw $mv" >>"$T/short.$label"
	echo "  $k: native $mn s, wasm $mw s$([ $use_node = 1 ] && [ "$label" = scalar ] && echo ", node $mj s"), warm-up ${warm}s: $status" >&2
}

echo "run.sh: kernels, $RUNS alternating runs each (cache $MPIWASM_CACHE_DIR)" >&2
# The scalar build's native counterpart: -O2, or -O3 with BENCH_VS_O3=1.
nsuf=; [ "$VS_O3" = 1 ] && nsuf=.o3
for k in $KERNELS; do kernel_pair "$k" "$D/$k$nsuf" "$D/$k.wasm" scalar; done

[ "$VS_O3" = 1 ] || echo "run.sh: SIMD variant" >&2
[ "$VS_O3" = 1 ] || for k in $KERNELS; do
	w=$D/$k.simd.wasm
	nsimd=$(wasm-objdump -d "$w" 2>/dev/null | grep -cE '(v128|[if](8|16|32|64)x[0-9]+)\.')
	echo "$k $nsimd" >>"$T/simdops"
	kernel_pair "$k" "$D/$k.o3" "$w" simd
done

if [ "$VS_O3" = 1 ]; then BENCH_COLD=0; fi
if [ "${BENCH_COLD:-1}" = 1 ]; then
echo "run.sh: cold compile of the large module, and a rebuild with a few changes" >&2
# coldcompile.sh: an empty cache of its own, then big-edit.wasm into it.
if MPIWASM=$MPIWASM COLD_RAW=$T/cold timeout $((2 * TMO)) \
	sh "$HERE/coldcompile.sh" "$B" >"$T/coldtab" 2>"$T/colderr"; then
	coldrc=ok
else
	coldrc="failed (exit $?): $(head -n 3 "$T/colderr")"
fi
# For scale: the same C program compiled natively, once.
/usr/bin/time -f "%e %U %S" -o "$T/nattime" \
	${BENCH_CC:-cc} -O2 -march=native -c -o "$T/big.o" "$D/big.c" 2>/dev/null &&
	natcc=$(awk '{ printf "%.1f s wall, %.1f s CPU", $1, $2 + $3 }' "$T/nattime") ||
	natcc="failed"

echo "run.sh: start-up (hyperfine)" >&2
startup=failed
# shellcheck disable=SC2086
if $WASM_RUN "$D/hello.wasm" >/dev/null 2>"$T/he" &&
   hyperfine -N --warmup 5 --runs 200 --export-json "$T/hf.json" \
	-n native "$D/hello" -n "mpiwasm (cached)" "$WASM_RUN $D/hello.wasm" >"$T/hf.txt" 2>&1; then
	# Medians, not means: on a shared machine a few runs are descheduled.
	awk -F': *' '
	/"command"/ { gsub(/[",]/, "", $2); c = $2 }
	/"mean"/    { mean = $2 + 0 }
	/"median"/  { med = $2 + 0 }
	/"min"/     { printf "| %s | %.2f | %.2f | %.2f |\n", c, med * 1e3, mean * 1e3, $2 * 1e3
	              m[++n] = med }
	END { if (n == 2) printf "\nStart-up overhead (median): %.2f ms.\n", (m[2] - m[1]) * 1e3 }' \
		"$T/hf.json" >"$T/hf.rows"
	{
		echo "200 runs each after 5 warm-ups; the cache holds hello.wasm already."
		echo
		echo "| command | median ms | mean ms | min ms |"
		echo "| --- | ---: | ---: | ---: |"
		cat "$T/hf.rows"
	} >"$T/hf.md"
else
	echo "hello.wasm: $(head -n 1 "$T/he") $(tail -n 1 "$T/hf.txt" 2>/dev/null)" >"$T/hf.md"
fi
else
	coldrc="skipped (BENCH_COLD=0)"; natcc="not measured"
	echo "not measured (BENCH_COLD=0)" >"$T/coldtab"; : >"$T/cold"
	echo "not measured (BENCH_COLD=0)" >"$T/hf.md"
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- report -------------------------------------------------------------------
# ratio_table ROWS NODE GOAL_GEOMEAN GOAL_WORST (0: no per-kernel limit)
ratio_table() {
	awk -v node="$2" -v gg="$3" -v gw="$4" -v nv="$([ -n "$WASM_RUN_NV" ] && echo 1 || echo 0)" \
	    -v nb="$([ -n "$WASM_RUN_BASE" ] && echo 1 || echo 0)" '
	function fmt(x) { return x == "nan" || x == "-" ? "-" : sprintf("%.4f", x) }
	{
		k = $1; n = $2; w = $3; j = $4; warm = $5; cn = $6; cw = $7; v = $8; b = $9
		st = ""; for (i = 10; i <= NF; i++) st = st (i > 10 ? " " : "") $i
		r = "-"; rj = "-"; rc = "-"; rv = "-"; rb = "-"
		if (st == "ok" && cn > 0 && b != "nan") { rb = sprintf("%.3f", b / cn); sb += log(b / cn); cb++ }
		if (st == "ok" && n > 0 && w != "nan") { r = sprintf("%.3f", w / n); s += log(w / n); c++; if (w / n > worst) { worst = w / n; wk = k } }
		if (st == "ok" && cn > 0 && cw != "nan") { rc = sprintf("%.3f", cw / cn); sc += log(cw / cn); cc++; if (cw / cn > worstc) { worstc = cw / cn; wkc = k } }
		if (st == "ok" && n > 0 && v != "nan") { rv = sprintf("%.3f", v / n); sv += log(v / n); cv++ }
		if (node && j != "nan" && n > 0) { rj = sprintf("%.3f", j / n); sj += log(j / n); cj++ }
		line = "| " k " | " fmt(n) " | " fmt(w) " | **" r "** | " fmt(cn) " | " fmt(cw) " | " rc " |"
		if (nv) line = line " " fmt(v) " | " rv " |"
		if (nb) line = line " " fmt(b) " | " rb " |"
		if (node) line = line " " fmt(j) " | " rj " |"
		line = line " " warm " | " (st == "ok" ? "checksums match" : st) " |"
		print line
	}
	END {
		g = c ? sprintf("%.3f", exp(s / c)) : "-"
		line = "| **geomean** (" c " kernels) | | | **" g "** | | | " (cc ? sprintf("%.3f", exp(sc / cc)) : "-") " |"
		if (nv) line = line " | " (cv ? sprintf("%.3f", exp(sv / cv)) : "-") " |"
		if (nb) line = line " | " (cb ? sprintf("%.3f", exp(sb / cb)) : "-") " |"
		if (node) line = line " | " (cj ? sprintf("%.3f", exp(sj / cj)) : "-") " |"
		print line " | |"
		if (c) printf "\nWorst kernel: %s at %.3f wall (%s at %.3f CPU time).\n", wk, worst, wkc, worstc
		lim = gw > 0 ? sprintf(", none above %.2f", gw) : ""
		if (c) printf "Goal (geomean <= %.2f%s): %s by wall time, %s by CPU time.\n", gg, lim,
			(exp(s / c) <= gg && (gw <= 0 || worst <= gw)) ? "met" : "NOT met",
			(cc && exp(sc / cc) <= gg && (gw <= 0 || worstc <= gw)) ? "met" : "NOT met"
	}' "$1"
}

# pair_table PAIRS GOAL_GEOMEAN GOAL_WORST: per kernel, the median (and
# range) of the per-pair ratios; the geomean of those medians.
pair_table() {
	awk -v gg="$2" -v gw="$3" '
	function med(a, n,   i, j, t, b) { for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2 }
	function rng(a, n,   i, lo, hi) { lo = hi = a[1]
		for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
		return sprintf("%.3f-%.3f", lo, hi) }
	!($1 in cnt) { order[++nk] = $1 }
	$2 > 0 && $4 > 0 { m = ++cnt[$1]; rw[$1, m] = $3 / $2; rc[$1, m] = $5 / $4 }
	END {
		for (q = 1; q <= nk; q++) { k = order[q]; n = cnt[k]
			for (i = 1; i <= n; i++) { a[i] = rw[k, i]; b[i] = rc[k, i] }
			mw = med(a, n); mc = med(b, n); sw += log(mw); sc += log(mc)
			if (mw > ww) ww = mw; if (mc > wc) wc = mc
			printf "| %s | **%.3f** (%s) | **%.3f** (%s) |\n", k, mw, rng(a, n), mc, rng(b, n) }
		gwall = exp(sw / nk); gcpu = exp(sc / nk)
		printf "| **geomean** (%d kernels) | **%.3f** | **%.3f** |\n", nk, gwall, gcpu
		printf "\nGoal (geomean <= %.2f, none above %.2f) by the per-pair medians: %s by wall time, %s by CPU time.\n",
			gg, gw, (gwall <= gg && ww <= gw) ? "met" : "NOT met", (gcpu <= gg && wc <= gw) ? "met" : "NOT met"
	}' "$1"
}

# table_head NATIVE_LABEL NODE: the header of a ratio_table
table_head() {
	h="| kernel | $1 | mpiwasm s | mpiwasm/native | native CPU s | mpiwasm CPU s | CPU ratio |"
	u="| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	if [ -n "$WASM_RUN_NV" ]; then
		h="$h no-versioning s | no-versioning/native |"; u="$u ---: | ---: |"
	fi
	if [ -n "$WASM_RUN_BASE" ]; then
		h="$h baseline CPU s | baseline CPU ratio |"; u="$u ---: | ---: |"
	fi
	if [ "$2" = 1 ]; then h="$h node s | node/native |"; u="$u ---: | ---: |"; fi
	echo "$h warm-up s | status |"
	echo "$u ---: | --- |"
}

# simd_vs_scalar: per kernel, the SIMD build's time over the scalar build's
# (both under mpiwasm, with and without loop versioning), and native -O3
# over native -O2 (below 1 where the native compiler vectorizes).
simd_vs_scalar() {
	awk -v nv="$([ -n "$WASM_RUN_NV" ] && echo 1 || echo 0)" '
	function q(a, b) { return (a == "nan" || b == "nan" || b <= 0) ? "-" : sprintf("%.3f", a / b) }
	FNR == NR { n[$1] = $2; w[$1] = $3; v[$1] = $4; next }
	($1 in n) {
		line = "| " $1 " | " q($2, n[$1]) " | **" q($3, w[$1]) "** |"
		if (nv) line = line " " q($4, v[$1]) " |"
		print line
	}' "$T/short.scalar" "$T/short.simd"
}

if [ "$VS_O3" = 1 ]; then
{
	echo "## Scalar wasm build against native -O3 -march=native (goal: geomean <= 1.05, none above 1.15)"
	echo
	echo "\`BENCH_VS_O3=1 sh bench/kernels/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'): $cpu, $ncpu cores"
	echo "shared with other jobs, load average **$load0** at the start, **$load1** at the end."
	echo "Native: $ccver, \`${BENCH_NATIVE_SIMD_FLAGS:--std=gnu11 -ffp-contract=off -O3 -march=native}\`;"
	echo "wasm: $clangver, \`${BENCH_WASM_FLAGS:--std=gnu11 -ffp-contract=off -O2}\`, run with"
	echo "\`$WASM_RUN_SHOWN\` (${engver:-version unknown}). Each kernel's own best-of-N, median of $RUNS"
	echo "alternating native/wasm runs; CPU = CLOCK_PROCESS_CPUTIME_ID."
	echo
	table_head "native -O3 s" 0
	ratio_table "$T/rows.scalar" 0 1.05 1.15
	echo
	echo "The same runs as medians of the per-pair ratios (each wasm run over the native run just"
	echo "before it), with their range:"
	echo
	echo "| kernel | wall ratio | CPU ratio |"
	echo "| --- | ---: | ---: |"
	pair_table "$T/pairs.scalar" 1.05 1.15
} >"$T/report"
mv "$T/report" "$REPORT" 2>/dev/null || cp "$T/report" "$REPORT" || die "cannot write $REPORT"
echo "run.sh: wrote $REPORT" >&2
cat "$REPORT"
exit 0
fi
{
	echo "# Kernel benchmarks: mpiwasm vs native"
	echo
	echo "Generated by \`make bench-kernels\` (bench/kernels/run.sh) on $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo
	echo "- CPU: $cpu, $ncpu cores visible (shared with other jobs: load average $load0 at start, $load1 at end)"
	echo "- native: $ccver, \`${BENCH_NATIVE_FLAGS:-see bench/rules.mk}\`"
	echo "- wasm: $clangver, \`--target=wasm32-wasi ${BENCH_WASM_FLAGS:-}\`, run with \`$WASM_RUN_SHOWN\` (${engver:-version unknown})"
	[ -n "$WASM_RUN_BASE" ] && echo "- baseline: \`$BENCH_BASELINE\` (${basever:-version unknown}), run in the same alternation with its own cache; its columns are CPU time, to compare with \"CPU ratio\""
	echo "- both sides built with \`-ffp-contract=off\` so floating-point results are bit-identical"
	echo "- time = the kernel's own best-of-N (CLOCK_MONOTONIC around the hot loop);"
	echo "  median of $RUNS runs, native and wasm alternating; the wasm warm-up run (which fills an"
	echo "  empty compile cache, so its wall time, \"warm-up s\", is translate + cc + one repetition)"
	echo "  is not counted"
	echo "- CPU s = the same for process CPU time (CLOCK_PROCESS_CPUTIME_ID): on this shared machine"
	echo "  it is the steadier of the two, since time spent descheduled is not counted"
	echo
	echo "What makes the slower kernels slower: [FINDINGS.md](FINDINGS.md)."
	echo
	echo "## Scalar kernels (goal: geomean <= 1.10, none above 1.25)"
	echo
	table_head "native s" $use_node
	ratio_table "$T/rows.scalar" $use_node 1.10 1.25
	echo
	echo "## SIMD variant (wasm \`-O3 -msimd128\` vs native \`-O3 -march=native\`)"
	echo
	echo "SIMD instructions in each .simd.wasm (wasm-objdump -d):"
	awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 } END { print "" }' "$T/simdops"
	echo
	table_head "native -O3 s" 0
	ratio_table "$T/rows.simd" 0 1.15 0
	echo
	echo "### SIMD build vs scalar build"
	echo
	echo "Time of the \`-msimd128\` build over the scalar build, both run by mpiwasm; native"
	echo "-O3 over native -O2 says where the native compiler vectorizes (below 1)."
	echo "Goal: the SIMD build faster than the scalar one where native vectorizes."
	echo
	if [ -n "$WASM_RUN_NV" ]; then
		echo "| kernel | native -O3/-O2 | mpiwasm SIMD/scalar | same, --no-loop-versioning |"
		echo "| --- | ---: | ---: | ---: |"
	else
		echo "| kernel | native -O3/-O2 | mpiwasm SIMD/scalar |"
		echo "| --- | ---: | ---: |"
	fi
	simd_vs_scalar
	echo
	echo "## Cold compile of a large module"
	echo
	echo "\`bench/kernels/coldcompile.sh\` ($coldrc): \`mpiwasm compile --timings\` of"
	echo "\`gen-big.sh\` output with an empty cache (cold), then of the same program with"
	echo "a few functions changed (edit), into the cache the cold run filled."
	echo
	cat "$T/coldtab"
	echo
	echo "For scale, \`${BENCH_CC:-cc} -O2 -march=native -c big.c\` (the C source of that module): $natcc."
	echo
	echo '```'
	cat "$T/cold"
	echo '```'
	echo
	echo "## Start-up: trivial program, cached, vs native (hyperfine -N)"
	echo
	cat "$T/hf.md"
} >"$T/report"
mv "$T/report" "$REPORT" 2>/dev/null || cp "$T/report" "$REPORT" || die "cannot write $REPORT"
echo "run.sh: wrote $REPORT" >&2
cat "$REPORT"
