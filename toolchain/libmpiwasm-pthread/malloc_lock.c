/* malloc_lock.c - one lock around wasi-libc's dlmalloc, which is built
 * without one.  Linked by `mpiwasm-cc -pthread` (through --wrap) only when
 * no thread-safe allocator (libmpiwasm-malloc.a) is installed: correct,
 * but every allocation of every thread takes the same lock.  The
 * wrappers of malloc and free are exported under those names, which is
 * what the engine calls (MPI_Alloc_mem, staging buffers). */
#include <stdlib.h>

#include "internal.h"

static int word;

static void lock(void)
{
	mw_lock(&word);
}

static void unlock(void)
{
	mw_unlock(&word);
}

void *__real_malloc(size_t n);
__attribute__((export_name("malloc")))
void *__wrap_malloc(size_t n)
{
	lock();
	void *p = __real_malloc(n);
	unlock();
	return p;
}

void __real_free(void *p);
__attribute__((export_name("free")))
void __wrap_free(void *p)
{
	lock();
	__real_free(p);
	unlock();
}

MW_LOCKED(lock, unlock, void *, calloc, (size_t n, size_t s), (n, s))
MW_LOCKED(lock, unlock, void *, realloc, (void *p, size_t n), (p, n))
MW_LOCKED(lock, unlock, void *, aligned_alloc, (size_t a, size_t n), (a, n))
MW_LOCKED(lock, unlock, int, posix_memalign, (void **p, size_t a, size_t n), (p, a, n))
MW_LOCKED(lock, unlock, size_t, malloc_usable_size, (void *p), (p))
