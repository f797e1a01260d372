/* load.h - the production path from .wasm bytes to loaded native code.
 *
 * load_wasm():
 *   cache key (src/cache) ->
 *     hit:  decode without bodies, check imports, dlopen the cached object
 *     miss: decode, validate, check imports, translate (src/xlate),
 *           compile and store (src/cache), dlopen
 * Ranks that start together compile a module once per cache: the first
 * holds the key's lock from the miss to the dlopen, the others wait for
 * it and then load its entry. */
#ifndef MPIWASM_LOAD_H
#define MPIWASM_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../wasm/wasm.h"
#include "../rt/rt.h"
#include "../cache/cache.h"

/* Tiered start.  On a miss, a module whose generated C is larger than
 * LOAD_TIER_MIN_C is compiled
 * twice: tier 0, the same C with redirectable entries (xlate_options.tier0)
 * at -O0, which the module starts on, and tier 1, the ordinary entry
 * (-O2), in a child process at a lower priority into the cache; a thread
 * of this process loads tier 1 when the cache has it and switches every
 * function to it (rt_tier_up).  Of a node's processes one compiles each
 * tier (the key's lock); every one switches.  A later run finds tier 1 in
 * the cache and loads it as any entry.  The child is ended with the
 * process (load_tier_stop; it also gets SIGTERM if this process dies):
 * units it finished stay in the cache for the next run. */
enum load_tier {
	LOAD_TIER_AUTO = 0,       /* tiered start for large modules only */
	LOAD_TIER_UP,             /* tiered start whatever the size */
	LOAD_TIER_ZERO,           /* tier 0 only, never tier 1 (tests, measurements) */
	LOAD_TIER_ONE,            /* no tiering: compile at -O2 and wait (as before) */
};
/* About 3 CPU s of -O2 per MB of C (FINDINGS.md section 9): below 4 MB
 * the ordinary compile starts the module within about 6 s on 2 idle
 * cores, and tier 0 (5-9 times slower code, and a tier-1 compile that a
 * short run kills and the next starts again) would cost the job more
 * than it saves; at 512 KB, an ordinary MPI test program (tests/mpi's
 * coll.c) ran its whole job on tier 0 and compiled tier 1 once a run. */
#define LOAD_TIER_MIN_C (4u * 1024 * 1024)
/* The tier-1 compile's niceness (MPIWASM_TIER1_NICE overrides it): none.
 * In a job every core of a node usually runs a rank, and ranks waiting in
 * MPI poll: a niced compile then gets almost no CPU (at load 13-18,
 * niceness 10 took 31 s to switch a module that switched in 4.4 s at 0),
 * and the job stays on tier 0, 5-9 times slower, for that long. */
#define LOAD_TIER1_NICE 0

typedef struct load_options {
	cache_options cache;      /* where and how the code is compiled */
	bool check_host_imports;  /* refuse imports the host registry lacks */
	int tier;                 /* enum load_tier */
	bool tier_verbose;        /* a line when tier 1 becomes active */
} load_options;

/* Seconds, adding up to all of load_wasm's time.  verify: finding and
 * checking a cached entry (owner, mode, identity recorded at store time;
 * the full checksum only if that changed); wait: for another process's
 * build of the same module (the cache lock); load: the key, the dlopen.
 * total: from load_wasm's first clock reading to its last, which the
 * stages cover lap by lap (tests/unit/test_load.c checks the sum). */
typedef struct load_timings {
	double decode, validate, translate, compile, verify, wait, load;
	double total;
} load_timings;

/* Why load_wasm failed, for the command's exit status. */
enum load_failure {
	LOAD_FAIL_NONE = 0,
	LOAD_FAIL_MODULE,         /* malformed or invalid module */
	LOAD_FAIL_IMPORTS,        /* imports the host registry lacks */
	LOAD_FAIL_COMPILE,        /* translator or C compiler failed */
	LOAD_FAIL_SYSTEM,         /* I/O, processes, dlopen, ... */
};

typedef struct load_module {
	wasm_module mod;          /* bodies decoded only on a miss */
	const rt_code *code;
	void *dl;
	int fd1;                  /* the loaded object's descriptor plus one (0:
	                             none), open while dl is: dlopen named it */
	char key[65];             /* the cache key, hex SHA-256 */
	bool was_cached;
	/* On a miss: units of generated C, and how many of them the cache had
	 * compiled before (cache_units). */
	size_t units, units_reused;
	load_timings t;
	int failure;              /* enum load_failure after load_wasm */
	/* Tiered start: the module runs on tier 0 (of compiler tier0_cc),
	 * tier1_here: this process compiles tier 1 in the background. */
	bool tier0, tier1_here, tier0_cached;
	char tier0_cc[64];
} load_module;

/* Not thread-safe: one load_wasm at a time per process (the cache installs
 * signal handlers to remove half-written files while it builds).
 * Returns 0, or -1 with one line in err naming the file and the problem
 * (malformed/invalid module, unknown imports, compiler failure, ...);
 * out->t says where the time went either way.  `bytes` must outlive the
 * load_module. */
int load_wasm(const uint8_t *bytes, size_t size, const char *filename,
              const load_options *opt, load_module *out, char *err, size_t errlen);

void load_module_free(load_module *lm);

/* Tiered start: seconds from load_wasm's start until every function ran
 * on tier 1, or 0 while it does not (yet). */
double load_tier1_active(void);

/* Ends the tier-1 compile of this process, if one runs: SIGTERM to the
 * child, which kills its compilers and removes its temp files (the units
 * it finished stay kept), and waits for it.  For every way out of the
 * process; nothing else to do when no compile runs. */
void load_tier_stop(void);

#endif
