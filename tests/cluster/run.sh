#!/bin/sh
# tests/cluster/run.sh - mpiwasm on an emulated cluster (scripts/emucluster.sh:
# 4 hosts as network namespaces on a private bridge).  Measures the link
# profiles (unshaped, 10 Gbit/s, 1 Gbit/s) with a native ping-pong; runs
# MPI test programs on 2 hosts x 2 ranks and 4 hosts x 1 rank, examples
# on 4 hosts, under Open MPI (mpirun, launch agent scripts/netns-agent, TCP BTL
# on the cluster's addresses) and MPICH (hydra's mpiexec, the same agent),
# output identical to the native build on the same hosts; a trap on one
# host ends the job on all; each host compiled each module exactly once,
# in its own cache; Slurm (tests/cluster/slurm.sh) runs a module with
# srun.  Everything created is removed at the end, also on failure or
# Ctrl-C.  Last line `cluster: N passed, N failed`, or `SKIPPED: why`
# where namespaces cannot be made.
#
# Environment: B (Open MPI build, default build), BM (MPICH build,
# default build-mpich), OUT (scratch, default $B/tests/cluster),
# NO_SLURM=1 to leave Slurm out.
set -u
{
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
B=$(cd "${B:-build}" && pwd) || exit 1
BM=$(cd "${BM:-build-mpich}" && pwd) || exit 1
OUT=${OUT:-$B/tests/cluster}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
# A trap on one host must end the job on all within this many seconds of
# the trap (timed from the failing rank's line, not from the launch).
DIE_LIMIT=${DIE_LIMIT:-10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

EC_SCRIPTS=$top/scripts
. "$top/scripts/emucluster.sh"

pass=0 fail=0
t_start=$(date +%s) t_last=$t_start
# How long each part took: the suite is part of make check.
stamp() { t=$(date +%s); echo "time: $1 $((t - t_last)) s"; t_last=$t; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
excerpt() { [ -f "$1" ] && sed -n '1,10s/^/     | /p' "$1"; }

ec_init || { echo "cluster: cannot make a run directory"; exit 1; }
finish() {
	ec_down
	left=$(ec_leftovers)
	[ -n "$left" ] && echo "cluster: left behind after cleanup: $left"
}
trap finish EXIT
trap 'echo "cluster: interrupted"; exit 130' INT TERM HUP
if ! why=$(ec_capable); then
	echo "SKIPPED: cluster: cannot make network namespaces here ($why)"
	exit 0
fi

# ---- builds (outside the cluster) -----------------------------------------
MPI_PROGS="p2p coll"
EXAMPLES="jacobi userop mpi_ring"
ex_src() { case $1 in jacobi) echo jacobi.c ;; userop) echo userop.c ;; mpi_ring) echo mpi_ring.c ;; esac; }
# jacobi's iterations grow with N squared, each a latency-bound exchange.
ex_args() { case $1 in jacobi) echo 8 ;; *) ;; esac; }
for f in openmpi mpich; do
	mkdir -p "$OUT/$f"
	nc=mpicc.$f
	for p in $MPI_PROGS; do
		$nc -O2 -o "$OUT/$f/$p.native" "$top/tests/mpi/$p.c" > "$OUT/$f/$p.build" 2>&1 ||
			{ bad "$p: native build ($nc)"; excerpt "$OUT/$f/$p.build"; }
	done
	for e in $EXAMPLES; do
		$nc -O2 -o "$OUT/$f/$e.native" "$top/examples/$(ex_src $e)" -lm > "$OUT/$f/$e.build" 2>&1 ||
			{ bad "$e: native build ($nc)"; excerpt "$OUT/$f/$e.build"; }
	done
	$nc -O2 -o "$OUT/$f/pingpong" "$here/pingpong.c" > "$OUT/$f/pingpong.build" 2>&1 ||
		{ bad "pingpong: native build ($nc)"; excerpt "$OUT/$f/pingpong.build"; }
done
# One module, run by both engines (its cache key does not depend on the MPI).
for p in $MPI_PROGS abort; do
	"$B/mpiwasm-cc" -O2 -o "$OUT/$p.wasm" "$top/tests/mpi/$p.c" > "$OUT/$p.wasm.build" 2>&1 ||
		{ bad "$p: wasm build"; excerpt "$OUT/$p.wasm.build"; }
done
for e in $EXAMPLES; do
	"$B/mpiwasm-cc" -O2 -o "$OUT/$e.wasm" "$top/examples/$(ex_src $e)" -lm > "$OUT/$e.wasm.build" 2>&1 ||
		{ bad "$e: wasm build"; excerpt "$OUT/$e.wasm.build"; }
done

stamp "builds"
# ---- the cluster ----------------------------------------------------------
if ! ec_up 4 > "$OUT/up.log" 2>&1; then
	bad "emulated cluster: setting up 4 hosts failed"; excerpt "$OUT/up.log"
	echo "cluster: $pass passed, $fail failed"
	exit 1
fi
H0=$(ec_hostname 0) H1=$(ec_hostname 1) H2=$(ec_hostname 2) H3=$(ec_hostname 3)
# Host lists with slots: 2 hosts x 2 ranks, 4 hosts x 1 rank.
hosts_of() { case $1 in 2) echo "$H0:2,$H1:2" ;; 4) echo "$H0:1,$H1:1,$H2:1,$H3:1" ;; esac; }
NET=$EC_NET.0/24

# usage: launch FLAVOUR NHOSTS NP CMD... (on the head, output to stdout/err)
launch() {
	fl=$1 nh=$2 np=$3
	shift 3
	case $fl in
	openmpi)
		ec_head timeout "$RUN_TIMEOUT" mpirun.openmpi --mca plm_rsh_agent "$EC_AGENT" \
			--mca plm_rsh_no_tree_spawn 1 --mca pml ob1 --mca btl tcp,vader,self \
			--mca btl_tcp_if_include "$NET" --mca oob_tcp_if_include "$NET" \
			--bind-to none -host "$(hosts_of "$nh")" -np "$np" "$@" ;;
	mpich)
		# hydra passes its own environment to the ranks: without the
		# head's cache variables, each rank keeps its host's.  With a
		# boot id per host, UCX (Debian's MPICH is ch4:ucx) talks TCP
		# between hosts, and MPICH 4.0.2 with UCX 1.13 then hangs in
		# MPI_Finalize in about half the runs (a rank flushing a TCP
		# endpoint spins while its peers wait in the PMI barrier); so
		# MPICH jobs see the machine's boot id, and UCX joins the hosts
		# by shared memory.  Launch, hostnames and node-local caches are
		# the cluster's all the same.
		ec_head env -u MPIWASM_CACHE_DIR -u MPIWASM_CACHE_LOG -u TMPDIR \
			MPIWASM_NETNS_SHARED_BOOT_ID=1 \
			timeout "$RUN_TIMEOUT" mpiexec.mpich -launcher ssh -launcher-exec "$EC_AGENT" \
			-iface eth0 -hosts "$(hosts_of "$nh")" -n "$np" "$@" ;;
	esac
}
engine() { case $1 in openmpi) echo "$B/mpiwasm" ;; mpich) echo "$BM/mpiwasm" ;; esac; }

# ---- link profiles --------------------------------------------------------
# Native Open MPI ping-pong between two hosts.  The 1 Gbit/s profile must
# stay below its 125 MB/s (plus measuring slack), and the unshaped link
# must beat it; the figures themselves swing with the machine's load (two
# cores shared), so they are reported, not compared further.
bw_1g= bw_none=
: > "$OUT/profiles.txt"
for prof in none 10g 1g; do
	if ! ec_shape "$prof" > "$OUT/shape.$prof" 2>&1; then
		bad "profile $prof: tc failed"; excerpt "$OUT/shape.$prof"; continue
	fi
	o=$OUT/pingpong.$prof
	launch openmpi 4 2 "$OUT/openmpi/pingpong" > "$o" 2> "$o.err" < /dev/null
	line=$(sed -n 's/^pingpong: //p' "$o")
	lat=$(echo "$line" | sed -n 's/.*latency_us=\([0-9.]*\).*/\1/p')
	bw=$(echo "$line" | sed -n 's/.*bandwidth_MBps=\([0-9]*\).*/\1/p')
	if [ -z "$bw" ]; then
		bad "profile $prof: no ping-pong result"; excerpt "$o.err"; continue
	fi
	echo "$prof $lat $bw" >> "$OUT/profiles.txt"
	case $prof in
	1g) bw_1g=$bw
		if [ "$bw" -le 130 ]; then
			ok "profile 1g: latency $lat us, bandwidth $bw MB/s (limit 125)"
		else bad "profile 1g: bandwidth $bw MB/s, above the 125 MB/s of 1 Gbit/s"; fi ;;
	none) bw_none=$bw; ok "profile $prof: latency $lat us, bandwidth $bw MB/s" ;;
	*) ok "profile $prof: latency $lat us, bandwidth $bw MB/s" ;;
	esac
done
if [ -n "$bw_1g" ] && [ -n "$bw_none" ] && [ "$bw_none" -le "$bw_1g" ]; then
	bad "profiles: the unshaped link ($bw_none MB/s) is no faster than the 1 Gbit/s one ($bw_1g MB/s)"
fi
ec_shape none > /dev/null 2>&1
stamp "cluster up, profiles measured"

# ---- programs across hosts ------------------------------------------------
# usage: compare FLAVOUR NHOSTS NP NAME KIND(mpi|example) ARGS...
compare() {
	fl=$1 nh=$2 np=$3 name=$4 kind=$5
	shift 5
	o=$OUT/$fl/$name.h$nh
	what="$name $fl ${nh} hosts np=$np"
	if [ ! -f "$OUT/$name.wasm" ] || [ ! -x "$OUT/$fl/$name.native" ]; then
		bad "$what: not run (a build failed)"; return
	fi
	rc=0
	launch "$fl" "$nh" "$np" "$OUT/$fl/$name.native" "$@" > "$o.native" 2> "$o.native.err" < /dev/null || rc=$?
	if [ "$rc" != 0 ]; then bad "$what: native (exit $rc)"; excerpt "$o.native.err"; return; fi
	rc=0
	launch "$fl" "$nh" "$np" "$(engine "$fl")" -q "$OUT/$name.wasm" "$@" > "$o.wasm" 2> "$o.wasm.err" < /dev/null || rc=$?
	if [ "$rc" != 0 ]; then bad "$what: wasm (exit $rc)"; excerpt "$o.wasm"; excerpt "$o.wasm.err"; return; fi
	# The examples' ranks print in any order; the test programs' rank 0 alone.
	if [ "$kind" = example ]; then
		sort "$o.native" > "$o.native.s"; sort "$o.wasm" > "$o.wasm.s"
	else
		cp "$o.native" "$o.native.s"; cp "$o.wasm" "$o.wasm.s"
	fi
	if [ ! -s "$o.native.s" ]; then
		bad "$what: the native run printed nothing"
	elif [ "$kind" = mpi ] && ! grep -qx "$name np=$np: 0 failed" "$o.native.s"; then
		bad "$what: the native run did not pass its checks"; excerpt "$o.native"
	elif cmp -s "$o.native.s" "$o.wasm.s"; then
		ok "$what: output identical to native ($(grep -c '' "$o.wasm.s") lines)"
	else
		bad "$what: wasm output differs from native"; diff "$o.native.s" "$o.wasm.s" | sed -n '1,10s/^/     | /p'
	fi
}

# A trap in rank 2 (on its own host with 4 hosts) must end every rank.
die_test() {
	fl=$1
	o=$OUT/$fl/abort
	[ -f "$OUT/abort.wasm" ] || { bad "trap $fl: no module"; return; }
	# compiled on every host first, so the time measured is the job's end
	for i in 0 1 2 3; do
		ec_host $i "$(engine "$fl")" compile "$OUT/abort.wasm" > /dev/null 2>&1
	done
	t0=$(date +%s.%N)
	rc=0
	launch "$fl" 4 4 "$(engine "$fl")" "$OUT/abort.wasm" trap 2 > "$o.out" 2> "$o.err" < /dev/null || rc=$?
	t1=$(date +%s.%N)
	# timed from the failing rank's own line (the moment it fails), not
	# from the launch: the launch's length is the machine's load
	tf=$(sed -n 's/.*abort: the failure starts at \([0-9.]*\).*/\1/p' "$o.out" "$o.err" | head -n 1)
	total=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	secs=$(awk -v a="${tf:-$t0}" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	if [ -z "$tf" ]; then
		bad "trap $fl 4 hosts: the failing rank's 'failure starts' line is missing (exit $rc)"; excerpt "$o.err"
	elif [ "$rc" = 0 ] || [ "$rc" = 124 ]; then
		bad "trap $fl 4 hosts: job exit status $rc after ${secs}s"; excerpt "$o.err"
	elif ! grep -Eq "rank[^0-9]{0,3}2" "$o.out" "$o.err"; then
		bad "trap $fl 4 hosts: exit $rc, no message naming rank 2"; excerpt "$o.err"
	elif grep -q released "$o.out"; then
		bad "trap $fl 4 hosts: a rank went on after the trap"
	elif awk -v s="$secs" -v l="$DIE_LIMIT" 'BEGIN { exit !(s >= l) }'; then
		bad "trap $fl 4 hosts: the job took ${secs}s after the trap to end (limit ${DIE_LIMIT}s)"
	else
		ok "trap $fl 4 hosts: a trap in rank 2 ended the job on every host $secs s after it (job ${total} s, exit $rc)"
	fi
}

# The test programs on 2 hosts x 2 ranks (shared memory and network in
# one job) and 4 x 1; the examples on 4 x 1 (each launch costs 1-3 s, and
# the suite is part of make check).
for fl in openmpi mpich; do
	for nh in 2 4; do
		for p in $MPI_PROGS; do compare "$fl" "$nh" 4 "$p" mpi; done
	done
	for e in $EXAMPLES; do
		# shellcheck disable=SC2046
		compare "$fl" 4 4 "$e" example $(ex_args "$e")
	done
	die_test "$fl"
	stamp "$fl jobs"
done

# ---- node-local caches ----------------------------------------------------
# Every host ran every module (the 4-host jobs), under both MPIs: its own
# cache log must show each module compiled there exactly once.
nmod=$(echo $MPI_PROGS $EXAMPLES abort | wc -w)
for i in 0 1 2 3; do
	h=$(ec_hostname $i)
	log=$EC_DIR/hosts/$h/cache.log
	n=$(grep -c '^compile ' "$log" 2> /dev/null)
	keys=$(grep '^compile ' "$log" 2> /dev/null | cut -d' ' -f2 | sort -u | wc -l)
	if [ "${n:-0}" = "$nmod" ] && [ "$keys" = "$nmod" ]; then
		ok "host $i: its own cache compiled each of the $nmod modules once ($(ls "$EC_DIR/hosts/$h/cache" | wc -l) entries)"
	else
		bad "host $i: ${n:-0} compiles of $keys modules in its cache log, expected $nmod of $nmod"
		[ -f "$log" ] && sed -n '1,12s/^/     | /p' "$log"
	fi
done

# ---- Slurm ----------------------------------------------------------------
if [ "${NO_SLURM:-0}" != 1 ]; then
	. "$here/slurm.sh"
	slurm_tests
	stamp "slurm"
fi

# ---- cleanup --------------------------------------------------------------
pfx=$EC_PFX
ec_down
left=$(ec_leftovers)
if [ -z "$left" ] && [ -z "$(ls -d /etc/netns/"$pfx"* 2> /dev/null)" ]; then
	ok "cleanup: no namespace, link, /etc/netns entry or run directory of this run is left"
else
	bad "cleanup: left behind: $left"
fi
echo "time: total $(($(date +%s) - t_start)) s"
echo "cluster: $pass passed, $fail failed"
[ "$fail" = 0 ]
}
exit
