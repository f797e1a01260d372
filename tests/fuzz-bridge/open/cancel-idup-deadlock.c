/* Open MPI 4.1.4 (Debian 12), singleton: MPI_Cancel of a pending
 * MPI_Comm_idup request after the library progressed it once (here by
 * MPI_Request_get_status; an MPI_Comm_dup does the same) never returns:
 * PMPI_Cancel blocks on a mutex its own thread holds (gdb: PMPI_Cancel ->
 * libmpi -> pthread_mutex_lock; the request is an ompi_comm_request_t).
 * Cancelling a nonblocking collective is erroneous (MPI-3.1 5.12), so the
 * bridge refuses MPI_Cancel of any pending request that is not
 * point-to-point (MPI_ERR_REQUEST, src/mpi/hand_p2p.c).  Found by
 * fuzz-bridge: the known list's "self-deadlock on a mutex inside
 * PMPI_Cancel", reproduced in the final run (seed 10 batch 150).  Native:
 *   mpicc cancel-idup-deadlock.c && ./a.out
 * prints "status 0" and blocks in MPI_Cancel. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	int flag = 0;
	MPI_Comm n;
	MPI_Request r;
	MPI_Init(NULL, NULL);
	MPI_Comm_idup(MPI_COMM_SELF, &n, &r);
	MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
	printf("status %d\n", flag);
	fflush(stdout);
	printf("cancel %d\n", MPI_Cancel(&r));
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Comm_free(&n);
	MPI_Finalize();
	return 0;
}
