#!/bin/sh
# tests/threads/run.sh - the threads suite (`make check-threads`):
#  1. progs/t_*.c built with gcc -pthread and with mpiwasm-cc -pthread,
#     run natively and under mpiwasm in a fresh scratch directory, REPEAT
#     times each (threads make failures intermittent): stdout and exit
#     status identical every time;
#  2. t_trap (wasm only): a trap in a worker thread ends the process with
#     status 134 and a message naming the thread;
#  3. wat/*.wat: the engine's thread-spawn alone (w_spawn), and refusals
#     of modules that cannot run threads (n_*);
#  4. progs/h_mpi.c: MPI_THREAD_MULTIPLE, two threads per rank calling
#     MPI at once, at 1, 2 and 4 ranks, native against wasm; h_trap.c: a
#     trap in a worker thread of one rank ends the job, naming both.
#  0. the driver's -pthread flags (and none without it).
# Last line: `threads: N passed, M failed`.
#
# Environment: B (build dir, default build), MPI (openmpi or mpich),
# MPIWASM (default $B/mpiwasm), REPEAT (default 3).
set -u
{
B=${B:-build}
B=$(cd "$B" && pwd) || { echo "tests/threads/run.sh: no build dir $B"; exit 1; }
T=$B/tests/threads
MPI=${MPI:-openmpi}
MPIWASM=${MPIWASM:-$B/mpiwasm}
REPEAT=${REPEAT:-3}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
PROGS="t_mutex t_cond t_sync t_tsd t_detach t_libc t_exit t_mainexit"
case $MPI in
openmpi)
	LAUNCH="mpirun.openmpi --oversubscribe -np"
	if [ "$(id -u)" = 0 ]; then
		export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	fi ;;
mpich) LAUNCH="mpirun.mpich -np" ;;
*) echo "tests/threads/run.sh: MPI must be openmpi or mpich, not $MPI"; exit 1 ;;
esac

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
excerpt() { [ -f "$1" ] && sed -n '1,12s/^/     | /p' "$1"; }
scratch=$(mktemp -d /tmp/mpiwasm-threads.XXXXXX) || exit 1
trap 'rm -rf "$scratch"' EXIT INT TERM

# Runs "$@" in a fresh directory under the scratch dir: writes $1.out,
# $1.err there (named by the first argument, a label), sets $rc.
run_in() {
	label=$1
	shift
	d=$scratch/$label.d
	rm -rf "$d" && mkdir -p "$d"
	(cd "$d" && timeout "$RUN_TIMEOUT" "$@" > "$scratch/$label.out" 2> "$scratch/$label.err")
	rc=$?
	rm -rf "$d"
}

# ---- 0. the driver ----------------------------------------------------------
CC_W=$B/mpiwasm-cc
pl=$("$CC_W" -pthread -showme:link 2>&1) pc=$("$CC_W" -pthread -showme:compile 2>&1)
l=$("$CC_W" -showme:link 2>&1) c=$("$CC_W" -showme:compile 2>&1)
case "$pc|$pl" in
*-matomics*-mbulk-memory*include/pthread*"|"*libmpiwasm-pthread.a*--wrap=fopen*--shared-memory*--max-memory=*--no-check-features*)
	case "$c|$l" in
	*atomics*|*pthread*|*shared-memory*|*--wrap*) bad "driver: a build without -pthread gets thread flags: $c | $l" ;;
	*) ok "driver: -pthread adds atomics, <pthread.h>, the library and a shared memory; a plain build nothing" ;;
	esac ;;
*) bad "driver: -pthread flags: $pc | $pl" ;;
esac

# ---- 1. native against wasm ---------------------------------------------
for p in $PROGS; do
	why=
	i=0
	while [ $i -lt "$REPEAT" ] && [ -z "$why" ]; do
		i=$((i + 1))
		run_in n "$T/$p"; nrc=$rc
		run_in w "$MPIWASM" -q --dir . "$T/$p.wasm"; wrc=$rc
		if grep -q FAIL "$scratch/n.out"; then
			why="native run $i reports failures"; excerpt "$scratch/n.out"
		elif [ "$nrc" != "$wrc" ]; then
			why="run $i: exit status native $nrc, wasm $wrc"; excerpt "$scratch/w.err"
		elif ! cmp -s "$scratch/n.out" "$scratch/w.out"; then
			why="run $i: outputs differ"
			diff "$scratch/n.out" "$scratch/w.out" | sed -n '1,12s/^/     | /p'
		fi
	done
	if [ -z "$why" ]; then ok "$p: native and wasm agree ($REPEAT runs)"; else bad "$p: $why"; fi
done

# ---- 2. a trap in a worker thread ----------------------------------------
why=
i=0
while [ $i -lt "$REPEAT" ] && [ -z "$why" ]; do
	i=$((i + 1))
	run_in w "$MPIWASM" -q "$T/t_trap.wasm"
	if [ "$rc" != 134 ]; then
		why="run $i: status $rc, not 134"
	elif ! grep -Eq '^mpiwasm: thread [1-9][0-9]*: trap: integer divide by zero in ' "$scratch/w.err"; then
		why="run $i: no message naming the thread"
	elif grep -q 'join returned' "$scratch/w.out"; then
		why="run $i: the main thread went on"
	fi
done
if [ -z "$why" ]; then ok "t_trap: status 134, message names the thread"; else bad "t_trap: $why"; excerpt "$scratch/w.err"; fi

# ---- 3. the engine alone -------------------------------------------------
i=0
why=
while [ $i -lt "$REPEAT" ] && [ -z "$why" ]; do
	i=$((i + 1))
	run_in w "$MPIWASM" -q "$T/w_spawn.wasm"
	[ "$rc" = 6 ] || why="run $i: status $rc, want 6 (the sum of thread ids 1..3)"
done
if [ -z "$why" ]; then ok "w_spawn: three threads, atomic wait/notify"; else bad "w_spawn: $why"; excerpt "$scratch/w.err"; fi
for c in "n_unshared:memory 0 is not shared" \
	"n_nostart:the module exports no wasi_thread_start"; do
	n=${c%%:*} msg=${c#*:}
	run_in w "$MPIWASM" -q "$T/$n.wasm"
	if [ "$rc" = 134 ] && grep -q "thread-spawn: .*$msg" "$scratch/w.err"; then
		ok "$n: refused: $msg"
	else
		bad "$n: status $rc, want 134 and \"$msg\""; excerpt "$scratch/w.err"
	fi
done

# ---- 4. hybrid MPI --------------------------------------------------------
if [ ! -x "$T/h_mpi" ]; then
	echo "skip h_mpi: no native MPI compiler wrapper for $MPI (built nothing)"
else
	for np in 1 2 4; do
		why=
		i=0
		while [ $i -lt "$REPEAT" ] && [ -z "$why" ]; do
			i=$((i + 1))
			run_in n $LAUNCH "$np" "$T/h_mpi"; nrc=$rc
			run_in w $LAUNCH "$np" "$MPIWASM" -q "$T/h_mpi.wasm"; wrc=$rc
			if [ "$nrc" != 0 ] || [ "$wrc" != 0 ]; then
				why="run $i: exit status native $nrc, wasm $wrc"; excerpt "$scratch/w.err"
			elif ! cmp -s "$scratch/n.out" "$scratch/w.out"; then
				why="run $i: outputs differ"
				diff "$scratch/n.out" "$scratch/w.out" | sed -n '1,12s/^/     | /p'
			fi
		done
		if [ -z "$why" ]; then ok "h_mpi: $np ranks x 2 threads agree ($REPEAT runs)"
		else bad "h_mpi: $np ranks: $why"; fi
	done
fi

# A trap in a worker thread of rank 1 ends the whole job, naming both.
if [ -x "$T/h_mpi" ]; then
	start=$(date +%s)
	run_in w $LAUNCH 3 "$MPIWASM" -q "$T/h_trap.wasm"
	took=$(( $(date +%s) - start ))
	if [ "$rc" = 0 ] || [ "$rc" = 124 ]; then
		bad "h_trap: status $rc (0: the job went on; 124: it hung)"; excerpt "$scratch/w.err"
	elif ! grep -Eq 'rank 1: thread [1-9][0-9]*: trap: integer divide by zero' "$scratch/w.err"; then
		bad "h_trap: no message naming rank 1 and the thread"; excerpt "$scratch/w.err"
	elif grep -q 'the job went on' "$scratch/w.out"; then
		bad "h_trap: a rank went past the barrier"
	else
		ok "h_trap: a worker's trap in rank 1 of 3 ended the job in ${took}s (status $rc), naming rank and thread"
	fi
fi

echo "threads: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
}
