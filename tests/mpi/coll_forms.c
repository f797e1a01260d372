/* wasm only: the blocking and the nonblocking form of one erroneous
 * collective call fail with the same error class (MPI_ERRORS_RETURN), the
 * class the bridge's one set of collective argument rules gives
 * (src/mpi/coll_args.c).  Every case is erroneous at every rank of its
 * communicator (or runs on MPI_COMM_SELF), so no rank enters a collective
 * the others refused.  (The MPI-4 persistent forms, MPI_Bcast_init ...,
 * are not part of the bridge's MPI-3.1 interface.) */
#include "tmpi.h"
#include <stdint.h>

#define FAR ((void *)(uintptr_t)0xFFFFFFF0u)
#define BAD_TYPE ((MPI_Datatype)(uintptr_t)0x7ABC)
#define BAD_OP ((MPI_Op)(uintptr_t)0x7ABD)

static int rank, size;

/* One case: the blocking call returned rb, the nonblocking one rn
 * (request rq, waited for if it started). */
static void same(int line, const char *what, const char *expect, int rb, int rn,
                 MPI_Request *rq)
{
	const char *kb = tm_class(rb), *kn = tm_class(rn);
	if (rn == MPI_SUCCESS)
		MPI_Wait(rq, MPI_STATUS_IGNORE);
	tm_checks++;
	if (strcmp(kb, expect) || strcmp(kn, expect)) {
		tm_fail++;
		tm_out("FAIL line %d: %s: blocking %s, nonblocking %s, expected %s",
		       line, what, kb, kn, expect);
	} else
		tm_out("%-40s %s", what, kb);
}

/* FORMS(expected class, what, blocking call, nonblocking call using &rq_) */
#define FORMS(expect, what, bcall, ncall) do {                               \
	MPI_Request rq_ = MPI_REQUEST_NULL;                                   \
	int rb_ = (bcall);                                                    \
	int rn_ = (ncall);                                                    \
	same(__LINE__, what, expect, rb_, rn_, &rq_);                         \
} while (0)

int main(int argc, char **argv)
{
	int x[8] = {0}, y[8] = {0}, big[64] = {0};
	int ones[4] = {1, 1, 1, 1}, zeros[4] = {0}, neg[4] = {-1, -1, -1, -1};
	int far_displs[4] = {0x3FFFFFF0, 0x3FFFFFF0, 0x3FFFFFF0, 0x3FFFFFF0};
	int twos[4] = {2, 2, 2, 2}, step[4] = {0, 1, 2, 3};
	MPI_Datatype ints[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
	MPI_Datatype bad_types[4] = {BAD_TYPE, BAD_TYPE, BAD_TYPE, BAD_TYPE};
	MPI_Comm W = MPI_COMM_WORLD, S = MPI_COMM_SELF;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(S, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	if (size > 4) {
		tm_out("at most 4 ranks");
		tm_fail++;
	}

	/* ---- Bcast: root, buffer, count, datatype ---- */
	FORMS("MPI_ERR_BUFFER", "Bcast buffer off memory",
	      MPI_Bcast(FAR, 100, MPI_INT, 0, W),
	      MPI_Ibcast(FAR, 100, MPI_INT, 0, W, &rq_));
	FORMS("MPI_ERR_ROOT", "Bcast root = size",
	      MPI_Bcast(x, 1, MPI_INT, size, W),
	      MPI_Ibcast(x, 1, MPI_INT, size, W, &rq_));
	/* MPI_PROC_NULL and MPI_ROOT are roots of intercommunicators only:
	 * the buffer (off memory here) is not what is wrong. */
	FORMS("MPI_ERR_ROOT", "Bcast root = MPI_PROC_NULL",
	      MPI_Bcast(FAR, 100, MPI_INT, MPI_PROC_NULL, W),
	      MPI_Ibcast(FAR, 100, MPI_INT, MPI_PROC_NULL, W, &rq_));
	FORMS("MPI_ERR_ROOT", "Bcast root = MPI_ROOT",
	      MPI_Bcast(FAR, 100, MPI_INT, MPI_ROOT, W),
	      MPI_Ibcast(FAR, 100, MPI_INT, MPI_ROOT, W, &rq_));
	FORMS("MPI_ERR_COUNT", "Bcast count < 0",
	      MPI_Bcast(x, -1, MPI_INT, 0, W),
	      MPI_Ibcast(x, -1, MPI_INT, 0, W, &rq_));
	FORMS("MPI_ERR_TYPE", "Bcast datatype invalid",
	      MPI_Bcast(FAR, 1, BAD_TYPE, 0, W),
	      MPI_Ibcast(FAR, 1, BAD_TYPE, 0, W, &rq_));

	/* ---- Gather, Scatter ---- */
	FORMS("MPI_ERR_ROOT", "Gather root = -5",
	      MPI_Gather(FAR, 1, MPI_INT, FAR, 1, MPI_INT, -5, W),
	      MPI_Igather(FAR, 1, MPI_INT, FAR, 1, MPI_INT, -5, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Gather sendbuf off memory",
	      MPI_Gather(FAR, 100, MPI_INT, big, 1, MPI_INT, 0, W),
	      MPI_Igather(FAR, 100, MPI_INT, big, 1, MPI_INT, 0, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Gather recvbuf off memory (self)",
	      MPI_Gather(x, 1, MPI_INT, FAR, 100, MPI_INT, 0, S),
	      MPI_Igather(x, 1, MPI_INT, FAR, 100, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_TRUNCATE", "Gather own block 1 into 2 (self)",
	      MPI_Gather(x, 1, MPI_INT, y, 2, MPI_INT, 0, S),
	      MPI_Igather(x, 1, MPI_INT, y, 2, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_BUFFER", "Gather in place, recvbuf off (self)",
	      MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, FAR, 100, MPI_INT, 0, S),
	      MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, FAR, 100, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_TYPE", "Scatter recvtype invalid",
	      MPI_Scatter(big, 1, MPI_INT, x, 1, BAD_TYPE, 0, W),
	      MPI_Iscatter(big, 1, MPI_INT, x, 1, BAD_TYPE, 0, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Scatter sendbuf off memory (self)",
	      MPI_Scatter(FAR, 100, MPI_INT, x, 100, MPI_INT, 0, S),
	      MPI_Iscatter(FAR, 100, MPI_INT, x, 100, MPI_INT, 0, S, &rq_));

	/* ---- Gatherv, Scatterv: counts and displacements at the root ---- */
	FORMS("MPI_ERR_ROOT", "Gatherv root = size",
	      MPI_Gatherv(x, 1, MPI_INT, y, ones, step, MPI_INT, size, W),
	      MPI_Igatherv(x, 1, MPI_INT, y, ones, step, MPI_INT, size, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Gatherv sendbuf off memory",
	      MPI_Gatherv(FAR, 100, MPI_INT, y, ones, step, MPI_INT, 0, W),
	      MPI_Igatherv(FAR, 100, MPI_INT, y, ones, step, MPI_INT, 0, W, &rq_));
	FORMS("MPI_ERR_ARG", "Gatherv recvcounts off memory (self)",
	      MPI_Gatherv(x, 1, MPI_INT, y, (int *)FAR, step, MPI_INT, 0, S),
	      MPI_Igatherv(x, 1, MPI_INT, y, (int *)FAR, step, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_ARG", "Gatherv displs off memory (self)",
	      MPI_Gatherv(x, 1, MPI_INT, y, ones, (int *)FAR, MPI_INT, 0, S),
	      MPI_Igatherv(x, 1, MPI_INT, y, ones, (int *)FAR, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_COUNT", "Gatherv recvcounts < 0 (self)",
	      MPI_Gatherv(x, 1, MPI_INT, y, neg, step, MPI_INT, 0, S),
	      MPI_Igatherv(x, 1, MPI_INT, y, neg, step, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_BUFFER", "Gatherv displs past memory (self)",
	      MPI_Gatherv(x, 1, MPI_INT, y, ones, far_displs, MPI_INT, 0, S),
	      MPI_Igatherv(x, 1, MPI_INT, y, ones, far_displs, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_TRUNCATE", "Gatherv own block 1 into 2 (self)",
	      MPI_Gatherv(x, 1, MPI_INT, y, twos, step, MPI_INT, 0, S),
	      MPI_Igatherv(x, 1, MPI_INT, y, twos, step, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_ARG", "Scatterv sendcounts off memory (self)",
	      MPI_Scatterv(x, (int *)FAR, step, MPI_INT, y, 1, MPI_INT, 0, S),
	      MPI_Iscatterv(x, (int *)FAR, step, MPI_INT, y, 1, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_BUFFER", "Scatterv displs past memory (self)",
	      MPI_Scatterv(x, ones, far_displs, MPI_INT, y, 1, MPI_INT, 0, S),
	      MPI_Iscatterv(x, ones, far_displs, MPI_INT, y, 1, MPI_INT, 0, S, &rq_));
	FORMS("MPI_ERR_BUFFER", "Scatterv in place, sendbuf off (self)",
	      MPI_Scatterv(FAR, twos, step, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, S),
	      MPI_Iscatterv(FAR, twos, step, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, S, &rq_));

	/* ---- Allgather(v), Alltoall ---- */
	FORMS("MPI_ERR_BUFFER", "Allgather recvbuf off memory",
	      MPI_Allgather(x, 1, MPI_INT, FAR, 100, MPI_INT, W),
	      MPI_Iallgather(x, 1, MPI_INT, FAR, 100, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_TRUNCATE", "Allgather own block 1 into 2",
	      MPI_Allgather(x, 1, MPI_INT, big, 2, MPI_INT, W),
	      MPI_Iallgather(x, 1, MPI_INT, big, 2, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_ARG", "Allgatherv recvcounts off memory",
	      MPI_Allgatherv(x, 1, MPI_INT, big, (int *)FAR, step, MPI_INT, W),
	      MPI_Iallgatherv(x, 1, MPI_INT, big, (int *)FAR, step, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Allgatherv displs past memory",
	      MPI_Allgatherv(x, 1, MPI_INT, big, ones, far_displs, MPI_INT, W),
	      MPI_Iallgatherv(x, 1, MPI_INT, big, ones, far_displs, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_COUNT", "Alltoall sendcount < 0",
	      MPI_Alltoall(big, -1, MPI_INT, y, 1, MPI_INT, W),
	      MPI_Ialltoall(big, -1, MPI_INT, y, 1, MPI_INT, W, &rq_));

	/* ---- Alltoallv, Alltoallw: per-peer counts and displacements ---- */
	FORMS("MPI_ERR_ARG", "Alltoallv sendcounts off memory",
	      MPI_Alltoallv(x, (int *)FAR, step, MPI_INT, y, ones, step, MPI_INT, W),
	      MPI_Ialltoallv(x, (int *)FAR, step, MPI_INT, y, ones, step, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_ARG", "Alltoallv rdispls off memory",
	      MPI_Alltoallv(x, ones, step, MPI_INT, y, ones, (int *)FAR, MPI_INT, W),
	      MPI_Ialltoallv(x, ones, step, MPI_INT, y, ones, (int *)FAR, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_COUNT", "Alltoallv recvcounts < 0",
	      MPI_Alltoallv(x, ones, step, MPI_INT, y, neg, step, MPI_INT, W),
	      MPI_Ialltoallv(x, ones, step, MPI_INT, y, neg, step, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Alltoallv sdispls past memory",
	      MPI_Alltoallv(x, ones, far_displs, MPI_INT, y, ones, step, MPI_INT, W),
	      MPI_Ialltoallv(x, ones, far_displs, MPI_INT, y, ones, step, MPI_INT, W, &rq_));
	/* both sides wrong: the send side is named */
	FORMS("MPI_ERR_BUFFER", "Alltoallv both buffers off memory",
	      MPI_Alltoallv(FAR, twos, step, MPI_INT, FAR, twos, step, MPI_INT, W),
	      MPI_Ialltoallv(FAR, twos, step, MPI_INT, FAR, twos, step, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_TYPE", "Alltoallv recvtype invalid",
	      MPI_Alltoallv(x, ones, step, MPI_INT, y, ones, step, BAD_TYPE, W),
	      MPI_Ialltoallv(x, ones, step, MPI_INT, y, ones, step, BAD_TYPE, W, &rq_));
	FORMS("MPI_ERR_TRUNCATE", "Alltoallv own block 1 into 2",
	      MPI_Alltoallv(x, ones, step, MPI_INT, big, twos, step, MPI_INT, W),
	      MPI_Ialltoallv(x, ones, step, MPI_INT, big, twos, step, MPI_INT, W, &rq_));
	FORMS("MPI_ERR_TYPE", "Alltoallw sendtypes invalid",
	      MPI_Alltoallw(x, ones, zeros, bad_types, y, ones, zeros, ints, W),
	      MPI_Ialltoallw(x, ones, zeros, bad_types, y, ones, zeros, ints, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Alltoallw rdispls past memory",
	      MPI_Alltoallw(x, ones, zeros, ints, y, ones, far_displs, ints, W),
	      MPI_Ialltoallw(x, ones, zeros, ints, y, ones, far_displs, ints, W, &rq_));

	/* ---- reductions: the op is checked before the buffers ---- */
	FORMS("MPI_ERR_OP", "Reduce op invalid, sendbuf off",
	      MPI_Reduce(FAR, y, 1, MPI_INT, BAD_OP, 0, W),
	      MPI_Ireduce(FAR, y, 1, MPI_INT, BAD_OP, 0, W, &rq_));
	FORMS("MPI_ERR_ROOT", "Reduce root = MPI_PROC_NULL",
	      MPI_Reduce(x, y, 1, MPI_INT, MPI_SUM, MPI_PROC_NULL, W),
	      MPI_Ireduce(x, y, 1, MPI_INT, MPI_SUM, MPI_PROC_NULL, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Reduce sendbuf off memory",
	      MPI_Reduce(FAR, y, 100, MPI_INT, MPI_SUM, 0, W),
	      MPI_Ireduce(FAR, y, 100, MPI_INT, MPI_SUM, 0, W, &rq_));
	FORMS("MPI_ERR_OP", "Allreduce op invalid, recvbuf off",
	      MPI_Allreduce(x, FAR, 1, MPI_INT, BAD_OP, W),
	      MPI_Iallreduce(x, FAR, 1, MPI_INT, BAD_OP, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Allreduce buffers overlap",
	      MPI_Allreduce(big, big + 1, 4, MPI_INT, MPI_SUM, W),
	      MPI_Iallreduce(big, big + 1, 4, MPI_INT, MPI_SUM, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Scan recvbuf off memory",
	      MPI_Scan(x, FAR, 100, MPI_INT, MPI_SUM, W),
	      MPI_Iscan(x, FAR, 100, MPI_INT, MPI_SUM, W, &rq_));
	FORMS("MPI_ERR_BUFFER", "Reduce_scatter_block sendbuf off",
	      MPI_Reduce_scatter_block(FAR, y, 100, MPI_INT, MPI_SUM, W),
	      MPI_Ireduce_scatter_block(FAR, y, 100, MPI_INT, MPI_SUM, W, &rq_));
	FORMS("MPI_ERR_ARG", "Reduce_scatter recvcounts off memory",
	      MPI_Reduce_scatter(x, y, (int *)FAR, MPI_INT, MPI_SUM, W),
	      MPI_Ireduce_scatter(x, y, (int *)FAR, MPI_INT, MPI_SUM, W, &rq_));
	FORMS("MPI_ERR_TYPE", "Reduce_scatter datatype invalid",
	      MPI_Reduce_scatter(x, y, ones, BAD_TYPE, MPI_SUM, W),
	      MPI_Ireduce_scatter(x, y, ones, BAD_TYPE, MPI_SUM, W, &rq_));

	/* ---- intercommunicator roots ---- */
	if (size >= 2) {
		MPI_Comm inter;
		int low = rank < size / 2, lrank;
		MPI_Comm local;
		OK(MPI_Comm_split(W, low, rank, &local));
		OK(MPI_Intercomm_create(local, 0, W, low ? size / 2 : 0, 7, &inter));
		MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
		MPI_Comm_rank(local, &lrank);
		FORMS("MPI_ERR_ROOT", "inter Bcast root = 99",
		      MPI_Bcast(x, 1, MPI_INT, 99, inter),
		      MPI_Ibcast(x, 1, MPI_INT, 99, inter, &rq_));
		/* The low group's rank 0 is the root, its other ranks pass
		 * MPI_PROC_NULL; the high group receives from rank 0.  Every
		 * significant buffer is off memory: the root and the receivers
		 * fail, MPI_PROC_NULL's (not significant) is not looked at. */
		int root = low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
		const char *expect = root == MPI_PROC_NULL ? "MPI_SUCCESS" : "MPI_ERR_BUFFER";
		FORMS(expect, "inter Bcast buffer off memory",
		      MPI_Bcast(FAR, 100, MPI_INT, root, inter),
		      MPI_Ibcast(FAR, 100, MPI_INT, root, inter, &rq_));
		FORMS(expect, "inter Gather buffers off memory",
		      MPI_Gather(FAR, 100, MPI_INT, FAR, 100, MPI_INT, root, inter),
		      MPI_Igather(FAR, 100, MPI_INT, FAR, 100, MPI_INT, root, inter, &rq_));
		FORMS(expect, "inter Reduce buffers off memory",
		      MPI_Reduce(FAR, FAR, 100, MPI_INT, MPI_SUM, root, inter),
		      MPI_Ireduce(FAR, FAR, 100, MPI_INT, MPI_SUM, root, inter, &rq_));
		OK(MPI_Comm_free(&inter));
		OK(MPI_Comm_free(&local));
	}

	/* still healthy afterwards */
	x[0] = rank;
	OK(MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, W));
	CHECK(x[0] == size * (size - 1) / 2);
	int rc = tm_finish("coll_forms");
	MPI_Finalize();
	return rc;
}
