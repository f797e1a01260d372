/* search - a loop with an early exit: for each query, scan a sorted run
 * of keys for the first key not below it (a linear lower_bound, as in
 * table lookups and sparse-row searches); the exit point varies. */
#include "bench.h"

#define NKEYS 4096
#define NQ (1 << 16)
#define PASSES 4

BENCH_HOT static uint64_t lookup(const uint32_t *keys, int n, const uint32_t *q, int nq)
{
	uint64_t acc = 0;
	for (int k = 0; k < nq; k++) {
		uint32_t v = q[k];
		int i = 0;
		while (i < n && keys[i] < v)
			i++;
		acc += (uint64_t)i * (uint64_t)(k + 1);
	}
	return acc;
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 6);
	uint32_t *keys = bench_alloc(NKEYS * sizeof(uint32_t), "keys");
	uint32_t *q = bench_alloc(NQ * sizeof(uint32_t), "queries");
	uint64_t s = 31337;
	uint32_t kv = 0;
	for (int i = 0; i < NKEYS; i++) {
		kv += 1 + bench_rand(&s) % 64;
		keys[i] = kv;
	}
	/* most queries fall in the first eighth: short, varying scans */
	for (int i = 0; i < NQ; i++)
		q[i] = bench_rand(&s) % (kv / 8 + 1);
	bench_timer tm = BENCH_TIMER_INIT;
	uint64_t h = 0;
	for (int r = 0; r < reps; r++) {
		bench_start(&tm);
		h = BENCH_HASH_INIT;
		for (int p = 0; p < PASSES; p++)
			h = bench_hash(h, lookup(keys, NKEYS, q, NQ));
		bench_stop(&tm);
	}
	bench_report("search", &tm, h, (double)(h >> 11));
	free(keys); free(q);
	return 0;
}
