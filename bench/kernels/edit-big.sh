#!/bin/sh
# edit-big.sh BIG.C K - print BIG.C (gen-big.sh output) with K functions
# changed, spread evenly over the program: each one's starting constant
# (`acc = x ^ Nu`) becomes N+1.  The "rebuilt application with a few
# changed functions" of the compile-time measurement (coldcompile.sh).
src=$1 k=${2:-3}
[ -f "$src" ] || { echo "edit-big.sh: no file '$src'" >&2; exit 2; }
case $k in ''|*[!0-9]*) echo "edit-big.sh: bad count '$k'" >&2; exit 2;; esac
n=$(grep -c 'uint32_t acc = x ^ ' "$src")
[ "$k" -le "$n" ] || { echo "edit-big.sh: $src has only $n functions" >&2; exit 2; }
awk -v n="$n" -v k="$k" '
BEGIN { for (j = 1; j <= k; j++) pick[int(j * n / (k + 1)) + 1] = 1 }
/uint32_t acc = x \^ [0-9]+u;/ {
	if (pick[++f]) {
		match($0, /\^ [0-9]+u/)
		c = substr($0, RSTART + 2, RLENGTH - 3) + 1
		sub(/\^ [0-9]+u/, "^ " c "u")
		changed++
	}
}
{ print }
END { if (changed != k) { print "edit-big.sh: changed " changed " of " k > "/dev/stderr"; exit 1 } }' "$src"
