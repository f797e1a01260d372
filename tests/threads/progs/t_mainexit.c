/* pthread_exit in main: the process lives on until the last thread has
 * finished, then exits with status 0. */
#include <unistd.h>
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int main_gone, turn;

/* Each worker waits for main's pthread_exit (plus a while, so main is
 * really gone), then for its turn: the output order is fixed. */
static void *worker(void *arg)
{
	long me = (long)arg;
	pthread_mutex_lock(&m);
	while (!main_gone)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	usleep(20000);
	pthread_mutex_lock(&m);
	while (turn != me)
		pthread_cond_wait(&cv, &m);
	printf("worker %ld finishes after main\n", me);
	fflush(stdout);
	turn++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;
	for (long i = 0; i < 2; i++)
		SPAWN(&t, NULL, worker, (void *)i);
	printf("main calls pthread_exit\n");
	fflush(stdout);
	pthread_mutex_lock(&m);
	main_gone = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	pthread_exit(NULL);
}
