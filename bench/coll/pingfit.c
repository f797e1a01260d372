/* pingfit.c - one-way message costs of each level of the emulated
 * cluster, for bench/coll/cluster.sh: rank 0 bounces messages of 8 B ..
 * 4 MiB (8, 64, 512 B, then by factors of 4) with a rank on its own host (shared memory; only when the job
 * has two ranks on rank 0's host) and with the first rank on another
 * host (the network), one pair at a time while every other rank waits in
 * a barrier.  Prints, per level and size, half the median round trip:
 *   pingpong shm|net BYTES US
 * (src/coll/model.c's coll_fit turns them into a level's alpha and beta,
 * bench/coll/collmodel.c reads them).  Native:
 *   mpicc -O2 -o pingfit bench/coll/pingfit.c; mpirun -np P pingfit */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Half the median of 9 batches' mean round trip between ranks a and b,
 * n bytes; every rank returns it (rank a's figure, broadcast). */
static double one_way(int rank, int a, int b, char *buf, int n)
{
	enum { BATCHES = 9 };
	double t[BATCHES], r = 0;
	int reps = (int)(2e7 / (n + 8192.0));
	reps = reps < 3 ? 3 : reps > 100 ? 100 : reps;
	for (int k = -1; k < BATCHES; k++) {   /* one warm-up batch */
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int i = 0; i < reps; i++) {
			if (rank == a) {
				MPI_Send(buf, n, MPI_BYTE, b, 7, MPI_COMM_WORLD);
				MPI_Recv(buf, n, MPI_BYTE, b, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else if (rank == b) {
				MPI_Recv(buf, n, MPI_BYTE, a, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(buf, n, MPI_BYTE, a, 7, MPI_COMM_WORLD);
			}
		}
		if (k >= 0)
			t[k] = (MPI_Wtime() - t0) / reps / 2;
	}
	qsort(t, BATCHES, sizeof *t, cmp_double);
	r = t[BATCHES / 2];
	MPI_Bcast(&r, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
	return r;
}

int main(int argc, char **argv)
{
	int rank, np, noderank, nodesize;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &noderank);
	MPI_Comm_size(node, &nodesize);
	/* rank 0's host mates and the first rank elsewhere */
	int *same = malloc(sizeof *same * (size_t)np);
	int lead = rank;
	MPI_Bcast(&lead, 1, MPI_INT, 0, node);   /* the lowest world rank of my host */
	MPI_Allgather(&lead, 1, MPI_INT, same, 1, MPI_INT, MPI_COMM_WORLD);
	int shm_peer = -1, net_peer = -1;
	for (int r = 1; r < np; r++) {
		if (same[r] == same[0] && shm_peer < 0)
			shm_peer = r;
		if (same[r] != same[0] && net_peer < 0)
			net_peer = r;
	}
	enum { BIG = 4 << 20 };
	char *buf = calloc(BIG, 1);
	if (!buf || !same || np < 2) {
		if (rank == 0)
			fprintf(stderr, "pingfit: needs 2 ranks and 4 MiB (has %d ranks)\n", np);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (int level = 0; level < 2; level++) {
		int peer = level ? net_peer : shm_peer;
		if (peer < 0)
			continue;
		for (int n = 8; n <= BIG; n = n < 4096 ? n * 8 : n * 4) {
			double t = one_way(rank, 0, peer, buf, n);
			if (rank == 0)
				printf("pingpong %s %d %.3f\n", level ? "net" : "shm", n, t * 1e6);
		}
	}
	free(buf);
	free(same);
	MPI_Comm_free(&node);
	MPI_Finalize();
	return 0;
}
