/* hpcg_cg - the HPCG-shaped miniapp: preconditioned conjugate gradients on
 * the 27-point matrix of hpcg.h (32^3), one symmetric Gauss-Seidel sweep as
 * the preconditioner (HPCG's multigrid without the coarse levels), dot
 * products and WAXPBYs as HPCG writes them. */
#include "hpcg.h"

#define NG 32
#define CG_ITERS 25

static double cg(const hpcg_mat *A, const double *b, double *x, double *r, double *z,
                 double *p, double *Ap)
{
	int n = A->nrows;
	memset(x, 0, (size_t)n * sizeof(double));
	memcpy(p, x, (size_t)n * sizeof(double));
	hpcg_spmv(A, p, Ap);
	hpcg_waxpby(n, 1.0, b, -1.0, Ap, r);
	double rtz = 0, oldrtz, normr = hpcg_dot(n, r, r);
	for (int k = 1; k <= CG_ITERS; k++) {
		memset(z, 0, (size_t)n * sizeof(double));
		hpcg_symgs(A, r, z);
		if (k == 1) {
			hpcg_waxpby(n, 1.0, z, 0.0, z, p);
			rtz = hpcg_dot(n, r, z);
		} else {
			oldrtz = rtz;
			rtz = hpcg_dot(n, r, z);
			hpcg_waxpby(n, 1.0, z, rtz / oldrtz, p, p);
		}
		hpcg_spmv(A, p, Ap);
		double alpha = rtz / hpcg_dot(n, p, Ap);
		hpcg_waxpby(n, 1.0, x, alpha, p, x);
		hpcg_waxpby(n, 1.0, r, -alpha, Ap, r);
		normr = hpcg_dot(n, r, r);
	}
	return normr;
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 5);
	hpcg_mat A;
	hpcg_generate(&A, NG, NG, NG);
	int n = A.nrows;
	double *v[6];
	for (int k = 0; k < 6; k++)
		v[k] = bench_alloc((size_t)n * sizeof(double), "cg vector");
	double *b = v[0];
	/* b = A * ones, as HPCG sets it up (exact solution: all ones) */
	for (int i = 0; i < n; i++)
		b[i] = 26.0 - (double)(A.nnz_in_row[i] - 1);
	double normr = 0;
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		bench_start(&tm);
		normr = cg(&A, b, v[1], v[2], v[3], v[4], v[5]);
		bench_stop(&tm);
	}
	double sum = normr;
	for (int i = 0; i < n; i++)
		sum += v[1][i] * (double)(i % 5 + 1);
	bench_report("hpcg_cg", &tm, bench_bits(sum), sum);
	for (int k = 0; k < 6; k++)
		free(v[k]);
	hpcg_free(&A);
	return 0;
}
