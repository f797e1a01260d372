/* MPICH 4.0 (Debian 12), ROMIO: writing or reading a file with a
 * predefined pair type that has a hole (MPI_SHORT_INT, MPI_DOUBLE_INT,
 * MPI_FLOAT_INT, MPI_LONG_DOUBLE_INT; not MPI_2INT) ends the process:
 * ROMIO flattens it with MPI_Type_get_contents, which refuses named types,
 * and ROMIO aborts ("application called MPI_Abort(MPI_COMM_WORLD, 1)").
 * A correct program.  Native, no bridge:
 *   mpicc.mpich romio-pair-type-abort.c && ./a.out     (s: SHORT_INT, exit 3)
 *   ./a.out d   (DOUBLE_INT, exit 3)      ./a.out i   (2INT: rc 0)
 * Found by fuzz-bridge as "unexpected exit" in MPI_File_write and the other
 * read/write procedures; known-mpich.txt. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	MPI_File f;
	static char b[4096];
	char k = argc > 1 ? argv[1][0] : 's';
	MPI_Datatype t = k == 'd' ? MPI_DOUBLE_INT : k == 'i' ? MPI_2INT : MPI_SHORT_INT;
	MPI_Init(NULL, NULL);
	MPI_File_open(MPI_COMM_SELF, "romio-pair.bin", MPI_MODE_CREATE | MPI_MODE_RDWR,
	              MPI_INFO_NULL, &f);
	MPI_File_set_errhandler(f, MPI_ERRORS_RETURN);
	printf("write 3 elements...\n");
	fflush(stdout);
	printf("rc %d\n", MPI_File_write(f, b, 3, t, MPI_STATUS_IGNORE));
	MPI_File_close(&f);
	MPI_Finalize();
	return 0;
}
