/* Condition variables: a bounded queue between producers and consumers,
 * broadcast, and timed waits on CLOCK_REALTIME and CLOCK_MONOTONIC. */
#include "common.h"

#define NPROD 2
#define NCONS 2
#define ITEMS 20000
#define QCAP 8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notfull = PTHREAD_COND_INITIALIZER, notempty = PTHREAD_COND_INITIALIZER;
static long q[QCAP];
static int head, len, producers_left = NPROD;
static long consumed_sum, consumed_n;

static void *producer(void *arg)
{
	long base = (long)arg * ITEMS;
	for (long i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&m);
		while (len == QCAP)
			pthread_cond_wait(&notfull, &m);
		q[(head + len++) % QCAP] = base + i;
		pthread_cond_signal(&notempty);
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&m);
	producers_left--;
	pthread_cond_broadcast(&notempty);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	long sum = 0, n = 0;
	for (;;) {
		pthread_mutex_lock(&m);
		while (len == 0 && producers_left)
			pthread_cond_wait(&notempty, &m);
		if (len == 0) {
			pthread_mutex_unlock(&m);
			break;
		}
		sum += q[head];
		head = (head + 1) % QCAP;
		len--;
		n++;
		pthread_cond_signal(&notfull);
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&m);
	consumed_sum += sum;
	consumed_n += n;
	pthread_mutex_unlock(&m);
	return NULL;
}

/* broadcast: every waiter wakes */
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int started, released, woke;
static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	started++;
	pthread_cond_broadcast(&notempty);
	while (!released)
		pthread_cond_wait(&go, &m);
	woke++;
	pthread_mutex_unlock(&m);
	return NULL;
}

static int timed(clockid_t c, long ms)
{
	pthread_condattr_t a;
	pthread_cond_t cv;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, c);
	pthread_cond_init(&cv, &a);
	pthread_condattr_destroy(&a);
	struct timespec t = deadline(c, ms);
	double t0 = now_mono();
	pthread_mutex_lock(&m);
	int rc;
	do
		rc = pthread_cond_timedwait(&cv, &m, &t);
	while (rc == 0);
	pthread_mutex_unlock(&m);
	double el = now_mono() - t0;
	pthread_cond_destroy(&cv);
	if (rc != ETIMEDOUT)
		return rc;
	return el >= ms / 1000.0 - 0.002 && el < ms / 1000.0 + 2.0 ? 0 : -1;
}

int main(void)
{
	pthread_t p[NPROD], c[NCONS];
	for (long i = 0; i < NPROD; i++)
		SPAWN(&p[i], NULL, producer, (void *)i);
	for (int i = 0; i < NCONS; i++)
		SPAWN(&c[i], NULL, consumer, NULL);
	for (int i = 0; i < NPROD; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < NCONS; i++)
		pthread_join(c[i], NULL);
	long n = (long)NPROD * ITEMS;
	long want = 0;
	for (long k = 0; k < NPROD; k++)
		want += k * ITEMS * ITEMS + (long)ITEMS * (ITEMS + 1) / 2;
	CHECK("queue count", consumed_n == n, "%ld of %ld", consumed_n, n);
	CHECK("queue sum", consumed_sum == want, "%ld, want %ld", consumed_sum, want);

	pthread_t w[3];
	for (int i = 0; i < 3; i++)
		SPAWN(&w[i], NULL, waiter, NULL);
	pthread_mutex_lock(&m);
	while (started < 3)
		pthread_cond_wait(&notempty, &m);
	released = 1;
	pthread_cond_broadcast(&go);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < 3; i++)
		pthread_join(w[i], NULL);
	CHECK("broadcast wakes all", woke == 3, "%d", woke);

	CHECK("timedwait CLOCK_REALTIME", timed(CLOCK_REALTIME, 100) == 0, "wrong");
	CHECK("timedwait CLOCK_MONOTONIC", timed(CLOCK_MONOTONIC, 100) == 0, "wrong");
	struct timespec past = deadline(CLOCK_REALTIME, -1000);
	pthread_mutex_lock(&m);
	int rc = pthread_cond_timedwait(&go, &m, &past);
	pthread_mutex_unlock(&m);
	CHECK("timedwait in the past", rc == ETIMEDOUT, "%d", rc);
	return finish();
}
