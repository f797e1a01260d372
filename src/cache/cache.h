/* cache.h - the compile cache: the key, the store, the compiler driver.
 *
 * The loader (src/load) drives it for one module:
 *   cache_begin   the compiler, the cache dir, the key
 *   cache_lookup  a verified entry's object (the loader dlopens it), else
 *                 a miss, with the key's lock held
 *   cache_miss    says and logs that the module is compiled
 *   cache_store   the translated units compiled with the system C compiler
 *                 in parallel, linked, installed atomically; the object
 *   cache_end     releases the lock, removes the build's temp files
 * The key is SHA-256 over the module bytes, XLATE_VERSION, the generated-
 * code ABI, the C compiler's identity (`cc -v`), the flags and the CPU
 * model.  Location: $MPIWASM_CACHE_DIR, else $XDG_CACHE_HOME/mpiwasm, else
 * ~/.cache/mpiwasm, else the per-user fallback below.  See
 * docs/ARCHITECTURE.md "Compile and cache".
 *
 * Trust (ssh's model for ~/.ssh): a cache dir is used only if it is ours,
 * not a symlink, writable by nobody else, and so are its parents (a sticky
 * parent such as /tmp excepted); mpiwasm creates it and its missing
 * parents 0700, its files 0600.  Entries are opened without following
 * symlinks, beneath the opened dir, and checked on their descriptor; the
 * loader dlopen()s that descriptor through /proc/self/fd: the file checked
 * is the file loaded.
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
#include "../xlate/xlate.h"

typedef struct cache_options {
	const char *dir;          /* NULL: the default location above */
	const char *cc;           /* NULL: $MPIWASM_CC, else cc; words after
	                             the program go before every flag */
	const char *extra_cflags; /* appended to the compile flags (part of the key) */
	bool quiet;               /* no "compiling ..." or "damaged" line */
	unsigned jobs;            /* parallel compiler processes; 0 = online CPUs */
	bool no_loop_versioning;  /* xlate_options.no_loop_versioning (in the key) */
	bool terminal_traps;      /* xlate_options.terminal_traps (in the key) */
	/* Tier 0 of a tiered start (src/load): units of xlate_options.tier0,
	 * compiled at -O0 (CACHE_TIER0_FLAGS) by $MPIWASM_TIER0_CC, else
	 * clang-19 or clang if found, else the tier-1 compiler (always that one
	 * with tier0_same_cc: exception handling's setjmp buffers must come
	 * from one compiler); an entry of its own key. */
	bool tier0, tier0_same_cc;
} cache_options;

/* One module's way through the cache.  Not thread-safe: one at a time per
 * process (cache_store installs signal handlers that remove half-written
 * files). */
typedef struct cache cache;

/* Finds the C compiler, chooses the cache dir and computes the key of the
 * module `bytes` (which must outlive the session); `filename` names it in
 * messages and in the entry's record.  0 with *c set, or -1 with one line
 * in err (no compiler, or its `-v` fails). */
int cache_begin(cache **c, const uint8_t *bytes, size_t size, const char *filename,
                const cache_options *opt, char *err, size_t errlen);

/* The key, 64 hex digits. */
const char *cache_key(const cache *c);

/* 1: *fd is the entry's object, open and checked (the caller owns it);
 * the caller loads it, and if that fails calls cache_lookup again with the
 * reason in `rejected` (NULL otherwise).  0: a miss: the caller builds,
 * holding the key's lock (waited for in *wait seconds) unless no cache dir
 * could be written; a damaged entry is removed first.  -1: one line in
 * err. */
int cache_lookup(cache *c, const char *rejected, int *fd, double *wait,
                 char *err, size_t errlen);

/* As cache_lookup, but a lock that another process holds (it is building
 * the entry) is not waited for: 2, and a later cache_lookup waits. */
int cache_lookup_nowait(cache *c, int *fd, char *err, size_t errlen);

/* After a miss: no cache dir could be written, so the build goes to a
 * private dir that cache_end removes (no other process can load it). */
bool cache_is_private(const cache *c);

/* The C compiler's file name ("gcc", "clang-19"), for messages. */
const char *cache_compiler(const cache *c);

/* On a miss, before translating: the "compiling ..." line (unless quiet)
 * and the MPIWASM_CACHE_LOG record. */
void cache_miss(const cache *c);

/* On a miss: compiles and links the translated units, installs the object
 * in the cache dir (or keeps a private copy when it cannot) and opens it
 * in *fd, checked.  The build's temp files stay until cache_end, so that
 * the caller loads the object first.  0, or with one line in err -1
 * (I/O, processes, memory) or -2 (the C compiler or linker failed, or the
 * built object cannot be opened). */
int cache_store(cache *c, const xlate_output *xo, int *fd, char *err, size_t errlen);

/* After cache_store: how many of the translated units were linked from
 * objects the cache kept (compiled for this or another module; see
 * "compiled units" in cache.c), and how many there were. */
void cache_units(const cache *c, size_t *reused, size_t *total);

/* Ends the session: the build's temp files removed (unless
 * MPIWASM_KEEP_TEMP), the lock released, c freed; NULL is fine. */
void cache_end(cache *c);

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
