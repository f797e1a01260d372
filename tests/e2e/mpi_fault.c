/* One rank of the job fails while the others wait for it in MPI_Recv:
 * argv[1] = "trap" (integer divide by zero) or "exit" (exit(5) without
 * MPI_Finalize).  mpiwasm must end the whole job promptly. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int zero = 0;

__attribute__((noinline)) static int divide(int a, int b) { return a / b; }

int main(int argc, char **argv)
{
	int rank, size, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == size - 1) {
		if (argc > 1 && !strcmp(argv[1], "exit"))
			exit(5);
		x = divide(rank, zero);
	}
	/* Never satisfied: the last rank is gone. */
	MPI_Recv(&x, 1, MPI_INT, size - 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return x;
}
