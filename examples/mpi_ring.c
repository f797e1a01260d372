/* mpi_ring.c - passes a token around the ranks, then checks an Allreduce.
 * Build: build/mpiwasm-cc mpi_ring.c -o mpi_ring.wasm;
 * run:   mpirun -np 2 build/mpiwasm mpi_ring.wasm */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, token = 0, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > 1) {
		int next = (rank + 1) % size, prev = (rank + size - 1) % size;
		if (rank == 0) {
			token = 1;
			MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token++;
			MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
		}
	} else {
		token = 1;
	}
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("ring of %d: token %d (expect %d), sum of ranks %d (expect %d)\n",
		       size, token, size, sum, size * (size - 1) / 2);
	/* Only rank 0 holds the token after the full round; every rank holds
	 * the sum.  Rank 0's verdict is everyone's exit status. */
	int ok = (rank != 0 || token == size) && sum == size * (size - 1) / 2;
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return ok ? 0 : 1;
}
