/* triad - the STREAM triad a[i] = b[i] + s*c[i] over arrays much larger
 * than the caches; reports time, the runner turns it into a ratio. */
#include "bench.h"

#define N (1 << 23)
#define PASSES 10

BENCH_HOT static void triad(int n, double *a, const double *b, const double *c, double s)
{
	for (int i = 0; i < n; i++)
		a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 10);
	size_t bytes = (size_t)N * sizeof(double);
	double *a = bench_alloc(bytes, "a"), *b = bench_alloc(bytes, "b");
	double *c = bench_alloc(bytes, "c");
	for (int i = 0; i < N; i++) {
		a[i] = 0;
		b[i] = (double)(i % 1024) * 0.5;
		c[i] = (double)(i % 777) * 0.25;
	}
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		bench_start(&tm);
		for (int p = 0; p < PASSES; p++)
			triad(N, a, b, c, 3.0 + p);
		bench_stop(&tm);
	}
	double sum = 0;
	for (int i = 0; i < N; i++)
		sum += a[i];
	fprintf(stderr, "triad: %.2f GB/s\n",
	        3.0 * (double)bytes * PASSES / tm.best / 1e9);
	bench_report("triad", &tm, bench_bits(sum), sum);
	free(a); free(b); free(c);
	return 0;
}
