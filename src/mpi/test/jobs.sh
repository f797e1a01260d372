#!/bin/sh
# src/mpi/test/jobs.sh - whole jobs through both engines (Open MPI's and
# MPICH's builds of mpiwasm) and both launchers: a launcher of the other
# library is refused, MPICH reports no leaks the program did not make,
# errors outside Init..Finalize and host errors read as one line, the
# line before MPI_Abort's banner says mpiwasm called it; plus the bridge's
# wasm test programs.  Last line: `check-mpib-jobs: N passed, N failed`.
#   OMPI_B (build)  MPICH_B (build-mpich)  CC_W ($OMPI_B/mpiwasm-cc)  OUT
set -u
{
here=$(cd "$(dirname "$0")" && pwd)
OMPI_B=${OMPI_B:-build}
MPICH_B=${MPICH_B:-build-mpich}
CC_W=${CC_W:-$OMPI_B/mpiwasm-cc}
OUT=${OUT:-$OMPI_B/mpib-jobs}
T=${T:-120}
mkdir -p "$OUT" || exit 1
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
L_openmpi="mpirun.openmpi --oversubscribe -np"
L_mpich="mpirun.mpich -np"
L_none=
E_openmpi=$OMPI_B/mpiwasm
E_mpich=$MPICH_B/mpiwasm
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
show() { sed -n '1,12s/^/     | /p' "$1"; }
# one_or_more FILE PROC TEXT: at least one line "mpiwasm: rank R: TEXT" in
# FILE, and every line of mpiwasm's that names PROC is such a line.
one_or_more() {
	n=$(grep -cx "mpiwasm: rank [01]: $3" "$1")
	all=$(grep -c "^mpiwasm: .*$2" "$1")
	[ "$n" -ge 1 ] && [ "$n" = "$all" ]
}

# job NAME LAUNCHER-MPI ENGINE-MPI NP MODULE ARGS...: output in $OUT/NAME.out
# (stdout) and $OUT/NAME.err (stderr), status in $rc
job() {
	n=$1 lm=$2 em=$3 np=$4; shift 4
	eval "l=\$L_$lm e=\$E_$em"
	rc=0
	if [ "$lm" = none ]; then
		timeout "$T" "$e" -q "$@" > "$OUT/$n.out" 2> "$OUT/$n.err" || rc=$?
	else
		# shellcheck disable=SC2086
		timeout "$T" $l "$np" "$e" -q "$@" > "$OUT/$n.out" 2> "$OUT/$n.err" || rc=$?
	fi
}

for e in "$E_openmpi" "$E_mpich"; do
	[ -x "$e" ] || { echo "check-mpib-jobs: no engine $e"; echo "check-mpib-jobs: 0 passed, 1 failed"; exit 1; }
done
W=$OUT/jobs.wasm
if ! "$CC_W" -O1 -Wall -Wextra -o "$W" "$here/jobs.c" > "$OUT/build.err" 2>&1; then
	bad "jobs.c: wasm build"; show "$OUT/build.err"
	echo "check-mpib-jobs: $pass passed, $fail failed"; exit 1
fi
"$E_openmpi" compile "$W" > /dev/null 2>&1
"$E_mpich" compile "$W" > /dev/null 2>&1

# ---- 1. the launcher must belong to the engine's library ------------------
job cross_o_m openmpi mpich 2 "$W" ranks
if [ "$rc" != 0 ] && ! grep -q "ranks=" "$OUT/cross_o_m.out" &&
   grep -q "^mpiwasm: this mpiwasm is built for MPICH .* started by Open MPI's launcher (OMPI_COMM_WORLD_SIZE=2).*use mpiexec.mpich" "$OUT/cross_o_m.err"; then
	ok "MPICH engine under Open MPI's mpirun: refused with one line (exit $rc)"
else bad "MPICH engine under Open MPI's mpirun (exit $rc)"; show "$OUT/cross_o_m.out"; show "$OUT/cross_o_m.err"; fi
job cross_m_o mpich openmpi 2 "$W" ranks
if [ "$rc" != 0 ] && ! grep -q "ranks=" "$OUT/cross_m_o.out" &&
   grep -q "^mpiwasm: this mpiwasm is built for Open MPI .* started by MPICH's launcher.*(PMI_SIZE=2).*use mpirun.openmpi" "$OUT/cross_m_o.err"; then
	ok "Open MPI engine under MPICH's mpirun: refused with one line (exit $rc)"
else bad "Open MPI engine under MPICH's mpirun (exit $rc)"; show "$OUT/cross_m_o.out"; show "$OUT/cross_m_o.err"; fi
for m in openmpi mpich; do
	job same_$m $m $m 2 "$W" ranks
	if [ "$rc" = 0 ] && [ "$(grep -c "ranks=2" "$OUT/same_$m.out")" = 2 ] && [ ! -s "$OUT/same_$m.err" ]; then
		ok "$m engine under its own launcher: 2 ranks, stderr empty"
	else bad "$m engine under its own launcher (exit $rc)"; show "$OUT/same_$m.out"; show "$OUT/same_$m.err"; fi
	job single_$m none $m 1 "$W" ranks
	if [ "$rc" = 0 ] && grep -qx "rank 0 ranks=1" "$OUT/single_$m.out" && [ ! -s "$OUT/single_$m.err" ]; then
		ok "$m engine without a launcher: a 1-process job"
	else bad "$m engine without a launcher (exit $rc)"; show "$OUT/single_$m.out"; show "$OUT/single_$m.err"; fi
done

# ---- 2. MPICH: no leak warnings but the program's own ----------------------
job ld mpich mpich 2 "$W" longdouble
if [ "$rc" = 0 ] && [ "$(grep -c "longdouble ok" "$OUT/ld.out")" = 2 ] && ! grep -q leaked "$OUT/ld.err"; then
	ok "MPICH: bridge-made datatypes work and are freed (no yaksa warning)"
else bad "MPICH: bridge-made datatypes (exit $rc)"; show "$OUT/ld.out"; show "$OUT/ld.err"; fi
if mpicc.mpich -O1 -o "$OUT/jobs.mpich" "$here/jobs.c" > "$OUT/native.err" 2>&1; then
	rc=0
	timeout "$T" mpirun.mpich -np 2 "$OUT/jobs.mpich" leak > /dev/null 2> "$OUT/leak.native.err" || rc=$?
	job leak mpich mpich 2 "$W" leak
	nw=$(grep leaked "$OUT/leak.native.err" | sort)
	ww=$(grep leaked "$OUT/leak.err" | sort)
	if [ "$rc" = 0 ] && [ -n "$nw" ] && [ "$nw" = "$ww" ]; then
		ok "MPICH: a datatype the program leaks is reported as natively ($(echo "$nw" | head -1))"
	else bad "MPICH: leaked datatype: native '$nw', wasm '$ww' (exit $rc)"; fi
else bad "jobs.c: native MPICH build"; show "$OUT/native.err"; fi

# ---- 3. error lines ---------------------------------------------------------
for m in openmpi mpich; do
	job early_$m $m $m 2 "$W" early
	# Both ranks make the bad call, but the launcher ends the job as soon
	# as the first of them exits: whether the other one has printed by
	# then is a race, so at least one line, and every such line exact.
	if [ "$rc" != 0 ] && one_or_more "$OUT/early_$m.err" "MPI_Comm_rank" "MPI_Comm_rank: MPI is not initialized (call MPI_Init first); ending this process" &&
	   ! grep -q "invalid communicator" "$OUT/early_$m.err"; then
		ok "$m: a call before MPI_Init says MPI is not initialized"
	else bad "$m: call before MPI_Init (exit $rc)"; show "$OUT/early_$m.err"; fi
	job late_$m $m $m 2 "$W" late
	if [ "$rc" != 0 ] && one_or_more "$OUT/late_$m.err" "MPI_Comm_size" "MPI_Comm_size: MPI has been finalized; ending this process" &&
	   ! grep -q "MPI_FINALIZE\|finalizing MPICH" "$OUT/late_$m.err"; then
		ok "$m: a call after MPI_Finalize says MPI has been finalized"
	else bad "$m: call after MPI_Finalize (exit $rc)"; show "$OUT/late_$m.err"; fi
	job badrank_$m $m $m 2 "$W" badrank
	lines=$(grep -c "^mpiwasm: rank [01]: MPI_Send: [^()]* (MPI_ERR_RANK); ending the job (mpiwasm calls MPI_Abort with errorcode [0-9]*)$" "$OUT/badrank_$m.err")
	if [ "$rc" != 0 ] && [ "$lines" -ge 1 ] && ! grep -q "MPI_ERR_RANK: \|error stack\|^internal_" "$OUT/badrank_$m.err"; then
		ok "$m: a host error is one line, its class named once ($(grep -m1 "^mpiwasm: " "$OUT/badrank_$m.err" | cut -c1-60)...)"
	else bad "$m: host error line (exit $rc)"; show "$OUT/badrank_$m.err"; fi
	# the line naming the cause, then mpiwasm's line, then the banner
	order=1
	for i in 1 2 3; do
		rc=0
		# shellcheck disable=SC2086
		eval "timeout \"\$T\" \$L_$m 2 \"\$E_$m\" -q \"\$W\" trap > \"\$OUT/trap_$m.all\" 2>&1" || rc=$?
		a=$(grep -n "^mpiwasm: rank 1: trap: " "$OUT/trap_$m.all" | head -1 | cut -d: -f1)
		b=$(grep -n "^mpiwasm: rank 1: ending the job after the error above (mpiwasm calls MPI_Abort with errorcode 134; the program did not call MPI_Abort)$" "$OUT/trap_$m.all" | head -1 | cut -d: -f1)
		# Open MPI 4.1.4 itself often loses the banner to "ORTE_ERROR_LOG:
		# Data unpack would read past end of buffer in show_help.c" (6 of 10
		# native runs of a program calling MPI_Abort): that stands for it.
		c=$(grep -n "MPI_ABORT was invoked\|application called MPI_Abort\|ORTE_ERROR_LOG: .*show_help" "$OUT/trap_$m.all" | head -1 | cut -d: -f1)
		# The banner is the library's, written as the job is torn down:
		# the launcher sometimes stops forwarding before it arrives (MPICH
		# hydra lost it in 1 of 12 runs), so only where it appears must it
		# come after mpiwasm's lines.
		if [ "$rc" = 0 ] || [ -z "$a" ] || [ -z "$b" ] || [ "$a" -ge "$b" ] ||
		   { [ -n "$c" ] && [ "$b" -ge "$c" ]; }; then
			order=0; break
		fi
	done
	if [ "$order" = 1 ]; then
		ok "$m: trap line, then 'mpiwasm calls MPI_Abort', then the banner where it shows (3 runs)"
	else bad "$m: trap and abort lines out of order in run $i (exit $rc)"; show "$OUT/trap_$m.all"; fi
done

# ---- the bridge's wasm test programs ---------------------------------------
for t in attrs paths; do
	if ! "$CC_W" -O1 -Wall -Wextra -o "$OUT/wasm_$t.wasm" "$here/wasm_$t.c" > "$OUT/wasm_$t.build" 2>&1; then
		bad "wasm_$t.c: wasm build"; show "$OUT/wasm_$t.build"; continue
	fi
	for m in openmpi mpich; do
		job wasm_${t}_$m $m $m 2 "$OUT/wasm_$t.wasm"
		if [ "$rc" = 0 ] && grep -q "^t[0-9]: [0-9]* passed, 0 failed$" "$OUT/wasm_${t}_$m.out" && ! grep -q leaked "$OUT/wasm_${t}_$m.err"; then
			ok "wasm_$t on $m: $(grep "passed" "$OUT/wasm_${t}_$m.out")"
		else bad "wasm_$t on $m (exit $rc)"; show "$OUT/wasm_${t}_$m.out"; show "$OUT/wasm_${t}_$m.err"; fi
	done
done

echo "check-mpib-jobs: $pass passed, $fail failed"
[ "$fail" = 0 ]
exit
}
