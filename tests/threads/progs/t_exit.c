/* exit() in a worker thread while the main thread waits: the process
 * ends with the worker's status (atexit handlers and stdio flushing run
 * as exit does them). */
#include <unistd.h>
#include "common.h"

static void *worker(void *arg)
{
	(void)arg;
	printf("worker exits with 3\n");
	exit(3);
}

int main(void)
{
	pthread_t t;
	printf("main starts a worker\n");
	fflush(stdout);
	SPAWN(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("FAIL: join returned\n");
	return 1;
}
