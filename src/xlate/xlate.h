/* xlate.h - WebAssembly -> C translator.
 *
 * Input: a decoded and validated wasm_module.  Output: C translation units
 * that together define the module's functions and one descriptor,
 * `mpiwasm_code` (struct rt_code, see src/rt/rt.h), which the runtime reads
 * after dlopen.  Units are self-contained C11 (the prelude they need is
 * emitted into each), so they compile with any cc and no include path; they
 * call back into the runtime only through the rt_* functions that rt.h
 * marks as the generated-code ABI. */
#ifndef MPIWASM_XLATE_H
#define MPIWASM_XLATE_H

#include <stddef.h>
#include "../wasm/wasm.h"

/* Bumped whenever the generated code changes; part of the cache key. */
#define XLATE_VERSION "mpiwasm-xlate-15"

/* Flags generated code needs from the C compiler, whatever the -O level:
 * no FMA contraction (WebAssembly rounds every operation), no errno from
 * sqrt (it would stop inlining of the instruction), no folding of x*1
 * or x-0 (they must quiet a signalling NaN), no strict
 * aliasing (linear memory is accessed with any type), no sibling-call
 * elimination (a runaway recursion must exhaust the stack, not loop), no
 * straight-line vectorization (merging two stores into one vector store
 * loses the first when the second traps; see MW_NOVEC in prelude.h).
 * One for speed: functions start on 32-byte boundaries, so a hot loop's
 * place in the object does not depend on the size of unrelated code
 * before it (dgemm moved from 0.94x to 1.30x native when a change in the
 * printf helpers shifted it by 32 bytes; with the alignment it stays at
 * 0.93x, and no kernel of bench/kernels got slower).
 * src/cache adds -march=native -fPIC, the -O level and, on x86, a
 * vector width of at most 256 bits (CACHE_OPTFLAGS in cache.c). */
#define XLATE_CFLAGS "-std=gnu11 -ffp-contract=off -fno-strict-aliasing " \
                     "-fno-optimize-sibling-calls -fno-fast-math -fno-math-errno " \
                     "-fsignaling-nans -falign-functions=32 -fno-tree-slp-vectorize -w"

typedef struct xlate_unit {
	char *text;        /* NUL-terminated C source */
	size_t len;
} xlate_unit;

typedef struct xlate_output {
	xlate_unit *units;
	size_t nunits;
} xlate_output;

typedef struct xlate_options {
	size_t unit_target_bytes; /* split into units of about this size; 0 = default */
	unsigned max_units;       /* 0 = number of online CPUs */
	bool no_loop_versioning;  /* no fast loop copies (src/xlate/loop.h) */
	/* A trap ends the process (mpiwasm run; not the spec harness, which
	 * goes on after one and reads memory).  Then a fast loop copy over a
	 * memory that is not shared checks only that no address wraps (the
	 * 32-bit integer of every access stays below 2^32), not that every
	 * access ends inside the memory: an access past the end lands in the
	 * memory's 8 GiB reservation (RT_MEM_RESERVE: any 32-bit address plus
	 * any 32-bit offset), whose guard pages trap, only not necessarily at
	 * the iteration WebAssembly would (stores of the vectorized copy's
	 * iterations before it may be lost), which nothing can observe once
	 * the process is gone.  A shared memory is always checked exactly:
	 * another thread sees its stores.  Off: exact trap positions. */
	bool terminal_traps;
	/* Units cut at functions chosen by their index and the units' sizes
	 * (split_stable in xlate.c): a function whose C changes changes its
	 * own unit's text and, unless its length carries a unit across a size
	 * bound, no other, so a cache of compiled units can reuse the rest.  The units hold the functions only; a last, small
	 * unit holds the module-wide tables (mpiwasm_code), unless the
	 * functions fit in one unit (then it has the tables too).  Ignores
	 * unit_target_bytes and max_units. */
	bool stable_units;
	/* Tier 0 of a tiered start (src/load): every function first checks
	 * its slot of `mpiwasm_up` (an exported void **, one slot per defined
	 * function, in the tables unit) and, when the runtime has set it,
	 * calls the function there (the same function compiled at tier 1)
	 * instead.  Off: exactly the code of before. */
	bool tier0;
} xlate_options;

/* Returns 0, or an enum wasm_errcode with *err filled (e.g.
 * WASM_ERR_UNSUPPORTED for SIMD or atomics until they are implemented). */
int xlate_module(const wasm_module *m, const xlate_options *opt,
                 xlate_output *out, wasm_error *err);

void xlate_output_free(xlate_output *out);

#endif
