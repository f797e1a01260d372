/* Detached threads (by attribute and by pthread_detach), 200 short-lived
 * threads, pthread_exit with a value, stack size attributes, self/equal. */
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int detached_done;

static void *detached(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	detached_done++;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void *square(void *arg)
{
	long x = (long)arg;
	return (void *)(x * x);
}

static void deep_exit(int depth, long v)
{
	if (v < 0)
		return;
	if (depth == 0)
		pthread_exit((void *)v);
	deep_exit(depth - 1, v);
}

static void *exiter(void *arg)
{
	deep_exit(10, (long)arg + 1000);
	return NULL;
}

/* Uses most of a 4 MiB stack. */
static void *big_stack(void *arg)
{
	(void)arg;
	volatile char buf[3 << 20];
	for (size_t i = 0; i < sizeof buf; i += 4096)
		buf[i] = (char)i;
	long s = 0;
	for (size_t i = 0; i < sizeof buf; i += 4096)
		s += buf[i];
	return (void *)s;
}

static pthread_t seen_self;
static void *selfish(void *arg)
{
	(void)arg;
	seen_self = pthread_self();
	return (void *)(long)pthread_equal(pthread_self(), seen_self);
}

int main(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	int ds = -1;
	pthread_attr_getdetachstate(&a, &ds);
	CHECK("default detach state", ds == PTHREAD_CREATE_JOINABLE, "%d", ds);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	for (int i = 0; i < 20; i++)
		SPAWN(&t, &a, detached, NULL);
	for (int i = 0; i < 20; i++) {
		SPAWN(&t, NULL, detached, NULL);
		pthread_detach(t);
	}
	pthread_mutex_lock(&m);
	while (detached_done < 40)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	CHECK("detached threads ran", detached_done == 40, "%d", detached_done);
	pthread_attr_destroy(&a);

	long sum = 0;
	for (long i = 0; i < 200; i++) {
		void *r;
		SPAWN(&t, NULL, square, (void *)i);
		pthread_join(t, &r);
		sum += (long)r;
	}
	CHECK("200 short-lived threads", sum == 199L * 200 * 399 / 6, "%ld", sum);
	pthread_t many[16];
	sum = 0;
	for (int round = 0; round < 10; round++) {
		for (long i = 0; i < 16; i++)
			SPAWN(&many[i], NULL, square, (void *)i);
		for (int i = 0; i < 16; i++) {
			void *r;
			pthread_join(many[i], &r);
			sum += (long)r;
		}
	}
	CHECK("10 rounds of 16 threads", sum == 10L * 15 * 16 * 31 / 6, "%ld", sum);

	void *r = NULL;
	SPAWN(&t, NULL, exiter, (void *)7);
	pthread_join(t, &r);
	CHECK("pthread_exit value", (long)r == 1007, "%ld", (long)r);

	pthread_attr_init(&a);
	CHECK("stack size too small", pthread_attr_setstacksize(&a, 16) == EINVAL, "accepted");
	CHECK("stack size", pthread_attr_setstacksize(&a, 4 << 20) == 0, "refused");
	size_t ss = 0;
	pthread_attr_getstacksize(&a, &ss);
	CHECK("stack size read back", ss == 4 << 20, "%zu", ss);
	SPAWN(&t, &a, big_stack, NULL);
	pthread_join(t, &r);
	long want = 0;
	for (size_t i = 0; i < 3 << 20; i += 4096)
		want += (char)i;
	CHECK("big stack", (long)r == want, "%ld", (long)r);
	pthread_attr_destroy(&a);

	SPAWN(&t, NULL, selfish, NULL);
	pthread_join(t, &r);
	CHECK("pthread_self in the thread", (long)r == 1 && pthread_equal(seen_self, t), "differs");
	CHECK("pthread_self differs from main", !pthread_equal(pthread_self(), t), "same");
	CHECK("join self", pthread_join(pthread_self(), NULL) == EDEADLK, "no EDEADLK");
	return finish();
}
