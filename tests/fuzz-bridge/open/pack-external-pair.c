/* MPICH 4.0 (Debian 12): MPI_Pack_external (and MPI_Unpack_external) in
 * "external32" of a pair type such as MPI_SHORT_INT asserts and ends the
 * process ("typerep_yaksa_pack_external.c at line 198: 0").  external32
 * is defined for every predefined type: a correct program.  Native, no
 * bridge:
 *   mpicc.mpich pack-external-pair.c && ./a.out      (assertion, exit 1)
 * Found by fuzz-bridge ("unexpected exit" in MPI_Pack_external); known-mpich.txt. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	static char in[4096], out[4096];
	MPI_Aint pos = 0;
	MPI_Init(NULL, NULL);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	printf("MPI_Pack_external of 4 MPI_SHORT_INT...\n");
	fflush(stdout);
	int rc = MPI_Pack_external("external32", in, 4, MPI_SHORT_INT, out, sizeof out, &pos);
	printf("rc %d\n", rc);
	MPI_Finalize();
	return 0;
}
