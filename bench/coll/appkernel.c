/* appkernel.c - the application-level figure of bench/coll/cluster.sh: a
 * CG-like solver whose time goes to collectives.  The matrix (order N,
 * rows in blocks of N/p per rank) has 4 on the diagonal and -1 at columns
 * i-1, i+1 (cyclic) and i+N/2: symmetric, strictly diagonally dominant,
 * so positive definite; every product needs the whole vector (the far
 * column), so each iteration gathers it with MPI_Allgather.  K right-hand
 * sides are solved together (block dot products: MPI_Allreduce of K
 * doubles, twice an iteration), and each iteration also redistributes a
 * bucket of keys with MPI_Alltoall, as an integer sort does (IS).
 *
 *   appkernel [N] [K] [ITERS]     (defaults 16384 8 30)
 *
 * The right-hand sides are A times known vectors; rank 0 prints
 * "appkernel SECONDS MAXERROR ITERS" (the slowest rank's time of the
 * iterations; the largest error of the solution) and exits 1 if the
 * error is above 1e-6 or the key exchange delivered a wrong key. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int N, K, rank, np, nloc;

/* y = A x for the local rows; xall: the whole vector (N x K, row-major). */
static void matvec(const double *xall, double *y)
{
	for (int li = 0; li < nloc; li++) {
		int i = rank * nloc + li;
		const double *c = xall + (size_t)i * K, *l = xall + (size_t)((i + N - 1) % N) * K;
		const double *r = xall + (size_t)((i + 1) % N) * K;
		const double *f = xall + (size_t)((i + N / 2) % N) * K;
		for (int k = 0; k < K; k++)
			y[li * K + k] = 4 * c[k] - l[k] - r[k] - f[k];
	}
}

/* K dot products of local blocks, summed over the ranks. */
static void dots(const double *a, const double *b, double *out)
{
	double loc[64] = { 0 };
	for (int li = 0; li < nloc; li++)
		for (int k = 0; k < K; k++)
			loc[k] += a[li * K + k] * b[li * K + k];
	MPI_Allreduce(loc, out, K, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	N = argc > 1 ? atoi(argv[1]) : 16384;
	K = argc > 2 ? atoi(argv[2]) : 8;
	int iters = argc > 3 ? atoi(argv[3]) : 30;
	if (N % (2 * np) || K < 1 || K > 64) {
		if (!rank)
			fprintf(stderr, "appkernel: N must be a multiple of 2p, K in 1..64\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	nloc = N / np;
	size_t lb = (size_t)nloc * K;
	double *x = calloc(lb, sizeof *x), *r = malloc(lb * sizeof *r), *p = malloc(lb * sizeof *p);
	double *q = malloc(lb * sizeof *q), *all = malloc((size_t)N * K * sizeof *all);
	double *want = malloc(lb * sizeof *want);
	int keys = 4096, *kout = malloc(sizeof *kout * (size_t)keys * np);
	int *kin = malloc(sizeof *kin * (size_t)keys * np);
	/* the solution: want[i][k] = sin(i + k); b = A want */
	for (int li = 0; li < nloc; li++)
		for (int k = 0; k < K; k++)
			want[li * K + k] = sin(rank * nloc + li + k);
	MPI_Allgather(want, (int)lb, MPI_DOUBLE, all, (int)lb, MPI_DOUBLE, MPI_COMM_WORLD);
	matvec(all, r);   /* r = b - A*0 = b */
	for (size_t j = 0; j < lb; j++)
		p[j] = r[j];
	double rr[64], pq[64], rr2[64];
	dots(r, r, rr);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	int badkey = 0;
	for (int it = 0; it < iters; it++) {
		MPI_Allgather(p, (int)lb, MPI_DOUBLE, all, (int)lb, MPI_DOUBLE, MPI_COMM_WORLD);
		matvec(all, q);
		dots(p, q, pq);
		for (int li = 0; li < nloc; li++)
			for (int k = 0; k < K; k++) {
				double a = rr[k] > 0 ? rr[k] / pq[k] : 0;
				x[li * K + k] += a * p[li * K + k];
				r[li * K + k] -= a * q[li * K + k];
			}
		dots(r, r, rr2);
		for (int li = 0; li < nloc; li++)
			for (int k = 0; k < K; k++)
				p[li * K + k] = r[li * K + k] + (rr[k] > 0 ? rr2[k] / rr[k] : 0) * p[li * K + k];
		for (int k = 0; k < K; k++)
			rr[k] = rr2[k];
		/* the key exchange: keys for rank d are d + np * (rank + it) */
		for (int d = 0; d < np; d++)
			for (int j = 0; j < keys; j++)
				kout[d * keys + j] = d + np * (rank + it + j);
		MPI_Alltoall(kout, keys, MPI_INT, kin, keys, MPI_INT, MPI_COMM_WORLD);
		for (int s = 0; s < np; s++)
			badkey |= kin[s * keys + keys - 1] != rank + np * (s + it + keys - 1);
	}
	double t = MPI_Wtime() - t0, tmax, err = 0, emax;
	for (size_t j = 0; j < lb; j++)
		err = fmax(err, fabs(x[j] - want[j]));
	MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(&err, &emax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &badkey, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!rank)
		printf("appkernel %.6f %.3g %d\n", tmax, emax, iters);
	int rc = emax > 1e-6 || badkey;
	if (!rank && rc)
		fprintf(stderr, "appkernel: wrong result (error %g, keys %s)\n", emax,
		        badkey ? "wrong" : "right");
	MPI_Finalize();
	return rc;
}
