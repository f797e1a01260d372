/* test_wasm_decode.c - the binary decoder: structure, indices, limits and
 * the exact error (code and offset) of malformed inputs.  Silent on
 * success; prints each failed check and exits non-zero. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wasm/wasm.h"

static int failures;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	failures++; } } while (0)

/* ---- a tiny module builder ---------------------------------------------- */

typedef struct buf { uint8_t b[8192]; size_t n; } buf;

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
static void header(buf *m) { put(m, "\0asm\1\0\0\0", 8); }
static void section(buf *m, uint8_t id, const void *p, size_t n)
{
	byte(m, id); uleb(m, (uint32_t)n); put(m, p, n);
}
#define SEC(m, id, lit) section((m), (id), (lit), sizeof(lit) - 1)

/* Module with one type [] -> [], one function whose body is `body`. */
static void one_func(buf *m, const void *body, size_t n)
{
	header(m);
	SEC(m, 1, "\1\x60\0\0");
	SEC(m, 3, "\1\0");
	buf c = {0};
	byte(&c, 1); uleb(&c, (uint32_t)n); put(&c, body, n);
	section(m, 10, c.b, c.n);
}

static int decode(const buf *m, unsigned flags, wasm_module *out, wasm_error *e)
{
	return wasm_decode(m->b, m->n, flags, out, e);
}

/* Expects decoding to fail with `code` at `offset`. */
static void expect_err(const buf *m, int code, size_t offset, int line)
{
	wasm_module mod;
	wasm_error e;
	int rc = decode(m, 0, &mod, &e);
	if (rc != code || e.code != code || e.offset != offset) {
		fprintf(stderr, "%s:%d: expected error %d at 0x%zx, got %d at 0x%zx (%s)\n",
		        __FILE__, line, code, offset, rc, e.offset, e.msg);
		failures++;
	}
	if (rc == 0)
		wasm_module_free(&mod);
}
#define EXPECT_ERR(m, code, off) expect_err((m), (code), (off), __LINE__)

/* ---- tests -------------------------------------------------------------- */

static void test_header(void)
{
	buf m = {0};
	wasm_module mod;
	wasm_error e;
	header(&m);
	CHECK(decode(&m, 0, &mod, &e) == 0);
	CHECK(mod.nfuncs == 0 && mod.ntypes == 0 && mod.bodies_decoded);
	wasm_module_free(&mod);

	buf bad = {0};
	put(&bad, "\0asn\1\0\0\0", 8);
	EXPECT_ERR(&bad, WASM_ERR_MALFORMED, 0);
	buf ver = {0};
	put(&ver, "\0asm\2\0\0\0", 8);
	EXPECT_ERR(&ver, WASM_ERR_MALFORMED, 4);
	buf shorty = {0};
	put(&shorty, "\0as", 3);
	EXPECT_ERR(&shorty, WASM_ERR_MALFORMED, 0);
	CHECK(wasm_decode(NULL, 0, 0, &mod, &e) == WASM_ERR_MALFORMED);
}

static void test_leb(void)
{
	/* type count 1 over 5 bytes is fine; 6 bytes is too long. */
	buf ok = {0};
	header(&ok);
	SEC(&ok, 1, "\x81\x80\x80\x80\x00\x60\0\0");
	wasm_module mod;
	wasm_error e;
	CHECK(decode(&ok, 0, &mod, &e) == 0 && mod.ntypes == 1);
	wasm_module_free(&mod);

	buf longer = {0};
	header(&longer);
	SEC(&longer, 1, "\x81\x80\x80\x80\x80\x00\x60\0\0");
	EXPECT_ERR(&longer, WASM_ERR_MALFORMED, 10);

	/* Unused bits of the 5th byte of a u32 must be zero. */
	buf big = {0};
	header(&big);
	SEC(&big, 1, "\x81\x80\x80\x80\x10\x60\0\0");
	EXPECT_ERR(&big, WASM_ERR_MALFORMED, 10);

	/* i32.const: the 5th byte must sign-extend bit 31. */
	buf s = {0};
	one_func(&s, "\0\x41\xff\xff\xff\xff\x4f\x1a\x0b", 9);
	EXPECT_ERR(&s, WASM_ERR_MALFORMED, 0x18);
	buf s2 = {0};
	one_func(&s2, "\0\x41\xff\xff\xff\xff\x7f\x1a\x0b", 9);
	CHECK(decode(&s2, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(mod.funcs[0].code[0].op == WASM_OP_I32_CONST);
		CHECK(mod.funcs[0].code[0].u.i32 == -1);
		wasm_module_free(&mod);
	}
	/* A huge count with few bytes left is refused before allocating. */
	buf huge = {0};
	header(&huge);
	SEC(&huge, 1, "\xff\xff\xff\xff\x0f");
	EXPECT_ERR(&huge, WASM_ERR_MALFORMED, 10);
}

static void test_sections(void)
{
	/* Function section before the type section. */
	buf order = {0};
	header(&order);
	SEC(&order, 3, "\0");
	SEC(&order, 1, "\0");
	EXPECT_ERR(&order, WASM_ERR_MALFORMED, 11);

	/* Unknown section id (13 is exception handling's tag section). */
	buf id = {0};
	header(&id);
	SEC(&id, 14, "");
	EXPECT_ERR(&id, WASM_ERR_MALFORMED, 8);

	/* Exception handling's tag section: between memory and global, an
	 * attribute 0 and a type index per tag; a tag may be exported. */
	buf tag = {0};
	header(&tag);
	SEC(&tag, 1, "\1\x60\1\x7f\0");
	SEC(&tag, 13, "\1\0\0");
	SEC(&tag, 7, "\1\1e\4\0");
	wasm_module tm;
	wasm_error te;
	CHECK(decode(&tag, 0, &tm, &te) == 0);
	if (te.code == 0) {
		CHECK(tm.ntags == 1 && tm.tags[0] == 0 && tm.uses_eh);
		CHECK(tm.nexports == 1 && tm.exports[0].kind == WASM_EXTERN_TAG);
		wasm_module_free(&tm);
	}
	buf tagorder = {0};
	header(&tagorder);
	SEC(&tagorder, 1, "\1\x60\0\0");
	SEC(&tagorder, 6, "\0");
	SEC(&tagorder, 13, "\1\0\0");
	EXPECT_ERR(&tagorder, WASM_ERR_MALFORMED, 17);
	buf tagattr = {0};
	header(&tagattr);
	SEC(&tagattr, 1, "\1\x60\0\0");
	SEC(&tagattr, 13, "\1\1\0");
	EXPECT_ERR(&tagattr, WASM_ERR_MALFORMED, 17);
	/* catch outside a try */
	buf catch_ = {0};
	one_func(&catch_, "\0\x19\x0b", 3);
	EXPECT_ERR(&catch_, WASM_ERR_MALFORMED, 0x17);

	/* Section content shorter than its size. */
	buf size = {0};
	header(&size);
	SEC(&size, 1, "\0\0");
	EXPECT_ERR(&size, WASM_ERR_MALFORMED, 11);

	/* Function without code. */
	buf nocode = {0};
	header(&nocode);
	SEC(&nocode, 1, "\1\x60\0\0");
	SEC(&nocode, 3, "\1\0");
	EXPECT_ERR(&nocode, WASM_ERR_MALFORMED, 18);

	/* Data count that disagrees with the data section. */
	buf dc = {0};
	header(&dc);
	SEC(&dc, 12, "\1");
	EXPECT_ERR(&dc, WASM_ERR_MALFORMED, 11);

	/* Custom sections anywhere, with a UTF-8 checked name. */
	buf cust = {0};
	header(&cust);
	SEC(&cust, 0, "\3abcxyz");
	SEC(&cust, 1, "\1\x60\0\0");
	SEC(&cust, 0, "\0");
	wasm_module mod;
	wasm_error e;
	CHECK(decode(&cust, 0, &mod, &e) == 0 && mod.ntypes == 1);
	wasm_module_free(&mod);
	buf badname = {0};
	header(&badname);
	SEC(&badname, 0, "\2\xc0\x80");
	EXPECT_ERR(&badname, WASM_ERR_MALFORMED, 10);

	/* Imports, exports, globals, memory, segments. */
	buf full = {0};
	header(&full);
	SEC(&full, 1, "\2\x60\1\x7f\1\x7f\x60\0\0");
	SEC(&full, 2, "\2\3env\1f\0\0\3env\1g\3\x7f\0");
	SEC(&full, 3, "\1\1");
	SEC(&full, 4, "\1\x70\1\1\2");
	SEC(&full, 5, "\1\3\1\2");                     /* shared memory 1..2 */
	SEC(&full, 6, "\1\x7e\1\x42\x2a\x0b");
	SEC(&full, 7, "\2\4main\0\1\3mem\2\0");
	SEC(&full, 9, "\1\0\x41\0\x0b\1\1");
	SEC(&full, 12, "\1");
	SEC(&full, 10, "\1\2\0\x0b");
	SEC(&full, 11, "\1\0\x41\x10\x0b\3abc");
	CHECK(decode(&full, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(mod.nimports == 2 && mod.nfunc_imports == 1 && mod.nglobal_imports == 1);
		CHECK(mod.nfuncs == 2 && mod.func_types[0] == 0 && mod.func_types[1] == 1);
		CHECK(!strcmp(mod.imports[0].module, "env") && !strcmp(mod.imports[1].name, "g"));
		CHECK(mod.ntables == 1 && mod.tables[0].lim.has_max && mod.tables[0].lim.max == 2);
		CHECK(mod.nmems == 1 && mod.mems[0].lim.shared && mod.uses_threads);
		CHECK(mod.nglobals == 2 && mod.globals[0].imported && !mod.globals[1].imported);
		CHECK(mod.globals[1].init.op == WASM_OP_I64_CONST && mod.globals[1].init.u.i64 == 42);
		CHECK(mod.nexports == 2 && !strcmp(mod.exports[0].name, "main") &&
		      mod.exports[0].index == 1 && mod.exports[1].kind == WASM_EXTERN_MEMORY);
		CHECK(mod.nelems == 1 && mod.elems[0].mode == WASM_SEG_ACTIVE &&
		      mod.elems[0].ninit == 1 && mod.elems[0].init[0].op == WASM_OP_REF_FUNC &&
		      mod.elems[0].init[0].u.index == 1);
		CHECK(mod.has_datacount && mod.datacount == 1);
		CHECK(mod.ndatas == 1 && mod.datas[0].size == 3 &&
		      !memcmp(mod.datas[0].bytes, "abc", 3) && mod.datas[0].offset.u.i32 == 16);
		CHECK(!strcmp(wasm_func_name(&mod, 1), "main"));
		CHECK(wasm_func_name(&mod, 0) == NULL);
		wasm_module_free(&mod);
	}
	/* Memory limits flag 2 (shared, no maximum) is no encoding. */
	buf flag2 = {0};
	header(&flag2);
	SEC(&flag2, 5, "\1\2\1");
	EXPECT_ERR(&flag2, WASM_ERR_MALFORMED, 11);
}

static void test_body(void)
{
	wasm_module mod;
	wasm_error e;

	/* Locals: runs kept as encoded, the total summed. */
	buf loc = {0};
	one_func(&loc, "\2\3\x7f\2\x7e\x0b", 6);
	CHECK(decode(&loc, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(mod.funcs[0].nlocalruns == 2 && mod.funcs[0].nlocals == 5);
		CHECK(mod.funcs[0].locals[1].type == WASM_I64 && mod.funcs[0].locals[1].count == 2);
		CHECK(mod.funcs[0].ncode == 1 && mod.funcs[0].code[0].op == WASM_OP_END);
		CHECK(mod.funcs[0].body_offset == 0x16 && mod.funcs[0].body_size == 6);
		wasm_module_free(&mod);
	}
	/* Beyond the engine's limit: 50001 locals. */
	buf many = {0};
	one_func(&many, "\1\xd1\x86\x03\x7f\x0b", 6);
	EXPECT_ERR(&many, WASM_ERR_LIMIT, 0x16);
	/* Overflowing 2^32-1: malformed. */
	buf over = {0};
	one_func(&over, "\2\xff\xff\xff\xff\x0f\x7f\2\x7e\x0b", 10);
	EXPECT_ERR(&over, WASM_ERR_MALFORMED, 0x16);

	/* Missing final end; bytes after it; illegal opcode. */
	buf noend = {0};
	one_func(&noend, "\0\x01", 2);
	EXPECT_ERR(&noend, WASM_ERR_MALFORMED, 0x18);
	buf after = {0};
	one_func(&after, "\0\x0b\x01", 3);
	EXPECT_ERR(&after, WASM_ERR_MALFORMED, 0x18);
	buf illegal = {0};
	one_func(&illegal, "\0\x0a\x0b", 3);
	EXPECT_ERR(&illegal, WASM_ERR_MALFORMED, 0x17);
	buf else_ = {0};
	one_func(&else_, "\0\x05\x0b", 3);
	EXPECT_ERR(&else_, WASM_ERR_MALFORMED, 0x17);

	/* memory.grow's reserved byte must be a zero byte. */
	buf grow = {0};
	one_func(&grow, "\0\x41\0\x40\x01\x1a\x0b", 7);
	EXPECT_ERR(&grow, WASM_ERR_MALFORMED, 0x1a);

	/* SIMD and atomics: decoded, and flagged. */
	buf simd = {0};
	one_func(&simd, "\0\xfd\x0c" "\1\2\3\4\5\6\7\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10" "\x1a\x0b", 21);
	CHECK(decode(&simd, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(mod.uses_simd && mod.funcs[0].code[0].op == WASM_PREFIXED(0xFD, 0x0C));
		CHECK(mod.funcs[0].code[0].u.v128[15] == 0x10);
		wasm_module_free(&mod);
	}
	buf simdcut = {0};
	one_func(&simdcut, "\0\xfd\x0c\x0b", 4);
	CHECK(decode(&simdcut, 0, &mod, &e) == WASM_ERR_MALFORMED);
	buf v128 = {0};
	header(&v128);
	SEC(&v128, 1, "\1\x60\1\x7b\0");
	CHECK(decode(&v128, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(mod.uses_simd && mod.types[0].params[0] == WASM_V128);
		wasm_module_free(&mod);
	}
	buf atom = {0};
	one_func(&atom, "\0\xfe\x03\0\x0b", 5);
	CHECK(decode(&atom, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(mod.uses_threads && mod.funcs[0].code[0].op == WASM_PREFIXED(0xFE, 0x03));
		wasm_module_free(&mod);
	}

	/* 0xFC prefix: sub-opcode as LEB, non-minimal allowed. */
	buf fc = {0};
	one_func(&fc, "\0\x43\0\0\0\0\xfc\x80\x00\x1a\x0b", 11);
	CHECK(decode(&fc, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(mod.funcs[0].code[1].op == WASM_OP_I32_TRUNC_SAT_F32_S);
		wasm_module_free(&mod);
	}
	buf fcbad = {0};
	one_func(&fcbad, "\0\xfc\x12\x0b", 4);
	EXPECT_ERR(&fcbad, WASM_ERR_MALFORMED, 0x17);

	/* NO_BODIES: locals still read, no code. */
	CHECK(decode(&loc, WASM_DECODE_NO_BODIES, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(!mod.bodies_decoded && mod.funcs[0].ncode == 0 && mod.funcs[0].code == NULL);
		CHECK(mod.funcs[0].nlocals == 5);
		wasm_module_free(&mod);
	}
}

/* Every proper prefix of a valid module must fail cleanly as malformed. */
static void test_truncation(void)
{
	buf full = {0};
	size_t valid_prefix[3];
	header(&full);
	valid_prefix[0] = full.n;
	SEC(&full, 1, "\2\x60\1\x7f\1\x7f\x60\0\0");
	valid_prefix[1] = full.n;
	SEC(&full, 2, "\1\3env\1f\0\0");
	valid_prefix[2] = full.n;
	SEC(&full, 3, "\1\1");
	SEC(&full, 5, "\1\0\1");
	SEC(&full, 7, "\1\4main\0\1");
	SEC(&full, 10, "\1\x0b\0\x02\x40\x41\0\x0e\1\0\0\x0b\x0b");
	wasm_module mod;
	wasm_error e;
	CHECK(decode(&full, 0, &mod, &e) == 0);
	if (e.code == 0)
		wasm_module_free(&mod);
	for (size_t n = 0; n < full.n; n++) {
		int rc = wasm_decode(full.b, n, 0, &mod, &e);
		/* Ending between sections before the function section is a
		 * valid module; later, the code section is missing. */
		bool boundary = n == valid_prefix[0] || n == valid_prefix[1] ||
		                n == valid_prefix[2];
		if (boundary && rc == 0) {
			wasm_module_free(&mod);
			continue;
		}
		if (rc != WASM_ERR_MALFORMED) {
			fprintf(stderr, "%s: prefix %zu: rc %d\n", __FILE__, n, rc);
			failures++;
			if (rc == 0)
				wasm_module_free(&mod);
		}
		if (rc && e.offset > n) {
			fprintf(stderr, "%s: prefix %zu: offset 0x%zx past the end\n", __FILE__, n, e.offset);
			failures++;
		}
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char data[65536];
	*len = fread(data, 1, sizeof data, f);
	fclose(f);
	return data;
}

/* blocks.wat: block/else/end indices, br_table pool, names. */
static void test_blocks_wat(void)
{
	char dir[512], cmd[2048], out[600];
	snprintf(dir, sizeof dir, "%s", __FILE__);
	char *slash = strrchr(dir, '/');
	if (slash) *slash = 0; else snprintf(dir, sizeof dir, ".");
	snprintf(out, sizeof out, "/tmp/test_wasm_decode.%d.wasm", (int)getpid());
	snprintf(cmd, sizeof cmd, "wat2wasm --debug-names %s/wat/blocks.wat -o %s", dir, out);
	if (system(cmd) != 0) {
		fprintf(stderr, "%s: wat2wasm failed: %s\n", __FILE__, cmd);
		failures++;
		return;
	}
	size_t len;
	char *bytes = slurp(out, &len);
	remove(out);
	if (!bytes) {
		fprintf(stderr, "%s: cannot read %s\n", __FILE__, out);
		failures++;
		return;
	}
	wasm_module mod;
	wasm_error e;
	if (wasm_decode((const uint8_t *)bytes, len, 0, &mod, &e) != 0) {
		fprintf(stderr, "%s: blocks.wasm: %s\n", __FILE__, e.msg);
		failures++;
		return;
	}
	CHECK(mod.nfuncs == 2);
	const wasm_func *f = &mod.funcs[1];
	CHECK(f->ncode == 18);
	if (f->ncode == 18) {
		const wasm_instr *c = f->code;
		CHECK(c[0].op == WASM_OP_BLOCK && c[0].u.block.kind == WASM_BLOCK_EMPTY &&
		      c[0].u.block.end == 14 && c[0].u.block.else_ == 0);
		CHECK(c[1].op == WASM_OP_LOOP && c[1].u.block.end == 12);
		CHECK(c[3].op == WASM_OP_IF && c[3].u.block.else_ == 6 && c[3].u.block.end == 9);
		CHECK(c[6].op == WASM_OP_ELSE && c[6].u.block.end == 9 && c[6].u.block.else_ == 6);
		CHECK(c[9].op == WASM_OP_END && c[9].u.block.end == 9 && c[9].u.block.else_ == 6);
		CHECK(c[12].op == WASM_OP_END && c[12].u.block.end == 12);
		CHECK(c[14].op == WASM_OP_END && c[14].u.block.end == 14);
		CHECK(c[11].op == WASM_OP_BR_TABLE && c[11].u.brtable.count == 2);
		const uint32_t *l = f->brtable + c[11].u.brtable.first;
		CHECK(f->nbrtable == 3 && l[0] == 0 && l[1] == 1 && l[2] == 0);
		CHECK(c[11].offset == 0x46);
		CHECK(c[16].op == WASM_OP_CALL && c[16].u.index == 0);
		CHECK(c[17].op == WASM_OP_END && c[17].u.block.kind == WASM_BLOCK_TYPEIDX &&
		      c[17].u.block.type == f->type && c[17].u.block.end == 17);
		CHECK(c[5].op == WASM_OP_LOCAL_SET && c[5].u.index == 1);
	}
	CHECK(mod.module_name && !strcmp(mod.module_name, "blocks"));
	CHECK(wasm_func_name(&mod, 0) && !strcmp(wasm_func_name(&mod, 0), "helper"));
	CHECK(wasm_func_name(&mod, 1) && !strcmp(wasm_func_name(&mod, 1), "main"));
	wasm_module_free(&mod);

	/* A malformed name section is ignored, not an error. */
	buf m = {0};
	one_func(&m, "\0\x0b", 2);
	SEC(&m, 0, "\4name\1\5\1\0\7ab");   /* name runs past its subsection */
	CHECK(decode(&m, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(mod.func_names == NULL && wasm_func_name(&mod, 0) == NULL);
		wasm_module_free(&mod);
	}
	buf ok = {0};
	one_func(&ok, "\0\x0b", 2);
	SEC(&ok, 0, "\4name\1\5\1\0\2ab");
	CHECK(decode(&ok, 0, &mod, &e) == 0);
	if (e.code == 0) {
		CHECK(wasm_func_name(&mod, 0) && !strcmp(wasm_func_name(&mod, 0), "ab"));
		wasm_module_free(&mod);
	}
}

static void test_misc(void)
{
	CHECK(!strcmp(wasm_valtype_name(WASM_I32), "i32"));
	CHECK(!strcmp(wasm_valtype_name(WASM_EXTERNREF), "externref"));
	CHECK(!strcmp(wasm_valtype_name(0x55), "?"));
	const wasm_opinfo *oi = wasm_opinfo_get(WASM_OP_I64_ADD);
	CHECK(oi && !strcmp(oi->name, "i64.add") && !strcmp(oi->sig, "II:I"));
	oi = wasm_opinfo_get(WASM_PREFIXED(0xFC, 17));
	CHECK(oi && !strcmp(oi->name, "table.fill"));
	CHECK(wasm_opinfo_get(0x0a) == NULL);   /* throw_ref: not the legacy proposal */
	oi = wasm_opinfo_get(WASM_OP_TRY);
	CHECK(oi && !strcmp(oi->name, "try") && oi->imm == IMM_BLOCK);
	oi = wasm_opinfo_get(WASM_OP_DELEGATE);
	CHECK(oi && !strcmp(oi->name, "delegate") && oi->imm == IMM_LABEL);

	wasm_error e = { .code = WASM_ERR_MALFORMED, .offset = 0x1a, .func = UINT32_MAX };
	snprintf(e.msg, sizeof e.msg, "zero byte expected");
	char line[300];
	wasm_error_format(NULL, "app.wasm", &e, line, sizeof line);
	CHECK(!strcmp(line, "app.wasm: at 0x1a: zero byte expected"));
}

int main(void)
{
	test_header();
	test_leb();
	test_sections();
	test_body();
	test_truncation();
	test_blocks_wat();
	test_misc();
	return failures != 0;
}
