#!/bin/sh
# run.sh SPEC_RUN B JOBS TIMEOUT NAME... - runs spec_run on each converted
# file, JOBS at a time, then prints every file's log in order and the
# totals.  Exits non-zero on any failed command.
set -u
run=$1 b=$2 jobs=$3 limit=$4
shift 4
mkdir -p "$b/spec-cache"
start=$(date +%s)
# Files with the most modules first: the long ones start early and the
# two workers finish together.
for name in "$@"; do
	printf '%s %s\n' "$(grep -c '"type": "module"' "$b/spec/$name/$(basename "$name").json")" "$name"
done | sort -rn | cut -d' ' -f2 | xargs -P "$jobs" -I@ sh -c '
	d="$1/spec/@"; n=$(basename "@")
	timeout -k 10 "$2" nice "$3" -c "$1/spec-cache" -s tests/spec/skip.txt -n "@" \
	  "$d/$n.json" > "$d/result.log" 2>&1
	echo $? > "$d/result.rc"' sh "$b" "$limit" "$run"
end=$(date +%s)

names=$*
pass=0 fail=0 skip=0 text=0 bad=0
for name in $names; do
	d="$b/spec/$name"
	cat "$d/result.log"
	# "<name>: P passed, F failed, S skipped (K skip-list, T text-format)"
	line=$(tail -n 1 "$d/result.log")
	set -- $(printf '%s\n' "$line" | sed -n \
	  's/^.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped (\([0-9]*\) with a reason, \([0-9]*\) text-format)$/\1 \2 \4 \5/p')
	if [ $# -ne 4 ]; then
		echo "$name: no summary from spec_run (exit status $(cat "$d/result.rc"))"
		bad=$((bad + 1)); fail=$((fail + 1))
		continue
	fi
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3)) text=$((text + $4))
done
# Sum the per-file time lines: where the cold run's time goes.
for name in $names; do grep -h '^[^ ]*: time: ' "$b/spec/$name/result.log"; done | awk '
	{ for (i = 1; i <= NF; i++) {
		if ($i == "modules") n += $(i - 1)
		if ($i == "from") { x = $(i - 1); sub(/^\(/, "", x); c += x }
		if ($i ~ /^(decode|validate|translate|compile|load)$/) t[$i] += $(i + 1)
	} }
	END { printf "spec: time: %d module loads (%d from the cache); decode %.1f, validate %.1f, translate %.1f, compile %.1f, load %.1f s (CPU-side sums over files)\n",
	      n, c, t["decode"], t["validate"], t["translate"], t["compile"], t["load"] }'
echo "spec: $skip skipped with a reason (tests/spec/skip.txt or printed above), $text text-format assertions skipped (wast2json's parser, not the engine), $bad files without a summary, $((end - start)) s wall"
echo "spec: $pass passed, $fail failed"
[ "$fail" = 0 ]
