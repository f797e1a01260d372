/* jacobi.c - 1-D Jacobi relaxation of u'' = 0 with u(0)=0, u(1)=1, the
 * domain split across the ranks, one ghost cell each side exchanged with
 * MPI_Sendrecv (MPI_PROC_NULL at the ends), the residual reduced with
 * MPI_Allreduce.  The steady state is the straight line u(x) = x, so the
 * result is checked against it.
 * Build: build/mpiwasm-cc -O2 jacobi.c -o jacobi.wasm
 * Run:   mpirun -np 4 build/mpiwasm jacobi.wasm [N] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	int n = argc > 1 ? atoi(argv[1]) : 32; /* interior points in total */
	if (n < size) {
		if (rank == 0)
			fprintf(stderr, "jacobi: N=%d is smaller than the %d ranks\n", n, size);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int lo = rank * n / size, hi = (rank + 1) * n / size, m = hi - lo;
	double h = 1.0 / (n + 1);
	double *u = calloc(m + 2, sizeof *u), *v = calloc(m + 2, sizeof *v);
	if (!u || !v)
		MPI_Abort(MPI_COMM_WORLD, 1);
	int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	if (rank == size - 1)
		u[m + 1] = v[m + 1] = 1.0; /* boundary u(1) = 1 */

	double res = 1.0;
	int it;
	for (it = 0; it < 200000 && res > 1e-10; it++) {
		MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[m + 1], 1, MPI_DOUBLE,
			     right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&u[m], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE,
			     left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (rank == size - 1)
			u[m + 1] = 1.0;
		if (rank == 0)
			u[0] = 0.0;
		double local = 0.0;
		for (int i = 1; i <= m; i++) {
			v[i] = 0.5 * (u[i - 1] + u[i + 1]);
			double d = v[i] - u[i];
			local += d * d;
		}
		double *t = u;
		u = v;
		v = t;
		{
			MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			res = sqrt(res);
		}
	}
	double err = 0.0, gerr;
	for (int i = 1; i <= m; i++) {
		double e = fabs(u[i] - (lo + i) * h);
		if (e > err)
			err = e;
	}
	MPI_Reduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	int ok = 1;
	if (rank == 0) {
		ok = gerr < 1e-6;
		printf("jacobi: N=%d ranks=%d iterations=%d residual=%.3e max error=%.3e %s\n",
		       n, size, it, res, gerr, ok ? "OK" : "FAILED");
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	free(u);
	free(v);
	MPI_Finalize();
	return ok ? 0 : 1;
}
