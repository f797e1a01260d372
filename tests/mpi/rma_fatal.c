/* wasm only: under a window's default MPI_ERRORS_ARE_FATAL, an MPI_Put
 * whose origin buffer runs past linear memory ends the job with a message
 * naming MPI_Put; nothing after the call may run. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, buf[4] = {0};
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	if (rank == size - 1) {
		MPI_Put((void *)(uintptr_t)0xFFFFFFF0u, 100, MPI_INT, 0, 0, 1, MPI_INT, win);
		printf("rma_fatal: rank %d survived a bad buffer\n", rank);
		fflush(stdout);
	}
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
