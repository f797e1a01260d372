/* pingpong.c - ranks 0 and 1 of the job bounce a message: prints the
 * one-way latency of 8 bytes (half the best of several round-trip
 * averages) and the bandwidth of 4 MiB messages, as
 *   pingpong: latency_us=L bandwidth_MBps=B
 * The cluster suite runs it natively between two emulated hosts to
 * characterise each link profile. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Mean round-trip time of reps exchanges of n bytes, in seconds. */
static double round_trip(char *buf, int n, int reps, int rank)
{
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int i = 0; i < reps; i++) {
		if (rank == 0) {
			MPI_Send(buf, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(buf, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) / reps;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		if (rank == 0)
			fprintf(stderr, "pingpong: needs 2 ranks, has %d\n", size);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	enum { BIG = 4 << 20 };
	char *buf = calloc(BIG, 1);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 3);
	double lat = 1e9, bw = 0;
	round_trip(buf, 8, 50, rank);
	for (int k = 0; k < 5; k++) {
		double t = round_trip(buf, 8, 200, rank) / 2;
		if (t < lat)
			lat = t;
	}
	round_trip(buf, BIG, 1, rank);
	for (int k = 0; k < 3; k++) {
		double b = BIG / (round_trip(buf, BIG, 4, rank) / 2) / 1e6;
		if (b > bw)
			bw = b;
	}
	if (rank == 0)
		printf("pingpong: latency_us=%.1f bandwidth_MBps=%.0f\n", lat * 1e6, bw);
	free(buf);
	MPI_Finalize();
	return 0;
}
