/* Abnormal ends: `abort MODE RANK` makes rank RANK end badly while every
 * other rank blocks in a receive that never completes, so the job ends
 * only if the failure takes it down.  MODE: trap (a WebAssembly trap),
 * exit (exit(3) without MPI_Finalize), abort (MPI_Abort with code 7).
 * Just before failing, the failing rank prints the wall-clock time, so
 * that a test can time the job's end from the failure rather than from
 * the launch (which a loaded machine makes as slow as it likes); the
 * line names no rank, so it cannot satisfy a check for the message that
 * names the failing rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	int rank, x = 0, victim;
	const char *mode;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3) {
		fprintf(stderr, "usage: abort trap|exit|abort RANK\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	mode = argv[1];
	victim = atoi(argv[2]);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == victim) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		fprintf(stderr, "abort: the failure starts at %lld.%09ld\n",
		        (long long)now.tv_sec, now.tv_nsec);
		fflush(stderr);
		if (!strcmp(mode, "trap"))
			__builtin_trap();
		else if (!strcmp(mode, "exit"))
			exit(3);
		else if (!strcmp(mode, "abort"))
			MPI_Abort(MPI_COMM_WORLD, 7);
		fprintf(stderr, "abort: unknown mode %s\n", mode);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("abort: rank %d was released\n", rank);
	MPI_Finalize();
	return 0;
}
