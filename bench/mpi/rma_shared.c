/* bench/mpi/rma_shared.c - a window made by MPI_Win_allocate_shared (2
 * ranks on one node, 64 KiB each): rank 0 times loads (a sum of rank 1's
 * 8192 doubles through the MPI_Win_shared_query pointer) and stores (the
 * same doubles overwritten), then MPI_Put and MPI_Get of one double to
 * rank 1, each followed by MPI_Win_flush, in a lock_all epoch; and the
 * cost of MPI_Win_allocate_shared + MPI_Win_free.  Prints "test bytes
 * microseconds", the best of 5 timed loops.  bench/mpi/rma-run.sh runs it
 * natively and under mpiwasm (`make bench-rma-shared`). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { ITERS = 2000, PASSES = 200, LOOPS = 5, N = 8192 };

static double best_of(const double *t)
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
			fprintf(stderr, "rma_shared: needs 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	double *mine, *peer;
	MPI_Win win;
	MPI_Aint sz;
	int du;
	MPI_Win_allocate_shared(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
	                        &mine, &win);
	MPI_Win_shared_query(win, 1, &sz, &du, &peer);
	memset(mine, 0, N * sizeof(double));
	MPI_Barrier(MPI_COMM_WORLD);
	double t[4][LOOPS], x = 1.0, y = 0;
	volatile double sink = 0;
	MPI_Win_lock_all(0, win);
	for (int l = 0; l < LOOPS; l++) {
		for (int k = 0; k < 4; k++) {
			double t0 = MPI_Wtime();
			int n = k < 2 ? PASSES : ITERS;
			for (int i = 0; rank == 0 && i < n; i++) {
				switch (k) {
				case 0: {
					double s = 0;
					for (int j = 0; j < N; j++)
						s += peer[j];
					sink += s;
					break;
				}
				case 1:
					for (int j = 0; j < N; j++)
						peer[j] = (double)(i + j);
					break;
				case 2:
					MPI_Put(&x, 1, MPI_DOUBLE, 1, i % 64, 1, MPI_DOUBLE, win);
					MPI_Win_flush(1, win);
					break;
				default:
					MPI_Get(&y, 1, MPI_DOUBLE, 1, i % 64, 1, MPI_DOUBLE, win);
					MPI_Win_flush(1, win);
					break;
				}
			}
			t[k][l] = (MPI_Wtime() - t0) / n;
		}
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	double tc[LOOPS];
	for (int l = 0; l < LOOPS; l++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int i = 0; i < 20; i++) {
			MPI_Win_allocate_shared(N * sizeof(double), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
			                        &mine, &win);
			MPI_Win_free(&win);
		}
		tc[l] = (MPI_Wtime() - t0) / 20;
	}
	if (rank == 0) {
		printf("load %d %.4f\nstore %d %.4f\n", (int)(N * sizeof(double)), best_of(t[0]) * 1e6,
		       (int)(N * sizeof(double)), best_of(t[1]) * 1e6);
		printf("put 8 %.4f\nget 8 %.4f\n", best_of(t[2]) * 1e6, best_of(t[3]) * 1e6);
		printf("winalloc %d %.4f\n", (int)(N * sizeof(double)), best_of(tc) * 1e6);
	}
	MPI_Finalize();
	return 0;
}
