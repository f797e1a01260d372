/* test_rt_runtime.c - the runtime without generated code: memory
 * reservation and growth, traps raised from a guarded call (explicit,
 * out-of-bounds fault, stack exhaustion, exit, host), signal forwarding
 * to a handler installed before and after ours, type interning, host
 * import checks, rt_mem bounds.  Silent on success. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt/rt.h"

static int failures;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	failures++; } } while (0)

/* ---- memory ------------------------------------------------------------- */

static void test_memory(void)
{
	char err[256];
	wasm_limits lim = {.min = 1, .max = 3, .has_max = true};
	rt_memory *m = rt_memory_new(&lim, err, sizeof err);
	CHECK(m != NULL);
	if (!m)
		return;
	CHECK(m->pages == 1 && m->max_pages == 3 && m->has_max);
	m->base[0] = 1;
	m->base[RT_PAGE_SIZE - 1] = 2;
	CHECK(rt_memory_grow(m, 0) == 1);
	CHECK(rt_memory_grow(m, 1) == 1);
	CHECK(m->pages == 2);
	m->base[2 * RT_PAGE_SIZE - 1] = 3;           /* the new page is writable */
	CHECK(m->base[RT_PAGE_SIZE] == 0);           /* and zeroed */
	CHECK(rt_memory_grow(m, 2) == UINT32_MAX);   /* past the maximum */
	CHECK(m->pages == 2);
	CHECK(rt_memory_grow(m, 1) == 2);
	CHECK(rt_memory_grow(m, 1) == UINT32_MAX);
	rt_memory_free(m);

	wasm_limits nomax = {.min = 0};
	m = rt_memory_new(&nomax, err, sizeof err);
	CHECK(m && m->max_pages == RT_MAX_PAGES && !m->has_max && m->pages == 0);
	if (m) {
		CHECK(rt_memory_grow(m, RT_MAX_PAGES + 1) == UINT32_MAX);
		rt_memory_free(m);
	}
	wasm_limits huge = {.min = RT_MAX_PAGES + 1};
	err[0] = 0;
	CHECK(rt_memory_new(&huge, err, sizeof err) == NULL);
	CHECK(strstr(err, "rt_memory_new") != NULL);

	/* many reservations at once: 64 x 8 GiB of address space */
	rt_memory *ms[64];
	for (int i = 0; i < 64; i++) {
		ms[i] = rt_memory_new(&lim, err, sizeof err);
		CHECK(ms[i] != NULL);
	}
	for (int i = 0; i < 64; i++)
		rt_memory_free(ms[i]);
}

static void test_tables(void)
{
	wasm_limits lim = {.min = 2, .max = 4, .has_max = true};
	rt_table *t = rt_table_new(WASM_FUNCREF, &lim);
	CHECK(t && t->size == 2 && t->max == 4);
	if (!t)
		return;
	int code;
	rt_func marker = {.type = rt_type_intern("ii:i"), .fn = &code, .ctx = &code};
	CHECK(rt_table_grow(t, &marker, 2) == 2);
	CHECK(t->size == 4 && rt_table_get(t, 3) == &marker && rt_table_get(t, 1) == NULL);
	CHECK(t->elems[3].key == marker.type->key && t->elems[3].fn == &code &&
	      t->elems[3].ctx == &code && t->elems[1].key == 0);
	rt_table_set(t, 3, NULL);
	CHECK(rt_table_get(t, 3) == NULL && t->elems[3].key == 0 && t->elems[3].fn == NULL);
	/* type keys: the constant code when the type fits, equal exactly when
	 * the types are equal */
	uint8_t i32 = WASM_I32, i64 = WASM_I64;
	wasm_functype ft = {.nparams = 1, .nresults = 1, .params = &i32, .results = &i32};
	CHECK(rt_type_code(&ft) == 01101u && rt_type_intern("i:i")->key == 01101u);
	CHECK(rt_type_intern("ii:i")->key == 011101u && rt_type_intern(":")->key == 010u);
	CHECK(rt_type_intern("I:")->key == 0120u && rt_type_intern(":I")->key == 0102u);
	uint8_t many[20];
	for (int k = 0; k < 20; k++)
		many[k] = k == 19 ? i64 : i32;
	wasm_functype big = {.nparams = 20, .params = many};
	ft.nparams = 18;
	ft.params = many;
	CHECK(rt_type_code(&big) == 0 && rt_type_code(&ft) >> 60 == 1 &&
	      rt_type_code(&ft) == rt_type_of(&ft)->key);
	const rt_type *bt = rt_type_of(&big);
	CHECK(bt && bt->key == ((uint64_t)(uintptr_t)bt | (uint64_t)1 << 63) &&
	      rt_type_of(&big) == bt);
	CHECK(rt_table_grow(t, NULL, 1) == UINT32_MAX);
	rt_table_free(t);
}

/* ---- traps from a guarded call --------------------------------------- */

static rt_memory *g_mem;
static int g_mode;
static volatile unsigned g_depth, g_limit = UINT32_MAX;
static rt_instance *g_inst;

static unsigned recurse(unsigned n)
{
	volatile char pad[128];
	pad[0] = (char)n;
	g_depth++;
	if (n == g_limit)
		return 0;
	return recurse(n + 1) + pad[0];
}

static void body(const rt_func *f, const rt_value *args, rt_value *results)
{
	(void)f;
	switch (g_mode) {
	case 0: results[0].i32 = args[0].i32 + 1; break;
	case 1: rt_trap(RT_TRAP_DIV_ZERO, 7);
	case 2: ((volatile uint8_t *)g_mem->base)[g_mem->pages * RT_PAGE_SIZE + 5] = 1; break;
	case 3: results[0].i32 = recurse(0); break;
	case 4: rt_exit(g_inst, 42);
	case 5: rt_trap_host(g_inst, "host says %d", 9);
	case 6: {
		/* a host callback into the module that traps, rethrown */
		int saved = g_mode;
		g_mode = 1;
		rt_func inner = {.invoke = body};
		int k = rt_call(g_inst, &inner, args, results);
		g_mode = saved;
		if (k)
			rt_trap_rethrow(g_inst, k);
		break;
	}
	}
}

static void test_traps(void)
{
	char err[256];
	wasm_limits lim = {.min = 1};
	g_mem = rt_memory_new(&lim, err, sizeof err);
	CHECK(g_mem != NULL);
	if (!g_mem)
		return;
	rt_func f = {.invoke = body};
	rt_value a[1] = {{.i32 = 41}}, r[1];
	rt_trapinfo ti;

	g_mode = 0;
	CHECK(rt_call_ex(NULL, &f, a, r, &ti) == 0 && r[0].i32 == 42);

	g_mode = 1;
	CHECK(rt_call_ex(NULL, &f, a, r, &ti) == RT_TRAP_DIV_ZERO);
	CHECK(ti.kind == RT_TRAP_DIV_ZERO && ti.func == 7);
	char buf[300];
	rt_trap_format(NULL, &ti, buf, sizeof buf);
	CHECK(!strcmp(buf, "trap: integer divide by zero"));

	g_mode = 2;
	CHECK(rt_call_ex(NULL, &f, a, r, &ti) == RT_TRAP_MEM_OOB);
	g_mode = 3;
	g_depth = 0;
	CHECK(rt_call_ex(NULL, &f, a, r, &ti) == RT_TRAP_STACK);
	CHECK(g_depth > 1000);
	/* the stack is usable again after exhaustion */
	g_mode = 0;
	CHECK(rt_call_ex(NULL, &f, a, r, &ti) == 0 && r[0].i32 == 42);
	g_mode = 4;
	CHECK(rt_call_ex(NULL, &f, a, r, &ti) == RT_EXIT && ti.exit_status == 42);
	g_mode = 5;
	CHECK(rt_call_ex(NULL, &f, a, r, &ti) == RT_TRAP_HOST);
	CHECK(!strcmp(ti.msg, "host says 9"));
	rt_trap_format(NULL, &ti, buf, sizeof buf);
	CHECK(!strcmp(buf, "trap: host says 9"));
	g_mode = 6;
	CHECK(rt_call_ex(NULL, &f, a, r, &ti) == RT_TRAP_DIV_ZERO && ti.func == 7);
	CHECK(!strcmp(rt_trap_name(RT_TRAP_MEM_OOB), "out of bounds memory access"));
	CHECK(!strcmp(rt_trap_name(RT_TRAP_STACK), "call stack exhausted"));
}

/* ---- signal forwarding ---------------------------------------------- */

static uint8_t *g_foreign;    /* a PROT_NONE page outside any memory */
static volatile int g_forwarded;

static void foreign_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if ((uint8_t *)si->si_addr >= g_foreign && (uint8_t *)si->si_addr < g_foreign + 4096) {
		g_forwarded++;
		mprotect(g_foreign, 4096, PROT_READ | PROT_WRITE);   /* fix and retry */
		return;
	}
	abort();
}

static void install_foreign(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = foreign_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
}

static void foreign_body(const rt_func *f, const rt_value *args, rt_value *results)
{
	(void)f;
	(void)args;
	(void)results;
	((volatile uint8_t *)g_foreign)[10] = 1;
}

static void test_forwarding(void)
{
	g_foreign = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(g_foreign != MAP_FAILED);
	rt_func f = {.invoke = foreign_body};
	rt_trapinfo ti;

	/* a handler that was there before the runtime's (an MPI library's) */
	install_foreign();
	CHECK(rt_signals_install() == 0);
	CHECK(rt_signals_install() == 0);   /* idempotent */
	g_forwarded = 0;
	((volatile uint8_t *)g_foreign)[0] = 1;          /* outside a module call */
	CHECK(g_forwarded == 1);
	mprotect(g_foreign, 4096, PROT_NONE);
	CHECK(rt_call_ex(NULL, &f, NULL, NULL, &ti) == 0);   /* inside one */
	CHECK(g_forwarded == 2);

	/* the library installs its handler after ours (MPI_Init); the runtime
	 * installs again and must still trap in linear memory and forward
	 * the rest */
	install_foreign();
	CHECK(rt_signals_install() == 0);
	mprotect(g_foreign, 4096, PROT_NONE);
	CHECK(rt_call_ex(NULL, &f, NULL, NULL, &ti) == 0);
	CHECK(g_forwarded == 3);
	rt_func oob = {.invoke = body};
	rt_value a[1] = {{.i32 = 0}}, r[1];
	g_mode = 2;
	CHECK(rt_call_ex(NULL, &oob, a, r, &ti) == RT_TRAP_MEM_OOB);
	munmap(g_foreign, 4096);
}

/* ---- types and imports ---------------------------------------------- */

static uint32_t host_add(rt_instance *inst, uint32_t a, uint32_t b)
{
	(void)inst;
	return a + b;
}

static const rt_hostfn host_fns[] = {
	{"env", "add", "ii:i", (void *)host_add},
	{"env", "other", "I:", (void *)host_add},
};

static void test_imports(void)
{
	const rt_type *t1 = rt_type_intern("ii:i"), *t2 = rt_type_intern("ii:i");
	CHECK(t1 && t1 == t2 && t1->nparams == 2 && t1->nresults == 1);
	CHECK(t1->params[0] == WASM_I32 && t1->results[0] == WASM_I32);
	CHECK(rt_type_intern("i:i") != t1);
	CHECK(rt_type_intern("x:") == NULL);
	uint8_t p[2] = {WASM_I32, WASM_I32}, res[1] = {WASM_I32};
	wasm_functype ft = {.nparams = 2, .nresults = 1, .params = p, .results = res};
	CHECK(rt_type_of(&ft) == t1);

	rt_host_register(host_fns, 2);
	CHECK(rt_host_find("env", "add") == &host_fns[0]);
	CHECK(rt_host_find("env", "nope") == NULL);

	/* module: imports env.add (ii:i, fine), env.other with the wrong
	 * type, env.missing, and a memory */
	uint8_t p2[1] = {WASM_I32};
	wasm_functype types[2] = {ft, {.nparams = 1, .params = p2}};
	wasm_import imps[4] = {
		{.module = "env", .name = "add", .kind = WASM_EXTERN_FUNC, .u.func_type = 0},
		{.module = "env", .name = "other", .kind = WASM_EXTERN_FUNC, .u.func_type = 1},
		{.module = "env", .name = "missing", .kind = WASM_EXTERN_FUNC, .u.func_type = 0},
		{.module = "env", .name = "mem", .kind = WASM_EXTERN_MEMORY},
	};
	wasm_module m;
	memset(&m, 0, sizeof m);
	m.types = types;
	m.ntypes = 2;
	m.imports = imps;
	m.nimports = 4;
	char err[1024];
	CHECK(rt_check_host_imports(&m, "app.wasm", err, sizeof err) == 3);
	CHECK(strstr(err, "app.wasm: import env.other has type i:, the host's is I:") != NULL);
	CHECK(strstr(err, "app.wasm: unknown import env.missing (ii:i)") != NULL);
	CHECK(strstr(err, "env.mem") != NULL);
	CHECK(strstr(err, "env.add") == NULL);
	int lines = 0;
	for (char *s = err; *s; s++)
		lines += *s == '\n';
	CHECK(lines == 2);
	m.nimports = 1;
	CHECK(rt_check_host_imports(&m, "app.wasm", err, sizeof err) == 0);
}

static void test_rt_mem(void)
{
	char err[256];
	wasm_limits lim = {.min = 1};
	rt_memory *mem = rt_memory_new(&lim, err, sizeof err);
	CHECK(mem != NULL);
	if (!mem)
		return;
	wasm_memtype mt = {.lim = lim};
	wasm_module m;
	memset(&m, 0, sizeof m);
	m.nmems = 1;
	m.mems = &mt;
	rt_memory *mems[1] = {mem};
	rt_instance inst;
	memset(&inst, 0, sizeof inst);
	inst.mod = &m;
	inst.mems = mems;
	g_inst = &inst;
	CHECK(rt_mem_size(&inst) == RT_PAGE_SIZE);
	CHECK(rt_mem(&inst, 0, RT_PAGE_SIZE) == mem->base);
	CHECK(rt_mem(&inst, RT_PAGE_SIZE, 0) == mem->base + RT_PAGE_SIZE);
	CHECK(rt_mem(&inst, RT_PAGE_SIZE, 1) == NULL);
	CHECK(rt_mem(&inst, 1, RT_PAGE_SIZE) == NULL);
	CHECK(rt_mem(&inst, UINT64_MAX, 2) == NULL);
	CHECK(rt_mem_array(&inst, 8, 2, 8) == mem->base + 8);
	CHECK(rt_mem_array(&inst, 0, UINT64_MAX / 2, 4) == NULL);
	g_inst = NULL;
	rt_memory_free(mem);
}

int main(void)
{
	test_memory();
	test_tables();
	test_imports();
	test_rt_mem();
	test_traps();
	test_forwarding();
	if (failures)
		fprintf(stderr, "test_rt_runtime: %d checks failed\n", failures);
	return failures != 0;
}
