/* atomic.c - the generic __atomic_* library calls, for objects no atomic
 * instruction covers: clang emits them for `#pragma omp atomic` (and C11
 * _Atomic) on long double and _Complex types, which in wasm32 are 16
 * bytes.  Natively libatomic provides them; wasi-libc and Debian's wasm32
 * compiler-rt do not.  Each object is guarded by one of 64 locks chosen by
 * its address, so concurrent updates of one object serialize and updates
 * of others rarely contend.  The asm labels give the functions their
 * libcall names, which clang will not let C code declare directly. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../libmpiwasm-malloc/futex.h"

#define NLOCKS 64
static flock_t g_locks[NLOCKS];

static flock_t *lock_of(const volatile void *p)
{
	return &g_locks[((uintptr_t)p >> 4) % NLOCKS];
}

void mw_atomic_load(size_t n, void *src, void *dst, int order) __asm__("__atomic_load");
void mw_atomic_store(size_t n, void *dst, void *src, int order) __asm__("__atomic_store");
void mw_atomic_exchange(size_t n, void *p, void *val, void *old, int order)
	__asm__("__atomic_exchange");
bool mw_atomic_compare_exchange(size_t n, void *p, void *expected, void *desired,
				int success, int failure) __asm__("__atomic_compare_exchange");

void mw_atomic_load(size_t n, void *src, void *dst, int order)
{
	(void)order;
	flock_t *l = lock_of(src);
	flock_lock(l);
	memcpy(dst, src, n);
	flock_unlock(l);
}

void mw_atomic_store(size_t n, void *dst, void *src, int order)
{
	(void)order;
	flock_t *l = lock_of(dst);
	flock_lock(l);
	memcpy(dst, src, n);
	flock_unlock(l);
}

void mw_atomic_exchange(size_t n, void *p, void *val, void *old, int order)
{
	(void)order;
	flock_t *l = lock_of(p);
	flock_lock(l);
	memcpy(old, p, n);
	memcpy(p, val, n);
	flock_unlock(l);
}

bool mw_atomic_compare_exchange(size_t n, void *p, void *expected, void *desired,
				int success, int failure)
{
	(void)success, (void)failure;
	flock_t *l = lock_of(p);
	flock_lock(l);
	bool same = memcmp(p, expected, n) == 0;
	if (same)
		memcpy(p, desired, n);
	else
		memcpy(expected, p, n);
	flock_unlock(l);
	return same;
}
