/* internal.h - shared by the files of libmpiwasm-pthread. */
#ifndef MPIWASM_PTHREAD_INTERNAL_H
#define MPIWASM_PTHREAD_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#undef pthread_equal

/* Per-thread value of a key: valid only while gen is the key's. */
struct tsd_slot {
	void *value;
	unsigned gen;
};

/* The thread descriptor, at the start of the block that also holds the
 * thread's TLS area and stack (one malloc, freed once `gone`). */
struct __pthread {
	uint32_t sp;               /* offset 0: first stack pointer (start.s) */
	int gone;                  /* offset 4: 1 once the stack is unused (start.s, host) */
	int state;                 /* T_JOINABLE, T_DETACHED, T_EXITED */
	int tid;
	void *(*fn)(void *);
	void *arg;
	void *result;
	void *tls;
	struct __pthread *next;    /* zombie list */
	struct tsd_slot tsd[PTHREAD_KEYS_MAX];
};

enum { T_JOINABLE, T_DETACHED, T_EXITED };

/* Futex-style waiting on a 32-bit word of linear memory. */
static inline void mw_wait(volatile int *a, int expect, int64_t ns)
{
	__builtin_wasm_memory_atomic_wait32((int *)a, expect, ns);
}

static inline void mw_wake(volatile int *a, unsigned n)
{
	__builtin_wasm_memory_atomic_notify((int *)a, n);
}

#define MW_WAKE_ALL 0xFFFFFFFFu

/* Nanoseconds from now until abstime on clock c: >0, or 0 when it has
 * passed; -1 (EINVAL) for a malformed time. */
int64_t mw_until(clockid_t c, const struct timespec *abstime);

/* A small lock for the library's own lists (0 = unlocked). */
void mw_lock(volatile int *l);
void mw_unlock(volatile int *l);

/* Wrappers for wasm-ld's --wrap: __wrap_name runs __real_name under a lock. */
#define MW_LOCKED(lock, unlock, T, name, params, args) \
	T __real_##name params;                             \
	T __wrap_##name params                              \
	{                                                   \
		lock();                                         \
		T r = __real_##name args;                       \
		unlock();                                       \
		return r;                                       \
	}
#define MW_LOCKED_VOID(lock, unlock, name, params, args) \
	void __real_##name params;                          \
	void __wrap_##name params                           \
	{                                                   \
		lock();                                         \
		__real_##name args;                             \
		unlock();                                       \
	}

#endif
