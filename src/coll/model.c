/* model.c - Hockney-model costs of Open MPI 4.1's coll/tuned algorithms
 * for MPI_Allreduce and MPI_Bcast, and the choice of the fastest.
 *
 * Notation: p ranks, n bytes (count x datatype size), a message of m bytes
 * costs alpha + m*beta, reducing m bytes costs m*gamma.  Sends of one rank
 * are serialized (one port), a rank can send and receive at once (full
 * duplex), so a pipeline's step costs as much as its busiest stage.
 * lg = ceil(log2 p); pof2 = the largest power of two <= p; rem = p - pof2.
 * A segmented algorithm cuts n into k = ceil(n / segsize) segments of
 * m = n / k bytes (k = 1 without segmentation).
 *
 * The formulas follow each algorithm's message pattern (documented at each
 * case); they ignore memory-copy costs and contention, which is what the
 * measured ratios in bench/coll/REPORT.md are for. */
#include <math.h>
#include <string.h>
#include "coll/coll.h"

static const char *ar_names[COLL_AR_COUNT] = {
	"ignore", "basic_linear", "nonoverlapping", "recursive_doubling", "ring",
	"segmented_ring", "rabenseifner",
};
static const char *bc_names[COLL_BC_COUNT] = {
	"ignore", "basic_linear", "chain", "pipeline", "split_binary_tree",
	"binary_tree", "binomial", "knomial", "scatter_allgather",
	"scatter_allgather_ring",
};

/* Open MPI's default k-nomial radix (coll_tuned_bcast_algorithm_knomial_radix). */
#define KNOMIAL_RADIX 4
/* The model counts elements as doubles where an algorithm's fallback
 * depends on the element count (ring and Rabenseifner need count >= p). */
#define ELEM 8.0

const char *coll_alg_name(int coll_id, int alg)
{
	if (coll_id == COLL_ID_ALLREDUCE && alg >= 0 && alg < COLL_AR_COUNT)
		return ar_names[alg];
	if (coll_id == COLL_ID_BCAST && alg >= 0 && alg < COLL_BC_COUNT)
		return bc_names[alg];
	return NULL;
}

static int ceil_log2(int p)
{
	int l = 0;
	while ((1 << l) < p)
		l++;
	return l;
}

static int floor_log2(int p)
{
	int l = 0;
	while ((2 << l) <= p)
		l++;
	return l;
}

/* k segments of n bytes at segsize (0 or >= n: one segment). */
static double segments(double n, int segsize)
{
	if (segsize <= 0 || n <= segsize)
		return 1;
	return ceil(n / segsize);
}

static double msg(const coll_net *w, double m)
{
	return w->alpha + m * w->beta;
}

static double allreduce_cost(int alg, int p, double n, int segsize, const coll_net *w)
{
	int lg = ceil_log2(p), pof2 = 1 << floor_log2(p), rem = p - pof2;
	int lgp = floor_log2(p);
	double red = n * w->gamma;
	switch (alg) {
	case COLL_AR_LINEAR:
		/* Linear reduce: the root receives p-1 full vectors one after
		 * the other and reduces each; linear bcast: it sends p-1. */
		return (p - 1) * (msg(w, n) + red) + (p - 1) * msg(w, n);
	case COLL_AR_NONOVERLAP:
		/* Reduce then bcast, modelled as binomial trees: lg steps of a
		 * full message and reduction, then lg steps of a full message. */
		return lg * (msg(w, n) + red) + lg * msg(w, n);
	case COLL_AR_RDBL:
		/* Recursive doubling on pof2 ranks: log2(pof2) exchanges of the
		 * full vector, each followed by a reduction.  The rem extra ranks
		 * first hand their vector to a partner (one message, one
		 * reduction) and get the result back at the end. */
		return lgp * (msg(w, n) + red) + (rem ? 2 * msg(w, n) + red : 0);
	case COLL_AR_RING:
		/* Ring: p-1 reduce-scatter steps of n/p bytes (send, receive,
		 * reduce), then p-1 allgather steps of n/p.  Open MPI falls back
		 * to recursive doubling when count < p. */
		if (n / ELEM < p)
			return allreduce_cost(COLL_AR_RDBL, p, n, 0, w);
		return 2 * (p - 1) * w->alpha + 2.0 * (p - 1) / p * n * w->beta +
		       (double)(p - 1) / p * red;
	case COLL_AR_SEGRING: {
		/* Segmented ring: each rank's block of n/p is cut into k
		 * segments; the ring runs once per segment: k times the
		 * messages of the ring, the same bytes. */
		if (n / ELEM < p)
			return allreduce_cost(COLL_AR_RDBL, p, n, 0, w);
		double k = segments(n / p, segsize);
		return 2 * (p - 1) * k * w->alpha + 2.0 * (p - 1) / p * n * w->beta +
		       (double)(p - 1) / p * red;
	}
	case COLL_AR_RABENSEIFNER: {
		/* Rabenseifner: rem extra ranks fold into partners (one full
		 * message and reduction), recursive-halving reduce-scatter on
		 * pof2 ranks (log2(pof2) messages, (pof2-1)/pof2 of the bytes
		 * sent and reduced), recursive-doubling allgather (the same
		 * messages and bytes), then the result back to the extras.
		 * Open MPI falls back to recursive doubling when count < pof2. */
		if (n / ELEM < pof2)
			return allreduce_cost(COLL_AR_RDBL, p, n, 0, w);
		double frac = (double)(pof2 - 1) / pof2;
		return 2 * lgp * w->alpha + 2 * frac * n * w->beta + frac * red +
		       (rem ? 2 * msg(w, n) + red : 0);
	}
	}
	return -1;
}

static double bcast_cost(int alg, int p, double n, int fanout, int segsize, const coll_net *w)
{
	int lg = ceil_log2(p);
	double k = segments(n, segsize), m = n / k;
	switch (alg) {
	case COLL_BC_LINEAR:
		/* The root sends p-1 full messages, one after the other. */
		return (p - 1) * msg(w, n);
	case COLL_BC_CHAIN: {
		/* f chains of length h = ceil((p-1)/f): the root sends every
		 * segment to f heads (its stage costs f messages), each chain
		 * member forwards it once; the last segment then needs h-1
		 * more steps to reach the chains' ends. */
		int f = fanout > 0 ? fanout : 4;
		if (f > p - 1)
			f = p - 1;
		int h = (p - 1 + f - 1) / f;
		return (k * f + h - 1) * msg(w, m);
	}
	case COLL_BC_PIPELINE:
		/* One chain through all ranks: k segments pipelined over p-1 hops. */
		return (k + p - 2) * msg(w, m);
	case COLL_BC_BINARY: {
		/* Binary tree of height floor(log2 p): every interior rank sends
		 * each segment to its two children (two messages a stage). */
		int f = p - 1 < 2 ? p - 1 : 2, h = floor_log2(p);
		return (k * f + h - 1) * msg(w, m);
	}
	case COLL_BC_SPLIT_BINARY: {
		/* The two halves go down the two subtrees of a binary tree (each
		 * half pipelined in its own segments, the root alternating),
		 * then each rank swaps halves with a partner in the other tree.
		 * With 2 ranks Open MPI uses a chain instead. */
		if (p <= 2)
			return bcast_cost(COLL_BC_CHAIN, p, n, 1, segsize, w);
		double k2 = segments(n / 2, segsize), m2 = n / 2 / k2;
		int h = floor_log2(p - 1);
		if (h < 1)
			h = 1;
		return (2 * k2 + h - 1) * msg(w, m2) + msg(w, n / 2);
	}
	case COLL_BC_BINOMIAL:
		/* The root sends every segment to its lg children; the first
		 * child's subtree (depth lg-1) finishes as the root sends its
		 * last message: k*lg steps of one segment. */
		return k * lg * msg(w, m);
	case COLL_BC_KNOMIAL: {
		/* Radix-r tree: ceil(log_r p) rounds, each rank sending to up to
		 * r-1 children per round. */
		int rounds = 0, span = 1, c = KNOMIAL_RADIX - 1;
		while (span < p) {
			span *= KNOMIAL_RADIX;
			rounds++;
		}
		if (c > p - 1)
			c = p - 1;
		return k * rounds * c * msg(w, m);
	}
	case COLL_BC_SCATTER_ALLGATHER:
		/* Binomial scatter (lg messages, (p-1)/p of the bytes leave the
		 * root) and recursive-doubling allgather (lg messages, (p-1)/p
		 * of the bytes); the extra ranks of a non-power-of-two size cost
		 * one more exchange of their block.  Open MPI uses linear when
		 * count < p. */
		if (n / ELEM < p)
			return bcast_cost(COLL_BC_LINEAR, p, n, 0, 0, w);
		return 2 * lg * w->alpha + 2.0 * (p - 1) / p * n * w->beta +
		       (p & (p - 1) ? msg(w, n / p) : 0);
	case COLL_BC_SCATTER_ALLGATHER_RING:
		/* Binomial scatter, then a ring allgather: p-1 steps of n/p. */
		if (n / ELEM < p)
			return bcast_cost(COLL_BC_LINEAR, p, n, 0, 0, w);
		return lg * w->alpha + (p - 1) * w->alpha + 2.0 * (p - 1) / p * n * w->beta;
	}
	return -1;
}

double coll_cost(int coll_id, int alg, int p, double n, int fanout, int segsize,
                 const coll_net *net)
{
	if (p < 2)
		return 0;
	if (coll_id == COLL_ID_ALLREDUCE)
		return allreduce_cost(alg, p, n, segsize, net);
	if (coll_id == COLL_ID_BCAST)
		return bcast_cost(alg, p, n, fanout, segsize, net);
	return -1;
}

/* The candidates in preference order (ties go to the earlier one): the
 * fewer messages first, since the model's errors (oversubscribed ranks,
 * per-message software costs) grow with the message count; measured in
 * bench/coll/REPORT.md (ring vs Rabenseifner on 4 ranks). */
typedef struct cand {
	int alg, fanout, segsize;
} cand;

static const cand ar_cands[] = {
	{ COLL_AR_RDBL, 0, 0 }, { COLL_AR_RABENSEIFNER, 0, 0 }, { COLL_AR_RING, 0, 0 },
	{ COLL_AR_NONOVERLAP, 0, 0 }, { COLL_AR_LINEAR, 0, 0 },
	{ COLL_AR_SEGRING, 0, 65536 }, { COLL_AR_SEGRING, 0, 1048576 },
};
static const cand bc_cands[] = {
	{ COLL_BC_BINOMIAL, 0, 0 }, { COLL_BC_LINEAR, 0, 0 }, { COLL_BC_KNOMIAL, 0, 0 },
	{ COLL_BC_SCATTER_ALLGATHER, 0, 0 }, { COLL_BC_SCATTER_ALLGATHER_RING, 0, 0 },
	{ COLL_BC_PIPELINE, 1, 8192 }, { COLL_BC_PIPELINE, 1, 32768 },
	{ COLL_BC_PIPELINE, 1, 131072 },
	{ COLL_BC_CHAIN, 2, 8192 }, { COLL_BC_CHAIN, 2, 32768 }, { COLL_BC_CHAIN, 2, 131072 },
	{ COLL_BC_SPLIT_BINARY, 0, 8192 }, { COLL_BC_SPLIT_BINARY, 0, 32768 },
	{ COLL_BC_SPLIT_BINARY, 0, 131072 },
	{ COLL_BC_BINARY, 0, 8192 }, { COLL_BC_BINARY, 0, 32768 },
	{ COLL_BC_BINARY, 0, 131072 },
};

coll_choice coll_choose(int coll_id, int p, double n, const coll_net *net)
{
	const cand *c = coll_id == COLL_ID_ALLREDUCE ? ar_cands : bc_cands;
	int nc = coll_id == COLL_ID_ALLREDUCE ? (int)(sizeof ar_cands / sizeof *ar_cands)
	                                      : (int)(sizeof bc_cands / sizeof *bc_cands);
	double t[sizeof bc_cands / sizeof *bc_cands], best = INFINITY;
	for (int i = 0; i < nc; i++) {
		t[i] = coll_cost(coll_id, c[i].alg, p, n, c[i].fanout, c[i].segsize, net);
		if (t[i] >= 0 && t[i] < best)
			best = t[i];
	}
	coll_choice r = { 0, 0, 0, best };
	for (int i = 0; i < nc; i++)
		if (t[i] >= 0 && t[i] <= best * 1.02) {
			r = (coll_choice){ c[i].alg, c[i].fanout, c[i].segsize, t[i] };
			break;
		}
	return r;
}
