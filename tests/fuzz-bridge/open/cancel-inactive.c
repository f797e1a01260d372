/* Open MPI 4.1.4 (Debian 12), singleton, pml ob1: MPI_Cancel of a receive
 * that is no longer pending takes it off ob1's matching list again:
 *   ./a.out 0   an inactive persistent receive (MPI_Recv_init, never
 *               started): SIGSEGV in mca_pml_ob1 under PMPI_Cancel
 *   ./a.out 1   a receive cancelled once already (MPI_ANY_SOURCE): the
 *               second MPI_Cancel, SIGSEGV
 *   ./a.out 2   a persistent receive started, cancelled and completed
 *               (inactive again), then cancelled: SIGSEGV
 * (with MPI_Init_thread(MPI_THREAD_MULTIPLE) the same; the lists are
 * shared under a lock, and a self-deadlock in PMPI_Cancel was once seen
 * by fuzz-bridge).  Nothing is pending in any of the three, so MPI_Cancel
 * has nothing to do.  The bridge calls the host's MPI_Cancel only for an
 * operation MPI_Request_get_status does not report complete (and always
 * for a module's generalized request), src/mpi/hand_p2p.c.
 * Native, no bridge: mpicc cancel-inactive.c && ./a.out 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 0;
	static int b[4];
	MPI_Request r;
	MPI_Status st;
	MPI_Init(NULL, NULL);
	if (k == 0) {
		MPI_Recv_init(b, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
	} else if (k == 1) {
		MPI_Irecv(b, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
		MPI_Cancel(&r);
	} else {
		MPI_Recv_init(b, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
		MPI_Start(&r);
		MPI_Cancel(&r);
		MPI_Wait(&r, &st);
	}
	printf("cancel\n");
	fflush(stdout);
	printf("cancel %d\n", MPI_Cancel(&r));
	MPI_Wait(&r, &st);
	if (k != 1)
		MPI_Request_free(&r);
	MPI_Finalize();
	return 0;
}
