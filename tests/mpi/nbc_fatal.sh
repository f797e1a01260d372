#!/bin/sh
# tests/mpi/nbc_fatal.sh - wasm only: a nonblocking / neighborhood
# collective with a buffer outside linear memory, under
# MPI_ERRORS_ARE_FATAL, ends the job promptly with one line naming the
# procedure and MPI_ERR_BUFFER; a trap in a user op applied while a
# nonblocking reduction completes ends the job too (tests/mpi/nbc_fatal.c).
# Environment as tests/mpi/run.sh: B (build dir), MPI (openmpi|mpich).
# Last line: `nbc-fatal-MPI: N passed, N failed`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${B:-build}" && pwd) || { echo "tests/mpi/nbc_fatal.sh: no build dir"; exit 1; }
MPI=${MPI:-openmpi}
OUT=${OUT:-$B/tests/mpi/$MPI}
case $MPI in
openmpi) LAUNCH="mpirun.openmpi --oversubscribe -np"
	[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
mpich) LAUNCH="mpirun.mpich -np" ;;
*) echo "tests/mpi/nbc_fatal.sh: MPI must be openmpi or mpich"; exit 1 ;;
esac
mkdir -p "$OUT" || exit 1
pass=0 fail=0
w=$OUT/nbc_fatal.wasm
if ! "$B/mpiwasm-cc" -O2 -Wall -Wextra -o "$w" "$here/nbc_fatal.c" > "$w.build" 2>&1; then
	echo "FAIL nbc_fatal: wasm build"; sed -n '1,12s/^/     | /p' "$w.build"
	echo "nbc-fatal-$MPI: 0 passed, 1 failed"; exit 1
fi
for m in iallreduce:MPI_Iallreduce alltoallw:MPI_Ineighbor_alltoallw optrap:trap; do
	mode=${m%%:*} proc=${m#*:}
	o=$OUT/nbc_fatal.$mode
	rc=0
	timeout 60 $LAUNCH 2 "$B/mpiwasm" "$w" "$mode" > "$o.out" 2> "$o.err" || rc=$?
	if [ "$rc" = 0 ] || [ "$rc" = 124 ]; then
		fail=$((fail + 1)); echo "FAIL nbc_fatal $mode: exit $rc (expected the job to end with an error)"
	elif grep -q "survived" "$o.out"; then
		fail=$((fail + 1)); echo "FAIL nbc_fatal $mode: code after the failed call ran"
	elif [ "$mode" = optrap ] && grep -Eiq "^mpiwasm: rank [01]: .*trap" "$o.err"; then
		pass=$((pass + 1)); echo "ok   nbc_fatal $mode: job ended (exit $rc), message names the trap"
	elif grep -q "^mpiwasm: rank 1: $proc: buffer lies outside linear memory (MPI_ERR_BUFFER)" "$o.err"; then
		pass=$((pass + 1)); echo "ok   nbc_fatal $mode: job ended (exit $rc), message names $proc"
	else
		fail=$((fail + 1)); echo "FAIL nbc_fatal $mode: no message naming $proc"
		sed -n '1,12s/^/     | /p' "$o.err"
	fi
done
echo "nbc-fatal-$MPI: $pass passed, $fail failed"
[ "$fail" = 0 ]
