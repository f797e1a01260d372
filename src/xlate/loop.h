/* loop.h - loop versioning: which innermost loops get a fast copy.
 *
 * A wasm loop whose body ends in `br_if 0` and holds no call, nested loop
 * or branch back to its start (blocks, ifs and branches forward or out of
 * the loop are fine), with
 * an i32 or i64 induction variable stepped by a constant (the exit tests
 * it; counting down, only for `!=`) and memory addresses affine in it (loop-invariant locals
 * + k*iv + constant; other locals stepped by a multiple of its step are
 * affine too), can be checked once, before it starts, for the two things
 * that stop the C compiler from optimizing the ordinary translation:
 * 32-bit address wrap-around and traps.  When no address of any iteration
 * wraps and every access is inside the memory, a copy of the loop with
 * 64-bit affine addresses runs instead (the C compiler can then fold
 * constants into addressing modes and vectorize, reordering accesses
 * freely, since none can trap); otherwise the ordinary translation runs.
 * Accesses whose address is not affine (gathers, x[col[j]]) stay as they
 * are in the copy: they may trap, so a copy that has any is not
 * vectorized.  xlate.c emits both; this file decides and describes.  DESIGN.md,
 * "translator", and bench/kernels/FINDINGS.md say why. */
#ifndef MPIWASM_XLATE_LOOP_H
#define MPIWASM_XLATE_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "../wasm/wasm.h"

enum { LOOP_NE = 1, LOOP_LTU, LOOP_LTS };

/* lane shapes of a loop whose v128 values are computed lane by lane */
enum { LANES_NONE = 0, LANES_F64, LANES_F32, LANES_I64, LANES_I32 };

#define LOOP_EXPR 160        /* longest invariant C expression kept */
#define LOOP_MAXINV 8        /* distinct invariant address bases */
#define LOOP_MAXVL 8         /* v128 locals a lane-wise copy may write */

typedef struct loop_acc {
	bool is;             /* this instruction is an affine memory access */
	bool gather;         /* a memory access whose address is not affine */
	uint8_t inv;         /* base: plan->inv[inv], or LOOP_MAXINV for none */
	uint32_t mem;
	int64_t k, c;        /* address = base + k*iv + c, iv at iteration start */
	uint32_t width;      /* bytes touched from address + offset */
} loop_acc;

typedef struct loop_plan {
	uint32_t start, end;       /* indices of the `loop` and its `end` */
	uint32_t iv;               /* the induction variable (a local) */
	bool wide;                 /* it is an i64 (else i32) */
	uint32_t gathers;          /* accesses with an address not affine */
	int64_t step;              /* != 0; < 0 only with LOOP_NE */
	int exit;                  /* LOOP_NE, LOOP_LTU, LOOP_LTS */
	char kexpr[LOOP_EXPR];     /* K of `iv_new op K`, a uint32_t C
	                              expression of invariant locals */
	char inv[LOOP_MAXINV][LOOP_EXPR];
	uint32_t ninv;
	loop_acc *acc;             /* end - start entries, by instruction */
	int lanes;                 /* LANES_*: v128 values lane by lane */
	uint32_t vl[LOOP_MAXVL];   /* with lanes: the v128 locals the body
	                              writes (carried from one iteration to
	                              the next lane by lane, stored back as
	                              v128 when the copy ends) */
	uint32_t nvl;
	uint32_t vdepth;           /* stack slots above the loop's base used */
	bool nomem;                /* not versioned because an allocation failed */
} loop_plan;

/* Whether the loop at f->code[start] can be versioned; fills *p (free
 * with loop_plan_free) when it can.  local_types: every local's type.
 * False with p->nomem set when an allocation failed: the caller must fail
 * too, since a translation without the fast copy would be cached as if it
 * were the whole one. */
bool loop_analyze(const wasm_module *m, const wasm_func *f,
                  const uint8_t *local_types, uint32_t nlocals,
                  uint32_t start, loop_plan *p);
void loop_plan_free(loop_plan *p);

/* Lane shape of a SIMD instruction name ("f64x2.add" -> LANES_F64). */
int loop_lane_shape(const char *name);

#endif
