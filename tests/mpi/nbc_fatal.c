/* wasm only (tests/mpi/nbc_fatal.sh): under the default
 * MPI_ERRORS_ARE_FATAL, a nonblocking or neighborhood collective given a
 * buffer that leaves linear memory ends the job with a message naming the
 * procedure; nothing after the call may run.  `nbc_fatal MODE`:
 * iallreduce (receive buffer past the end of memory), allreduce (the
 * same call in the blocking form: the same line but for the name) or alltoallw
 * (MPI_Ineighbor_alltoallw, a byte displacement past the end); optrap: a
 * user op that traps, applied while MPI_Iallreduce completes (every rank
 * takes part; the job must end, naming the trap). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void trap_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)in; (void)inout; (void)len; (void)dt;
	__builtin_trap();
}

int main(int argc, char **argv)
{
	int rank, size, x = 1, y[4];
	MPI_Request rq;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2) {
		fprintf(stderr, "usage: nbc_fatal iallreduce|allreduce|alltoallw|optrap\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (!strcmp(argv[1], "optrap")) {
		MPI_Op op;
		int out[2];
		MPI_Op_create(trap_op, 1, &op);
		MPI_Iallreduce(y, out, 2, MPI_INT, op, MPI_COMM_WORLD, &rq);
		/* a rank that did not apply the op goes on, into the
		 * receive below that only the job's end interrupts */
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	} else if (rank == size - 1) {
		if (!strcmp(argv[1], "iallreduce")) {
			MPI_Iallreduce(&x, (void *)(uintptr_t)0xFFFFFFF0u, 4, MPI_INT, MPI_SUM,
			               MPI_COMM_SELF, &rq);
		} else if (!strcmp(argv[1], "allreduce")) {
			MPI_Allreduce(&x, (void *)(uintptr_t)0xFFFFFFF0u, 4, MPI_INT, MPI_SUM,
			              MPI_COMM_SELF);
		} else {
			MPI_Comm ring;
			int one = 1, per = 1, cnt[2] = {1, 1};
			MPI_Aint dis[2] = {0, 0x7FFFFFF0};
			MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
			MPI_Cart_create(MPI_COMM_SELF, 1, &one, &per, 0, &ring);
			MPI_Ineighbor_alltoallw(&x, cnt, dis, ty, y, cnt, dis, ty, ring, &rq);
		}
		printf("nbc_fatal: rank %d survived a bad buffer\n", rank);
		fflush(stdout);
	}
	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
