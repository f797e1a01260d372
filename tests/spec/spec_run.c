/* spec_run.c - runs one wast2json-converted WebAssembly spec test file.
 *
 *   spec_run [-v] [-t] [-c CACHEDIR] [-s SKIPFILE] [-n NAME] FILE.json
 *
 * -t translates as `mpiwasm run` does, for a trap that ends the process
 * (xlate_options.terminal_traps): a loop may then trap at another
 * iteration than WebAssembly's, so only for files whose assertions do
 * not read what a trapping loop wrote (src/xlate/test/terminal.wast).
 * NAME (default: FILE without directory and extension) names the file in
 * messages and in the skip list, e.g. "threads/atomic". *
 * Every binary module goes through the production path (load_wasm:
 * decode, validate, translate, cc, dlopen) and rt_instantiate.  One line
 * per failed command, then "<name>: N passed, N failed, N skipped".
 *
 * The commands run in a child process so that an engine crash or hang
 * costs one command, not the file: the parent records the command the
 * child was in, and a new child replays the commands before it (silently,
 * to rebuild the state) and continues after it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "load/load.h"
#include "rt/rt.h"

/* ---- a small JSON reader ---------------------------------------------- */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jv {
	int t;
	char *s;           /* J_STR (NUL-terminated; may hold NULs: see len) */
	size_t len;        /* J_STR byte length */
	double num;        /* J_NUM, J_BOOL */
	struct jv *kid;    /* J_ARR, J_OBJ */
	char **key;        /* J_OBJ */
	size_t n;
} jv;

typedef struct jparser {
	const char *p, *end, *file;
	int line;
	char err[200];
} jparser;

static int sj_value(jparser *jp, jv *out, int depth);

static void sj_ws(jparser *jp)
{
	while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' ||
	                           *jp->p == '\n' || *jp->p == '\r')) {
		if (*jp->p == '\n')
			jp->line++;
		jp->p++;
	}
}

static int sj_fail(jparser *jp, const char *what)
{
	if (!jp->err[0])
		snprintf(jp->err, sizeof jp->err, "%s:%d: JSON: %s",
		         jp->file, jp->line, what);
	return -1;
}

static void sj_utf8(char **b, size_t *n, uint32_t c)
{
	char *o = *b + *n;
	if (c < 0x80) {
		o[0] = (char)c; *n += 1;
	} else if (c < 0x800) {
		o[0] = (char)(0xC0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3F)); *n += 2;
	} else if (c < 0x10000) {
		o[0] = (char)(0xE0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		o[2] = (char)(0x80 | (c & 0x3F)); *n += 3;
	} else {
		o[0] = (char)(0xF0 | (c >> 18));
		o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		o[3] = (char)(0x80 | (c & 0x3F)); *n += 4;
	}
}

static int sj_hex4(jparser *jp, uint32_t *out)
{
	uint32_t v = 0;
	if (jp->end - jp->p < 4)
		return sj_fail(jp, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *jp->p++;
		v <<= 4;
		if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
		else return sj_fail(jp, "bad \\u escape");
	}
	*out = v;
	return 0;
}

/* A string's decoded form is never longer than its source. */
static int sj_string(jparser *jp, char **s, size_t *len)
{
	const char *start = ++jp->p;   /* after the quote */
	const char *q = start;
	while (q < jp->end && *q != '"')
		q += (*q == '\\') ? 2 : 1;
	if (q >= jp->end)
		return sj_fail(jp, "unterminated string");
	char *b = malloc((size_t)(q - start) + 1);
	size_t n = 0;
	if (!b)
		return sj_fail(jp, "out of memory");
	while (*jp->p != '"') {
		char c = *jp->p++;
		if (c != '\\') {
			b[n++] = c;
			continue;
		}
		c = *jp->p++;
		switch (c) {
		case '"': case '\\': case '/': b[n++] = c; break;
		case 'b': b[n++] = '\b'; break;
		case 'f': b[n++] = '\f'; break;
		case 'n': b[n++] = '\n'; break;
		case 'r': b[n++] = '\r'; break;
		case 't': b[n++] = '\t'; break;
		case 'u': {
			uint32_t cp, lo;
			if (sj_hex4(jp, &cp))
				goto fail;
			if (cp >= 0xD800 && cp < 0xDC00 && jp->end - jp->p >= 6 &&
			    jp->p[0] == '\\' && jp->p[1] == 'u') {
				jp->p += 2;
				if (sj_hex4(jp, &lo))
					goto fail;
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			}
			sj_utf8(&b, &n, cp);
			break;
		}
		default:
			sj_fail(jp, "bad escape");
			goto fail;
		}
	}
	jp->p++;
	b[n] = 0;
	*s = b;
	*len = n;
	return 0;
fail:
	free(b);
	return -1;
}

static int sj_push(jparser *jp, jv *arr, jv *item, char *key)
{
	if ((arr->n & (arr->n - 1)) == 0) {   /* grow at powers of two */
		size_t cap = arr->n ? arr->n * 2 : 1;
		jv *k = realloc(arr->kid, cap * sizeof *k);
		if (!k)
			return sj_fail(jp, "out of memory");
		arr->kid = k;
		if (arr->t == J_OBJ) {
			char **kk = realloc(arr->key, cap * sizeof *kk);
			if (!kk)
				return sj_fail(jp, "out of memory");
			arr->key = kk;
		}
	}
	arr->kid[arr->n] = *item;
	if (arr->t == J_OBJ)
		arr->key[arr->n] = key;
	arr->n++;
	return 0;
}

static int sj_value(jparser *jp, jv *out, int depth)
{
	memset(out, 0, sizeof *out);
	if (depth > 64)
		return sj_fail(jp, "nested too deeply");
	sj_ws(jp);
	if (jp->p >= jp->end)
		return sj_fail(jp, "unexpected end");
	char c = *jp->p;
	if (c == '"') {
		out->t = J_STR;
		return sj_string(jp, &out->s, &out->len);
	}
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		out->t = c == '{' ? J_OBJ : J_ARR;
		jp->p++;
		sj_ws(jp);
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			return 0;
		}
		for (;;) {
			char *key = NULL;
			size_t klen;
			jv item;
			sj_ws(jp);
			if (out->t == J_OBJ) {
				if (jp->p >= jp->end || *jp->p != '"')
					return sj_fail(jp, "expected a key");
				if (sj_string(jp, &key, &klen))
					return -1;
				sj_ws(jp);
				if (jp->p >= jp->end || *jp->p != ':')
					return sj_fail(jp, "expected ':'");
				jp->p++;
			}
			if (sj_value(jp, &item, depth + 1) || sj_push(jp, out, &item, key))
				return -1;
			sj_ws(jp);
			if (jp->p < jp->end && *jp->p == ',') {
				jp->p++;
				continue;
			}
			if (jp->p < jp->end && *jp->p == close) {
				jp->p++;
				return 0;
			}
			return sj_fail(jp, "expected ',' or a closing bracket");
		}
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		char *e;
		out->t = J_NUM;
		out->num = strtod(jp->p, &e);
		if (e == jp->p)
			return sj_fail(jp, "bad number");
		jp->p = e;
		return 0;
	}
	static const struct { const char *w; int t; double v; } words[] = {
		{ "true", J_BOOL, 1 }, { "false", J_BOOL, 0 }, { "null", J_NULL, 0 },
	};
	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(words[i].w);
		if ((size_t)(jp->end - jp->p) >= l && !memcmp(jp->p, words[i].w, l)) {
			out->t = words[i].t;
			out->num = words[i].v;
			jp->p += l;
			return 0;
		}
	}
	return sj_fail(jp, "unexpected character");
}

static const jv *sj_get(const jv *o, const char *key)
{
	if (!o || o->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->key[i], key))
			return &o->kid[i];
	return NULL;
}

static const char *sj_str(const jv *o, const char *key)
{
	const jv *v = sj_get(o, key);
	return v && v->t == J_STR ? v->s : NULL;
}

/* ---- files ------------------------------------------------------------ */

static uint8_t *sr_slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = malloc(cap);
	for (;;) {
		if (!b)
			break;
		n += fread(b + n, 1, cap - n, f);
		if (n < cap)
			break;
		uint8_t *nb = realloc(b, cap * 2);
		if (!nb) {
			free(b);
			b = NULL;
			break;
		}
		b = nb;
		cap *= 2;
	}
	if (ferror(f)) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*size = n;
	return b;
}

/* ---- state -------------------------------------------------------------- */

enum { ST_UNRUN, ST_PASS, ST_FAIL, ST_SKIP, ST_SKIP_TEXT };

/* Shared between the parent and the child that runs the commands. */
typedef struct sr_shared {
	volatile int cur;         /* command being executed, -1 between */
	/* Where the time went (load_timings of every load_wasm), seconds. */
	double t_decode, t_validate, t_translate, t_compile, t_load;
	unsigned nloads, ncached;
	volatile uint8_t st[];    /* enum ST_* per command */
} sr_shared;

typedef struct sr_mod {
	char *name;               /* "$M1" or NULL */
	int line;
	bool ok;                  /* loaded and instantiated */
	uint8_t *bytes;
	load_module cm;
	rt_instance *inst;
} sr_mod;

typedef struct sr_reg {
	char *as;
	sr_mod *m;
} sr_reg;

static struct {
	const char *file;         /* the .json */
	const char *dir;          /* where its .wasm files are */
	const char *wast;         /* "address.wast", for messages */
	const char *cachedir;
	bool terminal;            /* -t: translate as mpiwasm run does
	                             (xlate_options.terminal_traps) */
	bool verbose;
	bool quiet_cmd;           /* replaying: no output, no verdicts */
	jv root;
	const jv *cmds;
	sr_shared *sh;
	bool *crashed;            /* parent's record, inherited by each child */
	/* The skip list entries for this file: line numbers, 0 = all. */
	int *skip_lines;
	char **skip_why;
	size_t nskip;
	sr_mod **mods;
	size_t nmods;
	sr_mod *cur;
	sr_reg *regs;
	size_t nregs;
	/* spectest */
	rt_global *g_i32, *g_i64, *g_f32, *g_f64;
	rt_table *table;
	rt_memory *memory;
} S;

/* One line per failure: "file.wast:LINE: CMD: what". */
static void sr_report(int line, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void sr_report(int line, const char *cmd, const char *fmt, ...)
{
	if (S.quiet_cmd)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	printf("%s:%d: %s: %s\n", S.wast, line, cmd, msg);
	fflush(stdout);
}

/* ---- spectest -------------------------------------------------------- */

static void sr_print(rt_instance *i) { (void)i; if (S.verbose) printf("spectest: print\n"); }
static void sr_print_i32(rt_instance *i, uint32_t a)
{ (void)i; if (S.verbose) printf("spectest: %" PRIi32 " : i32\n", (int32_t)a); }
static void sr_print_i64(rt_instance *i, uint64_t a)
{ (void)i; if (S.verbose) printf("spectest: %" PRIi64 " : i64\n", (int64_t)a); }
static void sr_print_f32(rt_instance *i, float a)
{ (void)i; if (S.verbose) printf("spectest: %g : f32\n", (double)a); }
static void sr_print_f64(rt_instance *i, double a)
{ (void)i; if (S.verbose) printf("spectest: %g : f64\n", a); }
static void sr_print_i32_f32(rt_instance *i, uint32_t a, float b)
{ (void)i; if (S.verbose) printf("spectest: %" PRIi32 " %g\n", (int32_t)a, (double)b); }
static void sr_print_f64_f64(rt_instance *i, double a, double b)
{ (void)i; if (S.verbose) printf("spectest: %g %g\n", a, b); }

static const rt_hostfn sr_spectest_fns[] = {
	{ "spectest", "print", ":", (void *)sr_print },
	{ "spectest", "print_i32", "i:", (void *)sr_print_i32 },
	{ "spectest", "print_i64", "I:", (void *)sr_print_i64 },
	{ "spectest", "print_f32", "f:", (void *)sr_print_f32 },
	{ "spectest", "print_f64", "F:", (void *)sr_print_f64 },
	{ "spectest", "print_i32_f32", "if:", (void *)sr_print_i32_f32 },
	{ "spectest", "print_f64_f64", "FF:", (void *)sr_print_f64_f64 },
};
#define SR_NSPECFNS (sizeof sr_spectest_fns / sizeof sr_spectest_fns[0])

static int sr_spectest(const wasm_import *imp, rt_extern *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < SR_NSPECFNS; i++)
		if (!strcmp(imp->name, sr_spectest_fns[i].name)) {
			out->kind = WASM_EXTERN_FUNC;
			out->is_host = true;
			out->u.host = &sr_spectest_fns[i];
			return 0;
		}
	static const struct { const char *name; uint8_t type; uint32_t bits32; uint64_t bits64; } gl[] = {
		{ "global_i32", WASM_I32, 666, 0 },
		{ "global_i64", WASM_I64, 0, 666 },
		{ "global_f32", WASM_F32, 0x4426a666u, 0 },            /* 666.6f */
		{ "global_f64", WASM_F64, 0, 0x4084d4cccccccccdull },  /* 666.6 */
	};
	rt_global **slot[] = { &S.g_i32, &S.g_i64, &S.g_f32, &S.g_f64 };
	for (size_t i = 0; i < 4; i++) {
		if (strcmp(imp->name, gl[i].name))
			continue;
		if (!*slot[i]) {
			rt_value v;
			memset(&v, 0, sizeof v);
			if (gl[i].type == WASM_I32) v.i32 = gl[i].bits32;
			else if (gl[i].type == WASM_I64) v.i64 = gl[i].bits64;
			else if (gl[i].type == WASM_F32) memcpy(&v.f32, &gl[i].bits32, 4);
			else memcpy(&v.f64, &gl[i].bits64, 8);
			*slot[i] = rt_global_new(gl[i].type, false, v);
			if (!*slot[i]) {
				snprintf(err, errlen, "spec_run: rt_global_new failed for spectest.%s", imp->name);
				return -1;
			}
		}
		out->kind = WASM_EXTERN_GLOBAL;
		out->u.global = *slot[i];
		return 0;
	}
	if (!strcmp(imp->name, "table")) {
		if (!S.table) {
			wasm_limits lim = { .min = 10, .max = 20, .has_max = true };
			S.table = rt_table_new(WASM_FUNCREF, &lim);
			if (!S.table) {
				snprintf(err, errlen, "spec_run: rt_table_new failed for spectest.table");
				return -1;
			}
		}
		out->kind = WASM_EXTERN_TABLE;
		out->u.table = S.table;
		return 0;
	}
	if (!strcmp(imp->name, "memory")) {
		if (!S.memory) {
			wasm_limits lim = { .min = 1, .max = 2, .has_max = true };
			char e[200] = "";
			S.memory = rt_memory_new(&lim, e, sizeof e);
			if (!S.memory) {
				snprintf(err, errlen, "spec_run: rt_memory_new failed for spectest.memory: %s", e);
				return -1;
			}
		}
		out->kind = WASM_EXTERN_MEMORY;
		out->u.mem = S.memory;
		return 0;
	}
	if (!strcmp(imp->name, "shared_memory")) {   /* threads tests */
		static rt_memory *shared;
		if (!shared) {
			wasm_limits lim = { .min = 1, .max = 2, .has_max = true, .shared = true };
			char e[200] = "";
			shared = rt_memory_new(&lim, e, sizeof e);
			if (!shared) {
				snprintf(err, errlen, "spec_run: rt_memory_new failed for spectest.shared_memory: %s", e);
				return -1;
			}
		}
		out->kind = WASM_EXTERN_MEMORY;
		out->u.mem = shared;
		return 0;
	}
	snprintf(err, errlen, "unknown import spectest.%s", imp->name);
	return -1;
}

static int sr_resolve(void *ud, const wasm_import *imp, rt_extern *out,
                      char *err, size_t errlen)
{
	(void)ud;
	/* Later registrations shadow earlier ones under the same name. */
	for (size_t i = S.nregs; i-- > 0;) {
		if (strcmp(S.regs[i].as, imp->module))
			continue;
		if (rt_get_export(S.regs[i].m->inst, imp->name, out)) {
			snprintf(err, errlen, "unknown import %s.%s", imp->module, imp->name);
			return -1;
		}
		if (out->kind != imp->kind) {
			snprintf(err, errlen, "incompatible import type for %s.%s",
			         imp->module, imp->name);
			return -1;
		}
		return 0;
	}
	if (!strcmp(imp->module, "spectest")) {
		if (sr_spectest(imp, out, err, errlen))
			return -1;
		if (out->kind != imp->kind) {
			snprintf(err, errlen, "incompatible import type for %s.%s",
			         imp->module, imp->name);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown import %s.%s", imp->module, imp->name);
	return -1;
}

/* ---- values ------------------------------------------------------------ */

/* ref.extern N is the opaque pointer N+1, so that ref.extern 0 is not null. */
static void *sr_extern(uint64_t n) { return (void *)(uintptr_t)(n + 1); }

static uint64_t sr_num(const char *s)
{
	if (s[0] == '-')
		return (uint64_t)strtoll(s, NULL, 10);
	return strtoull(s, NULL, 10);
}

static uint8_t sr_type(const char *t)
{
	if (!t) return 0;
	if (!strcmp(t, "i32")) return WASM_I32;
	if (!strcmp(t, "i64")) return WASM_I64;
	if (!strcmp(t, "f32")) return WASM_F32;
	if (!strcmp(t, "f64")) return WASM_F64;
	if (!strcmp(t, "v128")) return WASM_V128;
	if (!strcmp(t, "funcref")) return WASM_FUNCREF;
	if (!strcmp(t, "externref")) return WASM_EXTERNREF;
	return 0;
}

static int sr_lane_bytes(const char *lt)
{
	if (!strcmp(lt, "i8")) return 1;
	if (!strcmp(lt, "i16")) return 2;
	if (!strcmp(lt, "i32") || !strcmp(lt, "f32")) return 4;
	if (!strcmp(lt, "i64") || !strcmp(lt, "f64")) return 8;
	return 0;
}

/* An argument; -1 with *why on an unknown form. */
static int sr_arg(const jv *a, rt_value *v, uint8_t *type, const char **why)
{
	const char *t = sj_str(a, "type");
	const jv *val = sj_get(a, "value");
	memset(v, 0, sizeof *v);
	*type = sr_type(t);
	if (!*type || !val) {
		*why = "argument of unknown type or without value";
		return -1;
	}
	if (*type == WASM_V128) {
		const char *lt = sj_str(a, "lane_type");
		int lb = lt ? sr_lane_bytes(lt) : 0;
		if (!lb || val->t != J_ARR || val->n * (size_t)lb != 16) {
			*why = "malformed v128 argument";
			return -1;
		}
		for (size_t i = 0; i < val->n; i++) {
			uint64_t x = sr_num(val->kid[i].s ? val->kid[i].s : "0");
			memcpy(v->v128 + i * (size_t)lb, &x, (size_t)lb);  /* little endian */
		}
		return 0;
	}
	if (val->t != J_STR) {
		*why = "argument value is not a string";
		return -1;
	}
	switch (*type) {
	case WASM_I32: v->i32 = (uint32_t)sr_num(val->s); break;
	case WASM_I64: v->i64 = sr_num(val->s); break;
	case WASM_F32: { uint32_t b = (uint32_t)sr_num(val->s); memcpy(&v->f32, &b, 4); break; }
	case WASM_F64: { uint64_t b = sr_num(val->s); memcpy(&v->f64, &b, 8); break; }
	case WASM_FUNCREF:
		if (strcmp(val->s, "null")) {
			*why = "funcref argument other than null";
			return -1;
		}
		v->ref = NULL;
		break;
	case WASM_EXTERNREF:
		v->ref = strcmp(val->s, "null") ? sr_extern(sr_num(val->s)) : NULL;
		break;
	}
	return 0;
}

static void sr_fmt(char *buf, size_t len, uint8_t type, const rt_value *v)
{
	uint32_t b32;
	uint64_t b64;
	switch (type) {
	case WASM_I32:
		snprintf(buf, len, "i32:%" PRIu32 " (0x%" PRIx32 ")", v->i32, v->i32);
		break;
	case WASM_I64:
		snprintf(buf, len, "i64:%" PRIu64 " (0x%" PRIx64 ")", v->i64, v->i64);
		break;
	case WASM_F32:
		memcpy(&b32, &v->f32, 4);
		snprintf(buf, len, "f32:0x%08" PRIx32 " (%.9g)", b32, (double)v->f32);
		break;
	case WASM_F64:
		memcpy(&b64, &v->f64, 8);
		snprintf(buf, len, "f64:0x%016" PRIx64 " (%.17g)", b64, v->f64);
		break;
	case WASM_V128: {
		size_t n = (size_t)snprintf(buf, len, "v128:");
		for (int i = 0; i < 16 && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%02x%s", v->v128[i],
			                      i == 15 ? "" : (i % 4 == 3 ? " " : ""));
		break;
	}
	case WASM_FUNCREF:
		snprintf(buf, len, v->ref ? "ref.func %p" : "ref.null func", v->ref);
		break;
	case WASM_EXTERNREF:
		if (!v->ref)
			snprintf(buf, len, "ref.null extern");
		else
			snprintf(buf, len, "ref.extern %" PRIuPTR, (uintptr_t)v->ref - 1);
		break;
	default:
		snprintf(buf, len, "?");
	}
}

static bool sr_nan32(uint32_t b, const char *pat)
{
	if (!strcmp(pat, "nan:canonical"))
		return (b & 0x7fffffffu) == 0x7fc00000u;
	return (b & 0x7fc00000u) == 0x7fc00000u;
}

static bool sr_nan64(uint64_t b, const char *pat)
{
	if (!strcmp(pat, "nan:canonical"))
		return (b & 0x7fffffffffffffffull) == 0x7ff8000000000000ull;
	return (b & 0x7ff8000000000000ull) == 0x7ff8000000000000ull;
}

/* Does `got` (of the function's result type `gtype`) match expectation e? */
static bool sr_match(const jv *e, uint8_t gtype, const rt_value *got, char *exp, size_t explen)
{
	const char *t = sj_str(e, "type");
	uint8_t et = sr_type(t);
	const jv *val = sj_get(e, "value");
	snprintf(exp, explen, "%s:%s", t ? t : "?", val && val->t == J_STR ? val->s : "<any>");
	if (et != gtype) {
		snprintf(exp, explen, "a %s (the function returns %s)", t ? t : "?",
		         wasm_valtype_name(gtype));
		return false;
	}
	if (et == WASM_FUNCREF || et == WASM_EXTERNREF) {
		if (!val)   /* (ref.func) / (ref.extern): any non-null reference */
			return got->ref != NULL;
		if (!strcmp(val->s, "null"))
			return got->ref == NULL;
		if (et == WASM_EXTERNREF) {
			snprintf(exp, explen, "ref.extern %s", val->s);
			return got->ref == sr_extern(sr_num(val->s));
		}
		/* wast2json writes the pattern (ref.func) as a number: any
		 * non-null function reference matches. */
		snprintf(exp, explen, "a non-null funcref");
		return got->ref != NULL;
	}
	if (!val) {
		snprintf(exp, explen, "an expected value (none given)");
		return false;
	}
	if (et == WASM_V128) {
		const char *lt = sj_str(e, "lane_type");
		int lb = lt ? sr_lane_bytes(lt) : 0;
		if (!lb || val->t != J_ARR || val->n * (size_t)lb != 16) {
			snprintf(exp, explen, "(malformed v128 expectation)");
			return false;
		}
		size_t n = (size_t)snprintf(exp, explen, "v128 %s:", lt);
		bool ok = true;
		for (size_t i = 0; i < val->n; i++) {
			const char *s = val->kid[i].s ? val->kid[i].s : "0";
			const uint8_t *lane = got->v128 + i * (size_t)lb;
			if (n < explen)
				n += (size_t)snprintf(exp + n, explen - n, " %s", s);
			if (!strncmp(s, "nan:", 4)) {
				if (lb == 4) { uint32_t b; memcpy(&b, lane, 4); ok &= !strcmp(lt, "f32") && sr_nan32(b, s); }
				else { uint64_t b; memcpy(&b, lane, 8); ok &= !strcmp(lt, "f64") && sr_nan64(b, s); }
				continue;
			}
			uint64_t want = sr_num(s), have = 0;
			memcpy(&have, lane, (size_t)lb);
			if (lb < 8)
				want &= (1ull << (8 * lb)) - 1;
			ok &= want == have;
		}
		return ok;
	}
	if (val->t != J_STR)
		return false;
	switch (et) {
	case WASM_I32: return got->i32 == (uint32_t)sr_num(val->s);
	case WASM_I64: return got->i64 == sr_num(val->s);
	case WASM_F32: {
		uint32_t b;
		memcpy(&b, &got->f32, 4);
		if (!strncmp(val->s, "nan:", 4))
			return sr_nan32(b, val->s);
		return b == (uint32_t)sr_num(val->s);
	}
	case WASM_F64: {
		uint64_t b;
		memcpy(&b, &got->f64, 8);
		if (!strncmp(val->s, "nan:", 4))
			return sr_nan64(b, val->s);
		return b == sr_num(val->s);
	}
	}
	return false;
}

/* ---- modules ------------------------------------------------------------ */

static sr_mod *sr_find(const char *name, int line, const char *cmd)
{
	if (!name) {
		if (!S.cur)
			sr_report(line, cmd, "no module defined before this command");
		else if (!S.cur->ok)
			sr_report(line, cmd, "the module of line %d did not load", S.cur->line);
		return S.cur && S.cur->ok ? S.cur : NULL;
	}
	for (size_t i = S.nmods; i-- > 0;)
		if (S.mods[i]->name && !strcmp(S.mods[i]->name, name)) {
			if (!S.mods[i]->ok)
				sr_report(line, cmd, "module %s (line %d) did not load", name, S.mods[i]->line);
			return S.mods[i]->ok ? S.mods[i] : NULL;
		}
	sr_report(line, cmd, "no module named %s", name);
	return NULL;
}

/* Reads and compiles a module file: 0, or -1 with err. */
static int sr_compile(const char *filename, sr_mod *m, char *err, size_t errlen)
{
	char path[4096];
	size_t size;
	snprintf(path, sizeof path, "%s/%s", S.dir, filename);
	m->bytes = sr_slurp(path, &size);
	if (!m->bytes) {
		snprintf(err, errlen, "spec_run: cannot read %.900s: %s", path, strerror(errno));
		return -1;
	}
	load_options opt = {
		.cache = { .dir = S.cachedir, .quiet = true, .jobs = 1,
		           .terminal_traps = S.terminal },
		.check_host_imports = false,
	};
	int rc = load_wasm(m->bytes, size, filename, &opt, &m->cm, err, errlen);
	if (!S.quiet_cmd) {
		const load_timings *t = &m->cm.t;
		S.sh->t_decode += t->decode;
		S.sh->t_validate += t->validate;
		S.sh->t_translate += t->translate;
		S.sh->t_compile += t->compile;
		S.sh->t_load += t->load;
		S.sh->nloads++;
		S.sh->ncached += rc == 0 && m->cm.was_cached;
	}
	return rc;
}

/* Instantiates m; returns rt_instantiate's result. */
static int sr_instantiate(sr_mod *m, rt_trapinfo *trap, char *err, size_t errlen)
{
	memset(trap, 0, sizeof *trap);
	return rt_instantiate(&m->cm.mod, m->cm.code, sr_resolve, NULL,
	                      &m->inst, trap, err, errlen);
}

static sr_mod *sr_newmod(const jv *c, int line)
{
	sr_mod *m = calloc(1, sizeof *m);
	sr_mod **mm = realloc(S.mods, (S.nmods + 1) * sizeof *mm);
	if (!m || !mm) {
		fprintf(stderr, "spec_run: out of memory\n");
		exit(2);
	}
	S.mods = mm;
	S.mods[S.nmods++] = m;
	const char *name = sj_str(c, "name");
	m->name = name ? strdup(name) : NULL;
	m->line = line;
	return m;
}

static const struct { const char *text; int kind; } sr_trap_texts[] = {
	{ "unreachable", RT_TRAP_UNREACHABLE },
	{ "out of bounds memory access", RT_TRAP_MEM_OOB },
	{ "out of bounds table access", RT_TRAP_TABLE_OOB },
	{ "undefined element", RT_TRAP_TABLE_OOB },
	{ "uninitialized element", RT_TRAP_INDIRECT_NULL },
	{ "indirect call type mismatch", RT_TRAP_INDIRECT_TYPE },
	{ "integer overflow", RT_TRAP_INT_OVERFLOW },
	{ "integer divide by zero", RT_TRAP_DIV_ZERO },
	{ "invalid conversion to integer", RT_TRAP_INVALID_CONV },
	{ "call stack exhausted", RT_TRAP_STACK },
	{ "unaligned atomic", RT_TRAP_UNALIGNED },
};

/* The trap kind the spec's message stands for, or -1 if unknown. */
static int sr_trap_kind(const char *text)
{
	if (!text)
		return -1;
	for (size_t i = 0; i < sizeof sr_trap_texts / sizeof sr_trap_texts[0]; i++)
		if (!strncmp(text, sr_trap_texts[i].text, strlen(sr_trap_texts[i].text)))
			return sr_trap_texts[i].kind;
	return -1;
}

/* "trap \"integer divide by zero\" in f (function 3)", robust to a NULL
 * instance (a module that failed to instantiate has none). */
static void sr_trapstr(const rt_instance *inst, int kind, const rt_trapinfo *t,
                       char *buf, size_t len)
{
	if (inst) {
		rt_trap_format(inst, t, buf, len);
		return;
	}
	snprintf(buf, len, "trap %d \"%s\"%s%s", kind, rt_trap_name(kind),
	         t->msg[0] ? ": " : "", t->msg);
}

static bool sr_trap_ok(int line, const char *cmd, const char *text, int rc,
                       const rt_trapinfo *trap, const rt_instance *inst)
{
	int want = sr_trap_kind(text);
	if (want < 0) {
		sr_report(line, cmd, "spec_run does not know the trap \"%s\"", text ? text : "");
		return false;
	}
	if (rc == want)
		return true;
	char buf[512];
	sr_trapstr(inst, rc, trap, buf, sizeof buf);
	sr_report(line, cmd, "expected trap \"%s\", got %s", text, buf);
	return false;
}

/* ---- commands ---------------------------------------------------------- */

/* Runs an invoke/get action.  Returns 0 (results in res/types, count in
 * *nres), a trap kind > 0 (trap filled), or -1 after reporting why the
 * action could not be run at all. */
static int sr_action(const jv *c, const char *cmd, int line, rt_value *res,
                     uint8_t *types, uint32_t *nres, rt_trapinfo *trap,
                     rt_instance **inst_out)
{
	const jv *a = sj_get(c, "action");
	const char *atype = sj_str(a, "type");
	const jv *fieldv = sj_get(a, "field");
	if (!atype || !fieldv || fieldv->t != J_STR) {
		sr_report(line, cmd, "malformed action");
		return -1;
	}
	if (strlen(fieldv->s) != fieldv->len) {
		sr_report(line, cmd, "export name with a NUL byte: rt_get_export takes a C string");
		return -1;
	}
	sr_mod *m = sr_find(sj_str(a, "module"), line, cmd);
	if (!m)
		return -1;
	*inst_out = m->inst;
	rt_extern e;
	if (rt_get_export(m->inst, fieldv->s, &e)) {
		sr_report(line, cmd, "no export \"%s\"", fieldv->s);
		return -1;
	}
	if (!strcmp(atype, "get")) {
		if (e.kind != WASM_EXTERN_GLOBAL) {
			sr_report(line, cmd, "export \"%s\" is not a global", fieldv->s);
			return -1;
		}
		res[0] = e.u.global->v;
		types[0] = e.u.global->type;
		*nres = 1;
		return 0;
	}
	if (strcmp(atype, "invoke")) {
		sr_report(line, cmd, "unknown action type \"%s\"", atype);
		return -1;
	}
	if (e.kind != WASM_EXTERN_FUNC) {
		sr_report(line, cmd, "export \"%s\" is not a function", fieldv->s);
		return -1;
	}
	const jv *args = sj_get(a, "args");
	size_t nargs = args && args->t == J_ARR ? args->n : 0;
	rt_value argv[64];
	uint8_t at[64];
	if (nargs > 64) {
		sr_report(line, cmd, "spec_run handles at most 64 arguments, not %zu", nargs);
		return -1;
	}
	for (size_t i = 0; i < nargs; i++) {
		const char *why;
		if (sr_arg(&args->kid[i], &argv[i], &at[i], &why)) {
			sr_report(line, cmd, "argument %zu: %s", i, why);
			return -1;
		}
	}
	if (e.is_host) {
		/* A re-exported spectest function: the print functions return
		 * nothing and have no effect worth checking. */
		for (size_t i = 0; i < SR_NSPECFNS; i++)
			if (e.u.host == &sr_spectest_fns[i]) {
				*nres = 0;
				return 0;
			}
		sr_report(line, cmd, "spec_run cannot call host function %s.%s",
		          e.u.host->module, e.u.host->name);
		return -1;
	}
	const rt_type *ft = e.u.func->type;
	if (ft->nparams != nargs) {
		sr_report(line, cmd, "\"%s\" takes %u arguments, the test passes %zu",
		          fieldv->s, ft->nparams, nargs);
		return -1;
	}
	for (size_t i = 0; i < nargs; i++)
		if (ft->params[i] != at[i]) {
			sr_report(line, cmd, "argument %zu of \"%s\" is %s, the test passes %s",
			          i, fieldv->s, wasm_valtype_name(ft->params[i]),
			          wasm_valtype_name(at[i]));
			return -1;
		}
	if (ft->nresults > 64) {
		sr_report(line, cmd, "spec_run handles at most 64 results, not %u", ft->nresults);
		return -1;
	}
	memset(res, 0, 64 * sizeof *res);
	int rc = rt_call_ex(m->inst, e.u.func, argv, res, trap);
	*nres = ft->nresults;
	memcpy(types, ft->results, ft->nresults);
	return rc;
}

static bool sr_cmd_module(const jv *c, int line)
{
	const char *fn = sj_str(c, "filename");
	sr_mod *m = sr_newmod(c, line);
	char err[1024] = "";
	rt_trapinfo trap;
	S.cur = m;
	if (!fn) {
		sr_report(line, "module", "no filename");
		return false;
	}
	if (sr_compile(fn, m, err, sizeof err)) {
		sr_report(line, "module", "%s: load_wasm failed: %s", fn, err);
		return false;
	}
	int rc = sr_instantiate(m, &trap, err, sizeof err);
	if (rc) {
		if (rc > 0) {
			char buf[512];
			sr_trapstr(NULL, rc, &trap, buf, sizeof buf);
			sr_report(line, "module", "%s: instantiation trapped: %s", fn, buf);
		} else {
			sr_report(line, "module", "%s: rt_instantiate failed: %s", fn, err);
		}
		return false;
	}
	m->ok = true;
	return true;
}

static bool sr_cmd_register(const jv *c, int line)
{
	const char *as = sj_str(c, "as");
	sr_mod *m = sr_find(sj_str(c, "name"), line, "register");
	if (!m || !as)
		return false;
	sr_reg *r = realloc(S.regs, (S.nregs + 1) * sizeof *r);
	if (!r) {
		fprintf(stderr, "spec_run: out of memory\n");
		exit(2);
	}
	S.regs = r;
	S.regs[S.nregs].as = strdup(as);
	S.regs[S.nregs].m = m;
	S.nregs++;
	return true;
}

static bool sr_cmd_return(const jv *c, int line, const char *cmd)
{
	rt_value res[64];
	uint8_t types[64];
	uint32_t nres = 0;
	rt_trapinfo trap;
	rt_instance *inst = NULL;
	memset(&trap, 0, sizeof trap);
	int rc = sr_action(c, cmd, line, res, types, &nres, &trap, &inst);
	if (rc < 0)
		return false;
	const char *field = sj_str(sj_get(c, "action"), "field");
	if (rc > 0) {
		char buf[512];
		sr_trapstr(inst, rc, &trap, buf, sizeof buf);
		sr_report(line, cmd, "\"%s\": unexpected %s", field, buf);
		return false;
	}
	if (!strcmp(cmd, "action"))
		return true;
	const jv *exp = sj_get(c, "expected");
	size_t nexp = exp && exp->t == J_ARR ? exp->n : 0;
	if (nexp != nres) {
		sr_report(line, cmd, "\"%s\": expected %zu results, the function has %u",
		          field, nexp, nres);
		return false;
	}
	bool ok = true;
	for (size_t i = 0; i < nexp; i++) {
		char want[512], got[128];
		if (sr_match(&exp->kid[i], types[i], &res[i], want, sizeof want))
			continue;
		sr_fmt(got, sizeof got, types[i], &res[i]);
		sr_report(line, cmd, "\"%s\" result %zu: expected %s, got %s",
		          field, i, want, got);
		ok = false;
	}
	return ok;
}

static bool sr_cmd_trap(const jv *c, int line, const char *cmd)
{
	const char *text = sj_str(c, "text");
	rt_value res[64];
	uint8_t types[64];
	uint32_t nres = 0;
	rt_trapinfo trap;
	rt_instance *inst = NULL;
	memset(&trap, 0, sizeof trap);
	if (sj_get(c, "filename")) {
		/* A module whose instantiation traps (start function, segments). */
		sr_mod m;
		char err[1024] = "";
		memset(&m, 0, sizeof m);
		if (sr_compile(sj_str(c, "filename"), &m, err, sizeof err)) {
			sr_report(line, cmd, "load_wasm failed: %s", err);
			return false;
		}
		int rc = sr_instantiate(&m, &trap, err, sizeof err);
		/* Keep the code loaded: a partly initialized table may point into it. */
		if (rc < 0) {
			sr_report(line, cmd, "expected trap \"%s\", got a link error: %s", text, err);
			return false;
		}
		if (rc == 0) {
			sr_report(line, cmd, "expected trap \"%s\", instantiation succeeded", text);
			return false;
		}
		return sr_trap_ok(line, cmd, text, rc, &trap, NULL);
	}
	int rc = sr_action(c, cmd, line, res, types, &nres, &trap, &inst);
	if (rc < 0)
		return false;
	const char *field = sj_str(sj_get(c, "action"), "field");
	if (rc == 0) {
		char got[128] = "no results";
		if (nres)
			sr_fmt(got, sizeof got, types[0], &res[0]);
		sr_report(line, cmd, "\"%s\": expected trap \"%s\", got %s", field, text, got);
		return false;
	}
	return sr_trap_ok(line, cmd, text, rc, &trap, inst);
}

/* assert_exception (exception handling): the call ends with an exception
 * that no handler caught, which the runtime reports as its own trap. */
static bool sr_cmd_exception(const jv *c, int line, const char *cmd)
{
	rt_value res[64];
	uint8_t types[64];
	uint32_t nres = 0;
	rt_trapinfo trap;
	rt_instance *inst = NULL;
	memset(&trap, 0, sizeof trap);
	int rc = sr_action(c, cmd, line, res, types, &nres, &trap, &inst);
	if (rc < 0)
		return false;
	const char *field = sj_str(sj_get(c, "action"), "field");
	if (rc != RT_TRAP_EXCEPTION) {
		char got[300] = "no results";
		if (rc)
			rt_trap_format(inst, &trap, got, sizeof got);
		else if (nres)
			sr_fmt(got, sizeof got, types[0], &res[0]);
		sr_report(line, cmd, "\"%s\": expected an uncaught exception, got %s", field, got);
		return false;
	}
	return true;
}

static bool sr_cmd_reject(const jv *c, int line, const char *cmd, bool malformed)
{
	const char *fn = sj_str(c, "filename");
	const char *text = sj_str(c, "text");
	char path[4096];
	size_t size;
	snprintf(path, sizeof path, "%s/%s", S.dir, fn ? fn : "?");
	uint8_t *bytes = sr_slurp(path, &size);
	if (!bytes) {
		sr_report(line, cmd, "spec_run: cannot read %s: %s", path, strerror(errno));
		return false;
	}
	wasm_module m;
	wasm_error e;
	memset(&m, 0, sizeof m);
	memset(&e, 0, sizeof e);
	int rc = wasm_decode(bytes, size, 0, &m, &e);
	int stage = 1;
	if (rc == 0) {
		stage = 2;
		rc = wasm_validate(&m, &e);
		wasm_module_free(&m);
	}
	free(bytes);
	if (rc == 0) {
		sr_report(line, cmd, "%s: accepted, expected \"%s\"", fn, text ? text : "");
		return false;
	}
	if (S.verbose && !S.quiet_cmd && ((malformed && stage == 2) || (!malformed && rc == WASM_ERR_MALFORMED)))
		printf("%s:%d: %s: note: rejected by the %s (code %d: %s), expected \"%s\"\n",
		       S.wast, line, cmd, stage == 1 ? "decoder" : "validator", rc, e.msg,
		       text ? text : "");
	return true;
}

static bool sr_cmd_unlinkable(const jv *c, int line, const char *cmd, bool uninst)
{
	const char *fn = sj_str(c, "filename");
	const char *text = sj_str(c, "text");
	sr_mod m;
	char err[1024] = "";
	rt_trapinfo trap;
	memset(&m, 0, sizeof m);
	if (!fn) {
		sr_report(line, cmd, "no filename");
		return false;
	}
	if (sr_compile(fn, &m, err, sizeof err)) {
		sr_report(line, cmd, "%s: load_wasm failed: %s", fn, err);
		return false;
	}
	int rc = sr_instantiate(&m, &trap, err, sizeof err);
	/* The code stays loaded (see sr_cmd_trap); instances of rejected
	 * modules are not ours to free. */
	if (rc == 0) {
		sr_report(line, cmd, "%s: instantiated, expected \"%s\"", fn, text ? text : "");
		return false;
	}
	if (uninst) {
		if (rc < 0) {
			sr_report(line, cmd, "%s: expected trap \"%s\", got a link error: %s",
			          fn, text ? text : "", err);
			return false;
		}
		return sr_trap_ok(line, cmd, text, rc, &trap, NULL);
	}
	if (rc > 0) {
		char buf[512];
		sr_trapstr(NULL, rc, &trap, buf, sizeof buf);
		sr_report(line, cmd, "%s: expected link error \"%s\", got %s", fn,
		          text ? text : "", buf);
		return false;
	}
	return true;
}

static bool sr_cmd_exhaustion(const jv *c, int line, const char *cmd)
{
	return sr_cmd_trap(c, line, cmd);
}

/* Text-format assertions check wast2json's parser, not this engine. */
static bool sr_is_text(const jv *c)
{
	const char *mt = sj_str(c, "module_type");
	return mt && !strcmp(mt, "text");
}

static const char *sr_skip_reason(int line)
{
	for (size_t i = 0; i < S.nskip; i++)
		if (S.skip_lines[i] == 0 || S.skip_lines[i] == line)
			return S.skip_why[i];
	return NULL;
}

/* Executes command i, returning its ST_* verdict. */
static int sr_exec(size_t i)
{
	const jv *c = &S.cmds->kid[i];
	const char *type = sj_str(c, "type");
	const jv *lv = sj_get(c, "line");
	int line = lv && lv->t == J_NUM ? (int)lv->num : 0;
	if (!type) {
		sr_report(line, "?", "command without a type");
		return ST_FAIL;
	}
	const char *why = sr_skip_reason(line);
	if (why) {
		if (!S.quiet_cmd)
			printf("%s:%d: %s: skipped: %s%s", S.wast, line, type, why,
			       why[strlen(why) - 1] == '\n' ? "" : "\n");
		/* A skipped module still becomes the current one, as a failed
		 * load: later commands that use it fail rather than run against
		 * the previous module; list those lines too. */
		if (!strcmp(type, "module")) {
			sr_mod *m = sr_newmod(c, line);
			S.cur = m;
		}
		return ST_SKIP;
	}
	if (sr_is_text(c))
		return ST_SKIP_TEXT;
	bool ok;
	if (!strcmp(type, "module"))
		ok = sr_cmd_module(c, line);
	else if (!strcmp(type, "register"))
		ok = sr_cmd_register(c, line);
	else if (!strcmp(type, "assert_return") || !strcmp(type, "action"))
		ok = sr_cmd_return(c, line, type);
	else if (!strcmp(type, "assert_trap"))
		ok = sr_cmd_trap(c, line, type);
	else if (!strcmp(type, "assert_exception"))
		ok = sr_cmd_exception(c, line, type);
	else if (!strcmp(type, "assert_exhaustion"))
		ok = sr_cmd_exhaustion(c, line, type);
	else if (!strcmp(type, "assert_invalid"))
		ok = sr_cmd_reject(c, line, type, false);
	else if (!strcmp(type, "assert_malformed"))
		ok = sr_cmd_reject(c, line, type, true);
	else if (!strcmp(type, "assert_unlinkable"))
		ok = sr_cmd_unlinkable(c, line, type, false);
	else if (!strcmp(type, "assert_uninstantiable"))
		ok = sr_cmd_unlinkable(c, line, type, true);
	else {
		sr_report(line, type, "spec_run does not know this command");
		ok = false;
	}
	return ok ? ST_PASS : ST_FAIL;
}

/* ---- the supervisor ---------------------------------------------------- */

static int sr_cmd_line(size_t i)
{
	const jv *lv = sj_get(&S.cmds->kid[i], "line");
	return lv && lv->t == J_NUM ? (int)lv->num : 0;
}

static const char *sr_cmd_type(size_t i)
{
	const char *t = sj_str(&S.cmds->kid[i], "type");
	return t ? t : "?";
}

static unsigned sr_env_uint(const char *name, unsigned def)
{
	const char *v = getenv(name);
	return v && *v ? (unsigned)strtoul(v, NULL, 10) : def;
}

/* The child: replays commands [0, resume) silently, then runs the rest. */
static void sr_child(size_t resume)
{
	unsigned t_mod = sr_env_uint("SPEC_MODULE_TIMEOUT", 300);
	unsigned t_cmd = sr_env_uint("SPEC_CMD_TIMEOUT", 60);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (rt_signals_install()) {
		printf("%s:0: spec_run: rt_signals_install failed\n", S.wast);
		_exit(3);
	}
	for (size_t i = 0; i < S.cmds->n; i++) {
		/* Commands that crashed the driver before are not run again. */
		if (S.crashed[i])
			continue;
		bool replay = i < resume;
		S.quiet_cmd = replay;
		S.sh->cur = (int)i;
		const char *t = sr_cmd_type(i);
		alarm(!strcmp(t, "module") || strstr(t, "unlinkable") ||
		      strstr(t, "uninstantiable") ? t_mod : t_cmd);
		int st = sr_exec(i);
		alarm(0);
		if (!replay)
			S.sh->st[i] = (uint8_t)st;
	}
	S.sh->cur = -1;
	fflush(stdout);
	_exit(0);
}

static volatile sig_atomic_t sr_term;
static void sr_on_term(int sig) { (void)sig; sr_term = 1; }

static int sr_load_skips(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "spec_run: cannot open skip list %s: %s\n", path, strerror(errno));
		return -1;
	}
	char buf[1024];
	int ln = 0;
	while (fgets(buf, sizeof buf, f)) {
		char file[256], what[64];
		int off = 0;
		ln++;
		char *p = buf + strspn(buf, " \t");
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		/* "<file> <line|*> <reason>" */
		if (sscanf(p, "%255s %63s %n", file, what, &off) < 2 || !p[off] || p[off] == '\n') {
			fprintf(stderr, "spec_run: %s:%d: expected \"<file> <line|*> <reason>\"\n", path, ln);
			fclose(f);
			return -1;
		}
		if (strcmp(file, name))
			continue;
		int *l = realloc(S.skip_lines, (S.nskip + 1) * sizeof *l);
		char **w = realloc(S.skip_why, (S.nskip + 1) * sizeof *w);
		if (!l || !w) {
			fclose(f);
			return -1;
		}
		S.skip_lines = l;
		S.skip_why = w;
		S.skip_lines[S.nskip] = strcmp(what, "*") ? atoi(what) : 0;
		S.skip_why[S.nskip] = strdup(p + off);
		S.nskip++;
	}
	fclose(f);
	return 0;
}

static void sr_usage(void)
{
	fprintf(stderr, "usage: spec_run [-v] [-t] [-c CACHEDIR] [-s SKIPFILE] [-n NAME] FILE.json\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *skipfile = NULL, *optname = NULL;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int opt;
	while ((opt = getopt(argc, argv, "vtc:s:n:")) != -1) {
		switch (opt) {
		case 't': S.terminal = true; break;
		case 'n': optname = optarg; break;
		case 'v': S.verbose = true; break;
		case 'c': S.cachedir = optarg; break;
		case 's': skipfile = optarg; break;
		default: sr_usage();
		}
	}
	if (optind != argc - 1)
		sr_usage();
	S.file = argv[optind];

	/* Names: dir of the json, and the test's name ("address"). */
	char *dirbuf = strdup(S.file);
	char *slash = strrchr(dirbuf, '/');
	if (slash) { *slash = 0; S.dir = dirbuf; } else S.dir = ".";
	const char *base = strrchr(S.file, '/') ? strrchr(S.file, '/') + 1 : S.file;
	char *name = strdup(optname ? optname : base);
	char *dot = strrchr(name, '.');
	if (dot && !optname) *dot = 0;
	char *wast = malloc(strlen(name) + 6);
	sprintf(wast, "%s.wast", name);
	S.wast = wast;

	size_t size;
	char *text = (char *)sr_slurp(S.file, &size);
	if (!text) {
		fprintf(stderr, "spec_run: cannot read %s: %s\n", S.file, strerror(errno));
		printf("%s: 0 passed, 1 failed, 0 skipped\n", name);
		return 1;
	}
	jparser jp = { .p = text, .end = text + size, .file = S.file, .line = 1 };
	if (sj_value(&jp, &S.root, 0)) {
		fprintf(stderr, "spec_run: %s\n", jp.err);
		printf("%s: 0 passed, 1 failed, 0 skipped\n", name);
		return 1;
	}
	S.cmds = sj_get(&S.root, "commands");
	if (!S.cmds || S.cmds->t != J_ARR) {
		fprintf(stderr, "spec_run: %s: no \"commands\" array\n", S.file);
		printf("%s: 0 passed, 1 failed, 0 skipped\n", name);
		return 1;
	}
	if (skipfile && sr_load_skips(skipfile, name)) {
		printf("%s: 0 passed, 1 failed, 0 skipped\n", name);
		return 1;
	}

	size_t n = S.cmds->n;
	S.sh = mmap(NULL, sizeof(sr_shared) + n + 1, PROT_READ | PROT_WRITE,
	            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (S.sh == MAP_FAILED) {
		fprintf(stderr, "spec_run: mmap: %s\n", strerror(errno));
		return 2;
	}

	S.crashed = calloc(n + 1, sizeof *S.crashed);
	if (!S.crashed) {
		fprintf(stderr, "spec_run: out of memory\n");
		return 2;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = sr_on_term;   /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	unsigned max_crashes = sr_env_uint("SPEC_MAX_CRASHES", 20);
	unsigned crashes = 0;
	size_t resume = 0;
	bool gave_up = false;
	for (;;) {
		S.sh->cur = -1;
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "spec_run: fork: %s\n", strerror(errno));
			return 2;
		}
		if (pid == 0)
			sr_child(resume);
		int status;
		pid_t w;
		while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
			if (sr_term) {
				kill(pid, SIGKILL);
			}
		}
		if (w < 0) {
			fprintf(stderr, "spec_run: waitpid: %s\n", strerror(errno));
			return 2;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && S.sh->cur < 0)
			break;
		int at = S.sh->cur;
		char why[128];
		if (sr_term)
			snprintf(why, sizeof why, "stopped (the file's time limit)");
		else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			snprintf(why, sizeof why, "timed out");
		else if (WIFSIGNALED(status))
			snprintf(why, sizeof why, "crashed the driver (signal %d, %s)",
			         WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(why, sizeof why, "driver exited with status %d",
			         WEXITSTATUS(status));
		if (at < 0) {
			printf("%s:0: spec_run: %s outside any command\n", S.wast, why);
			gave_up = true;
			break;
		}
		printf("%s:%d: %s: %s\n", S.wast, sr_cmd_line((size_t)at),
		       sr_cmd_type((size_t)at), why);
		fflush(stdout);
		if ((size_t)at < resume) {
			printf("%s:%d: spec_run: crashed again while replaying; giving up on the rest\n",
			       S.wast, sr_cmd_line((size_t)at));
			gave_up = true;
			break;
		}
		S.sh->st[at] = ST_FAIL;
		S.crashed[at] = true;   /* the replay skips it: it would crash again */
		if (sr_term || ++crashes >= max_crashes) {
			if (!sr_term)
				printf("%s: spec_run: %u crashes; giving up on the rest\n", S.wast, crashes);
			gave_up = true;
			break;
		}
		resume = (size_t)at + 1;
	}

	unsigned pass = 0, fail = 0, skip = 0, text_skip = 0, unrun = 0;
	for (size_t i = 0; i < n; i++) {
		switch (S.sh->st[i]) {
		case ST_PASS: pass++; break;
		case ST_FAIL: fail++; break;
		case ST_SKIP: skip++; break;
		case ST_SKIP_TEXT: text_skip++; break;
		default: unrun++; fail++; break;
		}
	}
	if (unrun)
		printf("%s: %u commands not run%s\n", S.wast, unrun, gave_up ? "" : " (?)");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s: time: %.2f s wall; %u modules loaded (%u from the cache): "
	       "decode %.2f, validate %.2f, translate %.2f, compile %.2f, load %.2f s\n",
	       name, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
	       S.sh->nloads, S.sh->ncached, S.sh->t_decode, S.sh->t_validate,
	       S.sh->t_translate, S.sh->t_compile, S.sh->t_load);
	printf("%s: %u passed, %u failed, %u skipped (%u with a reason, %u text-format)\n",
	       name, pass, fail, skip + text_skip, skip, text_skip);
	return fail ? 1 : 0;
}
