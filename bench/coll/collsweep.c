/* collsweep.c - one collective over message sizes, Open MPI's own
 * selection and forced coll/tuned algorithms interleaved, for
 * bench/coll/cluster.sh.  Native (mpicc.openmpi); needs
 * coll_tuned_use_dynamic_rules=1 (the forced algorithms are MPI_T control
 * variables read when a communicator is created, as in
 * src/mpi/coll_measure.c).
 *
 *   collsweep OP MINBYTES MAXBYTES ROUNDS ALG...
 *
 * OP: allreduce bcast allgather alltoall reduce reduce_scatter barrier.
 * ALG 0 is the library's selection: Open MPI's fixed rules, or the rules
 * file when the job was started with one (the "tuned" runs).  Sizes go
 * from MINBYTES by factors of 4 (8 is followed by 16: 8 B, 16 B .. 4 MiB); bytes are the call's size in the rules
 * file (for MPI_Allgather and MPI_Alltoall the p blocks together, for
 * MPI_Reduce_scatter the sum of the counts).  Each round times every
 * algorithm once (a batch of calls of at least 10 ms, the slowest rank's
 * time per call), in an order that rotates from round to round.  Rank 0
 * prints one line per (size, algorithm, round): "OP ALG BYTES ROUND US".
 * Every variant's results are checked; a wrong one ends the run with
 * "collsweep: wrong result" and exit 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXALGS 16
#define MAXBYTES (4 << 20)

static int cvar_set(const char *name, int v)
{
	int idx, cnt;
	MPI_T_cvar_handle h;
	if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS ||
	    MPI_T_cvar_handle_alloc(idx, NULL, &h, &cnt) != MPI_SUCCESS)
		return -1;
	int rc = MPI_T_cvar_write(h, &v);
	MPI_T_cvar_handle_free(&h);
	return rc == MPI_SUCCESS ? 0 : -1;
}

/* MPI_COMM_WORLD duplicated with `op` forced to algorithm alg (0: none). */
static MPI_Comm forced(const char *op, int alg)
{
	char name[128];
	snprintf(name, sizeof name, "coll_tuned_%s_algorithm", op);
	if (cvar_set(name, alg)) {
		fprintf(stderr, "collsweep: cannot set %s (coll_tuned_use_dynamic_rules=1?)\n", name);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm c;
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	cvar_set(name, 0);
	return c;
}

static double *in, *out;
static int rcounts[4096], rank, np;

/* Fills the input for one call (integers: every sum is exact). */
static void fill(const char *op, int count, int round)
{
	int c = count / np > 0 ? count / np : 1;
	if (!strcmp(op, "alltoall"))
		for (int j = 0; j < np; j++)
			for (int i = 0; i < c; i++)
				in[j * c + i] = rank * 1000 + j + i % 7;
	else if (!strcmp(op, "bcast"))
		for (int i = 0; i < count; i++)
			in[i] = rank == 0 ? i % 1000 + round : -1;
	else
		for (int i = 0; i < count; i++)
			in[i] = rank + i % 1000;
}

static void call(const char *op, int count, MPI_Comm c)
{
	int b = count / np > 0 ? count / np : 1;
	if (!strcmp(op, "allreduce"))
		MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, c);
	else if (!strcmp(op, "bcast"))
		MPI_Bcast(in, count, MPI_DOUBLE, 0, c);
	else if (!strcmp(op, "allgather"))
		MPI_Allgather(in, b, MPI_DOUBLE, out, b, MPI_DOUBLE, c);
	else if (!strcmp(op, "alltoall"))
		MPI_Alltoall(in, b, MPI_DOUBLE, out, b, MPI_DOUBLE, c);
	else if (!strcmp(op, "reduce"))
		MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, 0, c);
	else if (!strcmp(op, "reduce_scatter")) {
		for (int i = 0; i < np; i++)
			rcounts[i] = count / np + (i < count % np);
		MPI_Reduce_scatter(in, out, rcounts, MPI_DOUBLE, MPI_SUM, c);
	} else
		MPI_Barrier(c);
}

/* The result of the last call (after fill(op, count, round)): 0 if right. */
static int check(const char *op, int count, int round)
{
	int b = count / np > 0 ? count / np : 1;
	double psum = np * (np - 1) / 2.0;
	if (!strcmp(op, "allreduce") || (!strcmp(op, "reduce") && rank == 0)) {
		for (int i = 0; i < count; i++)
			if (out[i] != psum + (double)np * (i % 1000))
				return 1;
	} else if (!strcmp(op, "bcast")) {
		for (int i = 0; i < count; i++)
			if (in[i] != i % 1000 + round)
				return 1;
	} else if (!strcmp(op, "allgather")) {
		for (int r = 0; r < np; r++)
			for (int i = 0; i < b; i++)
				if (out[r * b + i] != r + i % 1000)
					return 1;
	} else if (!strcmp(op, "alltoall")) {
		for (int r = 0; r < np; r++)
			for (int i = 0; i < b; i++)
				if (out[r * b + i] != r * 1000 + rank + i % 7)
					return 1;
	} else if (!strcmp(op, "reduce_scatter")) {
		int first = 0;
		for (int r = 0; r < rank; r++)
			first += rcounts[r];
		for (int i = 0; i < rcounts[rank]; i++)
			if (out[i] != psum + (double)np * ((first + i) % 1000))
				return 1;
	}
	return 0;
}

/* Seconds per call, the slowest rank's, of a batch of k calls. */
static double batch(const char *op, int count, MPI_Comm c, int k)
{
	MPI_Barrier(c);
	double t0 = MPI_Wtime();
	for (int i = 0; i < k; i++)
		call(op, count, c);
	double t = (MPI_Wtime() - t0) / k, mx;
	MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return mx;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: collsweep OP MINBYTES MAXBYTES ROUNDS ALG...\n");
		return 2;
	}
	const char *op = argv[1];
	long lo = atol(argv[2]), hi = atol(argv[3]);
	int rounds = atoi(argv[4]), nalg = argc - 5, alg[MAXALGS], provided;
	MPI_Comm comm[MAXALGS];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	if (nalg > MAXALGS || np > 4096 || hi > MAXBYTES) {
		fprintf(stderr, "collsweep: too many algorithms, ranks or bytes\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (int a = 0; a < nalg; a++) {
		alg[a] = atoi(argv[5 + a]);
		comm[a] = forced(op, alg[a]);
	}
	in = malloc(MAXBYTES);
	out = malloc(MAXBYTES);
	if (!strcmp(op, "barrier"))
		lo = hi = 0;
	else if (lo < 8)
		lo = 8;
	for (long bytes = lo; bytes <= hi; bytes = bytes == 8 ? 16 : bytes * 4) {
		int count = (int)(bytes / 8);
		int k[MAXALGS];
		for (int a = 0; a < nalg; a++) {   /* warm-up, batch length, the check */
			fill(op, count, 0);
			double t = batch(op, count, comm[a], 1);
			int bad = check(op, count, 0), anybad;
			MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
			if (anybad) {
				if (rank == 0)
					fprintf(stderr, "collsweep: wrong result of %s algorithm %d at %ld B\n",
					        op, alg[a], bytes);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			k[a] = t > 0 ? (int)(10e-3 / t) + 1 : 1000;
			k[a] = k[a] > 1000 ? 1000 : k[a];
		}
		for (int r = 0; r < rounds; r++)
			for (int j = 0; j < nalg; j++) {
				int a = (j + r) % nalg;
				double t = batch(op, count, comm[a], k[a]);
				if (rank == 0)
					printf("%s %d %ld %d %.3f\n", op, alg[a], bytes, r, t * 1e6);
			}
		fflush(stdout);
		if (!bytes)
			break;
	}
	for (int a = 0; a < nalg; a++)
		MPI_Comm_free(&comm[a]);
	free(in);
	free(out);
	MPI_T_finalize();
	MPI_Finalize();
	return 0;
}
