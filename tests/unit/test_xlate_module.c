/* test_xlate_module.c - translator + runtime end to end, without the
 * cache: a module (from the .wat text below, via wat2wasm) is decoded,
 * validated, translated into several units, compiled with cc and
 * XLATE_CFLAGS, linked into a shared object, dlopen()ed and
 * instantiated; its exports are called and their results and traps
 * checked.  Also: SIMD refusal, unknown imports.  Silent on success. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/rt.h"
#include "xlate/xlate.h"

static int failures;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	failures++; } } while (0)

static const char wat[] =
"(module\n"
"  (import \"env\" \"add\" (func $add (param i32 i32) (result i32)))\n"
"  (type $bin (func (param i32 i32) (result i32)))\n"
"  (memory (export \"memory\") 1 2)\n"
"  (table 4 funcref)\n"
"  (global $g (mut i32) (i32.const 5))\n"
"  (elem (i32.const 0) $div $swap)\n"
"  (data (i32.const 16) \"\\2a\\00\\00\\00\")\n"
"  (func $div (export \"div\") (param i32 i32) (result i32)\n"
"    (i32.div_s (local.get 0) (local.get 1)))\n"
"  (func $swap (export \"swap\") (param i32 i64) (result i64 i32)\n"
"    (local.get 1) (local.get 0))\n"
"  (func (export \"callhost\") (param i32) (result i32)\n"
"    (call $add (local.get 0) (i32.const 100)))\n"
"  (func (export \"ind\") (param i32 i32 i32) (result i32)\n"
"    (call_indirect (type $bin) (local.get 0) (local.get 1) (local.get 2)))\n"
"  (func (export \"load\") (param i32) (result i32) (i32.load (local.get 0)))\n"
"  (func (export \"grow\") (param i32) (result i32) (memory.grow (local.get 0)))\n"
"  (func $fac (export \"fac\") (param i64) (result i64)\n"
"    (if (result i64) (i64.eqz (local.get 0))\n"
"      (then (i64.const 1))\n"
"      (else (i64.mul (local.get 0) (call $fac (i64.sub (local.get 0) (i64.const 1)))))))\n"
"  (func (export \"glob\") (result i32)\n"
"    (global.set $g (i32.add (global.get $g) (i32.const 1))) (global.get $g))\n"
"  (func $rec (export \"rec\") (param i32) (result i32)\n"
"    (i32.add (call $rec (i32.add (local.get 0) (i32.const 1))) (i32.const 1)))\n"
"  (func (export \"swapsum\") (result i64)\n"
"    (block (result i64 i32) (call $swap (i32.const 3) (i64.const 4)))\n"
"    (i64.extend_i32_u) (i64.add))\n"
"  (func (export \"fmin\") (param f64 f64) (result f64) (f64.min (local.get 0) (local.get 1)))\n"
"  (func (export \"sat\") (param f32) (result i32) (i32.trunc_sat_f32_s (local.get 0)))\n"
")\n";

static uint32_t host_add(rt_instance *inst, uint32_t a, uint32_t b)
{
	(void)inst;
	return a + b;
}

static const rt_hostfn host_fns[] = {{"env", "add", "ii:i", (void *)host_add}};

static char tmpdir[256];

static int run(const char *cmd)
{
	int rc = system(cmd);
	if (rc)
		fprintf(stderr, "%s: command failed: %s\n", __FILE__, cmd);
	return rc;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	uint8_t *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Calls export `name`; returns the trap kind. */
static int call(rt_instance *inst, const char *name, const rt_value *args,
                rt_value *res, rt_trapinfo *ti)
{
	rt_extern e;
	if (rt_get_export(inst, name, &e) || e.kind != WASM_EXTERN_FUNC) {
		fprintf(stderr, "%s: no export %s\n", __FILE__, name);
		failures++;
		return -1;
	}
	return rt_call_ex(inst, e.u.func, args, res, ti);
}

static void test_module(void)
{
	char path[512], cmd[2048];
	snprintf(path, sizeof path, "%s/m.wat", tmpdir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(wat, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "wat2wasm --debug-names %s/m.wat -o %s/m.wasm", tmpdir, tmpdir);
	if (run(cmd)) {
		failures++;
		return;
	}
	snprintf(path, sizeof path, "%s/m.wasm", tmpdir);
	size_t len;
	uint8_t *bytes = read_file(path, &len);
	CHECK(bytes != NULL);
	if (!bytes)
		return;
	wasm_module m;
	wasm_error err = {0};
	if (wasm_decode(bytes, len, 0, &m, &err) || wasm_validate(&m, &err)) {
		fprintf(stderr, "%s: decode/validate: %s\n", __FILE__, err.msg);
		failures++;
		free(bytes);
		return;
	}

	/* tiny units: several of them, the descriptor in exactly one */
	xlate_options opt = {.unit_target_bytes = 1, .max_units = 3};
	xlate_output out;
	CHECK(xlate_module(&m, &opt, &out, &err) == 0);
	CHECK(out.nunits == 3);
	int ndesc = 0;
	char objs[1024] = "";
	for (size_t u = 0; u < out.nunits; u++) {
		ndesc += strstr(out.units[u].text, "mpiwasm_code =") != NULL;
		CHECK(strlen(out.units[u].text) == out.units[u].len);
		snprintf(path, sizeof path, "%s/u%zu.c", tmpdir, u);
		f = fopen(path, "w");
		if (!f)
			continue;
		fputs(out.units[u].text, f);
		fclose(f);
		snprintf(cmd, sizeof cmd, "cc %s -O2 -fPIC -c %s/u%zu.c -o %s/u%zu.o",
		         XLATE_CFLAGS, tmpdir, u, tmpdir, u);
		CHECK(run(cmd) == 0);
		size_t ol = strlen(objs);
		snprintf(objs + ol, sizeof objs - ol, " %s/u%zu.o", tmpdir, u);
	}
	CHECK(ndesc == 1);
	/* the function names from the name section are kept in comments */
	bool named = false;
	for (size_t u = 0; u < out.nunits; u++)
		named |= strstr(out.units[u].text, ": fac */") != NULL;
	CHECK(named);
	xlate_output_free(&out);
	snprintf(cmd, sizeof cmd, "cc -shared -o %s/m.so%s", tmpdir, objs);
	CHECK(run(cmd) == 0);
	snprintf(path, sizeof path, "%s/m.so", tmpdir);
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(dl != NULL);
	if (!dl) {
		fprintf(stderr, "%s: dlopen: %s\n", __FILE__, dlerror());
		goto out;
	}
	char msg[512];
	const rt_code *code = rt_code_from_dl(dl, msg, sizeof msg);
	CHECK(code != NULL);
	if (!code)
		goto out;

	/* without env.add registered: a link error naming the import */
	rt_instance *inst = NULL;
	rt_trapinfo ti;
	CHECK(rt_instantiate(&m, code, NULL, NULL, &inst, &ti, msg, sizeof msg) == -1);
	CHECK(strstr(msg, "env.add") != NULL);

	rt_host_register(host_fns, 1);
	CHECK(rt_instantiate(&m, code, NULL, NULL, &inst, &ti, msg, sizeof msg) == 0);
	if (!inst)
		goto out;
	rt_value a[3], r[2];
	a[0].i32 = 7; a[1].i32 = 2;
	CHECK(call(inst, "div", a, r, &ti) == 0 && r[0].i32 == 3);
	a[1].i32 = 0;
	CHECK(call(inst, "div", a, r, &ti) == RT_TRAP_DIV_ZERO);
	rt_trap_format(inst, &ti, msg, sizeof msg);
	CHECK(!strcmp(msg, "trap: integer divide by zero in div (function 1)"));
	a[0].i32 = 0x80000000u; a[1].i32 = 0xffffffffu;
	CHECK(call(inst, "div", a, r, &ti) == RT_TRAP_INT_OVERFLOW);

	a[0].i32 = 1; a[1].i64 = 1ull << 40;
	CHECK(call(inst, "swap", a, r, &ti) == 0 && r[0].i64 == 1ull << 40 && r[1].i32 == 1);
	CHECK(call(inst, "swapsum", a, r, &ti) == 0 && r[0].i64 == 7);
	a[0].i32 = 5;
	CHECK(call(inst, "callhost", a, r, &ti) == 0 && r[0].i32 == 105);

	a[0].i32 = 10; a[1].i32 = 3; a[2].i32 = 0;
	CHECK(call(inst, "ind", a, r, &ti) == 0 && r[0].i32 == 3);
	a[2].i32 = 1;
	CHECK(call(inst, "ind", a, r, &ti) == RT_TRAP_INDIRECT_TYPE);
	a[2].i32 = 2;
	CHECK(call(inst, "ind", a, r, &ti) == RT_TRAP_INDIRECT_NULL);
	a[2].i32 = 4;
	CHECK(call(inst, "ind", a, r, &ti) == RT_TRAP_TABLE_OOB);

	a[0].i32 = 16;
	CHECK(call(inst, "load", a, r, &ti) == 0 && r[0].i32 == 42);
	a[0].i32 = 65534;
	CHECK(call(inst, "load", a, r, &ti) == RT_TRAP_MEM_OOB);
	rt_trap_format(inst, &ti, msg, sizeof msg);
	CHECK(strstr(msg, "trap: out of bounds memory access") == msg);
	a[0].i32 = 1;
	CHECK(call(inst, "grow", a, r, &ti) == 0 && r[0].i32 == 1);
	CHECK(rt_mem_size(inst) == 2 * RT_PAGE_SIZE);
	a[0].i32 = 65534;
	CHECK(call(inst, "load", a, r, &ti) == 0 && r[0].i32 == 0);
	a[0].i32 = 1;
	CHECK(call(inst, "grow", a, r, &ti) == 0 && r[0].i32 == UINT32_MAX);

	a[0].i64 = 20;
	CHECK(call(inst, "fac", a, r, &ti) == 0 && r[0].i64 == 2432902008176640000ull);
	CHECK(call(inst, "glob", a, r, &ti) == 0 && r[0].i32 == 6);
	CHECK(call(inst, "glob", a, r, &ti) == 0 && r[0].i32 == 7);
	a[0].i32 = 0;
	CHECK(call(inst, "rec", a, r, &ti) == RT_TRAP_STACK);
	rt_trap_format(inst, &ti, msg, sizeof msg);
	CHECK(strstr(msg, "trap: call stack exhausted") == msg);

	a[0].f64 = -0.0; a[1].f64 = 0.0;
	CHECK(call(inst, "fmin", a, r, &ti) == 0 && r[0].f64 == 0 && __builtin_signbit(r[0].f64));
	a[0].f32 = 3e9f;
	CHECK(call(inst, "sat", a, r, &ti) == 0 && r[0].i32 == 0x7fffffffu);

	CHECK(rt_export_func(inst, "div", "ii:i") != NULL);
	CHECK(rt_export_func(inst, "div", "i:i") == NULL);
	CHECK(rt_table_func(inst, 0, 0, "ii:i") != NULL);
	CHECK(rt_table_func(inst, 0, 1, "ii:i") == NULL);
	CHECK(rt_table_func(inst, 0, 9, "ii:i") == NULL);
	rt_instance_free(inst);

	/* a module flagged as SIMD gets the v128 prelude */
	m.uses_simd = true;
	memset(&err, 0, sizeof err);
	CHECK(xlate_module(&m, NULL, &out, &err) == 0);
	CHECK(out.nunits >= 1 && strstr(out.units[0].text, "typedef uint64_t mw_v128") != NULL);
	xlate_output_free(&out);
	m.uses_simd = false;
out:
	wasm_module_free(&m);
	free(bytes);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_xlate_module.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_module();
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "%s: could not remove %s\n", __FILE__, tmpdir);
	if (failures)
		fprintf(stderr, "test_xlate_module: %d checks failed\n", failures);
	return failures != 0;
}
