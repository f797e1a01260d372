/* futex.h - wait/wake on a 32-bit word and a three-state lock over it,
 * shared by libmpiwasm-malloc and libmpiwasm-omp.  In wasm the word is
 * waited on with memory.atomic.wait32/notify (the module must be built
 * with -matomics); natively with the Linux futex system call, so that the
 * same sources are tested on the host against glibc's pthreads. */
#ifndef MPIWASM_FUTEX_H
#define MPIWASM_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

#if defined(__wasm__)
static inline void futex_wait(atomic_int *w, int expect)
{
	/* -1: no timeout.  The return value (woken, not-equal) is not needed:
	 * every caller re-reads the word in a loop. */
	(void)__builtin_wasm_memory_atomic_wait32((int *)w, expect, -1);
}

static inline void futex_wake(atomic_int *w, int n)
{
	(void)__builtin_wasm_memory_atomic_notify((int *)w, (unsigned)n);
}

static inline void cpu_relax(void) {}
#else
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void futex_wait(atomic_int *w, int expect)
{
	syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, expect, (void *)0, (void *)0, 0);
}

static inline void futex_wake(atomic_int *w, int n)
{
	syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, n, (void *)0, (void *)0, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}
#endif

/* 0 free, 1 held, 2 held with waiters (Drepper, "Futexes Are Tricky"):
 * an uncontended lock/unlock is one atomic each and no system call. */
typedef struct { atomic_int state; } flock_t;
#define FLOCK_INIT { 0 }

static inline void flock_lock(flock_t *l)
{
	int c = 0;
	if (atomic_compare_exchange_strong(&l->state, &c, 1))
		return;
	for (int spin = 0; spin < 100; spin++) {
		cpu_relax();
		c = 0;
		if (atomic_load_explicit(&l->state, memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_strong(&l->state, &c, 1))
			return;
	}
	if (c != 2)
		c = atomic_exchange(&l->state, 2);
	while (c != 0) {
		futex_wait(&l->state, 2);
		c = atomic_exchange(&l->state, 2);
	}
}

static inline void flock_unlock(flock_t *l)
{
	if (atomic_fetch_sub(&l->state, 1) != 1) {
		atomic_store(&l->state, 0);
		futex_wake(&l->state, 1);
	}
}

#endif
