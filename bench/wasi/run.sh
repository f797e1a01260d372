#!/bin/sh
# bench/wasi/run.sh BUILD_DIR - WASI I/O, native vs wasm in one run;
# writes bench/wasi/REPORT.md.
#
#  - ior (IOR-style: sequential write, fsync, sequential read of a file
#    per process) at 4 KiB and 1 MiB transfers, SIZE_MIB per process;
#  - the same as an MPI job (mpirun -np 2, a file per rank) when
#    BUILD_DIR/bench/wasi/ior_mpi{,.wasm} were built;
#  - smallops: per-call microseconds of open, close, stat, fstat, 1-byte
#    write and read.
# Native and wasm runs alternate (native first in odd repetitions, wasm
# first in even ones) so that drift on a shared machine hits both alike;
# each figure is the median of REPS runs, with the min-max spread; the
# file system is synced before each run so that one run's writeback does
# not land in the next one's timing.  The compile cache is warmed first.
# Environment: MPIWASM (engine), REPS (7), SIZE_MIB (512), SMALL_N
# (20000), MPIRUN (command to start a 2-rank job).
B=${1:-build}
T=$(cd "$B/bench/wasi" && pwd) || exit 1
MPIWASM=${MPIWASM:-$B/mpiwasm}
MPIWASM=$(cd "$(dirname "$MPIWASM")" && pwd)/$(basename "$MPIWASM")
REPS=${REPS:-7}
SIZE_MIB=${SIZE_MIB:-512}
SMALL_N=${SMALL_N:-20000}
REPORT=$(pwd)/bench/wasi/REPORT.md
NOTES=$(pwd)/bench/wasi/ANALYSIS.md   # appended to the report
if [ -z "${MPIRUN:-}" ]; then
	if [ "${MPI:-openmpi}" = mpich ]; then MPIRUN=mpiexec.mpich
	else MPIRUN="env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi"
	fi
fi
[ -x "$MPIWASM" ] || { echo "bench-wasi: $MPIWASM is not built" >&2; exit 1; }
d=$(mktemp -d /tmp/bench-wasi.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1
mkdir run
export MPIWASM_CACHE_DIR="$d/cache"
avail=$(df -Pm "$d" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt $((SIZE_MIB * 3)) ]; then
	echo "bench-wasi: $d has $avail MiB free, need $((SIZE_MIB * 3))" >&2
	exit 1
fi

fail() { echo "bench-wasi: $*" >&2; exit 1; }
# run KIND OUTFILE CMD...: one timed program run in run/, output appended
run() {
	kind=$1 out=$2; shift 2
	sync -f run 2>/dev/null || sync
	(cd run && "$@") >> "$out.$kind" 2> run.err || {
		cat run.err >&2; fail "$kind run failed: $*"; }
}
# pair TAG NATIVE_CMD -- WASM_CMD: REPS interleaved runs into TAG.native
# and TAG.wasm
pair() {
	tag=$1; shift
	nat=""
	while [ "$1" != "--" ]; do nat="$nat '$1'"; shift; done
	shift
	: > "$tag.native"; : > "$tag.wasm"
	for i in $(seq "$REPS"); do
		if [ $((i % 2)) = 1 ]; then
			eval run native "$tag" "$nat"; run wasm "$tag" "$@"
		else
			run wasm "$tag" "$@"; eval run native "$tag" "$nat"
		fi
	done
}

# stats NATIVE WASM EXPR LABEL UNIT: one table row.  EXPR computes the
# figure from a line's fields ($1 MiB, $2 write s, $3 fsync s, $4 read s
# for ior; $k for smallops).  Median and min-max of each side, ratio of
# the medians (wasm/native) and the range of the per-pair ratios.
stats() {
	paste -d' ' "$1" "$2" | awk -v label="$4" -v expr="$3" -v kind="$5" '
	function val(s,   f) {
		split(s, f, " ")
		if (expr == "wbw") return f[1] / f[2]
		if (expr == "fs") return f[3] * 1000
		if (expr == "wfbw") return f[1] / (f[2] + f[3])
		if (expr == "rbw") return f[1] / f[4]
		if (expr == "wcpu") return f[1] / f[5]
		if (expr == "rcpu") return f[1] / f[6]
		return f[expr + 0]
	}
	function med(a, n,   i, j, t, b) {
		for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && b[j - 1] > b[j]; j--) {
				t = b[j]; b[j] = b[j - 1]; b[j - 1] = t }
		lo = b[1]; hi = b[n]
		return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
	}
	{
		h = NF / 2; a = ""; b = ""
		for (i = 1; i <= h; i++) { a = a " " $i; b = b " " $(i + h) }
		n[NR] = val(a); w[NR] = val(b); r[NR] = w[NR] / n[NR]
	}
	END {
		mn = med(n, NR); nlo = lo; nhi = hi
		mw = med(w, NR); wlo = lo; whi = hi
		med(r, NR); rlo = lo; rhi = hi
		if (kind == "us")
			printf "| %s | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %+.3f |\n",
			       label, mn, nlo, nhi, mw, wlo, whi, mw - mn
		else
			printf "| %s | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %.3f | %.3f-%.3f |\n",
			       label, mn, nlo, nhi, mw, wlo, whi, mw / mn, rlo, rhi
	}'
}

ior_table() {   # ior_table TAG XFER_LABEL
	stats "$1.native" "$1.wasm" wbw "$2 | write (no fsync), MiB/s"
	stats "$1.native" "$1.wasm" fs "$2 | fsync, ms"
	stats "$1.native" "$1.wasm" wfbw "$2 | write+fsync, MiB/s"
	stats "$1.native" "$1.wasm" rbw "$2 | read, MiB/s"
	stats "$1.native" "$1.wasm" wcpu "$2 | write, MiB per CPU-second"
	stats "$1.native" "$1.wasm" rcpu "$2 | read, MiB per CPU-second"
}

echo "bench-wasi: warming the compile cache" >&2
(cd run && "$MPIWASM" -q --dir . "$T/ior.wasm" 4096 1 > /dev/null &&
 "$MPIWASM" -q --dir . "$T/smallops.wasm" 256 > /dev/null) ||
	fail "the wasm programs do not run"
for x in 4096 1048576; do
	echo "bench-wasi: ior, $x-byte transfers, $REPS x 2 runs" >&2
	pair "ior$x" "$T/ior" $x "$SIZE_MIB" -- \
		"$MPIWASM" -q --dir . "$T/ior.wasm" $x "$SIZE_MIB"
done
have_mpi=0
mpi_why="$T/ior_mpi or $T/ior_mpi.wasm was not built"
if [ -x "$T/ior_mpi" ] && [ -f "$T/ior_mpi.wasm" ]; then
	if (cd run && timeout 120 $MPIRUN -np 2 "$MPIWASM" -q --dir . \
	    "$T/ior_mpi.wasm" 4096 1 > /dev/null 2> ../mpi.err); then
		have_mpi=1
		for x in 4096 1048576; do
			echo "bench-wasi: ior, MPI job of 2 ranks, $x-byte transfers" >&2
			pair "mpi$x" $MPIRUN -np 2 "$T/ior_mpi" $x "$SIZE_MIB" -- \
				$MPIRUN -np 2 "$MPIWASM" -q --dir . "$T/ior_mpi.wasm" \
				$x "$SIZE_MIB"
		done
	else
		mpi_why="the wasm MPI job failed: $(head -1 mpi.err)"
	fi
fi
echo "bench-wasi: smallops, $SMALL_N calls each" >&2
pair small "$T/smallops" "$SMALL_N" -- \
	"$MPIWASM" -q --dir . "$T/smallops.wasm" "$SMALL_N"

hdr="| transfer | figure | native median (min-max) | wasm median (min-max) | wasm/native (medians) | wasm/native per pair (min-max) |
| --- | --- | --- | --- | --- | --- |"
{
echo "# WASI I/O: wasm (mpiwasm) vs native"
echo
echo "Generated by \`make bench-wasi\` (bench/wasi/run.sh) on $(date -u '+%Y-%m-%d %H:%M UTC');"
echo "$(uname -sr), $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "$REPS repetitions of every run, native and wasm interleaved (alternating"
echo "which goes first); figures are medians with the min-max over the"
echo "repetitions; the per-pair column is the spread of wasm/native over the"
echo "$REPS adjacent native+wasm pairs.  Files live in a fresh directory under"
echo "/tmp ($(df -PT "$d" | awk 'NR == 2 { print $2 }')); the file system is synced before every run."
echo
echo "## IOR-style sequential I/O, one process, ${SIZE_MIB} MiB file"
echo
echo "Write phase: write() calls, then fsync() timed on its own; read phase:"
echo "the file just written (page cache), read() calls.  MiB/s is wall-clock"
echo "bandwidth; \"MiB per CPU-second\" divides by the process's CPU time in the"
echo "loop instead, which does not count waiting for a core (the machine is"
echo "shared) or being throttled by writeback: it shows the cost of the calls."
echo
echo "$hdr"
ior_table ior4096 "4 KiB"
ior_table ior1048576 "1 MiB"
echo
echo "## The same as an MPI job: mpirun -np 2, a ${SIZE_MIB} MiB file per rank"
echo
if [ $have_mpi = 1 ]; then
	echo "Times are the slowest rank's (MPI_Reduce MAX); MiB/s is per rank."
	echo
	echo "$hdr"
	ior_table mpi4096 "4 KiB"
	ior_table mpi1048576 "1 MiB"
else
	echo "Not run: $mpi_why."
fi
echo
echo "## Small operations, microseconds per call ($SMALL_N calls each)"
echo
echo "| operation | native us/call median (min-max) | wasm us/call median (min-max) | overhead us/call (medians) |"
echo "| --- | --- | --- | --- |"
stats small.native small.wasm 1 "open (O_RDONLY, name in the preopen)" us
stats small.native small.wasm 2 "close" us
stats small.native small.wasm 3 "stat (name in the preopen)" us
stats small.native small.wasm 4 "stat (dir/name)" us
stats small.native small.wasm 5 "fstat" us
stats small.native small.wasm 6 "write 1 byte" us
stats small.native small.wasm 7 "read 1 byte" us
} > report.md || exit 1
if [ -f "$NOTES" ]; then
	cat "$NOTES" >> report.md
fi
cp report.md "$REPORT"
cat "$REPORT"
