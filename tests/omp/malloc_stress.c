/* malloc_stress - the threaded allocator under load: many threads, blocks
 * freed by another thread, threads that end with blocks still out,
 * realloc, alignment, calloc.  Prints one line per part and "malloc_stress
 * ok"; exits non-zero at the first wrong answer, saying what it was.
 * Built natively against libmpiwasm-malloc (which then replaces glibc's
 * malloc) and with mpiwasm-cc -pthread. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 8
#define ROUNDS   20000
#define SLOTS    256

static void fail(const char *what, long a, long b)
{
	printf("malloc_stress: FAIL %s (%ld, %ld)\n", what, a, b);
	fflush(stdout);
	exit(1);
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void fill(unsigned char *p, size_t n, unsigned char tag)
{
	for (size_t i = 0; i < n; i += 61)
		p[i] = (unsigned char)(tag + i);
	if (n)
		p[n - 1] = tag;
}

static void check(const unsigned char *p, size_t n, unsigned char tag)
{
	for (size_t i = 0; i < n; i += 61)
		if (i != n - 1 && p[i] != (unsigned char)(tag + i))
			fail("block contents changed", (long)i, (long)n);
	if (n && p[n - 1] != tag)
		fail("block tail changed", (long)n, p[n - 1]);
}

/* Size mix: mostly small, some up to 20 KB, a few large. */
static size_t pick_size(uint32_t *s)
{
	uint32_t r = rnd(s);
	switch (r % 16) {
	case 0: return 8193 + r % 100000;
	case 1: case 2: return 1 + r % 8192;
	default: return 1 + r % 256;
	}
}

/* Part 1: private churn in every thread at once. */
static void *churn(void *arg)
{
	uint32_t seed = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
	unsigned char *slot[SLOTS] = {0};
	size_t len[SLOTS] = {0};
	for (int r = 0; r < ROUNDS; r++) {
		int i = (int)(rnd(&seed) % SLOTS);
		if (slot[i]) {
			check(slot[i], len[i], (unsigned char)i);
			free(slot[i]);
		}
		len[i] = pick_size(&seed);
		slot[i] = malloc(len[i]);
		if (!slot[i])
			fail("malloc returned NULL", (long)len[i], 0);
		if (malloc_usable_size(slot[i]) < len[i])
			fail("usable size below the request", (long)malloc_usable_size(slot[i]), (long)len[i]);
		if ((uintptr_t)slot[i] % 16)
			fail("block not 16-aligned", (long)len[i], 0);
		fill(slot[i], len[i], (unsigned char)i);
	}
	for (int i = 0; i < SLOTS; i++) {
		if (slot[i])
			check(slot[i], len[i], (unsigned char)i);
		free(slot[i]);
	}
	return NULL;
}

/* Part 2: each thread allocates into a ring that the next thread frees. */
#define RING 64
struct ring {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *item[RING];
	size_t len[RING];
	int head, tail, done;
};
static struct ring rings[NTHREADS];
static int nring;

static void ring_put(struct ring *q, void *p, size_t n)
{
	pthread_mutex_lock(&q->mu);
	while (q->head - q->tail == RING)
		pthread_cond_wait(&q->cv, &q->mu);
	q->item[q->head % RING] = p;
	q->len[q->head % RING] = n;
	q->head++;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

static void *ring_get(struct ring *q, size_t *n)
{
	pthread_mutex_lock(&q->mu);
	while (q->head == q->tail && !q->done)
		pthread_cond_wait(&q->cv, &q->mu);
	void *p = NULL;
	if (q->head != q->tail) {
		p = q->item[q->tail % RING];
		*n = q->len[q->tail % RING];
		q->tail++;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return p;
}

static void *pass(void *arg)
{
	int me = (int)(intptr_t)arg;
	uint32_t seed = (uint32_t)me * 7919u + 3;
	struct ring *out = &rings[me], *in = &rings[(me + nring - 1) % nring];
	int got = 0;
	for (int r = 0; r < ROUNDS / 4; r++) {
		size_t n = pick_size(&seed);
		unsigned char *p = malloc(n);
		if (!p)
			fail("malloc returned NULL", (long)n, 0);
		fill(p, n, (unsigned char)n);
		ring_put(out, p, n);
		/* Keep the inbound ring drained so that nobody blocks. */
		for (;;) {
			pthread_mutex_lock(&in->mu);
			int avail = in->head != in->tail;
			pthread_mutex_unlock(&in->mu);
			if (!avail)
				break;
			size_t m;
			unsigned char *q = ring_get(in, &m);
			check(q, m, (unsigned char)m);
			free(q);
			got++;
		}
	}
	pthread_mutex_lock(&out->mu);
	out->done = 1;
	pthread_cond_broadcast(&out->cv);
	pthread_mutex_unlock(&out->mu);
	size_t m;
	unsigned char *q;
	while ((q = ring_get(in, &m))) {
		check(q, m, (unsigned char)m);
		free(q);
		got++;
	}
	if (got != ROUNDS / 4)
		fail("cross-thread blocks received", got, ROUNDS / 4);
	return NULL;
}

/* Part 3: short-lived threads leave blocks behind for main to free. */
#define LEFT 200
static void *leave(void *arg)
{
	void **out = arg;
	for (int i = 0; i < LEFT; i++) {
		out[i] = malloc((size_t)(16 + i * 3));
		memset(out[i], i, (size_t)(16 + i * 3));
	}
	return NULL;
}

static void run(void *(*fn)(void *), int n, const char *name)
{
	pthread_t t[NTHREADS];
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i) != 0)
			fail("pthread_create", i, 0);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%s: %d threads ok\n", name, n);
}

int main(void)
{
#ifdef EXPECT_MPIWASM_MALLOC
	/* The project's size classes: 100 bytes is a 112-byte block (glibc
	 * would say 104), so the replacement really is in use. */
	void *probe = malloc(100);
	if (malloc_usable_size(probe) != 112)
		fail("libmpiwasm-malloc not in use: usable(100)", (long)malloc_usable_size(probe), 112);
	free(probe);
#endif
	run(churn, NTHREADS, "churn");

	nring = NTHREADS;
	for (int i = 0; i < NTHREADS; i++) {
		pthread_mutex_init(&rings[i].mu, NULL);
		pthread_cond_init(&rings[i].cv, NULL);
	}
	run(pass, NTHREADS, "cross-thread free");

	static void *left[50][LEFT];
	for (int k = 0; k < 50; k++) {
		pthread_t t;
		pthread_create(&t, NULL, leave, left[k]);
		pthread_join(t, NULL);
	}
	for (int k = 0; k < 50; k++)
		for (int i = 0; i < LEFT; i++) {
			unsigned char *p = left[k][i];
			if (p[0] != (unsigned char)i || p[15 + i * 3] != (unsigned char)i)
				fail("block of an ended thread changed", k, i);
			free(p);
		}
	printf("ended threads: 50 x %d blocks freed by main ok\n", LEFT);

	/* realloc keeps the contents through every size range. */
	unsigned char *p = NULL;
	size_t n = 0;
	for (size_t m = 1; m < 300000; m = m * 3 / 2 + 1) {
		p = realloc(p, m);
		if (!p)
			fail("realloc returned NULL", (long)m, 0);
		for (size_t i = 0; i < n && i < m; i++)
			if (p[i] != (unsigned char)(i * 7))
				fail("realloc lost a byte", (long)i, (long)m);
		for (size_t i = 0; i < m; i++)
			p[i] = (unsigned char)(i * 7);
		n = m;
	}
	p = realloc(p, 10);
	for (size_t i = 0; i < 10; i++)
		if (p[i] != (unsigned char)(i * 7))
			fail("realloc shrink lost a byte", (long)i, 10);
	free(p);
	printf("realloc: contents kept growing to 300000 and shrinking ok\n");

	/* Every power-of-two alignment, small and large. */
	for (size_t a = sizeof(void *); a <= ((size_t)1 << 18); a *= 2) {
		size_t sizes[] = {1, 100, 5000, 70000};
		for (int k = 0; k < 4; k++) {
			void *q = NULL;
			if (posix_memalign(&q, a, sizes[k]) != 0 || !q)
				fail("posix_memalign failed", (long)a, (long)sizes[k]);
			if ((uintptr_t)q % a)
				fail("posix_memalign misaligned", (long)a, (long)sizes[k]);
			memset(q, 0x5a, sizes[k]);
			if (malloc_usable_size(q) < sizes[k])
				fail("aligned usable size", (long)a, (long)sizes[k]);
			void *r = aligned_alloc(a, sizes[k]);
			if (!r || (uintptr_t)r % a)
				fail("aligned_alloc misaligned", (long)a, (long)sizes[k]);
			memset(r, 0xa5, sizes[k]);
			free(q);
			free(r);
		}
	}
	void *q = (void *)1;
	if (posix_memalign(&q, 24, 10) != EINVAL || q != (void *)1)
		fail("posix_memalign accepted alignment 24", 0, 0);
	printf("alignment: 8 to 262144 ok, 24 refused\n");

	/* calloc: overflow is ENOMEM, reused memory comes back zeroed. */
	/* Results kept in volatile variables, errno read through a volatile
	 * pointer: clang deletes an allocation whose result is only compared
	 * with NULL (taking it to succeed), and takes malloc to touch no
	 * memory the program sees, while in wasm errno is a plain global. */
	volatile size_t half = SIZE_MAX / 2, huge = SIZE_MAX - 1000;
	int *volatile err = &errno;
	void *volatile res;
	*err = 0;
	res = calloc(half, 3);
	if (res != NULL || *err != ENOMEM)
		fail("calloc overflow", *err, 0);
	*err = 0;
	res = malloc(huge);
	if (res != NULL || *err != ENOMEM)
		fail("huge malloc", *err, 0);
	for (int k = 0; k < 3; k++) {
		size_t m = k == 2 ? 100000 : 200;
		unsigned char *d = malloc(m);
		memset(d, 0xff, m);
		free(d);
		d = calloc(m, 1);
		for (size_t i = 0; i < m; i++)
			if (d[i])
				fail("calloc not zeroed", (long)m, (long)i);
		free(d);
	}
	printf("calloc: overflow ENOMEM, zeroed ok\n");
	printf("malloc_stress ok\n");
	return 0;
}
