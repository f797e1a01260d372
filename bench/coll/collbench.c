/* collbench.c - MPI_Allreduce (doubles, MPI_SUM) and MPI_Bcast (doubles)
 * latency over message sizes, for bench/coll/run.sh.  The same source is
 * built natively (mpicc) and to wasm (mpiwasm-cc).
 *
 *   collbench [allreduce|bcast|both] [MINBYTES] [MAXBYTES]
 *
 * Rank 0 prints one line per size: "OP BYTES MICROSECONDS", the median
 * over 7 batches of the slowest rank's time per call; every result is
 * checked ("collbench: wrong result ..." and exit 1 otherwise). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCHES 7

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int check(const char *op, const double *v, int n, double want_base, int stride)
{
	for (int i = 0; i < n; i += stride)
		if (v[i] != want_base + (stride ? i : 0)) {
			fprintf(stderr, "collbench: wrong result of %s at element %d: %g\n", op, i, v[i]);
			return 1;
		}
	return 0;
}

static double run(const char *op, int bytes, double *a, double *b, int rank, int size, int *bad)
{
	int n = bytes / 8, reps = (int)(8e6 / (bytes + 65536.0));
	if (reps < 2)
		reps = 2;
	if (reps > 200)
		reps = 200;
	double t[BATCHES];
	for (int k = -1; k < BATCHES; k++) {   /* one warm-up batch */
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int r = 0; r < reps; r++) {
			if (op[0] == 'a') {
				MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			} else {
				if (rank == 0)
					for (int i = 0; i < n; i += 97)
						b[i] = i + r;
				MPI_Bcast(b, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
			}
		}
		double el = (MPI_Wtime() - t0) / reps, mx;
		MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		if (k >= 0)
			t[k] = mx;
	}
	/* a[i] = rank + i on every rank: the sum is size*(size-1)/2 + size*i */
	if (op[0] == 'a') {
		for (int i = 0; i < n; i += 97)
			if (b[i] != size * (size - 1) / 2.0 + (double)size * i) {
				fprintf(stderr, "collbench: rank %d: wrong MPI_Allreduce result at %d B, "
				        "element %d: %g\n", rank, bytes, i, b[i]);
				*bad = 1;
				break;
			}
	} else {
		*bad |= check("MPI_Bcast", b, n, reps - 1, 97) ? 1 : 0;
	}
	qsort(t, BATCHES, sizeof *t, cmp);
	return t[BATCHES / 2];
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "both";
	long lo = argc > 2 ? atol(argv[2]) : 8, hi = argc > 3 ? atol(argv[3]) : 4 << 20;
	int rank, size, bad = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double *a = malloc((size_t)hi), *b = malloc((size_t)hi);
	if (!a || !b || lo < 8 || hi < lo) {
		fprintf(stderr, "collbench: bad sizes or out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (long i = 0; i < hi / 8; i++)
		a[i] = rank + (double)i;
	static const char *ops[] = { "allreduce", "bcast" };
	for (int o = 0; o < 2; o++) {
		if (strcmp(which, "both") && strcmp(which, ops[o]))
			continue;
		for (long bytes = lo; bytes <= hi; bytes *= 2) {
			double t = run(ops[o], (int)bytes, a, b, rank, size, &bad);
			if (rank == 0)
				printf("%s %ld %.3f\n", ops[o], bytes, t * 1e6);
		}
	}
	int anybad;
	MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	free(a);
	free(b);
	MPI_Finalize();
	return anybad;
}
