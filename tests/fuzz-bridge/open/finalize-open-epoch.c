/* MPICH 4.0 (Debian 12, UCX): MPI_Finalize with a window whose access
 * epoch (MPI_Win_start) was never completed, so the window could not be
 * freed, asserts in UCX ("destroying inuse region", rcache.c:409) and
 * ends the process.  Erroneous (the epoch is left open), but the job ends
 * by an assertion.  Native, no bridge:
 *   mpicc.mpich finalize-open-epoch.c && ./a.out
 * Found by fuzz-bridge (crashes in MPI_Finalize; minimized to MPI_Win_start
 * of MPI_GROUP_EMPTY on a fixture window); known-mpich.txt. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	static int mem[1024];
	MPI_Win w;
	MPI_Init(NULL, NULL);
	MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
	MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
	printf("win_start %d\n", MPI_Win_start(MPI_GROUP_EMPTY, 0, w));
	printf("win_free %d\n", MPI_Win_free(&w));
	fflush(stdout);
	printf("finalize %d\n", MPI_Finalize());
	return 0;
}
