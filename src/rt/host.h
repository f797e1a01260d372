/* host.h - what host functions (WASI, MPI, env) see of the runtime.
 *
 * Every import a module may have is a host function registered here with
 * its module name, field name and WebAssembly signature.  At load time each
 * import of the module is looked up; an unknown import, or one whose
 * signature differs, is an error that lists all of them before anything is
 * compiled.
 *
 * A host function is a C function whose first parameter is the calling
 * instance, followed by the WebAssembly parameters in order:
 *     i32 -> uint32_t, i64 -> uint64_t, f32 -> float, f64 -> double
 * and it returns the single result (or void).  Example:
 *     uint32_t wasi_fd_write(rt_instance *inst, uint32_t fd, uint32_t iovs,
 *                            uint32_t iovs_len, uint32_t nwritten);
 * registered as { "wasi_snapshot_preview1", "fd_write", "iiii:i", fn }.
 *
 * Pointers from the module are 32-bit offsets into linear memory: turn them
 * into host pointers only through rt_mem() or rt_mem_array(), which check
 * the whole range.  Host functions must not keep such pointers across a
 * call back into the module (memory.grow does not move memory, but the
 * module may free the object). */
#ifndef MPIWASM_HOST_H
#define MPIWASM_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

typedef struct rt_instance rt_instance;
typedef struct rt_func rt_func;
typedef union rt_value rt_value;

typedef struct rt_hostfn {
	const char *module;   /* "wasi_snapshot_preview1", "env", ... */
	const char *name;     /* "fd_write" */
	const char *sig;      /* params ':' results, letters i I f F (i32 i64 f32 f64) */
	void *fn;
} rt_hostfn;

/* Adds a table of host functions (kept by pointer, must stay alive).
 * Each subsystem registers its table once at start-up. */
void rt_host_register(const rt_hostfn *fns, size_t n);

/* The registered function for (module, name), or NULL. */
const rt_hostfn *rt_host_find(const char *module, const char *name);

/* Host pointer for module range [addr, addr+len) of memory 0, or NULL if
 * any byte of it lies outside the current memory (or there is none). */
void *rt_mem(rt_instance *inst, uint64_t addr, uint64_t len);

/* Like rt_mem for an array of n elements of size sz (overflow-safe). */
void *rt_mem_array(rt_instance *inst, uint64_t addr, uint64_t n, uint64_t sz);

/* Current size of memory 0 in bytes (0 without memory). */
uint64_t rt_mem_size(rt_instance *inst);

/* Ends the module with an exit status (WASI proc_exit).  Unwinds to the
 * runtime's entry point; call it only from a host function called directly
 * by module code, never from inside a foreign library's callback. */
noreturn void rt_exit(rt_instance *inst, int status);

/* Ends the module with a trap of kind RT_TRAP_HOST and a message, e.g. a
 * C++ exception thrown by code built without exception support.  Same
 * restriction as rt_exit. */
noreturn void rt_trap_host(rt_instance *inst, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Calls a module function from host code (callbacks from MPI: user ops,
 * error handlers, copy/delete functions).  Traps are caught here, never
 * propagated through the host library's frames: the result is 0 on
 * success, else the trap kind (enum rt_trapkind), and the caller reports
 * it once it is back in its own frame (rt_trap_rethrow). */
int rt_call(rt_instance *inst, const rt_func *f, const rt_value *args,
            rt_value *results);

/* After rt_call() returned a trap: raise it again from a frame where
 * unwinding is safe (directly inside a host function). */
noreturn void rt_trap_rethrow(rt_instance *inst, int kind);

/* Element idx of table tableidx if it is a non-null funcref whose type is
 * `sig` (same letters as rt_hostfn.sig); NULL otherwise.  C function
 * pointers in a module are indices into table 0. */
const rt_func *rt_table_func(rt_instance *inst, uint32_t tableidx,
                             uint32_t idx, const char *sig);

/* The exported function `name` if it exists with signature `sig`, else
 * NULL.  The bridge uses it for malloc/free. */
const rt_func *rt_export_func(rt_instance *inst, const char *name,
                              const char *sig);

#endif
