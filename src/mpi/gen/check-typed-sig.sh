#!/bin/sh
# check-typed-sig.sh CC CFLAGS... - a typed handler must be defined with the
# parameters its generated prototype (src/mpi/hand_protos.h) gives: MPI_Send's
# handler with those compiles, and with the raw wasm parameters (what a
# handler took before it was typed) it is a compile error.  Prints one line
# and fails if either is not so.
cc=$1; shift
src=${TMPDIR:-/tmp}/mpiwasm-typedsig.$$.c
trap 'rm -f "$src"' EXIT
ok=$(sed -n 's/^\(uint32_t mwh_Send(const mw_call \*k, [^)]*)\);$/\1/p' src/mpi/hand_protos.h)
if [ -z "$ok" ]; then
	echo "check-typed-sig: no typed prototype of mwh_Send in hand_protos.h"
	exit 1
fi
printf '#include "hand_protos.h"\n%s { return 0; }\n' "$ok" > "$src"
if ! "$cc" "$@" -Isrc -Isrc/mpi -fsyntax-only "$src"; then
	echo "check-typed-sig: mwh_Send with its generated prototype does not compile"
	exit 1
fi
printf '#include "hand_protos.h"\nuint32_t mwh_Send(rt_instance *inst, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4, uint32_t a5) { return 0; }\n' > "$src"
if "$cc" "$@" -Isrc -Isrc/mpi -fsyntax-only "$src" 2>/dev/null; then
	echo "check-typed-sig: mwh_Send with untyped parameters compiled (it must not)"
	exit 1
fi
echo "check-typed-sig: a typed handler with other parameters than its prototype's is a compile error"
