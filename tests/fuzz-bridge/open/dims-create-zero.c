/* MPICH 4.0 (Debian 12): MPI_Dims_create(0, ndims > 1, zeros) never
 * returns (Open MPI returns MPI_ERR_DIMS).  Native, no bridge:
 *   mpicc.mpich dims-create-zero.c && ./a.out      (blocks)
 * Found by fuzz-bridge as a hang; the bridge refuses nnodes < 1 with
 * MPI_ERR_DIMS (gen.py POSITIVE). */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	int dims[2] = { 0, 0 };
	MPI_Init(NULL, NULL);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	printf("MPI_Dims_create(0, 2, {0, 0})...\n");
	fflush(stdout);
	printf("rc %d\n", MPI_Dims_create(0, 2, dims));
	MPI_Finalize();
	return 0;
}
