/* rt.h - the runtime: instances, memories, tables, globals, traps.
 *
 * Two audiences:
 *  - the embedder (src/cli, src/cache, tests/spec): instantiate a compiled
 *    module, link its imports, call its exports, report traps;
 *  - generated code (src/xlate output): the structures it reads and the
 *    rt_* functions it calls.  That part is marked "generated-code ABI";
 *    any change to it bumps XLATE_VERSION (it is part of the cache key).
 *
 * Host functions (WASI, MPI) see only host.h. */
#ifndef MPIWASM_RT_H
#define MPIWASM_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include "host.h"
#include "../wasm/wasm.h"

/* ---- values and types -------------------------------------------------- */

union rt_value {
	uint32_t i32;
	uint64_t i64;
	float f32;
	double f64;
	void *ref;         /* funcref: const rt_func *; externref: opaque; NULL = null */
	uint8_t v128[16];
};

/* Function types are interned: two rt_type pointers are equal exactly when
 * the types are equal, across all instances in the process (so are their
 * keys, which call_indirect compares). */
typedef struct rt_type {
	const char *sig;   /* "ii:i": i I f F V r e, params ':' results */
	uint32_t nparams, nresults;
	const uint8_t *params, *results;   /* enum wasm_valtype */
	uint64_t key;      /* never 0; equal exactly when the types are equal:
	                      rt_type_code(type) if not 0, else the address
	                      of this rt_type | 1 << 63 */
} rt_type;

const rt_type *rt_type_intern(const char *sig);
const rt_type *rt_type_of(const wasm_functype *ft);

/* A function type as a number known before instantiation, so generated
 * code can check a call_indirect against a constant: a 1 bit, then 3 bits
 * per parameter (1..7), 3 zero bits, 3 bits per result (at most 61 bits,
 * so bit 63 is clear).  0 when the type has more than 19 values. */
uint64_t rt_type_code(const wasm_functype *ft);

/* ---- traps --------------------------------------------------------------- */

enum rt_trapkind {
	RT_OK = 0,
	RT_TRAP_UNREACHABLE,
	RT_TRAP_MEM_OOB,        /* out of bounds memory access */
	RT_TRAP_TABLE_OOB,      /* undefined element / out of bounds table access */
	RT_TRAP_INDIRECT_NULL,  /* uninitialized element */
	RT_TRAP_INDIRECT_TYPE,  /* indirect call type mismatch */
	RT_TRAP_INT_OVERFLOW,
	RT_TRAP_DIV_ZERO,
	RT_TRAP_INVALID_CONV,   /* invalid conversion to integer */
	RT_TRAP_STACK,          /* call stack exhausted */
	RT_TRAP_UNALIGNED,      /* unaligned atomic */
	RT_TRAP_HOST,           /* raised by a host function, with a message */
	RT_EXIT,                /* proc_exit: not an error, status in exit_status */
	RT_TRAP_EXCEPTION,      /* a wasm exception no handler caught (message) */
};

const char *rt_trap_name(int kind);   /* "integer divide by zero", ... */

typedef struct rt_trapinfo {
	int kind;              /* enum rt_trapkind */
	int exit_status;       /* RT_EXIT */
	uint32_t func;         /* function index where it happened, or UINT32_MAX */
	char msg[256];         /* RT_TRAP_HOST/_EXCEPTION message, else empty */
} rt_trapinfo;

/* ---- objects ------------------------------------------------------------- */

typedef struct rt_instance rt_instance;

/* A function value: what funcref points to and what tables hold. */
struct rt_func {
	const rt_type *type;
	void *fn;              /* R fn(void *ctx, P...) */
	void *ctx;             /* instance the function runs in */
	/* Calls fn with args[] and writes results[], for a generic caller. */
	void (*invoke)(const struct rt_func *f, const rt_value *args, rt_value *results);
	uint32_t index;        /* function index in its instance */
};

typedef struct rt_memory {
	uint8_t *base;         /* never moves (8 GiB reservation) */
	uint64_t pages;        /* current size in 64 KiB pages */
	uint64_t max_pages;    /* limit from the type, or 65536 */
	bool shared;
	bool has_max;          /* the type had a maximum (import matching) */
	uint32_t slot;         /* runtime: index in the fault handler's registry */
} rt_memory;

/* A table element.  In a funcref table the function value is kept
 * unpacked next to the reference, so call_indirect finds its target with
 * one load and checks null and type with one compare: the type's key, fn
 * and ctx of the rt_func `ref` points to, all 0 for a null reference (a
 * key is never 0).  Externref tables use only `ref`.
 * Write elements with rt_table_set (or the bulk functions) so the copies
 * stay consistent. */
typedef struct rt_tabent {
	uint64_t key;          /* rt_type.key of the function's type; 0 if null */
	void *fn;
	void *ctx;
	void *ref;             /* the reference: const rt_func * or externref */
} rt_tabent;

typedef struct rt_table {
	rt_tabent *elems;      /* [size] */
	uint32_t size, max;    /* max: from the type, else RT_TABLE_LIMIT */
	uint8_t type;          /* WASM_FUNCREF or WASM_EXTERNREF */
	bool has_max;          /* the type had a maximum (import matching) */
} rt_table;

typedef struct rt_global {
	rt_value v;
	uint8_t type;
	bool mut;
} rt_global;

rt_memory *rt_memory_new(const wasm_limits *lim, char *err, size_t errlen);
rt_table *rt_table_new(uint8_t elemtype, const wasm_limits *lim);
rt_global *rt_global_new(uint8_t type, bool mut, rt_value v);

/* Element i (< t->size) of a table: the reference value.  rt_table_set
 * (with the generated-code ABI below) writes one. */
void *rt_table_get(const rt_table *t, uint32_t i);

/* ---- linking and instantiation --------------------------------------- */

/* What an import resolves to. */
typedef struct rt_extern {
	uint8_t kind;          /* enum wasm_externkind */
	union {
		const rt_func *func;          /* a function of another instance */
		const rt_hostfn *host;        /* or a host function (kind FUNC) */
		rt_table *table;
		rt_memory *mem;
		rt_global *global;
	} u;
	bool is_host;          /* kind FUNC: u.host is set, not u.func */
} rt_extern;

/* Resolves one import; returns 0 or -1 with a message in err ("unknown
 * import"); type compatibility is checked by rt_instantiate. */
typedef int (*rt_resolver)(void *ud, const wasm_import *imp, rt_extern *out,
                           char *err, size_t errlen);

/* The default resolver: host functions from the registry (host.h). */
int rt_resolve_host(void *ud, const wasm_import *imp, rt_extern *out,
                    char *err, size_t errlen);

/* Checks every import of m against the registry (name and signature) and
 * writes one line per problem into err; returns the number of problems.
 * Called before anything is compiled. */
int rt_check_host_imports(const wasm_module *m, const char *file,
                          char *err, size_t errlen);

typedef struct rt_code rt_code;   /* generated-code descriptor (below) */

/* Finds and checks `mpiwasm_code` in a dlopen()ed object; NULL + err. */
const rt_code *rt_code_from_dl(void *dl, char *err, size_t errlen);

/* Links imports, allocates memory/tables/globals, initializes segments
 * and runs the start function.  Returns 0; or -1 for a link or
 * instantiation error (message in err); or a trap kind (>0) if the start
 * function or a segment initialization trapped (details in *trap).  On
 * success *out is a new instance.  `m` and `code` must outlive it. */
int rt_instantiate(const wasm_module *m, const rt_code *code,
                   rt_resolver resolve, void *ud, rt_instance **out,
                   rt_trapinfo *trap, char *err, size_t errlen);

/* An instance for another thread of the same program (wasi-threads):
 * the module and code of `parent`, imports linked by the same resolver,
 * its host data slots copied, and every memory the module defines being
 * parent's (each must be shared, else -1 with a message).  Globals and
 * tables are the new instance's own, so a funcref in its table runs with
 * its own __stack_pointer; active data segments are not applied again
 * (wasm-ld makes a shared memory's segments passive and initializes
 * them once, in the start function, which runs again here).  Returns as
 * rt_instantiate. */
int rt_instantiate_thread(rt_instance *parent, rt_instance **out,
                          rt_trapinfo *trap, char *err, size_t errlen);

/* Releases what rt_call_ex mapped for the calling thread (its module
 * stack and alternate signal stack); call it on a thread that will run
 * no more module code, just before it ends. */
void rt_thread_release(void);

/* Export by name: 0 and *out filled, or -1. */
int rt_get_export(rt_instance *inst, const char *name, rt_extern *out);
/* The same for a name of len bytes that may contain NUL. */
int rt_get_export_n(rt_instance *inst, const char *name, size_t len,
                    rt_extern *out);

/* Calls f(args) catching traps: returns 0 or the trap kind, with *trap
 * filled (trap may be NULL).  Runs on the calling thread's stack with a
 * guard page and alternate signal stack installed by rt_thread_init(). */
int rt_call_ex(rt_instance *inst, const rt_func *f, const rt_value *args,
               rt_value *results, rt_trapinfo *trap);

/* The module an instance was made from. */
const wasm_module *rt_instance_module(const rt_instance *inst);

/* Per-instance slot for a host subsystem's state (WASI, MPI). */
void **rt_instance_hostdata(rt_instance *inst, int slot);
enum { RT_HOST_WASI, RT_HOST_MPI, RT_HOST_NSLOTS };

void rt_instance_free(rt_instance *inst);

/* Installs the trap handlers (SIGSEGV/SIGBUS/SIGFPE/SIGILL, alternate
 * stack) for this process/thread; again after a library (MPI) installs
 * its own, forwarding faults outside linear memory to the previous
 * handler.  Idempotent. */
int rt_signals_install(void);

/* Formats "trap: integer divide by zero in main (function 12)" etc. */
void rt_trap_format(const rt_instance *inst, const rt_trapinfo *t,
                    char *buf, size_t len);

/* Frees a memory, table or global made by the functions above (an
 * instance frees the ones it created itself in rt_instance_free). */
void rt_memory_free(rt_memory *m);
void rt_table_free(rt_table *t);
void rt_global_free(rt_global *g);

/* Tiered start (src/load): the module runs on the tier-0 object t0, whose
 * exported `mpiwasm_up` is up (a slot per defined function, see
 * xlate_options.tier0); t1 is the same module compiled at tier 1, loaded.
 * Stores every tier-1 function's address in its slot (atomically: a call
 * already running finishes in tier 0, the next call of it runs tier 1) and
 * lets trap messages name functions of t1 too.  Returns the number of
 * functions switched, or -1 (t1 is of another module) with err set. */
int rt_tier_up(const rt_code *t0, void **up, const rt_code *t1, char *err, size_t errlen);

/* Function value of function index idx of inst (imports included), or
 * NULL past the end. */
const rt_func *rt_instance_func(rt_instance *inst, uint32_t idx);

/* ---- generated-code ABI ------------------------------------------------- */
/* What code produced by src/xlate reads and calls (tests/unit/test_abi_layout
 * compares this layout with the prelude's, field by field).  The translator emits a
 * prelude into every unit that mirrors, field by field, the structures
 * below (rt_value, rt_func, rt_memory, rt_table, rt_global, the head of
 * rt_instance, rt_code); a change to any of them bumps RT_CODE_ABI and
 * XLATE_VERSION.
 *
 * Generated functions.  Every function of the module (defined index i) is
 * a C function
 *     R f(void *inst, P0, P1, ...)
 * with i32 -> uint32_t, i64 -> uint64_t, f32 -> float, f64 -> double,
 * funcref/externref -> void *.  R is void, the single result type, or for
 * several results a struct of them in order (members r0, r1, ...), returned
 * by value; host functions never have more than one result.  Imported
 * functions are called through inst->funcs[i]: fn(ctx, P...).
 *
 * Linear memory.  A load or store of memory k is
 *     memcpy(&v, inst->mems[k]->base + (uint64_t)addr + offset, size)
 * with no bounds check: every memory reserves RT_MEM_RESERVE bytes of
 * address space, PROT_NONE past the current size, and the fault handler
 * turns an access there into RT_TRAP_MEM_OOB.  `base` never changes, so a
 * function loads it once.
 *
 * Tables.  call_indirect through table k with expected type y and index i
 * traps RT_TRAP_TABLE_OOB if i >= size, then compares elems[i].key with
 * the key of type y: rt_type_code(y), a constant, when that is not 0, else
 * (uintptr_t)inst->types[y] | 1 << 63.  That one compare covers null (key
 * 0) and type mismatch; only on a mismatch does it look again to tell
 * RT_TRAP_INDIRECT_NULL from _TYPE.  Then it calls
 * elems[i].fn(elems[i].ctx, ...).  table.set goes through rt_table_set.
 * A table whose type has max == min can never grow (an import of it must
 * match exactly), so its size is that constant and its `elems` never
 * moves: a function may load it once.
 *
 * Traps.  Generated code calls rt_trap(kind, function index); it never
 * returns (it longjmps to the rt_call_ex/rt_call that entered the module).
 */

#define RT_CODE_ABI 4u

/* 4 GiB of index space + 4 GiB of static offset + slack for the access
 * width. */
#define RT_MEM_RESERVE ((uint64_t)8 << 30 | (uint64_t)1 << 16)
#define RT_PAGE_SIZE 65536u
#define RT_MAX_PAGES 65536u
/* Implementation limit on table size when the type gives no maximum. */
#define RT_TABLE_LIMIT 10000000u

/* The runtime functions generated code calls are exported from the
 * executable (it links with -rdynamic) even though the engine is built
 * with -fvisibility=hidden. */
#define RT_ABI __attribute__((visibility("default")))

typedef void (*rt_invoke_fn)(const struct rt_func *f, const rt_value *args,
                             rt_value *results);

/* The descriptor `mpiwasm_code` each compiled module defines. */
struct rt_code {
	uint32_t abi;              /* RT_CODE_ABI */
	uint32_t ntypes;           /* = module's ntypes */
	uint32_t nfuncs;           /* = module's nfuncs (imports included) */
	uint32_t nfunc_imports;
	const char *version;       /* XLATE_VERSION that produced it */
	const rt_invoke_fn *invokes;   /* [ntypes]: the invoke of each type */
	void *const *funcs;        /* [nfuncs - nfunc_imports]: defined functions */
};

typedef struct rt_segdata {     /* a data segment, for memory.init */
	const uint8_t *bytes;
	uint32_t size;             /* 0 once dropped */
} rt_segdata;

typedef struct rt_segelem {     /* an element segment, evaluated */
	void **refs;
	uint32_t size;             /* 0 once dropped */
} rt_segelem;

struct rt_instance {
	/* -- read by generated code: keep in sync with the xlate prelude -- */
	rt_memory **mems;          /* [nmems] */
	rt_table **tables;         /* [ntables] */
	rt_global **globals;       /* [nglobals] */
	rt_func *funcs;            /* [nfuncs]: every function, imports first */
	const rt_type **types;     /* [ntypes]: interned type of each index */
	/* -- runtime only -- */
	const wasm_module *mod;
	const rt_code *code;
	rt_segdata *datas;         /* [ndatas] */
	rt_segelem *elems;         /* [nelems] */
	uint8_t *owned_mem, *owned_table, *owned_global;  /* which to free */
	void *hostdata[RT_HOST_NSLOTS];
	uintptr_t *fnaddr_sorted;  /* (entry point, function index) pairs, sorted */
	rt_resolver resolve;       /* how the imports were linked (threads */
	void *resolve_ud;          /* link theirs the same way) */
	bool is_thread;            /* made by rt_instantiate_thread */
};

/* Exception handling (the legacy proposal's try/catch/throw, what clang
 * emits with -fwasm-exceptions).  Each thread has one rt_eh, rt_eh_tls,
 * which generated code reads with the initial-exec TLS model (it lives in
 * the executable).  A function that holds a `try` pushes an rt_ehframe
 * (on its C stack) on `top` when it enters the try body, with
 * __builtin_setjmp (a few stores, where setjmp saves every register), and
 * pops it again whenever control leaves the body (normally, by a branch,
 * by return).  `throw` writes the exception into `exn` and
 * __builtin_longjmp()s to `top` (generated code only: mw_eh_throw in the
 * prelude, so one compiler makes both ends); the landing code pops that
 * frame and compares (inst, tag) with each catch clause, and without a
 * match throws again to the next frame.  Wasm locals a try writes are
 * volatile in the generated C, so their values survive the jump;
 * functions without a try are translated exactly as without exception
 * handling.  Every call into the module (rt_call_ex) starts with an empty
 * chain and restores the caller's afterwards, so an exception never
 * unwinds host frames: one that reaches the call's bottom becomes the
 * trap RT_TRAP_EXCEPTION ("uncaught wasm exception (tag N)") in the
 * function that threw.  Traps longjmp to the call directly, so catch
 * clauses never see them. */
#define RT_EH_MAXVALS 16u      /* values one exception carries, at most */

typedef struct rt_exn {
	const void *inst;          /* the instance that defines the tag */
	uint32_t tag;              /* tag index in that instance */
	uint32_t func;             /* function that threw (the uncaught message) */
	rt_value vals[RT_EH_MAXVALS];   /* the tag's params, in order */
} rt_exn;

typedef struct rt_ehframe {
	struct rt_ehframe *prev;
	void *jb[5];               /* a __builtin_setjmp buffer */
} rt_ehframe;

typedef struct rt_eh {
	rt_ehframe *top;           /* innermost try body; NULL: none in this call */
	rt_exn exn;                /* the exception in flight or just caught */
} rt_eh;

RT_ABI extern __thread rt_eh rt_eh_tls;
/* A throw found no handler (eh->top is NULL): traps RT_TRAP_EXCEPTION. */
RT_ABI noreturn void rt_eh_uncaught(rt_eh *eh);

/* Raises a trap; `func` is the function index for the message. */
RT_ABI noreturn void rt_trap(int kind, uint32_t func);

/* memory.grow: the old size in pages, or UINT32_MAX past the maximum or
 * when the pages cannot be made accessible. */
RT_ABI uint32_t rt_memory_grow(rt_memory *m, uint32_t delta);

/* Bulk memory and table instructions; each traps (kind and `func` as
 * rt_trap) when a range is out of bounds, before writing anything. */
RT_ABI void rt_memory_init(rt_instance *inst, uint32_t mem, uint32_t seg,
                           uint32_t dst, uint32_t src, uint32_t n, uint32_t func);
RT_ABI void rt_data_drop(rt_instance *inst, uint32_t seg);
RT_ABI void rt_table_init(rt_instance *inst, uint32_t table, uint32_t seg,
                          uint32_t dst, uint32_t src, uint32_t n, uint32_t func);
RT_ABI void rt_elem_drop(rt_instance *inst, uint32_t seg);
RT_ABI void rt_table_copy(rt_instance *inst, uint32_t dt, uint32_t st,
                          uint32_t dst, uint32_t src, uint32_t n, uint32_t func);
RT_ABI void rt_table_fill(rt_instance *inst, uint32_t table, uint32_t i,
                          void *val, uint32_t n, uint32_t func);
/* Sets element i (< t->size) to ref (in a funcref table a const rt_func *
 * or NULL); table.set calls it after its bounds check. */
RT_ABI void rt_table_set(rt_table *t, uint32_t i, void *ref);
/* table.grow: old size, or UINT32_MAX. */
RT_ABI uint32_t rt_table_grow(rt_table *t, void *init, uint32_t delta);

/* Threads proposal.  `ea` is the effective address (index + offset); each
 * traps out of bounds, then unaligned, like the atomic accesses.
 * memory.atomic.notify: wakes at most `count` waiters on ea, returns how
 * many it woke (0 on an unshared memory).  memory.atomic.wait32/64:
 * traps on an unshared memory; returns 0 "ok" (woken), 1 "not-equal"
 * (the value differed from `expect`), 2 "timed-out"; timeout in
 * nanoseconds, negative = forever. */
RT_ABI uint32_t rt_atomic_notify(rt_memory *m, uint64_t ea, uint32_t count,
                                 uint32_t func);
RT_ABI uint32_t rt_atomic_wait32(rt_memory *m, uint64_t ea, uint32_t expect,
                                 int64_t timeout, uint32_t func);
RT_ABI uint32_t rt_atomic_wait64(rt_memory *m, uint64_t ea, uint64_t expect,
                                 int64_t timeout, uint32_t func);

#endif
