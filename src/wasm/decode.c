/* decode.c - the WebAssembly 2.0 binary format into the IR of wasm.h.
 *
 * Structure only: every byte is checked against the binary grammar, counts
 * are bounded by the bytes left before anything is allocated, and indices
 * are stored unchecked for the validator (validate.c) to type. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/wasm.h"

#define WASM_MAX_LOCALS 50000u   /* per function, as other engines */
#define WASM_MAX_PARAMS 1000u    /* per type, as other engines */

typedef struct rd {
	const uint8_t *base;  /* start of the module, for offsets */
	const uint8_t *p, *end;
	wasm_error *err;
	wasm_module *m;
	unsigned flags;
} rd;

/* Fill the record unless an earlier error is there; always returns code. */
static int wasm_failv(wasm_error *err, int code, size_t off,
                      const char *fmt, va_list ap)
{
	if (err && err->code == WASM_OK) {
		err->code = code;
		err->offset = off;
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	}
	return code;
}

__attribute__((format(printf, 4, 5)))
static int dfail(rd *r, int code, const uint8_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wasm_failv(r->err, code, (size_t)(at - r->base), fmt, ap);
	va_end(ap);
	return code;
}

#define TRY(x) do { if ((rc = (x)) != 0) goto fail; } while (0)
#define MALFORMED(at, ...) do { rc = dfail(r, WASM_ERR_MALFORMED, (at), __VA_ARGS__); goto fail; } while (0)

static size_t left(const rd *r) { return (size_t)(r->end - r->p); }

static int rd_byte(rd *r, uint8_t *out, const char *what)
{
	*out = 0;
	if (r->p >= r->end)
		return dfail(r, WASM_ERR_MALFORMED, r->p,
		             "unexpected end: expected %s", what);
	*out = *r->p++;
	return 0;
}

static int rd_bytes(rd *r, size_t n, const uint8_t **out, const char *what)
{
	*out = r->p;
	if (left(r) < n)
		return dfail(r, WASM_ERR_MALFORMED, r->p,
		             "unexpected end: %s needs %zu bytes, %zu left",
		             what, n, left(r));
	*out = r->p;
	r->p += n;
	return 0;
}

/* Unsigned LEB128 of `bits` bits: at most ceil(bits/7) bytes, and the
 * bits of the last byte beyond `bits` must be zero. */
static int rd_uleb(rd *r, unsigned bits, uint64_t *out, const char *what)
{
	const uint8_t *start = r->p;
	unsigned maxn = (bits + 6) / 7;
	uint64_t v = 0;
	*out = 0;
	for (unsigned i = 0;; i++) {
		if (r->p >= r->end)
			return dfail(r, WASM_ERR_MALFORMED, start,
			             "unexpected end in LEB128 %s", what);
		uint8_t b = *r->p++;
		if (i == maxn - 1) {
			if (b & 0x80)
				return dfail(r, WASM_ERR_MALFORMED, start,
				             "integer representation too long (%s)", what);
			unsigned used = bits - 7 * i;
			uint8_t mask = (uint8_t)(0x7F & ~((1u << used) - 1));
			if (b & mask)
				return dfail(r, WASM_ERR_MALFORMED, start,
				             "integer too large (%s)", what);
		}
		v |= (uint64_t)(b & 0x7F) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	*out = v;
	return 0;
}

/* Signed LEB128 of `bits` bits; the unused bits of the last byte must be
 * copies of the sign bit. */
static int rd_sleb(rd *r, unsigned bits, int64_t *out, const char *what)
{
	const uint8_t *start = r->p;
	unsigned maxn = (bits + 6) / 7;
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	*out = 0;
	for (unsigned i = 0;; i++) {
		if (r->p >= r->end)
			return dfail(r, WASM_ERR_MALFORMED, start,
			             "unexpected end in LEB128 %s", what);
		b = *r->p++;
		if (i == maxn - 1) {
			if (b & 0x80)
				return dfail(r, WASM_ERR_MALFORMED, start,
				             "integer representation too long (%s)", what);
			unsigned used = bits - 7 * i;
			uint8_t mask = (uint8_t)(0x7F & ~((1u << (used - 1)) - 1));
			if ((b & mask) != 0 && (b & mask) != mask)
				return dfail(r, WASM_ERR_MALFORMED, start,
				             "integer too large (%s)", what);
		}
		v |= (uint64_t)(b & 0x7F) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	*out = (int64_t)v;
	return 0;
}

static int rd_u32(rd *r, uint32_t *out, const char *what)
{
	uint64_t v;
	int rc = rd_uleb(r, 32, &v, what);
	*out = (uint32_t)v;
	return rc;
}

/* A vector count: each element takes at least `minsize` bytes, so a count
 * beyond what is left is malformed before anything is allocated. */
static int rd_count(rd *r, uint32_t *out, size_t minsize, const char *what)
{
	const uint8_t *at = r->p;
	int rc = rd_u32(r, out, what);
	if (rc)
		return rc;
	if ((uint64_t)*out * minsize > left(r))
		return dfail(r, WASM_ERR_MALFORMED, at,
		             "%s count %u exceeds the %zu bytes left",
		             what, *out, left(r));
	return 0;
}

static bool utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = s[i];
		if (c < 0x80) { i++; continue; }
		uint32_t cp, min;
		size_t len;
		if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
		else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
		else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
		else return false;
		if (n - i < len)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += len;
	}
	return true;
}

/* A name: length, UTF-8 bytes.  *out is a NUL-terminated copy. */
static int rd_name(rd *r, char **out, uint32_t *outlen, const char *what)
{
	const uint8_t *at = r->p, *s;
	uint32_t n;
	int rc;
	if ((rc = rd_u32(r, &n, what)) || (rc = rd_bytes(r, n, &s, what)))
		return rc;
	if (!utf8_valid(s, n))
		return dfail(r, WASM_ERR_MALFORMED, at, "malformed UTF-8 encoding in %s", what);
	if (out) {
		char *c = malloc((size_t)n + 1);
		if (!c)
			return dfail(r, WASM_ERR_NOMEM, at, "out of memory for %s", what);
		memcpy(c, s, n);
		c[n] = 0;
		*out = c;
	}
	if (outlen)
		*outlen = n;
	return 0;
}

static int rd_valtype(rd *r, uint8_t *out)
{
	const uint8_t *at = r->p;
	uint8_t b;
	int rc = rd_byte(r, &b, "value type");
	if (rc)
		return rc;
	switch (b) {
	case WASM_I32: case WASM_I64: case WASM_F32: case WASM_F64:
	case WASM_FUNCREF: case WASM_EXTERNREF:
		*out = b;
		return 0;
	case WASM_V128:
		r->m->uses_simd = true;
		*out = b;
		return 0;
	default:
		return dfail(r, WASM_ERR_MALFORMED, at, "malformed value type 0x%02x", b);
	}
}

static int rd_reftype(rd *r, uint8_t *out)
{
	const uint8_t *at = r->p;
	uint8_t b;
	int rc = rd_byte(r, &b, "reference type");
	if (rc)
		return rc;
	if (b != WASM_FUNCREF && b != WASM_EXTERNREF)
		return dfail(r, WASM_ERR_MALFORMED, at,
		             "malformed reference type 0x%02x", b);
	*out = b;
	return 0;
}

static int rd_limits(rd *r, wasm_limits *lim, bool is_mem)
{
	const uint8_t *at = r->p;
	uint8_t flags;
	uint32_t v;
	int rc;
	if ((rc = rd_byte(r, &flags, "limits flags")))
		return rc;
	/* 0x03 is a shared memory (threads); shared needs a maximum, so 0x02
	 * is no encoding at all. */
	if (flags > (is_mem ? 3 : 1) || flags == 2)
		return dfail(r, WASM_ERR_MALFORMED, at,
		             "integer too large: malformed limits flags 0x%02x", flags);
	lim->has_max = flags & 1;
	lim->shared = (flags & 2) != 0;
	if (lim->shared)
		r->m->uses_threads = true;
	if ((rc = rd_u32(r, &v, "limits minimum")))
		return rc;
	lim->min = v;
	lim->max = 0;
	if (lim->has_max) {
		if ((rc = rd_u32(r, &v, "limits maximum")))
			return rc;
		lim->max = v;
	}
	return 0;
}

static int rd_globaltype(rd *r, wasm_globaltype *g)
{
	const uint8_t *at;
	uint8_t mut;
	int rc;
	if ((rc = rd_valtype(r, &g->type)))
		return rc;
	at = r->p;
	if ((rc = rd_byte(r, &mut, "global mutability")))
		return rc;
	if (mut > 1)
		return dfail(r, WASM_ERR_MALFORMED, at, "malformed mutability 0x%02x", mut);
	g->mut = mut;
	return 0;
}

/* Wasm 2.0 constant expression: one constant instruction and `end`.  The
 * IR holds just that one instruction, so longer or non-constant
 * expressions are refused here, as the validator would. */
static int rd_constexpr(rd *r, wasm_constexpr *ce)
{
	const uint8_t *at = r->p;
	uint8_t op;
	int64_t s;
	int rc;
	memset(ce, 0, sizeof *ce);
	ce->offset = (size_t)(at - r->base);
	if ((rc = rd_byte(r, &op, "constant expression")))
		return rc;
	ce->op = op;
	switch (op) {
	case WASM_OP_I32_CONST:
		if ((rc = rd_sleb(r, 32, &s, "i32.const")))
			return rc;
		ce->u.i32 = (int32_t)s;
		break;
	case WASM_OP_I64_CONST:
		if ((rc = rd_sleb(r, 64, &s, "i64.const")))
			return rc;
		ce->u.i64 = s;
		break;
	case WASM_OP_F32_CONST: {
		const uint8_t *b;
		if ((rc = rd_bytes(r, 4, &b, "f32.const")))
			return rc;
		memcpy(&ce->u.f32, b, 4);   /* little-endian host assumed, as the ABI */
		break;
	}
	case WASM_OP_F64_CONST: {
		const uint8_t *b;
		if ((rc = rd_bytes(r, 8, &b, "f64.const")))
			return rc;
		memcpy(&ce->u.f64, b, 8);
		break;
	}
	case WASM_OP_REF_NULL:
		if ((rc = rd_reftype(r, &ce->u.reftype)))
			return rc;
		break;
	case WASM_OP_REF_FUNC:
	case WASM_OP_GLOBAL_GET:
		if ((rc = rd_u32(r, &ce->u.index, "index")))
			return rc;
		break;
	case 0xFD: {
		uint32_t sub;
		const uint8_t *b;
		r->m->uses_simd = true;
		if ((rc = rd_u32(r, &sub, "0xFD sub-opcode")))
			return rc;
		if (sub != (WASM_PREFIXED(0xFD, 0x0C) & 0xFFFF))
			return dfail(r, WASM_ERR_INVALID, at,
			             "constant expression required (opcode 0xfd %u)", sub);
		if ((rc = rd_bytes(r, 16, &b, "v128.const")))
			return rc;
		ce->op = WASM_PREFIXED(0xFD, 0x0C);
		memcpy(ce->u.v128, b, 16);
		break;
	}
	case WASM_OP_END:
		return dfail(r, WASM_ERR_INVALID, at,
		             "type mismatch: empty constant expression");
	default:
		return dfail(r, WASM_ERR_INVALID, at,
		             "constant expression required (opcode 0x%02x)", op);
	}
	at = r->p;
	if ((rc = rd_byte(r, &op, "end of constant expression")))
		return rc;
	if (op != WASM_OP_END)
		return dfail(r, WASM_ERR_INVALID, at,
		             "type mismatch: constant expression has more than one instruction");
	return 0;
}

/* ---- sections -------------------------------------------------------- */

static int sec_type(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 3, "type")))
		return rc;
	if (!(m->types = calloc(n ? n : 1, sizeof *m->types)))
		return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for types");
	m->ntypes = n;
	for (uint32_t i = 0; i < n; i++) {
		wasm_functype *t = &m->types[i];
		const uint8_t *at = r->p;
		uint8_t form;
		if ((rc = rd_byte(r, &form, "function type")))
			return rc;
		if (form != 0x60)
			return dfail(r, WASM_ERR_MALFORMED, at,
			             "integer representation too long: expected 0x60 function type, got 0x%02x", form);
		for (int k = 0; k < 2; k++) {
			uint32_t c;
			at = r->p;
			if ((rc = rd_count(r, &c, 1, k ? "result" : "parameter")))
				return rc;
			if (c > WASM_MAX_PARAMS)
				return dfail(r, WASM_ERR_LIMIT, at, "type %u has %u %s, the limit is %u",
				             i, c, k ? "results" : "parameters", WASM_MAX_PARAMS);
			uint8_t *v = malloc(c ? c : 1);
			if (!v)
				return dfail(r, WASM_ERR_NOMEM, at, "out of memory for a type");
			if (k) { t->results = v; t->nresults = c; }
			else { t->params = v; t->nparams = c; }
			for (uint32_t j = 0; j < c; j++)
				if ((rc = rd_valtype(r, &v[j])))
					return rc;
		}
	}
	return 0;
}

/* A tag type: attribute 0 (an exception), then a function type index. */
static int rd_tagtype(rd *r, uint32_t *type)
{
	const uint8_t *at = r->p;
	uint8_t attr;
	int rc;
	if ((rc = rd_byte(r, &attr, "tag attribute")))
		return rc;
	if (attr != 0)
		return dfail(r, WASM_ERR_MALFORMED, at, "malformed tag attribute 0x%02x", attr);
	return rd_u32(r, type, "tag type index");
}

static int sec_import(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 4, "import")))
		return rc;
	if (!(m->imports = calloc(n ? n : 1, sizeof *m->imports)))
		return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for imports");
	m->nimports = n;
	for (uint32_t i = 0; i < n; i++) {
		wasm_import *im = &m->imports[i];
		const uint8_t *at;
		if ((rc = rd_name(r, &im->module, NULL, "import module name")) ||
		    (rc = rd_name(r, &im->name, NULL, "import name")))
			return rc;
		at = r->p;
		if ((rc = rd_byte(r, &im->kind, "import kind")))
			return rc;
		switch (im->kind) {
		case WASM_EXTERN_FUNC:
			rc = rd_u32(r, &im->u.func_type, "import type index");
			m->nfunc_imports++;
			break;
		case WASM_EXTERN_TABLE:
			if (!(rc = rd_reftype(r, &im->u.table.elemtype)))
				rc = rd_limits(r, &im->u.table.lim, false);
			m->ntable_imports++;
			break;
		case WASM_EXTERN_MEMORY:
			rc = rd_limits(r, &im->u.mem.lim, true);
			m->nmem_imports++;
			break;
		case WASM_EXTERN_GLOBAL:
			rc = rd_globaltype(r, &im->u.global);
			m->nglobal_imports++;
			break;
		case WASM_EXTERN_TAG:
			rc = rd_tagtype(r, &im->u.tag_type);
			m->ntag_imports++;
			m->uses_eh = true;
			break;
		default:
			return dfail(r, WASM_ERR_MALFORMED, at, "malformed import kind 0x%02x", im->kind);
		}
		if (rc)
			return rc;
	}
	/* The index spaces start with the imports. */
	m->nfuncs = m->nfunc_imports;
	m->ntables = m->ntable_imports;
	m->nmems = m->nmem_imports;
	m->nglobals = m->nglobal_imports;
	m->func_types = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *m->func_types);
	m->tables = calloc(m->ntables ? m->ntables : 1, sizeof *m->tables);
	m->mems = calloc(m->nmems ? m->nmems : 1, sizeof *m->mems);
	m->globals = calloc(m->nglobals ? m->nglobals : 1, sizeof *m->globals);
	m->ntags = m->ntag_imports;
	m->tags = calloc(m->ntags ? m->ntags : 1, sizeof *m->tags);
	if (!m->func_types || !m->tables || !m->mems || !m->globals || !m->tags)
		return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for imports");
	uint32_t f = 0, t = 0, me = 0, g = 0, tg = 0;
	for (uint32_t i = 0; i < n; i++) {
		wasm_import *im = &m->imports[i];
		switch (im->kind) {
		case WASM_EXTERN_FUNC: m->func_types[f++] = im->u.func_type; break;
		case WASM_EXTERN_TABLE: m->tables[t++] = im->u.table; break;
		case WASM_EXTERN_MEMORY: m->mems[me++] = im->u.mem; break;
		case WASM_EXTERN_GLOBAL:
			m->globals[g].type = im->u.global;
			m->globals[g].imported = true;
			g++;
			break;
		case WASM_EXTERN_TAG: m->tags[tg++] = im->u.tag_type; break;
		}
	}
	return 0;
}

/* Grows an index-space array from `have` to `have + add` zeroed entries. */
static void *grow(void *p, uint32_t have, uint32_t add, size_t elsize)
{
	size_t total = (size_t)have + add;
	void *q = realloc(p, (total ? total : 1) * elsize);
	if (q)
		memset((char *)q + have * elsize, 0, (size_t)add * elsize);
	return q;
}

#define GROW(arr, have, add) do { \
	void *q_ = grow((arr), (have), (add), sizeof *(arr)); \
	if (!q_) return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory"); \
	(arr) = q_; } while (0)

static int sec_function(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 1, "function")))
		return rc;
	GROW(m->func_types, m->nfuncs, n);
	if (!(m->funcs = calloc(n ? n : 1, sizeof *m->funcs)))
		return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for functions");
	m->nfuncs += n;
	for (uint32_t i = 0; i < n; i++) {
		if ((rc = rd_u32(r, &m->funcs[i].type, "function type index")))
			return rc;
		m->func_types[m->nfunc_imports + i] = m->funcs[i].type;
	}
	return 0;
}

static int sec_table(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 2, "table")))
		return rc;
	GROW(m->tables, m->ntables, n);
	for (uint32_t i = 0; i < n; i++) {
		wasm_tabletype *t = &m->tables[m->ntables];
		if ((rc = rd_reftype(r, &t->elemtype)) ||
		    (rc = rd_limits(r, &t->lim, false)))
			return rc;
		m->ntables++;
	}
	return 0;
}

static int sec_memory(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 2, "memory")))
		return rc;
	GROW(m->mems, m->nmems, n);
	for (uint32_t i = 0; i < n; i++) {
		if ((rc = rd_limits(r, &m->mems[m->nmems].lim, true)))
			return rc;
		m->nmems++;
	}
	return 0;
}

static int sec_global(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 3, "global")))
		return rc;
	GROW(m->globals, m->nglobals, n);
	for (uint32_t i = 0; i < n; i++) {
		wasm_global *g = &m->globals[m->nglobals];
		if ((rc = rd_globaltype(r, &g->type)) ||
		    (rc = rd_constexpr(r, &g->init)))
			return rc;
		m->nglobals++;
	}
	return 0;
}

static int sec_tag(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 2, "tag")))
		return rc;
	void *q = grow(m->tags, m->ntags, n, sizeof *m->tags);
	if (!q)
		return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for tags");
	m->tags = q;
	m->uses_eh = true;
	for (uint32_t i = 0; i < n; i++) {
		if ((rc = rd_tagtype(r, &m->tags[m->ntags])))
			return rc;
		m->ntags++;
	}
	return 0;
}

static int sec_export(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 3, "export")))
		return rc;
	if (!(m->exports = calloc(n ? n : 1, sizeof *m->exports)))
		return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for exports");
	m->nexports = n;
	for (uint32_t i = 0; i < n; i++) {
		wasm_export *e = &m->exports[i];
		const uint8_t *at;
		if ((rc = rd_name(r, &e->name, &e->name_len, "export name")))
			return rc;
		at = r->p;
		if ((rc = rd_byte(r, &e->kind, "export kind")))
			return rc;
		if (e->kind > WASM_EXTERN_TAG)
			return dfail(r, WASM_ERR_MALFORMED, at, "malformed export kind 0x%02x", e->kind);
		if ((rc = rd_u32(r, &e->index, "export index")))
			return rc;
	}
	return 0;
}

static int sec_start(rd *r)
{
	r->m->has_start = true;
	return rd_u32(r, &r->m->start, "start function index");
}

static int sec_elem(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 2, "element segment")))
		return rc;
	if (!(m->elems = calloc(n ? n : 1, sizeof *m->elems)))
		return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for element segments");
	m->nelems = n;
	for (uint32_t i = 0; i < n; i++) {
		wasm_elem *e = &m->elems[i];
		const uint8_t *at = r->p;
		uint32_t flags, cnt;
		e->offset_in_file = (size_t)(at - r->base);
		if ((rc = rd_u32(r, &flags, "element segment flags")))
			return rc;
		if (flags > 7)
			return dfail(r, WASM_ERR_MALFORMED, at,
			             "malformed elements segment kind %u", flags);
		/* bit 0: passive or declarative; bit 1: explicit table (active)
		 * or declarative; bit 2: expressions instead of function indices. */
		if (flags & 1)
			e->mode = (flags & 2) ? WASM_SEG_DECLARATIVE : WASM_SEG_PASSIVE;
		else
			e->mode = WASM_SEG_ACTIVE;
		e->type = WASM_FUNCREF;
		if (e->mode == WASM_SEG_ACTIVE) {
			if ((flags & 2) && (rc = rd_u32(r, &e->table, "element table index")))
				return rc;
			if ((rc = rd_constexpr(r, &e->offset)))
				return rc;
		}
		if (flags & 3) {
			if (flags & 4) {
				if ((rc = rd_reftype(r, &e->type)))
					return rc;
			} else {
				uint8_t kind;
				at = r->p;
				if ((rc = rd_byte(r, &kind, "element kind")))
					return rc;
				if (kind != 0)
					return dfail(r, WASM_ERR_MALFORMED, at,
					             "malformed element kind 0x%02x", kind);
			}
		}
		if ((rc = rd_count(r, &cnt, (flags & 4) ? 2 : 1, "element")))
			return rc;
		if (!(e->init = calloc(cnt ? cnt : 1, sizeof *e->init)))
			return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for elements");
		e->ninit = cnt;
		for (uint32_t j = 0; j < cnt; j++) {
			if (flags & 4) {
				if ((rc = rd_constexpr(r, &e->init[j])))
					return rc;
			} else {
				e->init[j].op = WASM_OP_REF_FUNC;
				e->init[j].offset = (size_t)(r->p - r->base);
				if ((rc = rd_u32(r, &e->init[j].u.index, "element function index")))
					return rc;
			}
		}
	}
	return 0;
}

static int sec_data(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	if ((rc = rd_count(r, &n, 2, "data segment")))
		return rc;
	if (!(m->datas = calloc(n ? n : 1, sizeof *m->datas)))
		return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for data segments");
	m->ndatas = n;
	for (uint32_t i = 0; i < n; i++) {
		wasm_data *d = &m->datas[i];
		const uint8_t *at = r->p;
		uint32_t flags;
		d->offset_in_file = (size_t)(at - r->base);
		if ((rc = rd_u32(r, &flags, "data segment flags")))
			return rc;
		if (flags > 2)
			return dfail(r, WASM_ERR_MALFORMED, at,
			             "malformed data segment kind %u", flags);
		d->mode = flags == 1 ? WASM_SEG_PASSIVE : WASM_SEG_ACTIVE;
		if (flags == 2 && (rc = rd_u32(r, &d->mem, "data memory index")))
			return rc;
		if (flags != 1 && (rc = rd_constexpr(r, &d->offset)))
			return rc;
		if ((rc = rd_u32(r, &d->size, "data size")) ||
		    (rc = rd_bytes(r, d->size, &d->bytes, "data segment")))
			return rc;
	}
	return 0;
}

/* ---- function bodies ------------------------------------------------- */

typedef struct vec {
	void *p;
	size_t n, cap;
} vec;

/* Makes room for one more element; the caller bounds n by the input. */
static void *vec_push(vec *v, size_t elsize)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *q = realloc(v->p, cap * elsize);
		if (!q)
			return NULL;
		v->p = q;
		v->cap = cap;
	}
	return (char *)v->p + elsize * v->n++;
}

static int rd_blocktype(rd *r, wasm_instr *in)
{
	const uint8_t *at = r->p;
	int64_t s;
	int rc;
	if (r->p < r->end) {
		uint8_t b = *r->p;
		if (b == 0x40) {
			r->p++;
			in->u.block.kind = WASM_BLOCK_EMPTY;
			return 0;
		}
		if (b == WASM_I32 || b == WASM_I64 || b == WASM_F32 || b == WASM_F64 ||
		    b == WASM_FUNCREF || b == WASM_EXTERNREF || b == WASM_V128) {
			uint8_t t;
			if ((rc = rd_valtype(r, &t)))
				return rc;
			in->u.block.kind = WASM_BLOCK_VAL;
			in->u.block.type = t;
			return 0;
		}
	}
	if ((rc = rd_sleb(r, 33, &s, "block type")))
		return rc;
	if (s < 0)
		return dfail(r, WASM_ERR_MALFORMED, at, "malformed block type");
	if (s > UINT32_MAX)
		return dfail(r, WASM_ERR_MALFORMED, at, "block type index too large");
	in->u.block.kind = WASM_BLOCK_TYPEIDX;
	in->u.block.type = (uint32_t)s;
	return 0;
}

static int rd_zero(rd *r)
{
	const uint8_t *at = r->p;
	uint8_t b;
	int rc = rd_byte(r, &b, "zero byte");
	if (rc)
		return rc;
	if (b != 0)
		return dfail(r, WASM_ERR_MALFORMED, at, "zero byte expected");
	return 0;
}

static int rd_memarg(rd *r, wasm_instr *in)
{
	int rc;
	if ((rc = rd_u32(r, &in->u.mem.align, "memory alignment")))
		return rc;
	in->u.mem.mem = 0;
	return rd_u32(r, &in->u.mem.offset, "memory offset");
}

static int rd_immediates(rd *r, const wasm_opinfo *oi, wasm_instr *in,
                         vec *pool)
{
	int64_t s;
	int rc = 0;
	switch (oi->imm) {
	case IMM_NONE:
		return 0;
	case IMM_BLOCK:
		return rd_blocktype(r, in);
	case IMM_LABEL: case IMM_FUNC: case IMM_LOCAL: case IMM_GLOBAL:
	case IMM_TABLE: case IMM_DATA: case IMM_ELEM: case IMM_TAG:
		return rd_u32(r, &in->u.index, oi->name);
	case IMM_BRTABLE: {
		uint32_t n;
		if ((rc = rd_count(r, &n, 1, "br_table label")))
			return rc;
		in->u.brtable.count = n;
		in->u.brtable.first = (uint32_t)pool->n;
		for (uint32_t i = 0; i <= n; i++) {
			uint32_t *slot = vec_push(pool, sizeof *slot);
			if (!slot)
				return dfail(r, WASM_ERR_NOMEM, r->p, "out of memory for br_table");
			if ((rc = rd_u32(r, slot, "br_table label")))
				return rc;
		}
		return 0;
	}
	case IMM_CALLIND: case IMM_ELEM_TABLE: case IMM_TABLE_TABLE:
		if ((rc = rd_u32(r, &in->u.two.a, oi->name)))
			return rc;
		return rd_u32(r, &in->u.two.b, oi->name);
	case IMM_SELECT_T: {
		uint32_t n;
		if ((rc = rd_count(r, &n, 1, "select type")))
			return rc;
		in->u.two.b = n;
		in->u.two.a = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint8_t t;
			if ((rc = rd_valtype(r, &t)))
				return rc;
			if (i == 0)
				in->u.two.a = t;
		}
		return 0;
	}
	case IMM_MEM:
		return rd_memarg(r, in);
	case IMM_MEMIDX:
		in->u.index = 0;
		return rd_zero(r);
	case IMM_DATA_MEM:
		if ((rc = rd_u32(r, &in->u.two.a, "data index")))
			return rc;
		in->u.two.b = 0;
		return rd_zero(r);
	case IMM_MEM_MEM:
		in->u.two.a = in->u.two.b = 0;
		if ((rc = rd_zero(r)))
			return rc;
		return rd_zero(r);
	case IMM_I32:
		if ((rc = rd_sleb(r, 32, &s, "i32 constant")))
			return rc;
		in->u.i32 = (int32_t)s;
		return 0;
	case IMM_I64:
		if ((rc = rd_sleb(r, 64, &s, "i64 constant")))
			return rc;
		in->u.i64 = s;
		return 0;
	case IMM_F32: {
		const uint8_t *b;
		if ((rc = rd_bytes(r, 4, &b, "f32 constant")))
			return rc;
		memcpy(&in->u.f32, b, 4);
		return 0;
	}
	case IMM_F64: {
		const uint8_t *b;
		if ((rc = rd_bytes(r, 8, &b, "f64 constant")))
			return rc;
		memcpy(&in->u.f64, b, 8);
		return 0;
	}
	case IMM_REFTYPE: {
		uint8_t t;
		if ((rc = rd_reftype(r, &t)))
			return rc;
		in->u.index = t;
		return 0;
	}
	case IMM_V128: case IMM_SHUFFLE: {
		const uint8_t *b;
		if ((rc = rd_bytes(r, 16, &b, oi->name)))
			return rc;
		memcpy(in->u.v128, b, 16);
		return 0;
	}
	case IMM_LANE:
		return rd_byte(r, &in->u.lane, "lane index");
	case IMM_MEMLANE:
		if ((rc = rd_memarg(r, in)))
			return rc;
		return rd_byte(r, &in->u.mem.lane, "lane index");
	default:
		return dfail(r, WASM_ERR_MALFORMED, r->p,
		             "immediate kind %u of %s is unknown", oi->imm, oi->name);
	}
}

/* Decodes one body (locals and instructions) of r->p..r->end. */
static int rd_body(rd *r, uint32_t fidx, wasm_func *f)
{
	wasm_module *m = r->m;
	vec code = {0}, pool = {0}, ctl = {0};
	uint32_t nruns;
	uint64_t total = 0;
	int rc = 0;

	r->err->func = m->nfunc_imports + fidx;
	const uint8_t *at = r->p;
	TRY(rd_count(r, &nruns, 2, "local run"));
	if (!(f->locals = calloc(nruns ? nruns : 1, sizeof *f->locals))) {
		rc = dfail(r, WASM_ERR_NOMEM, at, "out of memory for locals");
		goto fail;
	}
	f->nlocalruns = nruns;
	for (uint32_t i = 0; i < nruns; i++) {
		TRY(rd_u32(r, &f->locals[i].count, "local count"));
		total += f->locals[i].count;
		if (total > UINT32_MAX)
			MALFORMED(at, "too many locals");
		TRY(rd_valtype(r, &f->locals[i].type));
	}
	if (total > WASM_MAX_LOCALS) {
		rc = dfail(r, WASM_ERR_LIMIT, at,
		           "%llu locals, the limit is %u",
		           (unsigned long long)total, WASM_MAX_LOCALS);
		goto fail;
	}
	f->nlocals = (uint32_t)total;

	if (r->flags & WASM_DECODE_NO_BODIES) {
		r->p = r->end;
		r->err->func = UINT32_MAX;
		return 0;
	}

	for (;;) {
		const uint8_t *ip = r->p;
		uint8_t b;
		uint32_t op;
		if (r->p >= r->end)
			MALFORMED(ip, "unexpected end of function body: END opcode expected");
		b = *r->p++;
		if (b == 0xFC) {
			uint32_t sub;
			TRY(rd_u32(r, &sub, "0xFC sub-opcode"));
			if (sub > 0xFFFF)
				MALFORMED(ip, "illegal opcode 0xfc %u", sub);
			op = WASM_PREFIXED(0xFC, sub);
		} else if (b == 0xFD || b == 0xFE) {
			uint32_t sub;
			if (b == 0xFD)
				m->uses_simd = true;
			else
				m->uses_threads = true;
			TRY(rd_u32(r, &sub, b == 0xFD ? "0xFD sub-opcode" : "0xFE sub-opcode"));
			if (sub > 0xFFFF)
				MALFORMED(ip, "illegal opcode 0x%02x %u", b, sub);
			op = WASM_PREFIXED(b, sub);
		} else {
			op = b;
		}
		const wasm_opinfo *oi = wasm_opinfo_get(op);
		if (!oi) {
			if (op >> 16)
				MALFORMED(ip, "illegal opcode 0x%02x %u", op >> 16, op & 0xFFFF);
			MALFORMED(ip, "illegal opcode 0x%02x", op);
		}
		if ((uint64_t)code.n >= UINT32_MAX)
			MALFORMED(ip, "too many instructions");
		wasm_instr *in = vec_push(&code, sizeof *in);
		if (!in) {
			rc = dfail(r, WASM_ERR_NOMEM, ip, "out of memory for code");
			goto fail;
		}
		uint32_t idx = (uint32_t)(code.n - 1);
		memset(in, 0, sizeof *in);
		in->op = op;
		in->offset = (uint32_t)(ip - r->base);
		TRY(rd_immediates(r, oi, in, &pool));
		wasm_instr *ins = code.p;
		uint32_t *stack = ctl.p;
		switch (op) {
		case WASM_OP_BLOCK: case WASM_OP_LOOP: case WASM_OP_IF: case WASM_OP_TRY: {
			uint32_t *slot = vec_push(&ctl, sizeof *slot);
			if (!slot) {
				rc = dfail(r, WASM_ERR_NOMEM, ip, "out of memory for blocks");
				goto fail;
			}
			*slot = idx;
			break;
		}
		case WASM_OP_ELSE: {
			if (ctl.n == 0 || ins[stack[ctl.n - 1]].op != WASM_OP_IF ||
			    ins[stack[ctl.n - 1]].u.block.else_ != 0)
				MALFORMED(ip, "else without a matching if");
			wasm_instr *open = &ins[stack[ctl.n - 1]];
			open->u.block.else_ = idx;
			break;
		}
		case WASM_OP_CATCH: case WASM_OP_CATCH_ALL:
			if (ctl.n == 0 || ins[stack[ctl.n - 1]].op != WASM_OP_TRY)
				MALFORMED(ip, "%s without a matching try", oi->name);
			m->uses_eh = true;
			break;
		case WASM_OP_DELEGATE: {
			if (ctl.n == 0 || ins[stack[ctl.n - 1]].op != WASM_OP_TRY)
				MALFORMED(ip, "delegate without a matching try");
			ins[stack[--ctl.n]].u.block.end = idx;
			break;
		}
		case WASM_OP_THROW: case WASM_OP_RETHROW:
			m->uses_eh = true;
			break;
		case WASM_OP_END:
			if (ctl.n == 0) {
				in->u.block.kind = WASM_BLOCK_TYPEIDX;
				in->u.block.type = f->type;
				in->u.block.else_ = 0;
				in->u.block.end = idx;
				if (r->p != r->end)
					MALFORMED(r->p, "section size mismatch: bytes after the function's final end");
				goto done;
			} else {
				wasm_instr *open = &ins[stack[--ctl.n]];
				open->u.block.end = idx;
				in->u.block = open->u.block;
				if (open->u.block.else_)
					ins[open->u.block.else_].u.block = open->u.block;
			}
			break;
		}
	}
done:
	f->code = code.p;
	f->ncode = (uint32_t)code.n;
	f->brtable = pool.p;
	f->nbrtable = (uint32_t)pool.n;
	free(ctl.p);
	r->err->func = UINT32_MAX;
	return 0;
fail:
	free(code.p);
	free(pool.p);
	free(ctl.p);
	return rc;
}

static int sec_code(rd *r)
{
	wasm_module *m = r->m;
	uint32_t n;
	int rc;
	const uint8_t *at = r->p;
	if ((rc = rd_count(r, &n, 2, "code")))
		return rc;
	if (n != m->nfuncs - m->nfunc_imports)
		return dfail(r, WASM_ERR_MALFORMED, at,
		             "function and code section have inconsistent lengths (%u vs %u)",
		             m->nfuncs - m->nfunc_imports, n);
	for (uint32_t i = 0; i < n; i++) {
		wasm_func *f = &m->funcs[i];
		uint32_t size;
		const uint8_t *body;
		if ((rc = rd_u32(r, &size, "function body size")) ||
		    (rc = rd_bytes(r, size, &body, "function body")))
			return rc;
		f->body_offset = (size_t)(body - r->base);
		f->body_size = size;
		rd sub = *r;
		sub.p = body;
		sub.end = body + size;
		if ((rc = rd_body(&sub, i, f)))
			return rc;
	}
	m->bodies_decoded = !(r->flags & WASM_DECODE_NO_BODIES);
	return 0;
}

/* The `name` custom section: errors in it are ignored (it is custom), so
 * it is parsed with a scratch error record, after all other sections.
 * Running out of memory is not ignored: WASM_ERR_NOMEM (through r, the
 * decoder's own reader), else 0. */
static int sec_names(rd *outer, wasm_module *m, const uint8_t *base, const uint8_t *p,
                     const uint8_t *end)
{
	wasm_error scratch = { .code = 0, .func = UINT32_MAX };
	rd r = { .base = base, .p = p, .end = end, .err = &scratch, .m = m };
	char *modname = NULL;
	char **names = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *names);
	int last = -1;
	if (!names)
		return dfail(outer, WASM_ERR_NOMEM, p, "out of memory for the name section");
	while (r.p < r.end) {
		uint8_t id;
		uint32_t size;
		const uint8_t *body;
		if (rd_byte(&r, &id, "name subsection") ||
		    rd_u32(&r, &size, "name subsection size") ||
		    rd_bytes(&r, size, &body, "name subsection"))
			goto bad;
		if ((int)id <= last)
			goto bad;
		last = id;
		rd s = r;
		s.p = body;
		s.end = body + size;
		if (id == 0) {
			if (rd_name(&s, &modname, NULL, "module name") || s.p != s.end)
				goto bad;
		} else if (id == 1) {
			uint32_t cnt, prev = 0;
			if (rd_count(&s, &cnt, 2, "function name"))
				goto bad;
			for (uint32_t i = 0; i < cnt; i++) {
				uint32_t idx;
				char *nm;
				if (rd_u32(&s, &idx, "function index"))
					goto bad;
				if ((i > 0 && idx <= prev) || idx >= m->nfuncs)
					goto bad;
				prev = idx;
				if (rd_name(&s, &nm, NULL, "function name"))
					goto bad;
				names[idx] = nm;
			}
			if (s.p != s.end)
				goto bad;
		}
	}
	m->module_name = modname;
	m->func_names = names;
	return 0;
bad:
	free(modname);
	for (uint32_t i = 0; i < m->nfuncs; i++)
		free(names[i]);
	free(names);
	if (scratch.code == WASM_ERR_NOMEM)
		return dfail(outer, WASM_ERR_NOMEM, p, "out of memory for the name section");
	return 0;
}

/* Section ids in their required order (data count sits before code, the
 * exception handling proposal's tags between memory and global). */
static int sec_rank(uint8_t id)
{
	static const int rank[14] = {
		[1] = 1, [2] = 2, [3] = 3, [4] = 4, [5] = 5, [13] = 6, [6] = 7,
		[7] = 8, [8] = 9, [9] = 10, [12] = 11, [10] = 12, [11] = 13,
	};
	return id < 14 ? rank[id] : -1;
}

int wasm_decode(const uint8_t *bytes, size_t size, unsigned flags,
                wasm_module *out, wasm_error *err)
{
	static const uint8_t magic[8] = { 0, 'a', 's', 'm', 1, 0, 0, 0 };
	wasm_error dummy;
	int rc = 0, lastrank = 0;
	bool have_code = false;
	const uint8_t *names = NULL, *names_end = NULL;

	if (!err)
		err = &dummy;
	memset(err, 0, sizeof *err);
	err->func = UINT32_MAX;
	memset(out, 0, sizeof *out);
	out->bytes = bytes;
	out->size = size;
	rd rr = { .base = bytes, .p = bytes, .end = bytes + size, .err = err,
	          .m = out, .flags = flags };
	rd *r = &rr;
	if (!bytes && size)
		MALFORMED(r->p, "no input");

	if (size < 4 || memcmp(bytes, magic, 4) != 0)
		MALFORMED(r->p, "magic header not detected");
	if (size < 8 || memcmp(bytes + 4, magic + 4, 4) != 0)
		MALFORMED(r->p + 4, "unknown binary version");
	r->p += 8;

	while (r->p < r->end) {
		const uint8_t *at = r->p;
		uint8_t id;
		uint32_t len;
		const uint8_t *body;
		TRY(rd_byte(r, &id, "section id"));
		int rank = sec_rank(id);
		if (id != 0 && rank <= 0)
			MALFORMED(at, "malformed section id %u", id);
		TRY(rd_u32(r, &len, "section size"));
		TRY(rd_bytes(r, len, &body, "section"));
		if (id != 0) {
			if (rank <= lastrank)
				MALFORMED(at, "unexpected content after last section: section %u out of order or repeated", id);
			lastrank = rank;
		}
		rd s = *r;
		s.p = body;
		s.end = body + len;
		switch (id) {
		case 0: {
			char *nm = NULL;
			TRY(rd_name(&s, &nm, NULL, "custom section name"));
			if (strcmp(nm, "name") == 0 && s.p - body == 5) {
				names = s.p;
				names_end = s.end;
			}
			free(nm);
			s.p = s.end;
			break;
		}
		case 1: TRY(sec_type(&s)); break;
		case 2: TRY(sec_import(&s)); break;
		case 3: TRY(sec_function(&s)); break;
		case 4: TRY(sec_table(&s)); break;
		case 5: TRY(sec_memory(&s)); break;
		case 6: TRY(sec_global(&s)); break;
		case 7: TRY(sec_export(&s)); break;
		case 8: TRY(sec_start(&s)); break;
		case 9: TRY(sec_elem(&s)); break;
		case 10: TRY(sec_code(&s)); have_code = true; break;
		case 11: TRY(sec_data(&s)); break;
		case 13: TRY(sec_tag(&s)); break;
		case 12:
			TRY(rd_u32(&s, &out->datacount, "data count"));
			out->has_datacount = true;
			break;
		}
		if (s.p != s.end)
			MALFORMED(s.p, "section size mismatch: section %u ends at 0x%zx, content at 0x%zx",
			          id, (size_t)(s.end - bytes), (size_t)(s.p - bytes));
	}
	if (!have_code && out->nfuncs != out->nfunc_imports)
		MALFORMED(r->p, "function and code section have inconsistent lengths (%u vs 0)",
		          out->nfuncs - out->nfunc_imports);
	if (!have_code)
		out->bodies_decoded = !(flags & WASM_DECODE_NO_BODIES);
	if (out->has_datacount && out->datacount != out->ndatas)
		MALFORMED(r->p, "data count and data section have inconsistent lengths (%u vs %u)",
		          out->datacount, out->ndatas);
	if (names)
		TRY(sec_names(r, out, bytes, names, names_end));
	return 0;
fail:
	wasm_module_free(out);
	return rc;
}
