/* Mutexes under contention, recursive and errorcheck kinds, trylock and
 * timedlock, spinlocks. */
#include "common.h"

#define NT 4
#define ITERS 100000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rm, em;
static pthread_spinlock_t spin;
static long counter, spun, nested;

static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERS; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
		pthread_spin_lock(&spin);
		spun++;
		pthread_spin_unlock(&spin);
		if (i % 100 == 0) {
			pthread_mutex_lock(&rm);
			pthread_mutex_lock(&rm);
			nested++;
			pthread_mutex_unlock(&rm);
			pthread_mutex_unlock(&rm);
		}
	}
	return NULL;
}

static int r_trylock, r_timed, r_unlock_other;
static void *other(void *arg)
{
	(void)arg;
	r_trylock = pthread_mutex_trylock(&m);
	struct timespec t = deadline(CLOCK_REALTIME, 50);
	double t0 = now_mono();
	r_timed = pthread_mutex_timedlock(&m, &t);
	if (now_mono() - t0 < 0.045)
		r_timed = -1;
	r_unlock_other = pthread_mutex_unlock(&em);
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&rm, &a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&em, &a);
	int type = -1;
	pthread_mutexattr_gettype(&a, &type);
	CHECK("mutexattr_gettype", type == PTHREAD_MUTEX_ERRORCHECK, "%d", type);
	pthread_mutexattr_destroy(&a);
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);

	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, hammer, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	CHECK("mutex contention", counter == (long)NT * ITERS, "%ld", counter);
	CHECK("spinlock contention", spun == (long)NT * ITERS, "%ld", spun);
	CHECK("recursive contention", nested == (long)NT * ITERS / 100, "%ld", nested);

	CHECK("errorcheck lock", pthread_mutex_lock(&em) == 0, "lock failed");
	CHECK("errorcheck relock", pthread_mutex_lock(&em) == EDEADLK, "no EDEADLK");
	pthread_mutex_lock(&m);
	pthread_t o;
	SPAWN(&o, NULL, other, NULL);
	pthread_join(o, NULL);
	pthread_mutex_unlock(&m);
	CHECK("trylock busy", r_trylock == EBUSY, "%d", r_trylock);
	CHECK("timedlock times out", r_timed == ETIMEDOUT, "%d", r_timed);
	CHECK("errorcheck unlock by another thread", r_unlock_other == EPERM, "%d", r_unlock_other);
	CHECK("errorcheck unlock", pthread_mutex_unlock(&em) == 0, "unlock failed");
	CHECK("errorcheck unlock unlocked", pthread_mutex_unlock(&em) == EPERM, "no EPERM");
	CHECK("trylock free", pthread_mutex_trylock(&m) == 0, "busy");
	pthread_mutex_unlock(&m);
	CHECK("recursive trylock", pthread_mutex_trylock(&rm) == 0 && pthread_mutex_trylock(&rm) == 0,
	      "busy");
	pthread_mutex_unlock(&rm);
	pthread_mutex_unlock(&rm);
	CHECK("mutex_destroy", pthread_mutex_destroy(&rm) == 0 && pthread_mutex_destroy(&em) == 0,
	      "busy");
	pthread_spin_destroy(&spin);
	return finish();
}
