/* fib - naive doubly recursive Fibonacci: call and return overhead. */
#include "bench.h"

static volatile int fib_n = 39;

static uint32_t fib(int n)
{
	return n < 2 ? (uint32_t)n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 10);
	uint32_t v = 0;
	double best = 1e30;
	for (int r = 0; r < reps; r++) {
		int n = fib_n;
		double t0 = bench_now();
		v = fib(n);
		double t = bench_now() - t0;
		if (t < best)
			best = t;
	}
	bench_report("fib", best, reps, bench_hash(BENCH_HASH_INIT, v), (double)v);
	return 0;
}
