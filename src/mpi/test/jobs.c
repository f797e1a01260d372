/* jobs.c - one program, several whole-job behaviours of the bridge, picked
 * by argv[1]; built with mpiwasm-cc (and natively for "leak") and run by
 * src/mpi/test/jobs.sh, which checks exit status and stderr lines. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ranks";
	int rank = -1, size = 0, r = 5;
	if (!strcmp(mode, "early"))   /* an MPI call before MPI_Init */
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!strcmp(mode, "ranks")) {
		printf("rank %d ranks=%d\n", rank, size);
	} else if (!strcmp(mode, "badrank")) {
		MPI_Send(&r, 1, MPI_INT, size + 97, 0, MPI_COMM_WORLD);
	} else if (!strcmp(mode, "trap")) {
		if (rank == size - 1)
			__builtin_trap();
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "leak")) {   /* a datatype the program never frees */
		MPI_Datatype t;
		MPI_Type_contiguous(3, MPI_INT, &t);
		MPI_Type_commit(&t);
	} else if (!strcmp(mode, "longdouble")) {   /* uses a bridge-made type */
		long double x[2] = { 1.5L, -2.25L }, y[2] = { 0, 0 };
		MPI_Sendrecv(x, 2, MPI_LONG_DOUBLE, rank, 1, y, 2, MPI_LONG_DOUBLE, rank, 1,
		             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("rank %d longdouble %s\n", rank, x[0] == y[0] && x[1] == y[1] ? "ok" : "WRONG");
	}
	MPI_Finalize();
	if (!strcmp(mode, "late"))   /* an MPI call after MPI_Finalize */
		MPI_Comm_size(MPI_COMM_WORLD, &size);
	return r == 5 ? 0 : 1;
}
