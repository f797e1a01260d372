/* test_xlate_loops.c - loop versioning (src/xlate/loop.h): which loops
 * loop_analyze() accepts and what it finds in them (induction variable,
 * step, exit test, affine addresses, lane shape, several induction
 * variables, gathers, blocks and early exits), and what the translator
 * emits for them: a fast copy per accepted loop, lane-by-lane code for
 * lane-wise SIMD, MW_NOVEC on every loop as written, MW_VEC only on the
 * functions holding a fast copy (MW_WIDE too where the copy rereads an
 * array), none of it with no_loop_versioning.
 * Whether the copies compute the right thing is tested by running them:
 * src/xlate/test/loops*.wast (make check-xlate).  Silent on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wasm/wasm.h"
#include "xlate/loop.h"
#include "xlate/xlate.h"

static int failures;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	failures++; } } while (0)

/* Function order matters: the checks below find loops by function index. */
static const char wat[] =
"(module\n"
"  (memory 1)\n"
"  (func $call)\n"
/* 1: c[i] += a * b[i], byte-offset iv, `ne` exit on a parameter */
"  (func (param $c i32) (param $b i32) (param $n i32) (param $a f64) (local $i i32)\n"
"    (loop\n"
"      (f64.store (i32.add (local.get $c) (local.get $i))\n"
"        (f64.add (f64.load (i32.add (local.get $c) (local.get $i)))\n"
"          (f64.mul (local.get $a) (f64.load offset=8 (i32.add (local.get $b) (local.get $i))))))\n"
"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $n)))))\n"
/* 2: index iv scaled by shl 2, lt_s exit */
"  (func (param $p i32) (param $n i32) (local $i i32)\n"
"    (loop\n"
"      (i32.store (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2))) (local.get $i))\n"
"      (br_if 0 (i32.lt_s (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))\n"
/* 3: a call in the body: not versioned */
"  (func (param $p i32) (local $i i32)\n"
"    (loop\n"
"      (call $call)\n"
"      (i32.store (i32.add (local.get $p) (local.get $i)) (i32.const 0))\n"
"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 4))) (i32.const 64)))))\n"
/* 4: f64x2 axpy, negative iv counting up to 0, br_if on the iv */
"  (func (param $x i32) (param $y i32) (param $a f64) (local $i i32) (local $s v128)\n"
"    (local.set $s (f64x2.splat (local.get $a)))\n"
"    (local.set $i (i32.const -64))\n"
"    (loop\n"
"      (v128.store offset=64 (i32.add (local.get $y) (local.get $i))\n"
"        (f64x2.add (v128.load offset=64 (i32.add (local.get $y) (local.get $i)))\n"
"          (f64x2.mul (local.get $s) (v128.load offset=64 (i32.add (local.get $x) (local.get $i))))))\n"
"      (br_if 0 (local.tee $i (i32.add (local.get $i) (i32.const 16))))))\n"
/* 5: an address loaded from memory (a scatter): versioned, the scatter
 * kept as an ordinary access, the copy not vectorized */
"  (func (param $p i32) (local $i i32)\n"
"    (loop\n"
"      (i32.store (i32.load (i32.add (local.get $p) (local.get $i))) (i32.const 1))\n"
"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 4))) (i32.const 64)))))\n"
/* 6: SIMD with a shuffle: versioned, but not lane by lane */
"  (func (param $p i32) (local $i i32)\n"
"    (loop\n"
"      (v128.store (i32.add (local.get $p) (local.get $i))\n"
"        (i8x16.shuffle 1 0 3 2 5 4 7 6 9 8 11 10 13 12 15 14\n"
"          (v128.load (i32.add (local.get $p) (local.get $i))) (v128.const i64x2 0 0)))\n"
"      (br_if 0 (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (i32.const 256)))))\n"
/* 7: HPCG's row, unrolled by 2 as clang does: counter $i (step 2) and
 * two pointers (steps 16 and 8), x[ix[k]] gathered */
"  (func (param $v i32) (param $ix i32) (param $x i32) (param $n i32) (result f64)\n"
"    (local $i i32) (local $s f64)\n"
"    (loop\n"
"      (local.set $s (f64.add (f64.add (local.get $s)\n"
"        (f64.mul (f64.load (local.get $v))\n"
"          (f64.load (i32.add (local.get $x) (i32.shl (i32.load (local.get $ix)) (i32.const 3))))))\n"
"        (f64.mul (f64.load offset=8 (local.get $v))\n"
"          (f64.load (i32.add (local.get $x) (i32.shl (i32.load offset=4 (local.get $ix)) (i32.const 3)))))))\n"
"      (local.set $ix (i32.add (local.get $ix) (i32.const 8)))\n"
"      (local.set $v (i32.add (local.get $v) (i32.const 16)))\n"
"      (br_if 0 (i32.ne (local.get $n) (local.tee $i (i32.add (local.get $i) (i32.const 2))))))\n"
"    (local.get $s))\n"
/* 8: IOR's check: an i64 counter, an i32 pointer */
"  (func (param $p i32) (param $end i64) (param $seed i64) (result i64) (local $c i64) (local $e i64)\n"
"    (loop\n"
"      (local.set $e (i64.add (local.get $e) (i64.extend_i32_u\n"
"        (i64.ne (i64.load (local.get $p)) (i64.xor (local.get $seed) (local.get $c))))))\n"
"      (local.set $p (i32.add (local.get $p) (i32.const 8)))\n"
"      (br_if 0 (i64.ne (local.tee $c (i64.add (local.get $c) (i64.const 8))) (local.get $end))))\n"
"    (local.get $e))\n"
/* 9: a pointer stepping 1 while the counter steps 2: not affine */
"  (func (param $p i32) (param $n i32) (local $i i32)\n"
"    (loop\n"
"      (i32.store8 (local.get $p) (local.get $i))\n"
"      (local.set $p (i32.add (local.get $p) (i32.const 1)))\n"
"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 2))) (local.get $n)))))\n"
/* 10: an if in the body (the store inside is affine; $t is unknown after
 * it) */
"  (func (param $x i32) (param $n i32) (local $i i32) (local $t i32)\n"
"    (loop\n"
"      (local.set $t (i32.load (i32.add (local.get $x) (local.get $i))))\n"
"      (if (i32.lt_s (local.get $t) (i32.const 0))\n"
"        (then (local.set $t (i32.const 0)) (i32.store offset=4 (i32.add (local.get $x) (local.get $i)) (local.get $t))))\n"
"      (i32.store (i32.add (local.get $x) (local.get $i)) (local.get $t))\n"
"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 4))) (local.get $n)))))\n"
/* 11: an early exit out of the loop */
"  (func (param $a i32) (param $n i32) (result i32) (local $i i32)\n"
"    (block\n"
"      (loop\n"
"        (br_if 1 (i32.eqz (i32.load (i32.add (local.get $a) (local.get $i)))))\n"
"        (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 4))) (local.get $n)))))\n"
"    (local.get $i))\n"
/* 12: a continue from the middle: not versioned */
"  (func (param $a i32) (param $n i32) (local $i i32)\n"
"    (loop\n"
"      (local.set $i (i32.add (local.get $i) (i32.const 4)))\n"
"      (br_if 0 (i32.eqz (i32.load (i32.add (local.get $a) (local.get $i)))))\n"
"      (i32.store (i32.add (local.get $a) (local.get $i)) (i32.const 1))\n"
"      (br_if 0 (i32.ne (local.get $i) (local.get $n)))))\n"
/* 13: the iv stepped inside an if: not versioned */
"  (func (param $a i32) (param $n i32) (local $i i32)\n"
"    (loop\n"
"      (if (i32.load (i32.add (local.get $a) (local.get $i)))\n"
"        (then (local.set $i (i32.add (local.get $i) (i32.const 4)))))\n"
"      (br_if 0 (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 4))) (local.get $n)))))\n"
/* 14: a counter stepping down to 0 (br_if on it), a pointer up */
"  (func (param $p i32) (param $n i32) (result f64) (local $s f64)\n"
"    (loop\n"
"      (local.set $s (f64.add (local.get $s) (f64.load (local.get $p))))\n"
"      (local.set $p (i32.add (local.get $p) (i32.const 8)))\n"
"      (br_if 0 (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))\n"
"    (local.get $s))\n"
/* 15: counting down with a `>` exit: not versioned */
"  (func (param $p i32) (param $n i32) (local $i i32)\n"
"    (loop\n"
"      (i32.store (i32.add (local.get $p) (local.get $n)) (i32.const 0))\n"
"      (br_if 0 (i32.gt_s (local.tee $n (i32.sub (local.get $n) (i32.const 4))) (i32.const 0)))))\n"
/* 16: v128 locals carried across iterations (a count and an index, as in
 * IOR's check): lane by lane, both stored back after the copy */
"  (func (param $p i32) (param $n i32) (param $seed i64) (result i64)\n"
"    (local $i i32) (local $acc v128) (local $idx v128)\n"
"    (loop\n"
"      (local.set $acc (i64x2.sub (local.get $acc) (i64x2.ne\n"
"        (v128.load (i32.add (local.get $p) (local.get $i)))\n"
"        (v128.xor (i64x2.shl (local.get $idx) (i32.const 3)) (i64x2.splat (local.get $seed))))))\n"
"      (local.set $idx (i64x2.add (local.get $idx) (v128.const i64x2 2 2)))\n"
"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n))))\n"
"    (i64x2.extract_lane 0 (local.get $acc)))\n"
/* 17: a carried v128 local and an early exit: versioned, not lane by lane
 * (the lanes are stored back only where the copy ends) */
"  (func (param $p i32) (param $n i32) (result i64) (local $i i32) (local $acc v128)\n"
"    (block\n"
"      (loop\n"
"        (local.set $acc (i64x2.add (local.get $acc) (v128.load (i32.add (local.get $p) (local.get $i)))))\n"
"        (br_if 1 (i64.eqz (i64.load (i32.add (local.get $p) (local.get $i)))))\n"
"        (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n)))))\n"
"    (i64x2.extract_lane 0 (local.get $acc)))\n"
/* 18: an f64x2 sum carried across iterations: versioned, not lane by lane
 * (each lane a float reduction gcc would not vectorize) */
"  (func (param $p i32) (param $n i32) (result f64) (local $i i32) (local $acc v128)\n"
"    (loop\n"
"      (local.set $acc (f64x2.add (local.get $acc) (v128.load (i32.add (local.get $p) (local.get $i)))))\n"
"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n))))\n"
"    (f64x2.extract_lane 0 (local.get $acc)))\n"
")\n";

static char tmpdir[256];

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Index of the first `loop` in defined function d. */
static uint32_t first_loop(const wasm_func *f)
{
	for (uint32_t i = 0; i < f->ncode; i++)
		if (f->code[i].op == WASM_OP_LOOP)
			return i;
	return UINT32_MAX;
}

static bool analyze(const wasm_module *m, uint32_t d, loop_plan *p)
{
	const wasm_func *f = &m->funcs[d];
	const wasm_functype *ft = &m->types[f->type];
	uint32_t n = ft->nparams + f->nlocals, k = 0;
	uint8_t *lt = malloc(n + 1);
	if (!lt)
		return false;
	for (uint32_t i = 0; i < ft->nparams; i++)
		lt[k++] = ft->params[i];
	for (uint32_t r = 0; r < f->nlocalruns; r++)
		for (uint32_t j = 0; j < f->locals[r].count; j++)
			lt[k++] = f->locals[r].type;
	uint32_t at = first_loop(f);
	bool ok = at != UINT32_MAX && loop_analyze(m, f, lt, n, at, p);
	free(lt);
	return ok;
}

/* The accesses of a plan, in body order. */
static uint32_t accesses(const loop_plan *p, const loop_acc **out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->end - p->start && n < max; i++)
		if (p->acc[i].is)
			out[n++] = &p->acc[i];
	return n;
}

static void test_plans(const wasm_module *m)
{
	loop_plan p;
	const loop_acc *a[8];

	CHECK(analyze(m, 1, &p));
	if (p.acc) {
		CHECK(p.iv == 4 && p.step == 8 && p.exit == LOOP_NE);
		CHECK(p.lanes == LANES_NONE);
		CHECK(accesses(&p, a, 8) == 3);
		CHECK(a[0]->k == 1 && a[0]->c == 0 && a[0]->width == 8);
		CHECK(a[1]->k == 1 && a[1]->c == 0 && a[1]->inv != a[0]->inv);
		CHECK(a[2]->k == 1 && a[2]->c == 0 && a[2]->inv == a[0]->inv);
		CHECK(p.ninv == 2);
		loop_plan_free(&p);
	}

	CHECK(analyze(m, 2, &p));
	if (p.acc) {
		CHECK(p.iv == 2 && p.step == 1 && p.exit == LOOP_LTS);
		CHECK(accesses(&p, a, 8) == 1 && a[0]->k == 4 && a[0]->width == 4);
		loop_plan_free(&p);
	}

	CHECK(!analyze(m, 3, &p));   /* call */

	CHECK(analyze(m, 4, &p));
	if (p.acc) {
		CHECK(p.iv == 3 && p.step == 16 && p.exit == LOOP_NE);
		CHECK(p.lanes == LANES_F64);
		CHECK(accesses(&p, a, 8) == 3 && a[0]->width == 16 && a[0]->c == 0);
		loop_plan_free(&p);
	}

	CHECK(analyze(m, 5, &p));    /* scatter */
	if (p.acc) {
		CHECK(p.gathers == 1 && accesses(&p, a, 8) == 1 && a[0]->k == 1);
		loop_plan_free(&p);
	}

	CHECK(analyze(m, 6, &p));
	if (p.acc) {
		CHECK(p.exit == LOOP_LTU && p.lanes == LANES_NONE && p.gathers == 0);
		loop_plan_free(&p);
	}

	/* the counter is the iv; v and ix are affine in it (k = 8, 4), with
	 * bases v - 8*i and ix - 4*i at entry */
	CHECK(analyze(m, 7, &p));
	if (p.acc) {
		CHECK(p.iv == 4 && p.step == 2 && p.exit == LOOP_NE && !p.wide);
		CHECK(p.gathers == 2);
		CHECK(accesses(&p, a, 8) == 4);
		CHECK(a[0]->k == 8 && a[0]->c == 0 && a[0]->width == 8);
		CHECK(a[1]->k == 4 && a[1]->c == 0 && a[1]->width == 4);
		CHECK(a[2]->k == 8 && a[2]->c == 0 && a[2]->inv == a[0]->inv);
		CHECK(a[3]->k == 4 && a[3]->inv == a[1]->inv);
		CHECK(p.ninv == 2 && strstr(p.inv[a[0]->inv], "l0 - (uint32_t)l4 * 0x8u"));
		CHECK(strstr(p.inv[a[1]->inv], "l1 - (uint32_t)l4 * 0x4u") != NULL);
		CHECK(!strcmp(p.kexpr, "(uint32_t)(l3 - 0u + 0x0u)"));
		loop_plan_free(&p);
	}

	CHECK(analyze(m, 8, &p));
	if (p.acc) {
		CHECK(p.iv == 3 && p.step == 8 && p.exit == LOOP_NE && p.wide);
		CHECK(accesses(&p, a, 8) == 1 && a[0]->k == 1 && a[0]->width == 8);
		CHECK(!strcmp(p.kexpr, "(uint64_t)(l1 - 0u + 0x0ull)"));
		loop_plan_free(&p);
	}

	CHECK(!analyze(m, 9, &p));

	CHECK(analyze(m, 10, &p));
	if (p.acc) {
		CHECK(p.iv == 2 && p.step == 4 && p.gathers == 0);
		CHECK(accesses(&p, a, 8) == 3 && a[1]->k == 1 && a[2]->k == 1);
		loop_plan_free(&p);
	}
	CHECK(analyze(m, 11, &p));
	if (p.acc) {
		CHECK(p.iv == 2 && p.step == 4 && accesses(&p, a, 8) == 1);
		loop_plan_free(&p);
	}
	CHECK(!analyze(m, 12, &p));
	CHECK(!analyze(m, 13, &p));

	CHECK(analyze(m, 14, &p));
	if (p.acc) {
		CHECK(p.iv == 1 && p.step == -1 && p.exit == LOOP_NE);
		CHECK(accesses(&p, a, 8) == 1 && a[0]->k == -8);
		CHECK(!strcmp(p.kexpr, "(uint32_t)(0u - 0u + 0x0u)"));
		loop_plan_free(&p);
	}
	CHECK(!analyze(m, 15, &p));

	CHECK(analyze(m, 16, &p));
	if (p.acc) {
		CHECK(p.iv == 3 && p.step == 16 && p.lanes == LANES_I64);
		CHECK(p.nvl == 2 && ((p.vl[0] == 4 && p.vl[1] == 5) || (p.vl[0] == 5 && p.vl[1] == 4)));
		loop_plan_free(&p);
	}
	CHECK(analyze(m, 17, &p));
	if (p.acc) {
		CHECK(p.iv == 2 && p.lanes == LANES_NONE && p.nvl == 0);
		loop_plan_free(&p);
	}
	CHECK(analyze(m, 18, &p));
	if (p.acc) {
		CHECK(p.iv == 2 && p.lanes == LANES_NONE && p.nvl == 0);
		loop_plan_free(&p);
	}
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The text of the function whose comment line is "/\* function N". */
static char *func_text(const xlate_output *o, uint32_t fi)
{
	char head[32];
	snprintf(head, sizeof head, "/* function %u", fi);
	for (size_t u = 0; u < o->nunits; u++) {
		const char *s = strstr(o->units[u].text, head);
		if (!s)
			continue;
		const char *e = strstr(s + 1, "\n/* function ");
		size_t n = e ? (size_t)(e - s) : strlen(s);
		char *t = malloc(n + 1);
		if (t) {
			memcpy(t, s, n);
			t[n] = 0;
		}
		return t;
	}
	return NULL;
}

static void test_emitted(const wasm_module *m)
{
	xlate_options opt = { 0 };
	xlate_output o = { 0 };
	wasm_error err = { 0 };
	CHECK(xlate_module(m, &opt, &o, &err) == 0);
	/* fast copies in all but functions 3 and 9; those of 5 and 7 (with
	 * gathers) not vectorized */
	static const size_t copies[19] = { 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1 };
	static const bool gathers[19] = { [5] = true, [7] = true };
	for (uint32_t fi = 1; fi <= 18; fi++) {
		char *t = func_text(&o, fi);
		CHECK(t != NULL);
		if (!t)
			continue;
		CHECK(count(t, "loop versioning") == copies[fi]);
		CHECK(count(t, "MW_NOVEC;") == 1u + gathers[fi]);
		CHECK((strstr(t, "MW_VEC ") != NULL) == (copies[fi] != 0 && !gathers[fi]));
		/* the f64x2 loop is computed lane by lane, the shuffle one is not */
		CHECK((strstr(t, "q2_1 = ") != NULL) == (fi == 4 || fi == 16));
		/* the carried locals: lane scalars in the copy, stored back */
		CHECK(count(t, "(mw_v128)(mw_xu64){r") == (fi == 16 ? 2u : 0u));
		CHECK((strstr(t, "r4_1 = q") != NULL) == (fi == 16));
		free(t);
	}
	xlate_output_free(&o);

	opt.no_loop_versioning = true;
	CHECK(xlate_module(m, &opt, &o, &err) == 0);
	for (size_t u = 0; u < o.nunits; u++)
		CHECK(count(o.units[u].text, "loop versioning") == 0);
	for (uint32_t fi = 1; fi <= 18; fi++) {
		char *t = func_text(&o, fi);
		CHECK(t && !strstr(t, "MW_VEC ") && count(t, "MW_NOVEC;") == 1);
		free(t);
	}
	xlate_output_free(&o);
}

/* A loop writing 2000 locals: refused without walking it once per local
 * (that would be quadratic in the body, for an untrusted module). */
static void test_budget(void)
{
	enum { NL = 2000 };
	size_t cap = (size_t)NL * 128 + 1024, len = 0;
	char *w = malloc(cap);
	if (!w) {
		failures++;
		return;
	}
	len += (size_t)snprintf(w + len, cap - len, "(module (memory 1) (func (param $p i32) (local $i i32)");
	for (int k = 0; k < NL; k++)
		len += (size_t)snprintf(w + len, cap - len, " (local i32)");
	len += (size_t)snprintf(w + len, cap - len, " (loop");
	for (int k = 0; k < NL; k++)
		len += (size_t)snprintf(w + len, cap - len,
		                        " (local.set %d (i32.load (i32.add (local.get $p) (local.get $i))))", k + 2);
	len += (size_t)snprintf(w + len, cap - len, " (br_if 0 (i32.ne (local.tee $i (i32.add"
	                        " (local.get $i) (i32.const 4))) (i32.const 64))))))\n");
	char path[512], cmd[1200];
	snprintf(path, sizeof path, "%s/big.wat", tmpdir);
	FILE *f = fopen(path, "w");
	if (!f || fputs(w, f) < 0 || fclose(f)) {
		free(w);
		failures++;
		return;
	}
	free(w);
	snprintf(cmd, sizeof cmd, "wat2wasm %s/big.wat -o %s/big.wasm", tmpdir, tmpdir);
	if (system(cmd)) {
		failures++;
		return;
	}
	snprintf(path, sizeof path, "%s/big.wasm", tmpdir);
	size_t n;
	uint8_t *bytes = read_file(path, &n);
	wasm_module m;
	wasm_error err = { 0 };
	if (!bytes || wasm_decode(bytes, n, 0, &m, &err) || wasm_validate(&m, &err)) {
		fprintf(stderr, "%s: big loop: %s\n", __FILE__, err.msg);
		failures++;
		free(bytes);
		return;
	}
	loop_plan p;
	CHECK(!analyze(&m, 0, &p));
	wasm_module_free(&m);
	free(bytes);
}

/* MW_WIDE (full vector width) only on a function whose fast copy loads
 * one array at offsets a step or more apart (plan_rereads in xlate.c). */
static void test_wide(void)
{
	static const char w[] =
	"(module (memory 1)\n"
	/* 0: y[i] = x[i] + x[i+2] (offsets 0 and 16, step 8): rereads */
	"  (func (param $x i32) (param $y i32) (param $n i32) (local $i i32)\n"
	"    (loop\n"
	"      (f64.store (i32.add (local.get $y) (local.get $i))\n"
	"        (f64.add (f64.load (i32.add (local.get $x) (local.get $i)))\n"
	"                 (f64.load offset=16 (i32.add (local.get $x) (local.get $i)))))\n"
	"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $n)))))\n"
	/* 1: a[i] = b[i] + c[i] unrolled by 2 (offsets 0 and 8, step 16): streams */
	"  (func (param $a i32) (param $b i32) (param $c i32) (param $n i32) (local $i i32)\n"
	"    (loop\n"
	"      (f64.store (i32.add (local.get $a) (local.get $i))\n"
	"        (f64.add (f64.load (i32.add (local.get $b) (local.get $i)))\n"
	"                 (f64.load (i32.add (local.get $c) (local.get $i)))))\n"
	"      (f64.store offset=8 (i32.add (local.get $a) (local.get $i))\n"
	"        (f64.add (f64.load offset=8 (i32.add (local.get $b) (local.get $i)))\n"
	"                 (f64.load offset=8 (i32.add (local.get $c) (local.get $i)))))\n"
	"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n)))))\n"
	/* 2: rows: x[i] + x[i + 1024] through an i32.const add, step 8 */
	"  (func (param $x i32) (param $y i32) (param $n i32) (local $i i32)\n"
	"    (loop\n"
	"      (f64.store (i32.add (local.get $y) (local.get $i))\n"
	"        (f64.add (f64.load (i32.add (local.get $x) (local.get $i)))\n"
	"                 (f64.load (i32.add (i32.add (local.get $x) (local.get $i)) (i32.const 8192)))))\n"
	"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $n)))))\n"
	/* 3: the store at a distant offset does not count: only loads */
	"  (func (param $x i32) (param $n i32) (local $i i32)\n"
	"    (loop\n"
	"      (f64.store offset=4096 (i32.add (local.get $x) (local.get $i))\n"
	"        (f64.load (i32.add (local.get $x) (local.get $i))))\n"
	"      (br_if 0 (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $n)))))\n"
	")\n";
	char path[512], cmd[1200];
	snprintf(path, sizeof path, "%s/wide.wat", tmpdir);
	FILE *f = fopen(path, "w");
	if (!f || fputs(w, f) < 0 || fclose(f)) {
		failures++;
		return;
	}
	snprintf(cmd, sizeof cmd, "wat2wasm %s/wide.wat -o %s/wide.wasm", tmpdir, tmpdir);
	if (system(cmd)) {
		failures++;
		return;
	}
	snprintf(path, sizeof path, "%s/wide.wasm", tmpdir);
	size_t n;
	uint8_t *bytes = read_file(path, &n);
	wasm_module m;
	wasm_error err = { 0 };
	if (!bytes || wasm_decode(bytes, n, 0, &m, &err) || wasm_validate(&m, &err)) {
		fprintf(stderr, "%s: wide: %s\n", __FILE__, err.msg);
		failures++;
		free(bytes);
		return;
	}
	xlate_options opt = { 0 };
	xlate_output o = { 0 };
	CHECK(xlate_module(&m, &opt, &o, &err) == 0);
	static const bool wide[4] = { true, false, true, false };
	for (uint32_t fi = 0; fi < 4; fi++) {
		char *t = func_text(&o, fi);
		CHECK(t != NULL);
		if (!t)
			continue;
		CHECK(strstr(t, "MW_VEC ") != NULL);
		CHECK((strstr(t, "MW_WIDE ") != NULL) == wide[fi]);
		free(t);
	}
	xlate_output_free(&o);
	wasm_module_free(&m);
	free(bytes);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_xlate_loops.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	char path[512], cmd[1200];
	snprintf(path, sizeof path, "%s/m.wat", tmpdir);
	FILE *f = fopen(path, "w");
	if (!f || fputs(wat, f) < 0 || fclose(f)) {
		fprintf(stderr, "%s: cannot write %s\n", __FILE__, path);
		return 1;
	}
	snprintf(cmd, sizeof cmd, "wat2wasm %s/m.wat -o %s/m.wasm", tmpdir, tmpdir);
	if (system(cmd)) {
		fprintf(stderr, "%s: wat2wasm failed\n", __FILE__);
		return 1;
	}
	snprintf(path, sizeof path, "%s/m.wasm", tmpdir);
	size_t len;
	uint8_t *bytes = read_file(path, &len);
	wasm_module m;
	wasm_error err = { 0 };
	if (!bytes || wasm_decode(bytes, len, 0, &m, &err) || wasm_validate(&m, &err)) {
		fprintf(stderr, "%s: decode/validate: %s\n", __FILE__, err.msg);
		return 1;
	}
	test_plans(&m);
	test_emitted(&m);
	test_budget();
	test_wide();
	wasm_module_free(&m);
	free(bytes);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "%s: could not remove %s\n", __FILE__, tmpdir);
	if (failures)
		fprintf(stderr, "test_xlate_loops: %d checks failed\n", failures);
	return failures != 0;
}
