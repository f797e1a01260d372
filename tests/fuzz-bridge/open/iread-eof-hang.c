/* Open MPI 4.1.4 (Debian 12), singleton: a nonblocking independent read
 * that reaches past the end of the file never completes: ompio's posix
 * fbtl submits the rest of a short aio_read again and again (seen in gdb:
 * MPI_Wait -> opal_progress -> mca_fbtl_posix_progress -> aio_read, for
 * ever).  Reading past the end of a file is not erroneous (the status
 * says how much was read; the blocking reads do that).  Found by
 * fuzz-bridge as hangs in MPI_Wait/Waitany/Waitall after
 * MPI_File_iread_shared.  Native, no bridge:
 *   mpicc iread-eof-hang.c && ./a.out i   (MPI_File_iread)
 *   ./a.out a   (MPI_File_iread_at)    ./a.out s   (MPI_File_iread_shared)
 * each prints "started 0" and then blocks in MPI_Wait; with 16 bytes in
 * the file a read of 2 ints completes, a read of 100 ints blocks too. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	MPI_File f;
	MPI_Request r;
	static int b[64];
	char k = argc > 1 ? argv[1][0] : 'i';
	MPI_Init(NULL, NULL);
	MPI_File_delete("iread-eof.bin", MPI_INFO_NULL);
	MPI_File_open(MPI_COMM_SELF, "iread-eof.bin", MPI_MODE_CREATE | MPI_MODE_RDWR,
	              MPI_INFO_NULL, &f);
	int rc = k == 's' ? MPI_File_iread_shared(f, b, 3, MPI_INT, &r)
	       : k == 'a' ? MPI_File_iread_at(f, 0, b, 3, MPI_INT, &r)
	                  : MPI_File_iread(f, b, 3, MPI_INT, &r);
	printf("started %d\n", rc);
	fflush(stdout);
	printf("wait %d\n", MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_File_close(&f);
	MPI_Finalize();
	return 0;
}
