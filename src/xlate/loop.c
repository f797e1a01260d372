/* loop.c - which innermost loops can be versioned, and how (loop.h).
 *
 * The body is walked once per candidate induction variable with an
 * abstract stack: every i32 value is either opaque or affine,
 * `inv + k*iv + c`, where iv is the candidate's value at the start of the
 * iteration, k and c are exact integers and inv is a uint32_t C
 * expression of locals the loop does not write.  Since i32 add, sub, mul
 * and shl are exact modulo 2^32, the wasm value of an affine i32 is
 * (inv + k*iv + c) mod 2^32 whatever the order it was computed in: so an
 * address equals the exact integer inv + k*iv + c exactly when that
 * integer is in [0, 2^32), which is what the check before the loop tests
 * for the first and last iteration (the integer is linear in iv).
 * Another local the body steps by m*step (m an integer) is affine too:
 * its entry value - m*iv_entry is the invariant part.  Where a block or
 * if inside the body ends, the locals written in it become opaque, so a
 * value is affine only if it is on every path; an access inside an if is
 * checked as if it ran every iteration (if it does not, the check is only
 * stricter than needed). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"

#define K_MAX  ((int64_t)1 << 20)   /* |k| and step limit */
#define C_MAX  ((int64_t)1 << 40)   /* |c| limit: keeps E in int64 */

enum { AV_OPQ, AV_AFF, AV_CMP };

typedef struct aff {
	int64_t k, c;
	int inv;          /* index into the walk's expression pool, -1: none */
} aff;

typedef struct av {
	uint8_t kind, t;  /* AV_*, value type */
	uint8_t ct;       /* AV_CMP: type of the compared values */
	uint32_t cmp;     /* AV_CMP: the comparison, as the i32 opcode */
	aff a, b;         /* AV_AFF: a; AV_CMP: a op b */
} av;

/* A block or if inside the body. */
typedef struct frame {
	uint32_t h;               /* stack height at its start */
	uint32_t start, else_, end;
	uint8_t t;                /* its result type, 0: none */
} frame;

typedef struct walk {
	const wasm_module *m;
	const wasm_func *f;
	const uint8_t *ltypes;
	uint32_t nlocals;
	const bool *written;      /* local written in the body */
	char (*pool)[LOOP_EXPR];
	uint32_t npool, poolcap;
	av *st;
	uint32_t h, maxh;
	av *loc;
	int *accinv;              /* pool index of each access's base */
	const int64_t *steps;     /* step of each basic induction variable, 0: none */
	frame *fr;                /* open blocks inside the body */
	bool lanes_ok, bitwise;
	bool exits;               /* a branch out of the loop before its end */
	bool nomem;               /* an allocation failed */
	int shape;
	uint32_t vl[LOOP_MAXVL];  /* v128 locals written (lanes, loop.h) */
	uint32_t nvl;
} walk;

/* Returns the new expression's index, or -2 (never -1, which means "no
 * invariant part" to the callers) when it does not fit. */
static int pool_add(walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int pool_add(walk *w, const char *fmt, ...)
{
	if (w->npool == w->poolcap) {
		uint32_t cap = w->poolcap ? w->poolcap * 2 : 32;
		char (*p)[LOOP_EXPR] = realloc(w->pool, cap * sizeof *p);
		if (!p) {
			w->nomem = true;
			return -2;
		}
		w->pool = p;
		w->poolcap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(w->pool[w->npool], LOOP_EXPR, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= LOOP_EXPR)
		return -2;
	return (int)w->npool++;
}

static bool small(int64_t k, int64_t c)
{
	return k > -K_MAX && k < K_MAX && c > -C_MAX && c < C_MAX;
}

static av opaque(uint8_t t)
{
	av v = { .kind = AV_OPQ, .t = t };
	return v;
}

static av affine_t(uint8_t t, int64_t k, int64_t c, int inv)
{
	if (!small(k, c) || (inv < 0 && inv != -1))
		return opaque(t);
	av v = { .kind = AV_AFF, .t = t, .a = { k, c, inv } };
	return v;
}

static av affine(walk *w, int64_t k, int64_t c, int inv)
{
	(void)w;
	return affine_t(WASM_I32, k, c, inv);
}

static av aff_add(walk *w, const av *x, const av *y, bool sub)
{
	if (x->kind != AV_AFF || y->kind != AV_AFF)
		return opaque(x->t);
	const aff *a = &x->a, *b = &y->a;
	int inv = a->inv;
	if (b->inv >= 0)
		inv = a->inv < 0 && !sub ? b->inv
		    : pool_add(w, "(%s %c %s)", a->inv < 0 ? "0u" : w->pool[a->inv],
		               sub ? '-' : '+', w->pool[b->inv]);
	if (inv < -1)
		return opaque(x->t);
	return sub ? affine_t(x->t, a->k - b->k, a->c - b->c, inv)
	           : affine_t(x->t, a->k + b->k, a->c + b->c, inv);
}

/* x * m for a constant m (an exact integer, any representative of the
 * constant modulo 2^32 or 2^64, x's width). */
static av aff_mul(walk *w, const av *x, int64_t m)
{
	if (x->kind != AV_AFF || m <= -K_MAX || m >= K_MAX)
		return opaque(x->t);
	int inv = x->a.inv;
	if (inv >= 0)
		inv = x->t == WASM_I64
		    ? pool_add(w, "(%s * 0x%" PRIx64 "ull)", w->pool[inv], (uint64_t)m)
		    : pool_add(w, "(%s * 0x%" PRIx32 "u)", w->pool[inv], (uint32_t)m);
	if (inv < -1)
		return opaque(x->t);
	return affine_t(x->t, x->a.k * m, x->a.c * m, inv);
}

static bool is_const(const av *v)
{
	return v->kind == AV_AFF && v->a.k == 0 && v->a.inv < 0;
}

static void push(walk *w, av v)
{
	w->st[w->h++] = v;
	if (w->h > w->maxh)
		w->maxh = w->h;
}

int loop_lane_shape(const char *name)
{
	if (!strncmp(name, "f64x2.", 6)) return LANES_F64;
	if (!strncmp(name, "f32x4.", 6)) return LANES_F32;
	if (!strncmp(name, "i64x2.", 6)) return LANES_I64;
	if (!strncmp(name, "i32x4.", 6)) return LANES_I32;
	return LANES_NONE;
}

/* Whether a SIMD instruction can be computed lane by lane; sets the
 * loop's shape from the first shaped one. */
static void lanes_note(walk *w, const char *name)
{
	static const char *const fops[] = {
		"add", "sub", "mul", "div", "min", "max", "pmin", "pmax", "neg",
		"abs", "sqrt", "splat", "extract_lane", "replace_lane", NULL };
	static const char *const iops[] = {
		"add", "sub", "mul", "neg", "splat", "extract_lane", "replace_lane",
		"eq", "ne", "lt_s", "lt_u", "gt_s", "gt_u", "le_s", "le_u", "ge_s", "ge_u",
		"shl", "shr_s", "shr_u", NULL };
	if (!strcmp(name, "v128.load") || !strcmp(name, "v128.store") ||
	    !strcmp(name, "v128.const"))
		return;
	if (!strcmp(name, "v128.and") || !strcmp(name, "v128.or") ||
	    !strcmp(name, "v128.xor") || !strcmp(name, "v128.not")) {
		w->bitwise = true;
		return;
	}
	int s = loop_lane_shape(name);
	if (!s || (w->shape && w->shape != s)) {
		w->lanes_ok = false;
		return;
	}
	w->shape = s;
	const char *const *ops = s == LANES_F64 || s == LANES_F32 ? fops : iops;
	for (int i = 0; ops[i]; i++)
		if (!strcmp(name + 6, ops[i]))
			return;
	w->lanes_ok = false;
}

/* A v128 local the body writes: in a lane-wise copy it lives in one
 * scalar per lane across iterations, stored back when the copy ends. */
static void note_vlocal(walk *w, uint32_t l)
{
	for (uint32_t k = 0; k < w->nvl; k++)
		if (w->vl[k] == l)
			return;
	if (w->nvl == LOOP_MAXVL) {
		w->lanes_ok = false;
		return;
	}
	w->vl[w->nvl++] = l;
}

static bool traps_or_control(uint32_t op)
{
	if (op >> 16 == 0xFE)                      /* atomics */
		return true;
	if (op >> 16 == 0xFC)                      /* all but trunc_sat */
		return (op & 0xFFFF) > 7;
	switch (op) {
	case WASM_OP_I32_DIV_S: case WASM_OP_I32_DIV_U:
	case WASM_OP_I32_REM_S: case WASM_OP_I32_REM_U:
	case WASM_OP_I64_DIV_S: case WASM_OP_I64_DIV_U:
	case WASM_OP_I64_REM_S: case WASM_OP_I64_REM_U:
	case WASM_OP_I32_TRUNC_F32_S: case WASM_OP_I32_TRUNC_F32_U:
	case WASM_OP_I32_TRUNC_F64_S: case WASM_OP_I32_TRUNC_F64_U:
	case WASM_OP_I64_TRUNC_F32_S: case WASM_OP_I64_TRUNC_F32_U:
	case WASM_OP_I64_TRUNC_F64_S: case WASM_OP_I64_TRUNC_F64_U:
	case WASM_OP_MEMORY_GROW: case WASM_OP_UNREACHABLE:
		return true;
	default:
		return false;
	}
}

/* Bytes a load or store touches from its effective address, 0 if the
 * instruction is not one. */
static uint32_t mem_width(uint32_t op, const wasm_opinfo *oi)
{
	if (op >= WASM_OP_I32_LOAD && op <= WASM_OP_I64_STORE32) {
		switch (op) {
		case WASM_OP_I32_LOAD8_S: case WASM_OP_I32_LOAD8_U:
		case WASM_OP_I64_LOAD8_S: case WASM_OP_I64_LOAD8_U:
		case WASM_OP_I32_STORE8: case WASM_OP_I64_STORE8:
			return 1;
		case WASM_OP_I32_LOAD16_S: case WASM_OP_I32_LOAD16_U:
		case WASM_OP_I64_LOAD16_S: case WASM_OP_I64_LOAD16_U:
		case WASM_OP_I32_STORE16: case WASM_OP_I64_STORE16:
			return 2;
		case WASM_OP_I64_LOAD: case WASM_OP_F64_LOAD:
		case WASM_OP_I64_STORE: case WASM_OP_F64_STORE:
			return 8;
		default:
			return 4;
		}
	}
	if (op >> 16 != 0xFD || !oi || (oi->imm != IMM_MEM && oi->imm != IMM_MEMLANE))
		return 0;
	/* v128.load, v128.loadNxM_s/u (8 bytes), v128.loadN_splat/zero,
	 * v128.loadN_lane/storeN_lane (N/8 bytes) */
	const char *p = strstr(oi->name, "load");
	p = p ? p + 4 : strstr(oi->name, "store") + 5;
	if (*p < '0' || *p > '9')
		return 16;
	char *e;
	unsigned long n = strtoul(p, &e, 10);
	return *e == 'x' ? 8 : (uint32_t)(n / 8);
}

/* Where a block inside the body joins, the locals written anywhere in it
 * (code[from..to]) may hold either branch's value: forget them. */
static void forget(walk *w, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		const wasm_instr *in = &w->f->code[i];
		if (in->op == WASM_OP_LOCAL_SET || in->op == WASM_OP_LOCAL_TEE)
			w->loc[in->u.index] = opaque(w->ltypes[in->u.index]);
	}
}

/* A branch from inside nf blocks of the body: to one of them (forward) or
 * out of the loop (an early exit) is fine; to the loop's own label (a
 * `continue` before the end) is not: the fast copy counts iterations at
 * its end only. */
static bool branch_ok(uint32_t label, uint32_t nf)
{
	return label != nf;
}

/* After a walk with `iv` as the candidate: its step per iteration if the
 * body adds a constant to it (and nothing else), else 0. */
static int64_t iv_step(const walk *w, uint32_t iv)
{
	const av *v = &w->loc[iv];
	if (v->kind != AV_AFF || v->a.k != 1 || v->a.inv >= 0 || v->a.c == 0 ||
	    v->a.c <= -K_MAX || v->a.c >= K_MAX)
		return 0;
	return v->a.c;
}

/* One walk of the body with `iv` as the induction variable candidate.
 * Returns false if the loop does not fit; fills p->acc and the exit. */
static bool walk_body(walk *w, uint32_t start, uint32_t end, uint32_t iv,
                      loop_plan *p, av *cond)
{
	const wasm_func *f = w->f;
	w->h = w->maxh = 0;
	w->lanes_ok = true;
	w->bitwise = false;
	w->exits = false;
	w->nvl = 0;
	w->shape = LANES_NONE;
	w->npool = 0;
	int64_t s = w->steps ? w->steps[iv] : 0;
	for (uint32_t l = 0; l < w->nlocals; l++) {
		uint8_t t = w->ltypes[l];
		w->loc[l] = opaque(t);
		if (t != WASM_I32 && t != WASM_I64)
			continue;
		if (l == iv) {
			w->loc[l] = affine_t(t, 1, 0, -1);
		} else if (!w->written[l]) {
			int e = pool_add(w, "l%" PRIu32, l);
			if (e < 0)
				return false;
			w->loc[l] = affine_t(t, 0, 0, e);
		} else if (s != 0 && t == WASM_I32 && w->steps[l] && w->steps[l] % s == 0) {
			/* another induction variable, stepping k times as far:
			 * l = l_entry + k*(iv - iv_entry), mod 2^32 */
			int64_t k = w->steps[l] / s;
			int e = pool_add(w, "(l%" PRIu32 " - (uint32_t)l%" PRIu32 " * 0x%" PRIx32 "u)",
			                 l, iv, (uint32_t)k);
			if (e < 0)
				return false;
			w->loc[l] = affine(w, k, 0, e);
		}
	}
	memset(p->acc, 0, (end - start) * sizeof *p->acc);
	p->gathers = 0;
	uint32_t nf = 0;
	for (uint32_t i = start + 1; i < end; i++) {
		const wasm_instr *in = &f->code[i];
		uint32_t op = in->op;
		const wasm_opinfo *oi = wasm_opinfo_get(op);
		if (traps_or_control(op))
			return false;
		switch (op) {
		case WASM_OP_BLOCK: case WASM_OP_IF: {
			if (in->u.block.kind == WASM_BLOCK_TYPEIDX)
				return false;
			if (op == WASM_OP_IF)
				w->h--;
			w->fr[nf++] = (frame){ w->h, i, in->u.block.else_, in->u.block.end,
			                      in->u.block.kind == WASM_BLOCK_VAL ? (uint8_t)in->u.block.type : 0 };
			w->lanes_ok = false;
			continue;
		}
		case WASM_OP_ELSE:
			forget(w, w->fr[nf - 1].start, i);
			w->h = w->fr[nf - 1].h;
			continue;
		case WASM_OP_END: {
			frame *fr = &w->fr[--nf];
			forget(w, fr->start, i);
			w->h = fr->h;
			if (fr->t)
				push(w, opaque(fr->t));
			continue;
		}
		case WASM_OP_BR: case WASM_OP_BR_TABLE: {
			if (nf == 0)
				return false;
			if (op == WASM_OP_BR_TABLE) {
				const uint32_t *tg = &f->brtable[in->u.brtable.first];
				for (uint32_t k = 0; k <= in->u.brtable.count; k++)
					if (!branch_ok(tg[k], nf))
						return false;
			} else if (!branch_ok(in->u.index, nf)) {
				return false;
			}
			/* the rest of this block (or branch of an if) is dead */
			const frame *fr = &w->fr[nf - 1];
			uint32_t next = fr->else_ && i < fr->else_ ? fr->else_ : fr->end;
			i = next - 1;
			continue;
		}
		case WASM_OP_NOP:
			continue;
		case WASM_OP_DROP:
			w->h--;
			continue;
		case WASM_OP_SELECT: case WASM_OP_SELECT_T:
			w->h -= 3;
			if (w->st[w->h].t == WASM_V128)
				w->lanes_ok = false;
			push(w, opaque(w->st[w->h].t));
			continue;
		case WASM_OP_LOCAL_GET:
			push(w, w->loc[in->u.index]);
			continue;
		case WASM_OP_LOCAL_SET: case WASM_OP_LOCAL_TEE:
			if (w->ltypes[in->u.index] == WASM_V128)
				note_vlocal(w, in->u.index);
			w->loc[in->u.index] = w->st[w->h - 1];
			if (op == WASM_OP_LOCAL_SET)
				w->h--;
			continue;
		case WASM_OP_GLOBAL_GET: {
			uint8_t t = w->m->globals[in->u.index].type.type;
			if (t == WASM_V128)
				w->lanes_ok = false;
			push(w, opaque(t));
			continue;
		}
		case WASM_OP_GLOBAL_SET:
			w->h--;
			continue;
		case WASM_OP_I32_CONST:
			push(w, affine(w, 0, in->u.i32, -1));
			continue;
		case WASM_OP_I64_CONST:
			push(w, affine_t(WASM_I64, 0, in->u.i64, -1));
			continue;
		case WASM_OP_I32_WRAP_I64: {
			av x = w->st[--w->h];
			int inv = x.kind == AV_AFF ? x.a.inv : -1;
			if (inv >= 0)
				inv = pool_add(w, "(uint32_t)%s", w->pool[inv]);
			push(w, x.kind == AV_AFF && inv >= -1 ? affine(w, x.a.k, x.a.c, inv)
			                                     : opaque(WASM_I32));
			continue;
		}
		case WASM_OP_BR_IF:
			if (i != end - 1) {
				if (!branch_ok(in->u.index, nf))
					return false;
				if (in->u.index >= nf)
					w->exits = true;
				w->h--;
				continue;
			}
			if (in->u.index != 0)
				return false;
			*cond = w->st[--w->h];
			continue;
		case WASM_OP_I32_ADD: case WASM_OP_I32_SUB:
		case WASM_OP_I64_ADD: case WASM_OP_I64_SUB: {
			av y = w->st[--w->h], x = w->st[--w->h];
			push(w, aff_add(w, &x, &y, op == WASM_OP_I32_SUB || op == WASM_OP_I64_SUB));
			continue;
		}
		case WASM_OP_I32_MUL: case WASM_OP_I64_MUL: {
			av y = w->st[--w->h], x = w->st[--w->h];
			push(w, is_const(&y) ? aff_mul(w, &x, y.a.c)
			        : is_const(&x) ? aff_mul(w, &y, x.a.c) : opaque(x.t));
			continue;
		}
		case WASM_OP_I32_SHL: case WASM_OP_I64_SHL: {
			av y = w->st[--w->h], x = w->st[--w->h];
			int bits = op == WASM_OP_I32_SHL ? 31 : 63;
			int64_t sh = is_const(&y) ? (y.a.c & bits) : 64;
			push(w, sh < 20 ? aff_mul(w, &x, (int64_t)1 << sh) : opaque(x.t));
			continue;
		}
		case WASM_OP_I32_NE: case WASM_OP_I32_LT_U: case WASM_OP_I32_LT_S:
		case WASM_OP_I32_GT_U: case WASM_OP_I32_GT_S:
		case WASM_OP_I64_NE: case WASM_OP_I64_LT_U: case WASM_OP_I64_LT_S:
		case WASM_OP_I64_GT_U: case WASM_OP_I64_GT_S: {
			av y = w->st[--w->h], x = w->st[--w->h];
			av v = opaque(WASM_I32);
			if (x.kind == AV_AFF && y.kind == AV_AFF) {
				v.kind = AV_CMP;
				v.ct = x.t;
				/* the i64 comparisons are numbered as the i32 ones */
				v.cmp = x.t == WASM_I64 ? op - WASM_OP_I64_NE + WASM_OP_I32_NE : op;
				v.a = x.a;
				v.b = y.a;
			}
			push(w, v);
			continue;
		}
		default:
			break;
		}
		if (!oi || !oi->sig)
			return false;           /* control, calls, tables, refs */
		const char *colon = strchr(oi->sig, ':');
		uint32_t npop = (uint32_t)(colon - oi->sig);
		uint32_t width = mem_width(op, oi);
		if (width) {
			const av *a = &w->st[w->h - npop];
			if (a->kind != AV_AFF) {
				/* a gather or scatter (x[col[j]]): translated as
				 * usual in the fast copy, where it may trap */
				p->acc[i - start].gather = true;
				p->gathers++;
				goto next;
			}
			loop_acc *ac = &p->acc[i - start];
			ac->is = true;
			ac->k = a->a.k;
			ac->c = a->a.c;
			ac->mem = in->u.mem.mem;
			ac->width = width;
			w->accinv[i - start] = a->a.inv;
		}
next:
		if (op >> 16 == 0xFD)
			lanes_note(w, oi->name);
		w->h -= npop;
		if (colon[1])
			push(w, opaque(wasm_sig_type(colon[1])));
	}
	return true;
}

/* Reduces the exit test to `iv_new op K`, K a uint32_t C expression of
 * invariant locals.  `br_if x` continues while x != 0. */
static bool exit_test(walk *w, const av *cond, loop_plan *p)
{
	aff a, b = { 0, 0, -1 };
	uint32_t op = WASM_OP_I32_NE;
	bool wide = w->ltypes[p->iv] == WASM_I64;
	if (cond->kind == AV_AFF && !wide) {
		a = cond->a;
	} else if (cond->kind == AV_CMP && (cond->ct == WASM_I64) == wide) {
		a = cond->a;
		b = cond->b;
		op = cond->cmp;
	} else {
		return false;
	}
	if (op == WASM_OP_I32_GT_U || op == WASM_OP_I32_GT_S || (op == WASM_OP_I32_NE && a.k != 1)) {
		aff t = a;
		a = b;
		b = t;
		op = op == WASM_OP_I32_GT_U ? WASM_OP_I32_LT_U
		   : op == WASM_OP_I32_GT_S ? WASM_OP_I32_LT_S : op;
	}
	if (a.k != 1 || b.k != 0)
		return false;
	const char *ai = a.inv >= 0 ? w->pool[a.inv] : "0u";
	const char *bi = b.inv >= 0 ? w->pool[b.inv] : "0u";
	int n;
	p->wide = wide;
	if (p->step < 0 && op != WASM_OP_I32_NE)
		return false;               /* counting down: `!=` exits only */
	if (op == WASM_OP_I32_NE) {
		/* a = iv_new + (a.c - step) + ai, so a != b <=> iv_new != K */
		int64_t d = b.c - (a.c - p->step);
		n = wide ? snprintf(p->kexpr, sizeof p->kexpr, "(uint64_t)(%s - %s + 0x%" PRIx64 "ull)",
		                    bi, ai, (uint64_t)d)
		         : snprintf(p->kexpr, sizeof p->kexpr, "(uint32_t)(%s - %s + 0x%" PRIx32 "u)",
		                    bi, ai, (uint32_t)d);
		p->exit = LOOP_NE;
	} else {
		if (a.inv >= 0 || a.c != p->step)
			return false;
		n = wide ? snprintf(p->kexpr, sizeof p->kexpr, "(uint64_t)(%s + 0x%" PRIx64 "ull)",
		                    bi, (uint64_t)b.c)
		         : snprintf(p->kexpr, sizeof p->kexpr, "(uint32_t)(%s + 0x%" PRIx32 "u)",
		                    bi, (uint32_t)b.c);
		p->exit = op == WASM_OP_I32_LT_U ? LOOP_LTU : LOOP_LTS;
	}
	return n > 0 && n < (int)sizeof p->kexpr;
}

/* Moves the bases the accesses use from the walk's pool into the plan. */
static bool collect_bases(walk *w, loop_plan *p)
{
	uint32_t n = p->end - p->start, nacc = 0;
	p->ninv = 0;
	for (uint32_t i = 0; i < n; i++) {
		loop_acc *ac = &p->acc[i];
		if (!ac->is)
			continue;
		nacc++;
		int e = w->accinv[i];
		if (e < 0) {
			ac->inv = LOOP_MAXINV;
			continue;
		}
		uint32_t j = 0;
		while (j < p->ninv && strcmp(p->inv[j], w->pool[e]))
			j++;
		if (j == p->ninv) {
			if (p->ninv == LOOP_MAXINV)
				return false;
			memcpy(p->inv[p->ninv++], w->pool[e], LOOP_EXPR);
		}
		ac->inv = (uint8_t)j;
	}
	return nacc > 0;
}

bool loop_analyze(const wasm_module *m, const wasm_func *f,
                  const uint8_t *local_types, uint32_t nlocals,
                  uint32_t start, loop_plan *p)
{
	const wasm_instr *lp = &f->code[start];
	memset(p, 0, sizeof *p);
	if (lp->op != WASM_OP_LOOP || lp->u.block.kind != WASM_BLOCK_EMPTY)
		return false;
	uint32_t end = lp->u.block.end;
	if (end <= start + 1 || f->code[end - 1].op != WASM_OP_BR_IF ||
	    f->code[end - 1].u.index != 0)
		return false;
	/* blocks, ifs and forward branches are walked (walk_body), nested
	 * loops and calls are not */
	uint32_t depth = 0, maxdepth = 0;
	for (uint32_t i = start + 1; i < end; i++) {
		uint32_t op = f->code[i].op;
		if (op == WASM_OP_LOOP || op == WASM_OP_RETURN || op == WASM_OP_CALL ||
		    op == WASM_OP_CALL_INDIRECT || traps_or_control(op))
			return false;
		if (op == WASM_OP_BLOCK || op == WASM_OP_IF)
			maxdepth = ++depth > maxdepth ? depth : maxdepth;
		else if (op == WASM_OP_END)
			depth--;
	}
	uint32_t n = end - start;
	walk w = { .m = m, .f = f, .ltypes = local_types, .nlocals = nlocals };
	bool *written = calloc(nlocals + 1, sizeof *written);
	int64_t *steps = calloc(nlocals + 1, sizeof *steps);
	w.st = malloc((n + 1) * sizeof *w.st);
	w.loc = malloc((nlocals + 1) * sizeof *w.loc);
	w.accinv = malloc(n * sizeof *w.accinv);
	w.fr = malloc(n * sizeof *w.fr);
	p->acc = malloc(n * sizeof *p->acc);
	bool ok = false;
	if (!written || !steps || !w.st || !w.loc || !w.accinv || !w.fr || !p->acc) {
		w.nomem = true;
		goto out;
	}
	uint64_t nw = 0;
	for (uint32_t i = start + 1; i < end; i++) {
		const wasm_instr *in = &f->code[i];
		if ((in->op == WASM_OP_LOCAL_SET || in->op == WASM_OP_LOCAL_TEE) &&
		    !written[in->u.index]) {
			written[in->u.index] = true;
			nw++;
		}
	}
	/* one walk per written local, each up to n * (depth + 1) steps: the
	 * bound keeps the analysis linear in the module's size (a module is
	 * untrusted input) */
	if ((nw + 1) * (maxdepth + 1) > 1024)
		goto out;
	w.written = written;
	p->start = start;
	p->end = end;
	/* the basic induction variables: locals the body steps by a constant */
	for (uint32_t l = 0; l < nlocals; l++) {
		av cond = opaque(WASM_I32);
		if (written[l] && (local_types[l] == WASM_I32 || local_types[l] == WASM_I64) &&
		    walk_body(&w, start, end, l, p, &cond))
			steps[l] = iv_step(&w, l);
	}
	w.steps = steps;
	for (uint32_t iv = 0; iv < nlocals && !ok; iv++) {
		if (steps[iv] == 0)
			continue;
		av cond = opaque(WASM_I32);
		p->iv = iv;
		p->step = steps[iv];
		if (!walk_body(&w, start, end, iv, p, &cond) || iv_step(&w, iv) != p->step ||
		    !exit_test(&w, &cond, p) || !collect_bases(&w, p))
			continue;
		/* v128 gathers stay 128-bit values */
		p->lanes = w.lanes_ok && !p->gathers && (!w.bitwise || w.shape == LANES_I32 ||
		                          w.shape == LANES_I64) ? w.shape : LANES_NONE;
		/* written v128 locals are stored back only where the copy ends
		 * (goto X), so a loop with an earlier way out stays 128-bit; and
		 * only integer lanes are carried: a float lane carried from one
		 * iteration to the next is a reduction the C compiler may not
		 * reorder, so lane by lane it would stay scalar (SLP is off),
		 * where the 128-bit form computes both lanes at once */
		if (p->lanes && w.nvl && (w.exits || p->lanes == LANES_F64 || p->lanes == LANES_F32))
			p->lanes = LANES_NONE;
		p->nvl = p->lanes ? w.nvl : 0;
		memcpy(p->vl, w.vl, sizeof p->vl);
		p->vdepth = w.maxh;
		ok = true;
	}
out:
	free(steps);
	free(written);
	free(w.st);
	free(w.loc);
	free(w.accinv);
	free(w.fr);
	free(w.pool);
	if (!ok) {
		free(p->acc);
		p->acc = NULL;
	}
	p->nomem = w.nomem;
	return ok && !w.nomem;
}

void loop_plan_free(loop_plan *p)
{
	free(p->acc);
	p->acc = NULL;
}
