/* jacobi - 2-D five-point Jacobi sweeps on an N x N grid with a fixed
 * boundary, ping-ponging between two grids. */
#include "bench.h"

#define N 2048
#define SWEEPS 20

BENCH_HOT static void sweep(int n, const double *u, double *v)
{
	for (int i = 1; i < n - 1; i++)
		for (int j = 1; j < n - 1; j++)
			v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
			                       u[i * n + j - 1] + u[i * n + j + 1]);
}

static void init(int n, double *u)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			u[i * n + j] = (i == 0 || j == 0) ? 1.0 :
			               (i == n - 1 || j == n - 1) ? -1.0 :
			               (double)((i * 31 + j * 17) % 100) / 100.0;
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 8);
	size_t bytes = (size_t)N * N * sizeof(double);
	double *u = bench_alloc(bytes, "u"), *v = bench_alloc(bytes, "v");
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		init(N, u);
		memcpy(v, u, bytes);
		bench_start(&tm);
		for (int s = 0; s < SWEEPS; s += 2) {
			sweep(N, u, v);
			sweep(N, v, u);
		}
		bench_stop(&tm);
	}
	double sum = 0;
	for (int i = 0; i < N * N; i++)
		sum += u[i];
	bench_report("jacobi", &tm, bench_bits(sum), sum);
	free(u); free(v);
	return 0;
}
