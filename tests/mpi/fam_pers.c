/* Persistent requests on a communicator the program frees while they
 * exist: MPI_Comm_free only marks a communicator that operations still
 * use (MPI-3.1 6.4.3), and a persistent request may be started again
 * after it, until MPI_Request_free.  Each rank sends to the next in a
 * ring (itself at np=1) through MPI_Send_init / MPI_Ssend_init /
 * MPI_Recv_init on a duplicate of MPI_COMM_WORLD, freed before the first
 * start (inactive requests) or while a round is active; then rounds of
 * MPI_Startall / MPI_Waitall check the data, and the requests are freed.
 * (The MPI-4 persistent collectives, MPI_Bcast_init ..., are not part of
 * the bridge's MPI-3.1 interface.)  Output compared with native. */
#include "tmpi.h"

#define N 8

/* kind 0: MPI_Send_init, 1: MPI_Ssend_init; when 0: free the communicator
 * before the first start, 1: while the first round is active. */
static void ring(int kind, int when)
{
	int rank = tm_rank(), size = tm_size();
	int to = (rank + 1) % size, from = (rank + size - 1) % size;
	int out[N], in[N];
	MPI_Comm d;
	MPI_Request r[2];
	OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
	OK(MPI_Recv_init(in, N, MPI_INT, from, 7, d, &r[0]));
	OK(kind ? MPI_Ssend_init(out, N, MPI_INT, to, 7, d, &r[1])
	        : MPI_Send_init(out, N, MPI_INT, to, 7, d, &r[1]));
	if (when == 0) {
		OK(MPI_Comm_free(&d));
		CHECK(d == MPI_COMM_NULL);
	}
	int good = 0;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++) {
			out[i] = 1000 * round + 10 * rank + i;
			in[i] = -1;
		}
		OK(MPI_Startall(2, r));
		if (when == 1 && round == 0) {
			OK(MPI_Comm_free(&d));
			CHECK(d == MPI_COMM_NULL);
		}
		OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
		int ok = 1;
		for (int i = 0; i < N; i++)
			ok &= in[i] == 1000 * round + 10 * from + i;
		CHECK(ok);
		good += ok;
		/* An inactive persistent request stays allocated after a wait. */
		CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL);
	}
	OK(MPI_Request_free(&r[0]));
	OK(MPI_Request_free(&r[1]));
	CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL);
	tm_out("rank %d: %s, communicator freed %s: %d of 3 rounds right", rank,
	       kind ? "MPI_Ssend_init" : "MPI_Send_init",
	       when ? "while a round was active" : "before the first start", good);
}

/* A persistent request that is never started, on a freed communicator:
 * MPI_Request_free must give back what it holds (no hang at finalize). */
static void never_started(void)
{
	int x = 0;
	MPI_Comm d;
	MPI_Request r;
	OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	OK(MPI_Recv_init(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, d, &r));
	OK(MPI_Comm_free(&d));
	OK(MPI_Request_free(&r));
	CHECK(r == MPI_REQUEST_NULL);
	tm_out("rank %d: MPI_Recv_init never started, communicator freed: request freed",
	       tm_rank());
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	ring(0, 0);
	ring(0, 1);
	ring(1, 0);
	ring(1, 1);
	never_started();
	/* The next communicator gets a context id after the freed ones. */
	MPI_Comm e;
	OK(MPI_Comm_dup(MPI_COMM_WORLD, &e));
	int one = 1, sum = 0;
	OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, e));
	CHECK(sum == tm_size());
	OK(MPI_Comm_free(&e));
	int rc = tm_finish("fam_pers");
	MPI_Finalize();
	return rc;
}
