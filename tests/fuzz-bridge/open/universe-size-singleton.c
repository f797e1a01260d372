/* MPICH 4.0 (Debian 12), singleton (started without mpiexec): reading the
 * MPI_UNIVERSE_SIZE attribute of MPI_COMM_WORLD never returns (MPICH asks
 * the process manager, and a singleton has none that answers).  A correct
 * program.  Native, no bridge:
 *   mpicc.mpich universe-size-singleton.c && ./a.out       (blocks)
 *   mpiexec.mpich -n 1 ./a.out                             (returns)
 * Found by fuzz-bridge (hangs in MPI_Comm_get_attr, MPI_Attr_get; the
 * fuzzer runs MPICH as a singleton); known-mpich.txt. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	int *v = NULL, flag = -1;
	MPI_Init(NULL, NULL);
	printf("MPI_Comm_get_attr(MPI_UNIVERSE_SIZE)...\n");
	fflush(stdout);
	int rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
	printf("rc %d flag %d size %d\n", rc, flag, flag ? *v : -1);
	MPI_Finalize();
	return 0;
}
