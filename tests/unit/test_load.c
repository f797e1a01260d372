/* test_load.c - load_wasm on small modules: miss then hit, what the
 * cache key depends on, failure kinds, the cache's list and clean. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "load/load.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { \
	fprintf(stderr, "test_load:%d: ", __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* (module (func (export "f") (result i32) i32.const 42)) */
static const uint8_t mod_a[] = {
	0, 'a', 's', 'm', 1, 0, 0, 0,
	1, 5, 1, 0x60, 0, 1, 0x7f,          /* type () -> i32 */
	3, 2, 1, 0,                         /* func 0: type 0 */
	7, 5, 1, 1, 'f', 0, 0,              /* export "f" func 0 */
	10, 6, 1, 4, 0, 0x41, 42, 0x0b,     /* i32.const 42 end */
};

/* The same function returning 43: other bytes, other key. */
static const uint8_t mod_b[] = {
	0, 'a', 's', 'm', 1, 0, 0, 0,
	1, 5, 1, 0x60, 0, 1, 0x7f,
	3, 2, 1, 0,
	7, 5, 1, 1, 'f', 0, 0,
	10, 6, 1, 4, 0, 0x41, 43, 0x0b,
};

/* A type section that claims more bytes than the file has. */
static const uint8_t mod_bad[] = { 0, 'a', 's', 'm', 1, 0, 0, 0, 1, 9, 1 };

/* A body that adds an i32 to nothing: well-formed, invalid. */
static const uint8_t mod_invalid[] = {
	0, 'a', 's', 'm', 1, 0, 0, 0,
	1, 5, 1, 0x60, 0, 1, 0x7f,
	3, 2, 1, 0,
	10, 7, 1, 5, 0, 0x41, 1, 0x6a, 0x0b,
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* load_wasm, checking that its stages (what --timings prints) add up to
 * the whole time of the call: exactly to the span load_wasm measured
 * itself (its laps are contiguous, so a stage measured and not added, or
 * time between two laps, shows here whatever the machine's load), and
 * that span lies within the call.  The time outside that span (entering
 * and leaving load_wasm) is not judged: a process preempted there on a
 * loaded machine spends milliseconds in it. */
static int timed_load(const uint8_t *bytes, size_t size, const char *name,
                      const load_options *opt, load_module *cm, char *err, size_t errlen)
{
	double t0 = now();
	int rc = load_wasm(bytes, size, name, opt, cm, err, errlen);
	double wall = now() - t0;
	const load_timings *t = &cm->t;
	double sum = t->decode + t->validate + t->translate + t->compile + t->verify +
	             t->wait + t->load;
	CHECK(fabs(sum - t->total) <= 1e-9 + t->total * 1e-12 && t->total > 0 &&
	      t->total <= wall + 1e-9,
	      "%s: the stages add up to %.9f s of the %.9f s load_wasm measured (call: %.6f s)",
	      name, sum, t->total, wall);
	return rc;
}

static void count_entry(void *ud, const cache_entry_info *e)
{
	(*(int *)ud)++;
	CHECK(e->complete && e->size > 0 &&
	      (!strcmp(e->source, "a.wasm") || !strcmp(e->source, "b.wasm")),
	      "odd entry %s (%s)", e->key, e->source);
}

int main(void)
{
	char dir[] = "/tmp/mpiwasm-test-cache-XXXXXX";
	char err[2048];
	load_module cm;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	load_options opt = { .cache = { .dir = dir, .quiet = true, .jobs = 1 },
	                     .check_host_imports = true };

	/* Miss, then hit with the same key. */
	int rc = timed_load(mod_a, sizeof mod_a, "a.wasm", &opt, &cm, err, sizeof err);
	CHECK(rc == 0, "first load failed: %s", err);
	char key[65];
	memcpy(key, cm.key, sizeof key);
	CHECK(rc || !cm.was_cached, "first load claims a hit");
	CHECK(rc || (cm.code && cm.dl && cm.mod.bodies_decoded), "first load incomplete");
	CHECK(rc || cm.t.compile > 0, "no compile time on a miss");
	load_module_free(&cm);

	rc = timed_load(mod_a, sizeof mod_a, "a.wasm", &opt, &cm, err, sizeof err);
	CHECK(rc == 0, "second load failed: %s", err);
	CHECK(rc || cm.was_cached, "second load was not a hit");
	CHECK(rc || !cm.mod.bodies_decoded, "a hit decoded the bodies");
	CHECK(rc || !strcmp(cm.key, key), "key changed: %s vs %s", cm.key, key);
	CHECK(rc || cm.t.compile == 0, "compile time on a hit");
	load_module_free(&cm);

	/* The flags are part of the key. */
	load_options opt2 = opt;
	opt2.cache.extra_cflags = "-DMPIWASM_TEST=1";
	rc = load_wasm(mod_a, sizeof mod_a, "a.wasm", &opt2, &cm, err, sizeof err);
	CHECK(rc == 0, "load with extra flags failed: %s", err);
	CHECK(rc || (!cm.was_cached && strcmp(cm.key, key)), "extra flags did not change the key");
	load_module_free(&cm);

	/* So are the module bytes. */
	rc = load_wasm(mod_b, sizeof mod_b, "b.wasm", &opt, &cm, err, sizeof err);
	CHECK(rc == 0, "load of b failed: %s", err);
	CHECK(rc || (!cm.was_cached && strcmp(cm.key, key)), "other bytes, same key");
	load_module_free(&cm);

	/* A record that no longer matches its object: rebuilt. */
	char so[512];
	snprintf(so, sizeof so, "%s/%s.so", dir, key);
	CHECK(truncate(so, 64) == 0, "truncate %s", so);
	rc = load_wasm(mod_a, sizeof mod_a, "a.wasm", &opt, &cm, err, sizeof err);
	CHECK(rc == 0 && !cm.was_cached, "truncated entry not rebuilt (rc %d: %s)", rc, err);
	load_module_free(&cm);

	/* Failure kinds. */
	rc = load_wasm(mod_bad, sizeof mod_bad, "bad.wasm", &opt, &cm, err, sizeof err);
	CHECK(rc == -1 && cm.failure == LOAD_FAIL_MODULE && strstr(err, "bad.wasm"),
	      "malformed: rc %d failure %d: %s", rc, cm.failure, err);
	rc = load_wasm(mod_invalid, sizeof mod_invalid, "inv.wasm", &opt, &cm, err, sizeof err);
	CHECK(rc == -1 && cm.failure == LOAD_FAIL_MODULE && strstr(err, "inv.wasm"),
	      "invalid: rc %d failure %d: %s", rc, cm.failure, err);
	load_options opt3 = opt;
	opt3.cache.cc = "mpiwasm-no-such-compiler";
	rc = load_wasm(mod_a, sizeof mod_a, "a.wasm", &opt3, &cm, err, sizeof err);
	CHECK(rc == -1 && cm.failure == LOAD_FAIL_SYSTEM &&
	      strstr(err, "mpiwasm-no-such-compiler"),
	      "missing compiler: rc %d failure %d: %s", rc, cm.failure, err);
	opt3.cache.cc = "false";
	rc = load_wasm(mod_b, sizeof mod_b, "b.wasm", &opt3, &cm, err, sizeof err);
	CHECK(rc == -1 && cm.failure == LOAD_FAIL_SYSTEM && strstr(err, "-v"),
	      "compiler whose -v fails: rc %d failure %d: %s", rc, cm.failure, err);

	/* Listing and cleaning: a, a with flags, b. */
	int n = 0;
	rc = cache_list(&opt.cache, count_entry, &n, err, sizeof err);
	CHECK(rc == 3 && n == 3, "cache_list: %d entries, %d calls (%s)", rc, n, err);
	rc = cache_clean(&opt.cache, err, sizeof err);
	CHECK(rc == 3, "cache_clean removed %d (%s)", rc, err);
	CHECK(cache_list(&opt.cache, NULL, NULL, err, sizeof err) == 0, "entries left after clean");
	CHECK(rmdir(dir) == 0, "cache dir %s not empty after clean", dir);
	return failures != 0;
}
