/* hpcg_symgs - HPCG's symmetric Gauss-Seidel sweep (hpcg.h) on a 48^3
 * 27-point stencil matrix, SWEEPS sweeps per repetition. */
#include "hpcg.h"

#define NG 48
#define SWEEPS 8

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 8);
	hpcg_mat A;
	hpcg_generate(&A, NG, NG, NG);
	int n = A.nrows;
	double *r = bench_alloc((size_t)n * sizeof(double), "r");
	double *x = bench_alloc((size_t)n * sizeof(double), "x");
	for (int i = 0; i < n; i++)
		r[i] = 26.0 - (double)(A.nnz_in_row[i] - 1) + (double)(i % 11) * 0.01;
	/* a warm-up sweep (and a second caller: see hpcg_spmv.c) */
	memset(x, 0, (size_t)n * sizeof(double));
	hpcg_symgs(&A, r, x);
	bench_timer tm = BENCH_TIMER_INIT;
	for (int rep = 0; rep < reps; rep++) {
		memset(x, 0, (size_t)n * sizeof(double));
		bench_start(&tm);
		for (int s = 0; s < SWEEPS; s++)
			hpcg_symgs(&A, r, x);
		bench_stop(&tm);
	}
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += x[i] * (double)(i % 5 + 1);
	bench_report("hpcg_symgs", &tm, bench_bits(sum), sum);
	free(r); free(x);
	hpcg_free(&A);
	return 0;
}
