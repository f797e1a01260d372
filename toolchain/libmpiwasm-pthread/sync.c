/* sync.c - mutexes, condition variables, rwlocks, barriers, once,
 * spinlocks, all on memory.atomic.wait32/notify.
 *
 * The objects are wasi-libc's pthread_*_t types, used as storage for the
 * structures below (an all-zero object is a default, unlocked one, so the
 * static initializers are zeros).  A mutex is the classic three-state
 * futex lock (0 free, 1 locked, 2 locked with waiters): an uncontended
 * lock and unlock are one atomic each and never enter the engine. */
#include <string.h>

#include "internal.h"

struct mutex {
	int state;                 /* 0 free, 1 locked, 2 locked + waiters */
	int type;                  /* PTHREAD_MUTEX_* */
	pthread_t owner;           /* recursive and errorcheck */
	int count;                 /* recursive depth */
};
struct cond {
	int seq;                   /* bumped by every signal and broadcast */
	int clock;                 /* clockid_t of timed waits */
};
struct rwlock {
	int lock;                  /* guards the fields below */
	int readers;
	int writer;
	int wwait;                 /* writers waiting: new readers wait too */
	int seq;                   /* bumped by every unlock */
};
struct barrier {
	int lock;
	unsigned count, arrived;
	int gen;                   /* bumped when a round completes */
};
_Static_assert(sizeof(struct mutex) <= sizeof(pthread_mutex_t), "mutex");
_Static_assert(sizeof(struct cond) <= sizeof(pthread_cond_t), "cond");
_Static_assert(sizeof(struct rwlock) <= sizeof(pthread_rwlock_t), "rwlock");
_Static_assert(sizeof(struct barrier) <= sizeof(pthread_barrier_t), "barrier");

/* pthread_condattr_t.__attr: the clock of timed waits. */
enum { CLOCK_ATTR_REALTIME, CLOCK_ATTR_MONOTONIC };

#define M(m) ((struct mutex *)(m))
#define C(c) ((struct cond *)(c))
#define RW(r) ((struct rwlock *)(r))
#define B(b) ((struct barrier *)(b))

static int cas(int *p, int old, int new)
{
	return __atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

int64_t mw_until(clockid_t c, const struct timespec *t)
{
	if (t->tv_nsec < 0 || t->tv_nsec >= 1000000000)
		return -1;
	struct timespec now;
	clock_gettime(c, &now);
	int64_t ns = (int64_t)(t->tv_sec - now.tv_sec) * 1000000000 + (t->tv_nsec - now.tv_nsec);
	return ns > 0 ? ns : 0;
}

/* ---- the futex lock (also the library's internal lock) ------------------ */

/* Locks *l, waiting at most until abstime on clock c (NULL: forever):
 * 0, ETIMEDOUT or EINVAL. */
static int lock_until(int *l, clockid_t c, const struct timespec *abstime)
{
	if (cas(l, 0, 1))
		return 0;
	for (int spin = 0; spin < 100; spin++) {
		if (__atomic_load_n(l, __ATOMIC_RELAXED) == 0 && cas(l, 0, 1))
			return 0;
	}
	while (__atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE) != 0) {
		int64_t ns = -1;
		if (abstime) {
			ns = mw_until(c, abstime);
			if (ns < 0)
				return EINVAL;
			if (ns == 0)
				return ETIMEDOUT;
		}
		mw_wait(l, 2, ns);
	}
	return 0;
}

static void unlock_word(int *l)
{
	if (__atomic_exchange_n(l, 0, __ATOMIC_RELEASE) == 2)
		mw_wake(l, 1);
}

void mw_lock(volatile int *l)
{
	lock_until((int *)l, CLOCK_MONOTONIC, NULL);
}

void mw_unlock(volatile int *l)
{
	unlock_word((int *)l);
}

/* ---- mutexes ------------------------------------------------------------ */

int pthread_mutexattr_init(pthread_mutexattr_t *a)
{
	a->__attr = PTHREAD_MUTEX_NORMAL;
	return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
	if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_RECURSIVE &&
	    type != PTHREAD_MUTEX_ERRORCHECK)
		return EINVAL;
	a->__attr = (unsigned)type;
	return 0;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *__restrict a, int *__restrict type)
{
	*type = (int)a->__attr;
	return 0;
}

int pthread_mutex_init(pthread_mutex_t *__restrict m, const pthread_mutexattr_t *__restrict a)
{
	memset(m, 0, sizeof *m);
	M(m)->type = a ? (int)a->__attr : PTHREAD_MUTEX_NORMAL;
	return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
	return __atomic_load_n(&M(m)->state, __ATOMIC_RELAXED) ? EBUSY : 0;
}

static int mutex_lock(pthread_mutex_t *m, int try, const struct timespec *abstime)
{
	struct mutex *x = M(m);
	pthread_t me = pthread_self();
	if (x->type != PTHREAD_MUTEX_NORMAL && __atomic_load_n(&x->owner, __ATOMIC_RELAXED) == me) {
		if (x->type == PTHREAD_MUTEX_ERRORCHECK)
			return EDEADLK;
		if (x->count == 0x7fffffff)
			return EAGAIN;
		x->count++;
		return 0;
	}
	int e;
	if (try)
		e = cas(&x->state, 0, 1) ? 0 : EBUSY;
	else
		e = lock_until(&x->state, CLOCK_REALTIME, abstime);
	if (e)
		return e;
	if (x->type != PTHREAD_MUTEX_NORMAL) {
		__atomic_store_n(&x->owner, me, __ATOMIC_RELAXED);
		x->count = 1;
	}
	return 0;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	return mutex_lock(m, 0, NULL);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	return mutex_lock(m, 1, NULL);
}

int pthread_mutex_timedlock(pthread_mutex_t *__restrict m, const struct timespec *__restrict t)
{
	return mutex_lock(m, 0, t);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct mutex *x = M(m);
	if (x->type != PTHREAD_MUTEX_NORMAL) {
		if (__atomic_load_n(&x->owner, __ATOMIC_RELAXED) != pthread_self())
			return EPERM;
		if (--x->count)
			return 0;
		__atomic_store_n(&x->owner, NULL, __ATOMIC_RELAXED);
	}
	unlock_word(&x->state);
	return 0;
}

/* ---- condition variables ------------------------------------------------ */

int pthread_condattr_init(pthread_condattr_t *a)
{
	a->__attr = CLOCK_ATTR_REALTIME;
	return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t c)
{
	if (c == CLOCK_REALTIME)
		a->__attr = CLOCK_ATTR_REALTIME;
	else if (c == CLOCK_MONOTONIC)
		a->__attr = CLOCK_ATTR_MONOTONIC;
	else
		return EINVAL;
	return 0;
}

int pthread_condattr_getclock(const pthread_condattr_t *__restrict a, clockid_t *__restrict c)
{
	*c = a->__attr == CLOCK_ATTR_MONOTONIC ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	return 0;
}

int pthread_cond_init(pthread_cond_t *__restrict c, const pthread_condattr_t *__restrict a)
{
	memset(c, 0, sizeof *c);
	C(c)->clock = a && a->__attr == CLOCK_ATTR_MONOTONIC;
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
	(void)c;
	return 0;
}

int pthread_cond_timedwait(pthread_cond_t *__restrict c, pthread_mutex_t *__restrict m,
                           const struct timespec *__restrict abstime)
{
	struct cond *x = C(c);
	clockid_t clk = x->clock ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	int64_t ns = -1;
	if (abstime) {
		ns = mw_until(clk, abstime);
		if (ns < 0)
			return EINVAL;
	}
	int seq = __atomic_load_n(&x->seq, __ATOMIC_ACQUIRE);
	int e = pthread_mutex_unlock(m);
	if (e)
		return e;
	if (ns != 0)
		mw_wait(&x->seq, seq, ns);
	/* Relock as contended: other waiters woken with us may be queued. */
	struct mutex *mx = M(m);
	if (mx->type == PTHREAD_MUTEX_NORMAL) {
		while (__atomic_exchange_n(&mx->state, 2, __ATOMIC_ACQUIRE) != 0)
			mw_wait(&mx->state, 2, -1);
	} else {
		pthread_mutex_lock(m);
	}
	if (abstime && __atomic_load_n(&x->seq, __ATOMIC_ACQUIRE) == seq &&
	    mw_until(clk, abstime) == 0)
		return ETIMEDOUT;
	return 0;
}

int pthread_cond_wait(pthread_cond_t *__restrict c, pthread_mutex_t *__restrict m)
{
	return pthread_cond_timedwait(c, m, NULL);
}

int pthread_cond_signal(pthread_cond_t *c)
{
	__atomic_add_fetch(&C(c)->seq, 1, __ATOMIC_RELEASE);
	mw_wake(&C(c)->seq, 1);
	return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	__atomic_add_fetch(&C(c)->seq, 1, __ATOMIC_RELEASE);
	mw_wake(&C(c)->seq, MW_WAKE_ALL);
	return 0;
}

/* ---- rwlocks (writers preferred) ---------------------------------------- */

int pthread_rwlockattr_init(pthread_rwlockattr_t *a)
{
	memset(a, 0, sizeof *a);
	return 0;
}

int pthread_rwlockattr_destroy(pthread_rwlockattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_rwlock_init(pthread_rwlock_t *__restrict r, const pthread_rwlockattr_t *__restrict a)
{
	(void)a;
	memset(r, 0, sizeof *r);
	return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *r)
{
	struct rwlock *x = RW(r);
	return x->readers || x->writer ? EBUSY : 0;
}

/* Waits for the next unlock (with x->lock held; returns with it held). */
static int rw_sleep(struct rwlock *x, const struct timespec *abstime)
{
	int64_t ns = -1;
	if (abstime) {
		ns = mw_until(CLOCK_REALTIME, abstime);
		if (ns < 0)
			return EINVAL;
		if (ns == 0)
			return ETIMEDOUT;
	}
	int seq = x->seq;
	mw_unlock(&x->lock);
	mw_wait(&x->seq, seq, ns);
	mw_lock(&x->lock);
	return 0;
}

static int rw_rdlock(pthread_rwlock_t *r, int try, const struct timespec *abstime)
{
	struct rwlock *x = RW(r);
	int e = 0;
	mw_lock(&x->lock);
	while (x->writer || x->wwait) {
		if (try || (e = rw_sleep(x, abstime)) != 0) {
			mw_unlock(&x->lock);
			return try ? EBUSY : e;
		}
	}
	x->readers++;
	mw_unlock(&x->lock);
	return 0;
}

static int rw_wrlock(pthread_rwlock_t *r, int try, const struct timespec *abstime)
{
	struct rwlock *x = RW(r);
	int e = 0;
	mw_lock(&x->lock);
	x->wwait++;
	while (x->writer || x->readers) {
		if (try || (e = rw_sleep(x, abstime)) != 0) {
			x->wwait--;
			/* readers held back for this writer may go now */
			__atomic_add_fetch(&x->seq, 1, __ATOMIC_RELEASE);
			mw_unlock(&x->lock);
			mw_wake(&x->seq, MW_WAKE_ALL);
			return try ? EBUSY : e;
		}
	}
	x->wwait--;
	x->writer = 1;
	mw_unlock(&x->lock);
	return 0;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *r) { return rw_rdlock(r, 0, NULL); }
int pthread_rwlock_tryrdlock(pthread_rwlock_t *r) { return rw_rdlock(r, 1, NULL); }
int pthread_rwlock_timedrdlock(pthread_rwlock_t *__restrict r, const struct timespec *__restrict t)
{
	return rw_rdlock(r, 0, t);
}
int pthread_rwlock_wrlock(pthread_rwlock_t *r) { return rw_wrlock(r, 0, NULL); }
int pthread_rwlock_trywrlock(pthread_rwlock_t *r) { return rw_wrlock(r, 1, NULL); }
int pthread_rwlock_timedwrlock(pthread_rwlock_t *__restrict r, const struct timespec *__restrict t)
{
	return rw_wrlock(r, 0, t);
}

int pthread_rwlock_unlock(pthread_rwlock_t *r)
{
	struct rwlock *x = RW(r);
	mw_lock(&x->lock);
	if (x->writer)
		x->writer = 0;
	else if (x->readers)
		x->readers--;
	else {
		mw_unlock(&x->lock);
		return EPERM;
	}
	__atomic_add_fetch(&x->seq, 1, __ATOMIC_RELEASE);
	mw_unlock(&x->lock);
	mw_wake(&x->seq, MW_WAKE_ALL);
	return 0;
}

/* ---- barriers ----------------------------------------------------------- */

int pthread_barrierattr_init(pthread_barrierattr_t *a)
{
	a->__attr = 0;
	return 0;
}

int pthread_barrierattr_destroy(pthread_barrierattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_barrier_init(pthread_barrier_t *__restrict b, const pthread_barrierattr_t *__restrict a,
                         unsigned count)
{
	(void)a;
	if (count == 0)
		return EINVAL;
	memset(b, 0, sizeof *b);
	B(b)->count = count;
	return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *b)
{
	(void)b;
	return 0;
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct barrier *x = B(b);
	mw_lock(&x->lock);
	int gen = x->gen;
	if (++x->arrived == x->count) {
		x->arrived = 0;
		__atomic_add_fetch(&x->gen, 1, __ATOMIC_RELEASE);
		mw_unlock(&x->lock);
		mw_wake(&x->gen, MW_WAKE_ALL);
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	mw_unlock(&x->lock);
	while (__atomic_load_n(&x->gen, __ATOMIC_ACQUIRE) == gen)
		mw_wait(&x->gen, gen, -1);
	return 0;
}

/* ---- once, spinlocks, yield --------------------------------------------- */

int pthread_once(pthread_once_t *o, void (*fn)(void))
{
	/* 0 not run, 1 running, 2 done */
	if (__atomic_load_n(o, __ATOMIC_ACQUIRE) == 2)
		return 0;
	if (cas(o, 0, 1)) {
		fn();
		__atomic_store_n(o, 2, __ATOMIC_RELEASE);
		mw_wake(o, MW_WAKE_ALL);
		return 0;
	}
	int s;
	while ((s = __atomic_load_n(o, __ATOMIC_ACQUIRE)) == 1)
		mw_wait(o, 1, -1);
	return 0;
}

int pthread_spin_init(pthread_spinlock_t *s, int shared)
{
	(void)shared;
	*s = 0;
	return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *s)
{
	(void)s;
	return 0;
}

int pthread_spin_lock(pthread_spinlock_t *s)
{
	while (!cas(s, 0, 1))
		while (__atomic_load_n(s, __ATOMIC_RELAXED))
			;
	return 0;
}

int pthread_spin_trylock(pthread_spinlock_t *s)
{
	return cas(s, 0, 1) ? 0 : EBUSY;
}

int pthread_spin_unlock(pthread_spinlock_t *s)
{
	__atomic_store_n(s, 0, __ATOMIC_RELEASE);
	return 0;
}
