#!/bin/sh
# bench/coll/cluster.sh - model-based collective tuning on the emulated
# cluster of scripts/emucluster.sh (root only): NHOSTS hosts x PPN ranks,
# for each link profile of PROFILES:
#   1. `mpiwasm tune` on the cluster (each host writes its rules file and
#      .model record into its node-local cache);
#   2. for each collective of OPS, sizes MINB (8 B) .. MAXB (4 MiB), native
#      collsweep (bench/coll/collsweep.c): jobs of Open MPI's own selection
#      with every coll_tuned algorithm forced beside it (interleaved round
#      by round inside the job) alternating with jobs that run under the
#      rules file tune wrote (set the way `mpiwasm` sets it: coll_apply),
#      REPEATS times each; every result checked;
#   3. one-way ping-pongs of 8 B .. 4 MiB inside a host and across hosts
#      (bench/coll/pingfit.c), then the model's predictions from the
#      .model figures and each level's one-way alpha and beta fitted to
#      those ping-pongs (collmodel.c; model0.PROFILE.txt: the same from
#      the .model figures alone, the model before the one-way hops);
#   4. the application kernel (bench/coll/appkernel.c), default and tuned
#      jobs alternating, REPEATS times.
# Writes bench/coll/CLUSTER.md (bench/coll/cluster_report.py: tables,
# where the default misselects and what tuning recovered, the model
# beside the measurement, noise) and bench/coll/cluster-PROFILE-OP.png.
#
#   sudo sh bench/coll/cluster.sh        (make bench-coll-cluster)
# Environment: B (build dir, default build), PROFILES ("none 10g 1g"),
# NHOSTS (4), PPN (1), MINB (8), MAXB (4194304), OPS (all seven), ROUNDS
# (5 rounds per job), REPEATS (2 jobs of each kind), APP=0 to leave out the
# kernel, REPORT_ONLY=1 to write the report and plots again from the last
# raw data ($B/bench/coll-cluster).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
B=$(cd "${B:-build}" && pwd) || exit 1
PROFILES=${PROFILES:-none 10g 1g}
NHOSTS=${NHOSTS:-4}
PPN=${PPN:-1}
MINB=${MINB:-8}
MAXB=${MAXB:-4194304}
OPS=${OPS:-allreduce alltoall allgather bcast reduce reduce_scatter barrier}
ROUNDS=${ROUNDS:-5}
REPEATS=${REPEATS:-2}
APP=${APP:-1}
OUT=$B/bench/coll-cluster
REPORT=${BENCH_REPORT:-$here/CLUSTER.md}
die() { echo "bench/coll/cluster.sh: $*" >&2; exit 1; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for v in $(env | sed -n 's/^\(OMPI_MCA_coll_tuned_[A-Za-z_]*\)=.*/\1/p'); do unset "$v"; done
np=$((NHOSTS * PPN))

# The coll_tuned algorithms forced (two_proc, for 2 ranks only, left out).
algs_of() {
	case $1 in
	allreduce) echo 1 2 3 4 5 6 ;;
	bcast) echo 1 2 3 4 5 6 7 8 9 ;;
	allgather) echo 1 2 3 4 5 ;;
	alltoall) echo 1 2 3 4 ;;
	reduce) echo 1 2 3 4 5 6 7 ;;
	reduce_scatter) echo 1 2 3 4 ;;
	barrier) echo 1 2 3 4 6 ;;
	esac
}

measure() {
	EC_SCRIPTS=$top/scripts
	. "$top/scripts/emucluster.sh"
	ec_init || die "no run directory"
	trap ec_down EXIT
	trap 'exit 130' INT TERM HUP
	why=$(ec_capable) || die "cannot make network namespaces here: $why"
	[ -x "$B/mpiwasm" ] || die "no $B/mpiwasm (make first)"
	mpicc.openmpi -O2 -o "$OUT/collsweep" "$here/collsweep.c" || die "mpicc collsweep failed"
	mpicc.openmpi -O2 -o "$OUT/pingfit" "$here/pingfit.c" || die "mpicc pingfit failed"
	mpicc.openmpi -O2 -o "$OUT/appkernel" "$here/appkernel.c" -lm || die "mpicc appkernel failed"
	cc -std=gnu11 -O2 -I"$top/src" -o "$OUT/collmodel" "$here/collmodel.c" "$top/src/coll/model.c" -lm ||
		die "cc collmodel failed"
	ec_up "$NHOSTS" > "$OUT/up.log" 2>&1 || die "cluster setup failed: $(head -3 "$OUT/up.log")"
	hosts=$(i=0; while [ $i -lt "$NHOSTS" ]; do printf '%s%s:%s' "$([ $i = 0 ] || echo ,)" "$(ec_hostname $i)" "$PPN"; i=$((i + 1)); done)
	NET=$EC_NET.0/24
	# The hosts share 2 cores: ranks yield when they wait (Open MPI
	# busy-polls otherwise, and a rank that waits takes the core of the
	# one it waits for: 10 ms for an 8-byte MPI_Allreduce, measured).
	launch() {
		ec_head timeout 3600 mpirun.openmpi --mca plm_rsh_agent "$EC_AGENT" \
			--mca plm_rsh_no_tree_spawn 1 --mca pml ob1 --mca btl tcp,vader,self \
			--mca btl_tcp_if_include "$NET" --mca oob_tcp_if_include "$NET" --bind-to none \
			--mca mpi_yield_when_idle 1 -host "$hosts" -np "$np" "$@" < /dev/null
	}
	# A tuned job: each host's rules file (its cache, its host name), set
	# as coll_apply sets it, unless tune marked it as having no rule.
	tuned='r=$MPIWASM_CACHE_DIR/coll/$(hostname)-np'$np'-ppn*-open-mpi-*.rules
		for f in $r; do r=$f; done
		if [ -f "$r" ] && ! grep -q "^# mpiwasm: no verified rule" "$r"; then
			export OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename=$r
			echo "tuned: $(hostname) applied $r" >&2
		else
			echo "tuned: $(hostname) no verified rule in $r" >&2
		fi
		exec "$@"'

	# raw lines: "profile variant repeat op algorithm bytes round us"
	: > "$OUT/raw.txt"
	: > "$OUT/app.txt"
	: > "$OUT/tuned-applied.txt"
	for prof in $PROFILES; do
		ec_shape "$prof" || die "tc failed for $prof"
		t0=$(date +%s)
		launch "$B/mpiwasm" tune > "$OUT/tune.$prof.log" 2>&1 ||
			die "$prof: mpiwasm tune failed: $(tail -3 "$OUT/tune.$prof.log")"
		echo "$prof $(($(date +%s) - t0))" >> "$OUT/tune-seconds.txt"
		h0=$(ec_hostname 0)
		rules=$(ls "$EC_DIR/hosts/$h0/cache/coll/$h0-np$np-"*.rules) || die "$prof: no rules file on $h0"
		cp "$rules" "$OUT/tune.$prof.rules" && cp "$rules.model" "$OUT/tune.$prof.model" || die "copy"
		launch "$OUT/pingfit" > "$OUT/pingpong.$prof.txt" 2> "$OUT/err" ||
			die "$prof: pingfit failed: $(head -3 "$OUT/err")"
		"$OUT/collmodel" "$OUT/tune.$prof.model" "$OUT/tune.$prof.rules" "$np" \
			"$OUT/pingpong.$prof.txt" > "$OUT/model.$prof.txt" &&
		"$OUT/collmodel" "$OUT/tune.$prof.model" "$OUT/tune.$prof.rules" "$np" \
			> "$OUT/model0.$prof.txt" || die "collmodel failed"
		echo "bench/coll/cluster: $prof: tuned in $(($(date +%s) - t0)) s"
		for op in $OPS; do
			rep=1
			while [ $rep -le "$REPEATS" ]; do
				launch --mca coll_tuned_use_dynamic_rules 1 "$OUT/collsweep" "$op" "$MINB" "$MAXB" \
					"$ROUNDS" 0 $(algs_of "$op") > "$OUT/one" 2> "$OUT/err" ||
					die "$prof $op default job failed: $(head -3 "$OUT/err")"
				awk -v p="$prof" -v r="$rep" '{ print p, "default", r, $0 }' "$OUT/one" >> "$OUT/raw.txt"
				launch sh -c "$tuned" tuned "$OUT/collsweep" "$op" "$MINB" "$MAXB" "$ROUNDS" 0 \
					> "$OUT/one" 2> "$OUT/err" ||
					die "$prof $op tuned job failed: $(head -3 "$OUT/err")"
				awk -v p="$prof" -v r="$rep" '{ print p, "tuned", r, $0 }' "$OUT/one" >> "$OUT/raw.txt"
				sed -n "s/^tuned: /$prof $op: /p" "$OUT/err" >> "$OUT/tuned-applied.txt"
				rep=$((rep + 1))
			done
			echo "bench/coll/cluster: $prof $op done"
		done
		if [ "$APP" = 1 ]; then
			rep=1
			while [ $rep -le "$REPEATS" ]; do
				for v in default tuned; do
					if [ $v = default ]; then
						launch "$OUT/appkernel" > "$OUT/one" 2> "$OUT/err"
					else
						launch sh -c "$tuned" tuned "$OUT/appkernel" > "$OUT/one" 2> "$OUT/err"
					fi || die "$prof appkernel ($v) failed: $(head -3 "$OUT/err")"
					awk -v p="$prof" -v v="$v" -v r="$rep" '{ print p, v, r, $0 }' "$OUT/one" >> "$OUT/app.txt"
				done
				rep=$((rep + 1))
			done
			echo "bench/coll/cluster: $prof application kernel done"
		fi
		cut -d' ' -f1-3 /proc/loadavg | sed "s/^/$prof /" >> "$OUT/load.txt"
	done
}
if [ "${REPORT_ONLY:-0}" != 1 ]; then
	: > "$OUT/load.txt"
	: > "$OUT/tune-seconds.txt"
	t_start=$(date +%s)
	measure
	echo "$(($(date +%s) - t_start))" > "$OUT/seconds.txt"
fi
python3 "$here/cluster_report.py" --out "$OUT" --report "$REPORT" --pngdir "$here" \
	--profiles "$PROFILES" --ops "$OPS" --np "$np" --hosts "$NHOSTS" --ppn "$PPN" \
	--rounds "$ROUNDS" --repeats "$REPEATS" --cmd "PROFILES=\"$PROFILES\" OPS=\"$OPS\" NHOSTS=$NHOSTS PPN=$PPN MINB=$MINB MAXB=$MAXB ROUNDS=$ROUNDS REPEATS=$REPEATS APP=$APP sh bench/coll/cluster.sh" ||
	die "the report failed"
echo "bench/coll/cluster: wrote $REPORT"
