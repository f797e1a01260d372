/* mpibench.c - ping-pong latency/bandwidth and a collective sweep, built
 * both natively (mpicc) and to wasm (mpiwasm-cc) by bench/mpi/run.sh.
 *   mpibench pingpong      ranks 0 and 1, 0 B .. 4 MiB
 *   mpibench coll          Bcast, Allreduce (doubles), Alltoall (bytes per
 *                          peer), 8 B .. 1 MiB, every rank
 * Each size: a warm-up, then REPS timed loops; the best loop counts (the
 * machine is shared, the minimum is the least disturbed).  Output lines:
 *   <test> <bytes> <microseconds per operation> */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 5

static int iters_for(long bytes)
{
	if (bytes <= 4096) return 2000;
	if (bytes <= 65536) return 500;
	if (bytes <= 1048576) return 60;
	return 20;
}

static void pingpong(int rank)
{
	long max = 4L << 20;
	char *buf = malloc((size_t)max);
	memset(buf, 1, (size_t)max);
	for (long n = 0; n <= max; n = n ? n * 2 : 1) {
		int it = iters_for(n);
		double best = 1e30;
		for (int r = -1; r < REPS; r++) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			for (int i = 0; i < it; i++) {
				if (rank == 0) {
					MPI_Send(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
					MPI_Recv(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				} else if (rank == 1) {
					MPI_Recv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
				}
			}
			double t = (MPI_Wtime() - t0) / it / 2 * 1e6;   /* one way */
			if (r >= 0 && t < best)
				best = t;
		}
		if (rank == 0)
			printf("pingpong %ld %.4f\n", n, best);
	}
	free(buf);
}

static void coll(int rank, int size)
{
	long max = 1L << 20;
	char *a = malloc((size_t)max * (size_t)size), *b = malloc((size_t)max * (size_t)size);
	memset(a, 1, (size_t)max * (size_t)size);
	memset(b, 0, (size_t)max * (size_t)size);
	const char *names[3] = { "bcast", "allreduce", "alltoall" };
	for (int k = 0; k < 3; k++)
		for (long n = 8; n <= max; n *= 4) {
			int it = iters_for(n * (k == 2 ? size : 1));
			double best = 1e30;
			for (int r = -1; r < REPS; r++) {
				MPI_Barrier(MPI_COMM_WORLD);
				double t0 = MPI_Wtime();
				for (int i = 0; i < it; i++) {
					if (k == 0)
						MPI_Bcast(a, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
					else if (k == 1)
						MPI_Allreduce(a, b, (int)(n / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
					else
						MPI_Alltoall(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, MPI_COMM_WORLD);
				}
				double t = (MPI_Wtime() - t0) / it * 1e6, tmax;
				MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
				if (r >= 0 && tmax < best)
					best = tmax;
			}
			if (rank == 0)
				printf("%s %ld %.4f\n", names[k], n, best);
		}
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1 && strcmp(argv[1], "pingpong") == 0 && size >= 2)
		pingpong(rank);
	else if (argc > 1 && strcmp(argv[1], "coll") == 0)
		coll(rank, size);
	else if (rank == 0)
		fprintf(stderr, "mpibench: usage: mpibench pingpong|coll (pingpong needs 2 ranks)\n");
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
