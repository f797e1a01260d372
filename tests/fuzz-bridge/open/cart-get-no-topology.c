/* MPICH 4.0 (Debian 12): MPI_Cart_get on a communicator without a
 * cartesian topology (erroneous) crashes (SIGSEGV); MPICH's other
 * topology queries return an error class there.  Native, no bridge:
 *   mpicc.mpich cart-get-no-topology.c && ./a.out      (SIGSEGV)
 * The bridge refuses the cartesian queries (Cart_get, Cart_coords,
 * Cart_shift, Cartdim_get) on such a communicator with MPI_ERR_TOPOLOGY. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	int dims[8], periods[8], coords[8];
	MPI_Init(NULL, NULL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	printf("MPI_Cart_get on MPI_COMM_SELF...\n");
	fflush(stdout);
	printf("rc %d\n", MPI_Cart_get(MPI_COMM_SELF, 8, dims, periods, coords));
	MPI_Finalize();
	return 0;
}
