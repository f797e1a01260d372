/* load.c - one module from bytes to loaded code: the cache decides
 * whether it is compiled; this file runs the stages around it and keeps
 * the time of each. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
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
static int open_dl(int fd, void **dlp, const rt_code **codep, char *why, size_t whylen)
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
	*dlp = dl;
	*codep = code;
	return 0;
}

static int open_object(int fd, load_module *out, char *why, size_t whylen)
{
	if (open_dl(fd, &out->dl, &out->code, why, whylen))
		return -1;
	out->fd1 = fd + 1;
	return 0;
}

/* Compiles xo into c's entry (freeing xo) and loads the object: 0, or -1
 * with err and out->failure set. */
static int store_and_open(cache *c, xlate_output *xo, const char *filename, double *mark,
                          load_module *out, char *err, size_t errlen)
{
	int fd;
	char why[512];
	int rc = cache_store(c, xo, &fd, err, errlen);
	xlate_output_free(xo);
	if (!rc)
		cache_units(c, &out->units_reused, &out->units);
	out->t.compile += lap(mark);
	if (rc) {
		out->failure = rc == -2 ? LOAD_FAIL_COMPILE : LOAD_FAIL_SYSTEM;
		return -1;
	}
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

/* ---- tiered start (load.h) ------------------------------------------------ */

static struct {
	atomic_int child;         /* pid of the tier-1 compile, or 0 */
	int rfd;                  /* its pipe: its error line; EOF when it ends */
	const uint8_t *bytes;
	size_t size;
	const char *filename;
	cache_options copt;       /* the tier-1 key's */
	const rt_code *t0;
	void **up;                /* the tier-0 object's mpiwasm_up */
	bool verbose;
	double start;
	_Atomic double active;    /* seconds after start when tier 1 ran */
	atomic_int stopping;
} tier;

double load_tier1_active(void)
{
	return atomic_load(&tier.active);
}

void load_tier_stop(void)
{
	atomic_store(&tier.stopping, 1);
	pid_t p = atomic_exchange(&tier.child, 0);
	if (p <= 0)
		return;
	kill(p, SIGTERM);
	while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
		;
}

/* The child: compiles and installs tier 1 under the key's lock, which it
 * shares with the parent (flock: one open file), then releases it; stderr
 * goes to /dev/null, the error line to the pipe, for the parent's one
 * warning.  Below the parent's priority, so the module keeps its core. */
static noreturn void tier_child(cache *c1, const xlate_output *xo, pid_t parent, int wfd)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 1);
		dup2(nul, 2);
	}
	/* MPIWASM_TIER1_NICE: another niceness (0-19); failing, a compile at
	 * the same priority is still a compile. */
	const char *ns = getenv("MPIWASM_TIER1_NICE");
	int inc = ns && *ns >= '0' && *ns <= '9' ? atoi(ns) : LOAD_TIER1_NICE;
	errno = 0;
	int nv = nice(inc > 19 ? 19 : inc);
	(void)nv;
	cache_miss(c1);   /* the MPIWASM_CACHE_LOG record; its line goes nowhere */
	char e[1024] = "";
	int fd, rc = cache_store(c1, xo, &fd, e, sizeof e);
	if (!rc)
		close(fd);
	cache_end(c1);
	if (rc && write(wfd, e, strlen(e)) < 0)
		_exit(2);
	_exit(rc ? 1 : 0);
}

static int tier_fork(cache *c1, const xlate_output *xo)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		tier_child(c1, xo, parent, p[1]);
	}
	close(p[1]);
	tier.rfd = p[0];
	atomic_store(&tier.child, pid);
	return 0;
}

/* Loads tier 1 from the cache (waiting for the lock while another process
 * builds it) and switches to it; a miss means that nobody built it (the
 * process that did ended first): tier 0 goes on. */
static void tier_switch(bool here)
{
	cache *c = NULL;
	char err[1024] = "", why[512], e2[256];
	const char *rejected = NULL;
	if (cache_begin(&c, tier.bytes, tier.size, tier.filename, &tier.copt, err, sizeof err)) {
		fprintf(stderr, "mpiwasm: warning: tier 1 not loaded (%s); going on at tier 0\n", err);
		return;
	}
	for (;;) {
		int fd;
		double wait;
		int found = cache_lookup(c, rejected, &fd, &wait, err, sizeof err);
		if (found <= 0 || atomic_load(&tier.stopping))
			break;
		void *dl;
		const rt_code *code;
		if (open_dl(fd, &dl, &code, why, sizeof why)) {
			rejected = why;
			continue;
		}
		/* dl and fd stay: tier 1 runs until the process ends */
		int n = rt_tier_up(tier.t0, tier.up, code, e2, sizeof e2);
		if (n < 0) {
			fprintf(stderr, "mpiwasm: warning: tier 1 not used (%s); going on at tier 0\n", e2);
			break;
		}
		double at = now() - tier.start;
		atomic_store(&tier.active, at);
		if (tier.verbose)
			fprintf(stderr, "mpiwasm: tier 1 active after %.3f s (%d functions; compiled "
			        "%s)\n", at, n, here ? "by this process" : "by another process");
		break;
	}
	cache_end(c);
}

static void *tier_watch(void *arg)
{
	bool here = arg != NULL;
	if (here) {
		char msg[1024];
		size_t n = 0;
		for (;;) {
			char buf[256];
			ssize_t r = read(tier.rfd, buf, sizeof buf);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			for (ssize_t i = 0; i < r && n + 1 < sizeof msg; i++)
				msg[n++] = buf[i] == '\n' ? ' ' : buf[i];
		}
		msg[n] = 0;
		close(tier.rfd);
		if (atomic_load(&tier.stopping))
			return NULL;
		if (n) {
			fprintf(stderr, "mpiwasm: warning: tier 1 not compiled (%s); going on at tier 0\n",
			        msg);
			return NULL;
		}
	}
	tier_switch(here);
	return NULL;
}

/* Tier 0 of a tiered start: its entry from the cache, else translated with
 * redirectable entries and compiled at -O0; then the tier-1 compile (xo1,
 * when this process holds the tier-1 key's lock in c, i.e. !busy) and the
 * thread that switches. */
static int load_tier0(cache *c, bool busy, const xlate_output *xo1, const uint8_t *bytes,
                      size_t size, const char *filename, const load_options *opt,
                      double start, double *mark, load_module *out, char *err, size_t errlen)
{
	cache_options o0 = opt->cache;
	o0.tier0 = true;
	o0.tier0_same_cc = out->mod.uses_eh;
	cache *c0 = NULL;
	char why[512];
	const char *rejected = NULL;
	int rc = cache_begin(&c0, bytes, size, filename, &o0, err, errlen);
	out->t.load += lap(mark);
	if (rc)
		return -1;
	snprintf(out->tier0_cc, sizeof out->tier0_cc, "%s", cache_compiler(c0));
	for (;;) {
		int fd;
		double wait;
		int found = cache_lookup(c0, rejected, &fd, &wait, err, errlen);
		out->t.wait += wait;
		out->t.verify += lap(mark) - wait;
		if (found < 0)
			goto fail;
		if (!found)
			break;
		rc = open_object(fd, out, why, sizeof why);
		out->t.load += lap(mark);
		if (!rc) {
			out->tier0_cached = true;
			goto loaded;
		}
		rejected = why;
	}
	cache_miss(c0);
	{
		wasm_error werr = { .func = UINT32_MAX };
		xlate_output x0 = { 0 };
		/* No fast loop copies (at -O0 they gain little and double the
		 * loops' C); units of at most 1 MB, four per core, so that the
		 * cores finish together. */
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		xlate_options xopt = { .tier0 = true, .no_loop_versioning = true,
		                       .unit_target_bytes = 1024 * 1024,
		                       .max_units = 4 * (unsigned)(ncpu > 0 ? ncpu : 1) };
		rc = xlate_module(&out->mod, &xopt, &x0, &werr);
		out->t.translate += lap(mark);
		if (rc) {
			wasm_error_format(&out->mod, filename, &werr, err, errlen);
			out->failure = werr.code == WASM_ERR_NOMEM ? LOAD_FAIL_SYSTEM : LOAD_FAIL_COMPILE;
			goto fail;
		}
		if (store_and_open(c0, &x0, filename, mark, out, err, errlen))
			goto fail;
	}
loaded:
	cache_end(c0);
	c0 = NULL;
	void ***upp = dlsym(out->dl, "mpiwasm_up");
	if (!upp || !*upp) {
		snprintf(err, errlen, "%s: cache: the tier-0 object has no mpiwasm_up", filename);
		out->failure = LOAD_FAIL_COMPILE;
		return -1;
	}
	out->tier0 = true;
	if (opt->tier == LOAD_TIER_ZERO)
		return 0;
	tier.bytes = bytes;
	tier.size = size;
	tier.filename = filename;
	tier.copt = opt->cache;
	tier.copt.quiet = true;
	tier.t0 = out->code;
	tier.up = *upp;
	tier.verbose = opt->tier_verbose;
	tier.start = start;
	if (!busy) {
		if (tier_fork(c, xo1)) {
			fprintf(stderr, "mpiwasm: warning: cannot start the tier-1 compile (%s); "
			        "going on at tier 0\n", strerror(errno));
			return 0;
		}
		out->tier1_here = true;
	}
	pthread_t th;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &a, tier_watch, busy ? NULL : (void *)1))
		fprintf(stderr, "mpiwasm: warning: cannot start the tier-1 thread; going on at "
		        "tier 0\n");
	pthread_attr_destroy(&a);
	return 0;
fail:
	cache_end(c0);
	return -1;
}

/* A miss: the module decoded with its bodies, validated, translated; then
 * either compiled and stored by the cache and loaded (as it always was),
 * or a tiered start (load.h).  busy: another process holds the key's lock
 * (cache_lookup_nowait), building it; a module too small to tier waits
 * for it as before. */
static int load_miss(cache *c, bool busy, const uint8_t *bytes, size_t size,
                     const char *filename, const load_options *opt, double start,
                     double *mark, load_module *out, char *err, size_t errlen)
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

	xlate_output xo = { 0 };
	if (opt->tier == LOAD_TIER_ZERO)
		return load_tier0(c, true, &xo, bytes, size, filename, opt, start, mark, out,
		                  err, errlen);
	bool may_tier = opt->tier != LOAD_TIER_ONE && (busy || !cache_is_private(c));
	werr = (wasm_error){ .func = UINT32_MAX };
	xlate_options xopt = { .stable_units = true,
	                       .no_loop_versioning = opt->cache.no_loop_versioning,
	                       .terminal_traps = opt->cache.terminal_traps };
	rc = xlate_module(&out->mod, &xopt, &xo, &werr);
	out->t.translate += lap(mark);
	if (rc) {
		wasm_error_format(&out->mod, filename, &werr, err, errlen);
		out->failure = werr.code == WASM_ERR_NOMEM ? LOAD_FAIL_SYSTEM : LOAD_FAIL_COMPILE;
		return -1;
	}
	size_t csize = 0;
	for (size_t i = 0; i < xo.nunits; i++)
		csize += xo.units[i].len;
	if (may_tier && (opt->tier == LOAD_TIER_UP || csize > LOAD_TIER_MIN_C)) {
		rc = load_tier0(c, busy, &xo, bytes, size, filename, opt, start, mark, out,
		                err, errlen);
		xlate_output_free(&xo);
		return rc;
	}
	char why[512];
	const char *rejected = NULL;
	if (!busy)
		cache_miss(c);
	while (busy) {
		/* Too small to tier: wait for the other process's build. */
		int fd;
		double wait;
		int found = cache_lookup(c, rejected, &fd, &wait, err, errlen);
		out->t.wait += wait;
		out->t.verify += lap(mark) - wait;
		if (found < 0) {
			xlate_output_free(&xo);
			return -1;
		}
		if (!found) {
			cache_miss(c);
			break;
		}
		rc = open_object(fd, out, why, sizeof why);
		out->t.load += lap(mark);
		if (!rc) {
			out->was_cached = true;
			xlate_output_free(&xo);
			return 0;
		}
		rejected = why;
	}
	return store_and_open(c, &xo, filename, mark, out, err, errlen);
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
	/* With tiering, a lock another process holds is not waited for here:
	 * a large module then starts on tier 0 (load_miss decides). */
	bool busy = opt->tier == LOAD_TIER_ZERO;
	while (!busy) {
		int fd;
		double wait = 0;
		int found = opt->tier != LOAD_TIER_ONE && !rejected ?
		            cache_lookup_nowait(c, &fd, err, errlen) :
		            cache_lookup(c, rejected, &fd, &wait, err, errlen);
		out->t.wait += wait;
		out->t.verify += lap(&mark) - wait;
		if (found < 0)
			goto out;
		if (found == 2) {
			busy = true;
			break;
		}
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
	rc = load_miss(c, busy, bytes, size, filename, opt, start, &mark, out, err, errlen);
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
