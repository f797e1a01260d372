/* test_xlate_brtable.c - br_table with very many targets: translation
 * must be linear in their number (a module is untrusted input; a
 * quadratic translator turned one 1M-target br_table into minutes of
 * CPU).  The modules are built here, byte by byte:
 *
 *   (func (export "f") (param i32) (result i32)
 *     block block block
 *       local.get 0  br_table t(0) ... t(N-1) 2   ;; default: 2
 *     end i32.const 10 return
 *     end i32.const 11 return
 *     end i32.const 12)
 *
 * so f(i) = 10 + t(i) for i < N, 12 otherwise.  1,000,000 targets: decode,
 * validate and translate under a generous 30 s (the time is printed with
 * -v); 100,000 targets: also compiled, loaded and called.  Silent on
 * success. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/rt.h"
#include "xlate/xlate.h"

static int failures;
static int verbose;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	failures++; } } while (0)

typedef struct buf {
	uint8_t *p;
	size_t n, cap;
} buf;

static void put(buf *b, uint8_t v)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("realloc");
			exit(1);
		}
	}
	b->p[b->n++] = v;
}

static void put_uleb(buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		put(b, (uint8_t)(c | (v ? 0x80 : 0)));
	} while (v);
}

static void put_bytes(buf *b, const void *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(b, ((const uint8_t *)s)[i]);
}

static void put_section(buf *m, uint8_t id, const buf *s)
{
	put(m, id);
	put_uleb(m, s->n);
	put_bytes(m, s->p, s->n);
}

/* the label each entry jumps to: irregular, but reproducible */
static uint32_t target(uint32_t j)
{
	return (j ^ (j >> 5) ^ (j >> 11)) % 3;
}

static buf module(uint32_t n)
{
	buf m = {0}, s = {0}, body = {0}, code = {0};
	put_bytes(&m, "\0asm\1\0\0\0", 8);
	/* type 0: (i32) -> i32 */
	put_bytes(&s, "\x01\x60\x01\x7f\x01\x7f", 6);
	put_section(&m, 1, &s);
	s.n = 0;
	put_bytes(&s, "\x01\x00", 2);                   /* one function, type 0 */
	put_section(&m, 3, &s);
	s.n = 0;
	put_bytes(&s, "\x01\x01" "f" "\x00\x00", 5);    /* export "f" func 0 */
	put_section(&m, 7, &s);
	put(&body, 0);                                  /* no locals */
	put_bytes(&body, "\x02\x40\x02\x40\x02\x40\x20\x00\x0e", 9);
	put_uleb(&body, n);
	for (uint32_t j = 0; j < n; j++)
		put_uleb(&body, target(j));
	put(&body, 2);                                  /* default */
	put_bytes(&body, "\x0b\x41\x0a\x0f\x0b\x41\x0b\x0f\x0b\x41\x0c\x0b", 12);
	put(&code, 1);
	put_uleb(&code, body.n);
	put_bytes(&code, body.p, body.n);
	put_section(&m, 10, &code);
	free(s.p);
	free(body.p);
	free(code.p);
	return m;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char tmpdir[256];

static int run(const char *cmd)
{
	int rc = system(cmd);
	if (rc)
		fprintf(stderr, "%s: command failed: %s\n", __FILE__, cmd);
	return rc;
}

/* Decodes, validates and translates an n-target module; returns the
 * seconds it took, and the output in *out. */
static double translate(uint32_t n, wasm_module *m, buf *bytes, xlate_output *out)
{
	*bytes = module(n);
	wasm_error err = {0};
	double t0 = now();
	if (wasm_decode(bytes->p, bytes->n, 0, m, &err) || wasm_validate(m, &err)) {
		fprintf(stderr, "%s: %u targets: decode/validate: %s\n", __FILE__, n, err.msg);
		failures++;
		return -1;
	}
	xlate_options opt = {.max_units = 1};
	if (xlate_module(m, &opt, out, &err)) {
		fprintf(stderr, "%s: %u targets: translate: %s\n", __FILE__, n, err.msg);
		failures++;
		return -1;
	}
	return now() - t0;
}

static void test_large(void)
{
	wasm_module m;
	buf bytes;
	xlate_output out;
	uint32_t n = 1000000;
	double t = translate(n, &m, &bytes, &out);
	if (t < 0)
		return;
	if (verbose)
		printf("br_table with %u targets: decode+validate+translate %.2f s (%zu bytes of C)\n",
		       n, t, out.units[0].len);
	CHECK(t < 30.0);
	xlate_output_free(&out);
	free(bytes.p);
}

static void test_run(void)
{
	wasm_module m;
	buf bytes;
	xlate_output out;
	uint32_t n = 100000;
	char path[512], cmd[2048], msg[512];
	double t = translate(n, &m, &bytes, &out);
	if (t < 0)
		return;
	if (verbose)
		printf("br_table with %u targets: decode+validate+translate %.2f s\n", n, t);
	snprintf(path, sizeof path, "%s/u0.c", tmpdir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(out.units[0].text, f);
	fclose(f);
	xlate_output_free(&out);
	/* -O1: the switch is the point, not how well it is optimized */
	snprintf(cmd, sizeof cmd, "cc %s -O1 -fPIC -shared -o %s/m.so %s/u0.c",
	         XLATE_CFLAGS, tmpdir, tmpdir);
	if (run(cmd)) {
		failures++;
		return;
	}
	snprintf(path, sizeof path, "%s/m.so", tmpdir);
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(dl != NULL);
	if (!dl)
		return;
	const rt_code *code = rt_code_from_dl(dl, msg, sizeof msg);
	CHECK(code != NULL);
	rt_instance *inst = NULL;
	rt_trapinfo ti;
	if (!code || rt_instantiate(&m, code, NULL, NULL, &inst, &ti, msg, sizeof msg)) {
		fprintf(stderr, "%s: instantiate: %s\n", __FILE__, msg);
		failures++;
		return;
	}
	rt_extern e;
	CHECK(rt_get_export(inst, "f", &e) == 0 && e.kind == WASM_EXTERN_FUNC);
	static const uint32_t probe[] = { 0, 1, 2, 3, 31, 32, 33, 2047, 2048, 65535,
	                                  99998, 99999, 100000, 100001, 0x7fffffff,
	                                  0x80000000u, 0xffffffffu };
	for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++) {
		rt_value a[1], r[1];
		a[0].i32 = probe[k];
		uint32_t want = 10 + (probe[k] < n ? target(probe[k]) : 2);
		CHECK(rt_call_ex(inst, e.u.func, a, r, &ti) == 0 && r[0].i32 == want);
	}
	/* and every entry, through the same call */
	int bad = 0;
	for (uint32_t j = 0; j < n; j++) {
		rt_value a[1], r[1];
		a[0].i32 = j;
		if (rt_call_ex(inst, e.u.func, a, r, &ti) != 0 || r[0].i32 != 10 + target(j))
			bad++;
	}
	CHECK(bad == 0);
	free(bytes.p);
}

int main(int argc, char **argv)
{
	verbose = argc > 1 && !strcmp(argv[1], "-v");
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_xlate_brtable.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_large();
	test_run();
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "%s: could not remove %s\n", __FILE__, tmpdir);
	if (failures)
		fprintf(stderr, "test_xlate_brtable: %d checks failed\n", failures);
	return failures != 0;
}
