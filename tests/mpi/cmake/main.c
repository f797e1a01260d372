#include <mpi.h>
#include <stdio.h>

int halo_ring_sum(int v, MPI_Comm comm);

int main(int argc, char **argv)
{
	int rank, size, s;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	s = halo_ring_sum(rank + 1, MPI_COMM_WORLD);
	if (rank == 0)
		printf("cmake ring: %d ranks, sum %d (%s)\n", size, s,
		       s == size * (size + 1) / 2 ? "ok" : "WRONG");
	MPI_Finalize();
	return s != size * (size + 1) / 2;
}
