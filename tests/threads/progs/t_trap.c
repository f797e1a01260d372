/* A trap in a worker thread (wasm only): the process ends with status
 * 134 and a message naming the thread, while the main thread waits. */
#include "common.h"

static volatile int zero;

__attribute__((noinline)) static int divide(int a)
{
	return a / zero;
}

static void *worker(void *arg)
{
	return (void *)(long)divide((int)(long)arg);
}

int main(void)
{
	pthread_t t;
	SPAWN(&t, NULL, worker, (void *)7);
	pthread_join(t, NULL);
	printf("FAIL: join returned\n");
	return 0;
}
