/* verify - IOR's read-back check (-R): every 64-bit word of a transfer
 * buffer compared with the pattern IOR writes (a per-rank seed mixed with
 * the word's file offset), mismatches counted.  A few words are corrupted
 * so the count is not zero. */
#include "bench.h"

#define WORDS (4u << 20)        /* 32 MiB buffer */
#define PASSES 16

static uint64_t pattern(uint64_t seed, uint64_t off)
{
	return seed ^ (off << 3);
}

/* The seed is read anew for every pass, so the C compiler cannot merge
 * the passes (the check is otherwise a pure function of its arguments). */
static volatile uint64_t seed_v = 0x5a5a000000000001ull;

BENCH_HOT static uint64_t check(const uint64_t *buf, size_t n, uint64_t seed, uint64_t off0)
{
	uint64_t errors = 0;
	for (size_t i = 0; i < n; i++)
		if (buf[i] != pattern(seed, off0 + i))
			errors++;
	return errors;
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 8);
	uint64_t *buf = bench_alloc(WORDS * sizeof(uint64_t), "buf");
	uint64_t seed = seed_v, h = BENCH_HASH_INIT;
	for (size_t i = 0; i < WORDS; i++)
		buf[i] = pattern(seed, 1000 + i);
	uint64_t s = 7;
	for (int k = 0; k < 100; k++)
		buf[bench_rand(&s) % WORDS] ^= 1ull << (k % 64);
	bench_timer tm = BENCH_TIMER_INIT;
	uint64_t errs = 0;
	for (int r = 0; r < reps; r++) {
		bench_start(&tm);
		errs = 0;
		for (int p = 0; p < PASSES; p++)
			errs += check(buf, WORDS, seed_v, 1000);
		bench_stop(&tm);
	}
	h = bench_hash(h, errs);
	bench_report("verify", &tm, h, (double)errs);
	free(buf);
	return 0;
}
