/* Open MPI 4.1.4 (Debian 12), singleton: a nonblocking collective read past
 * the end of a file never completes, so any wait on it blocks for ever
 * (found by fuzz-bridge as hangs in MPI_Wait/MPI_Waitany).  Native, no
 * bridge: mpicc iread-all-eof-hang.c && ./a.out   (stops after "iread 0")
 * MPI_File_read_at_all_begin + _end hangs the same way.  MPI_File_iread_all,
 * MPI_File_iread_at_all and the split collective reads are excluded from fuzzing. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	MPI_File f;
	MPI_Request r;
	static char b[64];
	MPI_Init(NULL, NULL);
	MPI_File_delete("iread-eof.bin", MPI_INFO_NULL);
	MPI_File_open(MPI_COMM_SELF, "iread-eof.bin", MPI_MODE_CREATE | MPI_MODE_RDWR,
	              MPI_INFO_NULL, &f);
	printf("iread %d\n", MPI_File_iread_at_all(f, 0, b, 1, MPI_FLOAT, &r));
	fflush(stdout);
	printf("wait %d\n", MPI_Wait(&r, MPI_STATUS_IGNORE));
	MPI_File_close(&f);
	MPI_Finalize();
	return 0;
}
