/* atomic.c - memory.atomic.wait32/wait64 and memory.atomic.notify.
 *
 * Waiters queue per address in a small hash table of buckets, each under
 * a mutex; a waiter then sleeps on a futex word of its own, so notify can
 * wake exactly `count` of them in arrival order and report how many it
 * woke, and a 64-bit wait works the same as a 32-bit one.  The value is
 * compared under the bucket lock, so a notify that follows a store can
 * never be missed. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

typedef struct rt_waiter {
	uintptr_t addr;            /* host address waited on */
	uint32_t woken;            /* futex word: 0 asleep, 1 notified */
	struct rt_waiter *next;
} rt_waiter;

#define RT_WAIT_BUCKETS 64
static struct {
	pthread_mutex_t lock;
	rt_waiter *head;
} rt_wq[RT_WAIT_BUCKETS] = {
#define B4 {PTHREAD_MUTEX_INITIALIZER, 0}, {PTHREAD_MUTEX_INITIALIZER, 0}, \
           {PTHREAD_MUTEX_INITIALIZER, 0}, {PTHREAD_MUTEX_INITIALIZER, 0}
	B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4,
#undef B4
};

static unsigned rt_bucket(uintptr_t a)
{
	return (unsigned)((a >> 2) * 0x9E3779B1u >> 26) % RT_WAIT_BUCKETS;
}

/* Bounds then alignment, as for every atomic access. */
static uint8_t *rt_atomic_addr(rt_memory *m, uint64_t ea, uint32_t n, uint32_t func)
{
	if (ea + n > __atomic_load_n(&m->pages, __ATOMIC_RELAXED) * RT_PAGE_SIZE)
		rt_trap(RT_TRAP_MEM_OOB, func);
	if (ea & (n - 1))
		rt_trap(RT_TRAP_UNALIGNED, func);
	return m->base + ea;
}

RT_ABI uint32_t rt_atomic_notify(rt_memory *m, uint64_t ea, uint32_t count,
                                 uint32_t func)
{
	uintptr_t a = (uintptr_t)rt_atomic_addr(m, ea, 4, func);
	if (!m->shared || count == 0)
		return 0;   /* nobody can wait on an unshared memory */
	unsigned b = rt_bucket(a);
	uint32_t n = 0;
	pthread_mutex_lock(&rt_wq[b].lock);
	for (rt_waiter **pp = &rt_wq[b].head; *pp && n < count;) {
		rt_waiter *w = *pp;
		if (w->addr != a) {
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		__atomic_store_n(&w->woken, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &w->woken, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		n++;
	}
	pthread_mutex_unlock(&rt_wq[b].lock);
	return n;
}

/* 0 "ok" (woken), 1 "not-equal", 2 "timed-out". */
static uint32_t rt_wait(rt_memory *m, uint64_t ea, uint64_t expect, int64_t timeout,
                        uint32_t width, uint32_t func)
{
	uint8_t *p = rt_atomic_addr(m, ea, width, func);
	if (!m->shared)
		rt_trap_host(NULL, "memory.atomic.wait%u on an unshared memory", width * 8);
	struct timespec deadline;
	if (timeout >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout / 1000000000;
		deadline.tv_nsec += timeout % 1000000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
	}
	rt_waiter w = { .addr = (uintptr_t)p };
	unsigned b = rt_bucket(w.addr);
	pthread_mutex_lock(&rt_wq[b].lock);
	uint64_t cur = width == 4 ? __atomic_load_n((uint32_t *)p, __ATOMIC_SEQ_CST)
	                          : __atomic_load_n((uint64_t *)p, __ATOMIC_SEQ_CST);
	if (cur != expect) {
		pthread_mutex_unlock(&rt_wq[b].lock);
		return 1;
	}
	/* append: notify wakes in arrival order */
	rt_waiter **pp = &rt_wq[b].head;
	while (*pp)
		pp = &(*pp)->next;
	*pp = &w;
	pthread_mutex_unlock(&rt_wq[b].lock);
	for (;;) {
		if (__atomic_load_n(&w.woken, __ATOMIC_SEQ_CST))
			return 0;
		long r = syscall(SYS_futex, &w.woken, FUTEX_WAIT_BITSET_PRIVATE, 0,
		                 timeout >= 0 ? &deadline : NULL, NULL, FUTEX_BITSET_MATCH_ANY);
		if (r == -1 && errno == ETIMEDOUT)
			break;
	}
	/* timed out, unless a notify dequeued us meanwhile */
	pthread_mutex_lock(&rt_wq[b].lock);
	uint32_t rc = 0;
	if (!__atomic_load_n(&w.woken, __ATOMIC_SEQ_CST)) {
		for (pp = &rt_wq[b].head; *pp; pp = &(*pp)->next)
			if (*pp == &w) {
				*pp = w.next;
				break;
			}
		rc = 2;
	}
	pthread_mutex_unlock(&rt_wq[b].lock);
	return rc;
}

RT_ABI uint32_t rt_atomic_wait32(rt_memory *m, uint64_t ea, uint32_t expect,
                                 int64_t timeout, uint32_t func)
{
	return rt_wait(m, ea, expect, timeout, 4, func);
}

RT_ABI uint32_t rt_atomic_wait64(rt_memory *m, uint64_t ea, uint64_t expect,
                                 int64_t timeout, uint32_t func)
{
	return rt_wait(m, ea, expect, timeout, 8, func);
}
