/* MPI_OP_NULL as the op of a reduction is erroneous: every reduction,
 * blocking and nonblocking, refuses it with MPI_ERR_OP (MPI_ERRORS_RETURN),
 * natively and under mpiwasm (the bridge refuses it itself: before, it
 * passed it on, and what the host made of it depended on the host and the
 * call).  Every rank fails, so no rank enters a collective the others
 * refused. */
#include "tmpi.h"

/* The class of a call, the request waited for if it started. */
static void report(const char *what, int rc, MPI_Request *rq)
{
	if (rc == MPI_SUCCESS && rq && *rq != MPI_REQUEST_NULL)
		MPI_Wait(rq, MPI_STATUS_IGNORE);
	tm_checks++;
	if (rc == MPI_SUCCESS || strcmp(tm_class(rc), "MPI_ERR_OP")) {
		tm_fail++;
		tm_out("FAIL %s: %s, expected MPI_ERR_OP", what, tm_class(rc));
	} else
		tm_out("%-28s %s", what, tm_class(rc));
}

#define CASE(what, call) do { MPI_Request rq_ = MPI_REQUEST_NULL; \
	report(what, (call), &rq_); } while (0)

int main(int argc, char **argv)
{
	int x[4] = {1, 2, 3, 4}, y[4] = {0}, ones[4] = {1, 1, 1, 1};
	long double ld[2] = {1.5L, 2.5L};
	MPI_Comm W = MPI_COMM_WORLD;
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
	if (tm_size() > 4) {
		tm_out("at most 4 ranks");
		tm_fail++;
	}
	CASE("Reduce", MPI_Reduce(x, y, 1, MPI_INT, MPI_OP_NULL, 0, W));
	CASE("Allreduce", MPI_Allreduce(x, y, 1, MPI_INT, MPI_OP_NULL, W));
	CASE("Allreduce in place", MPI_Allreduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_OP_NULL, W));
	CASE("Scan", MPI_Scan(x, y, 1, MPI_INT, MPI_OP_NULL, W));
	CASE("Exscan", MPI_Exscan(x, y, 1, MPI_INT, MPI_OP_NULL, W));
	CASE("Reduce_scatter_block", MPI_Reduce_scatter_block(x, y, 1, MPI_INT, MPI_OP_NULL, W));
	CASE("Reduce_scatter", MPI_Reduce_scatter(x, y, ones, MPI_INT, MPI_OP_NULL, W));
	CASE("Reduce_local", MPI_Reduce_local(x, y, 1, MPI_INT, MPI_OP_NULL));
	CASE("Ireduce", MPI_Ireduce(x, y, 1, MPI_INT, MPI_OP_NULL, 0, W, &rq_));
	CASE("Iallreduce", MPI_Iallreduce(x, y, 1, MPI_INT, MPI_OP_NULL, W, &rq_));
	CASE("Iscan", MPI_Iscan(x, y, 1, MPI_INT, MPI_OP_NULL, W, &rq_));
	CASE("Iexscan", MPI_Iexscan(x, y, 1, MPI_INT, MPI_OP_NULL, W, &rq_));
	CASE("Ireduce_scatter_block",
	     MPI_Ireduce_scatter_block(x, y, 1, MPI_INT, MPI_OP_NULL, W, &rq_));
	CASE("Ireduce_scatter", MPI_Ireduce_scatter(x, y, ones, MPI_INT, MPI_OP_NULL, W, &rq_));
	/* no element to reduce, a type the bridge reduces itself */
	CASE("Allreduce count 0", MPI_Allreduce(x, y, 0, MPI_INT, MPI_OP_NULL, W));
	CASE("Reduce_local count 0", MPI_Reduce_local(x, y, 0, MPI_INT, MPI_OP_NULL));
	CASE("Iallreduce count 0", MPI_Iallreduce(x, y, 0, MPI_INT, MPI_OP_NULL, W, &rq_));
	CASE("Allreduce long double", MPI_Allreduce(ld, ld + 1, 1, MPI_LONG_DOUBLE, MPI_OP_NULL, W));
	CASE("Reduce_local long double", MPI_Reduce_local(ld, ld + 1, 1, MPI_LONG_DOUBLE, MPI_OP_NULL));
	CASE("Iallreduce long double",
	     MPI_Iallreduce(ld, ld + 1, 1, MPI_LONG_DOUBLE, MPI_OP_NULL, W, &rq_));

	/* still healthy afterwards */
	x[0] = tm_rank();
	OK(MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, W));
	CHECK(x[0] == tm_size() * (tm_size() - 1) / 2);
	int rc = tm_finish("fam_opnull");
	MPI_Finalize();
	return rc;
}
