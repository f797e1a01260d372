/* MPICH 4.0 (Debian 12): MPI_Startall with more than 64 requests, one of
 * them MPI_REQUEST_NULL (an error: only persistent requests start; with
 * 64 or fewer MPICH returns it), frees a stack address on its error path:
 * "free(): invalid pointer", abort (ASan in fuzz-bridge: bad-free inside
 * MPI_Startall).  Native, no bridge:
 *   mpicc.mpich startall-null.c && ./a.out      (aborts)
 *   ./a.out 64                                  (returns the error)
 * The bridge refuses MPI_REQUEST_NULL in MPI_Startall (MPI_ERR_REQUEST). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	MPI_Request r[200];
	MPI_Init(NULL, NULL);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (int i = 0; i < n; i++) r[i] = MPI_REQUEST_NULL;
	printf("startall of %d null requests...\n", n);
	fflush(stdout);
	printf("rc %d\n", MPI_Startall(n, r));
	MPI_Finalize();
	return 0;
}
