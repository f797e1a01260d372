/* spmv - an OpenMP sparse matrix-vector product y = A x in CSR, rows
 * split statically among the threads.  A is a 27-point stencil on a
 * G x G x G grid (about 27 nonzeros a row, like HPCG's).
 *   spmv [G] [REPS]   prints "spmv THREADS SECONDS GFLOPS CHECKSUM" */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int g = argc > 1 ? atoi(argv[1]) : 64;
	int reps = argc > 2 ? atoi(argv[2]) : 20;
	long n = (long)g * g * g;
	int *rowptr = malloc((size_t)(n + 1) * sizeof *rowptr);
	int *col = malloc((size_t)n * 27 * sizeof *col);
	double *val = malloc((size_t)n * 27 * sizeof *val);
	double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
	if (!rowptr || !col || !val || !x || !y || reps < 1)
		return 1;
	long nnz = 0;
	for (long r = 0; r < n; r++) {
		int i = (int)(r / (g * g)), j = (int)(r / g % g), k = (int)(r % g);
		rowptr[r] = (int)nnz;
		for (int di = -1; di <= 1; di++)
			for (int dj = -1; dj <= 1; dj++)
				for (int dk = -1; dk <= 1; dk++) {
					int a = i + di, b = j + dj, c = k + dk;
					if (a < 0 || b < 0 || c < 0 || a >= g || b >= g || c >= g)
						continue;
					col[nnz] = (a * g + b) * g + c;
					val[nnz] = di == 0 && dj == 0 && dk == 0 ? 26.0 : -1.0;
					nnz++;
				}
	}
	rowptr[n] = (int)nnz;
#pragma omp parallel for schedule(static)
	for (long r = 0; r < n; r++) {
		x[r] = (double)(r % 10);
		y[r] = 0;
	}
	double best = 1e30;
	for (int rep = 0; rep < reps; rep++) {
		double t0 = omp_get_wtime();
		/* Restrict-qualified copies, as in triad.c. */
#pragma omp parallel
		{
			const int *restrict rp = rowptr, *restrict cl = col;
			const double *restrict v = val, *restrict xv = x;
			double *restrict yv = y;
#pragma omp for schedule(static)
			for (long r = 0; r < n; r++) {
				double s = 0;
				for (int p = rp[r]; p < rp[r + 1]; p++)
					s += v[p] * xv[cl[p]];
				yv[r] = s;
			}
		}
		double dt = omp_get_wtime() - t0;
		if (dt < best)
			best = dt;
	}
	double sum = 0;
	for (long r = 0; r < n; r++)
		sum += y[r];
	printf("spmv %d %.6f %.3f %.0f\n", omp_get_max_threads(), best,
	       2.0 * (double)nnz / best * 1e-9, sum);
	return 0;
}
