/* cache.h - the production path from .wasm bytes to loaded native code.
 *
 * cache_load() = key -> (hit: decode without bodies, dlopen) |
 *   (miss: decode, validate, check imports, translate, compile units in
 *    parallel with the system C compiler, link a shared object, install it
 *    atomically under a lock, dlopen).
 * The key is SHA-256 over the module bytes, XLATE_VERSION, the generated-
 * code ABI, the C compiler's identity (`cc -v`), the flags and the CPU
 * model.  Location: $MPIWASM_CACHE_DIR, else $XDG_CACHE_HOME/mpiwasm, else
 * ~/.cache/mpiwasm, else the per-user fallback below.  See DESIGN.md "The
 * compile cache".
 *
 * Trust (ssh's model for ~/.ssh): a cache dir is used only if it is ours,
 * not a symlink, writable by nobody else, and so are its parents (a sticky
 * parent such as /tmp excepted); mpiwasm creates it and its missing
 * parents 0700, its files 0600.  Entries are opened without following
 * symlinks, beneath the opened dir, checked on their descriptor and
 * dlopen()ed through /proc/self/fd: the file checked is the file loaded.
 * A cache dir that is not safe, or cannot be written when a compile is
 * needed, is refused with one warning; the ranks of a node then meet in
 * the per-user fallback $XDG_RUNTIME_DIR/mpiwasm, else
 * ${TMPDIR:-/tmp}/mpiwasm-UID, made 0700 by the first of them and checked
 * like any cache dir by all (a squatted one is refused too, and each
 * process then compiles into a private mkdtemp dir of its own). */
#ifndef MPIWASM_CACHE_H
#define MPIWASM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../wasm/wasm.h"
#include "../rt/rt.h"

typedef struct cache_options {
	const char *dir;          /* NULL: the default location above */
	const char *cc;           /* NULL: $MPIWASM_CC, else cc; words after
	                             the program go before every flag */
	const char *extra_cflags; /* appended to the compile flags (part of the key) */
	bool quiet;               /* no "compiling ..." line on a miss */
	bool check_host_imports;  /* refuse imports the host registry lacks */
	unsigned jobs;            /* parallel compiler processes; 0 = online CPUs */
	bool no_loop_versioning;  /* xlate_options.no_loop_versioning (in the key) */
} cache_options;

typedef struct cache_timings {
	/* seconds; verify: checking a cached entry (owner, mode, identity
	 * recorded at store time; the full checksum only if that changed) */
	double decode, validate, translate, compile, verify, load;
} cache_timings;

/* Why cache_load failed, for the command's exit status. */
enum cache_failure {
	CACHE_FAIL_NONE = 0,
	CACHE_FAIL_MODULE,        /* malformed or invalid module */
	CACHE_FAIL_IMPORTS,       /* imports the host registry lacks */
	CACHE_FAIL_COMPILE,       /* translator or C compiler failed */
	CACHE_FAIL_SYSTEM,        /* I/O, processes, dlopen, ... */
};

typedef struct cache_module {
	wasm_module mod;          /* bodies decoded only on a miss */
	const rt_code *code;
	void *dl;
	int fd1;                  /* the loaded object's descriptor plus one (0:
	                             none), open while dl is: dlopen named it */
	char key[65];             /* hex SHA-256 */
	bool was_cached;
	cache_timings t;
	int failure;              /* enum cache_failure after cache_load */
} cache_module;

/* Not thread-safe: one cache_load at a time per process (it installs
 * signal handlers to remove half-written files while it builds).
 * Returns 0, or -1 with one line in err naming the file and the problem
 * (malformed/invalid module, unknown imports, compiler failure, ...).
 * `bytes` must outlive the cache_module. */
int cache_load(const uint8_t *bytes, size_t size, const char *filename,
               const cache_options *opt, cache_module *out,
               char *err, size_t errlen);

void cache_module_free(cache_module *cm);

/* The cache directory in use (for `mpiwasm cache`). */
const char *cache_dir(const cache_options *opt);

/* One entry of the cache directory, for `mpiwasm cache show`. */
typedef struct cache_entry_info {
	char key[65];
	const char *source;       /* module file name it was built from, or "" */
	uint64_t size;            /* bytes of the shared object */
	int64_t mtime;            /* when it was installed (seconds since epoch) */
	bool complete;            /* false: a leftover without its record */
} cache_entry_info;

/* Calls fn for every entry in the cache dir; returns the number of
 * entries (0 if the dir does not exist), or -1 with one line in err. */
int cache_list(const cache_options *opt,
               void (*fn)(void *ud, const cache_entry_info *e), void *ud,
               char *err, size_t errlen);

/* Removes every file mpiwasm put in the cache dir (nothing else), the
 * collective rules of `mpiwasm tune` in its coll/ directory included;
 * returns the number of compiled entries removed, or -1 with one line in
 * err. */
int cache_clean(const cache_options *opt, char *err, size_t errlen);

/* SHA-256 (FIPS 180-4), used for the key and the entries' checksums. */
typedef struct cache_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t nbuf;
} cache_sha256;

void cache_sha256_init(cache_sha256 *s);
void cache_sha256_update(cache_sha256 *s, const void *data, size_t n);
void cache_sha256_final(cache_sha256 *s, uint8_t out[32]);
void cache_sha256_hex(const uint8_t digest[32], char hex[65]);

#endif
