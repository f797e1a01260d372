/* gather - gather and scatter through an index array (a permutation with
 * some locality, as after a mesh reordering): y[i] = a*x[idx[i]] + y[i],
 * then z[idx[i]] += y[i]. */
#include "bench.h"

#define N (1 << 20)
#define PASSES 20

BENCH_HOT static void gather(int n, const int *idx, double a, const double *x, double *y)
{
	for (int i = 0; i < n; i++)
		y[i] = a * x[idx[i]] + y[i];
}

BENCH_HOT static void scatter(int n, const int *idx, const double *y, double *z)
{
	for (int i = 0; i < n; i++)
		z[idx[i]] += y[i];
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 8);
	int *idx = bench_alloc(N * sizeof(int), "idx");
	double *x = bench_alloc(N * sizeof(double), "x");
	double *y = bench_alloc(N * sizeof(double), "y");
	double *z = bench_alloc(N * sizeof(double), "z");
	uint64_t s = 12345;
	for (int i = 0; i < N; i++)
		idx[i] = i;
	/* shuffle within windows of 4096: local but unpredictable */
	for (int i = 0; i < N; i++) {
		int w = i & ~4095, j = w + (int)(bench_rand(&s) % 4096);
		int t = idx[i]; idx[i] = idx[j]; idx[j] = t;
	}
	for (int i = 0; i < N; i++)
		x[i] = (double)(i % 17) * 0.25;
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < N; i++) {
			y[i] = 1.0;
			z[i] = 0.0;
		}
		bench_start(&tm);
		for (int p = 0; p < PASSES; p++) {
			gather(N, idx, 0.5, x, y);
			scatter(N, idx, y, z);
		}
		bench_stop(&tm);
	}
	double sum = 0;
	for (int i = 0; i < N; i++)
		sum += z[i] * (double)(i % 3 + 1);
	bench_report("gather", &tm, bench_bits(sum), sum);
	free(idx); free(x); free(y); free(z);
	return 0;
}
