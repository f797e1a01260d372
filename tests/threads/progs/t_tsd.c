/* Thread-specific data: per-thread values, destructors at thread exit
 * (also after pthread_exit), a destructor that sets a value again
 * (another round), key deletion, and _Thread_local variables. */
#include "common.h"

#define NT 6

static pthread_key_t k1, k2;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long dtor_sum, dtor2_calls;
static _Thread_local int tl_counter = 7;
static int tl_bad;

static void dtor1(void *v)
{
	pthread_mutex_lock(&m);
	dtor_sum += *(long *)v;
	pthread_mutex_unlock(&m);
	free(v);
}

/* Sets itself again once: destructors run in rounds. */
static void dtor2(void *v)
{
	pthread_mutex_lock(&m);
	dtor2_calls++;
	pthread_mutex_unlock(&m);
	if (v == (void *)1)
		pthread_setspecific(k2, (void *)2);
}

static void *worker(void *arg)
{
	long me = (long)arg;
	long *v = malloc(sizeof *v);
	*v = me + 1;
	pthread_setspecific(k1, v);
	pthread_setspecific(k2, (void *)1);
	for (int i = 0; i < 1000; i++)
		tl_counter++;
	if (tl_counter != 1007 || *(long *)pthread_getspecific(k1) != me + 1)
		__atomic_add_fetch(&tl_bad, 1, __ATOMIC_SEQ_CST);
	if (me % 2)
		pthread_exit(NULL);
	return NULL;
}

int main(void)
{
	CHECK("key_create", pthread_key_create(&k1, dtor1) == 0 &&
	      pthread_key_create(&k2, dtor2) == 0, "failed");
	CHECK("unset key reads NULL", pthread_getspecific(k1) == NULL, "not NULL");
	pthread_setspecific(k1, &dtor_sum);
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	CHECK("values are per thread", tl_bad == 0, "%d threads saw others' values", tl_bad);
	CHECK("main's value kept", pthread_getspecific(k1) == &dtor_sum, "changed");
	CHECK("_Thread_local of main untouched", tl_counter == 7, "%d", tl_counter);
	CHECK("destructors ran", dtor_sum == NT * (NT + 1) / 2, "sum %ld", dtor_sum);
	CHECK("destructor rounds", dtor2_calls == 2 * NT, "%ld calls", dtor2_calls);
	pthread_setspecific(k1, NULL);
	CHECK("key_delete", pthread_key_delete(k1) == 0, "failed");
	pthread_key_t k3;
	CHECK("key reuse reads NULL", pthread_key_create(&k3, NULL) == 0 &&
	      pthread_getspecific(k3) == NULL, "stale value");
	return finish();
}
