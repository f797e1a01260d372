/* hpcg_spmv - HPCG's sparse matrix-vector product (hpcg.h) on a 48^3
 * 27-point stencil matrix, ITERS products per repetition, y fed back as x
 * (scaled, so it stays bounded). */
#include "hpcg.h"

#define NG 48
#define ITERS 20

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 8);
	hpcg_mat A;
	hpcg_generate(&A, NG, NG, NG);
	int n = A.nrows;
	double *x = bench_alloc((size_t)n * sizeof(double), "x");
	double *y = bench_alloc((size_t)n * sizeof(double), "y");
	/* A warm-up product, as HPCG makes one before timing.  It also gives
	 * hpcg_spmv a second caller: binaryen's wasm-opt (which clang runs
	 * after linking) inlines a function with one caller whatever its
	 * noinline, and inlined into main the loop lands in a function of
	 * 2000 lines, unlike native code and unlike HPCG's own. */
	for (int i = 0; i < n; i++)
		x[i] = 1.0;
	hpcg_spmv(&A, x, y);
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < n; i++)
			x[i] = 1.0 + (double)(i % 7) * 0.125;
		bench_start(&tm);
		for (int it = 0; it < ITERS; it++) {
			hpcg_spmv(&A, x, y);
			for (int i = 0; i < n; i++)
				x[i] = y[i] * (1.0 / 32.0);
		}
		bench_stop(&tm);
	}
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += x[i] * (double)(i % 5 + 1);
	bench_report("hpcg_spmv", &tm, bench_bits(sum), sum);
	free(x); free(y);
	hpcg_free(&A);
	return 0;
}
