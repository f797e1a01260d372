/* mallocbench - a malloc-heavy threaded benchmark.  Each of T threads
 * keeps a window of 512 live blocks (16 to 512 bytes, touched) and, OPS
 * times, replaces a random one: frees it and allocates a new one.  One
 * freed block in four is not freed by its thread but handed to the next
 * thread (thread 0 to itself when alone) through a lock-free
 * single-producer single-consumer ring, and freed there: cross-thread
 * frees.  No barrier inside the timed part, so a thread that the machine
 * deschedules for a while does not stall the others.  Work per thread is
 * fixed: ideal scaling keeps the time constant as T grows.
 *
 *   mallocbench THREADS [OPS]
 * prints "malloc THREADS SECONDS MOPS CHECKSUM CPUSECONDS" (operations:
 * mallocs and frees, all threads; CPU time of all threads, user and
 * system: on a machine shared with other jobs it shows what the work
 * cost where the elapsed time also shows waiting for a core). */
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW 512
#define RING   4096           /* a power of two */
#define MAXT   64

struct ring {
	_Alignas(64) atomic_uint head;   /* written by the producer */
	_Alignas(64) atomic_uint tail;   /* written by the consumer */
	_Alignas(64) void *slot[RING];
	atomic_int done;
};

static int nthreads;
static long ops;
static struct ring *rings;
static uint64_t sums[MAXT];
static atomic_int ready;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Frees what has arrived; returns how many. */
static long drain(struct ring *in, uint64_t *sum)
{
	unsigned t = atomic_load_explicit(&in->tail, memory_order_relaxed);
	unsigned h = atomic_load_explicit(&in->head, memory_order_acquire);
	for (unsigned k = t; k != h; k++) {
		unsigned char *p = in->slot[k % RING];
		*sum += p[0];
		free(p);
	}
	atomic_store_explicit(&in->tail, h, memory_order_release);
	return (long)(h - t);
}

static void *work(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct ring *out = &rings[(me + 1) % nthreads], *in = &rings[me];
	uint32_t seed = 2463534242u + (uint32_t)me * 7919u;
	unsigned char *win[WINDOW];
	uint64_t sum = 0;
	for (int i = 0; i < WINDOW; i++) {
		win[i] = malloc(16);
		win[i][0] = 1;
	}
	atomic_fetch_add(&ready, 1);
	while (atomic_load(&ready) < nthreads)
		sched_yield();
	for (long k = 0; k < ops; k++) {
		seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
		int i = (int)(seed % WINDOW);
		unsigned char *old = win[i];
		if ((seed >> 16) % 4 == 0) {
			unsigned h = atomic_load_explicit(&out->head, memory_order_relaxed);
			while (h - atomic_load_explicit(&out->tail, memory_order_acquire) == RING) {
				if (out == in)
					drain(in, &sum);
				else
					sched_yield();
			}
			out->slot[h % RING] = old;
			atomic_store_explicit(&out->head, h + 1, memory_order_release);
		} else {
			sum += old[0];
			free(old);
		}
		size_t n = 16 + ((seed >> 8) & 496);
		unsigned char *p = malloc(n);
		p[0] = (unsigned char)k;
		p[n - 1] = (unsigned char)i;
		win[i] = p;
		if ((k & 63) == 0)
			drain(in, &sum);
	}
	atomic_store(&out->done, 1);
	/* The previous thread may still be sending. */
	while (!atomic_load(&in->done) || atomic_load(&in->head) != atomic_load(&in->tail))
		if (drain(in, &sum) == 0)
			sched_yield();
	for (int i = 0; i < WINDOW; i++) {
		sum += win[i][0];
		free(win[i]);
	}
	sums[me] = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atoi(argv[1]) : 1;
	ops = argc > 2 ? atol(argv[2]) : 2000000;
	if (nthreads < 1 || nthreads > MAXT || ops < 1) {
		fprintf(stderr, "usage: mallocbench THREADS(1-%d) [OPS]\n", MAXT);
		return 2;
	}
	rings = aligned_alloc(64, (size_t)nthreads * sizeof *rings);
	memset(rings, 0, (size_t)nthreads * sizeof *rings);
	pthread_t tid[MAXT];
	double t0 = now();
	for (int t = 1; t < nthreads; t++)
		pthread_create(&tid[t], NULL, work, (void *)(intptr_t)t);
	work(0);
	for (int t = 1; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	double dt = now() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	uint64_t sum = 0;
	for (int t = 0; t < nthreads; t++)
		sum += sums[t];
	printf("malloc %d %.4f %.2f %llu %.4f\n", nthreads, dt, 2.0 * (double)ops * nthreads / dt * 1e-6,
	       (unsigned long long)sum, cpu);
	free(rings);
	return 0;
}
