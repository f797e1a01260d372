/* validate.c - the type checker of WebAssembly 2.0.
 *
 * Module-level rules (index spaces, limits, constant expressions, segments,
 * exports, start) and the spec's operand/control stack algorithm for every
 * function body.  Instructions whose types are fixed are typed from the
 * signature column of opcodes.def; only context-typed ones have code here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/wasm.h"

#define V_UNKNOWN 0              /* the bottom type of unreachable code */
#define MAX_STACK 1000000u       /* operand stack height we accept */
#define MAX_PAGES 65536u
#define WASM_MAX_ARITY 1000u    /* the decoder's limit on params/results */

typedef struct vframe {
	uint32_t op;                 /* BLOCK, LOOP, IF, ELSE, TRY, CATCH, CATCH_ALL,
	                                or END for the function */
	const uint8_t *params, *results;
	uint32_t nparams, nresults;
	uint32_t height;             /* operand stack height at entry */
	bool unreachable;
} vframe;

typedef struct vctx {
	const wasm_module *m;
	wasm_error *err;
	uint32_t func;               /* function index being checked */
	const wasm_instr *in;        /* instruction being checked */
	uint8_t *vals; uint32_t nvals, capvals;
	vframe *ctl; uint32_t nctl, capctl;
	uint8_t *locals; uint32_t nlocals;
	bool *refs;                  /* C.refs: functions ref.func may name */
} vctx;

__attribute__((format(printf, 3, 4)))
static int vfail(vctx *c, size_t off, const char *fmt, ...)
{
	wasm_error *e = c->err;
	if (e->code == WASM_OK) {
		va_list ap;
		e->code = WASM_ERR_INVALID;
		e->offset = off;
		e->func = c->func;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return WASM_ERR_INVALID;
}

static const char *opname(const wasm_instr *in)
{
	const wasm_opinfo *oi = wasm_opinfo_get(in->op);
	return oi ? oi->name : "?";
}

static const char *tname(uint8_t t)
{
	return t == V_UNKNOWN ? "nothing" : wasm_valtype_name(t);
}

/* ---- operand and control stacks ---------------------------------------- */

static int push(vctx *c, uint8_t t)
{
	if (c->nvals == c->capvals) {
		if (c->capvals >= MAX_STACK) {
			c->err->func = c->func;
			if (c->err->code == WASM_OK) {
				c->err->code = WASM_ERR_LIMIT;
				c->err->offset = c->in->offset;
				snprintf(c->err->msg, sizeof c->err->msg,
				         "operand stack deeper than %u values", MAX_STACK);
			}
			return WASM_ERR_LIMIT;
		}
		uint32_t cap = c->capvals ? c->capvals * 2 : 64;
		uint8_t *q = realloc(c->vals, cap);
		if (!q) {
			if (c->err->code == WASM_OK) {
				c->err->code = WASM_ERR_NOMEM;
				c->err->func = c->func;
				snprintf(c->err->msg, sizeof c->err->msg, "out of memory");
			}
			return WASM_ERR_NOMEM;
		}
		c->vals = q;
		c->capvals = cap;
	}
	c->vals[c->nvals++] = t;
	return 0;
}

/* Pops one value; `want` V_UNKNOWN accepts any.  *got gets the popped type,
 * V_UNKNOWN when it came from below an unreachable frame's bottom. */
static int pop(vctx *c, uint8_t want, uint8_t *got)
{
	vframe *f = &c->ctl[c->nctl - 1];
	uint8_t t;
	if (c->nvals == f->height) {
		if (!f->unreachable)
			return vfail(c, c->in->offset,
			             "type mismatch in %s: expected %s but the stack is empty",
			             opname(c->in), want ? tname(want) : "a value");
		t = V_UNKNOWN;
	} else {
		t = c->vals[--c->nvals];
	}
	if (want != V_UNKNOWN && t != V_UNKNOWN && t != want)
		return vfail(c, c->in->offset, "type mismatch in %s: expected %s, got %s",
		             opname(c->in), tname(want), tname(t));
	if (got)
		*got = t;
	return 0;
}

static int pops(vctx *c, const uint8_t *ts, uint32_t n)
{
	for (uint32_t i = n; i-- > 0;) {
		int rc = pop(c, ts[i], NULL);
		if (rc)
			return rc;
	}
	return 0;
}

static int pushes(vctx *c, const uint8_t *ts, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		int rc = push(c, ts[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int push_ctl(vctx *c, uint32_t op, const uint8_t *params, uint32_t np,
                    const uint8_t *results, uint32_t nr)
{
	if (c->nctl == c->capctl) {
		uint32_t cap = c->capctl ? c->capctl * 2 : 16;
		vframe *q = realloc(c->ctl, cap * sizeof *q);
		if (!q) {
			if (c->err->code == WASM_OK) {
				c->err->code = WASM_ERR_NOMEM;
				c->err->func = c->func;
				snprintf(c->err->msg, sizeof c->err->msg, "out of memory");
			}
			return WASM_ERR_NOMEM;
		}
		c->ctl = q;
		c->capctl = cap;
	}
	vframe *f = &c->ctl[c->nctl++];
	f->op = op;
	f->params = params; f->nparams = np;
	f->results = results; f->nresults = nr;
	f->height = c->nvals;
	f->unreachable = false;
	return pushes(c, params, np);
}

/* Pops the frame's results, which must then exactly fill the frame. */
static int pop_ctl(vctx *c, vframe *out)
{
	vframe *f = &c->ctl[c->nctl - 1];
	int rc = pops(c, f->results, f->nresults);
	if (rc)
		return rc;
	if (c->nvals != f->height)
		return vfail(c, c->in->offset,
		             "type mismatch: %u value(s) left on the stack at the end of the block",
		             c->nvals - f->height);
	*out = *f;
	c->nctl--;
	return 0;
}

static void label_types(const vframe *f, const uint8_t **ts, uint32_t *n)
{
	if (f->op == WASM_OP_LOOP) {
		*ts = f->params;
		*n = f->nparams;
	} else {
		*ts = f->results;
		*n = f->nresults;
	}
}

static void unreachable(vctx *c)
{
	vframe *f = &c->ctl[c->nctl - 1];
	c->nvals = f->height;
	f->unreachable = true;
}

/* ---- helpers ------------------------------------------------------------ */

static uint8_t sig_type(char ch)
{
	uint8_t t = wasm_sig_type(ch);
	return t ? t : V_UNKNOWN;
}

static int apply_sig(vctx *c, const char *sig)
{
	const char *colon = strchr(sig, ':');
	int rc;
	for (const char *p = colon; p-- > sig;)
		if ((rc = pop(c, sig_type(*p), NULL)))
			return rc;
	for (const char *p = colon + 1; *p; p++)
		if ((rc = push(c, sig_type(*p))))
			return rc;
	return 0;
}

static bool is_num(uint8_t t)
{
	return t == WASM_I32 || t == WASM_I64 || t == WASM_F32 || t == WASM_F64 ||
	       t == WASM_V128 || t == V_UNKNOWN;
}

static bool is_ref(uint8_t t)
{
	return t == WASM_FUNCREF || t == WASM_EXTERNREF || t == V_UNKNOWN;
}

/* Bytes a SIMD or atomic memory instruction accesses, from its name:
 * the width after load/store/rmw (8x8, 16x4, 32x2 read 8 bytes), else
 * the value type's. */
static uint32_t ext_access_bytes(const char *name)
{
	static const char *const kw[] = { "load", "store", "rmw" };
	const char *p = NULL;
	if (!strncmp(name, "memory.atomic.", 14))
		return strstr(name, "wait64") ? 8 : 4;
	for (int k = 0; k < 3; k++) {
		const char *q = strstr(name, kw[k]);
		if (q)
			p = q + strlen(kw[k]);
	}
	if (p && *p >= '0' && *p <= '9') {
		char *e;
		unsigned long n = strtoul(p, &e, 10);
		return *e == 'x' ? 8 : (uint32_t)(n / 8);
	}
	return name[0] == 'v' ? 16 : name[1] == '3' ? 4 : 8;
}

/* Lanes of the shape an IMM_LANE/IMM_MEMLANE instruction names. */
static uint32_t lane_count(const wasm_opinfo *oi)
{
	if (oi->imm == IMM_MEMLANE)
		return 16 / ext_access_bytes(oi->name);
	switch (oi->name[1]) {
	case '8': return 16;
	case '1': return 8;
	case '3': return 4;
	default: return 2;
	}
}

/* log2 of the natural alignment of a load or store. */
static uint32_t natural_align(uint32_t op)
{
	if (op >> 16 == 0xFD || op >> 16 == 0xFE) {
		uint32_t n = ext_access_bytes(wasm_opinfo_get(op)->name), l = 0;
		while ((1u << l) < n)
			l++;
		return l;
	}
	switch (op) {
	case WASM_OP_I32_LOAD8_S: case WASM_OP_I32_LOAD8_U: case WASM_OP_I64_LOAD8_S:
	case WASM_OP_I64_LOAD8_U: case WASM_OP_I32_STORE8: case WASM_OP_I64_STORE8:
		return 0;
	case WASM_OP_I32_LOAD16_S: case WASM_OP_I32_LOAD16_U: case WASM_OP_I64_LOAD16_S:
	case WASM_OP_I64_LOAD16_U: case WASM_OP_I32_STORE16: case WASM_OP_I64_STORE16:
		return 1;
	case WASM_OP_I32_LOAD: case WASM_OP_F32_LOAD: case WASM_OP_I64_LOAD32_S:
	case WASM_OP_I64_LOAD32_U: case WASM_OP_I32_STORE: case WASM_OP_F32_STORE:
	case WASM_OP_I64_STORE32:
		return 2;
	default:
		return 3;
	}
}

/* Each value type at its own index: a one-result block type points here. */
static const uint8_t valtype_self[0x80] = {
	[WASM_I32] = WASM_I32, [WASM_I64] = WASM_I64, [WASM_F32] = WASM_F32,
	[WASM_F64] = WASM_F64, [WASM_V128] = WASM_V128,
	[WASM_FUNCREF] = WASM_FUNCREF, [WASM_EXTERNREF] = WASM_EXTERNREF,
};

/* The block type of a block/loop/if as params/results. */
static int block_type(vctx *c, const wasm_instr *in, const uint8_t **p,
                      uint32_t *np, const uint8_t **r, uint32_t *nr)
{
	*p = NULL; *np = 0; *r = NULL; *nr = 0;
	switch (in->u.block.kind) {
	case WASM_BLOCK_EMPTY:
		return 0;
	case WASM_BLOCK_VAL:
		if (!valtype_self[in->u.block.type & 0x7F] || in->u.block.type > 0x7F)
			return vfail(c, in->offset, "invalid block value type 0x%x", in->u.block.type);
		*r = &valtype_self[in->u.block.type];
		*nr = 1;
		return 0;
	default:
		if (in->u.block.type >= c->m->ntypes)
			return vfail(c, in->offset, "unknown type %u in %s", in->u.block.type,
			             opname(in));
		const wasm_functype *ft = &c->m->types[in->u.block.type];
		*p = ft->params; *np = ft->nparams;
		*r = ft->results; *nr = ft->nresults;
		return 0;
	}
}

static const wasm_tabletype *table_at(vctx *c, uint32_t x)
{
	if (x >= c->m->ntables) {
		vfail(c, c->in->offset, "unknown table %u in %s", x, opname(c->in));
		return NULL;
	}
	return &c->m->tables[x];
}

static int need_memory(vctx *c)
{
	if (c->m->nmems == 0)
		return vfail(c, c->in->offset, "unknown memory 0 in %s", opname(c->in));
	return 0;
}

static int need_data(vctx *c, uint32_t x)
{
	if (!c->m->has_datacount)
		return vfail(c, c->in->offset, "%s needs the data count section", opname(c->in));
	if (x >= c->m->datacount)
		return vfail(c, c->in->offset, "unknown data segment %u in %s", x, opname(c->in));
	return 0;
}

static int need_elem(vctx *c, uint32_t x)
{
	if (x >= c->m->nelems)
		return vfail(c, c->in->offset, "unknown elem segment %u in %s", x, opname(c->in));
	return 0;
}

/* ---- one instruction ---------------------------------------------------- */

/* The function type of tag x, or NULL after reporting it unknown. */
static const wasm_functype *tag_at(vctx *c, uint32_t x)
{
	if (x >= c->m->ntags) {
		vfail(c, c->in->offset, "unknown tag %u", x);
		return NULL;
	}
	return &c->m->types[c->m->tags[x]];
}

static int check_instr(vctx *c, const wasm_func *fn, const wasm_instr *in)
{
	const wasm_module *m = c->m;
	const wasm_opinfo *oi = wasm_opinfo_get(in->op);
	const uint8_t *p, *r;
	uint32_t np, nr;
	uint8_t t, t2;
	int rc;
	vframe fr;

	c->in = in;
	if (!oi)
		return vfail(c, in->offset, "unknown opcode 0x%x", in->op);

	/* Context checks of instructions the signature column types. */
	switch (oi->imm) {
	case IMM_MEM: case IMM_MEMLANE:
		if ((rc = need_memory(c)))
			return rc;
		if (in->u.mem.align > natural_align(in->op))
			return vfail(c, in->offset,
			             "alignment must not be larger than natural in %s (2**%u > %u bytes)",
			             oi->name, in->u.mem.align, 1u << natural_align(in->op));
		/* threads: an atomic access states exactly its natural alignment */
		if (in->op >> 16 == 0xFE && in->u.mem.align != natural_align(in->op))
			return vfail(c, in->offset,
			             "alignment must be exactly natural in %s (2**%u, %u bytes)",
			             oi->name, in->u.mem.align, 1u << natural_align(in->op));
		if (oi->imm == IMM_MEMLANE && in->u.mem.lane >= lane_count(oi))
			return vfail(c, in->offset, "invalid lane index %u in %s",
			             in->u.mem.lane, oi->name);
		break;
	case IMM_LANE:
		if (in->u.lane >= lane_count(oi))
			return vfail(c, in->offset, "invalid lane index %u in %s",
			             in->u.lane, oi->name);
		break;
	case IMM_SHUFFLE:
		for (int k = 0; k < 16; k++)
			if (in->u.lanes[k] >= 32)
				return vfail(c, in->offset, "invalid lane index %u in %s",
				             in->u.lanes[k], oi->name);
		break;
	case IMM_MEMIDX:
		if (in->op == WASM_PREFIXED(0xFE, 0x03))
			break;   /* atomic.fence orders without a memory */
		if ((rc = need_memory(c)))
			return rc;
		break;
	case IMM_MEM_MEM:
		if ((rc = need_memory(c)))
			return rc;
		break;
	case IMM_DATA_MEM:
		if ((rc = need_memory(c)) || (rc = need_data(c, in->u.two.a)))
			return rc;
		break;
	case IMM_DATA:
		if ((rc = need_data(c, in->u.index)))
			return rc;
		break;
	default:
		break;
	}

	switch (in->op) {
	case WASM_OP_UNREACHABLE:
		unreachable(c);
		return 0;
	case WASM_OP_BLOCK: case WASM_OP_LOOP: case WASM_OP_IF: case WASM_OP_TRY:
		if ((rc = block_type(c, in, &p, &np, &r, &nr)))
			return rc;
		if (in->op == WASM_OP_IF && (rc = pop(c, WASM_I32, NULL)))
			return rc;
		if ((rc = pops(c, p, np)))
			return rc;
		return push_ctl(c, in->op, p, np, r, nr);
	case WASM_OP_ELSE:
		if (c->ctl[c->nctl - 1].op != WASM_OP_IF)
			return vfail(c, in->offset, "else without if");
		if ((rc = pop_ctl(c, &fr)))
			return rc;
		return push_ctl(c, WASM_OP_ELSE, fr.params, fr.nparams, fr.results, fr.nresults);
	case WASM_OP_CATCH: case WASM_OP_CATCH_ALL: {
		/* the legacy exception handling proposal: a catch clause is a
		 * new frame with the try's results, starting with the values
		 * of the exception (catch x) or nothing (catch_all) */
		uint32_t top = c->ctl[c->nctl - 1].op;
		if (top != WASM_OP_TRY && top != WASM_OP_CATCH)
			return vfail(c, in->offset, "%s after %s", oi->name,
			             top == WASM_OP_CATCH_ALL ? "catch_all" : "no try");
		const wasm_functype *tt = NULL;
		if (in->op == WASM_OP_CATCH && !(tt = tag_at(c, in->u.index)))
			return WASM_ERR_INVALID;
		if ((rc = pop_ctl(c, &fr)))
			return rc;
		return push_ctl(c, in->op, tt ? tt->params : NULL, tt ? tt->nparams : 0,
		                fr.results, fr.nresults);
	}
	case WASM_OP_DELEGATE:
		if (c->ctl[c->nctl - 1].op != WASM_OP_TRY)
			return vfail(c, in->offset, "delegate after a catch clause");
		if ((rc = pop_ctl(c, &fr)))
			return rc;
		if (in->u.index >= c->nctl)
			return vfail(c, in->offset, "unknown label %u in delegate", in->u.index);
		return pushes(c, fr.results, fr.nresults);
	case WASM_OP_THROW: {
		const wasm_functype *tt = tag_at(c, in->u.index);
		if (!tt)
			return WASM_ERR_INVALID;
		if ((rc = pops(c, tt->params, tt->nparams)))
			return rc;
		unreachable(c);
		return 0;
	}
	case WASM_OP_RETHROW: {
		uint32_t l = in->u.index;
		if (l >= c->nctl)
			return vfail(c, in->offset, "unknown label %u in rethrow", l);
		uint32_t op = c->ctl[c->nctl - 1 - l].op;
		if (op != WASM_OP_CATCH && op != WASM_OP_CATCH_ALL)
			return vfail(c, in->offset, "invalid rethrow label %u: not a catch clause", l);
		unreachable(c);
		return 0;
	}
	case WASM_OP_END:
		if ((rc = pop_ctl(c, &fr)))
			return rc;
		if (fr.op == WASM_OP_IF) {
			/* No else: the implicit one passes the params through. */
			if (fr.nparams != fr.nresults ||
			    (fr.nparams && memcmp(fr.params, fr.results, fr.nparams)))
				return vfail(c, in->offset,
				             "type mismatch: if without else must have equal param and result types");
		}
		return pushes(c, fr.results, fr.nresults);
	case WASM_OP_BR:
	case WASM_OP_BR_IF: {
		uint32_t l = in->u.index;
		if (l >= c->nctl)
			return vfail(c, in->offset, "unknown label %u in %s", l, oi->name);
		if (in->op == WASM_OP_BR_IF && (rc = pop(c, WASM_I32, NULL)))
			return rc;
		label_types(&c->ctl[c->nctl - 1 - l], &p, &np);
		if ((rc = pops(c, p, np)))
			return rc;
		if (in->op == WASM_OP_BR)
			unreachable(c);
		else if ((rc = pushes(c, p, np)))
			return rc;
		return 0;
	}
	case WASM_OP_BR_TABLE: {
		const uint32_t *labels = fn->brtable + in->u.brtable.first;
		uint32_t n = in->u.brtable.count, def = labels[n];
		if ((rc = pop(c, WASM_I32, NULL)))
			return rc;
		if (def >= c->nctl)
			return vfail(c, in->offset, "unknown label %u in br_table", def);
		const uint8_t *dt;
		uint32_t arity;
		label_types(&c->ctl[c->nctl - 1 - def], &dt, &arity);
		for (uint32_t i = 0; i < n; i++) {
			if (labels[i] >= c->nctl)
				return vfail(c, in->offset, "unknown label %u in br_table", labels[i]);
			label_types(&c->ctl[c->nctl - 1 - labels[i]], &p, &np);
			if (np != arity)
				return vfail(c, in->offset,
				             "type mismatch in br_table: label %u has %u value(s), the default %u",
				             labels[i], np, arity);
			/* Check without consuming: pop, then push back what was
			 * popped (unknown stays unknown, as the spec's algorithm). */
			uint8_t got[WASM_MAX_ARITY];
			if (np > WASM_MAX_ARITY)
				return vfail(c, in->offset, "br_table label arity %u too large", np);
			for (uint32_t k = np; k-- > 0;)
				if ((rc = pop(c, p[k], &got[k])))
					return rc;
			for (uint32_t k = 0; k < np; k++)
				if ((rc = push(c, got[k])))
					return rc;
		}
		if ((rc = pops(c, dt, arity)))
			return rc;
		unreachable(c);
		return 0;
	}
	case WASM_OP_RETURN: {
		const vframe *f0 = &c->ctl[0];
		if ((rc = pops(c, f0->results, f0->nresults)))
			return rc;
		unreachable(c);
		return 0;
	}
	case WASM_OP_CALL: {
		if (in->u.index >= m->nfuncs)
			return vfail(c, in->offset, "unknown function %u in call", in->u.index);
		const wasm_functype *ft = &m->types[m->func_types[in->u.index]];
		if ((rc = pops(c, ft->params, ft->nparams)))
			return rc;
		return pushes(c, ft->results, ft->nresults);
	}
	case WASM_OP_CALL_INDIRECT: {
		const wasm_tabletype *tt = table_at(c, in->u.two.b);
		if (!tt)
			return WASM_ERR_INVALID;
		if (tt->elemtype != WASM_FUNCREF)
			return vfail(c, in->offset, "type mismatch: call_indirect through a table of %s",
			             wasm_valtype_name(tt->elemtype));
		if (in->u.two.a >= m->ntypes)
			return vfail(c, in->offset, "unknown type %u in call_indirect", in->u.two.a);
		const wasm_functype *ft = &m->types[in->u.two.a];
		if ((rc = pop(c, WASM_I32, NULL)) || (rc = pops(c, ft->params, ft->nparams)))
			return rc;
		return pushes(c, ft->results, ft->nresults);
	}
	case WASM_OP_DROP:
		return pop(c, V_UNKNOWN, NULL);
	case WASM_OP_SELECT:
		if ((rc = pop(c, WASM_I32, NULL)) || (rc = pop(c, V_UNKNOWN, &t)) ||
		    (rc = pop(c, V_UNKNOWN, &t2)))
			return rc;
		if (!is_num(t) || !is_num(t2))
			return vfail(c, in->offset, "type mismatch: select without a type needs numeric operands, got %s",
			             tname(is_num(t) ? t2 : t));
		if (t != t2 && t != V_UNKNOWN && t2 != V_UNKNOWN)
			return vfail(c, in->offset, "type mismatch in select: %s and %s",
			             tname(t2), tname(t));
		return push(c, t == V_UNKNOWN ? t2 : t);
	case WASM_OP_SELECT_T:
		if (in->u.two.b != 1)
			return vfail(c, in->offset, "invalid result arity: select lists %u types, needs 1",
			             in->u.two.b);
		t = (uint8_t)in->u.two.a;
		if ((rc = pop(c, WASM_I32, NULL)) || (rc = pop(c, t, NULL)) ||
		    (rc = pop(c, t, NULL)))
			return rc;
		return push(c, t);
	case WASM_OP_LOCAL_GET: case WASM_OP_LOCAL_SET: case WASM_OP_LOCAL_TEE:
		if (in->u.index >= c->nlocals)
			return vfail(c, in->offset, "unknown local %u in %s", in->u.index, oi->name);
		t = c->locals[in->u.index];
		if (in->op == WASM_OP_LOCAL_GET)
			return push(c, t);
		if ((rc = pop(c, t, NULL)))
			return rc;
		return in->op == WASM_OP_LOCAL_TEE ? push(c, t) : 0;
	case WASM_OP_GLOBAL_GET: case WASM_OP_GLOBAL_SET:
		if (in->u.index >= m->nglobals)
			return vfail(c, in->offset, "unknown global %u in %s", in->u.index, oi->name);
		t = m->globals[in->u.index].type.type;
		if (in->op == WASM_OP_GLOBAL_GET)
			return push(c, t);
		if (!m->globals[in->u.index].type.mut)
			return vfail(c, in->offset, "global is immutable: global.set %u", in->u.index);
		return pop(c, t, NULL);
	case WASM_OP_TABLE_GET: case WASM_OP_TABLE_SET:
	case WASM_OP_TABLE_GROW: case WASM_OP_TABLE_FILL: {
		const wasm_tabletype *tt = table_at(c, in->u.index);
		if (!tt)
			return WASM_ERR_INVALID;
		switch (in->op) {
		case WASM_OP_TABLE_GET:
			if ((rc = pop(c, WASM_I32, NULL)))
				return rc;
			return push(c, tt->elemtype);
		case WASM_OP_TABLE_SET:
			if ((rc = pop(c, tt->elemtype, NULL)))
				return rc;
			return pop(c, WASM_I32, NULL);
		case WASM_OP_TABLE_GROW:
			if ((rc = pop(c, WASM_I32, NULL)) || (rc = pop(c, tt->elemtype, NULL)))
				return rc;
			return push(c, WASM_I32);
		default:
			if ((rc = pop(c, WASM_I32, NULL)) || (rc = pop(c, tt->elemtype, NULL)))
				return rc;
			return pop(c, WASM_I32, NULL);
		}
	}
	case WASM_OP_TABLE_SIZE:
		if (!table_at(c, in->u.index))
			return WASM_ERR_INVALID;
		break;
	case WASM_OP_TABLE_INIT: {
		const wasm_tabletype *tt = table_at(c, in->u.two.b);
		if (!tt)
			return WASM_ERR_INVALID;
		if ((rc = need_elem(c, in->u.two.a)))
			return rc;
		if (m->elems[in->u.two.a].type != tt->elemtype)
			return vfail(c, in->offset, "type mismatch in table.init: elem segment of %s, table of %s",
			             wasm_valtype_name(m->elems[in->u.two.a].type),
			             wasm_valtype_name(tt->elemtype));
		break;
	}
	case WASM_OP_ELEM_DROP:
		if ((rc = need_elem(c, in->u.index)))
			return rc;
		break;
	case WASM_OP_TABLE_COPY: {
		const wasm_tabletype *d = table_at(c, in->u.two.a), *s;
		if (!d || !(s = table_at(c, in->u.two.b)))
			return WASM_ERR_INVALID;
		if (d->elemtype != s->elemtype)
			return vfail(c, in->offset, "type mismatch in table.copy: %s from %s",
			             wasm_valtype_name(d->elemtype), wasm_valtype_name(s->elemtype));
		break;
	}
	case WASM_OP_REF_NULL:
		return push(c, (uint8_t)in->u.index);
	case WASM_OP_REF_IS_NULL:
		if ((rc = pop(c, V_UNKNOWN, &t)))
			return rc;
		if (!is_ref(t))
			return vfail(c, in->offset, "type mismatch in ref.is_null: expected a reference, got %s",
			             tname(t));
		return push(c, WASM_I32);
	case WASM_OP_REF_FUNC:
		if (in->u.index >= m->nfuncs)
			return vfail(c, in->offset, "unknown function %u in ref.func", in->u.index);
		if (!c->refs[in->u.index])
			return vfail(c, in->offset, "undeclared function reference %u", in->u.index);
		break;
	default:
		break;
	}
	if (!oi->sig)
		return vfail(c, in->offset, "no type rule for %s", oi->name);
	return apply_sig(c, oi->sig);
}

static int check_body(vctx *c, uint32_t i)
{
	const wasm_module *m = c->m;
	const wasm_func *fn = &m->funcs[i];
	int rc;
	c->func = m->nfunc_imports + i;
	c->in = NULL;
	if (fn->type >= m->ntypes)
		return vfail(c, fn->body_offset, "unknown type %u", fn->type);
	const wasm_functype *ft = &m->types[fn->type];
	uint64_t nl = (uint64_t)ft->nparams + fn->nlocals;
	uint8_t *locals = malloc(nl ? nl : 1);
	if (!locals) {
		c->err->code = WASM_ERR_NOMEM;
		snprintf(c->err->msg, sizeof c->err->msg, "out of memory for locals");
		return WASM_ERR_NOMEM;
	}
	memcpy(locals, ft->params, ft->nparams);
	uint32_t k = ft->nparams;
	for (uint32_t r = 0; r < fn->nlocalruns; r++)
		for (uint32_t j = 0; j < fn->locals[r].count; j++)
			locals[k++] = fn->locals[r].type;
	c->locals = locals;
	c->nlocals = (uint32_t)nl;
	c->nvals = 0;
	c->nctl = 0;

	static const wasm_instr entry = { .op = WASM_OP_END };
	c->in = &entry;
	rc = push_ctl(c, WASM_OP_END, NULL, 0, ft->results, ft->nresults);
	for (uint32_t j = 0; rc == 0 && j < fn->ncode; j++) {
		if (c->nctl == 0)
			rc = vfail(c, fn->code[j].offset, "instructions after the function's end");
		else
			rc = check_instr(c, fn, &fn->code[j]);
	}
	if (rc == 0 && c->nctl != 0)
		rc = vfail(c, fn->body_offset + fn->body_size, "function body does not end");
	free(locals);
	c->locals = NULL;
	return rc;
}

/* ---- module level ---------------------------------------------------- */

static int mfail(wasm_error *e, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int mfail(wasm_error *e, size_t off, const char *fmt, ...)
{
	if (e->code == WASM_OK) {
		va_list ap;
		e->code = WASM_ERR_INVALID;
		e->offset = off;
		e->func = UINT32_MAX;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return WASM_ERR_INVALID;
}

/* The type of a constant expression; `nglobals` are the globals it may read. */
static int check_const(const wasm_module *m, const wasm_constexpr *ce,
                       uint8_t want, uint32_t nglobals, wasm_error *e)
{
	uint8_t t;
	switch (ce->op) {
	case WASM_OP_I32_CONST: t = WASM_I32; break;
	case WASM_OP_I64_CONST: t = WASM_I64; break;
	case WASM_OP_F32_CONST: t = WASM_F32; break;
	case WASM_OP_F64_CONST: t = WASM_F64; break;
	case WASM_PREFIXED(0xFD, 0x0C): t = WASM_V128; break;
	case WASM_OP_REF_NULL: t = ce->u.reftype; break;
	case WASM_OP_REF_FUNC:
		if (ce->u.index >= m->nfuncs)
			return mfail(e, ce->offset, "unknown function %u in constant expression", ce->u.index);
		t = WASM_FUNCREF;
		break;
	case WASM_OP_GLOBAL_GET:
		if (ce->u.index >= nglobals)
			return mfail(e, ce->offset, "unknown global %u in constant expression", ce->u.index);
		if (m->globals[ce->u.index].type.mut)
			return mfail(e, ce->offset, "constant expression required: global %u is mutable",
			             ce->u.index);
		t = m->globals[ce->u.index].type.type;
		break;
	default:
		return mfail(e, ce->offset, "constant expression required");
	}
	if (t != want)
		return mfail(e, ce->offset, "type mismatch in constant expression: expected %s, got %s",
		             wasm_valtype_name(want), wasm_valtype_name(t));
	return 0;
}

static int check_limits(const wasm_limits *l, uint64_t bound, const char *what,
                        size_t off, wasm_error *e)
{
	if (l->min > bound)
		return mfail(e, off, "%s size must be at most %llu", what, (unsigned long long)bound);
	if (l->has_max && l->max > bound)
		return mfail(e, off, "%s size must be at most %llu", what, (unsigned long long)bound);
	if (l->has_max && l->min > l->max)
		return mfail(e, off, "size minimum must not be greater than maximum (%s)", what);
	if (l->shared && !l->has_max)
		return mfail(e, off, "shared memory must have maximum");
	return 0;
}

static int cmp_export(const void *a, const void *b)
{
	const wasm_export *x = *(wasm_export *const *)a, *y = *(wasm_export *const *)b;
	uint32_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

static int check_module(const wasm_module *m, bool *refs, wasm_error *e)
{
	int rc;
	for (uint32_t i = 0; i < m->nfuncs; i++)
		if (m->func_types[i] >= m->ntypes)
			return mfail(e, 0, "unknown type %u of function %u", m->func_types[i], i);
	for (uint32_t i = 0; i < m->ntables; i++)
		if ((rc = check_limits(&m->tables[i].lim, UINT32_MAX, "table", 0, e)))
			return rc;
	for (uint32_t i = 0; i < m->nmems; i++)
		if ((rc = check_limits(&m->mems[i].lim, MAX_PAGES, "memory", 0, e)))
			return rc;
	if (m->nmems > 1)
		return mfail(e, 0, "multiple memories are not allowed in WebAssembly 2.0 (%u)", m->nmems);
	for (uint32_t i = 0; i < m->ntags; i++) {
		if (m->tags[i] >= m->ntypes)
			return mfail(e, 0, "unknown type %u of tag %u", m->tags[i], i);
		if (m->types[m->tags[i]].nresults)
			return mfail(e, 0, "non-empty tag result type (tag %u)", i);
	}

	/* C.refs: functions named in globals, element segments and exports. */
	for (uint32_t i = m->nglobal_imports; i < m->nglobals; i++)
		if (m->globals[i].init.op == WASM_OP_REF_FUNC && m->globals[i].init.u.index < m->nfuncs)
			refs[m->globals[i].init.u.index] = true;
	for (uint32_t i = 0; i < m->nelems; i++)
		for (uint32_t j = 0; j < m->elems[i].ninit; j++) {
			const wasm_constexpr *ce = &m->elems[i].init[j];
			if (ce->op == WASM_OP_REF_FUNC && ce->u.index < m->nfuncs)
				refs[ce->u.index] = true;
		}
	for (uint32_t i = 0; i < m->nexports; i++)
		if (m->exports[i].kind == WASM_EXTERN_FUNC && m->exports[i].index < m->nfuncs)
			refs[m->exports[i].index] = true;

	for (uint32_t i = m->nglobal_imports; i < m->nglobals; i++)
		if ((rc = check_const(m, &m->globals[i].init, m->globals[i].type.type,
		                      m->nglobal_imports, e)))
			return rc;

	for (uint32_t i = 0; i < m->nelems; i++) {
		const wasm_elem *el = &m->elems[i];
		if (el->mode == WASM_SEG_ACTIVE) {
			if (el->table >= m->ntables)
				return mfail(e, el->offset_in_file, "unknown table %u in elem segment %u", el->table, i);
			if (m->tables[el->table].elemtype != el->type)
				return mfail(e, el->offset_in_file, "type mismatch: elem segment %u of %s for a table of %s",
				             i, wasm_valtype_name(el->type),
				             wasm_valtype_name(m->tables[el->table].elemtype));
			if ((rc = check_const(m, &el->offset, WASM_I32, m->nglobal_imports, e)))
				return rc;
		}
		for (uint32_t j = 0; j < el->ninit; j++)
			if ((rc = check_const(m, &el->init[j], el->type, m->nglobal_imports, e)))
				return rc;
	}
	for (uint32_t i = 0; i < m->ndatas; i++) {
		const wasm_data *d = &m->datas[i];
		if (d->mode != WASM_SEG_ACTIVE)
			continue;
		if (d->mem >= m->nmems)
			return mfail(e, d->offset_in_file, "unknown memory %u in data segment %u", d->mem, i);
		if ((rc = check_const(m, &d->offset, WASM_I32, m->nglobal_imports, e)))
			return rc;
	}

	if (m->has_start) {
		if (m->start >= m->nfuncs)
			return mfail(e, 0, "unknown function %u as start", m->start);
		const wasm_functype *ft = &m->types[m->func_types[m->start]];
		if (ft->nparams || ft->nresults)
			return mfail(e, 0, "start function %u must have type [] -> []", m->start);
	}

	static const char *const kinds[] = { "function", "table", "memory", "global", "tag" };
	for (uint32_t i = 0; i < m->nexports; i++) {
		const wasm_export *x = &m->exports[i];
		uint32_t n = x->kind == WASM_EXTERN_FUNC ? m->nfuncs :
		             x->kind == WASM_EXTERN_TABLE ? m->ntables :
		             x->kind == WASM_EXTERN_MEMORY ? m->nmems :
		             x->kind == WASM_EXTERN_TAG ? m->ntags : m->nglobals;
		if (x->index >= n)
			return mfail(e, 0, "unknown %s %u in export \"%s\"", kinds[x->kind % 5], x->index, x->name);
	}
	if (m->nexports > 1) {
		const wasm_export **v = malloc(m->nexports * sizeof *v);
		if (!v) {
			e->code = WASM_ERR_NOMEM;
			snprintf(e->msg, sizeof e->msg, "out of memory");
			return WASM_ERR_NOMEM;
		}
		for (uint32_t i = 0; i < m->nexports; i++)
			v[i] = &m->exports[i];
		qsort(v, m->nexports, sizeof *v, cmp_export);
		for (uint32_t i = 1; i < m->nexports; i++)
			if (cmp_export(&v[i - 1], &v[i]) == 0) {
				rc = mfail(e, 0, "duplicate export name \"%s\"", v[i]->name);
				free(v);
				return rc;
			}
		free(v);
	}
	return 0;
}

int wasm_validate(const wasm_module *m, wasm_error *err)
{
	wasm_error dummy;
	if (!err)
		err = &dummy;
	memset(err, 0, sizeof *err);
	err->func = UINT32_MAX;
	if (!m->bodies_decoded && m->nfuncs > m->nfunc_imports) {
		err->code = WASM_ERR_INVALID;
		snprintf(err->msg, sizeof err->msg,
		         "wasm_validate: module was decoded without function bodies");
		return WASM_ERR_INVALID;
	}
	bool *refs = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *refs);
	if (!refs) {
		err->code = WASM_ERR_NOMEM;
		snprintf(err->msg, sizeof err->msg, "wasm_validate: out of memory");
		return WASM_ERR_NOMEM;
	}
	int rc = check_module(m, refs, err);
	vctx c = { .m = m, .err = err, .refs = refs };
	for (uint32_t i = 0; rc == 0 && i < m->nfuncs - m->nfunc_imports; i++)
		rc = check_body(&c, i);
	free(c.vals);
	free(c.ctl);
	free(refs);
	return rc;
}
