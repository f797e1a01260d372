/* Open MPI 4.1.4 (Debian 12), singleton: a nonblocking file access that
 * completes with an error (here a write at an offset the file system
 * refuses: 2^62, or a negative one) makes the wait crash: SIGSEGV at
 * address 0x88 in ompi_errhandler_request_invoke (the request's file is
 * NULL there).  MPI_Testall before the completion, MPI_Wait after it.
 * Found by fuzz-bridge as sanitizer reports in MPI_Testall and in
 * MPI_Finalize's wait of freed requests.  The bridge does every
 * nonblocking and split collective file access at initiation with the
 * blocking independent access (src/mpi/hand_io.c), so the module's error
 * comes back at the call and no host file request exists.  Native, no
 * bridge:
 *   mpicc iwrite-error-segv.c && ./a.out          (MPI_File_iwrite_at at 2^62)
 *   ./a.out -8   ./a.out 4611686018427387904 1   (MPI_File_iwrite_at_all)
 * each prints "testall 0 flag 0" and then dies in MPI_Wait. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	MPI_File f;
	MPI_Request r;
	MPI_Status st;
	static int b[64];
	long long off = argc > 1 ? atoll(argv[1]) : (1LL << 62);
	int all = argc > 2 && atoi(argv[2]) == 1, flag = 0;
	MPI_Init(NULL, NULL);
	MPI_File_open(MPI_COMM_SELF, "iwrite-error.bin", MPI_MODE_CREATE | MPI_MODE_RDWR |
	              MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &f);
	MPI_File_set_errhandler(f, MPI_ERRORS_RETURN);
	int rc = all ? MPI_File_iwrite_at_all(f, off, b, 3, MPI_INT, &r)
	             : MPI_File_iwrite_at(f, off, b, 3, MPI_INT, &r);
	printf("started %d\n", rc);
	fflush(stdout);
	rc = MPI_Testall(1, &r, &flag, &st);
	printf("testall %d flag %d\n", rc, flag);
	fflush(stdout);
	rc = MPI_Wait(&r, &st);
	printf("wait %d\n", rc);
	MPI_File_close(&f);
	MPI_Finalize();
	return 0;
}
