/* isort - integer bucket sort in the manner of NPB IS: keys with a roughly
 * Gaussian distribution are scattered into buckets by their high bits,
 * then ranked by counting within each bucket.  The last repetition's
 * ranks are used to place every key, and the result must be sorted. */
#include "bench.h"

#define NKEYS (1 << 23)
#define MAXKEY_LOG 19
#define MAXKEY (1 << MAXKEY_LOG)
#define NBUCKET_LOG 10
#define NBUCKET (1 << NBUCKET_LOG)
#define SHIFT (MAXKEY_LOG - NBUCKET_LOG)

static int *keys, *keys2, *ranks, *count, *sorted;
static int bsize[NBUCKET], bptr[NBUCKET];

BENCH_HOT static void rank(void)
{
	memset(bsize, 0, sizeof bsize);
	for (int i = 0; i < NKEYS; i++)
		bsize[keys[i] >> SHIFT]++;
	bptr[0] = 0;
	for (int b = 1; b < NBUCKET; b++)
		bptr[b] = bptr[b - 1] + bsize[b - 1];
	for (int i = 0; i < NKEYS; i++) {
		int k = keys[i];
		keys2[bptr[k >> SHIFT]++] = k;
	}
	/* Count each key value bucket by bucket; count[k] becomes the number of
	 * keys <= k, i.e. one past the last rank of key k. */
	int base = 0;
	for (int b = 0; b < NBUCKET; b++) {
		int lo = b << SHIFT, hi = lo + (1 << SHIFT);
		int end = bptr[b], start = end - bsize[b];
		for (int k = lo; k < hi; k++)
			count[k] = 0;
		for (int i = start; i < end; i++)
			count[keys2[i]]++;
		int run = base;
		for (int k = lo; k < hi; k++) {
			run += count[k];
			count[k] = run;
		}
		base = run;
	}
	for (int i = 0; i < NKEYS; i++)
		ranks[i] = --count[keys[i]];
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 20);
	keys = bench_alloc(NKEYS * sizeof(int), "keys");
	keys2 = bench_alloc(NKEYS * sizeof(int), "keys2");
	ranks = bench_alloc(NKEYS * sizeof(int), "ranks");
	sorted = bench_alloc(NKEYS * sizeof(int), "sorted");
	count = bench_alloc(MAXKEY * sizeof(int), "count");
	uint64_t s = 314159265;
	for (int i = 0; i < NKEYS; i++) {
		uint32_t x = 0;
		for (int j = 0; j < 4; j++)
			x += bench_rand(&s) >> (32 - MAXKEY_LOG + 2);
		keys[i] = (int)x;
	}
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		/* As NPB IS does, perturb two keys each iteration. */
		keys[r] = r;
		keys[r + 64] = MAXKEY - 1 - r;
		bench_start(&tm);
		rank();
		bench_stop(&tm);
	}
	for (int i = 0; i < NKEYS; i++)
		sorted[ranks[i]] = keys[i];
	uint64_t h = BENCH_HASH_INIT;
	for (int i = 0; i < NKEYS; i++) {
		if (i > 0 && sorted[i - 1] > sorted[i]) {
			fprintf(stderr, "isort: keys not sorted at %d (%d > %d)\n",
			        i, sorted[i - 1], sorted[i]);
			return 1;
		}
		if ((i & 1023) == 0)
			h = bench_hash(h, (uint64_t)sorted[i]);
	}
	h = bench_hash(h, (uint64_t)ranks[12345] | (uint64_t)ranks[NKEYS - 7] << 32);
	bench_report("isort", &tm, h, (double)sorted[NKEYS / 2]);
	free(keys); free(keys2); free(ranks); free(sorted); free(count);
	return 0;
}
