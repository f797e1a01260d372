/* bench/mpi/rma.c - one-sided latency on a window made by MPI_Win_allocate
 * (2 ranks): rank 0 times MPI_Put, MPI_Get and MPI_Accumulate(MPI_SUM) of
 * one element to rank 1, each followed by MPI_Win_flush, in a lock_all
 * epoch; MPI_Fetch_and_op on a long double (MPI_SUM); and the cost of
 * MPI_Win_allocate + MPI_Win_free.  Prints "test bytes microseconds",
 * the best of 5 timed loops.  bench/mpi/rma-run.sh runs it natively and
 * under mpiwasm. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { ITERS = 2000, LOOPS = 5 };

static double best_of(double *t)
{
	double b = t[0];
	for (int i = 1; i < LOOPS; i++)
		if (t[i] < b)
			b = t[i];
	return b;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		if (rank == 0)
			fprintf(stderr, "rma: needs 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	double *base;
	MPI_Win win;
	MPI_Win_allocate(65536, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	memset(base, 0, 65536);
	MPI_Barrier(MPI_COMM_WORLD);
	static const char *names[] = { "put", "get", "acc", "fop_ld" };
	double t[4][LOOPS];
	double x = 1.0, y = 0;
	long double lx = 1.0L, ly = 0;
	MPI_Win_lock_all(0, win);
	for (int l = 0; l < LOOPS; l++)
		for (int k = 0; k < 4; k++) {
			double t0 = MPI_Wtime();
			for (int i = 0; rank == 0 && i < (k == 3 ? ITERS / 4 : ITERS); i++) {
				switch (k) {
				case 0: MPI_Put(&x, 1, MPI_DOUBLE, 1, i % 64, 1, MPI_DOUBLE, win); break;
				case 1: MPI_Get(&y, 1, MPI_DOUBLE, 1, i % 64, 1, MPI_DOUBLE, win); break;
				case 2: MPI_Accumulate(&x, 1, MPI_DOUBLE, 1, i % 64, 1, MPI_DOUBLE,
				                       MPI_SUM, win); break;
				default: MPI_Fetch_and_op(&lx, &ly, MPI_LONG_DOUBLE, 1, 128, MPI_SUM,
				                          win); break;
				}
				MPI_Win_flush(1, win);
			}
			t[k][l] = (MPI_Wtime() - t0) / (k == 3 ? ITERS / 4 : ITERS);
		}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	double tc[LOOPS];
	for (int l = 0; l < LOOPS; l++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int i = 0; i < 20; i++) {
			MPI_Win_allocate(65536, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
			MPI_Win_free(&win);
		}
		tc[l] = (MPI_Wtime() - t0) / 20;
	}
	if (rank == 0) {
		printf("put 8 %.4f\nget 8 %.4f\nacc 8 %.4f\n", best_of(t[0]) * 1e6,
		       best_of(t[1]) * 1e6, best_of(t[2]) * 1e6);
		printf("%s 16 %.4f\n", names[3], best_of(t[3]) * 1e6);
		printf("winalloc 65536 %.4f\n", best_of(tc) * 1e6);
	}
	MPI_Finalize();
	return 0;
}
