#!/bin/sh
# scripts/run-checks.sh SUITE... - what `make check` runs: each suite (a
# make target) in turn, its output kept in build/check/SUITE.log.  A suite
# passes when make succeeds AND its closing "N passed, N failed" line
# shows at least the number of passed tests tests/expected-counts.txt
# gives for it: a suite that ran nothing, or lost tests silently, fails
# with a line saying what is missing.  A suite that cannot run on this
# machine (a missing capability, e.g. no network namespaces) ends with the
# line "SKIPPED: why" and exit 0: it is listed as skipped, counted neither
# as passed nor as failed.  Closes with the time of each suite and the
# totals.
set -u
MAKE=${MAKE:-make}
expect=tests/expected-counts.txt
logs=${CHECK_LOGS:-build/check}
mkdir -p "$logs" || exit 1
# Open MPI's session directories of this run in a directory of its own:
# two mpiruns of one user that start together race to create
# /tmp/ompi.HOST.UID ("A call to mkdir ... File exists"), so another job of
# the same user on the machine must not fail one of our tests.
if [ -z "${OMPI_MCA_orte_tmpdir_base:-}" ]; then
	OMPI_MCA_orte_tmpdir_base=$(mktemp -d /tmp/mpiwasm-check-ompi.XXXXXX) || exit 1
	export OMPI_MCA_orte_tmpdir_base
	trap 'rm -rf "$OMPI_MCA_orte_tmpdir_base"' EXIT
fi
tp=0 tf=0 ts=0 bad="" summary=""
for s in "$@"; do
	echo "== $s"
	t0=$(date +%s)
	$MAKE --no-print-directory "$s" > "$logs/$s.log" 2>&1
	rc=$?
	t=$(($(date +%s) - t0))
	cat "$logs/$s.log"
	skip=$(tail -n 1 "$logs/$s.log" | sed -n 's/^SKIPPED: //p')
	if [ "$rc" = 0 ] && [ -n "$skip" ]; then
		echo "check: $s skipped: $skip"
		ts=$((ts + 1))
		summary="$summary$(printf '%-22s %4d s  skipped: %s' "$s" "$t" "$skip")
"
		continue
	fi
	# The suite's own closing line (the last "N passed, N failed" it printed).
	line=$(grep -E '(^|[ :])[0-9]+ passed, [0-9]+ failed' "$logs/$s.log" | tail -n 1)
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
	tp=$((tp + ${p:-0})) tf=$((tf + ${f:-0}))
	if [ -n "$why" ]; then
		echo "check: $s FAILED: $why"
		bad="$bad $s"
		[ "${f:-0}" = 0 ] && tf=$((tf + 1))
	fi
	summary="$summary$(printf '%-22s %4d s  %s' "$s" "$t" "${line:-(no result line)}")
"
done
echo "== summary"
printf '%s' "$summary"
[ -n "$bad" ] && echo "check: failed:$bad"
[ "$ts" != 0 ] && echo "check: $ts suites skipped (see above): their tests did not run here"
echo "check: $tp passed, $tf failed"
[ -z "$bad" ]
