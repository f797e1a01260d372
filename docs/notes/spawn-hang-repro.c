/* spawn-hang-repro.c - the Open MPI 4.1 + PMIx 4 spawn hang, natively
 * (docs/notes/spawn-hang.md).  The parents spawn 2 children REPS times
 * (default 10), each time an allreduce across the intercommunicator and
 * a disconnect; rank 0 prints "rep N" after each round.
 *
 *   mpicc.openmpi -O2 -o repro spawn-hang-repro.c
 *   mpirun --oversubscribe -np 2 ./repro   # hung in 3-7 of 10-12 runs (load 4-9)
 *
 * A hung run: one child in PMIx_Init (pthread_cond_wait), the other in
 * MPI_Init (usleep: the fence), parent 0 in PMIx_Lookup (connect/accept),
 * parent 1 in the broadcast that follows it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Comm parent, inter;
	int one = 1, sum = 0, rank = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (parent != MPI_COMM_NULL) {
		MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, parent);
		MPI_Comm_disconnect(&parent);
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int reps = getenv("REPS") ? atoi(getenv("REPS")) : 10;
	for (int r = 0; r < reps; r++) {
		MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
		               &inter, MPI_ERRCODES_IGNORE);
		MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
		MPI_Comm_disconnect(&inter);
		if (rank == 0) {
			printf("rep %d\n", r);
			fflush(stdout);
		}
	}
	MPI_Finalize();
	return 0;
}
