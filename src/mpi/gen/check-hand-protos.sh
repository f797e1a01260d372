#!/bin/sh
# check-hand-protos.sh OBJ... - the hand-written handlers the bridge's
# objects define (global mwh_* and mwb_*_c, in the symbol table, however a
# macro wrote them) are exactly those src/mpi/hand_protos.h declares, and
# every source file defining one includes that header (so the compiler
# compared its definition with the prototype).  Prints one line per
# difference and fails on any.
set -e
tmp=${TMPDIR:-/tmp}/mpiwasm-handprotos.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
	nm -g --defined-only "$o" | awk -v o="$o" '$2 == "T" && $3 ~ /^mw[hb]_/ { print $3, o }'
done | sort > "$tmp/defined"
awk '{ print $1 }' "$tmp/defined" > "$tmp/defnames"
sed -n 's/^[a-z0-9_]* \(mw[hb]_[A-Za-z0-9_]*\)(.*/\1/p' src/mpi/hand_protos.h | sort > "$tmp/declared"
bad=0
test -s "$tmp/declared" || { echo "hand_protos.h: no prototypes found"; bad=1; }
test -s "$tmp/defined" || { echo "no handler defined in $*"; bad=1; }
for f in $(comm -23 "$tmp/defnames" "$tmp/declared"); do
	echo "handler $f is defined ($(grep "^$f " "$tmp/defined" | cut -d' ' -f2)) but has no prototype in hand_protos.h (not registered by gen.py?)"
	bad=1
done
for f in $(comm -13 "$tmp/defnames" "$tmp/declared"); do
	echo "hand_protos.h declares $f, but no object defines it"
	bad=1
done
for o in $(awk '{ print $2 }' "$tmp/defined" | sort -u); do
	src=src/mpi/$(basename "$o" .o).c
	if ! grep -q '^#include "hand_protos.h"' "$src"; then
		echo "$src defines handlers but does not include hand_protos.h"
		bad=1
	fi
done
echo "hand_protos.h: $(wc -l < "$tmp/declared") prototypes, $(wc -l < "$tmp/defnames") handlers defined"
exit $bad
