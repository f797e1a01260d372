/* xlate.c - WebAssembly -> C.
 *
 * Every operand-stack slot becomes a typed C local named after its height
 * and type (si3 is the i32 at height 3), so a block's results and a loop's
 * parameters simply stay in the slots at the block's base height and a
 * branch is a few copies and a goto.  Locals are l0.., parameters first.
 * The validator guarantees the typing, so the translator only tracks the
 * types it needs to name slots.  Code after br/return/unreachable is
 * skipped up to the end of its block. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xlate.h"
#include "prelude.h"
#include "ext.h"
#include "loop.h"
#include "../rt/rt.h"

/* ---- growable text buffer ------------------------------------------- */

typedef struct xbuf {
	char *p;
	size_t len, cap;
	bool oom;
} xbuf;

static void xb_grow(xbuf *b, size_t need)
{
	if (b->oom || b->len + need + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + need + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void xb_put(xbuf *b, const char *s, size_t n)
{
	xb_grow(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void xb_puts(xbuf *b, const char *s) { xb_put(b, s, strlen(s)); }

__attribute__((format(printf, 2, 3)))
static void xb_printf(xbuf *b, const char *fmt, ...)
{
	va_list ap;
	char tmp[512];
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		xb_put(b, tmp, (size_t)n);
		return;
	}
	xb_grow(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* ---- types ------------------------------------------------------------ */

static const char *ctype(uint8_t t)
{
	switch (t) {
	case WASM_I32: return "uint32_t";
	case WASM_I64: return "uint64_t";
	case WASM_F32: return "float";
	case WASM_F64: return "double";
	case WASM_V128: return "mw_v128";
	default: return "void *";
	}
}

/* Letter in slot names; both reference types share the pointer slots. */
static char tchar(uint8_t t)
{
	switch (t) {
	case WASM_I32: return 'i';
	case WASM_I64: return 'j';
	case WASM_F32: return 'f';
	case WASM_F64: return 'd';
	case WASM_V128: return 'v';
	default: return 'r';
	}
}

static int tslot(uint8_t t)
{
	switch (t) {
	case WASM_I32: return 0;
	case WASM_I64: return 1;
	case WASM_F32: return 2;
	case WASM_F64: return 3;
	case WASM_V128: return 5;
	default: return 4;
	}
}

/* Member of mw_value. */
static const char *vmember(uint8_t t)
{
	switch (t) {
	case WASM_I32: return "i32";
	case WASM_I64: return "i64";
	case WASM_F32: return "f32";
	case WASM_F64: return "f64";
	case WASM_V128: return "v128";
	default: return "ref";
	}
}

static char sigletter(uint8_t t)
{
	switch (t) {
	case WASM_I32: return 'i';
	case WASM_I64: return 'I';
	case WASM_F32: return 'f';
	case WASM_F64: return 'F';
	case WASM_FUNCREF: return 'r';
	case WASM_EXTERNREF: return 'e';
	default: return 'V';
	}
}

static void put_results_struct_name(xbuf *b, const wasm_functype *ft)
{
	xb_puts(b, "struct mw_r_");
	for (uint32_t i = 0; i < ft->nresults; i++)
		xb_put(b, &(char){sigletter(ft->results[i])}, 1);
}

static void put_ret_type(xbuf *b, const wasm_functype *ft)
{
	if (ft->nresults == 0)
		xb_puts(b, "void");
	else if (ft->nresults == 1)
		xb_puts(b, ctype(ft->results[0]));
	else
		put_results_struct_name(b, ft);
}

/* "R (*)(void *, P...)" */
static void put_fnptr_type(xbuf *b, const wasm_functype *ft)
{
	put_ret_type(b, ft);
	xb_puts(b, " (*)(void *");
	for (uint32_t i = 0; i < ft->nparams; i++) {
		xb_puts(b, ", ");
		xb_puts(b, ctype(ft->params[i]));
	}
	xb_puts(b, ")");
}

/* Comment-safe copy of a name from the name section. */
static void put_comment_name(xbuf *b, const char *name)
{
	for (const char *s = name; *s; s++) {
		char c = *s;
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f ||
		    (c == '*' && s[1] == '/') || (c == '/' && s[1] == '*'))
			c = '?';
		xb_put(b, &c, 1);
	}
}

/* vol: NULL, or which locals are volatile (the definition of a function
 * with a try; the qualifier does not change the function's type). */
static void put_proto(xbuf *b, const wasm_module *m, uint32_t fi, const bool *vol)
{
	const wasm_functype *ft = &m->types[m->func_types[fi]];
	xb_puts(b, "MW_HIDDEN ");
	put_ret_type(b, ft);
	xb_printf(b, " mw_f%u(void *ctx_", fi);
	for (uint32_t i = 0; i < ft->nparams; i++)
		xb_printf(b, ", %s%s l%u", vol && vol[i] ? "volatile " : "",
		          ctype(ft->params[i]), i);
	xb_puts(b, ")");
}

/* Tier 0 (xlate_options.tier0): the function's first statement passes
 * the call on to its tier-1 copy once the runtime has stored that copy's
 * address in mw_up[] (rt_code_tier_up), so that direct calls, the
 * constant dispatch arrays, tables and host-side invokes, which all hold
 * the tier-0 address, reach tier 1.  The copy takes the same instance:
 * all state lives there.  A call already running stays in tier 0. */
static void put_redirect(xbuf *b, const wasm_module *m, uint32_t fi)
{
	const wasm_functype *ft = &m->types[m->func_types[fi]];
	xb_printf(b, "  void *const up_ = __atomic_load_n(&mw_up[%u], __ATOMIC_ACQUIRE);\n"
	          "  if (__builtin_expect(up_ != 0, 0)) %s((",
	          fi - m->nfunc_imports, ft->nresults ? "return " : "{ ");
	put_ret_type(b, ft);
	xb_puts(b, " (*)(void *");
	for (uint32_t i = 0; i < ft->nparams; i++)
		xb_printf(b, ", %s", ctype(ft->params[i]));
	xb_puts(b, "))up_)(ctx_");
	for (uint32_t i = 0; i < ft->nparams; i++)
		xb_printf(b, ", l%u", i);
	xb_puts(b, ft->nresults ? ");\n" : "); return; }\n");
}

/* ---- per-function translation ----------------------------------------- */

typedef struct ctl {
	uint32_t op;          /* BLOCK, LOOP, IF, or END for the function body */
	uint32_t id;          /* label number */
	uint32_t base;        /* stack height below the parameters */
	uint32_t np, nr;
	const uint8_t *pt, *rt;
	uint8_t single;       /* WASM_BLOCK_VAL result type */
	bool unreachable, has_else, used;
	bool versioned;       /* LOOP: a fast copy precedes it (X label after) */
	bool in_body;         /* TRY: in the try body, frame eh<frame> pushed */
	/* TRY: its handler frame eh<frame> and the copy ex<exn> of what its
	 * catch clause caught (for rethrow), numbered by nesting: tries in
	 * bodies at once need frames of their own, tries in catch clauses at
	 * once copies of their own, and no more */
	uint32_t frame, exn;
} ctl;

/* Constant tables.  A funcref table that is defined by the module, not
 * exported, and written by no instruction (table.set, table.grow,
 * table.fill, table.init, table.copy into it) holds, from the end of
 * instantiation on, exactly what its active element segments put there,
 * and nothing outside the instance can reach it: its contents are known
 * here.  For each function type that call_indirect uses on such a table,
 * the translator emits an array mw_ct<table>_<type> with, per element,
 * the address of the defined function there if its type matches and 0
 * otherwise (null, another type, an imported function).  call_indirect
 * then loads the target from that array and calls it with the caller's
 * own instance (a defined function's ctx); a 0 or an index past the end
 * takes the general path (mw_callee), which calls an imported function
 * or traps with the right kind.  A thread's instance (rt_instantiate_thread)
 * has its own copy of the table, initialized from the same segments. */
#define CT_NULL UINT32_MAX
#define CT_MAX_ELEMS 65536u      /* larger tables take the general path */

/* Dispatch through a table in linear memory.  C code calling through an
 * array of function pointers (`ops[prog[pc]](...)`) becomes, in wasm, an
 * i32.load of a table index from a static array that an active data
 * segment initializes, then call_indirect: one dependent load more than
 * the native call (the index, then the target), and when the call's
 * target is mispredicted the CPU waits for the whole chain (bench/kernels
 * indirect: 1.20x native; without that load, 1.00x).  For an i32.load
 * directly followed by a call_indirect on a constant table, whose address
 * is `e + K` (K an i32.const added just before, or the memarg offset),
 * the translator reads the words the data segments put at K, K+4, ... as
 * long as each is the index of a defined function of the call's type in
 * that table (at most SP_MAX), and emits an array mw_sp<id> of
 * {function, index} for them.  The call then takes its target from
 * mw_sp<id>[(address - K) / 4] when the address falls in that range and
 * the index loaded from memory equals the one recorded: the compare is off
 * the target's dependence chain (a predicted branch), so the chain is as
 * long as native.  Any other case (memory changed since, another address,
 * a passive segment) takes the constant-table path, so the words read
 * here are a guess, never trusted. */
#define SP_MAX 4096u
/* At most SP_TRIES distinct (table, type, address) are looked at per
 * module, each once (a hash of them, failures included): a module with
 * many such loads or many data segments translates in linear time. */
#define SP_TRIES 1024u
#define SP_HASH 2048u            /* a power of two, > SP_TRIES */

typedef struct spec {
	uint32_t table, type, k, n;   /* type: canonical; n entries from address k */
	uint32_t *idx;                /* [n] table indices; NULL: no array (n < 2) */
} spec;

typedef struct ctables {
	uint32_t **elems;      /* per table: NULL, or [lim.min] function indices (CT_NULL) */
	uint32_t *canon;       /* per type: the first type structurally equal to it */
	uint8_t *used;         /* [table * ntypes + canonical type]: an array is emitted */
	spec *sp;              /* dispatch arrays (mw_sp<k>), filled while translating;
	                        * tries that found none too (idx NULL) */
	uint32_t nsp, spcap;
	uint32_t *sphash;      /* [SP_HASH]: 0 or 1 + an index of sp */
} ctables;

typedef struct fx {
	const wasm_module *m;
	const wasm_func *f;
	uint32_t fi;               /* function index */
	xbuf *o;                   /* body text */
	uint8_t *st;               /* type of each stack slot */
	uint32_t h, stcap;
	uint32_t maxh[6];          /* highest slot used, + 1, per slot kind */
	ctl *cs;
	uint32_t ncs, cscap;
	uint32_t nlabels;
	uint8_t *local_types;
	uint32_t nlocals_total;
	uint32_t *callees;         /* defined functions called directly */
	uint32_t ncallees, calleecap;
	uint64_t *arrays;          /* constant-table and dispatch arrays used
	                              (their keys: put_ctables), declared in
	                              the function's unit, the others not */
	uint32_t narrays, arraycap;
	wasm_error *err;
	int rc;
	char names[8][24];
	unsigned nextname;
	const loop_plan *fast;     /* emitting this loop's fast copy */
	uint32_t fast_id;
	bool vec;                  /* a fast copy was emitted: MW_VEC */
	bool wide;                 /* one that rereads an array: MW_WIDE too */
	bool fastcheck;            /* a fast copy's check reads mm<k> */
	bool versioning;           /* make fast copies (xlate_options) */
	bool terminal;             /* xlate_options.terminal_traps */
	uint32_t nframes, nexns;   /* eh<k> and ex<k> used (ctl.frame, ctl.exn) */
	bool has_try, has_rethrow; /* in this function (translate_func's scan) */
	ctables *ct;               /* tables no instruction writes (ctables_find) */
	uint32_t spec;             /* the next call_indirect uses mw_sp<spec - 1> (sq_) */
	bool has_sq;               /* sq_ is used: declare it */
} fx;

static int fx_fail(fx *x, const wasm_instr *in, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fx_fail(fx *x, const wasm_instr *in, int code, const char *fmt, ...)
{
	if (x->rc)
		return x->rc;
	x->rc = code;
	if (x->err && x->err->code == WASM_OK) {
		x->err->code = code;
		x->err->offset = in ? in->offset : x->f->body_offset;
		x->err->func = x->fi;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(x->err->msg, sizeof x->err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Type of stack slot h.  After an allocation failure (x->rc set) heights
 * go on being tracked past the slot array, whose text is thrown away:
 * such slots read as i32 instead of past the array. */
static uint8_t slot_type(const fx *x, uint32_t h)
{
	return h < x->stcap ? x->st[h] : WASM_I32;
}

/* Name of stack slot h (valid until 8 more calls). */
static const char *S(fx *x, uint32_t h)
{
	char *n = x->names[x->nextname++ & 7];
	snprintf(n, 24, "s%c%u", tchar(slot_type(x, h)), h);
	return n;
}

static void push(fx *x, uint8_t t)
{
	if (x->h >= x->stcap) {
		uint32_t cap = x->stcap ? x->stcap * 2 : 64;
		uint8_t *p = realloc(x->st, cap);
		if (!p) {
			/* The height still moves, so the caller's S(x, x->h - 1)
			 * names a slot; slot_type keeps it off the array. */
			x->rc = WASM_ERR_NOMEM;
			x->h++;
			return;
		}
		x->st = p;
		x->stcap = cap;
	}
	x->st[x->h] = t;
	int k = tslot(t);
	if (x->h + 1 > x->maxh[k])
		x->maxh[k] = x->h + 1;
	x->h++;
}

static const uint8_t *ctl_results(const ctl *c)
{
	return c->nr == 1 && !c->rt ? &c->single : c->rt;
}

static ctl *ctl_push(fx *x, uint32_t op, const wasm_instr *in)
{
	if (x->ncs >= x->cscap) {
		uint32_t cap = x->cscap ? x->cscap * 2 : 32;
		ctl *p = realloc(x->cs, cap * sizeof *p);
		if (!p) {
			x->rc = WASM_ERR_NOMEM;
			return NULL;
		}
		x->cs = p;
		x->cscap = cap;
	}
	ctl *c = &x->cs[x->ncs++];
	memset(c, 0, sizeof *c);
	c->op = op;
	c->id = x->nlabels++;
	if (in) {
		switch (in->u.block.kind) {
		case WASM_BLOCK_EMPTY:
			break;
		case WASM_BLOCK_VAL:
			c->nr = 1;
			c->single = (uint8_t)in->u.block.type;
			break;
		default: {
			const wasm_functype *ft = &x->m->types[in->u.block.type];
			c->np = ft->nparams;
			c->nr = ft->nresults;
			c->pt = ft->params;
			c->rt = ft->results;
		}
		}
	}
	c->base = x->h - c->np;
	return c;
}

/* Copies the top n slots into the slots starting at dst. */
static void copy_down(fx *x, uint32_t dst, uint32_t n)
{
	uint32_t src = x->h - n;
	if (src == dst)
		return;
	for (uint32_t k = 0; k < n; k++)
		xb_printf(x->o, "s%c%u = s%c%u; ", tchar(slot_type(x, src + k)), dst + k,
		          tchar(slot_type(x, src + k)), src + k);
}

/* Leaving the bodies of the tries at control levels >= from: pop their
 * handler frames, i.e. restore what the outermost of them found. */
static void emit_try_leave(fx *x, uint32_t from)
{
	if (!x->has_try)
		return;
	for (uint32_t k = from; k < x->ncs; k++)
		if (x->cs[k].op == WASM_OP_TRY && x->cs[k].in_body) {
			xb_printf(x->o, "eh->top = eh%u.prev; ", x->cs[k].frame);
			return;
		}
}

/* Branch to the label `depth` levels out: copy its arity, goto. */
static void emit_br(fx *x, uint32_t depth)
{
	ctl *c = &x->cs[x->ncs - 1 - depth];
	c->used = true;
	emit_try_leave(x, x->ncs - 1 - depth);
	if (c->op == WASM_OP_LOOP) {
		copy_down(x, c->base, c->np);
		xb_printf(x->o, "goto L%u;", c->id);
	} else {
		copy_down(x, c->base, c->nr);
		xb_printf(x->o, "goto L%u;", c->id);
	}
}

static void emit_return(fx *x)
{
	const wasm_functype *ft = &x->m->types[x->m->func_types[x->fi]];
	uint32_t n = ft->nresults, b = x->h - n;
	emit_try_leave(x, 0);
	if (n == 0) {
		xb_puts(x->o, "return;");
	} else if (n == 1) {
		xb_printf(x->o, "return %s;", S(x, b));
	} else {
		xb_puts(x->o, "{ ");
		put_results_struct_name(x->o, ft);
		xb_puts(x->o, " r_; ");
		for (uint32_t k = 0; k < n; k++)
			xb_printf(x->o, "r_.r%u = %s; ", k, S(x, b + k));
		xb_puts(x->o, "return r_; }");
	}
}

/* Calls: args are the top nparams slots; results replace them. */
static void emit_call_tail(fx *x, const wasm_functype *ft, const char *callee,
                           const char *ctxexpr)
{
	uint32_t b = x->h - ft->nparams;
	xbuf *o = x->o;
	if (ft->nresults > 1) {
		xb_puts(o, "{ ");
		put_results_struct_name(o, ft);
		xb_puts(o, " r_ = ");
	} else if (ft->nresults == 1) {
		/* the result slot's type is set below; name it now */
		xb_printf(o, "s%c%u = ", tchar(ft->results[0]), b);
	}
	xb_printf(o, "%s(%s", callee, ctxexpr);
	for (uint32_t k = 0; k < ft->nparams; k++)
		xb_printf(o, ", %s", S(x, b + k));
	xb_puts(o, ");");
	x->h = b;
	for (uint32_t k = 0; k < ft->nresults; k++)
		push(x, ft->results[k]);
	if (ft->nresults > 1) {
		for (uint32_t k = 0; k < ft->nresults; k++)
			xb_printf(o, " %s = r_.r%u;", S(x, b + k), k);
		xb_puts(o, " }");
	}
}

/* The key of array mw_ct<t>_<y> (y canonical) or mw_sp<k> in fx.arrays
 * and put_ctables' `want`. */
static uint64_t ct_key(const wasm_module *m, uint32_t t, uint32_t y)
{
	return (uint64_t)t * m->ntypes + y;
}

static uint64_t sp_key(const wasm_module *m, uint32_t k)
{
	return (uint64_t)m->ntables * m->ntypes + k;
}

static void add_array(fx *x, uint64_t key)
{
	for (uint32_t i = 0; i < x->narrays; i++)
		if (x->arrays[i] == key)
			return;
	if (x->narrays >= x->arraycap) {
		uint32_t c = x->arraycap ? x->arraycap * 2 : 4;
		uint64_t *p = realloc(x->arrays, c * sizeof *p);
		if (!p) {
			x->rc = WASM_ERR_NOMEM;
			return;
		}
		x->arrays = p;
		x->arraycap = c;
	}
	x->arrays[x->narrays++] = key;
}

static void add_callee(fx *x, uint32_t fi)
{
	for (uint32_t i = 0; i < x->ncallees; i++)
		if (x->callees[i] == fi)
			return;
	if (x->ncallees >= x->calleecap) {
		uint32_t cap = x->calleecap ? x->calleecap * 2 : 8;
		uint32_t *p = realloc(x->callees, cap * sizeof *p);
		if (!p) {
			x->rc = WASM_ERR_NOMEM;
			return;
		}
		x->callees = p;
		x->calleecap = cap;
	}
	x->callees[x->ncallees++] = fi;
}

static void emit_call(fx *x, uint32_t fi)
{
	const wasm_module *m = x->m;
	const wasm_functype *ft = &m->types[m->func_types[fi]];
	char callee[160], ctxe[64];
	if (fi < m->nfunc_imports) {
		xbuf t = {0};
		xb_puts(&t, "((");
		put_fnptr_type(&t, ft);
		xb_printf(&t, ")inst->funcs[%u].fn)", fi);
		if (t.oom) {
			x->rc = WASM_ERR_NOMEM;
			return;
		}
		snprintf(ctxe, sizeof ctxe, "inst->funcs[%u].ctx", fi);
		emit_call_tail(x, ft, t.p, ctxe);
		free(t.p);
	} else {
		add_callee(x, fi);
		snprintf(callee, sizeof callee, "mw_f%u", fi);
		emit_call_tail(x, ft, callee, "inst");
	}
}

/* A table whose type has max == min can never grow, imported or not (an
 * import matches only a table of exactly that size and maximum): its size
 * is the constant min and its elems array never moves (rt.h, "Tables"). */
static bool table_fixed(const wasm_module *m, uint32_t table)
{
	const wasm_limits *l = &m->tables[table].lim;
	return l->has_max && l->max == l->min && l->min <= RT_TABLE_LIMIT;
}

static void emit_call_indirect(fx *x, uint32_t type, uint32_t table)
{
	const wasm_functype *ft = &x->m->types[type];
	x->h--;
	char key[32];
	uint64_t code = rt_type_code(ft);
	if (code)
		snprintf(key, sizeof key, "0x%llxull", (unsigned long long)code);
	else
		snprintf(key, sizeof key, "y%u", type);
	char el[48];
	if (table_fixed(x->m, table))
		snprintf(el, sizeof el, "e%u, %uu", table, (uint32_t)x->m->tables[table].lim.min);
	else
		snprintf(el, sizeof el, "t%u->elems, t%u->size", table, table);
	const uint32_t *ce = x->ct ? x->ct->elems[table] : NULL;
	xbuf t = {0};
	xb_puts(&t, "((");
	put_fnptr_type(&t, ft);
	xb_puts(&t, ce ? ")f_)" : ")c_->fn)");
	if (t.oom) {
		x->rc = WASM_ERR_NOMEM;
		return;
	}
	if (ce) {
		/* a constant table: the target from mw_ct<table>_<type>, else
		 * (0 or out of range) the general path */
		uint32_t n = (uint32_t)x->m->tables[table].lim.min;
		const char *i = S(x, x->h);
		xb_puts(x->o, "{ void *f_, *x_ = inst; ");
		if (x->spec) {
			/* the target from the dispatch array when the address and
			 * the index loaded are the recorded ones (see spec) */
			const spec *sp = &x->ct->sp[x->spec - 1];
			add_array(x, sp_key(x->m, x->spec - 1));
			xb_printf(x->o, "if (MW_LIKELY(sq_ < %uu && !(sq_ & 3) && mw_sp%u[sq_ >> 2].i == %s)) "
			          "f_ = mw_sp%u[sq_ >> 2].fn; else ",
			          sp->n * 4, x->spec - 1, i, x->spec - 1);
		}
		add_array(x, ct_key(x->m, table, x->ct->canon[type]));
		xb_printf(x->o, "if (MW_UNLIKELY(%s >= %uu || !(f_ = mw_ct%u_%u[%s]))) "
		          "{ const struct mw_tabent *c_ = mw_callee(%s, %s, %s, %u); f_ = c_->fn; x_ = c_->ctx; } ",
		          i, n, table, x->ct->canon[type], i, el, key, i, x->fi);
		emit_call_tail(x, ft, t.p, "x_");
	} else {
		xb_printf(x->o, "{ const struct mw_tabent *c_ = mw_callee(%s, %s, %s, %u); ",
		          el, key, S(x, x->h), x->fi);
		emit_call_tail(x, ft, t.p, "c_->ctx");
	}
	free(t.p);
	xb_puts(x->o, " }");
	x->spec = 0;
}

/* ---- exception handling (the design is in rt.h) ------------------------- */

/* The tag's type, or NULL after failing on a tag with more values than
 * an exception can carry (RT_EH_MAXVALS). */
static const wasm_functype *tag_type(fx *x, const wasm_instr *in)
{
	const wasm_functype *tt = &x->m->types[x->m->tags[in->u.index]];
	if (tt->nparams > RT_EH_MAXVALS) {
		fx_fail(x, in, WASM_ERR_LIMIT, "tag %u carries %u values, the limit is %u",
		        in->u.index, tt->nparams, RT_EH_MAXVALS);
		return NULL;
	}
	return tt;
}

/* The body of try c ends here (at its first catch clause, its delegate or
 * its end): the normal exit pops the frame and goes to the end; the
 * landing pad H<id>, entered from mw_eh_throw, pops it too. */
static void emit_try_body_end(fx *x, ctl *c)
{
	if (!c->unreachable) {
		xb_printf(x->o, "eh->top = eh%u.prev; goto L%u;", c->frame, c->id);
		c->used = true;
	}
	xb_printf(x->o, "\n H%u: eh->top = eh%u.prev;", c->id, c->frame);
	c->in_body = false;
	c->unreachable = true;
}

/* After the landing pad of try c: the catch clauses from instruction
 * `first` on, in order, each tried against the exception; the first that
 * matches gets its values in its stack slots and control.  No match: on
 * to the next handler. */
static void emit_dispatch(fx *x, ctl *c, uint32_t first)
{
	const wasm_func *f = x->f;
	if (x->has_rethrow)
		xb_printf(x->o, " ex%u = eh->exn;", c->exn);
	uint32_t depth = 0;
	for (uint32_t j = first; j < f->ncode; j++) {
		const wasm_instr *in = &f->code[j];
		switch (in->op) {
		case WASM_OP_BLOCK: case WASM_OP_LOOP: case WASM_OP_IF: case WASM_OP_TRY:
			depth++;
			continue;
		case WASM_OP_DELEGATE:
			depth--;
			continue;
		case WASM_OP_END:
			if (depth-- == 0)
				break;
			continue;
		case WASM_OP_CATCH: {
			if (depth)
				continue;
			const wasm_functype *tt = tag_type(x, in);
			if (!tt)
				return;
			xb_printf(x->o, "\n  if (eh->exn.inst == inst && eh->exn.tag == %uu) { ",
			          in->u.index);
			for (uint32_t k = 0; k < tt->nparams; k++) {
				uint8_t t = tt->params[k];
				if (t == WASM_V128)
					xb_printf(x->o, "sv%u = mw_v128_get(eh->exn.vals[%u].v128); ",
					          c->base + k, k);
				else
					xb_printf(x->o, "s%c%u = eh->exn.vals[%u].%s; ", tchar(t),
					          c->base + k, k, vmember(t));
			}
			xb_printf(x->o, "goto C%u; }", j);
			continue;
		}
		case WASM_OP_CATCH_ALL:
			if (depth)
				continue;
			xb_printf(x->o, "\n  goto C%u;", j);
			return;
		default:
			continue;
		}
		break;
	}
	xb_puts(x->o, "\n  mw_eh_throw(eh);");
}

/* A catch clause starts: its values (catch x) on the try's stack base. */
static void emit_clause(fx *x, ctl *c, const wasm_instr *in, uint32_t i)
{
	xb_printf(x->o, "\n C%u:;", i);
	x->h = c->base;
	if (in->op == WASM_OP_CATCH) {
		const wasm_functype *tt = tag_type(x, in);
		for (uint32_t k = 0; tt && k < tt->nparams; k++)
			push(x, tt->params[k]);
	}
	c->unreachable = false;
}

/* delegate closes try c (the innermost control level): an exception in
 * its body goes to the handler of the innermost try body at or outside
 * the label, else out of the function. */
static void emit_delegate(fx *x, ctl *c, uint32_t label)
{
	emit_try_body_end(x, c);
	uint32_t t = x->ncs - 2 - label;
	for (uint32_t k = t + 1; k-- > 0;)
		if (x->cs[k].op == WASM_OP_TRY && x->cs[k].in_body) {
			xb_printf(x->o, " goto H%u;", x->cs[k].id);
			return;
		}
	xb_puts(x->o, " ");
	emit_try_leave(x, 0);
	xb_puts(x->o, "mw_eh_throw(eh);");
}

static void emit_throw(fx *x, const wasm_instr *in)
{
	const wasm_functype *tt = tag_type(x, in);
	if (!tt)
		return;
	uint32_t b = x->h - tt->nparams;
	xb_printf(x->o, "{ struct mw_eh *e_ = %s; e_->exn.inst = inst; e_->exn.tag = %uu;"
	          " e_->exn.func = %uu; ", x->has_try ? "eh" : "&rt_eh_tls",
	          in->u.index, x->fi);
	for (uint32_t k = 0; k < tt->nparams; k++) {
		uint8_t t = tt->params[k];
		if (t == WASM_V128)
			xb_printf(x->o, "mw_v128_put(e_->exn.vals[%u].v128, %s); ", k, S(x, b + k));
		else
			xb_printf(x->o, "e_->exn.vals[%u].%s = %s; ", k, vmember(t), S(x, b + k));
	}
	xb_puts(x->o, "mw_eh_throw(e_); }");
	x->h = b;
}

/* Expression templates for instructions with a fixed signature:
 * $a $b $c are the operands (deepest first), $F the function index. */
static const char *tmpl(uint32_t op)
{
	switch (op) {
	case WASM_OP_NOP: return "";
	case WASM_OP_I32_EQZ: return "$a == 0";
	case WASM_OP_I32_EQ: return "$a == $b";
	case WASM_OP_I32_NE: return "$a != $b";
	case WASM_OP_I32_LT_S: return "(int32_t)$a < (int32_t)$b";
	case WASM_OP_I32_LT_U: return "$a < $b";
	case WASM_OP_I32_GT_S: return "(int32_t)$a > (int32_t)$b";
	case WASM_OP_I32_GT_U: return "$a > $b";
	case WASM_OP_I32_LE_S: return "(int32_t)$a <= (int32_t)$b";
	case WASM_OP_I32_LE_U: return "$a <= $b";
	case WASM_OP_I32_GE_S: return "(int32_t)$a >= (int32_t)$b";
	case WASM_OP_I32_GE_U: return "$a >= $b";
	case WASM_OP_I64_EQZ: return "$a == 0";
	case WASM_OP_I64_EQ: return "$a == $b";
	case WASM_OP_I64_NE: return "$a != $b";
	case WASM_OP_I64_LT_S: return "(int64_t)$a < (int64_t)$b";
	case WASM_OP_I64_LT_U: return "$a < $b";
	case WASM_OP_I64_GT_S: return "(int64_t)$a > (int64_t)$b";
	case WASM_OP_I64_GT_U: return "$a > $b";
	case WASM_OP_I64_LE_S: return "(int64_t)$a <= (int64_t)$b";
	case WASM_OP_I64_LE_U: return "$a <= $b";
	case WASM_OP_I64_GE_S: return "(int64_t)$a >= (int64_t)$b";
	case WASM_OP_I64_GE_U: return "$a >= $b";
	case WASM_OP_F32_EQ: case WASM_OP_F64_EQ: return "$a == $b";
	case WASM_OP_F32_NE: case WASM_OP_F64_NE: return "$a != $b";
	case WASM_OP_F32_LT: case WASM_OP_F64_LT: return "$a < $b";
	case WASM_OP_F32_GT: case WASM_OP_F64_GT: return "$a > $b";
	case WASM_OP_F32_LE: case WASM_OP_F64_LE: return "$a <= $b";
	case WASM_OP_F32_GE: case WASM_OP_F64_GE: return "$a >= $b";

	case WASM_OP_I32_CLZ: return "mw_clz32($a)";
	case WASM_OP_I32_CTZ: return "mw_ctz32($a)";
	case WASM_OP_I32_POPCNT: return "(uint32_t)__builtin_popcount($a)";
	case WASM_OP_I32_ADD: case WASM_OP_I64_ADD: return "$a + $b";
	case WASM_OP_I32_SUB: case WASM_OP_I64_SUB: return "$a - $b";
	case WASM_OP_I32_MUL: case WASM_OP_I64_MUL: return "$a * $b";
	case WASM_OP_I32_DIV_S: return "mw_div_s32($a, $b, $F)";
	case WASM_OP_I32_DIV_U: return "mw_div_u32($a, $b, $F)";
	case WASM_OP_I32_REM_S: return "mw_rem_s32($a, $b, $F)";
	case WASM_OP_I32_REM_U: return "mw_rem_u32($a, $b, $F)";
	case WASM_OP_I32_AND: case WASM_OP_I64_AND: return "$a & $b";
	case WASM_OP_I32_OR: case WASM_OP_I64_OR: return "$a | $b";
	case WASM_OP_I32_XOR: case WASM_OP_I64_XOR: return "$a ^ $b";
	case WASM_OP_I32_SHL: return "$a << ($b & 31)";
	case WASM_OP_I32_SHR_S: return "(uint32_t)((int32_t)$a >> ($b & 31))";
	case WASM_OP_I32_SHR_U: return "$a >> ($b & 31)";
	case WASM_OP_I32_ROTL: return "mw_rotl32($a, $b)";
	case WASM_OP_I32_ROTR: return "mw_rotr32($a, $b)";
	case WASM_OP_I64_CLZ: return "mw_clz64($a)";
	case WASM_OP_I64_CTZ: return "mw_ctz64($a)";
	case WASM_OP_I64_POPCNT: return "(uint64_t)__builtin_popcountll($a)";
	case WASM_OP_I64_DIV_S: return "mw_div_s64($a, $b, $F)";
	case WASM_OP_I64_DIV_U: return "mw_div_u64($a, $b, $F)";
	case WASM_OP_I64_REM_S: return "mw_rem_s64($a, $b, $F)";
	case WASM_OP_I64_REM_U: return "mw_rem_u64($a, $b, $F)";
	case WASM_OP_I64_SHL: return "$a << ($b & 63)";
	case WASM_OP_I64_SHR_S: return "(uint64_t)((int64_t)$a >> ($b & 63))";
	case WASM_OP_I64_SHR_U: return "$a >> ($b & 63)";
	case WASM_OP_I64_ROTL: return "mw_rotl64($a, $b)";
	case WASM_OP_I64_ROTR: return "mw_rotr64($a, $b)";

	case WASM_OP_F32_ABS: return "mw_f32_abs($a)";
	case WASM_OP_F32_NEG: return "mw_f32_neg($a)";
	case WASM_OP_F32_CEIL: return "__builtin_ceilf($a)";
	case WASM_OP_F32_FLOOR: return "__builtin_floorf($a)";
	case WASM_OP_F32_TRUNC: return "__builtin_truncf($a)";
	case WASM_OP_F32_NEAREST: return "__builtin_rintf($a)";
	case WASM_OP_F32_SQRT: return "__builtin_sqrtf($a)";
	case WASM_OP_F32_ADD: case WASM_OP_F64_ADD: return "$a + $b";
	case WASM_OP_F32_SUB: case WASM_OP_F64_SUB: return "$a - $b";
	case WASM_OP_F32_MUL: case WASM_OP_F64_MUL: return "$a * $b";
	case WASM_OP_F32_DIV: case WASM_OP_F64_DIV: return "$a / $b";
	case WASM_OP_F32_MIN: return "mw_f32_min($a, $b)";
	case WASM_OP_F32_MAX: return "mw_f32_max($a, $b)";
	case WASM_OP_F32_COPYSIGN: return "mw_f32_copysign($a, $b)";
	case WASM_OP_F64_ABS: return "mw_f64_abs($a)";
	case WASM_OP_F64_NEG: return "mw_f64_neg($a)";
	case WASM_OP_F64_CEIL: return "__builtin_ceil($a)";
	case WASM_OP_F64_FLOOR: return "__builtin_floor($a)";
	case WASM_OP_F64_TRUNC: return "__builtin_trunc($a)";
	case WASM_OP_F64_NEAREST: return "__builtin_rint($a)";
	case WASM_OP_F64_SQRT: return "__builtin_sqrt($a)";
	case WASM_OP_F64_MIN: return "mw_f64_min($a, $b)";
	case WASM_OP_F64_MAX: return "mw_f64_max($a, $b)";
	case WASM_OP_F64_COPYSIGN: return "mw_f64_copysign($a, $b)";

	case WASM_OP_I32_WRAP_I64: return "(uint32_t)$a";
	case WASM_OP_I32_TRUNC_F32_S: return "mw_i32_trunc_f32_s($a, $F)";
	case WASM_OP_I32_TRUNC_F32_U: return "mw_i32_trunc_f32_u($a, $F)";
	case WASM_OP_I32_TRUNC_F64_S: return "mw_i32_trunc_f64_s($a, $F)";
	case WASM_OP_I32_TRUNC_F64_U: return "mw_i32_trunc_f64_u($a, $F)";
	case WASM_OP_I64_EXTEND_I32_S: return "(uint64_t)(int64_t)(int32_t)$a";
	case WASM_OP_I64_EXTEND_I32_U: return "(uint64_t)$a";
	case WASM_OP_I64_TRUNC_F32_S: return "mw_i64_trunc_f32_s($a, $F)";
	case WASM_OP_I64_TRUNC_F32_U: return "mw_i64_trunc_f32_u($a, $F)";
	case WASM_OP_I64_TRUNC_F64_S: return "mw_i64_trunc_f64_s($a, $F)";
	case WASM_OP_I64_TRUNC_F64_U: return "mw_i64_trunc_f64_u($a, $F)";
	case WASM_OP_F32_CONVERT_I32_S: return "(float)(int32_t)$a";
	case WASM_OP_F32_CONVERT_I32_U: return "(float)$a";
	case WASM_OP_F32_CONVERT_I64_S: return "(float)(int64_t)$a";
	case WASM_OP_F32_CONVERT_I64_U: return "(float)$a";
	case WASM_OP_F32_DEMOTE_F64: return "mw_demote($a)";
	case WASM_OP_F64_CONVERT_I32_S: return "(double)(int32_t)$a";
	case WASM_OP_F64_CONVERT_I32_U: return "(double)$a";
	case WASM_OP_F64_CONVERT_I64_S: return "(double)(int64_t)$a";
	case WASM_OP_F64_CONVERT_I64_U: return "(double)$a";
	case WASM_OP_F64_PROMOTE_F32: return "mw_promote($a)";
	case WASM_OP_I32_REINTERPRET_F32: return "mw_f32_bits($a)";
	case WASM_OP_I64_REINTERPRET_F64: return "mw_f64_bits($a)";
	case WASM_OP_F32_REINTERPRET_I32: return "mw_f32_of($a)";
	case WASM_OP_F64_REINTERPRET_I64: return "mw_f64_of($a)";
	case WASM_OP_I32_EXTEND8_S: return "(uint32_t)(int32_t)(int8_t)$a";
	case WASM_OP_I32_EXTEND16_S: return "(uint32_t)(int32_t)(int16_t)$a";
	case WASM_OP_I64_EXTEND8_S: return "(uint64_t)(int64_t)(int8_t)$a";
	case WASM_OP_I64_EXTEND16_S: return "(uint64_t)(int64_t)(int16_t)$a";
	case WASM_OP_I64_EXTEND32_S: return "(uint64_t)(int64_t)(int32_t)$a";
	case WASM_OP_I32_TRUNC_SAT_F32_S: return "mw_i32_trunc_sat_f32_s($a)";
	case WASM_OP_I32_TRUNC_SAT_F32_U: return "mw_i32_trunc_sat_f32_u($a)";
	case WASM_OP_I32_TRUNC_SAT_F64_S: return "mw_i32_trunc_sat_f64_s($a)";
	case WASM_OP_I32_TRUNC_SAT_F64_U: return "mw_i32_trunc_sat_f64_u($a)";
	case WASM_OP_I64_TRUNC_SAT_F32_S: return "mw_i64_trunc_sat_f32_s($a)";
	case WASM_OP_I64_TRUNC_SAT_F32_U: return "mw_i64_trunc_sat_f32_u($a)";
	case WASM_OP_I64_TRUNC_SAT_F64_S: return "mw_i64_trunc_sat_f64_s($a)";
	case WASM_OP_I64_TRUNC_SAT_F64_U: return "mw_i64_trunc_sat_f64_u($a)";
	default: return NULL;
	}
}

/* An instruction with a fixed signature and an expression template. */
static void emit_simple(fx *x, const wasm_instr *in, const char *sig, const char *t)
{
	const char *colon = strchr(sig, ':');
	uint32_t npop = (uint32_t)(colon - sig);
	uint32_t b = x->h - npop;
	char ops[3][24] = {{0}};
	for (uint32_t k = 0; k < npop && k < 3; k++)
		snprintf(ops[k], sizeof ops[k], "%s", S(x, b + k));
	x->h = b;
	const char *res = colon + 1;
	xbuf *o = x->o;
	if (*res) {
		push(x, wasm_sig_type(*res));
		xb_printf(o, "%s = ", S(x, b));
	}
	for (const char *p = t; *p; p++) {
		if (*p == '$' && p[1]) {
			p++;
			if (*p == 'F')
				xb_printf(o, "%uu", x->fi);
			else if (*p >= 'a' && *p <= 'c')
				xb_puts(o, ops[*p - 'a']);
			continue;
		}
		xb_put(o, p, 1);
	}
	xb_puts(o, ";");
	(void)in;
}

static void put_f32_const(xbuf *o, uint32_t bits)
{
	float f;
	memcpy(&f, &bits, 4);
	if ((bits & 0x7f800000u) == 0x7f800000u)
		xb_printf(o, "mw_f32_of(0x%08xu)", bits);
	else
		xb_printf(o, "%af", (double)f);
}

static void put_f64_const(xbuf *o, uint64_t bits)
{
	double d;
	memcpy(&d, &bits, 8);
	if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull)
		xb_printf(o, "mw_f64_of(0x%016llxull)", (unsigned long long)bits);
	else
		xb_printf(o, "%a", d);
}

/* Compilers that ignore -fsignaling-nans (clang) fold x*1, x/1, x+-0,
 * -0-x, x*-1 to x or -x, which keeps a signalling NaN signalling where
 * WebAssembly must return a quiet one.  So no float the compiler could
 * know at compile time may reach an arithmetic instruction: every float
 * constant, and every float made from an integer (convert, reinterpret)
 * or from the other float type, goes through MW_OPAQUE (a no-op for gcc,
 * which honours -fsignaling-nans; no instruction for the others).  Any
 * other float derives from these, from memory, globals, parameters or
 * calls, none of which the compiler can know. */
static bool float_source(uint32_t op)
{
	switch (op) {
	case WASM_OP_F32_CONST: case WASM_OP_F64_CONST:
	case WASM_OP_F32_CONVERT_I32_S: case WASM_OP_F32_CONVERT_I32_U:
	case WASM_OP_F32_CONVERT_I64_S: case WASM_OP_F32_CONVERT_I64_U:
	case WASM_OP_F64_CONVERT_I32_S: case WASM_OP_F64_CONVERT_I32_U:
	case WASM_OP_F64_CONVERT_I64_S: case WASM_OP_F64_CONVERT_I64_U:
	case WASM_OP_F32_DEMOTE_F64: case WASM_OP_F64_PROMOTE_F32:
	case WASM_OP_F32_REINTERPRET_I32: case WASM_OP_F64_REINTERPRET_I64:
		return true;
	default:
		return false;
	}
}

static uint32_t access_size(uint32_t op)
{
	switch (op) {
	case WASM_OP_I32_LOAD8_S: case WASM_OP_I32_LOAD8_U:
	case WASM_OP_I64_LOAD8_S: case WASM_OP_I64_LOAD8_U:
		return 1;
	case WASM_OP_I32_LOAD16_S: case WASM_OP_I32_LOAD16_U:
	case WASM_OP_I64_LOAD16_S: case WASM_OP_I64_LOAD16_U:
		return 2;
	case WASM_OP_I64_LOAD: case WASM_OP_F64_LOAD:
		return 8;
	default:
		return 4;
	}
}

/* ---- loop versioning (loop.h) ------------------------------------------ */

static int emit_instr(fx *x, uint32_t *pi);

/* The fast copy's address of access i: the exact 64-bit integer that the
 * check before the loop proved equal to the wasm address. */
static bool fast_addr(fx *x, const wasm_instr *in, char *buf, size_t len)
{
	const loop_plan *p = x->fast;
	if (!p)
		return false;
	uint32_t i = (uint32_t)(in - x->f->code);
	if (i <= p->start || i >= p->end || !p->acc[i - p->start].is)
		return false;
	const loop_acc *a = &p->acc[i - p->start];
	char base[24] = "0";
	if (a->inv < LOOP_MAXINV)
		snprintf(base, sizeof base, "fb%u_%u", x->fast_id, a->inv);
	snprintf(buf, len, "(%s + %lld * fv%u + %lld)", base, (long long)a->k, x->fast_id,
	         (long long)a->c);
	return true;
}

typedef struct lanespec {
	const char *t, *vt, *ld, *st, *fp;   /* fp: scalar helper prefix, floats */
	const char *st_;                     /* signed lane type, integers */
	unsigned n, w;
} lanespec;

static const lanespec lanespecs[] = {
	[LANES_F64] = { "double", "mw_xf64", "mw_ld_f64", "mw_st_f64", "mw_f64", NULL, 2, 8 },
	[LANES_F32] = { "float", "mw_xf32", "mw_ld_f32", "mw_st_f32", "mw_f32", NULL, 4, 4 },
	[LANES_I64] = { "uint64_t", "mw_xu64", "mw_ld_u64", "mw_st_u64", NULL, "int64_t", 2, 8 },
	[LANES_I32] = { "uint32_t", "mw_xu32", "mw_ld_u32", "mw_st_u32", NULL, "int32_t", 4, 4 },
};

/* Whether the fast copy being emitted writes v128 local `local` (then it
 * lives in r<local>_<lane> for the copy's length: emit_fast_loop). */
static bool lanes_carried(const fx *x, uint32_t local)
{
	for (uint32_t k = 0; k < x->fast->nvl; k++)
		if (x->fast->vl[k] == local)
			return true;
	return false;
}

/* local.get of a v128 local, lane by lane: an invariant one from its
 * vector, one the loop writes from its lane scalars. */
static void emit_lanes_local(fx *x, uint32_t local)
{
	const lanespec *ls = &lanespecs[x->fast->lanes];
	push(x, WASM_V128);
	bool r = lanes_carried(x, local);
	for (unsigned l = 0; l < ls->n; l++) {
		if (r)
			xb_printf(x->o, "q%u_%u = r%u_%u; ", x->h - 1, l, local, l);
		else
			xb_printf(x->o, "q%u_%u = ((%s)l%u)[%u]; ", x->h - 1, l, ls->vt, local, l);
	}
}

/* local.set / local.tee of a v128 local in a lane-wise copy. */
static void emit_lanes_set(fx *x, uint32_t local, bool tee)
{
	const lanespec *ls = &lanespecs[x->fast->lanes];
	uint32_t b = x->h - 1;
	for (unsigned l = 0; l < ls->n; l++)
		xb_printf(x->o, "r%u_%u = q%u_%u; ", local, l, b, l);
	if (!tee)
		x->h--;
}

/* A SIMD instruction of a fast copy whose v128 values live in one scalar
 * per lane (q<slot>_<lane>), so the C compiler sees plain scalar loops it
 * can vectorize at the host's full width.  loop.c admitted only the
 * lane-wise instructions handled here. */
static void emit_lanes(fx *x, const wasm_instr *in, const wasm_opinfo *oi)
{
	const lanespec *ls = &lanespecs[x->fast->lanes];
	const char *colon = strchr(oi->sig, ':'), *name = oi->name;
	uint32_t npop = (uint32_t)(colon - oi->sig), b = x->h - npop;
	xbuf *o = x->o;
	char sc[24] = "";
	if (npop >= 1 && slot_type(x, b + npop - 1) != WASM_V128)
		snprintf(sc, sizeof sc, "%s", S(x, b + npop - 1));
	x->h = b;
	if (colon[1])
		push(x, wasm_sig_type(colon[1]));
	const char *op = strchr(name, '.') + 1;
	bool isv = !strncmp(name, "v128.", 5);
	char fa[160];
	for (unsigned l = 0; l < ls->n; l++) {
		if (isv && (!strcmp(op, "load") || !strcmp(op, "store"))) {
			fast_addr(x, in, fa, sizeof fa);
			uint64_t off = (uint64_t)in->u.mem.offset + (uint64_t)l * ls->w;
			if (op[0] == 'l')
				xb_printf(o, "q%u_%u = %s(m%u, (uint64_t)%s + %lluu); ", b, l, ls->ld,
				          in->u.mem.mem, fa, (unsigned long long)off);
			else
				xb_printf(o, "%s(m%u, (uint64_t)%s + %lluu, q%u_%u); ", ls->st,
				          in->u.mem.mem, fa, (unsigned long long)off, b + 1, l);
		} else if (isv && !strcmp(op, "const")) {
			xb_printf(o, "q%u_%u = ", b, l);
			uint64_t v = 0;
			memcpy(&v, in->u.v128 + l * ls->w, ls->w);
			if (x->fast->lanes == LANES_F64)
				put_f64_const(o, v);
			else if (x->fast->lanes == LANES_F32)
				put_f32_const(o, (uint32_t)v);
			else
				xb_printf(o, "0x%llxull", (unsigned long long)v);
			if (ls->fp)
				xb_printf(o, "; MW_OPAQUE(q%u_%u)", b, l);
			xb_puts(o, "; ");
		} else if (isv && !strcmp(op, "not")) {
			xb_printf(o, "q%u_%u = ~q%u_%u; ", b, l, b, l);
		} else if (isv) {           /* and, or, xor */
			char c = op[0] == 'a' ? '&' : op[0] == 'o' ? '|' : '^';
			xb_printf(o, "q%u_%u = q%u_%u %c q%u_%u; ", b, l, b, l, c, b + 1, l);
		} else if (!strcmp(op, "splat")) {
			xb_printf(o, "q%u_%u = %s; ", b, l, sc);
		} else if (!strcmp(op, "extract_lane")) {
			if (l == in->u.lane) {
				xb_printf(o, "%s = q%u_%u;", S(x, b), b, l);
				if (ls->fp)
					xb_printf(o, " MW_OPAQUE(%s);", S(x, b));
			}
		} else if (!strcmp(op, "replace_lane")) {
			if (l == in->u.lane)
				xb_printf(o, "q%u_%u = %s; ", b, l, sc);
		} else if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul") ||
		           !strcmp(op, "div")) {
			char c = op[0] == 'a' ? '+' : op[0] == 's' ? '-' : op[0] == 'm' ? '*' : '/';
			xb_printf(o, "q%u_%u = q%u_%u %c q%u_%u; ", b, l, b, l, c, b + 1, l);
		} else if (!strcmp(op, "min") || !strcmp(op, "max")) {
			xb_printf(o, "q%u_%u = %s_%s(q%u_%u, q%u_%u); ", b, l, ls->fp, op, b, l, b + 1, l);
		} else if (!strcmp(op, "pmin")) {
			xb_printf(o, "q%u_%u = q%u_%u < q%u_%u ? q%u_%u : q%u_%u; ", b, l,
			          b + 1, l, b, l, b + 1, l, b, l);
		} else if (!strcmp(op, "pmax")) {
			xb_printf(o, "q%u_%u = q%u_%u < q%u_%u ? q%u_%u : q%u_%u; ", b, l,
			          b, l, b + 1, l, b + 1, l, b, l);
		} else if (!strcmp(op, "neg") && ls->fp) {
			xb_printf(o, "q%u_%u = %s_neg(q%u_%u); ", b, l, ls->fp, b, l);
		} else if (!strcmp(op, "neg")) {
			xb_printf(o, "q%u_%u = -q%u_%u; ", b, l, b, l);
		} else if (!strcmp(op, "abs")) {
			xb_printf(o, "q%u_%u = %s_abs(q%u_%u); ", b, l, ls->fp, b, l);
		} else if (!strcmp(op, "shl") || !strcmp(op, "shr_u")) {
			xb_printf(o, "q%u_%u = q%u_%u %s (%s & %uu); ", b, l, b, l,
			          op[1] == 'h' && op[2] == 'l' ? "<<" : ">>", sc, ls->w * 8 - 1);
		} else if (!strcmp(op, "shr_s")) {
			xb_printf(o, "q%u_%u = (%s)((%s)q%u_%u >> (%s & %uu)); ", b, l, ls->t,
			          ls->st_, b, l, sc, ls->w * 8 - 1);
		} else if (ls->st_ && (!strcmp(op, "eq") || !strcmp(op, "ne") ||
		                       op[0] == 'l' || op[0] == 'g')) {
			/* eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u: all ones or 0 */
			const char *c = op[0] == 'e' ? "==" : op[0] == 'n' ? "!="
			              : op[0] == 'l' ? (op[1] == 't' ? "<" : "<=")
			              : (op[1] == 't' ? ">" : ">=");
			const char *cast = op[2] == '_' && op[3] == 's' ? ls->st_ : ls->t;
			xb_printf(o, "q%u_%u = -(%s)((%s)q%u_%u %s (%s)q%u_%u); ", b, l, ls->t,
			          cast, b, l, c, cast, b + 1, l);
		} else if (!strcmp(op, "sqrt")) {
			xb_printf(o, "q%u_%u = __builtin_sqrt%s(q%u_%u); ", b, l,
			          x->fast->lanes == LANES_F32 ? "f" : "", b, l);
		} else {
			fx_fail(x, in, WASM_ERR_UNSUPPORTED,
			        "translator: %s in a lane-wise loop copy (loop.c admitted it)", name);
			return;
		}
	}
}

/* Emits the fast copy of loop p, to run instead of the ordinary
 * translation (which follows it, label L<id>) when the check holds:
 *   - the induction variable's values iv0, iv0+s, ... stay on one side of
 *     2^32 (or of 2^31 when they cross zero as signed numbers) and reach
 *     the exit exactly, so a 64-bit counter fv<id> follows them;
 *   - for every access, base + k*iv + c is in [0, 2^32) and the access
 *     ends inside the memory, at the first and last iv (it is linear).
 * Then every address is that 64-bit integer and nothing in the loop can
 * trap (loop.c admits no other trapping instruction), so the C compiler
 * may reorder and vectorize the copy.  It ends with goto X<id>. */

/* Whether the fast copy of p loads from one base (same invariant, same
 * multiple of the induction variable) at two offsets at least one step
 * apart: a stencil, which reads again lines an earlier iteration loaded,
 * where the widest vectors pay (jacobi: 8-10% faster with 512 bits than
 * with 256), unlike a loop streaming each array once (triad: 512-bit
 * vectors slower than scalar code).  Offsets less than a step apart are
 * one stream unrolled (clang's -O2 unrolls by 2). */
static bool plan_rereads(const fx *x, const loop_plan *p)
{
	uint32_t n = p->end - p->start;
	for (uint32_t i = 0; i < n; i++) {
		const loop_acc *a = &p->acc[i];
		const wasm_opinfo *oi = wasm_opinfo_get(x->f->code[p->start + i].op);
		const char *colon = oi && oi->sig ? strchr(oi->sig, ':') : NULL;
		if (!a->is || !colon || !colon[1])
			continue;   /* not an affine load */
		int64_t stride = a->k * p->step;
		if (stride < 0)
			stride = -stride;
		for (uint32_t j = i + 1; stride && j < n; j++) {
			const loop_acc *b = &p->acc[j];
			const wasm_opinfo *oj = wasm_opinfo_get(x->f->code[p->start + j].op);
			const char *cj = oj && oj->sig ? strchr(oj->sig, ':') : NULL;
			if (!b->is || !cj || !cj[1] || b->inv != a->inv || b->mem != a->mem || b->k != a->k)
				continue;
			int64_t d = (b->c + (int64_t)x->f->code[p->start + j].u.mem.offset) -
			            (a->c + (int64_t)x->f->code[p->start + i].u.mem.offset);
			if (d >= stride || -d >= stride)
				return true;
		}
	}
	return false;
}

static void emit_fast_loop(fx *x, const loop_plan *p, uint32_t id)
{
	xbuf *o = x->o;
	long long s = (long long)p->step;
	xb_printf(o, "{ /* loop versioning: the copy F%u runs if no address wraps and none is out of bounds */\n", id);
	xb_printf(o, "    const uint%d_t fu%u = l%u, fq%u = %s;\n", p->wide ? 64 : 32, id, p->iv, id,
	          p->kexpr);
	xb_printf(o, "    int64_t fv%u = 0, fk%u = 0; int fo%u = 0;\n", id, id, id);
	/* +10: an i64 counter, +20 and +30: an i64 and an i32 counting down.
	 * An i64 counter's first and last values must be within +-2^40, so
	 * the address arithmetic below stays inside int64. */
	switch (s < 0 ? (p->wide ? p->exit + 20 : p->exit + 30) : p->wide ? p->exit + 10 : p->exit) {
	case LOOP_NE + 20:
		/* counting down to K: fu, fu - |s|, ..., K, as unsigned or
		 * signed numbers without crossing the wrap-around */
		xb_printf(o, "    if (fq%u != fu%u && (fu%u - fq%u) %% %lldu == 0) {\n"
		          "      if (fq%u < fu%u && fu%u <= 0x10000000000ull) { fv%u = (int64_t)fu%u; fk%u = (int64_t)fq%u; fo%u = 1; }\n"
		          "      else if ((int64_t)fq%u < (int64_t)fu%u && (int64_t)fq%u >= -0x10000000000ll && (int64_t)fu%u <= 0x10000000000ll)"
		          " { fv%u = (int64_t)fu%u; fk%u = (int64_t)fq%u; fo%u = 1; }\n"
		          "    }\n",
		          id, id, id, id, -s, id, id, id, id, id, id, id, id,
		          id, id, id, id, id, id, id, id, id);
		break;
	case LOOP_NE + 30:
		xb_printf(o, "    if (fq%u != fu%u && (uint32_t)(fu%u - fq%u) %% %lldu == 0) {\n"
		          "      if (fq%u < fu%u) { fv%u = fu%u; fk%u = fq%u; fo%u = 1; }\n"
		          "      else if ((int32_t)fq%u < (int32_t)fu%u) { fv%u = (int32_t)fu%u; fk%u = (int32_t)fq%u; fo%u = 1; }\n"
		          "    }\n",
		          id, id, id, id, -s, id, id, id, id, id, id, id,
		          id, id, id, id, id, id, id);
		break;
	case LOOP_NE + 10:
		xb_printf(o, "    if (fq%u != fu%u && (fq%u - fu%u) %% %lldu == 0) {\n"
		          "      if (fu%u < fq%u && fq%u <= 0x10000000000ull) { fv%u = (int64_t)fu%u; fk%u = (int64_t)fq%u; fo%u = 1; }\n"
		          "      else if ((int64_t)fu%u < (int64_t)fq%u && (int64_t)fu%u >= -0x10000000000ll && (int64_t)fq%u <= 0x10000000000ll)"
		          " { fv%u = (int64_t)fu%u; fk%u = (int64_t)fq%u; fo%u = 1; }\n"
		          "    }\n",
		          id, id, id, id, s, id, id, id, id, id, id, id, id,
		          id, id, id, id, id, id, id, id, id);
		break;
	case LOOP_LTU + 10:
		xb_printf(o, "    if (fu%u < fq%u && fq%u <= 0x10000000000ull) { fv%u = (int64_t)fu%u; fk%u = (int64_t)fq%u; fo%u = 1; }\n",
		          id, id, id, id, id, id, id, id);
		break;
	case LOOP_LTS + 10:
		xb_printf(o, "    if ((int64_t)fu%u < (int64_t)fq%u && (int64_t)fu%u >= -0x10000000000ll && (int64_t)fq%u <= 0x10000000000ll)"
		          " { fv%u = (int64_t)fu%u; fk%u = (int64_t)fq%u; fo%u = 1; }\n",
		          id, id, id, id, id, id, id, id, id);
		break;
	case LOOP_NE:
		xb_printf(o, "    if (fq%u != fu%u && (uint32_t)(fq%u - fu%u) %% %lldu == 0) {\n"
		          "      if (fu%u < fq%u) { fv%u = fu%u; fk%u = fq%u; fo%u = 1; }\n"
		          "      else if ((int32_t)fu%u < (int32_t)fq%u) { fv%u = (int32_t)fu%u; fk%u = (int32_t)fq%u; fo%u = 1; }\n"
		          "    }\n",
		          id, id, id, id, s, id, id, id, id, id, id, id,
		          id, id, id, id, id, id, id);
		break;
	case LOOP_LTU:
		xb_printf(o, "    if (fu%u < fq%u && fq%u <= 0x%llxu) { fv%u = fu%u; fk%u = fq%u; fo%u = 1; }\n",
		          id, id, id, (unsigned long long)(0x100000000ll - s), id, id, id, id, id);
		break;
	default:
		xb_printf(o, "    if ((int32_t)fu%u < (int32_t)fq%u && (int32_t)fq%u <= %lld) "
		          "{ fv%u = (int32_t)fu%u; fk%u = (int32_t)fq%u; fo%u = 1; }\n",
		          id, id, id, 0x80000000ll - s, id, id, id, id, id);
		break;
	}
	for (uint32_t j = 0; j < p->ninv; j++)
		xb_printf(o, "    const int64_t fb%u_%u = (int64_t)(uint32_t)(%s);\n", id, j, p->inv[j]);
	/* the last iv: exactly fk - s for `!=`, at most fk - 1 for `<` */
	xb_printf(o, "    const int64_t fh%u = fk%u - %lld;\n", id, id,
	          p->exit == LOOP_NE ? s : 1);
	/* one range check per (base, k, memory): the lowest address must not
	 * be negative (one test of the sign of all of them or'ed), the highest
	 * end must be inside the memory; with terminal traps (xlate_options)
	 * and a memory that is not shared, the highest address must only stay
	 * below 2^32, where it equals WebAssembly's, and an access past the
	 * memory's end faults in its reservation like the ordinary one */
	uint32_t n = p->end - p->start, ng = 0;
	struct grp { uint8_t inv; int64_t k, lo, hi, amax; uint32_t mem; } *g = malloc(n * sizeof *g);
	if (!g) {
		x->rc = WASM_ERR_NOMEM;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const loop_acc *a = &p->acc[i];
		if (!a->is)
			continue;
		int64_t end = a->c + (int64_t)x->f->code[p->start + i].u.mem.offset + a->width;
		uint32_t k = 0;
		while (k < ng && !(g[k].inv == a->inv && g[k].k == a->k && g[k].mem == a->mem))
			k++;
		if (k == ng) {
			g[ng++] = (struct grp){ a->inv, a->k, a->c, end, a->c, a->mem };
			continue;
		}
		if (a->c < g[k].lo)
			g[k].lo = a->c;
		if (a->c > g[k].amax)
			g[k].amax = a->c;
		if (end > g[k].hi)
			g[k].hi = end;
	}
	xb_printf(o, "    if (fo%u", id);
	for (uint32_t k = 0; k < ng; k++) {
		char base[24] = "0";
		if (g[k].inv < LOOP_MAXINV)
			snprintf(base, sizeof base, "fb%u_%u", id, g[k].inv);
		/* fv is the first iv, fh the last: the lower one when counting up */
		bool up = (g[k].k >= 0) == (s > 0);
		xb_printf(o, "%s(%s + %lld * %s%u + %lld)", k ? " | " : "\n        && (",
		          base, (long long)g[k].k, up ? "fv" : "fh", id, (long long)g[k].lo);
	}
	if (ng)
		xb_puts(o, ") >= 0");
	for (uint32_t k = 0; k < ng; k++) {
		char base[24] = "0";
		if (g[k].inv < LOOP_MAXINV)
			snprintf(base, sizeof base, "fb%u_%u", id, g[k].inv);
		bool up = (g[k].k >= 0) == (s > 0);
		const char *hi = up ? "fh" : "fv";
		if (x->terminal && !x->m->mems[g[k].mem].lim.shared)
			xb_printf(o, "\n        && %s + %lld * %s%u + %lld <= 0xffffffffll",
			          base, (long long)g[k].k, hi, id, (long long)g[k].amax);
		else
			xb_printf(o, "\n        && mw_fits(&mz%u, mm%u, %s + %lld * %s%u + %lld)",
			          g[k].mem, g[k].mem, base, (long long)g[k].k, hi, id, (long long)g[k].hi);
	}
	free(g);
	xb_puts(o, ") {\n");
	if (p->lanes) {
		const lanespec *ls = &lanespecs[p->lanes];
		for (uint32_t h = x->h; h < x->h + p->vdepth; h++) {
			xb_printf(o, "    %s", ls->t);
			for (unsigned l = 0; l < ls->n; l++)
				xb_printf(o, "%s q%u_%u", l ? "," : "", h, l);
			xb_puts(o, ";\n");
		}
		for (uint32_t k = 0; k < p->nvl; k++) {
			xb_printf(o, "    %s", ls->t);
			for (unsigned l = 0; l < ls->n; l++)
				xb_printf(o, "%s r%u_%u = ((%s)l%u)[%u]", l ? "," : "", p->vl[k], l,
				          ls->vt, p->vl[k], l);
			xb_puts(o, ";\n");
		}
	}
	/* a gather can trap: then the copy is not vectorized either (MW_NOVEC:
	 * the stores before the trap must all be done) */
	xb_printf(o, p->gathers ? "  F%u:; MW_NOVEC;\n" : "  F%u:;\n", id);
	uint32_t h0 = x->h;
	x->fast = p;
	x->fast_id = id;
	for (uint32_t i = p->start + 1; i < p->end && !x->rc; i++) {
		emit_instr(x, &i);
	}
	x->fast = NULL;
	x->h = h0;
	x->fastcheck = true;
	if (!p->gathers)
		x->vec = true;
	if (!p->gathers && plan_rereads(x, p))
		x->wide = true;
	if (p->lanes) {
		/* the written v128 locals, back in their vectors */
		const lanespec *ls = &lanespecs[p->lanes];
		for (uint32_t k = 0; k < p->nvl; k++) {
			xb_printf(o, "  l%u = (mw_v128)(%s){", p->vl[k], ls->vt);
			for (unsigned l = 0; l < ls->n; l++)
				xb_printf(o, "%sr%u_%u", l ? ", " : "", p->vl[k], l);
			xb_puts(o, "};\n");
		}
	}
	xb_printf(o, "  goto X%u;\n  }\n  }\n  ", id);
}

/* Loads and stores; `dropped`: the next instruction drops the value. */
static bool emit_mem(fx *x, const wasm_instr *in, bool dropped)
{
	const char *ld = NULL, *st = NULL, *conv = "";
	switch (in->op) {
	case WASM_OP_I32_LOAD: ld = "mw_ld_u32"; break;
	case WASM_OP_I64_LOAD: ld = "mw_ld_u64"; break;
	case WASM_OP_F32_LOAD: ld = "mw_ld_f32"; break;
	case WASM_OP_F64_LOAD: ld = "mw_ld_f64"; break;
	case WASM_OP_I32_LOAD8_S: ld = "mw_ld_u8"; conv = "(uint32_t)(int32_t)(int8_t)"; break;
	case WASM_OP_I32_LOAD8_U: ld = "mw_ld_u8"; conv = "(uint32_t)"; break;
	case WASM_OP_I32_LOAD16_S: ld = "mw_ld_u16"; conv = "(uint32_t)(int32_t)(int16_t)"; break;
	case WASM_OP_I32_LOAD16_U: ld = "mw_ld_u16"; conv = "(uint32_t)"; break;
	case WASM_OP_I64_LOAD8_S: ld = "mw_ld_u8"; conv = "(uint64_t)(int64_t)(int8_t)"; break;
	case WASM_OP_I64_LOAD8_U: ld = "mw_ld_u8"; conv = "(uint64_t)"; break;
	case WASM_OP_I64_LOAD16_S: ld = "mw_ld_u16"; conv = "(uint64_t)(int64_t)(int16_t)"; break;
	case WASM_OP_I64_LOAD16_U: ld = "mw_ld_u16"; conv = "(uint64_t)"; break;
	case WASM_OP_I64_LOAD32_S: ld = "mw_ld_u32"; conv = "(uint64_t)(int64_t)(int32_t)"; break;
	case WASM_OP_I64_LOAD32_U: ld = "mw_ld_u32"; conv = "(uint64_t)"; break;
	case WASM_OP_I32_STORE: st = "mw_st_u32"; break;
	case WASM_OP_I64_STORE: st = "mw_st_u64"; break;
	case WASM_OP_F32_STORE: st = "mw_st_f32"; break;
	case WASM_OP_F64_STORE: st = "mw_st_f64"; break;
	case WASM_OP_I32_STORE8: st = "mw_st_u8"; conv = "(uint8_t)"; break;
	case WASM_OP_I32_STORE16: st = "mw_st_u16"; conv = "(uint16_t)"; break;
	case WASM_OP_I64_STORE8: st = "mw_st_u8"; conv = "(uint8_t)"; break;
	case WASM_OP_I64_STORE16: st = "mw_st_u16"; conv = "(uint16_t)"; break;
	case WASM_OP_I64_STORE32: st = "mw_st_u32"; conv = "(uint32_t)"; break;
	default: return false;
	}
	uint32_t mem = in->u.mem.mem, off = in->u.mem.offset;
	char addr[200], fa[160];
	bool fast = fast_addr(x, in, fa, sizeof fa);
	if (ld && dropped) {
		/* the C compiler would delete an unused load, and its trap */
		uint64_t last = (uint64_t)off + access_size(in->op) - 1;
		x->h--;
		xb_printf(x->o, "mw_touch(m%u, (uint64_t)%s + %lluu);", mem, S(x, x->h),
		          (unsigned long long)last);
		return true;
	}
	if (ld) {
		uint32_t a = x->h - 1;
		if (off)
			snprintf(addr, sizeof addr, "(uint64_t)%s + %uu", fast ? fa : S(x, a), off);
		else
			snprintf(addr, sizeof addr, "(uint64_t)%s", fast ? fa : S(x, a));
		x->h = a;
		push(x, wasm_sig_type(wasm_opinfo_get(in->op)->sig[2]));
		xb_printf(x->o, "%s = %s%s(m%u, %s);", S(x, a), conv, ld, mem, addr);
	} else {
		uint32_t a = x->h - 2;
		if (off)
			snprintf(addr, sizeof addr, "(uint64_t)%s + %uu", fast ? fa : S(x, a), off);
		else
			snprintf(addr, sizeof addr, "(uint64_t)%s", fast ? fa : S(x, a));
		xb_printf(x->o, "%s(m%u, %s, %s%s);", st, mem, addr, conv, S(x, a + 1));
		x->h = a;
	}
	return true;
}

static bool op_uses_mem(const wasm_instr *in, uint32_t *mem, uint32_t *mem2)
{
	*mem2 = UINT32_MAX;
	uint32_t op = in->op;
	if (op >= WASM_OP_I32_LOAD && op <= WASM_OP_I64_STORE32) {
		*mem = in->u.mem.mem;
		return true;
	}
	if (op >> 16 == 0xFD) {   /* SIMD loads and stores use the base too */
		const wasm_opinfo *oi = wasm_opinfo_get(op);
		if (oi && (oi->imm == IMM_MEM || oi->imm == IMM_MEMLANE)) {
			*mem = in->u.mem.mem;
			return true;
		}
	}
	return false;
}

/* SIMD and atomic instructions: simd.c and atomic.c write the statement. */
static void emit_ext(fx *x, const wasm_instr *in, bool dropped)
{
	const wasm_opinfo *oi = wasm_opinfo_get(in->op);
	if (x->fast && x->fast->lanes && in->op >> 16 == 0xFD) {
		emit_lanes(x, in, oi);
		return;
	}
	const char *colon = strchr(oi->sig, ':');
	uint32_t npop = (uint32_t)(colon - oi->sig), b = x->h - npop;
	char ops[3][160] = {{0}}, res[24] = "", buf[768];
	const char *a[3] = { ops[0], ops[1], ops[2] };
	for (uint32_t k = 0; k < npop && k < 3; k++)
		snprintf(ops[k], sizeof ops[k], "%s", S(x, b + k));
	if (npop)   /* in a versioned loop's fast copy, the 64-bit address */
		fast_addr(x, in, ops[0], sizeof ops[0]);
	x->h = b;
	if (colon[1]) {
		push(x, wasm_sig_type(colon[1]));
		snprintf(res, sizeof res, "%s", S(x, b));
	}
	int rc = in->op >> 16 == 0xFD
	         ? xlate_simd_emit(in, a, colon[1] ? res : NULL, x->fi, dropped, buf, sizeof buf)
	         : xlate_atomic_emit(in, a, colon[1] ? res : NULL, x->fi, buf, sizeof buf);
	if (rc)
		fx_fail(x, in, WASM_ERR_UNSUPPORTED, "%s", buf);
	else
		xb_puts(x->o, buf);
}

/* Emits instruction *pi (advancing *pi past anything it consumes beyond
 * itself).  Returns 1 when the function is finished (its final end, or an
 * error), 0 otherwise. */
/* The active data segment with a constant offset that writes address a
 * of memory mem last (the one whose bytes are there after instantiation),
 * or NULL.  Its bytes from a on are what spec_before_load reads: a guess,
 * so a later segment overlapping only part of them does no harm. */
static const wasm_data *data_at(const wasm_module *m, uint32_t mem, uint64_t a)
{
	const wasm_data *at = NULL;
	for (uint32_t d = 0; d < m->ndatas; d++) {
		const wasm_data *ds = &m->datas[d];
		if (ds->mode != WASM_SEG_ACTIVE || ds->mem != mem || ds->offset.op != WASM_OP_I32_CONST)
			continue;
		uint64_t o = (uint32_t)ds->offset.u.i32;
		if (a >= o && a < o + ds->size)
			at = ds;
	}
	return at;
}

/* An i32.load at code[i]: when a call_indirect on a constant table uses
 * its value, find or make the dispatch array for it (see spec), keep the
 * address's distance from its start in sq_ and tell the call (x->spec). */
static void spec_before_load(fx *x, uint32_t i)
{
	const wasm_module *m = x->m;
	const wasm_func *f = x->f;
	const wasm_instr *in = &f->code[i];
	if (i + 1 >= f->ncode || f->code[i + 1].op != WASM_OP_CALL_INDIRECT)
		return;
	uint32_t type = f->code[i + 1].u.two.a, table = f->code[i + 1].u.two.b;
	const uint32_t *ce = x->ct->elems[table];
	if (!ce)
		return;
	uint64_t k = in->u.mem.offset;
	if (i >= 2 && f->code[i - 1].op == WASM_OP_I32_ADD && f->code[i - 2].op == WASM_OP_I32_CONST)
		k += (uint32_t)f->code[i - 2].u.i32;
	if (!k || k > UINT32_MAX)
		return;
	uint32_t y = x->ct->canon[type], nt = (uint32_t)m->tables[table].lim.min;
	if (!x->ct->sphash && !(x->ct->sphash = calloc(SP_HASH, sizeof *x->ct->sphash))) {
		x->rc = WASM_ERR_NOMEM;
		return;
	}
	uint32_t hk = (uint32_t)k * 2654435761u ^ table * 40503u ^ y * 9973u, id;
	for (;;) {
		hk &= SP_HASH - 1;
		if (!x->ct->sphash[hk]) {
			id = x->ct->nsp;
			break;
		}
		const spec *e = &x->ct->sp[x->ct->sphash[hk] - 1];
		if (e->table == table && e->type == y && e->k == (uint32_t)k) {
			id = x->ct->sphash[hk] - 1;
			break;
		}
		hk++;
	}
	if (id < x->ct->nsp && !x->ct->sp[id].idx)
		return;                      /* tried: no array there */
	if (id == x->ct->nsp) {
		if (x->ct->nsp >= SP_TRIES)
			return;
		uint32_t idx[SP_MAX], n = 0;
		const wasm_data *ds = data_at(m, in->u.mem.mem, k);
		uint64_t o = ds ? (uint32_t)ds->offset.u.i32 : 0;
		while (ds && n < SP_MAX && k + 4 * (uint64_t)n + 4 <= o + ds->size) {
			const uint8_t *b = ds->bytes + (k - o) + 4 * (uint64_t)n;
			uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			             (uint32_t)b[3] << 24;
			if (w >= nt || ce[w] == CT_NULL || ce[w] < m->nfunc_imports ||
			    x->ct->canon[m->func_types[ce[w]]] != y)
				break;
			idx[n++] = w;
		}
		if (x->ct->nsp == x->ct->spcap) {
			uint32_t cap = x->ct->spcap ? 2 * x->ct->spcap : 8;
			spec *p = realloc(x->ct->sp, cap * sizeof *p);
			if (!p) {
				x->rc = WASM_ERR_NOMEM;
				return;
			}
			x->ct->sp = p;
			x->ct->spcap = cap;
		}
		spec *sp = &x->ct->sp[x->ct->nsp];
		sp->idx = NULL;
		if (n >= 2 && !(sp->idx = malloc(n * sizeof *sp->idx))) {
			x->rc = WASM_ERR_NOMEM;
			return;
		}
		if (sp->idx)
			memcpy(sp->idx, idx, n * sizeof *idx);
		sp->table = table;
		sp->type = y;
		sp->k = (uint32_t)k;
		sp->n = n;
		x->ct->sphash[hk] = ++x->ct->nsp;
		if (!sp->idx)
			return;
	}
	/* the address slot, before the load overwrites it: sq_ = address - k */
	xb_printf(x->o, "sq_ = %s + %uu; ", S(x, x->h - 1), (uint32_t)(in->u.mem.offset - k));
	x->spec = id + 1;
	x->has_sq = true;
}

static int emit_instr(fx *x, uint32_t *pi)
{
	const wasm_module *m = x->m;
	const wasm_func *f = x->f;
	xbuf *o = x->o;
	uint32_t i = *pi;
	const wasm_instr *in = &f->code[i];
	ctl *c = &x->cs[x->ncs - 1];
	uint32_t op = in->op;
	if (c->unreachable) {
		if (op == WASM_OP_BLOCK || op == WASM_OP_LOOP || op == WASM_OP_IF ||
		    op == WASM_OP_TRY) {
			*pi = in->u.block.end;
			return 0;
		}
		if (op != WASM_OP_ELSE && op != WASM_OP_END && op != WASM_OP_CATCH &&
		    op != WASM_OP_CATCH_ALL && op != WASM_OP_DELEGATE)
			return 0;
	}
	xb_puts(o, "  ");
	switch (op) {
	case WASM_OP_UNREACHABLE:
		xb_printf(o, "rt_trap(%d, %uu);", RT_TRAP_UNREACHABLE, x->fi);
		c->unreachable = true;
		break;
	case WASM_OP_BLOCK:
		ctl_push(x, op, in);
		break;
	case WASM_OP_LOOP: {
		ctl *l = ctl_push(x, op, in);
		if (!l)
			break;
		if (!x->fast && x->versioning) {
			loop_plan p;
			if (loop_analyze(m, f, x->local_types, x->nlocals_total, i, &p)) {
				emit_fast_loop(x, &p, l->id);
				l->versioned = true;
				loop_plan_free(&p);
			} else if (p.nomem) {
				fx_fail(x, in, WASM_ERR_NOMEM, "out of memory in the loop analysis");
			}
		}
		/* MW_NOVEC: the C compiler must not vectorize the loop as
		 * written (see prelude.h) */
		xb_printf(o, "L%u:; MW_NOVEC;", l->id);
		break;
	}
	case WASM_OP_IF: {
		x->h--;
		const char *cond = S(x, x->h);
		ctl *l = ctl_push(x, op, in);
		if (l)
			xb_printf(o, "if (!%s) goto E%u;", cond, l->id);
		break;
	}
	case WASM_OP_TRY: {
		ctl *l = ctl_push(x, op, in);
		if (!l)
			break;
		l->in_body = true;
		l->frame = l->exn = 0;
		for (uint32_t k = 0; k + 1 < x->ncs; k++)
			if (x->cs[k].op == WASM_OP_TRY) {
				if (x->cs[k].in_body)
					l->frame++;
				else
					l->exn++;
			}
		if (l->frame >= x->nframes)
			x->nframes = l->frame + 1;
		if (l->exn >= x->nexns)
			x->nexns = l->exn + 1;
		xb_printf(o, "eh%u.prev = eh->top; eh->top = &eh%u; "
		          "if (MW_UNLIKELY(__builtin_setjmp(eh%u.jb))) goto H%u;",
		          l->frame, l->frame, l->frame, l->id);
		break;
	}
	case WASM_OP_CATCH: case WASM_OP_CATCH_ALL:
		if (c->in_body) {
			emit_try_body_end(x, c);
			emit_dispatch(x, c, i);
		} else if (!c->unreachable) {
			xb_printf(o, "goto L%u;", c->id);
			c->used = true;
		}
		emit_clause(x, c, in, i);
		break;
	case WASM_OP_DELEGATE: {
		emit_delegate(x, c, in->u.index);
		if (c->used)
			xb_printf(o, "\n L%u:;", c->id);
		x->h = c->base;
		const uint8_t *rt = ctl_results(c);
		for (uint32_t k = 0; k < c->nr; k++)
			push(x, rt[k]);
		x->ncs--;
		x->cs[x->ncs - 1].unreachable = !c->used;
		break;
	}
	case WASM_OP_THROW:
		emit_throw(x, in);
		c->unreachable = true;
		break;
	case WASM_OP_RETHROW:
		xb_printf(o, "eh->exn = ex%u; mw_eh_throw(eh);",
		          x->cs[x->ncs - 1 - in->u.index].exn);
		c->unreachable = true;
		break;
	case WASM_OP_ELSE:
		if (!c->unreachable) {
			c->used = true;
			xb_printf(o, "goto L%u; ", c->id);
		}
		xb_printf(o, "E%u:;", c->id);
		c->has_else = true;
		c->unreachable = false;
		x->h = c->base;
		for (uint32_t k = 0; k < c->np; k++)
			push(x, c->pt[k]);
		break;
	case WASM_OP_END: {
		bool after;
		if (c->op == WASM_OP_TRY && c->in_body) {
			/* a try without catch clauses: exceptions pass through */
			emit_try_body_end(x, c);
			xb_puts(o, " mw_eh_throw(eh);\n  ");
		}
		if (c->op == WASM_OP_LOOP) {
			after = !c->unreachable;
		} else if (c->op == WASM_OP_IF && !c->has_else) {
			xb_printf(o, "E%u:; ", c->id);
			after = true;
		} else {
			after = !c->unreachable || c->used;
		}
		if (c->op != WASM_OP_LOOP && c->used)
			xb_printf(o, "L%u:;", c->id);
		if (c->versioned)
			xb_printf(o, "X%u:;", c->id);
		x->h = c->base;
		const uint8_t *rt = ctl_results(c);
		for (uint32_t k = 0; k < c->nr; k++)
			push(x, rt[k]);
		if (c->op == WASM_OP_END) {
			if (after) {
				xb_puts(o, "\n  ");
				emit_return(x);
			}
			xb_puts(o, "\n");
			x->ncs--;
			return 1;
		}
		x->ncs--;
		x->cs[x->ncs - 1].unreachable = !after;
		break;
	}
	case WASM_OP_BR:
		emit_br(x, in->u.index);
		c->unreachable = true;
		break;
	case WASM_OP_BR_IF:
		x->h--;
		if (x->fast && i == x->fast->end - 1) {
			/* the fast copy counts in 64 bits (emit_fast_loop) */
			xb_printf(o, "fv%u += %lld; if (fv%u %c fk%u) goto F%u;", x->fast_id,
			          (long long)x->fast->step, x->fast_id, x->fast->step > 0 ? '<' : '>',
			          x->fast_id, x->fast_id);
			break;
		}
		xb_printf(o, "if (%s) { ", S(x, x->h));
		emit_br(x, in->u.index);
		xb_puts(o, " }");
		break;
	case WASM_OP_BR_TABLE: {
		x->h--;
		uint32_t n = in->u.brtable.count;
		const uint32_t *tg = &f->brtable[in->u.brtable.first];
		xb_printf(o, "switch (%s) {", S(x, x->h));
		/* one case group per distinct target, in order of first use;
		 * linear in n: the entries with the same target are chained
		 * (targets are label depths, below x->ncs) */
		uint32_t *first = malloc((size_t)x->ncs * sizeof *first);
		uint32_t *last = malloc((size_t)x->ncs * sizeof *last);
		uint32_t *next = malloc(((size_t)n + 1) * sizeof *next);
		if (!first || !last || !next) {
			free(first);
			free(last);
			free(next);
			x->rc = WASM_ERR_NOMEM;
			break;
		}
		for (uint32_t k = 0; k <= n; k++)   /* only the depths used: O(n) */
			first[tg[k]] = UINT32_MAX;
		for (uint32_t k = 0; k <= n; k++) {
			next[k] = UINT32_MAX;
			if (first[tg[k]] == UINT32_MAX)
				first[tg[k]] = k;
			else
				next[last[tg[k]]] = k;
			last[tg[k]] = k;
		}
		for (uint32_t k = 0; k <= n; k++) {
			if (first[tg[k]] != k)
				continue;
			xb_puts(o, "\n   ");
			for (uint32_t j = k; j != UINT32_MAX; j = next[j]) {
				if (j == n)
					xb_puts(o, " default:");
				else
					xb_printf(o, " case %u:", j);
			}
			xb_puts(o, " ");
			emit_br(x, tg[k]);
		}
		free(first);
		free(last);
		free(next);
		xb_puts(o, "\n  }");
		c->unreachable = true;
		break;
	}
	case WASM_OP_RETURN:
		emit_return(x);
		c->unreachable = true;
		break;
	case WASM_OP_CALL:
		emit_call(x, in->u.index);
		break;
	case WASM_OP_CALL_INDIRECT:
		emit_call_indirect(x, in->u.two.a, in->u.two.b);
		break;
	case WASM_OP_DROP:
		x->h--;
		break;
	case WASM_OP_SELECT:
	case WASM_OP_SELECT_T: {
		uint32_t b = x->h - 3;
		xb_printf(o, "%s = %s ? %s : %s;", S(x, b), S(x, b + 2),
		          S(x, b), S(x, b + 1));
		x->h = b + 1;
		break;
	}
	case WASM_OP_LOCAL_GET:
		if (x->fast && x->fast->lanes && x->local_types[in->u.index] == WASM_V128) {
			emit_lanes_local(x, in->u.index);
			break;
		}
		push(x, x->local_types[in->u.index]);
		xb_printf(o, "%s = l%u;", S(x, x->h - 1), in->u.index);
		break;
	case WASM_OP_LOCAL_SET:
		if (x->fast && x->fast->lanes && x->local_types[in->u.index] == WASM_V128) {
			emit_lanes_set(x, in->u.index, false);
			break;
		}
		x->h--;
		xb_printf(o, "l%u = %s;", in->u.index, S(x, x->h));
		break;
	case WASM_OP_LOCAL_TEE:
		if (x->fast && x->fast->lanes && x->local_types[in->u.index] == WASM_V128) {
			emit_lanes_set(x, in->u.index, true);
			break;
		}
		xb_printf(o, "l%u = %s;", in->u.index, S(x, x->h - 1));
		break;
	case WASM_OP_GLOBAL_GET: {
		uint8_t t = m->globals[in->u.index].type.type;
		push(x, t);
		if (t == WASM_V128)
			xb_printf(o, "%s = mw_v128_get(g%u->v.v128);", S(x, x->h - 1),
			          in->u.index);
		else
			xb_printf(o, "%s = g%u->v.%s;", S(x, x->h - 1),
			          in->u.index, vmember(t));
		break;
	}
	case WASM_OP_GLOBAL_SET: {
		uint8_t t = m->globals[in->u.index].type.type;
		x->h--;
		if (t == WASM_V128)
			xb_printf(o, "mw_v128_put(g%u->v.v128, %s);", in->u.index,
			          S(x, x->h));
		else
			xb_printf(o, "g%u->v.%s = %s;", in->u.index,
			          vmember(t), S(x, x->h));
		break;
	}
	case WASM_OP_TABLE_GET: {
		uint32_t a = x->h - 1;
		const char *idx = S(x, a);
		char idxs[24];
		snprintf(idxs, sizeof idxs, "%s", idx);
		x->h = a;
		push(x, m->tables[in->u.index].elemtype);
		xb_printf(o, "%s = mw_table_get(inst->tables[%u], %s, %uu);",
		          S(x, a), in->u.index, idxs, x->fi);
		break;
	}
	case WASM_OP_TABLE_SET:
		x->h -= 2;
		xb_printf(o, "mw_table_set(inst->tables[%u], %s, %s, %uu);",
		          in->u.index, S(x, x->h), S(x, x->h + 1), x->fi);
		break;
	case WASM_OP_TABLE_SIZE:
		push(x, WASM_I32);
		xb_printf(o, "%s = inst->tables[%u]->size;", S(x, x->h - 1), in->u.index);
		break;
	case WASM_OP_TABLE_GROW: {
		uint32_t b = x->h - 2;
		char init[24];
		snprintf(init, sizeof init, "%s", S(x, b));
		const char *n = S(x, b + 1);
		char ns[24];
		snprintf(ns, sizeof ns, "%s", n);
		x->h = b;
		push(x, WASM_I32);
		xb_printf(o, "%s = rt_table_grow(inst->tables[%u], %s, %s);",
		          S(x, b), in->u.index, init, ns);
		break;
	}
	case WASM_OP_TABLE_FILL:
		x->h -= 3;
		xb_printf(o, "rt_table_fill(inst, %u, %s, %s, %s, %uu);", in->u.index,
		          S(x, x->h), S(x, x->h + 1), S(x, x->h + 2), x->fi);
		break;
	case WASM_OP_TABLE_COPY:
		x->h -= 3;
		xb_printf(o, "rt_table_copy(inst, %u, %u, %s, %s, %s, %uu);",
		          in->u.two.a, in->u.two.b, S(x, x->h), S(x, x->h + 1),
		          S(x, x->h + 2), x->fi);
		break;
	case WASM_OP_TABLE_INIT:
		x->h -= 3;
		xb_printf(o, "rt_table_init(inst, %u, %u, %s, %s, %s, %uu);",
		          in->u.two.b, in->u.two.a, S(x, x->h), S(x, x->h + 1),
		          S(x, x->h + 2), x->fi);
		break;
	case WASM_OP_ELEM_DROP:
		xb_printf(o, "rt_elem_drop(inst, %u);", in->u.index);
		break;
	case WASM_OP_MEMORY_SIZE:
		push(x, WASM_I32);
		xb_printf(o, "%s = (uint32_t)inst->mems[%u]->pages;", S(x, x->h - 1),
		          in->u.index);
		break;
	case WASM_OP_MEMORY_GROW:
		xb_printf(o, "%s = rt_memory_grow(inst->mems[%u], %s);",
		          S(x, x->h - 1), in->u.index, S(x, x->h - 1));
		break;
	case WASM_OP_MEMORY_FILL:
		x->h -= 3;
		xb_printf(o, "mw_memory_fill(inst->mems[%u], %s, %s, %s, %uu);",
		          in->u.index, S(x, x->h), S(x, x->h + 1), S(x, x->h + 2), x->fi);
		break;
	case WASM_OP_MEMORY_COPY:
		x->h -= 3;
		xb_printf(o, "mw_memory_copy(inst->mems[%u], inst->mems[%u], %s, %s, %s, %uu);",
		          in->u.two.a, in->u.two.b, S(x, x->h), S(x, x->h + 1),
		          S(x, x->h + 2), x->fi);
		break;
	case WASM_OP_MEMORY_INIT:
		x->h -= 3;
		xb_printf(o, "rt_memory_init(inst, %u, %u, %s, %s, %s, %uu);",
		          in->u.two.b, in->u.two.a, S(x, x->h), S(x, x->h + 1),
		          S(x, x->h + 2), x->fi);
		break;
	case WASM_OP_DATA_DROP:
		xb_printf(o, "rt_data_drop(inst, %u);", in->u.index);
		break;
	case WASM_OP_I32_CONST:
		push(x, WASM_I32);
		xb_printf(o, "%s = 0x%xu;", S(x, x->h - 1), (uint32_t)in->u.i32);
		break;
	case WASM_OP_I64_CONST:
		push(x, WASM_I64);
		xb_printf(o, "%s = 0x%llxull;", S(x, x->h - 1),
		          (unsigned long long)(uint64_t)in->u.i64);
		break;
	case WASM_OP_F32_CONST:
		push(x, WASM_F32);
		xb_printf(o, "%s = ", S(x, x->h - 1));
		put_f32_const(o, in->u.f32);
		xb_puts(o, ";");
		break;
	case WASM_OP_F64_CONST:
		push(x, WASM_F64);
		xb_printf(o, "%s = ", S(x, x->h - 1));
		put_f64_const(o, in->u.f64);
		xb_puts(o, ";");
		break;
	case WASM_OP_REF_NULL:
		push(x, (uint8_t)in->u.index);
		xb_printf(o, "%s = 0;", S(x, x->h - 1));
		break;
	case WASM_OP_REF_IS_NULL: {
		uint32_t a = x->h - 1;
		char r[24];
		snprintf(r, sizeof r, "%s", S(x, a));
		x->h = a;
		push(x, WASM_I32);
		xb_printf(o, "%s = %s == 0;", S(x, a), r);
		break;
	}
	case WASM_OP_REF_FUNC:
		push(x, WASM_FUNCREF);
		xb_printf(o, "%s = (void *)&inst->funcs[%u];", S(x, x->h - 1), in->u.index);
		break;
	default: {
		bool dropped = i + 1 < f->ncode && f->code[i + 1].op == WASM_OP_DROP;
		if (op >> 16 == 0xFD || op >> 16 == 0xFE) {
			emit_ext(x, in, dropped);
			break;
		}
		if (op == WASM_OP_I32_LOAD && !x->fast && !dropped && x->ct)
			spec_before_load(x, i);
		if (emit_mem(x, in, dropped)) {
			if (dropped && op >= WASM_OP_I32_LOAD && op <= WASM_OP_I64_LOAD32_U)
				(*pi)++;
			break;
		}
		const wasm_opinfo *oi = wasm_opinfo_get(op);
		const char *t = tmpl(op);
		if (!oi || !oi->sig || !t)
			{
			fx_fail(x, in, WASM_ERR_UNSUPPORTED,
			        "translator: instruction %s not supported",
			        oi ? oi->name : "(unknown)");
			return 1;
		}
		emit_simple(x, in, oi->sig, t);
	}
	}
	if (float_source(op))
		xb_printf(o, " MW_OPAQUE(%s);", S(x, x->h - 1));
	xb_puts(o, "\n");
	return 0;
}

static int translate_body(fx *x)
{
	const wasm_module *m = x->m;
	const wasm_func *f = x->f;
	xbuf *o = x->o;
	ctl *fc = ctl_push(x, WASM_OP_END, NULL);
	if (!fc)
		return x->rc;
	{
		const wasm_functype *ft = &m->types[f->type];
		fc->nr = ft->nresults;
		fc->rt = ft->results;
		fc->base = 0;
	}
	for (uint32_t i = 0; i < f->ncode && !x->rc && !o->oom; i++)
		if (emit_instr(x, &i))
			return x->rc;
	if (o->oom)
		x->rc = WASM_ERR_NOMEM;
	if (!x->rc)
		return fx_fail(x, NULL, WASM_ERR_INVALID, "translator: body has no final end");
	return x->rc;
}

/* Translates defined function fi into out (prototype + body). */
static int translate_func(const wasm_module *m, uint32_t fi, bool versioning, bool terminal,
                          bool redirect, ctables *ct, xbuf *out,
                          uint32_t **callees, uint32_t *ncallees,
                          uint64_t **arrays, uint32_t *narrays, wasm_error *err)
{
	const wasm_func *f = &m->funcs[fi - m->nfunc_imports];
	const wasm_functype *ft = &m->types[f->type];
	fx x = {0};
	x.m = m;
	x.f = f;
	x.fi = fi;
	x.err = err;
	x.versioning = versioning;
	x.terminal = terminal;
	x.ct = ct;
	xbuf body = {0};
	bool *vol = NULL;
	x.o = &body;
	x.nlocals_total = ft->nparams + f->nlocals;
	x.local_types = malloc(x.nlocals_total + 1);
	if (!x.local_types)
		return WASM_ERR_NOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ft->nparams; i++)
		x.local_types[n++] = ft->params[i];
	for (uint32_t r = 0; r < f->nlocalruns; r++)
		for (uint32_t k = 0; k < f->locals[r].count; k++)
			x.local_types[n++] = f->locals[r].type;

	/* Exception handling: the wasm locals a try writes (in its body or
	 * its catch clauses, which may hold tries of their own) are volatile,
	 * so a longjmp to its landing pad finds their latest values; stack
	 * slots need not be, since a try body writes none below its base. */
	vol = calloc(x.nlocals_total + 1, 1);
	if (!vol) {
		x.rc = WASM_ERR_NOMEM;
		goto done;
	}
	for (uint32_t i = 0; i < f->ncode; i++) {
		const wasm_instr *in = &f->code[i];
		if (in->op == WASM_OP_RETHROW)
			x.has_rethrow = true;
		if (in->op != WASM_OP_TRY)
			continue;
		x.has_try = true;
		for (uint32_t j = i + 1; j < in->u.block.end; j++)
			if (f->code[j].op == WASM_OP_LOCAL_SET || f->code[j].op == WASM_OP_LOCAL_TEE)
				vol[f->code[j].u.index] = true;
	}

	translate_body(&x);
	if (x.rc)
		goto done;

	/* header: name, prototype, instance, memory bases, locals, slots */
	const char *name = m->func_names ? m->func_names[fi] : NULL;
	if (!name)
		name = wasm_func_name(m, fi);
	xb_printf(out, "\n/* function %u", fi);
	if (name) {
		xb_puts(out, ": ");
		put_comment_name(out, name);
	}
	xb_puts(out, " */\n");
	if (x.vec)
		xb_puts(out, x.wide ? "MW_VEC MW_WIDE " : "MW_VEC ");
	put_proto(out, m, fi, vol);
	xb_puts(out, " {\n  struct mw_inst *const inst = (struct mw_inst *)ctx_;\n");
	if (redirect)
		put_redirect(out, m, fi);
	if (x.has_try) {
		xb_puts(out, "  struct mw_eh *const eh = &rt_eh_tls;\n");
		for (uint32_t k = 0; k < x.nframes; k++)
			xb_printf(out, "  struct mw_ehframe eh%u;\n", k);
		for (uint32_t k = 0; x.has_rethrow && k < x.nexns; k++)
			xb_printf(out, "  struct mw_exn ex%u;\n", k);
	}
	/* memory bases: one const local per memory the body touches */
	bool *usedmem = calloc(m->nmems + 1, 1);
	if (!usedmem) {
		x.rc = WASM_ERR_NOMEM;
		goto done;
	}
	for (uint32_t i = 0; i < f->ncode; i++) {
		uint32_t mm, m2;
		if (op_uses_mem(&f->code[i], &mm, &m2) && mm < m->nmems)
			usedmem[mm] = true;
	}
	for (uint32_t k = 0; k < m->nmems; k++)
		if (usedmem[k])
			xb_printf(out, x.fastcheck ? "  uint8_t *const m%u = inst->mems[%u]->base;\n"
			          "  struct mw_memory *const mm%u = inst->mems[%u];\n"
			          "  uint64_t mz%u = mm%u->pages << 16;\n"
			          : "  uint8_t *const m%u = inst->mems[%u]->base;\n", k, k, k, k, k, k);
	free(usedmem);
	/* Global, table and type pointers are fixed at instantiation: load
	 * each once, so a global access or call_indirect is one load less. */
	uint8_t *used = calloc((size_t)m->nglobals + m->ntables + m->ntypes + 1, 1);
	if (!used) {
		x.rc = WASM_ERR_NOMEM;
		goto done;
	}
	uint8_t *usedg = used, *usedt = used + m->nglobals, *usedy = usedt + m->ntables;
	for (uint32_t i = 0; i < f->ncode; i++) {
		const wasm_instr *in = &f->code[i];
		if (in->op == WASM_OP_GLOBAL_GET || in->op == WASM_OP_GLOBAL_SET) {
			usedg[in->u.index] = 1;
		} else if (in->op == WASM_OP_CALL_INDIRECT) {
			usedy[in->u.two.a] = 1;
			usedt[in->u.two.b] = 1;
		}
	}
	for (uint32_t k = 0; k < m->nglobals; k++)
		if (usedg[k])
			xb_printf(out, "  struct mw_global *const g%u = inst->globals[%u];\n", k, k);
	for (uint32_t k = 0; k < m->ntables; k++)
		if (usedt[k])
			xb_printf(out, table_fixed(m, k)
			          ? "  const struct mw_tabent *const e%u = inst->tables[%u]->elems;\n"
			          : "  struct mw_table *const t%u = inst->tables[%u];\n", k, k);
	for (uint32_t k = 0; k < m->ntypes; k++)
		if (usedy[k] && !rt_type_code(&m->types[k]))
			xb_printf(out, "  const uint64_t y%u = (uint64_t)(uintptr_t)inst->types[%u]"
			          " | 0x8000000000000000ull;\n", k, k);
	free(used);
	if (x.has_sq)
		xb_puts(out, "  uint32_t sq_;\n");
	for (uint32_t i = ft->nparams; i < n; i++)
		xb_printf(out, "  %s%s l%u = %s;\n", vol[i] ? "volatile " : "",
		          ctype(x.local_types[i]), i,
		          x.local_types[i] == WASM_V128 ? "{0}" : "0");
	static const char *const kt[6] = {"uint32_t", "uint64_t", "float", "double", "void", "mw_v128"};
	static const char kc[6] = {'i', 'j', 'f', 'd', 'r', 'v'};
	for (int k = 0; k < 6; k++) {
		for (uint32_t h = 0; h < x.maxh[k]; h++) {
			if (h % 16 == 0)
				xb_printf(out, "%s  %s ", h ? ";\n" : "", kt[k]);
			else
				xb_puts(out, ", ");
			xb_printf(out, "%ss%c%u", k == 4 ? "*" : "", kc[k], h);
		}
		if (x.maxh[k])
			xb_puts(out, ";\n");
	}
	xb_put(out, body.p ? body.p : "", body.len);
	xb_puts(out, "}\n");
	if (out->oom)
		x.rc = WASM_ERR_NOMEM;
done:
	free(vol);
	free(body.p);
	free(x.st);
	free(x.cs);
	free(x.local_types);
	if (x.rc) {
		free(x.callees);
		free(x.arrays);
		return x.rc;
	}
	*callees = x.callees;
	*ncallees = x.ncallees;
	*arrays = x.arrays;
	*narrays = x.narrays;
	return 0;
}

/* ---- module level ------------------------------------------------------ */

/* The prelude with @KIND@ replaced by enum rt_trapkind values. */
static void put_prelude(xbuf *o)
{
	static const struct { const char *name; int kind; } kinds[] = {
		{"MEM_OOB", RT_TRAP_MEM_OOB}, {"TABLE_OOB", RT_TRAP_TABLE_OOB},
		{"INDIRECT_NULL", RT_TRAP_INDIRECT_NULL},
		{"INDIRECT_TYPE", RT_TRAP_INDIRECT_TYPE},
		{"INT_OVERFLOW", RT_TRAP_INT_OVERFLOW}, {"DIV_ZERO", RT_TRAP_DIV_ZERO},
		{"INVALID_CONV", RT_TRAP_INVALID_CONV},
	};
	xb_printf(o, "/* Generated by %s from a WebAssembly module; do not edit. */\n",
	          XLATE_VERSION);
	const char *p = xlate_prelude;
	while (*p) {
		const char *at = strchr(p, '@');
		if (!at) {
			xb_puts(o, p);
			break;
		}
		xb_put(o, p, (size_t)(at - p));
		const char *end = strchr(at + 1, '@');
		size_t n = (size_t)(end - at - 1);
		int kind = -1;
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
			if (strlen(kinds[k].name) == n && !memcmp(kinds[k].name, at + 1, n))
				kind = kinds[k].kind;
		xb_printf(o, "%d", kind);
		p = end + 1;
	}
}

/* struct definitions for multi-value results, once per result list */
static void put_result_structs(xbuf *o, const wasm_module *m)
{
	for (uint32_t t = 0; t < m->ntypes; t++) {
		const wasm_functype *ft = &m->types[t];
		if (ft->nresults < 2)
			continue;
		bool dup = false;
		for (uint32_t u = 0; u < t && !dup; u++) {
			const wasm_functype *fu = &m->types[u];
			dup = fu->nresults == ft->nresults &&
			      !memcmp(fu->results, ft->results, ft->nresults);
		}
		if (dup)
			continue;
		put_results_struct_name(o, ft);
		xb_puts(o, " {");
		for (uint32_t k = 0; k < ft->nresults; k++)
			xb_printf(o, " %s r%u;", ctype(ft->results[k]), k);
		xb_puts(o, " };\n");
	}
}

static void put_invoke(xbuf *o, const wasm_module *m, uint32_t t)
{
	const wasm_functype *ft = &m->types[t];
	xb_printf(o, "static void mw_inv%u(const struct mw_func *f_, const mw_value *a, mw_value *r) {\n  ", t);
	if (ft->nresults > 1) {
		put_results_struct_name(o, ft);
		xb_puts(o, " x_ = ");
	} else if (ft->nresults == 1 && ft->results[0] == WASM_V128) {
		xb_puts(o, "mw_v128_put(r[0].v128, ");
	} else if (ft->nresults == 1) {
		xb_printf(o, "r[0].%s = ", vmember(ft->results[0]));
	}
	xb_puts(o, "((");
	put_fnptr_type(o, ft);
	xb_puts(o, ")f_->fn)(f_->ctx");
	for (uint32_t k = 0; k < ft->nparams; k++)
		if (ft->params[k] == WASM_V128)
			xb_printf(o, ", mw_v128_get(a[%u].v128)", k);
		else
			xb_printf(o, ", a[%u].%s", k, vmember(ft->params[k]));
	xb_puts(o, ft->nresults == 1 && ft->results[0] == WASM_V128 ? "));\n" : ");\n");
	for (uint32_t k = 0; ft->nresults > 1 && k < ft->nresults; k++)
		if (ft->results[k] == WASM_V128)
			xb_printf(o, "  mw_v128_put(r[%u].v128, x_.r%u);\n", k, k);
		else
			xb_printf(o, "  r[%u].%s = x_.r%u;\n", k, vmember(ft->results[k]), k);
	if (ft->nresults == 0)
		xb_puts(o, "  (void)r;\n");
	xb_puts(o, "}\n");
}

static int check_supported(const wasm_module *m, wasm_error *err)
{
	const char *what = NULL;
	if (!m->bodies_decoded && m->nfuncs > m->nfunc_imports)
		what = "a module decoded without function bodies";
	if (!what)
		return 0;
	if (err && err->code == WASM_OK) {
		err->code = WASM_ERR_UNSUPPORTED;
		err->offset = 0;
		err->func = UINT32_MAX;
		snprintf(err->msg, sizeof err->msg, "xlate_module: %s is not supported", what);
	}
	return WASM_ERR_UNSUPPORTED;
}

/* ---- constant tables (see ctables) ------------------------------------ */

static bool functype_equal(const wasm_functype *a, const wasm_functype *b)
{
	return a->nparams == b->nparams && a->nresults == b->nresults &&
	       !memcmp(a->params, b->params, a->nparams) &&
	       !memcmp(a->results, b->results, a->nresults);
}

static void ctables_free(const wasm_module *m, ctables *ct)
{
	for (uint32_t t = 0; ct->elems && t < m->ntables; t++)
		free(ct->elems[t]);
	free(ct->elems);
	free(ct->canon);
	free(ct->used);
	for (uint32_t k = 0; k < ct->nsp; k++)
		free(ct->sp[k].idx);
	free(ct->sp);
	free(ct->sphash);
	memset(ct, 0, sizeof *ct);
}

/* Whether instruction in writes table t. */
static bool writes_table(const wasm_instr *in, uint32_t t)
{
	switch (in->op) {
	case WASM_OP_TABLE_SET: case WASM_OP_TABLE_GROW: case WASM_OP_TABLE_FILL:
		return in->u.index == t;
	case WASM_OP_TABLE_COPY:
		return in->u.two.a == t;     /* the destination */
	case WASM_OP_TABLE_INIT:
		return in->u.two.b == t;
	default:
		return false;
	}
}

/* *out: the contents of table t after instantiation if it is constant
 * (see ctables), else NULL.  Returns 0 or WASM_ERR_NOMEM. */
static int ctable_contents(const wasm_module *m, uint32_t t, uint32_t **out)
{
	const wasm_tabletype *tt = &m->tables[t];
	*out = NULL;
	if (t < m->ntable_imports || tt->elemtype != WASM_FUNCREF ||
	    tt->lim.min == 0 || tt->lim.min > CT_MAX_ELEMS)
		return 0;
	for (uint32_t i = 0; i < m->nexports; i++)
		if (m->exports[i].kind == WASM_EXTERN_TABLE && m->exports[i].index == t)
			return 0;
	for (uint32_t i = 0; i < m->nfuncs - m->nfunc_imports; i++)
		for (uint32_t k = 0; k < m->funcs[i].ncode; k++)
			if (writes_table(&m->funcs[i].code[k], t))
				return 0;
	uint32_t n = (uint32_t)tt->lim.min;
	uint32_t *el = malloc((size_t)n * sizeof *el);
	if (!el)
		return WASM_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		el[i] = CT_NULL;
	for (uint32_t s = 0; s < m->nelems; s++) {
		const wasm_elem *e = &m->elems[s];
		if (e->mode != WASM_SEG_ACTIVE || e->table != t)
			continue;
		/* an offset from a global, or a segment that does not fit
		 * (instantiation fails): not worth a special case */
		if (e->offset.op != WASM_OP_I32_CONST ||
		    (uint64_t)(uint32_t)e->offset.u.i32 + e->ninit > n)
			goto no;
		uint32_t off = (uint32_t)e->offset.u.i32;
		for (uint32_t k = 0; k < e->ninit; k++) {
			if (e->init[k].op == WASM_OP_REF_FUNC)
				el[off + k] = e->init[k].u.index;
			else if (e->init[k].op == WASM_OP_REF_NULL)
				el[off + k] = CT_NULL;
			else
				goto no;
		}
	}
	*out = el;
	return 0;
no:
	free(el);
	return 0;
}

/* Finds the constant tables and which (table, type) arrays call_indirect
 * needs.  Returns 0 or WASM_ERR_NOMEM. */
static int ctables_find(const wasm_module *m, ctables *ct)
{
	memset(ct, 0, sizeof *ct);
	ct->elems = calloc((size_t)m->ntables + 1, sizeof *ct->elems);
	ct->canon = calloc((size_t)m->ntypes + 1, sizeof *ct->canon);
	ct->used = calloc((size_t)m->ntables * m->ntypes + 1, 1);
	if (!ct->elems || !ct->canon || !ct->used)
		return WASM_ERR_NOMEM;
	for (uint32_t y = 0; y < m->ntypes; y++) {
		uint32_t c = 0;
		while (c < y && !functype_equal(&m->types[c], &m->types[y]))
			c++;
		ct->canon[y] = c;
	}
	bool any = false;
	for (uint32_t i = 0; i < m->nfuncs - m->nfunc_imports && !any; i++)
		for (uint32_t k = 0; k < m->funcs[i].ncode && !any; k++)
			any = m->funcs[i].code[k].op == WASM_OP_CALL_INDIRECT;
	for (uint32_t t = 0; any && t < m->ntables; t++)
		if (ctable_contents(m, t, &ct->elems[t]))
			return WASM_ERR_NOMEM;
	for (uint32_t i = 0; i < m->nfuncs - m->nfunc_imports; i++)
		for (uint32_t k = 0; k < m->funcs[i].ncode; k++) {
			const wasm_instr *in = &m->funcs[i].code[k];
			if (in->op == WASM_OP_CALL_INDIRECT && ct->elems[in->u.two.b])
				ct->used[(size_t)in->u.two.b * m->ntypes + ct->canon[in->u.two.a]] = 1;
		}
	return 0;
}

/* The arrays' declarations or definitions (the tables unit).  want: NULL,
 * all of them; else the ones whose key (ct_key, sp_key) it marks, those
 * that the functions of a unit use, so that an array added or removed
 * changes only the units that use it (and the tables unit). */
static void put_ctables(xbuf *o, const wasm_module *m, const ctables *ct, bool define,
                        const uint8_t *want)
{
	for (uint32_t t = 0; t < m->ntables; t++) {
		if (!ct->elems[t])
			continue;
		uint32_t n = (uint32_t)m->tables[t].lim.min;
		for (uint32_t y = 0; y < m->ntypes; y++) {
			if (!ct->used[(size_t)t * m->ntypes + y] || (want && !want[ct_key(m, t, y)]))
				continue;
			xb_printf(o, "%sMW_HIDDEN void *const mw_ct%u_%u[%u]", define ? "" : "extern ",
			          t, y, n);
			if (!define) {
				xb_puts(o, ";\n");
				continue;
			}
			xb_puts(o, " = {");
			for (uint32_t i = 0; i < n; i++) {
				uint32_t f = ct->elems[t][i];
				xb_puts(o, i ? "," : "");
				xb_puts(o, i % 8 == 0 ? "\n  " : " ");
				if (f != CT_NULL && f >= m->nfunc_imports &&
				    ct->canon[m->func_types[f]] == y)
					xb_printf(o, "(void *)mw_f%u", f);
				else
					xb_puts(o, "0");
			}
			xb_puts(o, "\n};\n");
		}
	}
	for (uint32_t k = 0; k < ct->nsp; k++) {
		const spec *sp = &ct->sp[k];
		if (!sp->idx || (want && !want[sp_key(m, k)]))
			continue;
		xb_printf(o, "%sMW_HIDDEN const struct mw_spe mw_sp%u[%u]", define ? "" : "extern ",
		          k, sp->n);
		if (!define) {
			xb_puts(o, ";\n");
			continue;
		}
		xb_printf(o, " = {  /* table %u from address %u */", sp->table, sp->k);
		for (uint32_t i = 0; i < sp->n; i++)
			xb_printf(o, "%s%s{(void *)mw_f%u, %uu}", i ? "," : "", i % 4 == 0 ? "\n  " : " ",
			          ct->elems[sp->table][sp->idx[i]], sp->idx[i]);
		xb_puts(o, "\n};\n");
	}
}

/* Stable units (xlate_options.stable_units): a module of less than
 * STABLE_ONE bytes of C is one unit (one compiler run).  A larger one is
 * cut after function i when the unit holds STABLE_MIN bytes and a hash of
 * i is 0 modulo STABLE_PICK, or wherever the unit reaches STABLE_MAX.
 * Whether a function may end a unit thus depends on its index, not on its
 * text: a changed function changes its own unit, and moves a cut only if
 * its length carries a unit across STABLE_MIN or STABLE_MAX (functions
 * are named by index: inserting or removing one renames the ones after
 * it, and their units change anyway).  Units average about STABLE_MIN + 8
 * functions' worth of text (60-70 KB for gen-big.sh's functions), a
 * fraction of a second of compiler time each, so that a rebuilt module
 * whose changes touch a few units recompiles in about a second; a unit's
 * fixed cost (a compiler process, the prelude) is about 10 ms: the 199
 * units of bench/kernels' 12 MB module cost no measurably more CPU cold
 * than 29 units of 370 KB (bench/kernels/FINDINGS.md, section 9).  A
 * module under STABLE_ONE (tests/e2e's hello world, every kernel of
 * bench/kernels) stays one unit, so that its functions can still be
 * inlined into each other and it costs one compiler run. */
#define STABLE_ONE (512u * 1024)
#define STABLE_MIN (32u * 1024)
#define STABLE_MAX (256u * 1024)
#define STABLE_PICK 8u

static size_t split_stable(const xbuf *fb, uint32_t ndef, uint32_t *unit_of)
{
	uint32_t u = 0;
	size_t acc = 0, total = 0;
	if (!ndef)
		return 0;
	for (uint32_t i = 0; i < ndef; i++)
		total += fb[i].len;
	for (uint32_t i = 0; i < ndef; i++) {
		unit_of[i] = u;
		acc += fb[i].len;
		uint64_t h = ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ull;   /* Fibonacci hashing */
		bool pick = (h >> 40) % STABLE_PICK == 0;
		if (total >= STABLE_ONE && i + 1 < ndef &&
		    ((acc >= STABLE_MIN && pick) || acc >= STABLE_MAX)) {
			u++;
			acc = 0;
		}
	}
	return (size_t)u + 1;
}

int xlate_module(const wasm_module *m, const xlate_options *opt,
                 xlate_output *out, wasm_error *err)
{
	memset(out, 0, sizeof *out);
	int rc = check_supported(m, err);
	if (rc)
		return rc;
	uint32_t ndef = m->nfuncs - m->nfunc_imports;
	xbuf *fb = calloc(ndef + 1, sizeof *fb);
	uint32_t **callees = calloc(ndef + 1, sizeof *callees);
	uint32_t *ncallees = calloc(ndef + 1, sizeof *ncallees);
	uint64_t **arrays = calloc(ndef + 1, sizeof *arrays);
	uint32_t *narrays = calloc(ndef + 1, sizeof *narrays);
	uint8_t *want = NULL;
	uint32_t *unit_of = calloc(ndef + 1, sizeof *unit_of);
	uint8_t *declared = calloc(ndef + 1, 1);
	xbuf common = {0};
	ctables ct = {0};
	if (!fb || !callees || !ncallees || !arrays || !narrays || !unit_of || !declared ||
	    ctables_find(m, &ct)) {
		rc = WASM_ERR_NOMEM;
		goto done;
	}
	size_t total = 0;
	for (uint32_t i = 0; i < ndef; i++) {
		rc = translate_func(m, m->nfunc_imports + i, !(opt && opt->no_loop_versioning),
		                    opt && opt->terminal_traps,
		                    opt && opt->tier0, &ct, &fb[i], &callees[i],
		                    &ncallees[i], &arrays[i], &narrays[i], err);
		if (rc)
			goto done;
		total += fb[i].len;
	}

	bool stable = opt && opt->stable_units;
	size_t nunits;
	uint32_t u = 0;
	if (stable) {
		nunits = split_stable(fb, ndef, unit_of);
	} else {
		/* split into units of about the target size, at most max_units */
		size_t target = opt && opt->unit_target_bytes ? opt->unit_target_bytes : 256 * 1024;
		unsigned maxu = opt && opt->max_units ? opt->max_units : 0;
		if (!maxu) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			maxu = n > 0 ? (unsigned)n : 1;
		}
		nunits = (total + target - 1) / target;
		if (nunits < 1)
			nunits = 1;
		if (nunits > maxu)
			nunits = maxu;
		if (nunits > ndef && ndef > 0)
			nunits = ndef;
		size_t per = (total + nunits - 1) / nunits, acc = 0;
		for (uint32_t i = 0; i < ndef; i++) {
			if (acc >= per && u + 1 < nunits) {
				u++;
				acc = 0;
			}
			unit_of[i] = u;
			acc += fb[i].len;
		}
		nunits = (size_t)u + 1;
	}
	/* The unit with the module-wide tables: the first, or (stable units)
	 * one of its own after the functions' units, unless the functions fit
	 * in one (a small module: one compiler run, not two). */
	size_t tables = 0;
	if (stable && nunits > 1)
		tables = nunits++;
	else if (stable && nunits == 0)
		nunits = 1;

	/* Tier 0 is compiled at -O0, which inlines nothing else: the memory
	 * helpers go into the function, so that a fault's code address names
	 * it (trap.c). */
	if (opt && opt->tier0 && ndef)
		xb_puts(&common, "#define MW_MEMI __attribute__((always_inline))\n");
	put_prelude(&common);
	if (m->uses_simd || m->uses_threads) {
		char *ext = xlate_ext_prelude(m->uses_simd, m->uses_threads);
		if (!ext) {
			rc = WASM_ERR_NOMEM;
			goto done;
		}
		xb_puts(&common, ext);
		free(ext);
	}
	if (m->uses_eh)
		xb_printf(&common, "#define MW_EH_MAXVALS %uu\n%s", RT_EH_MAXVALS,
		          xlate_eh_prelude);
	put_result_structs(&common, m);
	if (opt && opt->tier0 && ndef)
		xb_puts(&common, "extern MW_HIDDEN void *mw_up[];\n");
	out->units = calloc(nunits, sizeof *out->units);
	if (!out->units || common.oom) {
		rc = WASM_ERR_NOMEM;
		goto done;
	}
	out->nunits = nunits;
	/* the arrays a unit's functions use (put_ctables); filled, then
	 * cleared, per unit */
	want = calloc((size_t)m->ntables * m->ntypes + ct.nsp + 1, 1);
	if (!want) {
		rc = WASM_ERR_NOMEM;
		goto done;
	}
	for (u = 0; u < nunits; u++) {
		xbuf o = {0};
		xb_put(&o, common.p, common.len);
		memset(declared, 0, ndef + 1);
		for (uint32_t i = 0; i < ndef; i++) {
			if (u == tables)
				declared[i] = 1;  /* the descriptor lists them all */
			if (unit_of[i] != u)
				continue;
			declared[i] = 1;
			for (uint32_t k = 0; k < ncallees[i]; k++)
				declared[callees[i][k] - m->nfunc_imports] = 1;
			for (uint32_t k = 0; k < narrays[i]; k++)
				want[arrays[i][k]] = 1;
		}
		for (uint32_t i = 0; i < ndef; i++) {
			if (!declared[i])
				continue;
			put_proto(&o, m, m->nfunc_imports + i, NULL);
			xb_puts(&o, ";\n");
		}
		put_ctables(&o, m, &ct, false, u == tables ? NULL : want);
		for (uint32_t i = 0; i < ndef; i++)
			for (uint32_t k = 0; unit_of[i] == u && k < narrays[i]; k++)
				want[arrays[i][k]] = 0;
		for (uint32_t i = 0; i < ndef; i++)
			if (unit_of[i] == u)
				xb_put(&o, fb[i].p, fb[i].len);
		if (u == tables) {
			put_ctables(&o, m, &ct, true, NULL);
			xb_puts(&o, "\n/* generic entry points, one per type */\n");
			for (uint32_t t = 0; t < m->ntypes; t++)
				put_invoke(&o, m, t);
			if (m->ntypes) {
				xb_puts(&o, "static const mw_invoke_fn mw_invokes[] = {");
				for (uint32_t t = 0; t < m->ntypes; t++)
					xb_printf(&o, "%s mw_inv%u", t ? "," : "", t);
				xb_puts(&o, " };\n");
			}
			if (ndef) {
				xb_puts(&o, "static void *const mw_funcs[] = {");
				for (uint32_t i = 0; i < ndef; i++)
					xb_printf(&o, "%s%s(void *)mw_f%u", i ? "," : "",
					          i % 8 == 0 ? "\n  " : " ", m->nfunc_imports + i);
				xb_puts(&o, "\n};\n");
			}
			if (opt && opt->tier0 && ndef)
				xb_printf(&o, "MW_HIDDEN void *mw_up[%u];\n"
				          "__attribute__((visibility(\"default\"))) void **const "
				          "mpiwasm_up = mw_up;\n", ndef);
			xb_printf(&o, "__attribute__((visibility(\"default\"))) const struct mw_code mpiwasm_code = {\n"
			          "  %uu, %uu, %uu, %uu, \"%s\", %s, %s\n};\n",
			          RT_CODE_ABI, m->ntypes, m->nfuncs, m->nfunc_imports,
			          XLATE_VERSION, m->ntypes ? "mw_invokes" : "0",
			          ndef ? "mw_funcs" : "0");
		}
		if (o.oom) {
			free(o.p);
			rc = WASM_ERR_NOMEM;
			goto done;
		}
		out->units[u].text = o.p;
		out->units[u].len = o.len;
	}
done:
	if (rc == WASM_ERR_NOMEM && err && err->code == WASM_OK) {
		err->code = WASM_ERR_NOMEM;
		err->func = UINT32_MAX;
		snprintf(err->msg, sizeof err->msg, "xlate_module: out of memory");
	}
	for (uint32_t i = 0; fb && i < ndef; i++)
		free(fb[i].p);
	for (uint32_t i = 0; callees && i < ndef; i++)
		free(callees[i]);
	for (uint32_t i = 0; arrays && i < ndef; i++)
		free(arrays[i]);
	free(arrays);
	free(narrays);
	free(want);
	free(fb);
	free(callees);
	free(ncallees);
	free(unit_of);
	free(declared);
	free(common.p);
	ctables_free(m, &ct);
	if (rc)
		xlate_output_free(out);
	return rc;
}

void xlate_output_free(xlate_output *out)
{
	for (size_t i = 0; out->units && i < out->nunits; i++)
		free(out->units[i].text);
	free(out->units);
	out->units = NULL;
	out->nunits = 0;
}
