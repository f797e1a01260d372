/* test_wasm_validate.c - the validator: valid bodies pass, and each broken
 * rule fails with WASM_ERR_INVALID at the right function and instruction.
 * Silent on success; prints each failed check and exits non-zero. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/wasm.h"

static int failures;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	failures++; } } while (0)

typedef struct buf { uint8_t b[4096]; size_t n; } buf;

static void put(buf *b, const void *p, size_t n)
{
	if (b->n + n > sizeof b->b) { fprintf(stderr, "test buffer overflow\n"); exit(2); }
	memcpy(b->b + b->n, p, n);
	b->n += n;
}
static void byte(buf *b, uint8_t v) { put(b, &v, 1); }
static void uleb(buf *b, uint32_t v)
{
	do { uint8_t c = v & 0x7F; v >>= 7; byte(b, c | (v ? 0x80 : 0)); } while (v);
}
static void section(buf *m, uint8_t id, const void *p, size_t n)
{
	byte(m, id); uleb(m, (uint32_t)n); put(m, p, n);
}
#define SEC(m, id, lit) section((m), (id), (lit), sizeof(lit) - 1)
#define LIT(s) s, sizeof(s) - 1

enum { F_MEM = 1, F_TABLE = 2, F_DATACOUNT = 4, F_EXPORT = 8 };

/* Types: 0 = [] -> [], 1 = [i32] -> [i32], 2 = [i32 i32] -> [].  Two
 * functions: 0 of type 0 (body "end"), 1 of type `type` with `body`
 * (locals included), exported as "f" with F_EXPORT. */
static void build(buf *m, unsigned type, const void *body, size_t n, unsigned flags)
{
	put(m, "\0asm\1\0\0\0", 8);
	SEC(m, 1, "\3\x60\0\0\x60\1\x7f\1\x7f\x60\2\x7f\x7f\0");
	buf f = {0};
	byte(&f, 2); byte(&f, 0); uleb(&f, type);
	section(m, 3, f.b, f.n);
	if (flags & F_TABLE)
		SEC(m, 4, "\1\x70\0\1");
	if (flags & F_MEM)
		SEC(m, 5, "\1\0\1");
	if (flags & F_EXPORT)
		SEC(m, 7, "\1\1f\0\1");
	if (flags & F_DATACOUNT)
		SEC(m, 12, "\1");
	buf c = {0};
	byte(&c, 2);
	byte(&c, 2); put(&c, "\0\x0b", 2);
	uleb(&c, (uint32_t)n); put(&c, body, n);
	section(m, 10, c.b, c.n);
	if (flags & F_DATACOUNT)
		SEC(m, 11, "\1\1\0");
}

/* Decodes and validates; returns the validator's code.  *instr is the
 * index in function 1's code of the failing instruction, or -1. */
static int check(const buf *m, wasm_error *e, int *instr, char *line, size_t len)
{
	wasm_module mod;
	int rc = wasm_decode(m->b, m->n, 0, &mod, e);
	if (rc) {
		fprintf(stderr, "%s: decode failed: %s\n", __FILE__, e->msg);
		return -1;
	}
	rc = wasm_validate(&mod, e);
	*instr = -1;
	if (rc && e->func == 1)
		for (uint32_t i = 0; i < mod.funcs[1].ncode; i++)
			if (mod.funcs[1].code[i].offset == e->offset)
				*instr = (int)i;
	if (line)
		wasm_error_format(&mod, "t.wasm", e, line, len);
	wasm_module_free(&mod);
	return rc;
}

static void valid(unsigned type, const void *body, size_t n, unsigned flags, int lineno)
{
	buf m = {0};
	wasm_error e;
	int at;
	build(&m, type, body, n, flags);
	if (check(&m, &e, &at, NULL, 0) != 0) {
		fprintf(stderr, "%s:%d: expected valid, got: %s\n", __FILE__, lineno, e.msg);
		failures++;
	}
}

/* Expects WASM_ERR_INVALID in function 1 at instruction `instr`
 * (-1: not at an instruction) with `needle` in the message. */
static void invalid(unsigned type, const void *body, size_t n, unsigned flags,
                    int instr, const char *needle, int lineno)
{
	buf m = {0};
	wasm_error e;
	int at;
	build(&m, type, body, n, flags);
	int rc = check(&m, &e, &at, NULL, 0);
	if (rc != WASM_ERR_INVALID || (instr >= 0 && (e.func != 1 || at != instr)) ||
	    !strstr(e.msg, needle)) {
		fprintf(stderr, "%s:%d: expected invalid at instr %d (\"%s\"), got rc %d func %u instr %d: %s\n",
		        __FILE__, lineno, instr, needle, rc, e.func, at, e.msg);
		failures++;
	}
}
#define VALID(type, body, flags) valid((type), LIT(body), (flags), __LINE__)
#define INVALID(type, body, flags, instr, needle) \
	invalid((type), LIT(body), (flags), (instr), (needle), __LINE__)

static void test_bodies(void)
{
	/* locals: none unless said; "\0" first. */
	VALID(1, "\0\x20\0\x41\1\x6a\x0b", 0);                       /* x + 1 */
	INVALID(1, "\0\x20\0\x43\0\0\0\0\x6a\x0b", 0, 2, "type mismatch in i32.add");
	INVALID(1, "\0\x0b", 0, 0, "type mismatch");                 /* no result */
	INVALID(0, "\0\x41\0\x0b", 0, 1, "left on the stack");
	INVALID(1, "\0\x20\1\x0b", 0, 0, "unknown local 1");
	VALID(1, "\1\1\x7e\x20\1\x1a\x20\0\x0b", 0);                 /* i64 local */
	/* unreachable makes the stack polymorphic */
	VALID(1, "\0\x00\x6a\x0b", 0);
	VALID(1, "\0\x00\x1b\x0b", 0);                               /* select of unknowns */
	INVALID(1, "\0\x00\x42\0\x6a\x0b", 0, 2, "type mismatch in i32.add");
	/* blocks and branches */
	VALID(1, "\0\x02\x7f\x20\0\x0b\x0b", 0);
	INVALID(1, "\0\x02\x7f\x0b\x0b", 0, 1, "type mismatch");
	VALID(1, "\0\x02\x7f\x41\1\x0c\0\x0b\x0b", 0);                /* br out with value */
	INVALID(1, "\0\x0c\2\x0b", 0, 0, "unknown label 2");
	VALID(0, "\0\x03\x40\x41\0\x0d\0\x0b\x0b", 0);                /* loop br_if */
	INVALID(0, "\0\x04\x7f\x41\1\x0b\x0b", 0, 0, "stack is empty");  /* if needs cond */
	INVALID(1, "\0\x20\0\x04\x7f\x41\1\x0b\x0b", 0, 3, "if without else");
	VALID(1, "\0\x20\0\x04\x7f\x41\1\x05\x41\2\x0b\x0b", 0);
	/* multi-value block type: type 1 = [i32] -> [i32] */
	VALID(1, "\0\x20\0\x02\1\x41\1\x6a\x0b\x0b", 0);
	INVALID(1, "\0\x20\0\x02\5\x0b\x0b", 0, 1, "unknown type 5");
	/* br_table: all labels the same arity */
	VALID(1, "\0\x02\x7f\x20\0\x20\0\x0e\1\0\1\x0b\x0b", 0);
	INVALID(1, "\0\x02\x40\x20\0\x20\0\x0e\1\0\1\x0b\x0b", 0, 3, "br_table");
	VALID(1, "\0\x00\x0e\0\0\x0b", 0);
	/* calls */
	VALID(1, "\0\x20\0\x10\1\x0b", 0);
	INVALID(1, "\0\x10\1\x0b", 0, 0, "stack is empty");
	INVALID(0, "\0\x10\7\x0b", 0, 0, "unknown function 7");
	VALID(0, "\0\x41\0\x11\0\0\x0b", F_TABLE);
	INVALID(0, "\0\x41\0\x11\0\0\x0b", 0, 1, "unknown table 0");
	/* memory */
	VALID(1, "\0\x20\0\x28\2\0\x0b", F_MEM);
	INVALID(1, "\0\x20\0\x28\2\0\x0b", 0, 1, "unknown memory");
	INVALID(1, "\0\x20\0\x28\3\0\x0b", F_MEM, 1, "alignment must not be larger than natural");
	VALID(1, "\0\x20\0\x2d\0\0\x0b", F_MEM);
	INVALID(1, "\0\x20\0\x2d\1\0\x0b", F_MEM, 1, "alignment");
	VALID(1, "\0\x20\0\x40\0\x0b", F_MEM);
	/* bulk memory and the data count */
	VALID(0, "\0\x41\0\x41\0\x41\0\xfc\x08\0\0\x0b", F_MEM | F_DATACOUNT);
	INVALID(0, "\0\xfc\x09\0\x0b", F_MEM, 0, "data count");
	INVALID(0, "\0\xfc\x09\1\x0b", F_MEM | F_DATACOUNT, 0, "unknown data segment 1");
	/* references */
	INVALID(0, "\0\xd2\0\x1a\x0b", 0, 0, "undeclared function reference");
	VALID(0, "\0\xd2\1\x1a\x0b", F_EXPORT);
	VALID(1, "\0\xd0\x70\xd1\x0b", 0);
	INVALID(1, "\0\x41\0\xd1\x0b", 0, 1, "expected a reference");
	VALID(0, "\0\x41\0\x41\0\x41\0\x1b\x1a\x0b", 0);
	INVALID(0, "\0\x41\0\x42\0\x41\0\x1b\x1a\x0b", 0, 3, "type mismatch in select");
	INVALID(0, "\0\xd0\x70\xd0\x70\x41\0\x1b\x1a\x0b", 0, 3, "numeric");
	VALID(0, "\0\xd0\x70\xd0\x70\x41\0\x1c\1\x70\x1a\x0b", 0);
	INVALID(0, "\0\x41\0\x41\0\x41\0\x1c\2\x7f\x7f\x1a\x0b", 0, 3, "arity");
	/* tables */
	VALID(0, "\0\x41\0\x25\0\x1a\x0b", F_TABLE);
	INVALID(0, "\0\x41\0\x25\1\x1a\x0b", F_TABLE, 1, "unknown table 1");
	/* globals: none declared here */
	INVALID(0, "\0\x23\0\x1a\x0b", 0, 0, "unknown global 0");
}

static void validate_raw(const buf *m, int want, const char *needle, int lineno)
{
	wasm_module mod;
	wasm_error e;
	int rc = wasm_decode(m->b, m->n, 0, &mod, &e);
	if (rc == 0) {
		rc = wasm_validate(&mod, &e);
		wasm_module_free(&mod);
	}
	if (rc != want || (want && !strstr(e.msg, needle))) {
		fprintf(stderr, "%s:%d: expected %d (\"%s\"), got %d: %s\n",
		        __FILE__, lineno, want, needle, rc, e.msg);
		failures++;
	}
}
#define RAW(m, want, needle) validate_raw((m), (want), (needle), __LINE__)

static void test_module(void)
{
	buf m;
#define HDR() do { m.n = 0; put(&m, "\0asm\1\0\0\0", 8); } while (0)
	HDR(); SEC(&m, 5, "\1\1\2\1");
	RAW(&m, WASM_ERR_INVALID, "minimum must not be greater than maximum");
	HDR(); SEC(&m, 5, "\1\0\x81\x80\4");
	RAW(&m, WASM_ERR_INVALID, "at most 65536");
	HDR(); SEC(&m, 5, "\1\0\x80\x80\4");
	RAW(&m, 0, "");
	HDR(); SEC(&m, 5, "\2\0\1\0\1");
	RAW(&m, WASM_ERR_INVALID, "multiple memories");
	HDR(); SEC(&m, 4, "\1\x70\1\3\2");
	RAW(&m, WASM_ERR_INVALID, "minimum must not be greater");
	/* exports */
	HDR(); SEC(&m, 5, "\1\0\1"); SEC(&m, 7, "\2\1a\2\0\1a\2\0");
	RAW(&m, WASM_ERR_INVALID, "duplicate export name \"a\"");
	HDR(); SEC(&m, 5, "\1\0\1"); SEC(&m, 7, "\2\1a\2\0\1b\2\0");
	RAW(&m, 0, "");
	HDR(); SEC(&m, 7, "\1\1a\0\0");
	RAW(&m, WASM_ERR_INVALID, "unknown function 0");
	/* start must be [] -> [] */
	HDR(); SEC(&m, 1, "\1\x60\1\x7f\0"); SEC(&m, 3, "\1\0"); SEC(&m, 8, "\0");
	SEC(&m, 10, "\1\2\0\x0b");
	RAW(&m, WASM_ERR_INVALID, "start function 0");
	/* globals: constant expressions */
	HDR(); SEC(&m, 6, "\1\x7f\0\x42\0\x0b");
	RAW(&m, WASM_ERR_INVALID, "type mismatch in constant expression");
	HDR(); SEC(&m, 6, "\2\x7f\0\x41\0\x0b\x7f\0\x23\0\x0b");
	RAW(&m, WASM_ERR_INVALID, "unknown global 0");   /* only imported globals */
	HDR(); SEC(&m, 2, "\1\1m\1g\3\x7f\1"); SEC(&m, 6, "\1\x7f\0\x23\0\x0b");
	RAW(&m, WASM_ERR_INVALID, "mutable");
	HDR(); SEC(&m, 2, "\1\1m\1g\3\x7f\0"); SEC(&m, 6, "\1\x7f\1\x23\0\x0b");
	RAW(&m, 0, "");
	HDR(); SEC(&m, 6, "\1\x7f\0\x41\0\x41\0\x0b");
	RAW(&m, WASM_ERR_INVALID, "more than one instruction");  /* decoder: IR holds one */
	HDR(); SEC(&m, 6, "\1\x7f\0\x01\x0b");
	RAW(&m, WASM_ERR_INVALID, "constant expression required");
	/* element segments */
	HDR(); SEC(&m, 1, "\1\x60\0\0"); SEC(&m, 3, "\1\0"); SEC(&m, 9, "\1\0\x41\0\x0b\1\0");
	SEC(&m, 10, "\1\2\0\x0b");
	RAW(&m, WASM_ERR_INVALID, "unknown table 0");
	HDR(); SEC(&m, 1, "\1\x60\0\0"); SEC(&m, 3, "\1\0"); SEC(&m, 4, "\1\x6f\0\1");
	SEC(&m, 9, "\1\0\x41\0\x0b\1\0"); SEC(&m, 10, "\1\2\0\x0b");
	RAW(&m, WASM_ERR_INVALID, "type mismatch: elem segment 0");
	HDR(); SEC(&m, 1, "\1\x60\0\0"); SEC(&m, 3, "\1\0"); SEC(&m, 4, "\1\x70\0\1");
	SEC(&m, 9, "\1\0\x41\0\x0b\1\3"); SEC(&m, 10, "\1\2\0\x0b");
	RAW(&m, WASM_ERR_INVALID, "unknown function 3");
	/* data segments */
	HDR(); SEC(&m, 11, "\1\0\x41\0\x0b\0");
	RAW(&m, WASM_ERR_INVALID, "unknown memory 0");
	HDR(); SEC(&m, 5, "\1\0\1"); SEC(&m, 11, "\1\0\x42\0\x0b\0");
	RAW(&m, WASM_ERR_INVALID, "type mismatch");
}

static void test_format(void)
{
	buf m = {0};
	wasm_error e;
	int at;
	char line[400];
	build(&m, 1, LIT("\0\x20\0\x43\0\0\0\0\x6a\x0b"), F_EXPORT);
	CHECK(check(&m, &e, &at, line, sizeof line) == WASM_ERR_INVALID);
	CHECK(e.func == 1 && at == 2);
	char want[400];
	snprintf(want, sizeof want, "t.wasm: function 1 (f) at 0x%zx: %s", e.offset, e.msg);
	CHECK(!strcmp(line, want));
	CHECK(!strcmp(e.msg, "type mismatch in i32.add: expected i32, got f32"));

	/* Decoded without bodies: refused, not silently accepted. */
	wasm_module mod;
	CHECK(wasm_decode(m.b, m.n, WASM_DECODE_NO_BODIES, &mod, &e) == 0);
	CHECK(wasm_validate(&mod, &e) == WASM_ERR_INVALID);
	wasm_module_free(&mod);
}

int main(void)
{
	test_bodies();
	test_module();
	test_format();
	return failures != 0;
}
