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
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		int n = fib_n;
		bench_start(&tm);
		v = fib(n);
		bench_stop(&tm);
	}
	bench_report("fib", &tm, bench_hash(BENCH_HASH_INIT, v), (double)v);
	return 0;
}
