/* test_alloc_fail.c - allocation-failure injection for the decoder, the
 * validator and the translator (Lua's ltests, SQLite's malloc tests): the
 * pipeline runs once to count its allocations, then once per allocation
 * with exactly that one failing.  Every run must end either with an error
 * record naming what went wrong (and nothing left half-built), or with a
 * translation identical to the reference one; never a crash.  malloc,
 * calloc and realloc are interposed for the whole process, so allocations
 * made through libc (strdup, open_memstream, vasprintf) fail too.
 * Silent on success. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wasm/wasm.h"
#include "xlate/xlate.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static int armed;          /* count (and maybe fail) allocations */
static long counted;       /* allocations since armed */
static long fail_at;       /* the one to fail (1-based), 0 = none */
static int failed_one;     /* it happened in this run */

static int fail_now(void)
{
	if (!armed)
		return 0;
	if (++counted == fail_at) {
		failed_one = 1;
		return 1;
	}
	return 0;
}

void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t a, size_t b) { return fail_now() ? NULL : __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
	fputc('\n', stderr); failures++; } } while (0)

/* Loops the translator versions (affine accesses), br_table,
 * call_indirect, a global, data, a SIMD and an atomic instruction. */
static const char wat[] =
"(module\n"
"  (type $t (func (param i32) (result i32)))\n"
"  (memory (export \"memory\") 1 1 shared)\n"
"  (table 2 funcref) (elem (i32.const 0) $sq $sum)\n"
"  (global $g (mut i32) (i32.const 7))\n"
"  (data (i32.const 64) \"hello\")\n"
"  (func $sq (type $t) (i32.mul (local.get 0) (local.get 0)))\n"
"  (func $sum (type $t) (local $i i32) (local $s i32)\n"
"    (block $out (loop $l\n"
"      (br_if $out (i32.ge_u (local.get $i) (local.get 0)))\n"
"      (local.set $s (i32.add (local.get $s) (i32.load (i32.shl (local.get $i) (i32.const 2)))))\n"
"      (i32.store offset=4096 (i32.shl (local.get $i) (i32.const 2)) (local.get $s))\n"
"      (local.set $i (i32.add (local.get $i) (i32.const 1)))\n"
"      (br $l)))\n"
"    (local.get $s))\n"
"  (func (export \"pick\") (param i32) (result i32)\n"
"    (block $c (block $b (block $a\n"
"      (br_table $a $b $c (local.get 0)))\n"
"      (return (call_indirect (type $t) (i32.const 3) (i32.const 0))))\n"
"      (return (call_indirect (type $t) (i32.const 3) (i32.const 1))))\n"
"    (global.set $g (i32.add (global.get $g) (i32.const 1)))\n"
"    (v128.store (i32.const 128) (i32x4.add (v128.load (i32.const 0)) (v128.load (i32.const 16))))\n"
"    (i32.atomic.rmw.add (i32.const 256) (global.get $g))))\n";

/* One pass of the pipeline.  Returns 0 with *text the translation (all
 * units concatenated), or the error code with *err filled. */
static int pipeline(const uint8_t *bytes, size_t size, char **text, wasm_error *err)
{
	wasm_module m;
	xlate_output out = {0};
	*text = NULL;
	memset(err, 0, sizeof *err);
	int rc = wasm_decode(bytes, size, 0, &m, err);
	if (rc)
		return rc;
	rc = wasm_validate(&m, err);
	if (!rc) {
		xlate_options opt = { .max_units = 2 };
		rc = xlate_module(&m, &opt, &out, err);
	}
	if (!rc) {
		size_t n = 0;
		for (size_t i = 0; i < out.nunits; i++)
			n += out.units[i].len;
		/* Not counted: the test's own copy. */
		int was = armed;
		armed = 0;
		*text = __libc_malloc(n + 1);
		armed = was;
		if (*text) {
			size_t k = 0;
			for (size_t i = 0; i < out.nunits; i++) {
				memcpy(*text + k, out.units[i].text, out.units[i].len);
				k += out.units[i].len;
			}
			(*text)[k] = 0;
		}
		xlate_output_free(&out);
	}
	wasm_module_free(&m);
	return rc;
}

/* Runs the injection over one module's bytes; verbose with TEST_VERBOSE. */
static void inject(const char *what, const uint8_t *bytes, size_t size, bool need_vec)
{
	char *ref;
	wasm_error err;
	armed = 1, counted = 0, fail_at = 0;
	int rc = pipeline(bytes, size, &ref, &err);
	armed = 0;
	long total = counted;
	CHECK(rc == 0 && ref, "%s: reference run failed: %s", what, err.msg);
	CHECK(total >= 20, "%s: only %ld allocations counted: is malloc interposed?", what, total);
	if (rc || !ref)
		return;
	CHECK(!need_vec || strstr(ref, "MW_VEC") != NULL,
	      "%s: the reference translation has no versioned loop", what);

	long errors = 0, same = 0;
	for (long n = 1; n <= total; n++) {
		char *text;
		armed = 1, counted = 0, fail_at = n, failed_one = 0;
		rc = pipeline(bytes, size, &text, &err);
		armed = 0;
		CHECK(failed_one, "%s: allocation %ld of %ld was never made", what, n, total);
		if (rc) {
			errors++;
			CHECK(err.msg[0] != 0, "%s: allocation %ld failing: error %d without a message",
			      what, n, rc);
			CHECK(text == NULL, "%s: allocation %ld failing: error %d but output returned",
			      what, n, rc);
		} else {
			/* Recovered: the translation must be exactly the reference
			 * one (a degraded one would be cached for good). */
			same++;
			CHECK(text && !strcmp(text, ref),
			      "%s: allocation %ld failing: success with a different translation", what, n);
		}
		free(text);
	}
	free(ref);
	if (getenv("TEST_VERBOSE"))
		fprintf(stderr, "test_alloc_fail: %s: %ld allocations, %ld failed cleanly, %ld recovered\n",
		        what, total, errors, same);
}

static size_t read_file(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

int main(void)
{
	char dir[] = "/tmp/mpiwasm-allocfail-XXXXXX", cmd[1024], path[128];
	if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
	snprintf(path, sizeof path, "%s/m.wat", dir);
	FILE *f = fopen(path, "w");
	if (!f) { perror(path); return 1; }
	fputs(wat, f);
	fclose(f);
	static uint8_t bytes[1 << 22];
	/* 1. the hand-written module above */
	snprintf(cmd, sizeof cmd, "wat2wasm --enable-threads %s/m.wat -o %s/m.wasm", dir, dir);
	if (system(cmd)) { fprintf(stderr, "test_alloc_fail: %s failed\n", cmd); return 1; }
	snprintf(path, sizeof path, "%s/m.wasm", dir);
	size_t size = read_file(path, bytes, sizeof bytes);
	CHECK(size > 0, "cannot read %s", path);
	if (size)
		inject("m.wat", bytes, size, true);
	/* 2. a C program compiled as users' programs are (libc, names,
	 * many functions and loops) */
	snprintf(cmd, sizeof cmd, "clang-19 --target=wasm32-wasi --sysroot=/usr -O2 "
	         "examples/hello.c -o %s/hello.wasm", dir);
	if (system(cmd)) { fprintf(stderr, "test_alloc_fail: %s failed\n", cmd); return 1; }
	snprintf(path, sizeof path, "%s/hello.wasm", dir);
	size = read_file(path, bytes, sizeof bytes);
	CHECK(size > 0, "cannot read %s", path);
	if (size)
		inject("examples/hello.c", bytes, size, false);
	/* 3. ALLOC_FAIL_MODULE=file.wasm: a module of one's own as well */
	if (getenv("ALLOC_FAIL_MODULE")) {
		size = read_file(getenv("ALLOC_FAIL_MODULE"), bytes, sizeof bytes);
		CHECK(size > 0, "cannot read %s", getenv("ALLOC_FAIL_MODULE"));
		if (size)
			inject(getenv("ALLOC_FAIL_MODULE"), bytes, size, false);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd)) failures++;
	return failures != 0;
}
