/* wasm only: a nonblocking collective whose communicator the program
 * frees (MPI_Comm_free) or disconnects before it completes.  MPI_Comm_free
 * lets pending operations complete (MPI-3.1 6.4.3), but Open MPI 4.1
 * never completes a collective it has not progressed once its
 * communicator is freed, natively too
 * (tests/fuzz-bridge/open/nbc-comm-free-hang.c), so this cannot be a
 * native-vs-wasm program: the bridge keeps the host communicator until
 * the collectives started on it complete.  MPI_Wait after the free must
 * return with the right result; a collective freed with MPI_Request_free
 * (erroneous for a collective, allowed by the bridge, which completes it)
 * must not hang MPI_Finalize.  A hang is the run's timeout. */
#include "tmpi.h"

/* Iscan of 4 ints on a fresh duplicate of MPI_COMM_WORLD, then how
 * (0 MPI_Comm_free, 1 MPI_Comm_disconnect), then the wait (or, if
 * freereq, MPI_Request_free before the free and no wait). */
static void one(int how, int freereq, int user_dup_first)
{
	int a[4], b[4] = { 0 }, rank = tm_rank();
	MPI_Comm d, d2 = MPI_COMM_NULL;
	MPI_Request r;
	for (int i = 0; i < 4; i++)
		a[i] = rank + i;
	OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
	if (user_dup_first)   /* another communicator made from d stays */
		OK(MPI_Comm_dup(d, &d2));
	OK(MPI_Iscan(a, b, 4, MPI_INT, MPI_SUM, d, &r));
	if (freereq)
		OK(MPI_Request_free(&r));
	OK(how ? MPI_Comm_disconnect(&d) : MPI_Comm_free(&d));
	CHECK(d == MPI_COMM_NULL);
	if (!freereq) {
		OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		int ok = 1;
		for (int i = 0; i < 4; i++)
			ok &= b[i] == rank * (rank + 1) / 2 + (rank + 1) * i;
		CHECK(ok);
	}
	if (d2 != MPI_COMM_NULL)
		OK(MPI_Comm_free(&d2));
	tm_out("rank %d: Iscan, %s%s: done", rank, freereq ? "MPI_Request_free, " : "",
	       how ? "MPI_Comm_disconnect" : "MPI_Comm_free");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	one(0, 0, 0);
	one(0, 0, 1);
	one(1, 0, 0);
	one(0, 1, 0);
	one(1, 1, 0);
	/* Two collectives on one communicator, freed between them: the
	 * second keeps it after the first completes. */
	{
		int x = 1, s1 = 0, s2 = 0;
		MPI_Comm d;
		MPI_Request r[2];
		OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
		OK(MPI_Iallreduce(&x, &s1, 1, MPI_INT, MPI_SUM, d, &r[0]));
		OK(MPI_Iscan(&x, &s2, 1, MPI_INT, MPI_SUM, d, &r[1]));
		OK(MPI_Comm_free(&d));
		OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
		OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
		CHECK(s1 == tm_size() && s2 == tm_rank() + 1);
	}
	int rc = tm_finish("nbc_free");
	MPI_Finalize();
	return rc;
}
