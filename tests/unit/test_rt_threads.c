/* test_rt_threads: one module with a shared memory, its functions run
 * from several host threads at once through the production path
 * (load_wasm: translate, cc, dlopen; rt_instantiate; rt_call_ex).
 * Checked exactly: contended atomic adds, a cmpxchg spin lock around
 * plain stores, notify waking exactly `count` waiters, wait results
 * (ok / not-equal / timed-out) and the unaligned-atomic trap. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "load/load.h"
#include "rt/rt.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", \
	__FILE__, __LINE__, #c); failures++; } } while (0)

static const char wat[] =
"(module\n"
"  (memory (export \"memory\") 1 1 shared)\n"
"  (func (export \"add_loop\") (param $n i32)\n"
"    (loop $l\n"
"      (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))\n"
"      (drop (i64.atomic.rmw16.add_u (i32.const 32) (i64.const 3)))\n"
"      (local.set $n (i32.sub (local.get $n) (i32.const 1)))\n"
"      (br_if $l (local.get $n))))\n"
"  (func (export \"lock_inc\") (param $n i32)\n"
"    (loop $l\n"
"      (block $got (loop $spin\n"
"        (br_if $got (i32.eqz (i32.atomic.rmw.cmpxchg (i32.const 4) (i32.const 0) (i32.const 1))))\n"
"        (br $spin)))\n"
"      (i64.store (i32.const 8) (i64.add (i64.load (i32.const 8)) (i64.const 1)))\n"
"      (i32.atomic.store (i32.const 4) (i32.const 0))\n"
"      (local.set $n (i32.sub (local.get $n) (i32.const 1)))\n"
"      (br_if $l (local.get $n))))\n"
"  (func (export \"wait_flag\") (result i32)\n"
"    (drop (i32.atomic.rmw.add (i32.const 24) (i32.const 1)))\n"
"    (memory.atomic.wait32 (i32.const 16) (i32.const 0) (i64.const -1)))\n"
"  (func (export \"set_flag_notify\") (param i32) (result i32)\n"
"    (i32.atomic.store (i32.const 16) (i32.const 1))\n"
"    (memory.atomic.notify (i32.const 16) (local.get 0)))\n"
"  (func (export \"wait64_zero\") (result i32)\n"
"    (memory.atomic.wait64 (i32.const 40) (i64.const 0) (i64.const -1)))\n"
"  (func (export \"notify40\") (param i32) (result i32)\n"
"    (memory.atomic.notify (i32.const 40) (local.get 0)))\n"
"  (func (export \"wait_1ms\") (result i32)\n"
"    (memory.atomic.wait32 (i32.const 20) (i32.const 0) (i64.const 1000000)))\n"
"  (func (export \"get\") (param i32) (result i64) (i64.atomic.load (local.get 0)))\n"
"  (func (export \"unaligned\") (result i32) (i32.atomic.load (i32.const 2)))\n"
")\n";

static rt_instance *inst;

static const rt_func *fn(const char *name)
{
	rt_extern e;
	if (rt_get_export(inst, name, &e) || e.kind != WASM_EXTERN_FUNC) {
		fprintf(stderr, "test_rt_threads: no export %s\n", name);
		exit(1);
	}
	return e.u.func;
}

static int call1(const char *name, uint32_t arg, rt_value *res)
{
	rt_value a = { .i32 = arg };
	rt_trapinfo ti;
	return rt_call_ex(inst, fn(name), &a, res, &ti);
}

typedef struct job {
	const char *name;
	uint32_t arg;
	rt_value res;
	int trap;
} job;

static void *worker(void *p)
{
	job *j = p;
	rt_signals_install();
	j->trap = call1(j->name, j->arg, &j->res);
	return NULL;
}

static void run_all(job *jobs, int n)
{
	pthread_t t[16];
	for (int i = 0; i < n; i++)
		CHECK(pthread_create(&t[i], NULL, worker, &jobs[i]) == 0);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static uint64_t get(uint32_t addr)
{
	rt_value r;
	CHECK(call1("get", addr, &r) == 0);
	return r.i64;
}

int main(void)
{
	char dir[] = "/tmp/test_rt_threads.XXXXXX", cmd[512], path[600], err[1024];
	if (!mkdtemp(dir)) {
		perror("test_rt_threads: mkdtemp");
		return 1;
	}
	snprintf(path, sizeof path, "%s/m.wat", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fputs(wat, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "wat2wasm --enable-threads %s/m.wat -o %s/m.wasm", dir, dir);
	if (system(cmd)) {
		fprintf(stderr, "test_rt_threads: wat2wasm failed\n");
		return 1;
	}
	snprintf(path, sizeof path, "%s/m.wasm", dir);
	f = fopen(path, "rb");
	static uint8_t bytes[1 << 16];
	size_t len = f ? fread(bytes, 1, sizeof bytes, f) : 0;
	if (f)
		fclose(f);
	load_options opt = { .cache = { .dir = dir, .quiet = true } };
	load_module cm;
	if (load_wasm(bytes, len, "m.wasm", &opt, &cm, err, sizeof err)) {
		fprintf(stderr, "test_rt_threads: %s\n", err);
		return 1;
	}
	rt_trapinfo ti;
	rt_signals_install();
	if (rt_instantiate(&cm.mod, cm.code, rt_resolve_host, NULL, &inst, &ti, err, sizeof err)) {
		fprintf(stderr, "test_rt_threads: %s\n", err);
		return 1;
	}

	/* 8 threads x 20000 contended adds (two widths) */
	job jobs[16];
	for (int i = 0; i < 8; i++)
		jobs[i] = (job){ .name = "add_loop", .arg = 20000 };
	run_all(jobs, 8);
	for (int i = 0; i < 8; i++)
		CHECK(jobs[i].trap == 0);
	CHECK((uint32_t)get(0) == 160000);
	CHECK((get(32) & 0xffff) == (160000u * 3) % 65536);   /* wraps at 16 bits */

	/* a cmpxchg spin lock protects plain 64-bit increments */
	for (int i = 0; i < 4; i++)
		jobs[i] = (job){ .name = "lock_inc", .arg = 20000 };
	run_all(jobs, 4);
	CHECK(get(8) == 80000);

	/* 3 waiters on a flag; one notify for all: each either slept and was
	 * woken (0) or saw the flag already set (1), and notify's count is
	 * exactly the sleepers */
	pthread_t t[3];
	for (int i = 0; i < 3; i++) {
		jobs[i] = (job){ .name = "wait_flag" };
		CHECK(pthread_create(&t[i], NULL, worker, &jobs[i]) == 0);
	}
	while ((uint32_t)get(24) < 3)
		usleep(1000);
	usleep(50000);
	rt_value r;
	CHECK(call1("set_flag_notify", 100, &r) == 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	uint32_t woken = 0, ne = 0;
	for (int i = 0; i < 3; i++) {
		CHECK(jobs[i].trap == 0 && jobs[i].res.i32 <= 1);
		woken += jobs[i].res.i32 == 0;
		ne += jobs[i].res.i32 == 1;
	}
	CHECK(r.i32 == woken && woken + ne == 3);

	/* notify with count 1 wakes one wait64 sleeper at a time */
	for (int i = 0; i < 2; i++) {
		jobs[i] = (job){ .name = "wait64_zero" };
		CHECK(pthread_create(&t[i], NULL, worker, &jobs[i]) == 0);
	}
	uint32_t total = 0;
	for (int spins = 0; total < 2 && spins < 20000; spins++) {
		CHECK(call1("notify40", 1, &r) == 0);
		CHECK(r.i32 <= 1);
		total += r.i32;
		if (!r.i32)
			usleep(500);
	}
	CHECK(total == 2);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		CHECK(jobs[i].trap == 0 && jobs[i].res.i32 == 0);
	}
	CHECK(call1("notify40", 5, &r) == 0 && r.i32 == 0);

	/* a timed wait nobody notifies: "timed-out" after at least 1 ms */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(call1("wait_1ms", 0, &r) == 0 && r.i32 == 2);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) >= 1000000L);

	/* unaligned atomic access traps */
	CHECK(call1("unaligned", 0, &r) == RT_TRAP_UNALIGNED);

	rt_instance_free(inst);
	load_module_free(&cm);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "test_rt_threads: could not remove %s\n", dir);
	if (failures)
		fprintf(stderr, "test_rt_threads: %d checks failed\n", failures);
	return failures != 0;
}
