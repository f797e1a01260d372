#!/bin/sh
# keep-c.sh - a C compiler wrapper for MPIWASM_CC that keeps a copy of
# every .c file it is asked to compile (the translator's output) in
# $KEEP_C_DIR (default /tmp/mpiwasm-c), then runs the real compiler
# ($KEEP_C_CC, default cc) with the same arguments.
dir=${KEEP_C_DIR:-/tmp/mpiwasm-c}
mkdir -p "$dir" || { echo "keep-c.sh: cannot create $dir" >&2; exit 1; }
for a in "$@"; do
	case $a in
	*.c) cp "$a" "$dir/$(basename "$a")" ||
		{ echo "keep-c.sh: cannot copy $a to $dir" >&2; exit 1; } ;;
	esac
done
exec "${KEEP_C_CC:-cc}" "$@"
