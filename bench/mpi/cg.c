/* cg - the HPCG-shaped miniapp on MPI ranks: preconditioned conjugate
 * gradients on HPCG's 27-point matrix (hpcg.h's kernels), the grid split
 * into slabs along z, one slab of NG^3 points per rank (weak scaling, as
 * HPCG runs).  Each SpMV and each Gauss-Seidel sweep first exchanges one
 * ghost plane with each neighbour (MPI_Irecv/MPI_Send/MPI_Waitall), and
 * every dot product ends in an MPI_Allreduce: the communication pattern of
 * HPCG's CG without the multigrid's coarse levels.
 *
 * Built twice from this source (native mpicc and mpiwasm-cc); run.sh
 * compares the checksums (exact) and the times.  Prints, from rank 0:
 *
 *   BENCH kernel=cg_npN best_s=<slowest rank's best> cpu_s=<same, CPU>
 *         reps=<n> checksum=<hex> value=<residual>
 */
#include <mpi.h>
#include "../kernels/hpcg.h"

#define NG 32
#define CG_ITERS 25

typedef struct slab {
	hpcg_mat A;      /* rows of this rank; columns relative to its first row */
	int plane;       /* NG * NG: points per z plane */
	int rank, size;
} slab;

/* This rank's planes of HPCG's matrix over the global grid NG x NG x
 * (NG * size); columns relative to its first row (hpcg_generate_slab). */
static void slab_generate(slab *s)
{
	s->plane = NG * NG;
	hpcg_generate_slab(&s->A, NG, NG, NG, NG * s->rank, NG * s->size);
}

/* Fills the ghost planes of xg (plane | n owned | plane) from the
 * neighbours' boundary planes. */
static void halo(const slab *s, double *xg)
{
	int n = s->A.nrows, p = s->plane;
	MPI_Request rq[2];
	int nrq = 0;
	if (s->rank > 0)
		MPI_Irecv(xg, p, MPI_DOUBLE, s->rank - 1, 1, MPI_COMM_WORLD, &rq[nrq++]);
	if (s->rank < s->size - 1)
		MPI_Irecv(xg + p + n, p, MPI_DOUBLE, s->rank + 1, 0, MPI_COMM_WORLD, &rq[nrq++]);
	if (s->rank > 0)
		MPI_Send(xg + p, p, MPI_DOUBLE, s->rank - 1, 0, MPI_COMM_WORLD);
	if (s->rank < s->size - 1)
		MPI_Send(xg + n, p, MPI_DOUBLE, s->rank + 1, 1, MPI_COMM_WORLD);
	MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE);
}

static double dot(int n, const double *x, const double *y)
{
	double s = hpcg_dot(n, x, y), g;
	MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return g;
}

/* pg and zg are ghosted (plane | n | plane); the others are not. */
static double cg(const slab *s, const double *b, double *x, double *r, double *zg,
                 double *pg, double *Ap)
{
	const hpcg_mat *A = &s->A;
	int n = A->nrows, gl = n + 2 * s->plane;
	double *p = pg + s->plane, *z = zg + s->plane;
	memset(x, 0, (size_t)n * sizeof(double));
	memset(pg, 0, (size_t)gl * sizeof(double));
	halo(s, pg);
	hpcg_spmv(A, p, Ap);
	hpcg_waxpby(n, 1.0, b, -1.0, Ap, r);
	double rtz = 0, oldrtz, normr = dot(n, r, r);
	for (int k = 1; k <= CG_ITERS; k++) {
		memset(zg, 0, (size_t)gl * sizeof(double));
		halo(s, zg);
		hpcg_symgs(A, r, z);
		if (k == 1) {
			hpcg_waxpby(n, 1.0, z, 0.0, z, p);
			rtz = dot(n, r, z);
		} else {
			oldrtz = rtz;
			rtz = dot(n, r, z);
			hpcg_waxpby(n, 1.0, z, rtz / oldrtz, p, p);
		}
		halo(s, pg);
		hpcg_spmv(A, p, Ap);
		double alpha = rtz / dot(n, p, Ap);
		hpcg_waxpby(n, 1.0, x, alpha, p, x);
		hpcg_waxpby(n, 1.0, r, -alpha, Ap, r);
		normr = dot(n, r, r);
	}
	return normr;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	slab s;
	MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &s.size);
	int reps = bench_reps(argc, argv, 5);
	slab_generate(&s);
	int n = s.A.nrows, gl = n + 2 * s.plane;
	double *b = bench_alloc((size_t)n * sizeof(double), "b");
	double *x = bench_alloc((size_t)n * sizeof(double), "x");
	double *r = bench_alloc((size_t)n * sizeof(double), "r");
	double *Ap = bench_alloc((size_t)n * sizeof(double), "Ap");
	double *zg = bench_alloc((size_t)gl * sizeof(double), "z");
	double *pg = bench_alloc((size_t)gl * sizeof(double), "p");
	/* b = A * ones (exact solution: all ones), as HPCG sets it up. */
	for (int i = 0; i < n; i++)
		b[i] = 26.0 - (double)(s.A.nnz_in_row[i] - 1);
	double normr = 0;
	bench_timer tm = BENCH_TIMER_INIT;
	for (int k = 0; k < reps; k++) {
		MPI_Barrier(MPI_COMM_WORLD);
		bench_start(&tm);
		normr = cg(&s, b, x, r, zg, pg, Ap);
		bench_stop(&tm);
	}
	/* The checksum covers every rank's solution, in rank order. */
	double part = 0, sum;
	for (int i = 0; i < n; i++)
		part += x[i] * (double)((i + s.rank * n) % 5 + 1);
	double *parts = s.rank ? NULL : bench_alloc((size_t)s.size * sizeof(double), "parts");
	MPI_Gather(&part, 1, MPI_DOUBLE, parts, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	double t[2] = { tm.best, tm.best_cpu }, tmax[2];
	MPI_Reduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (s.rank == 0) {
		sum = normr;
		for (int i = 0; i < s.size; i++)
			sum += parts[i];
		char name[32];
		snprintf(name, sizeof name, "cg_np%d", s.size);
		bench_timer all = tm;
		all.best = tmax[0];
		all.best_cpu = tmax[1];
		bench_report(name, &all, bench_bits(sum), sum);
		free(parts);
	}
	free(b); free(x); free(r); free(Ap); free(zg); free(pg);
	hpcg_free(&s.A);
	MPI_Finalize();
	return 0;
}
