/* hpcg.h - the matrix of HPCG 3.1, shared by the hpcg_* kernels: a 27-point
 * stencil on an NX*NY*NZ grid, stored as HPCG stores it (one pointer per
 * row to its values and column indices, the row length in its own array,
 * the diagonal through a pointer), so the generated loops have the real
 * code's shape: row bounds and bases loaded from memory, x[col[j]]
 * gathers, inner trip counts of 8 to 27. */
#ifndef HPCG_H
#define HPCG_H

#include "bench.h"

typedef struct hpcg_mat {
	int nrows;
	int *nnz_in_row;       /* 8..27 */
	int **inds;            /* inds[i]: column indices of row i */
	double **vals;         /* vals[i]: values of row i */
	double **diag;         /* diag[i]: &vals[i][k] for the diagonal */
	int *ind_pool;
	double *val_pool;
} hpcg_mat;

/* HPCG's GenerateProblem: 26 on the diagonal, -1 off it, for the planes
 * z0 .. z0+nz-1 of a grid nx x ny x gz (a rank's slab; the whole grid when
 * z0 = 0 and gz = nz).  Column c of row i is stored relative to the slab's
 * first row, so a neighbour's plane below is at -nx*ny..-1 and the one
 * above at n..n+nx*ny-1 (bench/mpi/cg.c indexes a vector with a ghost
 * plane on each side). */
__attribute__((unused)) static void hpcg_generate_slab(hpcg_mat *A, int nx, int ny, int nz,
                                                       int z0, int gz)
{
	int n = nx * ny * nz;
	A->nrows = n;
	A->nnz_in_row = bench_alloc((size_t)n * sizeof(int), "nnz_in_row");
	A->inds = bench_alloc((size_t)n * sizeof(int *), "inds");
	A->vals = bench_alloc((size_t)n * sizeof(double *), "vals");
	A->diag = bench_alloc((size_t)n * sizeof(double *), "diag");
	A->ind_pool = bench_alloc((size_t)n * 27 * sizeof(int), "ind_pool");
	A->val_pool = bench_alloc((size_t)n * 27 * sizeof(double), "val_pool");
	for (int iz = 0; iz < nz; iz++)
		for (int iy = 0; iy < ny; iy++)
			for (int ix = 0; ix < nx; ix++) {
				int row = (iz * ny + iy) * nx + ix, k = 0;
				int *ci = A->ind_pool + (size_t)row * 27;
				double *cv = A->val_pool + (size_t)row * 27;
				A->inds[row] = ci;
				A->vals[row] = cv;
				for (int sz = -1; sz <= 1; sz++)
					for (int sy = -1; sy <= 1; sy++)
						for (int sx = -1; sx <= 1; sx++) {
							int x = ix + sx, y = iy + sy, z = iz + sz;
							if (x < 0 || x >= nx || y < 0 || y >= ny ||
							    z0 + z < 0 || z0 + z >= gz)
								continue;
							int c = (z * ny + y) * nx + x;
							ci[k] = c;
							if (c == row) {
								cv[k] = 26.0;
								A->diag[row] = &cv[k];
							} else {
								cv[k] = -1.0;
							}
							k++;
						}
				A->nnz_in_row[row] = k;
			}
}

__attribute__((unused)) static void hpcg_generate(hpcg_mat *A, int nx, int ny, int nz)
{
	hpcg_generate_slab(A, nx, ny, nz, 0, nz);
}

static void hpcg_free(hpcg_mat *A)
{
	free(A->nnz_in_row); free(A->inds); free(A->vals); free(A->diag);
	free(A->ind_pool); free(A->val_pool);
}

/* The local part of a dot product (HPCG's ComputeDotProduct_ref before
 * its MPI_Allreduce). */
BENCH_HOT __attribute__((unused)) static double hpcg_dot(int n, const double *x, const double *y)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

/* HPCG's ComputeWAXPBY_ref: w = alpha x + beta y. */
BENCH_HOT __attribute__((unused)) static void hpcg_waxpby(int n, double alpha, const double *x,
                                                         double beta, const double *y, double *w)
{
	if (alpha == 1.0) {
		for (int i = 0; i < n; i++)
			w[i] = x[i] + beta * y[i];
	} else if (beta == 1.0) {
		for (int i = 0; i < n; i++)
			w[i] = alpha * x[i] + y[i];
	} else {
		for (int i = 0; i < n; i++)
			w[i] = alpha * x[i] + beta * y[i];
	}
}

/* HPCG's ComputeSPMV_ref. */
BENCH_HOT __attribute__((unused)) static void hpcg_spmv(const hpcg_mat *A, const double *x, double *y)
{
	for (int i = 0; i < A->nrows; i++) {
		const double *cur_vals = A->vals[i];
		const int *cur_inds = A->inds[i];
		const int cur_nnz = A->nnz_in_row[i];
		double sum = 0.0;
		for (int j = 0; j < cur_nnz; j++)
			sum += cur_vals[j] * x[cur_inds[j]];
		y[i] = sum;
	}
}

/* HPCG's ComputeSYMGS_ref: a forward and a backward Gauss-Seidel sweep. */
BENCH_HOT __attribute__((unused)) static void hpcg_symgs(const hpcg_mat *A, const double *r, double *x)
{
	const int n = A->nrows;
	for (int i = 0; i < n; i++) {
		const double *cur_vals = A->vals[i];
		const int *cur_inds = A->inds[i];
		const int cur_nnz = A->nnz_in_row[i];
		const double cur_diag = *A->diag[i];
		double sum = r[i];
		for (int j = 0; j < cur_nnz; j++)
			sum -= cur_vals[j] * x[cur_inds[j]];
		sum += x[i] * cur_diag;
		x[i] = sum / cur_diag;
	}
	for (int i = n - 1; i >= 0; i--) {
		const double *cur_vals = A->vals[i];
		const int *cur_inds = A->inds[i];
		const int cur_nnz = A->nnz_in_row[i];
		const double cur_diag = *A->diag[i];
		double sum = r[i];
		for (int j = 0; j < cur_nnz; j++)
			sum -= cur_vals[j] * x[cur_inds[j]];
		sum += x[i] * cur_diag;
		x[i] = sum / cur_diag;
	}
}

#endif
