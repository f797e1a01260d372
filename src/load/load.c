/* load.c - one module from bytes to loaded code: the cache decides
 * whether it is compiled; this file runs the stages around it and keeps
 * the time of each. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "load.h"
#include "../xlate/xlate.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds since *mark, which moves to now: consecutive laps cover all of
 * the time between the first mark and the last. */
static double lap(double *mark)
{
	double t = now(), d = t - *mark;
	*mark = t;
	return d;
}

static int decode(const uint8_t *bytes, size_t size, const char *filename,
                  unsigned flags, load_module *out, char *err, size_t errlen)
{
	wasm_error werr = { 0 };
	werr.func = UINT32_MAX;
	if (wasm_decode(bytes, size, flags, &out->mod, &werr)) {
		wasm_error_format(&out->mod, filename, &werr, err, errlen);
		out->failure = werr.code == WASM_ERR_NOMEM ? LOAD_FAIL_SYSTEM : LOAD_FAIL_MODULE;
		return -1;
	}
	return 0;
}

static int check_imports(const char *filename, const load_options *opt,
                         load_module *out, char *err, size_t errlen)
{
	if (!opt->check_host_imports)
		return 0;
	if (rt_check_host_imports(&out->mod, filename, err, errlen) > 0) {
		out->failure = LOAD_FAIL_IMPORTS;
		return -1;
	}
	return 0;
}

/* dlopen of the object open as fd (checked by the cache), through
 * /proc/self/fd so that no other file can take its place; fd stays open
 * while the object is loaded (the loader knows it by that name) and is
 * closed on failure.  0, or -1 with the reason in why. */
static int open_object(int fd, load_module *out, char *why, size_t whylen)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *m = dlerror();
		snprintf(why, whylen, "dlopen: %s", m ? m : "failed");
		close(fd);
		return -1;
	}
	char cerr[256] = "";
	const rt_code *code = rt_code_from_dl(dl, cerr, sizeof cerr);
	if (!code) {
		snprintf(why, whylen, "%s", *cerr ? cerr : "no mpiwasm_code descriptor");
		dlclose(dl);
		close(fd);
		return -1;
	}
	out->dl = dl;
	out->code = code;
	out->fd1 = fd + 1;
	return 0;
}

/* A cached entry: decoded without bodies, its object loaded.  0; 1 when
 * the object does not load (why set, out->mod freed again: the cache
 * looks further); -1 on a module error (err set). */
static int load_hit(int fd, const uint8_t *bytes, size_t size, const char *filename,
                    const load_options *opt, double *mark, load_module *out,
                    char *why, size_t whylen, char *err, size_t errlen)
{
	int rc = decode(bytes, size, filename, WASM_DECODE_NO_BODIES, out, err, errlen);
	out->t.decode += lap(mark);
	if (rc || check_imports(filename, opt, out, err, errlen)) {
		close(fd);
		return -1;
	}
	rc = open_object(fd, out, why, whylen);
	out->t.load += lap(mark);
	if (!rc) {
		out->was_cached = true;
		return 0;
	}
	wasm_module_free(&out->mod);
	memset(&out->mod, 0, sizeof out->mod);
	return 1;
}

/* A miss: the module decoded with its bodies, validated, translated,
 * compiled and stored by the cache, loaded. */
static int load_miss(cache *c, const uint8_t *bytes, size_t size, const char *filename,
                     const load_options *opt, double *mark, load_module *out,
                     char *err, size_t errlen)
{
	wasm_error werr = { 0 };
	werr.func = UINT32_MAX;
	int rc = decode(bytes, size, filename, 0, out, err, errlen);
	out->t.decode += lap(mark);
	if (rc)
		return -1;
	rc = wasm_validate(&out->mod, &werr);
	out->t.validate += lap(mark);
	if (rc) {
		wasm_error_format(&out->mod, filename, &werr, err, errlen);
		out->failure = LOAD_FAIL_MODULE;
		return -1;
	}
	if (check_imports(filename, opt, out, err, errlen))
		return -1;

	cache_miss(c);
	werr = (wasm_error){ .func = UINT32_MAX };
	xlate_output xo = { 0 };
	xlate_options xopt = { .stable_units = true,
	                       .no_loop_versioning = opt->cache.no_loop_versioning };
	rc = xlate_module(&out->mod, &xopt, &xo, &werr);
	out->t.translate += lap(mark);
	if (rc) {
		wasm_error_format(&out->mod, filename, &werr, err, errlen);
		out->failure = werr.code == WASM_ERR_NOMEM ? LOAD_FAIL_SYSTEM : LOAD_FAIL_COMPILE;
		return -1;
	}
	int fd;
	rc = cache_store(c, &xo, &fd, err, errlen);
	xlate_output_free(&xo);
	if (!rc)
		cache_units(c, &out->units_reused, &out->units);
	out->t.compile += lap(mark);
	if (rc) {
		out->failure = rc == -2 ? LOAD_FAIL_COMPILE : LOAD_FAIL_SYSTEM;
		return -1;
	}
	char why[512];
	rc = open_object(fd, out, why, sizeof why);
	out->t.load += lap(mark);
	if (rc) {
		snprintf(err, errlen, "%s: cache: the freshly built object does not load: %s",
		         filename, why);
		out->failure = LOAD_FAIL_COMPILE;
		return -1;
	}
	return 0;
}

int load_wasm(const uint8_t *bytes, size_t size, const char *filename,
              const load_options *opt, load_module *out, char *err, size_t errlen)
{
	static const load_options defaults = { 0 };
	double mark = now(), start = mark;
	cache *c = NULL;
	int rc = -1;

	if (!opt)
		opt = &defaults;
	memset(out, 0, sizeof *out);
	if (err && errlen)
		*err = 0;
	out->failure = LOAD_FAIL_SYSTEM;

	if (cache_begin(&c, bytes, size, filename, &opt->cache, err, errlen)) {
		out->t.load += lap(&mark);
		goto out;
	}
	memcpy(out->key, cache_key(c), sizeof out->key);
	out->t.load += lap(&mark);

	char why[512];
	const char *rejected = NULL;
	for (;;) {
		int fd;
		double wait;
		int found = cache_lookup(c, rejected, &fd, &wait, err, errlen);
		out->t.wait += wait;
		out->t.verify += lap(&mark) - wait;
		if (found < 0)
			goto out;
		if (!found)
			break;
		int l = load_hit(fd, bytes, size, filename, opt, &mark, out, why, sizeof why,
		                 err, errlen);
		if (l <= 0) {
			rc = l;
			goto out;
		}
		rejected = why;
	}
	rc = load_miss(c, bytes, size, filename, opt, &mark, out, err, errlen);
out:
	/* After the dlopen: the mapping outlives a private copy removed here. */
	cache_end(c);
	out->t.load += lap(&mark);
	out->t.total = mark - start;
	if (rc) {
		if (out->dl)
			dlclose(out->dl);
		if (out->fd1)
			close(out->fd1 - 1);
		wasm_module_free(&out->mod);
		int failure = out->failure ? out->failure : LOAD_FAIL_SYSTEM;
		load_timings t = out->t;
		memset(out, 0, sizeof *out);
		out->failure = failure;
		out->t = t;   /* where the time went, even on failure */
	} else {
		out->failure = LOAD_FAIL_NONE;
	}
	return rc;
}

void load_module_free(load_module *lm)
{
	if (!lm)
		return;
	wasm_module_free(&lm->mod);
	if (lm->dl)
		dlclose(lm->dl);
	if (lm->fd1)
		close(lm->fd1 - 1);
	memset(lm, 0, sizeof *lm);
}
