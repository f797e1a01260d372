#!/bin/sh
# keep-c.sh - a C compiler wrapper for MPIWASM_CC, for looking at and
# experimenting with the translator's output.
#   KEEP_C_DIR (default /tmp/mpiwasm-c): every .c it is asked to compile
#     (the translation units u0.c, u1.c, ...) is copied there first.
#   SUBST_C_DIR: if set and it holds a file of the same name (u0.c ...),
#     that hand-edited file is compiled instead: the cache then holds code
#     built from it, so its effect can be measured with the usual run.
#   KEEP_C_CC (default cc): the real compiler, given the same arguments.
# Use a separate --cache-dir for experiments (the cache key does not know
# about the substitution), and keep MPIWASM_CC set for the timed runs too:
# the key includes the compiler's identity, so a run with plain cc would
# miss and rebuild from the translator's own output.
dir=${KEEP_C_DIR:-/tmp/mpiwasm-c}
mkdir -p "$dir" || { echo "keep-c.sh: cannot create $dir" >&2; exit 1; }
n=$#
i=0
while [ $i -lt "$n" ]; do
	a=$1; shift; i=$((i + 1))
	case $a in
	*.c)
		b=$(basename "$a")
		cp "$a" "$dir/$b" || { echo "keep-c.sh: cannot copy $a to $dir" >&2; exit 1; }
		if [ -n "${SUBST_C_DIR:-}" ] && [ -f "$SUBST_C_DIR/$b" ]; then
			a=$SUBST_C_DIR/$b
		fi ;;
	esac
	set -- "$@" "$a"
done
exec "${KEEP_C_CC:-cc}" "$@"
