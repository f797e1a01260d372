/* MPICH 4.0 (Debian 12): a predefined reduction op on a datatype it is not
 * defined for (MPI_LOR on MPI_DOUBLE: erroneous) asserts and ends the
 * process ("oplor.c at line 60: 0") instead of returning MPI_ERR_OP, as
 * Open MPI does.  Native, no bridge:
 *   mpicc.mpich reduce-op-type.c && ./a.out       (assertion, exit 1)
 * Found by fuzz-bridge (MPI_Reduce_local); known-mpich.txt. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	double in[4] = { 1, 0, 1, 0 }, io[4] = { 0 };
	MPI_Init(NULL, NULL);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	printf("MPI_Reduce_local(MPI_LOR, MPI_DOUBLE)...\n");
	fflush(stdout);
	printf("rc %d\n", MPI_Reduce_local(in, io, 4, MPI_DOUBLE, MPI_LOR));
	MPI_Finalize();
	return 0;
}
