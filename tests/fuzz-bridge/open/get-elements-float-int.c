/* MPICH 4.0 (Debian 12): MPI_Get_elements (and _x) with MPI_FLOAT_INT
 * divides by zero (SIGFPE), whatever the status holds; MPI_2INT and
 * MPI_DOUBLE_INT work.  A correct program.  Native, no bridge:
 *   mpicc.mpich get-elements-float-int.c && ./a.out     (SIGFPE)
 * Found by fuzz-bridge (MPI_Get_elements, MPI_Get_elements_x); known-mpich.txt. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	MPI_Status st;
	int n = -1;
	MPI_Init(NULL, NULL);
	memset(&st, 0, sizeof st);
	MPI_Status_set_elements(&st, MPI_BYTE, 16);
	printf("MPI_Get_elements(MPI_FLOAT_INT) of a 16-byte status...\n");
	fflush(stdout);
	int rc = MPI_Get_elements(&st, MPI_FLOAT_INT, &n);
	printf("rc %d, %d elements\n", rc, n);
	MPI_Finalize();
	return 0;
}
