/* Barriers (rounds, one serial thread each), rwlocks (readers together,
 * writers alone), pthread_once, sched_yield. */
#include <sched.h>
#include "common.h"

#define NT 4
#define ROUNDS 500

static pthread_barrier_t bar;
static int slot[NT], bad_rounds, serials;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *rounds(void *arg)
{
	long me = (long)arg;
	for (int r = 1; r <= ROUNDS; r++) {
		slot[me] = r;
		int s = pthread_barrier_wait(&bar);
		if (s == PTHREAD_BARRIER_SERIAL_THREAD) {
			pthread_mutex_lock(&m);
			serials++;
			pthread_mutex_unlock(&m);
		}
		for (int k = 0; k < NT; k++)
			if (slot[k] != r) {
				pthread_mutex_lock(&m);
				bad_rounds++;
				pthread_mutex_unlock(&m);
				break;
			}
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int readers_in, writers_in, max_readers, violations;
static long shared_val;

static void *rwuser(void *arg)
{
	long me = (long)arg;
	for (int i = 0; i < 20000; i++) {
		if ((i + me) % 8 == 0) {
			pthread_rwlock_wrlock(&rw);
			if (__atomic_add_fetch(&writers_in, 1, __ATOMIC_SEQ_CST) != 1 ||
			    __atomic_load_n(&readers_in, __ATOMIC_SEQ_CST))
				__atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
			shared_val++;
			__atomic_sub_fetch(&writers_in, 1, __ATOMIC_SEQ_CST);
			pthread_rwlock_unlock(&rw);
		} else {
			pthread_rwlock_rdlock(&rw);
			int n = __atomic_add_fetch(&readers_in, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&writers_in, __ATOMIC_SEQ_CST))
				__atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
			if (n > max_readers)
				max_readers = n;
			if (i % 64 == 0)
				sched_yield();
			__atomic_sub_fetch(&readers_in, 1, __ATOMIC_SEQ_CST);
			pthread_rwlock_unlock(&rw);
		}
	}
	return NULL;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;
static void init_once(void)
{
	once_runs++;
}
static void *oncer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++)
		pthread_once(&once, init_once);
	return NULL;
}

static int r_try;
static void *trywr(void *arg)
{
	(void)arg;
	r_try = pthread_rwlock_trywrlock(&rw);
	struct timespec t = deadline(CLOCK_REALTIME, 30);
	int r = pthread_rwlock_timedwrlock(&rw, &t);
	if (r != ETIMEDOUT)
		r_try = -100 - r;
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	pthread_barrier_init(&bar, NULL, NT);
	for (long i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, rounds, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	CHECK("barrier rounds", bad_rounds == 0, "%d bad", bad_rounds);
	CHECK("barrier serial thread", serials == ROUNDS, "%d of %d", serials, ROUNDS);

	for (long i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, rwuser, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	CHECK("rwlock exclusion", violations == 0, "%d", violations);
	CHECK("rwlock writes", shared_val == NT * 20000 / 8, "%ld", shared_val);

	pthread_rwlock_rdlock(&rw);
	CHECK("rwlock tryrdlock shared", pthread_rwlock_tryrdlock(&rw) == 0, "busy");
	pthread_rwlock_unlock(&rw);
	SPAWN(&t[0], NULL, trywr, NULL);
	pthread_join(t[0], NULL);
	pthread_rwlock_unlock(&rw);
	CHECK("rwlock trywrlock busy, timedwrlock times out", r_try == EBUSY, "%d", r_try);
	CHECK("rwlock free again", pthread_rwlock_trywrlock(&rw) == 0, "busy");
	pthread_rwlock_unlock(&rw);
	CHECK("rwlock_destroy", pthread_rwlock_destroy(&rw) == 0, "busy");

	for (int i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, oncer, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	CHECK("once", once_runs == 1, "%d runs", once_runs);
	CHECK("sched_yield", sched_yield() == 0, "failed");
	return finish();
}
