/* coll_measure.c - the measurement of `mpiwasm tune` (src/coll/coll.h):
 * alpha and beta from ping-pongs between rank 0 and every other rank,
 * gamma from MPI_Reduce_local of doubles.  Runs the host MPI directly (no
 * module is loaded).  Uses nothing of src/coll but its header, so that the
 * bridge still links on its own (src/mpi/test). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "coll/coll.h"

static const int pp_sizes[] = { 8, 256, 4096, 32768, 262144, 1048576 };
#define NSIZES ((int)(sizeof pp_sizes / sizeof *pp_sizes))
#define MAXREPS 200

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int reps_for(int size)
{
	int r = (int)(4e7 / (size + 4096.0));
	return r > MAXREPS ? MAXREPS : r < 11 ? 11 : r;
}

/* One-way time (round trip / 2, median) between rank 0 and `peer` for
 * `size` bytes; on rank 0 only, the others return 0. */
static double pingpong(int rank, int peer, int size, char *buf)
{
	double t[MAXREPS];
	int reps = reps_for(size);
	for (int i = -3; i < reps; i++) {   /* 3 warm-up rounds */
		if (rank == 0) {
			double t0 = MPI_Wtime();
			MPI_Send(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (i >= 0)
				t[i] = (MPI_Wtime() - t0) / 2;
		} else if (rank == peer) {
			MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
		}
	}
	return rank == 0 ? median(t, reps) : 0;
}

/* alpha, beta minimizing the relative error sum((alpha + n*beta - t) / t)^2
 * (a plain least-squares fit would be all large messages). */
static void fit(const double *n, const double *t, int m, double *alpha, double *beta)
{
	double sw = 0, swn = 0, swnn = 0, swt = 0, swnt = 0, tmin = INFINITY;
	for (int i = 0; i < m; i++) {
		double w = 1 / (t[i] * t[i]);
		sw += w;
		swn += w * n[i];
		swnn += w * n[i] * n[i];
		swt += w * t[i];
		swnt += w * n[i] * t[i];
		if (t[i] < tmin)
			tmin = t[i];
	}
	double det = sw * swnn - swn * swn;
	*alpha = (swt * swnn - swn * swnt) / det;
	*beta = (sw * swnt - swn * swt) / det;
	/* A negative intercept or slope is noise: clamp to what was seen. */
	if (!(*alpha > 0))
		*alpha = tmin;
	if (!(*beta > 0))
		*beta = 1e-12;
}

int mpib_coll_measure(coll_net *net, int *np, int *rank, int *writer,
                      char *err, size_t errlen)
{
	int rc = MPI_Init(NULL, NULL);
	if (rc != MPI_SUCCESS) {
		snprintf(err, errlen, "mpib_coll_measure: MPI_Init failed (error %d)", rc);
		return -1;
	}
	MPI_Comm_size(MPI_COMM_WORLD, np);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	const char *lv = getenv("MPIWASM_COLL_LOG");
	int log = lv && *lv && strcmp(lv, "0");

	int maxsize = pp_sizes[NSIZES - 1], npts = 0;
	char *buf = calloc(1, (size_t)maxsize);
	double *pn = malloc(sizeof *pn * (size_t)(NSIZES * (*np > 1 ? *np - 1 : 1)));
	double *pt = malloc(sizeof *pt * (size_t)(NSIZES * (*np > 1 ? *np - 1 : 1)));
	enum { GN = 131072 };   /* 1 MiB of doubles for gamma */
	double *a = malloc(GN * sizeof *a), *b = malloc(GN * sizeof *b);
	if (!buf || !pn || !pt || !a || !b) {
		snprintf(err, errlen, "mpib_coll_measure: out of memory");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return -1;
	}

	double ab[2] = { 0, 0 };
	for (int peer = 1; peer < *np; peer++) {
		MPI_Barrier(MPI_COMM_WORLD);
		for (int s = 0; s < NSIZES; s++) {
			double t = pingpong(*rank, peer, pp_sizes[s], buf);
			if (*rank == 0) {
				pn[npts] = pp_sizes[s];
				pt[npts++] = t;
				if (log)
					fprintf(stderr, "mpiwasm: tune: ping-pong 0<->%d %d B: %.3f us\n",
					        peer, pp_sizes[s], t * 1e6);
			}
		}
	}
	if (*rank == 0 && npts)
		fit(pn, pt, npts, &ab[0], &ab[1]);
	MPI_Bcast(ab, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);

	/* gamma: every rank at once (as in a collective), the slowest counts. */
	double g[15];
	for (int i = 0; i < GN; i++) {
		a[i] = i * 0.5;
		b[i] = 1.0;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = -2; i < 15; i++) {
		double t0 = MPI_Wtime();
		MPI_Reduce_local(a, b, GN, MPI_DOUBLE, MPI_SUM);
		if (i >= 0)
			g[i] = (MPI_Wtime() - t0) / (GN * sizeof(double));
	}
	double gamma = median(g, 15), gmax;
	MPI_Allreduce(&gamma, &gmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

	MPI_Comm node;
	int noderank = 0;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
	                        &node) == MPI_SUCCESS) {
		MPI_Comm_rank(node, &noderank);
		MPI_Comm_free(&node);
	}
	*writer = noderank == 0;
	net->alpha = ab[0];
	net->beta = ab[1];
	net->gamma = gmax;
	free(buf);
	free(pn);
	free(pt);
	free(a);
	free(b);
	MPI_Finalize();
	if (*np < 2) {
		snprintf(err, errlen, "mpib_coll_measure: one rank only: nothing to measure "
		         "(run it as mpirun -np N mpiwasm tune)");
		return -1;
	}
	return 0;
}
