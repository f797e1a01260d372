/* argsnap.c - wasm only: the counts and displacements of a v-collective
 * are read once, when the call starts.  Each case puts the displacement
 * array inside this process's own block of the buffer the call writes,
 * so the library's first copy (the root's or the process's own block)
 * overwrites the displacements with values that point elsewhere: at a
 * canary array inside linear memory, or gigabytes past it.  The blocks
 * must land where the displacements said when the call was made (MPI
 * leaves such a program's outcome undefined; the sandbox must not let it
 * reach outside linear memory), the canaries stay, nothing crashes.  A
 * nonblocking call's arrays may change before it completes, and request
 * arrays may change while a wait runs module code (a user op). */
#include "tmpi.h"
#include <stdint.h>

#define CANARY 0x11111111
#define FAR_DISP 0x30000000   /* in ints: 3 GiB past the buffer */

static int rank, size;
static int A[64], B[64], C[16], T[64], X[16];

static void canaries(void)
{
	for (int i = 0; i < 16; i++) {
		C[i] = CANARY;
		X[i] = 0x5EC000 + i;   /* a "secret" a bad displacement would read */
	}
}

static int canaries_ok(void)
{
	for (int i = 0; i < 16; i++)
		if (C[i] != CANARY || X[i] != 0x5EC000 + i)
			return 0;
	return 1;
}

/* Gatherv at root 0: root's block A[36..43] holds the displacements
 * A[40..]; its data there turns displs[i] into `evil(i)`. */
static void gatherv(int far, int nonblocking)
{
	int counts[8], *displs = &A[40], s[8], mine = 2000 + rank;
	MPI_Request rq;
	canaries();
	memset(A, 0, sizeof A);
	for (int i = 0; i < size; i++) {
		counts[i] = i == 0 ? 8 : 1;
		displs[i] = i == 0 ? 36 : i - 1;
	}
	for (int k = 0; k < 8; k++)   /* k >= 4 lands on displs[k - 4] */
		s[k] = k < 4 ? 1000 + k : far ? FAR_DISP : (int)(C - A) + (k - 4);
	if (!nonblocking) {
		OK(MPI_Gatherv(rank == 0 ? s : &mine, rank == 0 ? 8 : 1, MPI_INT,
		               A, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
	} else {
		OK(MPI_Igatherv(rank == 0 ? s : &mine, rank == 0 ? 8 : 1, MPI_INT,
		                A, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &rq));
		for (int i = 0; i < size; i++) {   /* the module changes them */
			displs[i] = far ? FAR_DISP : (int)(C - A) + i;
			counts[i] = 1000;
		}
		OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	}
	if (rank == 0) {
		int ok = 1;
		for (int i = 1; i < size; i++)
			ok &= A[i - 1] == 2000 + i;
		if (!nonblocking)
			for (int k = 0; k < 8; k++)
				ok &= A[36 + k] == s[k];
		tm_out("%sgatherv, displs in the root's block (%s): %s", nonblocking ? "i" : "",
		       far ? "far" : "canary", ok ? "blocks where the call said" : "WRONG");
		CHECK(ok);
	}
	CHECK(canaries_ok());
}

/* Scatterv from root 0: the root receives its block into B[0..7], which
 * holds the send displacements B[4..]; its data there makes them point
 * at the secret X (or far off). */
static void scatterv(int far, int nonblocking)
{
	int counts[8], *displs = &B[4], got = -1;
	MPI_Request rq;
	canaries();
	memset(B, 0, sizeof B);
	for (int k = 0; k < 64; k++)
		T[k] = 3000 + k;
	for (int k = 4; k < 8; k++)   /* root's block T[0..7] -> B[0..7] */
		T[k] = far ? FAR_DISP : (int)(X - T) + (k - 4);
	for (int i = 0; i < size; i++) {
		counts[i] = i == 0 ? 8 : 1;
		displs[i] = i == 0 ? 0 : 8 + i;
	}
	void *rb = rank == 0 ? (void *)B : (void *)&got;
	int rn = rank == 0 ? 8 : 1;
	if (!nonblocking) {
		OK(MPI_Scatterv(T, counts, displs, MPI_INT, rb, rn, MPI_INT, 0, MPI_COMM_WORLD));
	} else {
		OK(MPI_Iscatterv(T, counts, displs, MPI_INT, rb, rn, MPI_INT, 0,
		                 MPI_COMM_WORLD, &rq));
		if (rank == 0)
			for (int i = 0; i < size; i++)
				displs[i] = far ? FAR_DISP : (int)(X - T) + i;
		OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	}
	int ok = rank == 0 ? B[0] == 3000 && B[3] == 3003 : got == 3008 + rank;
	tm_out("%sscatterv, displs in the root's block (%s): %s", nonblocking ? "i" : "",
	       far ? "far" : "canary", ok ? "blocks where the call said" : "WRONG");
	CHECK(ok);
	CHECK(canaries_ok());
}

/* Allgatherv and Alltoallv: every process's receive displacements lie in
 * its own block (A[36..43], displs at A[40..]), which it copies first. */
static void allv(int far, int alltoall)
{
	int counts[8], *displs = &A[40], s[64], scounts[8], sdispls[8];
	canaries();
	memset(A, 0, sizeof A);
	for (int i = 0, next = 0; i < size; i++) {
		counts[i] = 8;
		displs[i] = i == rank ? 36 : 8 * next++;
		scounts[i] = 8;
		sdispls[i] = 8 * i;
	}
	for (int k = 0; k < 64; k++) {
		int j = k % 8;   /* j >= 4 lands on displs[j - 4] in the own block */
		s[k] = j < 4 ? 100 * rank + j : far ? FAR_DISP : (int)(C - A) + (j - 4);
	}
	if (alltoall)
		OK(MPI_Alltoallv(s, scounts, sdispls, MPI_INT, A, counts, displs, MPI_INT,
		                 MPI_COMM_WORLD));
	else
		OK(MPI_Allgatherv(s, 8, MPI_INT, A, counts, displs, MPI_INT, MPI_COMM_WORLD));
	int ok = 1;
	for (int i = 0, next = 0; i < size; i++) {
		if (i == rank)
			continue;
		ok &= A[8 * next] == 100 * i && A[8 * next + 3] == 100 * i + 3;
		next++;
	}
	ok &= A[36] == 100 * rank;
	tm_out("%s, displs in the own block (%s): %s", alltoall ? "alltoallv" : "allgatherv",
	       far ? "far" : "canary", ok ? "blocks where the call said" : "WRONG");
	CHECK(ok);
	CHECK(canaries_ok());
}

/* A user op that, while the wait that applies it runs, rewrites the
 * module's request variable to name another pending request: the bridge
 * must release the request it waited for, not the one named now. */
static MPI_Request *op_target, op_victim;
static int op_runs;

static void retarget(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
	if (op_target)
		*op_target = op_victim;
	op_runs++;
}

static void rewritten_request(int waitall)
{
	MPI_Op op;
	MPI_Request rq[2], victim;
	int x = rank + 1, sum = 0, got = -1, one = 1;
	MPI_Op_create(retarget, 1, &op);
	OK(MPI_Ibcast(&got, 1, MPI_INT, 0, MPI_COMM_WORLD, &victim));
	if (rank == 0)
		got = 42;   /* root's buffer: set before the wait, sent by then */
	OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, op, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Iallreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
	op_victim = victim;
	op_target = &rq[waitall ? 1 : 0];
	if (waitall) {
		OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	} else {
		OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
		OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
	}
	op_target = NULL;
	/* the victim is still pending as far as the program is concerned */
	int rc = MPI_Wait(&victim, MPI_STATUS_IGNORE);
	int ok = rc == MPI_SUCCESS && sum == size * (size + 1) / 2 && one == size;
	tm_out("request rewritten by a user op during %s: %s", waitall ? "MPI_Waitall" : "MPI_Wait",
	       ok ? "the other request stays valid" : "WRONG");
	CHECK(ok);
	CHECK(rc != MPI_SUCCESS || victim == MPI_REQUEST_NULL);
	MPI_Op_free(&op);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	if (size > 4) {
		if (rank == 0)
			printf("argsnap: at most 4 ranks\n");
		MPI_Finalize();
		return 1;
	}
	for (int far = 0; far < 2; far++) {
		gatherv(far, 0);
		scatterv(far, 0);
		gatherv(far, 1);
		scatterv(far, 1);
		allv(far, 0);
		allv(far, 1);
	}
	rewritten_request(0);
	rewritten_request(1);
	return tm_finish("argsnap") | MPI_Finalize();
}
