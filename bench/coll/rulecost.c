/* rulecost.c - what the MPICH bridge's per-call rules cost (bench/coll/
 * MPICH.md): MPI_Allreduce of 1 and 2 doubles, alternately, on
 * MPI_COMM_SELF, where the collective itself is nearly free.  Run under
 * `mpirun.mpich -np 2 mpiwasm` with rules for 1-rank communicators (see
 * bench/coll/rulecost.sh); every rank times its own calls.
 *
 * Rank 0 prints "rulecost: N ns per call (median of 15 batches of M)". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCHES 15
#define CALLS 20000

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double in[2] = { 1, 2 }, out[2], t[BATCHES];
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int b = -1; b < BATCHES; b++) {
		double t0 = MPI_Wtime();
		for (int i = 0; i < CALLS; i++) {
			MPI_Allreduce(in, out, 1 + (i & 1), MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
			if (out[0] != 1) {
				fprintf(stderr, "rulecost: wrong result %g\n", out[0]);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
		if (b >= 0)
			t[b] = (MPI_Wtime() - t0) / CALLS;
	}
	qsort(t, BATCHES, sizeof *t, cmp);
	if (rank == 0)
		printf("rulecost: %.1f ns per call (median of %d batches of %d)\n", t[BATCHES / 2] * 1e9,
		       BATCHES, CALLS);
	MPI_Finalize();
	return 0;
}
