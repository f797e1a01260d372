#!/bin/sh
# bench/coll/rulecost.sh - the per-call cost of the MPICH bridge's
# collective rules (rulecost.c on MPI_COMM_SELF, 2 ranks):
#   none      --no-coll-tuning: no rules (one test per call)
#   other     rules only for 2-rank communicators: looked up, never match
#   same      a rule for every size: MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM
#             written once, then looked up
#   switch    a rule for 8 B calls only: the variable written on every
#             call (8 B to recursive_doubling, 16 B back to auto)
# Each line: the median ns per call of 9 runs' medians (the modes taken in
# turn, round by round).
#   B=build-mpich sh bench/coll/rulecost.sh
set -eu
B=${B:-build-mpich}
W=$(mktemp -d /tmp/mpiwasm-rulecost-XXXXXX)
trap 'rm -rf "$W"' EXIT
"$B/mpiwasm-cc" -O2 -o "$W/rc.wasm" "$(dirname "$0")/rulecost.c"
C=$W/c
"$B/mpiwasm" compile --cache-dir "$C" -q "$W/rc.wasm" >/dev/null
mkdir -p "$C/coll" && chmod 700 "$C" "$C/coll"
host=$(hostname | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9.]\{1,\}/-/g')
ver=$(mpichversion | sed -n 's/^MPICH Version:[[:space:]]*//p')
f=$C/coll/$host-np2-ppn2-mpich-$ver.rules
# the modes in turn, 9 rounds, so that a change of load falls on all
for round in 1 2 3 4 5 6 7 8 9; do
	for mode in none other same switch; do
		case $mode in
		other) echo "rule allreduce 2 0 -1 recursive_doubling" > "$f" ;;
		same) echo "rule allreduce 1 0 -1 recursive_doubling" > "$f" ;;
		switch) echo "rule allreduce 1 8 16 recursive_doubling" > "$f" ;;
		esac
		opt=; [ $mode = none ] && opt=--no-coll-tuning
		timeout 120 mpirun.mpich -np 2 "$B/mpiwasm" --cache-dir "$C" $opt "$W/rc.wasm" |
			sed -n "s/^rulecost: \([0-9.]*\) ns.*/$mode \1/p"
	done
done > "$W/all"
for mode in none other same switch; do
	awk -v m=$mode '$1 == m { print $2 }' "$W/all" | sort -n | sed -n 5p | sed "s/^/$mode /"
done
