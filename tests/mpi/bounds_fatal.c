/* wasm only: under the default MPI_ERRORS_ARE_FATAL a buffer outside
 * linear memory aborts the job with a message; nothing after the call
 * may run. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == size - 1) {
		MPI_Send((void *)(uintptr_t)0xFFFFFFF0u, 100, MPI_INT, 0, 1, MPI_COMM_WORLD);
		printf("bounds_fatal: rank %d survived a bad buffer\n", rank);
		fflush(stdout);
	}
	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
