#!/bin/sh
# tests/coll/run.sh - `mpiwasm tune` end to end, under Open MPI and MPICH.
#
# Open MPI: `mpirun -np 2 mpiwasm tune` (of three collectives, to keep
# the suite short under load) writes the rules file for this host, 2 ranks
# and 2 on the host, every size range verified against Open MPI's own
# selection (the .model record); a later run applies it
# (MPIWASM_COLL_LOG line); --no-coll-tuning and a user's
# OMPI_MCA_coll_tuned_* keep it off; and Open MPI really follows it: a
# deliberately terrible rule (MPI_Bcast as a pipeline of 64-byte segments)
# put at that path makes a 1 MiB MPI_Bcast go as 16384 messages (counted
# by Open MPI's pml monitoring, not timed); tests/mpi/coll.c gives correct
# answers under the file tune wrote and under one forcing all seven tuned
# collectives.
#
# MPICH: tune (MPI_Allreduce and MPI_Barrier only, MPIWASM_TUNE_COLLS, to
# keep the suite short) writes MPICH's rules file, every range verified against MPICH's
# auto; the same apply / --no-coll-tuning / user-setting / trust checks;
# the bridge switches the algorithm per call by size range: a rule that
# sends 3-rank MPI_Allgathers of 48-119 bytes to recursive_doubling (which
# MPICH cannot apply to 3 ranks) makes MPICH report each such call and
# only those (MPIR_CVAR_COLLECTIVE_FALLBACK=print: counted, not timed);
# tests/mpi/coll.c is correct under tune's file and with all seven
# collectives forced on 2 and 3 ranks; an MPICH whose variables'
# descriptions do not give the algorithms' numbers (tests/coll/garble.c,
# preloaded) makes tune refuse and a run apply nothing.
# Prints `coll: N passed, N failed`.
#   MPIWASM=build/mpiwasm MPI=openmpi|mpich sh tests/coll/run.sh
#   MPIWASM=build/mpiwasm MPICH_MPIWASM=build-mpich/mpiwasm MPI=both sh tests/coll/run.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
MPIWASM=${MPIWASM:-build/mpiwasm}
case $MPIWASM in /*) ;; *) MPIWASM=$root/$MPIWASM ;; esac
MPI=${MPI:-openmpi}
W=$(mktemp -d /tmp/mpiwasm-coll-XXXXXX)
trap 'rm -rf "$W"' EXIT
unset MPIWASM_COLL_LOG MPIWASM_TUNE_COLLS MPIWASM_COLL_MPICH_RULES MPIR_CVAR_COLLECTIVE_FALLBACK
for v in $(env | sed -n 's/^\(OMPI_MCA_coll_tuned_[A-Za-z_]*\)=.*/\1/p; s/^\(MPIR_CVAR_[A-Z_]*ALGORITHM\)=.*/\1/p'); do
	unset "$v"
done
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; sed 's/^/    | /' "$W/err" 2>/dev/null | head -10; }
done_() { echo "coll: $pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }
host=$(hostname | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9.]\{1,\}/-/g')


# ---- MPICH ----------------------------------------------------------------
mpich_tests() {
MW=$1
C=$W/mc
MRUN="timeout 120 mpirun.mpich"
"$(dirname "$MW")/mpiwasm-cc" -O2 -o "$W/percall.wasm" "$here/percall.c" 2>"$W/err" &&
"$(dirname "$MW")/mpiwasm-cc" -O2 -o "$W/mcoll.wasm" "$root/tests/mpi/coll.c" 2>>"$W/err" ||
	{ bad build "mpiwasm-cc percall.c, tests/mpi/coll.c"; return; }
"$MW" compile --cache-dir "$C" -q "$W/percall.wasm" >/dev/null 2>&1
"$MW" compile --cache-dir "$C" -q "$W/mcoll.wasm" >/dev/null 2>&1
ver=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')

# m1. tune writes MPICH's file for this host, 2 ranks, 2 on the host
t0=$(date +%s)
MPIWASM_TUNE_COLLS=allreduce,barrier timeout 300 mpirun.mpich -np 2 "$MW" tune --cache-dir "$C" >"$W/out" 2>"$W/err"
rules=$C/coll/$host-np2-ppn2-mpich-$ver.rules
if [ -n "$ver" ] && [ -f "$rules" ] && grep -q "wrote $rules" "$W/out" &&
   grep -q "^# MPICH collective rules" "$rules" && grep -q "alpha .* us, beta .* ns/B" "$W/out"; then
	ok "MPICH: tune writes $(basename "$rules") ($(($(date +%s) - t0)) s)"
else bad "MPICH tune" "no rules file $rules"; cat "$W/out"; return; fi

# m2. every range of the two collectives measured against MPICH's auto
model="$rules.model"
nr=$(grep -c '^range [a-z_]* 2 ' "$model" 2>/dev/null)
nm=$(awk '$1 == "range" && $3 == 2 && $11 != "-" && $12 != "-"' "$model" 2>/dev/null | wc -l)
ncoll=$(awk '$1 == "range" { print $2 }' "$model" 2>/dev/null | sort -u | tr '\n' ' ')
if [ "$nr" = 21 ] && [ "$nm" = 21 ] && [ "$ncoll" = "allreduce barrier " ] &&
   grep -q "size ranges verified faster than MPICH's auto" "$W/out" &&
   grep -q "^mpich allreduce recursive_doubling " "$model"; then
	ok "MPICH: tune verified 21 size ranges of 2 collectives ($(grep -c "^rule " "$rules") rules kept)"
else bad "MPICH verify" "$nr range lines, $nm measured, collectives '$ncoll' in $model"; fi
# every rule kept was measured faster at both probes, and written as a
# rule line of the file (with the model's prediction beside the figures)
kept=$(awk '$1 == "range" && $NF != 0' "$model" | wc -l)
if awk '$1 == "range" && $NF != 0 && !($11 <= 0.95 * $12 && $14 <= 0.95 * $15) { bad = 1 }
        END { exit bad }' "$model" &&
   awk -v k="$kept" '$1 == "rule" && !/# model [0-9.e+-]+ us, measured/ { bad = 1 }
        $1 == "rule" { n++ } END { exit bad || (k > 0) != (n > 0) }' "$rules"; then
	ok "MPICH: every rule kept was measured >= 5% faster than MPICH's auto ($kept ranges)"
else bad "MPICH decisions" "$(awk '$1 == "range" && $NF != 0' "$model")"; fi

# m3. the mark: nothing applied; rules: applied on both ranks
mark="# mpiwasm: no verified rule"
grep -v "^$mark" "$rules" > "$W/tuned.rules"
grep -q "^rule " "$W/tuned.rules" ||   # tune kept none: one of its candidates
	echo "rule allreduce 2 0 -1 recursive_doubling" >> "$W/tuned.rules"
{ echo "$mark"; cat "$W/tuned.rules"; } > "$rules"
MPIWASM_COLL_LOG=1 $MRUN -np 2 "$MW" --cache-dir "$C" "$W/mcoll.wasm" >"$W/out" 2>"$W/err"
rc=$?
[ $rc = 0 ] && [ "$(grep -c "not applied: $rules has no verified rule" "$W/err")" = 2 ] &&
	! grep -q "applied rules\|rules set per call" "$W/err" &&
	ok "MPICH: no verified rule: a run leaves MPICH alone (both ranks)" ||
	bad "MPICH no rule" "no 'no verified rule' line per rank (exit $rc)"
cp "$W/tuned.rules" "$rules"
MPIWASM_COLL_LOG=1 $MRUN -np 2 "$MW" --cache-dir "$C" "$W/mcoll.wasm" >"$W/out" 2>"$W/err"
rc=$?
[ $rc = 0 ] && grep -qx "coll np=2: 0 failed" "$W/out" &&
	[ "$(grep -c "coll tuning: applied rules file $rules" "$W/err")" = 2 ] &&
	[ "$(grep -c "coll tuning: MPICH rules set per call: $(grep -c "^rule " "$rules")\$" "$W/err")" = 2 ] &&
	ok "MPICH: a run applies the rules (both ranks), tests/mpi/coll.c passes under them" ||
	bad "MPICH apply" "exit $rc, $(head -2 "$W/out")"
MPIWASM_COLL_LOG=1 $MRUN -np 2 "$MW" --cache-dir "$C" --no-coll-tuning "$W/mcoll.wasm" >"$W/out" 2>"$W/err"
[ $? = 0 ] && grep -q "not applied: --no-coll-tuning" "$W/err" &&
	! grep -q "applied rules\|rules set per call" "$W/err" &&
	ok "MPICH: --no-coll-tuning" || bad "MPICH --no-coll-tuning" "rules applied anyway"
MPIWASM_COLL_LOG=1 $MRUN -np 2 -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM recursive_doubling \
	"$MW" --cache-dir "$C" "$W/mcoll.wasm" >"$W/out" 2>"$W/err"
[ $? = 0 ] && grep -q "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM is set" "$W/err" &&
	! grep -q "applied rules\|rules set per call" "$W/err" &&
	ok "MPICH: a user's MPIR_CVAR_*_ALGORITHM wins" || bad "MPICH user setting" "ours applied over the user's"

# m4. the trust rule: writable by others, a symlink
chmod o+w "$rules"
MPIWASM_COLL_LOG=1 $MRUN -np 2 "$MW" --cache-dir "$C" "$W/mcoll.wasm" >"$W/out" 2>"$W/err"
rc=$?
chmod o-w "$rules"
[ $rc = 0 ] && grep -q "warning: collective rules not applied: $rules is writable by others" "$W/err" &&
	! grep -q "applied rules\|rules set per call" "$W/err" &&
	ok "MPICH: a rules file writable by others is not applied" || bad "MPICH unsafe rules" "applied, or no warning (exit $rc)"
mv "$rules" "$W/real.rules" && ln -s "$W/real.rules" "$rules"
MPIWASM_COLL_LOG=1 $MRUN -np 2 "$MW" --cache-dir "$C" "$W/mcoll.wasm" >"$W/out" 2>"$W/err"
rc=$?
rm -f "$rules" && mv "$W/real.rules" "$rules"
[ $rc = 0 ] && grep -q "warning: collective rules not applied: $rules is a symlink" "$W/err" &&
	! grep -q "applied rules\|rules set per call" "$W/err" &&
	ok "MPICH: a rules file that is a symlink is not applied" || bad "MPICH symlinked rules" "applied, or no warning (exit $rc)"

# m5. per call, by size range: 3 ranks, MPI_Allgather of 48-119 bytes (the
# 3 blocks together) to recursive_doubling, which MPICH cannot apply to 3
# ranks and, told to, reports per call.  Blocks of 1 3 2 5 4 8 2 doubles
# are 24 72 48 120 96 192 48 bytes: 4 calls in the range, in an order
# that goes in and out of it.
r3=$C/coll/$host-np3-ppn3-mpich-$ver.rules
echo "rule allgather 3 48 120 recursive_doubling  # for tests/coll" > "$r3"
pc() {
	MPIR_CVAR_COLLECTIVE_FALLBACK=print $MRUN -np 3 "$MW" --cache-dir "$C" "$@" \
		"$W/percall.wasm" ${PC_OWN:-} 1 3 2 5 4 8 2 >"$W/out" 2>"$W/err" &&
		grep -qx "percall np=3: 7 calls, 0 wrong" "$W/out" &&
		grep -c "Allgather recursive_doubling cannot be applied" "$W/err"
}
# Without the rules: --no-coll-tuning, with the hand-over variable in
# the environment as a user (or a parent) could leave it: not this
# process's, not taken.
n1=$(pc); n0=$(MPIWASM_COLL_MPICH_RULES="1;allgather:3:0:-1:recursive_doubling" pc --no-coll-tuning)
[ "$n1" = 4 ] && [ "$n0" = 0 ] &&
	ok "MPICH follows the rule per call (MPICH reported $n1 MPI_Allgathers under recursive_doubling, the 4 in the range; $n0 without the rules)" ||
	bad "MPICH per call" "MPICH reported '$n1' calls under the rule (want 4), '$n0' without (want 0)"
# The module sets the algorithm variable itself through MPI_T: its choice
# wins, no call runs under the rule.
n2=$(export PC_OWN=-own MPIWASM_COLL_LOG=1; pc)
[ "$n2" = 0 ] && grep -qx "percall np=3: 7 calls, 0 wrong" "$W/out" &&
	[ "$(grep -c "coll tuning: the module set its own MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM" "$W/err")" = 3 ] &&
	ok "MPICH: a module's own MPI_T write of the algorithm variable wins over the rules (0 calls under the rule)" ||
	bad "MPICH module MPI_T" "MPICH reported '$n2' calls under the rule after the module chose auto (want 0)"

# m6. correct answers with all seven collectives forced to algorithms
# that are not MPICH's auto, on 2 and 3 ranks
for np in 2 3; do
	f=$C/coll/$host-np$np-ppn$np-mpich-$ver.rules
	{
		echo "# every collective forced, for tests/coll"
		for cr in "allgather ring" "allreduce recursive_doubling" "alltoall pairwise" \
		          "barrier dissemination" "bcast binomial" "reduce binomial" \
		          "reduce_scatter recursive_halving"; do
			set -- $cr
			echo "rule $1 $np 0 -1 $2"
		done
	} > "$f"
	MPIWASM_COLL_LOG=1 $MRUN -np $np "$MW" --cache-dir "$C" "$W/mcoll.wasm" >"$W/out" 2>"$W/err"
	rc=$?
	[ $rc = 0 ] && grep -qx "coll np=$np: 0 failed" "$W/out" &&
		[ "$(grep -c "coll tuning: MPICH rules set per call: 7\$" "$W/err")" = $np ] &&
		ok "MPICH: tests/mpi/coll.c passes on $np ranks with all seven collectives forced" ||
		bad "MPICH coll forced np=$np" "exit $rc: $(head -3 "$W/out")"
done

# m7. an MPICH whose descriptions do not read as "name - text" items (an
# LD_PRELOAD library words them otherwise): tune refuses in one line and
# writes nothing; a run applies nothing, with one warning line a rank
echo "rule allgather 3 48 120 recursive_doubling  # for tests/coll" > "$r3"
if cc -shared -fPIC -O2 -o "$W/garble.so" "$here/garble.c" $(pkg-config --cflags mpich) -ldl 2>"$W/err"; then
	LD_PRELOAD=$W/garble.so timeout 120 mpirun.mpich -np 2 "$MW" tune --cache-dir "$W/gc" >"$W/out" 2>"$W/err"
	rc=$?
	# (each rank says it and exits: counted as text, since the two ranks'
	# lines can interleave on the shared stderr (die() writes a line in
	# pieces), and the launcher may end one rank before it says it)
	nl=$(grep -o "tune: MPICH [0-9.]*: cannot read the number of algorithm [a-z_]* from MPIR_CVAR_[A-Z_]*'s description" "$W/err" | wc -l)
	[ $rc != 0 ] && [ ! -d "$W/gc/coll" ] && [ "$nl" -ge 1 ] && [ "$nl" -le 2 ] &&
		[ "$(grep -o "tune: " "$W/err" | wc -l)" = "$nl" ] &&
		ok "MPICH: tune refuses (one line a rank) a version whose descriptions it cannot read" ||
		bad "MPICH unreadable descriptions" "exit $rc, $nl refusals"
	MPIR_CVAR_COLLECTIVE_FALLBACK=print LD_PRELOAD=$W/garble.so $MRUN -np 3 "$MW" --cache-dir "$C" \
		"$W/percall.wasm" 1 3 2 5 4 8 2 >"$W/out" 2>"$W/err"
	rc=$?
	[ $rc = 0 ] && grep -qx "percall np=3: 7 calls, 0 wrong" "$W/out" &&
		[ "$(grep -c "warning: collective rules not applied (MPICH .*): cannot read the number of algorithm recursive_doubling" "$W/err")" = 3 ] &&
		! grep -q "cannot be applied" "$W/err" &&
		ok "MPICH: a run applies no rule it cannot number (a warning a rank)" ||
		bad "MPICH unreadable descriptions at a run" "exit $rc"
else bad "build garble.so" "cc $here/garble.c"; fi
}

case $MPI in
mpich) mpich_tests "$MPIWASM"; done_ ;;
both) mpich_tests "${MPICH_MPIWASM:?MPI=both needs MPICH_MPIWASM}" ;;
esac

[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RUN="timeout 120 mpirun.openmpi --oversubscribe -np 2"

"$(dirname "$MPIWASM")/mpiwasm-cc" -O2 -o "$W/collbench.wasm" "$root/bench/coll/collbench.c" 2>"$W/err" ||
	{ bad build "mpiwasm-cc collbench.c"; done_; }
"$MPIWASM" compile --cache-dir "$W/c" -q "$W/collbench.wasm" >/dev/null 2>&1

# 1. tune writes the file for this host, 2 ranks, 2 on the host.  Three
# collectives (MPIWASM_TUNE_COLLS), one of each kind of measurement (a
# reduction, a rooted one, the size-less MPI_Barrier): tuning all seven
# took about 40 s on 2 idle cores but over 300 s at load average 12-14,
# where every message waits for the peer to be scheduled, and CI failed
# on it; these three took 90 s at load 6-10.  The seven are measured by
# bench/coll (make bench-coll-cluster).  The limit only guards a hang.
MPIWASM_TUNE_COLLS=allreduce,bcast,barrier \
	timeout 900 mpirun.openmpi --oversubscribe -np 2 "$MPIWASM" tune --cache-dir "$W/c" >"$W/out" 2>"$W/err"
rules=$(ls "$W/c/coll/"*-np2-ppn2-open-mpi-*.rules 2>/dev/null | head -1)
if [ -n "$rules" ] && [ "$(basename "$rules")" = "$host-np2-ppn2-open-mpi-$(ompi_info --version 2>/dev/null | sed -n 's/^Open MPI v//p').rules" ] &&
   grep -q "^7  # collectives" "$rules" && grep -q "^wrote\|wrote $rules" "$W/out" &&
   grep -q "alpha .* us, beta .* ns/B" "$W/out"; then
	ok "tune writes $(basename "$rules")"
else bad "tune" "no rules file named for host '$host', 2 ranks, 2 on the host and the library"; cat "$W/out"; done_; fi

# 1b. tune verified its rules: every range of 2 ranks measured, with a
# decision: 20 ranges of each of MPI_Allreduce and MPI_Bcast, one of
# MPI_Barrier, and none of the four it was not asked to tune
model="$rules.model"
nr=$(grep -c '^range [a-z_]* 2 ' "$model" 2>/dev/null)
nm=$(awk '$1 == "range" && $3 == 2 && $11 != "-" && $12 != "-"' "$model" 2>/dev/null | wc -l)
ncoll=$(awk '$1 == "range" { print $2 }' "$model" 2>/dev/null | sort -u | tr '\n' ' ')
if [ "$nr" = 41 ] && [ "$nm" = 41 ] && grep -q "size ranges verified faster" "$W/out" &&
   [ "$ncoll" = "allreduce barrier bcast " ]; then
	ok "tune verified 41 size ranges of 3 collectives ($(grep -c ' [1-9]$' "$model" || true) kept a model rule)"
else bad "verify" "$nr range lines, $nm measured in $model"; fi
# every rule that is not algorithm 0 was measured faster (5% margin) at both probes
if awk '$1 == "range" && $NF != 0 && !($11 <= 0.95 * $12 && $14 <= 0.95 * $15) { bad = 1 }
        END { exit bad }' "$model"; then
	ok "every rule kept was measured >= 5% faster than Open MPI's own"
else bad "decisions" "a rule kept without being measured faster: $(awk '$1 == "range" && $NF != 0' "$model")"; fi

# 2. a later run applies the file, unless it says tune found nothing
# faster (the mark): then it leaves Open MPI alone.  Whether this tune
# kept a rule depends on the measurement, so both cases are made from its
# file, with and without the mark.  --no-coll-tuning and the user's
# settings keep it off.
mark="# mpiwasm: no verified rule"
cp "$rules" "$W/tuned.rules"
{ echo "$mark"; grep -v "^$mark" "$W/tuned.rules"; } > "$rules"
MPIWASM_COLL_LOG=1 $RUN "$MPIWASM" --cache-dir "$W/c" "$W/collbench.wasm" bcast 8 8 >"$W/out" 2>"$W/err"
rc=$?
[ $rc = 0 ] && [ "$(grep -c "not applied: $rules has no verified rule" "$W/err")" = 2 ] &&
	! grep -q "applied rules" "$W/err" &&
	ok "no verified rule: a run leaves Open MPI alone (both ranks)" ||
	bad "no rule" "no 'no verified rule' line per rank (exit $rc)"
grep -v "^$mark" "$W/tuned.rules" > "$rules"
MPIWASM_COLL_LOG=1 $RUN "$MPIWASM" --cache-dir "$W/c" "$W/collbench.wasm" bcast 8 8 >"$W/out" 2>"$W/err"
rc=$?
[ $rc = 0 ] && [ "$(grep -c "coll tuning: applied rules file $rules" "$W/err")" = 2 ] &&
	ok "a run applies the rules (both ranks)" || bad "apply" "no 'applied' line per rank"
MPIWASM_COLL_LOG=1 $RUN "$MPIWASM" --cache-dir "$W/c" --no-coll-tuning "$W/collbench.wasm" bcast 8 8 >"$W/out" 2>"$W/err"
[ $? = 0 ] && grep -q "not applied: --no-coll-tuning" "$W/err" && ! grep -q "applied rules" "$W/err" &&
	ok "--no-coll-tuning" || bad "--no-coll-tuning" "rules applied anyway"
MPIWASM_COLL_LOG=1 $RUN -x OMPI_MCA_coll_tuned_bcast_algorithm=6 "$MPIWASM" --cache-dir "$W/c" "$W/collbench.wasm" bcast 8 8 >"$W/out" 2>"$W/err"
[ $? = 0 ] && grep -q "OMPI_MCA_coll_tuned_bcast_algorithm is set" "$W/err" && ! grep -q "applied rules" "$W/err" &&
	ok "a user's OMPI_MCA_coll_tuned_* wins" || bad "user setting" "ours applied over the user's"

# 2b. a rules file another user could have written is not applied: the
# cache's trust rule (ours, writable by nobody else, no symlinks)
chmod o+w "$rules"
MPIWASM_COLL_LOG=1 $RUN "$MPIWASM" --cache-dir "$W/c" "$W/collbench.wasm" bcast 8 8 >"$W/out" 2>"$W/err"
rc=$?
chmod o-w "$rules"
[ $rc = 0 ] && grep -q "warning: collective rules not applied: $rules is writable by others" "$W/err" &&
	! grep -q "applied rules" "$W/err" &&
	ok "a rules file writable by others is not applied" || bad "unsafe rules" "applied, or no warning (exit $rc)"
mv "$rules" "$W/real.rules" && ln -s "$W/real.rules" "$rules"
MPIWASM_COLL_LOG=1 $RUN "$MPIWASM" --cache-dir "$W/c" "$W/collbench.wasm" bcast 8 8 >"$W/out" 2>"$W/err"
rc=$?
rm -f "$rules" && mv "$W/real.rules" "$rules"
[ $rc = 0 ] && grep -q "warning: collective rules not applied: $rules is a symlink" "$W/err" &&
	! grep -q "applied rules" "$W/err" &&
	ok "a rules file that is a symlink is not applied" || bad "symlinked rules" "applied, or no warning (exit $rc)"

# 3. Open MPI follows the file: a terrible MPI_Bcast rule at that path (a
# pipeline of 64-byte segments) is seen in what rank 0 sends, counted by
# Open MPI's own pml monitoring: a 1 MiB MPI_Bcast goes as 16384 messages
# instead of one. Counted, not timed: times on a loaded machine say
# nothing (a single run once measured the default slower than this rule).
cp "$rules" "$W/good.rules"
printf '# terrible on purpose\n1\n7\n1\n2\n1\n0 3 1 64\n' > "$rules"
t() {
	rm -f "$W"/prof.*
	$RUN -x OMPI_MCA_pml_monitoring_enable=1 -x OMPI_MCA_pml_monitoring_enable_output=3 \
		-x OMPI_MCA_pml_monitoring_filename="$W/prof" \
		"$MPIWASM" --cache-dir "$W/c" "$@" "$W/collbench.wasm" bcast 1048576 1048576 >/dev/null 2>"$W/err" &&
		awk '$1 == "E" && $2 == 0 && $3 == 1 { print $6 }' "$W/prof.0.prof" 2>/dev/null
}
slow=$(t); fast=$(t --no-coll-tuning)
if [ -n "$slow" ] && [ -n "$fast" ] && [ "$fast" -gt 0 ] && [ "$slow" -gt $((1000 * fast)) ]; then
	ok "Open MPI honours the file (1 MiB MPI_Bcasts: rank 0 sent $slow messages with the terrible rule, $fast without)"
else bad "honoured" "rank 0 sent '$slow' messages with the terrible rule, '$fast' without"; fi

# 4. correct answers under rules: tests/mpi/coll.c (its collectives'
# results checked, among them MPI_Allgather, MPI_Alltoall, MPI_Barrier,
# MPI_Reduce and MPI_Reduce_scatter) under the file tune wrote, and under
# one that sends every one of the seven collectives to an algorithm that
# is not Open MPI's choice for 2 ranks
cp "$W/good.rules" "$rules"
if "$(dirname "$MPIWASM")/mpiwasm-cc" -O2 -o "$W/coll.wasm" "$root/tests/mpi/coll.c" 2>"$W/err"; then
	MPIWASM_COLL_LOG=1 $RUN "$MPIWASM" --cache-dir "$W/c" "$W/coll.wasm" >"$W/out" 2>"$W/err"
	rc=$?
	[ $rc = 0 ] && grep -qx "coll np=2: 0 failed" "$W/out" &&
		grep -q "coll tuning: \(applied rules file\|not applied: .* has no verified rule\)" "$W/err" &&
		ok "tests/mpi/coll.c passes under tune's rules file" ||
		bad "coll under tune's rules" "exit $rc: $(head -3 "$W/out")"
	# allgather ring, allreduce ring, alltoall pairwise, barrier
	# double_ring, bcast binomial, reduce binomial, reduce_scatter ring
	{
		echo "# every collective forced, for tests/coll"
		echo 7
		for cr in "0 4" "2 4" "3 2" "6 2" "7 6" "11 5" "12 3"; do
			set -- $cr
			echo "$1 1 2 1 0 $2 0 0"
		done
	} > "$rules"
	MPIWASM_COLL_LOG=1 $RUN "$MPIWASM" --cache-dir "$W/c" "$W/coll.wasm" >"$W/out" 2>"$W/err"
	rc=$?
	[ $rc = 0 ] && grep -qx "coll np=2: 0 failed" "$W/out" &&
		[ "$(grep -c "coll tuning: applied rules file $rules" "$W/err")" = 2 ] &&
		ok "tests/mpi/coll.c passes with all seven collectives forced to other algorithms" ||
		bad "coll under forced rules" "exit $rc: $(head -3 "$W/out")"
	cp "$W/good.rules" "$rules"
else bad "build coll.wasm" "mpiwasm-cc tests/mpi/coll.c"; fi
done_
