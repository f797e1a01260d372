#!/bin/sh
# run.sh SPEC_RUN B JOBS TIMEOUT NAME... - runs spec_run on each converted
# file, JOBS at a time, then prints every file's log in order and the
# totals.  Exits non-zero on any failed command.
set -u
run=$1 b=$2 jobs=$3 limit=$4
shift 4
mkdir -p "$b/spec-cache"
# Logs go to a directory of this run's own: other runs of check-spec on
# the same build tree (other engineers, make check) must not clobber them.
logs=$(mktemp -d "$b/spec-run.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT
log() { printf '%s/%s' "$logs" "$(printf '%s' "$1" | tr / _)"; }
start=$(date +%s)
# Files with the most modules first: the long ones start early and the
# two workers finish together.
for name in "$@"; do
	printf '%s %s\n' "$(grep -c '"type": "module"' "$b/spec/$name/$(basename "$name").json")" "$name"
done | sort -rn | cut -d' ' -f2 | xargs -P "$jobs" -I@ sh -c '
	n=$(basename "@"); l="$4/$(printf "%s" "@" | tr / _)"
	timeout -k 10 "$2" nice "$3" -c "$1/spec-cache" -s tests/spec/skip.txt -n "@" \
	  "$1/spec/@/$n.json" > "$l.log" 2>&1
	echo $? > "$l.rc"' sh "$b" "$limit" "$run" "$logs"
end=$(date +%s)

names=$*
pass=0 fail=0 skip=0 text=0 bad=0
for name in $names; do
	l=$(log "$name")
	cat "$l.log"
	cp "$l.log" "$b/spec/$name/result.log" 2>/dev/null
	# "<name>: P passed, F failed, S skipped (K with a reason, T text-format)"
	line=$(tail -n 1 "$l.log")
	set -- $(printf '%s\n' "$line" | sed -n \
	  's/^.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped (\([0-9]*\) with a reason, \([0-9]*\) text-format)$/\1 \2 \4 \5/p')
	if [ $# -ne 4 ]; then
		echo "$name: no summary from spec_run (exit status $(cat "$l.rc"))"
		bad=$((bad + 1)); fail=$((fail + 1))
		continue
	fi
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3)) text=$((text + $4))
done
# Sum the per-file time lines: where the cold run's time goes.
for name in $names; do grep -h '^[^ ]*: time: ' "$(log "$name").log"; done | awk '
	{ for (i = 1; i <= NF; i++) {
		if ($i == "modules") n += $(i - 1)
		if ($i == "from") { x = $(i - 1); sub(/^\(/, "", x); c += x }
		if ($i ~ /^(decode|validate|translate|compile|load)$/) t[$i] += $(i + 1)
	} }
	END { printf "spec: time: %d module loads (%d from the cache); decode %.1f, validate %.1f, translate %.1f, compile %.1f, load %.1f s (CPU-side sums over files)\n",
	      n, c, t["decode"], t["validate"], t["translate"], t["compile"], t["load"] }'
echo "spec: $skip skipped with a reason (tests/spec/skip.txt or printed above), $text text-format assertions skipped (wast2json's parser, not the engine), $bad files without a summary, $((end - start)) s wall"
# A run that executed nothing, or fewer commands than the suite holds,
# must not look like a pass.
ran=$((pass + fail + skip))
if [ "$ran" = 0 ]; then
	echo "spec: no command ran"; fail=$((fail + 1))
elif [ -n "${SPEC_EXPECT:-}" ] && [ "$pass" != "$SPEC_EXPECT" ]; then
	echo "spec: $pass commands passed, a full run passes $SPEC_EXPECT (files missing from SPEC_DIR, or a skip added?)"
	fail=$((fail + 1))
fi
echo "spec: $pass passed, $fail failed"
[ "$fail" = 0 ]
