/* test_xlate_stable.c - content-defined units (xlate_options.stable_units):
 * a module of many functions is translated twice, the second time with
 * one function's body changed; every function unit but the changed
 * function's must come out byte for byte the same (a cache of compiled
 * units reuses them), the module-wide tables sit in one unit of their own
 * (the last), and every function lands in exactly one unit.  Also: the
 * same module translated twice gives identical units, a module with no
 * functions gives the tables unit alone, and a small one a single unit
 * with the tables.  And the arrays of call_indirect through a constant
 * table (mw_ct<table>_<type>) are declared only in the units that use
 * them: a changed function that calls through the table with a new type
 * (a new array) changes its own unit and the tables unit, not every
 * unit.  Silent on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xlate/xlate.h"

static int failures;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	failures++; } } while (0)

#define NFUNC 600
#define CHANGED 377

/* A module of NFUNC functions of about 60 instructions each (about 1.5 KB
 * of C apiece: several units), function `bump` with a different constant;
 * function 0 calls through a constant table with type $t1, function `ind`
 * also with type $t2. */
static char *make_wat(int bump, int ind)
{
	size_t cap = (size_t)NFUNC * 2048 + 4096, len = 0;
	char *w = malloc(cap);
	if (!w)
		return NULL;
	len += (size_t)snprintf(w + len, cap - len, "(module\n  (memory 1)\n"
	                        "  (type $t1 (func (param i32) (result i32)))\n"
	                        "  (type $t2 (func (param i32 i32) (result i32)))\n"
	                        "  (table 2 funcref)\n  (elem (i32.const 0) $f1 $g)\n");
	for (int i = 0; i < NFUNC; i++) {
		len += (size_t)snprintf(w + len, cap - len,
		                        "  (func $f%d (export \"f%d\") (type $t1)\n"
		                        "    (local i32)\n", i, i);
		if (i == 0)
			len += (size_t)snprintf(w + len, cap - len, "    (local.set 1 (call_indirect"
			                        " (type $t1) (local.get 0) (local.get 0)))\n");
		if (i == ind)
			len += (size_t)snprintf(w + len, cap - len, "    (local.set 1 (call_indirect"
			                        " (type $t2) (local.get 0) (local.get 1) (local.get 0)))\n");
		for (int k = 0; k < 12; k++)
			len += (size_t)snprintf(w + len, cap - len,
			                        "    (local.set 1 (i32.add (i32.mul (local.get 0) (i32.const %d))"
			                        " (i32.load offset=%d (local.get 1))))\n",
			                        i * 31 + k + (i == bump ? 1000 : 0), 4 * k);
		len += (size_t)snprintf(w + len, cap - len, "    (local.get 1))\n");
	}
	snprintf(w + len, cap - len, "  (func $g (type $t2) (i32.add (local.get 0) (local.get 1)))\n)\n");
	return w;
}

static int translate(const char *dir, const char *tag, const char *wat, xlate_output *out)
{
	char path[512], cmd[1400];
	snprintf(path, sizeof path, "%s/%s.wat", dir, tag);
	FILE *f = fopen(path, "w");
	if (!f || fputs(wat, f) < 0 || fclose(f)) {
		fprintf(stderr, "%s: cannot write %s\n", __FILE__, path);
		return -1;
	}
	snprintf(cmd, sizeof cmd, "wat2wasm %s/%s.wat -o %s/%s.wasm", dir, tag, dir, tag);
	if (system(cmd)) {
		fprintf(stderr, "%s: %s failed\n", __FILE__, cmd);
		return -1;
	}
	snprintf(path, sizeof path, "%s/%s.wasm", dir, tag);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	static uint8_t buf[4 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	wasm_module m;
	wasm_error err = {0};
	if (wasm_decode(buf, n, 0, &m, &err) || wasm_validate(&m, &err)) {
		fprintf(stderr, "%s: decode/validate: %s\n", __FILE__, err.msg);
		return -1;
	}
	xlate_options opt = {.stable_units = true};
	int rc = xlate_module(&m, &opt, out, &err);
	if (rc)
		fprintf(stderr, "%s: xlate: %s\n", __FILE__, err.msg);
	wasm_module_free(&m);
	return rc;
}

/* Which unit defines function f (by its body's opening line), or -1. */
static int unit_of(const xlate_output *o, int f)
{
	char def[64];
	snprintf(def, sizeof def, " mw_f%d(void *ctx_, uint32_t l0) {", f);
	int at = -1;
	for (size_t u = 0; u < o->nunits; u++)
		if (strstr(o->units[u].text, def)) {
			if (at >= 0)
				return -2;   /* defined twice */
			at = (int)u;
		}
	return at;
}

int main(void)
{
	char dir[] = "/tmp/mpiwasm-xstable.XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char *w0 = make_wat(-1, -1), *w1 = make_wat(CHANGED, -1), *w2 = make_wat(-1, CHANGED);
	xlate_output a = {0}, b = {0}, c = {0}, d = {0};
	CHECK(w0 && w1 && w2);
	if (!w0 || !w1 || !w2 || translate(dir, "a", w0, &a) || translate(dir, "b", w0, &b) ||
	    translate(dir, "c", w1, &c) || translate(dir, "d", w2, &d)) {
		failures++;
		goto out;
	}
	/* several function units and the tables unit, last */
	CHECK(a.nunits >= 4);
	CHECK(strstr(a.units[a.nunits - 1].text, "mpiwasm_code =") != NULL);
	for (size_t u = 0; u + 1 < a.nunits; u++)
		CHECK(strstr(a.units[u].text, "mpiwasm_code =") == NULL);
	/* every function in exactly one unit, in order */
	int last = 0;
	for (int f = 0; f < NFUNC; f++) {
		int u = unit_of(&a, f);
		CHECK(u >= 0 && u + 1 < (int)a.nunits && u >= last);
		if (u >= 0)
			last = u;
	}
	/* deterministic */
	CHECK(a.nunits == b.nunits);
	for (size_t u = 0; u < a.nunits && u < b.nunits; u++)
		CHECK(a.units[u].len == b.units[u].len &&
		      !memcmp(a.units[u].text, b.units[u].text, a.units[u].len));
	/* one function changed: only its unit differs (the cut after it may
	 * move, so the unit after it may differ too; no other) */
	int cu = unit_of(&a, CHANGED);
	CHECK(cu >= 0 && a.nunits == c.nunits);
	int differ = 0;
	for (size_t u = 0; u < a.nunits && u < c.nunits; u++) {
		int same = a.units[u].len == c.units[u].len &&
		           !memcmp(a.units[u].text, c.units[u].text, a.units[u].len);
		if (!same) {
			differ++;
			CHECK((int)u == cu || (int)u == cu + 1);
		}
	}
	CHECK(differ >= 1 && differ <= 2);
	/* the table's array for $t1 declared in function 0's unit and the
	 * tables unit only; a new array (the changed function calls with
	 * $t2): its unit (and the one after, as above) and the tables unit */
	int u0 = unit_of(&a, 0);
	CHECK(u0 >= 0 && u0 != cu);
	for (size_t u = 0; u < a.nunits; u++)
		CHECK((strstr(a.units[u].text, "mw_ct0_") != NULL) ==
		      ((int)u == u0 || u + 1 == a.nunits));
	CHECK(a.nunits == d.nunits);
	differ = 0;
	for (size_t u = 0; u < a.nunits && u < d.nunits; u++) {
		int same = a.units[u].len == d.units[u].len &&
		           !memcmp(a.units[u].text, d.units[u].text, a.units[u].len);
		if (!same) {
			differ++;
			CHECK((int)u == cu || (int)u == cu + 1 || u + 1 == a.nunits);
		}
	}
	CHECK(differ >= 2 && differ <= 3);
	/* no functions: the tables unit alone; a few small functions: one
	 * unit with the tables */
	xlate_output e = {0};
	if (translate(dir, "e", "(module (memory 1))", &e) == 0) {
		CHECK(e.nunits == 1);
		CHECK(e.nunits && strstr(e.units[0].text, "mpiwasm_code =") != NULL);
		xlate_output_free(&e);
	} else {
		failures++;
	}
	if (translate(dir, "s", "(module (func $a (result i32) (i32.const 1))"
	              " (func $b (export \"b\") (result i32) (call $a)))", &e) == 0) {
		CHECK(e.nunits == 1);
		CHECK(e.nunits && strstr(e.units[0].text, "mpiwasm_code =") != NULL &&
		      strstr(e.units[0].text, " mw_f1(void *ctx_) {") != NULL);
		xlate_output_free(&e);
	} else {
		failures++;
	}
out:
	xlate_output_free(&a);
	xlate_output_free(&b);
	xlate_output_free(&c);
	xlate_output_free(&d);
	free(w0);
	free(w1);
	free(w2);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "%s: cannot remove %s\n", __FILE__, dir);
	return failures != 0;
}
