/* spmv - y = A*x for a CSR sparse matrix with a band of random columns per
 * row (NNZ_ROW entries within +-BAND of the diagonal), repeated ITERS times
 * with y fed back as the next x (scaled to stay bounded). */
#include "bench.h"

#define NROWS 200000
#define NNZ_ROW 27
#define BAND 2000
#define ITERS 20

BENCH_HOT static void spmv(int n, const int *rowptr, const int *col, const double *val,
                 const double *x, double *y)
{
	for (int i = 0; i < n; i++) {
		double sum = 0;
		for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
			sum += val[p] * x[col[p]];
		y[i] = sum;
	}
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 10);
	int nnz = NROWS * NNZ_ROW;
	int *rowptr = bench_alloc((NROWS + 1) * sizeof(int), "rowptr");
	int *col = bench_alloc((size_t)nnz * sizeof(int), "col");
	double *val = bench_alloc((size_t)nnz * sizeof(double), "val");
	double *x = bench_alloc(NROWS * sizeof(double), "x");
	double *y = bench_alloc(NROWS * sizeof(double), "y");
	uint64_t s = 2718281828;
	int p = 0;
	for (int i = 0; i < NROWS; i++) {
		rowptr[i] = p;
		for (int k = 0; k < NNZ_ROW; k++) {
			int c = i - BAND + (int)(bench_rand(&s) % (2 * BAND + 1));
			if (c < 0)
				c = -c;
			if (c >= NROWS)
				c = 2 * NROWS - 2 - c;
			col[p] = c;
			/* Row sums below 1 in magnitude keep the iteration bounded. */
			val[p] = ((double)(bench_rand(&s) % 2001) - 1000.0) / (1000.0 * NNZ_ROW);
			p++;
		}
	}
	rowptr[NROWS] = p;
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < NROWS; i++)
			x[i] = 1.0 + (double)(i % 10) * 0.1;
		bench_start(&tm);
		for (int it = 0; it < ITERS; it++) {
			spmv(NROWS, rowptr, col, val, x, y);
			double *t = x; x = y; y = t;
		}
		bench_stop(&tm);
	}
	double sum = 0;
	for (int i = 0; i < NROWS; i++)
		sum += x[i] * (double)(i % 3 + 1);
	bench_report("spmv", &tm, bench_bits(sum), sum);
	free(rowptr); free(col); free(val); free(x); free(y);
	return 0;
}
