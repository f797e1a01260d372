#!/bin/sh
# tests/omp/run.sh - check-omp: libmpiwasm-malloc and libmpiwasm-omp.
#  1. natively: the allocator stress test (both builds: per-thread heaps
#     and one lock) with the project's malloc replacing glibc's; OpenMP
#     programs built with gcc -fopenmp (libgomp) and with clang over
#     libmpiwasm-omp give identical output at OMP_NUM_THREADS=1,2,4; an
#     unsupported construct fails to link naming its entry point; a region
#     with more captured variables than supported stops naming the limit;
#     a bad OMP_NUM_THREADS is refused.
#  2. in wasm, when mpiwasm-cc -pthread works: the same programs built with
#     mpiwasm-cc -pthread / -fopenmp under build/mpiwasm, compared with the
#     libgomp outputs; the unsupported construct; the hybrid MPI+OpenMP
#     program at 1, 2 and 4 ranks x 2 threads against the same built with
#     the host MPI's wrapper and gcc -fopenmp.  When it does not, one line
#     says so and those tests count as skipped.
# Last line: `omp: N passed, M failed[, K skipped]`.
#
# Environment: B (build dir, default build), OUT (scratch, default
# $B/tests/omp), GCC (native compiler for the libgomp reference, gcc),
# MPI (openmpi or mpich: the host MPI of the hybrid test).
set -u
{
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
B=${B:-build}
B=$(cd "$B" && pwd) || { echo "tests/omp/run.sh: no build dir $B"; exit 1; }
OUT=${OUT:-$B/tests/omp}
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
GCC=${GCC:-gcc}
CLANG=${MPIWASM_CLANG:-clang-19}
NATIVE=$B/toolchain/native
OMPINC=$root/toolchain/libmpiwasm-omp/include
pass=0
fail=0
skip=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
excerpt() { [ -f "$1" ] && sed -n '1,12s/^/     | /p' "$1"; }
OMP_PROGS="omp_constructs omp_kernels"

# ---- 1. native -------------------------------------------------------------
for v in malloc malloc-onelock; do
	exe=$OUT/malloc_stress.$v
	if ! $GCC -std=gnu11 -O2 -pthread -DEXPECT_MPIWASM_MALLOC -o "$exe" \
		"$here/malloc_stress.c" "$NATIVE/libmpiwasm-$v.a" > "$OUT/$v.build" 2>&1; then
		bad "native: malloc_stress ($v) does not build"
		excerpt "$OUT/$v.build"
	elif timeout 300 "$exe" > "$OUT/$v.out" 2>&1 && tail -n 1 "$OUT/$v.out" | grep -qx 'malloc_stress ok'; then
		ok "native: malloc_stress with libmpiwasm-$v (8 threads, cross-thread frees, ended threads, realloc, alignment, calloc)"
	else
		bad "native: malloc_stress with libmpiwasm-$v"
		excerpt "$OUT/$v.out"
	fi
done

for p in $OMP_PROGS; do
	ref=$OUT/$p.gomp
	own=$OUT/$p.native
	if ! $GCC -std=gnu11 -O2 -fopenmp -o "$ref" "$here/$p.c" > "$OUT/$p.gomp.build" 2>&1; then
		bad "native: $p does not build with gcc -fopenmp"
		excerpt "$OUT/$p.gomp.build"
		continue
	fi
	# clang's OpenMP code generation, our runtime instead of libomp.
	if ! { $CLANG -std=gnu11 -O2 -fopenmp=libomp -isystem "$OMPINC" -c -o "$own.o" "$here/$p.c" &&
		$CLANG -o "$own" "$own.o" "$NATIVE/libmpiwasm-omp.a" -pthread; } > "$OUT/$p.native.build" 2>&1; then
		bad "native: $p does not build with clang over libmpiwasm-omp"
		excerpt "$OUT/$p.native.build"
		continue
	fi
	for n in 1 2 4; do
		OMP_NUM_THREADS=$n timeout 120 "$ref" > "$OUT/$p.$n.gomp" 2>&1
		OMP_NUM_THREADS=$n timeout 120 "$own" > "$OUT/$p.$n.native" 2>&1
		rc=$?
		if [ "$rc" = 0 ] && [ -s "$OUT/$p.$n.gomp" ] && cmp -s "$OUT/$p.$n.gomp" "$OUT/$p.$n.native"; then
			ok "native: $p at $n threads, same output as libgomp"
		else
			bad "native: $p at $n threads (exit $rc), differs from libgomp"
			diff "$OUT/$p.$n.gomp" "$OUT/$p.$n.native" | sed -n '1,12s/^/     | /p'
		fi
	done
done

# omp atomic on long double and complex: gcc rejects it, so the reference
# is clang natively (libatomic); the program checks its own sums.
aw=$OUT/omp_atomic_wide
if $CLANG -std=gnu11 -O2 -fopenmp=libomp -isystem "$OMPINC" -c -o "$aw.o" "$here/omp_atomic_wide.c" > "$aw.build" 2>&1 &&
	$CLANG -o "$aw.native" "$aw.o" "$NATIVE/libmpiwasm-omp.a" -pthread -latomic >> "$aw.build" 2>&1; then
	for n in 1 2 4; do
		if OMP_NUM_THREADS=$n timeout 60 "$aw.native" > "$aw.$n.ref" 2>&1; then
			ok "native: omp atomic on long double and complex at $n threads, no update lost"
		else
			bad "native: omp atomic on long double and complex at $n threads"
			excerpt "$aw.$n.ref"
		fi
	done
else
	bad "native: omp_atomic_wide does not build"
	excerpt "$aw.build"
fi

# An unsupported construct is a link error naming the entry point.
if $CLANG -fopenmp=libomp -c -o "$OUT/unsup.o" "$here/omp_unsupported.c" > /dev/null 2>&1 &&
	! $CLANG -o "$OUT/unsup" "$OUT/unsup.o" "$NATIVE/libmpiwasm-omp.a" -pthread > "$OUT/unsup.err" 2>&1 &&
	grep -q '__kmpc_omp_task_alloc' "$OUT/unsup.err"; then
	ok "native: tasks fail to link, naming __kmpc_omp_task_alloc"
else
	bad "native: a program with tasks linked, or the error does not name __kmpc_omp_task_alloc"
	excerpt "$OUT/unsup.err"
fi

# 32 captured variables work, 33 stop with a message naming the limit.
# check_manyvars LABEL OUTPUT EXIT
check_manyvars() {
	if [ "$3" != 0 ] && grep -qx '32 captured: sum 992' "$2" &&
		grep -q 'capturing 33 variables (at most 32 are supported' "$2" &&
		! grep -q '33 captured' "$2"; then
		ok "$1: a region with 32 captured variables runs, with 33 it stops naming the limit"
	else
		bad "$1: regions with 32 and 33 captured variables (exit $3)"
		excerpt "$2"
	fi
}
if $CLANG -O2 -fopenmp=libomp -isystem "$OMPINC" -c -o "$OUT/manyvars.o" "$here/omp_manyvars.c" > "$OUT/manyvars.build" 2>&1 &&
	$CLANG -o "$OUT/manyvars" "$OUT/manyvars.o" "$NATIVE/libmpiwasm-omp.a" -pthread >> "$OUT/manyvars.build" 2>&1; then
	OMP_NUM_THREADS=2 timeout 60 "$OUT/manyvars" > "$OUT/manyvars.out" 2>&1
	check_manyvars native "$OUT/manyvars.out" $?
else
	bad "native: omp_manyvars does not build"
	excerpt "$OUT/manyvars.build"
fi

# A bad OMP_NUM_THREADS is an error saying what was wrong.
if [ -x "$OUT/omp_constructs.native" ]; then
	if OMP_NUM_THREADS=four timeout 60 "$OUT/omp_constructs.native" > "$OUT/badenv.out" 2>&1; then
		bad "native: OMP_NUM_THREADS=four was accepted"
	elif grep -q 'OMP_NUM_THREADS=four: expected a positive number' "$OUT/badenv.out"; then
		ok "native: OMP_NUM_THREADS=four refused with a message"
	else
		bad "native: OMP_NUM_THREADS=four: no message naming it"
		excerpt "$OUT/badenv.out"
	fi
fi

# ---- 2. wasm ---------------------------------------------------------------
CC_W=$B/mpiwasm-cc
MPIWASM=$B/mpiwasm
MPI=${MPI:-openmpi}
case $MPI in
mpich)
	MPICC=mpicc.mpich
	LAUNCH="mpirun.mpich -np"
	XENV="-genv OMP_NUM_THREADS 2" ;;
*)
	MPICC=mpicc.openmpi
	LAUNCH="mpirun.openmpi --oversubscribe -np"
	XENV="-x OMP_NUM_THREADS"
	[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
esac
run_w() { timeout 300 "$MPIWASM" -q "$@"; }
printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; void *r; pthread_create(&t, 0, f, &t); pthread_join(t, &r); return r != &t; }\n' > "$OUT/probe.c"
why=""
if [ ! -x "$CC_W" ] || [ ! -x "$MPIWASM" ]; then
	why="no $CC_W or $MPIWASM (make)"
elif ! "$CC_W" -pthread -O2 -o "$OUT/probe.wasm" "$OUT/probe.c" > "$OUT/probe.err" 2>&1; then
	why="mpiwasm-cc -pthread cannot build a pthread program: $(head -n 1 "$OUT/probe.err")"
elif ! run_w "$OUT/probe.wasm" > "$OUT/probe.out" 2>&1; then
	why="build/mpiwasm cannot run a pthread program: $(head -n 1 "$OUT/probe.out")"
fi
if [ -n "$why" ]; then
	echo "skip wasm: $why"
	skip=$((skip + 15))
else
	if "$CC_W" -pthread -O2 -DEXPECT_MPIWASM_MALLOC -o "$OUT/malloc_stress.wasm" "$here/malloc_stress.c" > "$OUT/ms.build" 2>&1 &&
		run_w "$OUT/malloc_stress.wasm" > "$OUT/ms.out" 2>&1 && tail -n 1 "$OUT/ms.out" | grep -qx 'malloc_stress ok'; then
		ok "wasm: malloc_stress with libmpiwasm-malloc (mpiwasm-cc -pthread)"
	else
		bad "wasm: malloc_stress"
		excerpt "$OUT/ms.build"
		excerpt "$OUT/ms.out"
	fi
	# libc's dlmalloc.o must stay out of the link (all its symbols are
	# ours), whatever the program calls.
	printf '#include <malloc.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stdio.h>\nint main(void) { char *s = strdup("x"); void *p; if (posix_memalign(&p, 64, 9)) return 1; printf("%%s %%zu\\n", s, malloc_usable_size(p)); free(s); free(p); return 0; }\n' > "$OUT/nodl.c"
	if "$CC_W" -pthread -O2 -o "$OUT/nodl.wasm" "$OUT/nodl.c" "-Wl,--Map=$OUT/nodl.map" > "$OUT/nodl.err" 2>&1 &&
		grep -q 'libmpiwasm-malloc.a(malloc.o)' "$OUT/nodl.map" && ! grep -q 'dlmalloc' "$OUT/nodl.map" &&
		[ "$(run_w "$OUT/nodl.wasm" 2>&1)" = "x 64" ]; then
		ok "wasm: -pthread links libmpiwasm-malloc and no dlmalloc.o (link map)"
	else
		bad "wasm: -pthread link of the malloc family (dlmalloc.o linked, or a wrong answer)"
		excerpt "$OUT/nodl.err"
	fi
	for p in $OMP_PROGS; do
		if ! "$CC_W" -fopenmp -O2 -o "$OUT/$p.wasm" "$here/$p.c" > "$OUT/$p.wasm.build" 2>&1; then
			bad "wasm: $p does not build with mpiwasm-cc -fopenmp"
			excerpt "$OUT/$p.wasm.build"
			continue
		fi
		for n in 1 2 4; do
			run_w --env OMP_NUM_THREADS=$n "$OUT/$p.wasm" > "$OUT/$p.$n.wasm" 2>&1
			rc=$?
			if [ "$rc" = 0 ] && [ -s "$OUT/$p.$n.gomp" ] && cmp -s "$OUT/$p.$n.gomp" "$OUT/$p.$n.wasm"; then
				ok "wasm: $p at $n threads, same output as libgomp natively"
			else
				bad "wasm: $p at $n threads (exit $rc), differs from libgomp"
				diff "$OUT/$p.$n.gomp" "$OUT/$p.$n.wasm" | sed -n '1,12s/^/     | /p'
			fi
		done
	done
	if "$CC_W" -fopenmp -O2 -o "$aw.wasm" "$here/omp_atomic_wide.c" > "$aw.wasm.build" 2>&1; then
		for n in 1 2 4; do
			run_w --env OMP_NUM_THREADS=$n "$aw.wasm" > "$aw.$n.wasm" 2>&1
			rc=$?
			if [ "$rc" = 0 ] && [ -s "$aw.$n.ref" ] && cmp -s "$aw.$n.ref" "$aw.$n.wasm"; then
				ok "wasm: omp atomic on long double and complex at $n threads (libmpiwasm-omp's __atomic_*), as natively"
			else
				bad "wasm: omp atomic on long double and complex at $n threads (exit $rc)"
				excerpt "$aw.$n.wasm"
			fi
		done
	else
		bad "wasm: omp_atomic_wide does not build"
		excerpt "$aw.wasm.build"
	fi
	if "$CC_W" -fopenmp -O2 -o "$OUT/manyvars.wasm" "$here/omp_manyvars.c" > "$OUT/manyvars.wasm.build" 2>&1; then
		run_w --env OMP_NUM_THREADS=2 "$OUT/manyvars.wasm" > "$OUT/manyvars.wasm.out" 2>&1
		check_manyvars wasm "$OUT/manyvars.wasm.out" $?
	else
		bad "wasm: omp_manyvars does not build"
		excerpt "$OUT/manyvars.wasm.build"
	fi
	# Hybrid: the native reference built with the MPI wrapper and gcc's
	# -fopenmp, run at the same rank counts, 2 threads each.
	if ! $MPICC -O2 -fopenmp -o "$OUT/hybrid" "$here/hybrid.c" > "$OUT/hybrid.build" 2>&1; then
		bad "hybrid: $MPICC -fopenmp cannot build hybrid.c"
		excerpt "$OUT/hybrid.build"
	elif ! "$CC_W" -fopenmp -O2 -o "$OUT/hybrid.wasm" "$here/hybrid.c" > "$OUT/hybrid.wasm.build" 2>&1; then
		bad "hybrid: mpiwasm-cc -fopenmp cannot build hybrid.c"
		excerpt "$OUT/hybrid.wasm.build"
	else
		for np in 1 2 4; do
			OMP_NUM_THREADS=2 timeout 300 $LAUNCH "$np" $XENV "$OUT/hybrid" > "$OUT/hybrid.$np.n" 2>&1
			nrc=$?
			timeout 300 $LAUNCH "$np" "$MPIWASM" -q --env OMP_NUM_THREADS=2 "$OUT/hybrid.wasm" \
				> "$OUT/hybrid.$np.w" 2>&1
			wrc=$?
			if [ "$nrc" = 0 ] && [ "$wrc" = 0 ] && [ -s "$OUT/hybrid.$np.n" ] &&
				cmp -s "$OUT/hybrid.$np.n" "$OUT/hybrid.$np.w"; then
				ok "hybrid: $np ranks x 2 OpenMP threads calling MPI at once (MPI_THREAD_MULTIPLE), same as native"
			else
				bad "hybrid: $np ranks x 2 threads (native exit $nrc, wasm exit $wrc)"
				excerpt "$OUT/hybrid.$np.n"
				excerpt "$OUT/hybrid.$np.w"
			fi
		done
	fi
	if ! "$CC_W" -fopenmp -o "$OUT/unsup.wasm" "$here/omp_unsupported.c" > "$OUT/unsup.wasm.err" 2>&1 &&
		grep -q '__kmpc_omp_task_alloc' "$OUT/unsup.wasm.err"; then
		ok "wasm: tasks fail to link with mpiwasm-cc -fopenmp, naming __kmpc_omp_task_alloc"
	else
		bad "wasm: a program with tasks linked, or the error does not name __kmpc_omp_task_alloc"
		excerpt "$OUT/unsup.wasm.err"
	fi
fi

if [ "$skip" -gt 0 ]; then
	echo "omp: $pass passed, $fail failed, $skip skipped"
else
	echo "omp: $pass passed, $fail failed"
fi
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
} 2>&1
