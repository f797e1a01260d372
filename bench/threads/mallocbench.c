/* mallocbench - a malloc-heavy threaded benchmark: each of T threads, in
 * each round, allocates BLOCKS small blocks (16 to 512 bytes, touched),
 * frees three quarters of them itself in a scattered order and leaves the
 * last quarter to the next thread, which frees them in the next round
 * (cross-thread frees).  Work per thread is fixed, so ideal scaling keeps
 * the time constant as T grows.
 *
 *   mallocbench THREADS [ROUNDS]
 * prints "malloc THREADS SECONDS MOPS CHECKSUM" (operations: mallocs and
 * frees, all threads). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCKS 16384
#define MAXT   64

static int nthreads, rounds;
static void **handoff[MAXT][2];   /* [thread][round parity] */
static pthread_barrier_t bar;
static uint64_t sums[MAXT];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *work(void *arg)
{
	int me = (int)(intptr_t)arg, prev = (me + nthreads - 1) % nthreads;
	uint32_t seed = 2463534242u + (uint32_t)me;
	void **mine = malloc(BLOCKS * sizeof *mine);
	uint64_t sum = 0;
	for (int r = 0; r < rounds; r++) {
		void **give = handoff[me][r & 1];
		for (int i = 0; i < BLOCKS; i++) {
			seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
			size_t n = 16 + (seed & 496);
			unsigned char *p = malloc(n);
			p[0] = (unsigned char)i;
			p[n - 1] = (unsigned char)r;
			mine[i] = p;
		}
		/* The last quarter goes to the next thread. */
		for (int i = 0; i < BLOCKS / 4; i++)
			give[i] = mine[BLOCKS - BLOCKS / 4 + i];
		/* Free the rest in a scattered order (stride 7 is coprime). */
		for (int k = 0, i = 0; k < BLOCKS - BLOCKS / 4; k++, i = (i + 7) % (BLOCKS - BLOCKS / 4)) {
			sum += ((unsigned char *)mine[i])[0];
			free(mine[i]);
		}
		pthread_barrier_wait(&bar);
		/* The previous thread's quarter from this round. */
		void **take = handoff[prev][r & 1];
		for (int i = 0; i < BLOCKS / 4; i++) {
			sum += ((unsigned char *)take[i])[0];
			free(take[i]);
		}
		pthread_barrier_wait(&bar);
	}
	free(mine);
	sums[me] = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atoi(argv[1]) : 1;
	rounds = argc > 2 ? atoi(argv[2]) : 100;
	if (nthreads < 1 || nthreads > MAXT || rounds < 1) {
		fprintf(stderr, "usage: mallocbench THREADS(1-%d) [ROUNDS]\n", MAXT);
		return 2;
	}
	for (int t = 0; t < nthreads; t++)
		for (int k = 0; k < 2; k++)
			handoff[t][k] = malloc(BLOCKS / 4 * sizeof(void *));
	pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
	pthread_t tid[MAXT];
	double t0 = now();
	for (int t = 1; t < nthreads; t++)
		pthread_create(&tid[t], NULL, work, (void *)(intptr_t)t);
	work(0);
	for (int t = 1; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	double dt = now() - t0;
	uint64_t sum = 0;
	for (int t = 0; t < nthreads; t++)
		sum += sums[t];
	double ops = 2.0 * BLOCKS * rounds * nthreads;
	printf("malloc %d %.4f %.2f %llu\n", nthreads, dt, ops / dt * 1e-6, (unsigned long long)sum);
	return 0;
}
