/* Open MPI 4.1.4 (Debian 12), singleton: a nonblocking collective that the
 * library has not progressed yet when its communicator is freed
 * (MPI_Comm_free, or MPI_Comm_disconnect) never completes: MPI_Wait on it
 * blocks for ever.  MPI_Comm_free with a pending operation is correct
 * (the operation completes normally, MPI-3.1 6.4.3), and
 * MPI_Comm_disconnect should itself wait for it.  Seen with MPI_Iscan
 * (and through the bridge's large-count MPI_Iexscan_c); MPI_Iexscan,
 * MPI_Ibarrier and MPI_Iallreduce of 4 ints complete.  Found by
 * fuzz-bridge as hangs in MPI_Finalize (seed 10 batches 62 and 66): the
 * program freed the request with MPI_Request_free (erroneous for a
 * nonblocking collective, MPI-3.1 5.12; the bridge lets it and completes
 * the operation itself before MPI_Finalize) and then disconnected the
 * communicator.  Worked around: each nonblocking collective's request
 * holds its host communicator, and MPI_Comm_free or MPI_Comm_disconnect
 * of a held one frees it on the host when the last such collective
 * completes (src/mpi/mpib.c, mw_comm_host_free; tests/mpi/nbc_free.c,
 * corpus/nbc-freed-comm-free.txt).  Native:
 *   mpicc nbc-comm-free-hang.c && ./a.out    (MPI_Comm_disconnect)
 *   ./a.out free                             (MPI_Comm_free)
 * each prints its first line and blocks. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	static int a[4], b[4];
	MPI_Comm d;
	MPI_Request r;
	MPI_Init(NULL, NULL);
	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	MPI_Iscan(a, b, 4, MPI_INT, MPI_SUM, d, &r);
	if (argc > 1)
		printf("free %d\n", MPI_Comm_free(&d));
	else
		printf("disconnect %d\n", MPI_Comm_disconnect(&d));
	fflush(stdout);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	printf("waited\n");
	MPI_Finalize();
	return 0;
}
