/* Open MPI 4.1.4 (Debian 12), one process: a message to oneself longer
 * than its receive buffer is not truncated: the whole message is copied
 * (no MPI_ERR_TRUNCATE), here into the PROT_NONE page after a 4-byte
 * buffer.  Native, no bridge:
 *   mpicc self-truncate.c && ./a.out recv   MPI_Isend of 128 KiB to
 *       oneself, MPI_Recv of 1 int: SIGSEGV in the copy
 *   ./a.out neighbor   MPI_Neighbor_alltoallv on a graph whose only edge
 *       is a self loop, the same sizes: SIGSEGV
 * Between two processes the truncation is detected.  In the fuzzer the
 * write lands in the guard pages after linear memory (reported as a host
 * access outside it, or as a hang when Open MPI's handler of the signal
 * blocks).  The bridge refuses the neighborhood collective case
 * (hand_nbc.c, self_refused: MPI_ERR_TRUNCATE before the library sees
 * the call).  The point-to-point case stays: the fuzzer's peers are never
 * this process, and closing it would take a truncation check of every
 * receive that can match a message from oneself. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
int main(int argc, char **argv)
{
	static int sb[32768];
	int n = 32768, one = 1, zero = 0;
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(m + 4096, 4096, PROT_NONE);
	MPI_Init(NULL, NULL);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (argc > 1 && !strcmp(argv[1], "neighbor")) {
		MPI_Comm g;
		MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, MPI_UNWEIGHTED, 1, &zero,
		                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
		printf("neighbor_alltoallv: 128 KiB to oneself into 4 bytes...\n");
		fflush(stdout);
		printf("rc %d\n", MPI_Neighbor_alltoallv(sb, &n, &zero, MPI_INT, m + 4092, &one,
		                                         &zero, MPI_INT, g));
	} else {
		MPI_Request r;
		MPI_Isend(sb, n, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
		printf("recv: 128 KiB from oneself into 4 bytes...\n");
		fflush(stdout);
		printf("rc %d\n", MPI_Recv(m + 4092, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
