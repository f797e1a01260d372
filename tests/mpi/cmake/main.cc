#include <mpi.h>
#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	std::vector<int> all(size);
	MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
	int ok = 1;
	for (int i = 0; i < size; i++) ok &= all[i] == i;
	if (rank == 0)
		std::printf("cmake c++: %d ranks %s\n", size, ok ? "ok" : "WRONG");
	MPI_Finalize();
	return !ok;
}
