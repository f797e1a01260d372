#!/bin/sh
# scripts/run-checks.sh [--beside "SUITE..." --fork-at SUITE] SUITE... -
# what `make check` runs: each suite (a make target) in turn, its output
# kept in build/check/SUITE.log.  A suite passes when make succeeds AND its
# closing "N passed, N failed" line shows at least the number of passed
# tests tests/expected-counts.txt gives for it: a suite that ran nothing,
# or lost tests silently, fails with a line saying what is missing.  A
# suite that cannot run on this machine (a missing capability, e.g. no
# network namespaces) ends with the line "SKIPPED: why" and exit 0: it is
# listed as skipped, counted neither as passed nor as failed.  Closes with
# the wall and CPU seconds of each suite (scripts/cpu-of.py) and the totals.
#
# --beside: suites run in a second lane, one after another, while the
# first lane goes on; the lane starts when the first lane reaches the
# --fork-at suite (so that the fast suites before it still show a broken
# build in seconds, and the collective-timing check in them runs alone).
# Only suites that start no timing-sensitive job and build nothing the
# first lane builds belong there (see CHECK_BESIDE in the Makefile).  Their
# output is printed when both lanes are done.  The first lane, once its own
# suites are done, takes the second lane's from the end of its list, so
# that neither core waits for the other: each suite is claimed once (a
# directory made in build/check; mkdir is atomic), by whichever lane
# reaches it first.
set -u
MAKE=${MAKE:-make}
expect=tests/expected-counts.txt
logs=${CHECK_LOGS:-build/check}
beside="" fork_at=""
while [ $# -gt 0 ]; do
	case $1 in
	--beside) beside=$2; shift 2 ;;
	--fork-at) fork_at=$2; shift 2 ;;
	*) break ;;
	esac
done
mkdir -p "$logs" || exit 1
# A suite in both lanes would run twice at once, its builds racing.
for s in $beside; do
	case " $* " in *" $s "*)
		echo "run-checks.sh: $s is in both lanes"; exit 1 ;;
	esac
done
# Open MPI's session directories of this run in a directory of its own:
# two mpiruns of one user that start together race to create
# /tmp/ompi.HOST.UID ("A call to mkdir ... File exists"), so another job of
# the same user on the machine must not fail one of our tests.  The second
# lane has a directory of its own for the same reason.
if [ -z "${OMPI_MCA_orte_tmpdir_base:-}" ]; then
	OMPI_MCA_orte_tmpdir_base=$(mktemp -d /tmp/mpiwasm-check-ompi.XXXXXX) || exit 1
	export OMPI_MCA_orte_tmpdir_base
	trap 'rm -rf "$OMPI_MCA_orte_tmpdir_base"' EXIT
fi

# run_suite S: runs suite S and writes its verdict to $logs/S.res, one line:
# "pass P F T" / "skip T WHY" / "fail P F T WHY"; LINE in $logs/S.line.
run_suite() {
	s=$1
	t0=$(date +%s)
	rm -f "$logs/$s.cpu"
	# shellcheck disable=SC2086
	python3 scripts/cpu-of.py "$logs/$s.cpu" $MAKE --no-print-directory "$s" > "$logs/$s.log" 2>&1
	rc=$?
	t=$(($(date +%s) - t0))
	skip=$(tail -n 1 "$logs/$s.log" | sed -n 's/^SKIPPED: //p')
	if [ "$rc" = 0 ] && [ -n "$skip" ]; then
		echo "skip 0 0 $t $skip" > "$logs/$s.res"
		return
	fi
	# The suite's own closing line (the last "N passed, N failed" it printed).
	line=$(grep -E '(^|[ :])[0-9]+ passed, [0-9]+ failed' "$logs/$s.log" | tail -n 1)
	printf '%s\n' "$line" > "$logs/$s.line"
	pf=$(printf '%s\n' "$line" | grep -oE '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	p=$(printf '%s\n' "$pf" | cut -d' ' -f1)
	f=$(printf '%s\n' "$pf" | cut -d' ' -f3)
	min=$(awk -v s="$s" '$1 == s { print $2 }' "$expect")
	why=""
	if [ "$rc" != 0 ]; then
		why="make $s exited $rc"
	elif [ -z "$p" ]; then
		why="no 'N passed, N failed' line in its output"
	elif [ -z "$min" ]; then
		why="no minimum for $s in $expect"
	elif [ "$p" -lt "$min" ]; then
		why="only $p passed, $expect expects at least $min: tests are missing"
	elif [ "$f" != 0 ]; then
		why="$f failed"
	fi
	if [ -n "$why" ]; then
		echo "fail ${p:-0} ${f:-0} $t $why" > "$logs/$s.res"
	else
		echo "pass $p $f $t" > "$logs/$s.res"
	fi
}

# show S: the suite's log and, if it did not pass, why.
show() {
	echo "== $1"
	cat "$logs/$1.log"
	read -r v p f t why < "$logs/$1.res"
	case $v in
	skip) echo "check: $1 skipped: $why" ;;
	fail) echo "check: $1 FAILED: $why" ;;
	esac
}

start=$(date +%s)
lane2=""
for s in $beside; do rm -f "$logs/$s.res"; rm -rf "$logs/$s.claim"; done
claim() { mkdir "$logs/$1.claim" 2>/dev/null; }
rev=""
for s in $beside; do rev="$s $rev"; done
for s in "$@"; do
	if [ "$s" = "$fork_at" ] && [ -n "$beside" ]; then
		echo "== started beside the suites below: $beside"
		(
			OMPI_MCA_orte_tmpdir_base=$OMPI_MCA_orte_tmpdir_base/lane2
			mkdir -p "$OMPI_MCA_orte_tmpdir_base"
			export OMPI_MCA_orte_tmpdir_base
			for b in $beside; do claim "$b" && run_suite "$b"; done
		) &
		lane2=$!
	fi
	run_suite "$s"
	show "$s"
done
if [ -n "$beside" ]; then
	if [ -z "$lane2" ]; then
		# no --fork-at among the suites: the second lane runs last, alone
		for b in $beside; do claim "$b" && run_suite "$b"; done
	else
		for b in $rev; do claim "$b" && : > "$logs/$b.claim/first" && run_suite "$b"; done
		wait "$lane2"
	fi
	for b in $beside; do
		[ -f "$logs/$b.res" ] || echo "fail 0 0 0 did not run (its lane ended early)" > "$logs/$b.res"
		show "$b"
	done
fi

tp=0 tf=0 ts=0 tc=0 bad=""
echo "== summary (wall seconds, CPU seconds of the suite's processes)"
for s in "$@" $beside; do
	read -r v p f t why < "$logs/$s.res"
	c=$(cat "$logs/$s.cpu" 2>/dev/null || echo 0)
	tc=$((tc + c))
	lane=""
	case " $beside " in *" $s "*) lane=" (beside)"
		[ -e "$logs/$s.claim/first" ] && lane=" (beside, taken by the first lane)" ;; esac
	case $v in
	skip)
		ts=$((ts + 1))
		printf '%-22s %4d s %5d cpu  skipped: %s\n' "$s" "$t" "$c" "$why" ;;
	*)
		tp=$((tp + p)) tf=$((tf + f))
		if [ "$v" = fail ]; then
			bad="$bad $s"
			[ "$f" = 0 ] && tf=$((tf + 1))
		fi
		l=$(cat "$logs/$s.line" 2>/dev/null)
		printf '%-22s %4d s %5d cpu  %s%s\n' "$s" "$t" "$c" "${l:-(no result line)}" "$lane" ;;
	esac
done
[ -n "$bad" ] && echo "check: failed:$bad"
[ "$ts" != 0 ] && echo "check: $ts suites skipped (see above): their tests did not run here"
echo "check: $(($(date +%s) - start)) s in all, $tc CPU s"
echo "check: $tp passed, $tf failed"
[ -z "$bad" ]
