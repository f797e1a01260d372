/* Open MPI 4.1.4 (Debian 12), singleton: a communicator freed while an
 * MPI_Comm_idup of it, or of the new communicator, is pending crashes.
 * Native, no bridge:
 *   mpicc idup-free.c && ./a.out parent   MPI_Comm_free of the parent
 *       (MPI_Comm_free lets pending operations complete: not erroneous),
 *       then MPI_Wait: SIGSEGV at 0x138 progressing the idup (in the
 *       fuzzer: in MPI_Finalize, MPI_Comm_dup_with_info and other calls
 *       that progress)
 *   ./a.out new   MPI_Comm_free of the new communicator before the
 *       request completes (erroneous: it may not be used before): SIGSEGV
 * The bridge frees the parent's host communicator only when its last
 * idup completes (mw_comm_free_later) and refuses any use of the new
 * handle before completion with MPI_ERR_COMM (mpib.c, COMM_HELD). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	MPI_Request r;
	MPI_Comm p, c;
	MPI_Init(NULL, NULL);
	MPI_Comm_dup(MPI_COMM_WORLD, &p);
	printf("idup %d\n", MPI_Comm_idup(p, &c, &r));
	if (argc > 1 && !strcmp(argv[1], "new"))
		printf("free new %d\n", MPI_Comm_free(&c));
	else
		printf("free parent %d\n", MPI_Comm_free(&p));
	fflush(stdout);
	printf("wait %d\n", MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_Finalize();
	return 0;
}
