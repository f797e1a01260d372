/* model.c - Hockney-model costs of Open MPI 4.1's coll/tuned algorithms
 * (MPI_Allreduce, MPI_Bcast, MPI_Allgather, MPI_Alltoall, MPI_Reduce,
 * MPI_Reduce_scatter, MPI_Barrier), on two levels, and the choice of the
 * fastest.
 *
 * Notation: p ranks, n bytes (the call's size in the rules file, see
 * coll_cost), b = n/p (one rank's block where the collective has blocks);
 * a message of m bytes costs alpha + m*beta over the link it crosses;
 * reducing m bytes costs m*gamma.  Sends of one rank are serialized (one
 * port), a rank can send and receive at once (full duplex), so a
 * pipeline's step costs as much as its busiest stage.  lg = ceil(log2 p);
 * pof2 = the largest power of two <= p; rem = p - pof2.  A segmented
 * algorithm cuts n into k = ceil(n / segsize) segments of m = n / k bytes
 * (k = 1 without segmentation).
 *
 * Two levels (docs/ARCHITECTURE.md, "The two-level model"): ranks sit in
 * blocks of ppn per host.  An algorithm is a sequence of rounds in which
 * every rank exchanges with a partner at a fixed distance; a round costs
 * as its slowest pair: the shared-memory link when every pair of it stays
 * inside a host, else the network, whose bandwidth the ranks of one host
 * that cross in that round share (beta times their number).  With one
 * rank per host every round crosses once per host: the one-level Hockney
 * model on the network's alpha and beta.  Each level has two pairs: the
 * exchange rounds' (every rank sends and receives at once: recursive
 * doubling and halving, rings, Bruck, pairwise) and, where measured, the
 * one-way pair of a ping-pong (trees, chains, linear steps: a rank only
 * sends or only receives in the hop).
 *
 * The formulas follow each algorithm's message pattern (documented at each
 * case); they ignore memory-copy costs and contention inside a host, which
 * is what the verification in verify.c is for. */
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include "coll/coll.h"

const int coll_ids[COLL_NCOLLS] = {
	COLL_ID_ALLGATHER, COLL_ID_ALLREDUCE, COLL_ID_ALLTOALL, COLL_ID_BARRIER,
	COLL_ID_BCAST, COLL_ID_REDUCE, COLL_ID_REDUCE_SCATTER,
};

static const char *ar_names[COLL_AR_COUNT] = {
	"ignore", "basic_linear", "nonoverlapping", "recursive_doubling", "ring",
	"segmented_ring", "rabenseifner",
};
static const char *bc_names[COLL_BC_COUNT] = {
	"ignore", "basic_linear", "chain", "pipeline", "split_binary_tree",
	"binary_tree", "binomial", "knomial", "scatter_allgather",
	"scatter_allgather_ring",
};
static const char *ag_names[COLL_AG_COUNT] = {
	"ignore", "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc",
};
static const char *a2a_names[COLL_A2A_COUNT] = {
	"ignore", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc",
};
static const char *bar_names[COLL_BAR_COUNT] = {
	"ignore", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree",
};
static const char *red_names[COLL_RED_COUNT] = {
	"ignore", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary",
	"rabenseifner",
};
static const char *rs_names[COLL_RS_COUNT] = {
	"ignore", "non-overlapping", "recursive_halving", "ring", "butterfly",
};

/* One collective's names: MCA spelling, MPI spelling, algorithm names. */
typedef struct coll_desc {
	int id;
	const char *name, *title;
	const char *const *algs;
	int nalgs;
} coll_desc;

#define DESC(id, name, title, algs) { id, name, title, algs, (int)(sizeof algs / sizeof *algs) }
static const coll_desc descs[COLL_NCOLLS] = {
	DESC(COLL_ID_ALLGATHER, "allgather", "MPI_Allgather", ag_names),
	DESC(COLL_ID_ALLREDUCE, "allreduce", "MPI_Allreduce", ar_names),
	DESC(COLL_ID_ALLTOALL, "alltoall", "MPI_Alltoall", a2a_names),
	DESC(COLL_ID_BARRIER, "barrier", "MPI_Barrier", bar_names),
	DESC(COLL_ID_BCAST, "bcast", "MPI_Bcast", bc_names),
	DESC(COLL_ID_REDUCE, "reduce", "MPI_Reduce", red_names),
	DESC(COLL_ID_REDUCE_SCATTER, "reduce_scatter", "MPI_Reduce_scatter", rs_names),
};

static const coll_desc *desc(int coll_id)
{
	for (int i = 0; i < COLL_NCOLLS; i++)
		if (descs[i].id == coll_id)
			return &descs[i];
	return NULL;
}

const char *coll_name(int coll_id)
{
	const coll_desc *d = desc(coll_id);
	return d ? d->name : NULL;
}

const char *coll_title(int coll_id)
{
	const coll_desc *d = desc(coll_id);
	return d ? d->title : NULL;
}

const char *coll_alg_name(int coll_id, int alg)
{
	const coll_desc *d = desc(coll_id);
	return d && alg >= 0 && alg < d->nalgs ? d->algs[alg] : NULL;
}

/* Open MPI's default k-nomial radix (coll_tuned_bcast_algorithm_knomial_radix). */
#define KNOMIAL_RADIX 4
/* The model counts elements as doubles where an algorithm's fallback
 * depends on the element count (ring and Rabenseifner need count >= p). */
#define ELEM 8.0

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

/* ---- the two levels ----------------------------------------------------- */

/* What a round's messages pay: alpha, and beta per byte. */
typedef struct hop {
	double alpha, beta;
} hop;

/* A one-way hop (tree, chain, linear step) inside a host or across:
 * the ping-pong figures where measured, else the exchange rounds'. */
static hop oneway(const coll_net *w, bool shm)
{
	if (shm)
		return w->alpha_1shm > 0 ? (hop){ w->alpha_1shm, w->beta_1shm }
		                         : (hop){ w->alpha_shm, w->beta_shm };
	return w->alpha_1 > 0 ? (hop){ w->alpha_1, w->beta_1 } : (hop){ w->alpha, w->beta };
}

/* The partner patterns of a round at distance d. */
enum pattern {
	XOR,     /* every rank r with r ^ d (recursive doubling and halving) */
	SHIFT,   /* every rank r sends to (r + d) mod p (ring, Bruck, pairwise) */
	TREE,    /* rank r, a multiple of 2d, with r + d (binomial trees) */
};

static int ranks_per_host(const coll_net *w, int p)
{
	return w->ppn <= 1 ? 1 : w->ppn < p ? w->ppn : p;
}

/* The link of a round: the first host's ranks (0..ppn-1) stand for every
 * host's.  None of them crossing: shared memory; c of them crossing: the
 * network, its bandwidth shared c ways. */
static hop round_hop(const coll_net *w, int p, enum pattern pat, int d)
{
	int ppn = ranks_per_host(w, p), crossing = 0;
	for (int r = 0; r < ppn; r++) {
		int peer;
		if (pat == XOR)
			peer = r ^ d;
		else if (pat == SHIFT)
			peer = (r + d) % p;
		else if (r % (2 * d) == 0)
			peer = r + d;
		else
			continue;
		if (peer < p && peer >= ppn)
			crossing++;
	}
	if (pat == TREE) {   /* one-way: the parent sends, the child receives */
		hop h = oneway(w, !crossing);
		return (hop){ h.alpha, h.beta * (crossing ? crossing : 1) };
	}
	if (!crossing)
		return (hop){ w->alpha_shm, w->beta_shm };
	return (hop){ w->alpha, w->beta * crossing };
}

/* A pipeline through all ranks (chains, segmented trees): its step costs
 * the slowest hop, the network as soon as the job spans hosts. */
static hop pipe_hop(const coll_net *w, int p)
{
	return oneway(w, ranks_per_host(w, p) >= p);
}

static double on(hop l, double m)
{
	return l.alpha + m * l.beta;
}

/* A k-nomial round at distance d: ranks r, multiples of radix*d, send to
 * r + d, r + 2d, .. r + (radix-1)d (one sender per block: no sharing). */
static hop knomial_hop(const coll_net *w, int p, int d)
{
	int ppn = ranks_per_host(w, p);
	for (int r = 0; r < ppn; r += KNOMIAL_RADIX * d)
		for (int i = 1; i < KNOMIAL_RADIX; i++)
			if (r + i * d < p && r + i * d >= ppn)
				return oneway(w, false);
	return oneway(w, true);
}

/* One round of the pattern at distance d carrying m bytes. */
static double round_cost(const coll_net *w, int p, enum pattern pat, int d, double m)
{
	return on(round_hop(w, p, pat, d), m);
}

/* Rank 0 sends (or receives) one message of m bytes to (from) every other
 * rank, one after the other: ppn-1 of them inside its host. */
static double linear(const coll_net *w, int p, double m)
{
	int local = ranks_per_host(w, p) - 1;
	return local * on(oneway(w, true), m) + (p - 1 - local) * on(oneway(w, false), m);
}

/* A binomial tree's rounds (distances 1, 2, 4, ... < p), m bytes each,
 * plus `extra` seconds per round (a reduction). */
static double binomial(const coll_net *w, int p, double m, double extra)
{
	double t = 0;
	for (int d = 1; d < p; d *= 2)
		t += round_cost(w, p, TREE, d, m) + extra;
	return t;
}

/* ---- the collectives ---------------------------------------------------- */

static double allreduce_cost(int alg, int p, double n, int segsize, const coll_net *w)
{
	int pof2 = 1 << floor_log2(p), rem = p - pof2;
	double red = n * w->gamma, t = 0;
	/* the rem extra ranks of a non-power-of-two size first hand their
	 * vector to a neighbour (one message, one reduction) and get the
	 * result back at the end */
	double fold = rem ? 2 * round_cost(w, p, XOR, 1, n) + red : 0;
	switch (alg) {
	case COLL_AR_LINEAR:
		/* Linear reduce: the root receives p-1 full vectors one after
		 * the other and reduces each; linear bcast: it sends p-1. */
		return 2 * linear(w, p, n) + (p - 1) * red;
	case COLL_AR_NONOVERLAP:
		/* Reduce then bcast, modelled as binomial trees: lg rounds of a
		 * full message and reduction, then lg rounds of a full message. */
		return binomial(w, p, n, red) + binomial(w, p, n, 0);
	case COLL_AR_RDBL:
		/* Recursive doubling on pof2 ranks: log2(pof2) exchanges of the
		 * full vector at distances 1, 2, 4, ..., each followed by a
		 * reduction. */
		for (int d = 1; d < pof2; d *= 2)
			t += round_cost(w, p, XOR, d, n) + red;
		return t + fold;
	case COLL_AR_RING:
		/* Ring: p-1 reduce-scatter steps of n/p bytes (send, receive,
		 * reduce), then p-1 allgather steps of n/p.  Open MPI falls back
		 * to recursive doubling when count < p. */
		if (n / ELEM < p)
			return allreduce_cost(COLL_AR_RDBL, p, n, 0, w);
		return 2 * (p - 1) * round_cost(w, p, SHIFT, 1, n / p) + (double)(p - 1) / p * red;
	case COLL_AR_SEGRING: {
		/* Segmented ring: each rank's block of n/p is cut into k
		 * segments; the ring runs once per segment: k times the
		 * messages of the ring, the same bytes. */
		if (n / ELEM < p)
			return allreduce_cost(COLL_AR_RDBL, p, n, 0, w);
		double k = segments(n / p, segsize);
		hop l = round_hop(w, p, SHIFT, 1);
		return 2 * (p - 1) * (k * l.alpha + n / p * l.beta) + (double)(p - 1) / p * red;
	}
	case COLL_AR_RABENSEIFNER:
		/* Rabenseifner: the extra ranks fold in, then a reduce-scatter by
		 * recursive halving at distances 1, 2, ... (half the vector sent
		 * and reduced at distance 1, a quarter at 2, ...) and the
		 * allgather back in reverse (the same messages); (pof2-1)/pof2 of
		 * the vector is reduced.  Open MPI falls back to recursive
		 * doubling when count < pof2. */
		if (n / ELEM < pof2)
			return allreduce_cost(COLL_AR_RDBL, p, n, 0, w);
		for (int d = 1; d < pof2; d *= 2)
			t += 2 * round_cost(w, p, XOR, d, n / (2.0 * d));
		return t + (double)(pof2 - 1) / pof2 * red + fold;
	}
	return -1;
}

static double bcast_cost(int alg, int p, double n, int fanout, int segsize, const coll_net *w)
{
	int lg = ceil_log2(p);
	double k = segments(n, segsize), m = n / k, t = 0;
	hop pl = pipe_hop(w, p);
	switch (alg) {
	case COLL_BC_LINEAR:
		/* The root sends p-1 full messages, one after the other. */
		return linear(w, p, n);
	case COLL_BC_CHAIN: {
		/* f chains of length h = ceil((p-1)/f): the root sends every
		 * segment to f heads (its stage costs f messages), each chain
		 * member forwards it once; the last segment then needs h-1
		 * more steps to reach the chains' ends. */
		int f = fanout > 0 ? fanout : 4;
		if (f > p - 1)
			f = p - 1;
		int h = (p - 1 + f - 1) / f;
		return (k * f + h - 1) * on(pl, m);
	}
	case COLL_BC_PIPELINE:
		/* One chain through all ranks: k segments pipelined over p-1 hops. */
		return (k + p - 2) * on(pl, m);
	case COLL_BC_BINARY: {
		/* Binary tree of height floor(log2 p): every interior rank sends
		 * each segment to its two children (two messages a stage). */
		int f = p - 1 < 2 ? p - 1 : 2, h = floor_log2(p);
		return (k * f + h - 1) * on(pl, m);
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
		return (2 * k2 + h - 1) * on(pl, m2) + on(pl, n / 2);
	}
	case COLL_BC_BINOMIAL:
		/* The root sends every segment to its lg children; the first
		 * child's subtree (depth lg-1) finishes as the root sends its
		 * last message: k times the tree's rounds of one segment. */
		return k * binomial(w, p, m, 0);
	case COLL_BC_KNOMIAL: {
		/* Radix-r tree: ceil(log_r p) rounds, each rank sending to up to
		 * r-1 children per round (at distances d, 2d, .. (r-1)d of round
		 * d = 1, r, r^2, ...). */
		int c = KNOMIAL_RADIX - 1;
		if (c > p - 1)
			c = p - 1;
		for (int d = 1; d < p; d *= KNOMIAL_RADIX)
			t += c * on(knomial_hop(w, p, d), m);
		return k * t;
	}
	case COLL_BC_SCATTER_ALLGATHER:
		/* Binomial scatter (lg rounds, the farthest first, the half of
		 * what a rank holds each time: (p-1)/p of the bytes leave the
		 * root) and a recursive-doubling allgather (lg rounds of 1, 2,
		 * 4, ... blocks); the extra ranks of a non-power-of-two size cost
		 * one more exchange of their block.  Open MPI uses linear when
		 * count < p. */
		if (n / ELEM < p)
			return bcast_cost(COLL_BC_LINEAR, p, n, 0, 0, w);
		for (int d = 1; d < p; d *= 2)
			t += round_cost(w, p, TREE, d, n * d / (1 << lg)) +
			     round_cost(w, p, XOR, d, n * d / (1 << lg));
		return t + (p & (p - 1) ? round_cost(w, p, XOR, 1, n / p) : 0);
	case COLL_BC_SCATTER_ALLGATHER_RING:
		/* Binomial scatter, then a ring allgather: p-1 steps of n/p. */
		if (n / ELEM < p)
			return bcast_cost(COLL_BC_LINEAR, p, n, 0, 0, w);
		for (int d = 1; d < p; d *= 2)
			t += round_cost(w, p, TREE, d, n * d / (1 << lg));
		return t + (p - 1) * round_cost(w, p, SHIFT, 1, n / p);
	}
	return -1;
}

static double allgather_cost(int alg, int p, double n, const coll_net *w)
{
	double b = n / p, t = 0;
	bool pof2 = !(p & (p - 1));
	switch (alg) {
	case COLL_AG_LINEAR:
		/* Rank 0 receives p-1 blocks, then broadcasts all n bytes along
		 * a binomial tree. */
		return linear(w, p, b) + binomial(w, p, n, 0);
	case COLL_AG_BRUCK:
		/* lg rounds: at distance d = 1, 2, 4, ... every rank sends the
		 * min(d, p-d) blocks it has to rank r - d. */
		for (int d = 1; d < p; d *= 2)
			t += round_cost(w, p, SHIFT, d, b * (d < p - d ? d : p - d));
		return t;
	case COLL_AG_RDBL:
		/* log2 p exchanges at distances 1, 2, 4, ... of 1, 2, 4, ...
		 * blocks; Bruck for a non-power-of-two p. */
		if (!pof2)
			return allgather_cost(COLL_AG_BRUCK, p, n, w);
		for (int d = 1; d < p; d *= 2)
			t += round_cost(w, p, XOR, d, b * d);
		return t;
	case COLL_AG_RING:
		/* p-1 steps of one block to the right-hand neighbour. */
		return (p - 1) * round_cost(w, p, SHIFT, 1, b);
	case COLL_AG_NEIGHBOR:
		/* p/2 steps: one block with one neighbour, then two blocks a
		 * step with the left and right neighbours in turn; ring for an
		 * odd p. */
		if (p % 2)
			return allgather_cost(COLL_AG_RING, p, n, w);
		return round_cost(w, p, XOR, 1, b) + (p / 2 - 1) * round_cost(w, p, SHIFT, 1, 2 * b);
	case COLL_AG_TWO_PROC:
		return p == 2 ? round_cost(w, p, XOR, 1, b) : -1;
	}
	return -1;
}

static double alltoall_cost(int alg, int p, double n, const coll_net *w)
{
	double b = n / p, t = 0;
	int ppn = ranks_per_host(w, p);
	switch (alg) {
	case COLL_A2A_LINEAR:
	case COLL_A2A_LINEAR_SYNC:
		/* Every rank posts its p-1 sends at once: ppn-1 blocks inside the
		 * host, p-ppn over the network, whose bandwidth the host's ppn
		 * ranks share (linear_sync bounds the requests in flight: the
		 * same bytes and messages). */
		return (ppn - 1) * on((hop){ w->alpha_shm, w->beta_shm }, b) +
		       (p - ppn) * on((hop){ w->alpha, w->beta * ppn }, b);
	case COLL_A2A_PAIRWISE:
		/* p-1 steps: at step s rank r sends its block to r + s and
		 * receives from r - s. */
		for (int s = 1; s < p; s++)
			t += round_cost(w, p, SHIFT, s, b);
		return t;
	case COLL_A2A_BRUCK:
		/* lg rounds: at distance d = 2^j every rank sends the blocks
		 * whose index has bit j set (about half of them) to r + d. */
		for (int d = 1; d < p; d *= 2) {
			int blocks = 0;
			for (int i = 0; i < p; i++)
				blocks += (i & d) != 0;
			t += round_cost(w, p, SHIFT, d, b * blocks);
		}
		return t;
	case COLL_A2A_TWO_PROC:
		return p == 2 ? round_cost(w, p, XOR, 1, b) : -1;
	}
	return -1;
}

static double barrier_cost(int alg, int p, const coll_net *w)
{
	int pof2 = 1 << floor_log2(p);
	double t = 0;
	switch (alg) {
	case COLL_BAR_LINEAR:
		/* Rank 0 hears from every rank, then releases every rank. */
		return 2 * linear(w, p, 0);
	case COLL_BAR_DOUBLE_RING:
		/* A token goes twice around the ring: 2p hops. */
		return 2 * p * round_cost(w, p, SHIFT, 1, 0);
	case COLL_BAR_RDBL:
		/* log2(pof2) exchanges; the extra ranks report before and are
		 * released after. */
		for (int d = 1; d < pof2; d *= 2)
			t += round_cost(w, p, XOR, d, 0);
		return t + (p > pof2 ? 2 * round_cost(w, p, XOR, 1, 0) : 0);
	case COLL_BAR_BRUCK:
		/* Dissemination: lg rounds, r signals r + d for d = 1, 2, 4, ... */
		for (int d = 1; d < p; d *= 2)
			t += round_cost(w, p, SHIFT, d, 0);
		return t;
	case COLL_BAR_TWO_PROC:
		return p == 2 ? round_cost(w, p, XOR, 1, 0) : -1;
	case COLL_BAR_TREE:
		/* Fan-in and fan-out along a binomial tree. */
		return 2 * binomial(w, p, 0, 0);
	}
	return -1;
}

static double reduce_cost(int alg, int p, double n, int fanout, int segsize, const coll_net *w)
{
	int pof2 = 1 << floor_log2(p), rem = p - pof2;
	double k = segments(n, segsize), m = n / k, red = n * w->gamma, t = 0;
	hop pl = pipe_hop(w, p);
	switch (alg) {
	case COLL_RED_LINEAR:
		/* Rank 0 receives p-1 vectors one after the other, reducing each. */
		return linear(w, p, n) + (p - 1) * red;
	case COLL_RED_CHAIN: {
		/* The chains of bcast, the other way: the root's stage receives
		 * and reduces f segments a step. */
		int f = fanout > 0 ? fanout : 4;
		if (f > p - 1)
			f = p - 1;
		int h = (p - 1 + f - 1) / f;
		return (k * f + h - 1) * (on(pl, m) + m * w->gamma);
	}
	case COLL_RED_PIPELINE:
		/* One chain: k segments over p-1 hops, each reduced on the way. */
		return (k + p - 2) * (on(pl, m) + m * w->gamma);
	case COLL_RED_BINARY:
	case COLL_RED_INORDER_BINARY: {
		/* Binary tree: an interior rank receives and reduces two
		 * segments a stage. */
		int f = p - 1 < 2 ? p - 1 : 2, h = floor_log2(p);
		return (k * f + h - 1) * (on(pl, m) + m * w->gamma);
	}
	case COLL_RED_BINOMIAL:
		/* k times the tree's rounds of one segment and its reduction. */
		return k * binomial(w, p, m, m * w->gamma);
	case COLL_RED_RABENSEIFNER:
		/* The extra ranks fold in (one vector, one reduction), recursive
		 * halving at distances 1, 2, 4, ... (n/2, n/4, ... bytes sent and
		 * reduced), then a binomial gather of the pieces to the root
		 * (the same bytes back).  Linear when count < pof2. */
		if (n / ELEM < pof2)
			return reduce_cost(COLL_RED_LINEAR, p, n, 0, 0, w);
		for (int d = 1; d < pof2; d *= 2)
			t += round_cost(w, p, XOR, d, n / (2.0 * d)) +
			     round_cost(w, p, TREE, d, n / (2.0 * d));
		return t + (double)(pof2 - 1) / pof2 * red +
		       (rem ? round_cost(w, p, XOR, 1, n) + red : 0);
	}
	return -1;
}

static double reduce_scatter_cost(int alg, int p, double n, const coll_net *w)
{
	int pof2 = 1 << floor_log2(p), rem = p - pof2;
	double b = n / p, red = n * w->gamma, t = 0;
	/* extra ranks: their vector folded into a neighbour first, their
	 * block sent back at the end */
	double fold = rem ? round_cost(w, p, XOR, 1, n) + red + round_cost(w, p, XOR, 1, b) : 0;
	switch (alg) {
	case COLL_RS_NONOVERLAP:
		/* A reduce to rank 0 (binomial: lg rounds of the vector and its
		 * reduction), then rank 0 sends every rank its block. */
		return binomial(w, p, n, red) + linear(w, p, b);
	case COLL_RS_HALVING:
		/* Recursive halving, the farthest partner first: distance pof2/2
		 * carries n/2, pof2/4 carries n/4, ..., each half reduced. */
		for (int d = pof2 / 2; d >= 1; d /= 2)
			t += round_cost(w, p, XOR, d, n * d / pof2);
		return t + (double)(pof2 - 1) / pof2 * red + fold;
	case COLL_RS_RING:
		/* p-1 steps of one block to the neighbour, each reduced. */
		return (p - 1) * round_cost(w, p, SHIFT, 1, b) + (double)(p - 1) / p * red;
	case COLL_RS_BUTTERFLY:
		/* Recursive halving with distance doubling: distance 1 carries
		 * n/2, 2 carries n/4, ... */
		for (int d = 1; d < pof2; d *= 2)
			t += round_cost(w, p, XOR, d, n / (2.0 * d));
		return t + (double)(pof2 - 1) / pof2 * red + fold;
	}
	return -1;
}

double coll_cost(int coll_id, int alg, int p, double n, int fanout, int segsize,
                 const coll_net *net)
{
	if (p < 2)
		return 0;
	switch (coll_id) {
	case COLL_ID_ALLREDUCE:
		return allreduce_cost(alg, p, n, segsize, net);
	case COLL_ID_BCAST:
		return bcast_cost(alg, p, n, fanout, segsize, net);
	case COLL_ID_ALLGATHER:
		return allgather_cost(alg, p, n, net);
	case COLL_ID_ALLTOALL:
		return alltoall_cost(alg, p, n, net);
	case COLL_ID_BARRIER:
		return barrier_cost(alg, p, net);
	case COLL_ID_REDUCE:
		return reduce_cost(alg, p, n, fanout, segsize, net);
	case COLL_ID_REDUCE_SCATTER:
		return reduce_scatter_cost(alg, p, n, net);
	}
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
static const cand ag_cands[] = {
	{ COLL_AG_RDBL, 0, 0 }, { COLL_AG_BRUCK, 0, 0 }, { COLL_AG_RING, 0, 0 },
	{ COLL_AG_NEIGHBOR, 0, 0 }, { COLL_AG_LINEAR, 0, 0 }, { COLL_AG_TWO_PROC, 0, 0 },
};
static const cand a2a_cands[] = {
	{ COLL_A2A_BRUCK, 0, 0 }, { COLL_A2A_PAIRWISE, 0, 0 }, { COLL_A2A_LINEAR, 0, 0 },
	{ COLL_A2A_TWO_PROC, 0, 0 },
};
static const cand bar_cands[] = {
	{ COLL_BAR_RDBL, 0, 0 }, { COLL_BAR_BRUCK, 0, 0 }, { COLL_BAR_TREE, 0, 0 },
	{ COLL_BAR_LINEAR, 0, 0 }, { COLL_BAR_DOUBLE_RING, 0, 0 }, { COLL_BAR_TWO_PROC, 0, 0 },
};
static const cand red_cands[] = {
	{ COLL_RED_BINOMIAL, 0, 0 }, { COLL_RED_RABENSEIFNER, 0, 0 }, { COLL_RED_LINEAR, 0, 0 },
	{ COLL_RED_PIPELINE, 1, 32768 }, { COLL_RED_PIPELINE, 1, 131072 },
	{ COLL_RED_BINARY, 0, 32768 }, { COLL_RED_BINARY, 0, 131072 },
	{ COLL_RED_BINOMIAL, 0, 32768 }, { COLL_RED_BINOMIAL, 0, 131072 },
};
static const cand rs_cands[] = {
	{ COLL_RS_HALVING, 0, 0 }, { COLL_RS_BUTTERFLY, 0, 0 }, { COLL_RS_RING, 0, 0 },
	{ COLL_RS_NONOVERLAP, 0, 0 },
};

#define CANDS(id, a) case id: *nc = (int)(sizeof a / sizeof *a); return a
static const cand *cands(int coll_id, int *nc)
{
	switch (coll_id) {
	CANDS(COLL_ID_ALLREDUCE, ar_cands);
	CANDS(COLL_ID_BCAST, bc_cands);
	CANDS(COLL_ID_ALLGATHER, ag_cands);
	CANDS(COLL_ID_ALLTOALL, a2a_cands);
	CANDS(COLL_ID_BARRIER, bar_cands);
	CANDS(COLL_ID_REDUCE, red_cands);
	CANDS(COLL_ID_REDUCE_SCATTER, rs_cands);
	}
	*nc = 0;
	return NULL;
}

coll_choice coll_choose(int coll_id, int p, double n, const coll_net *net)
{
	int nc;
	const cand *c = cands(coll_id, &nc);
	double t[32], best = INFINITY;
	for (int i = 0; i < nc; i++) {
		t[i] = coll_cost(coll_id, c[i].alg, p, n, c[i].fanout, c[i].segsize, net);
		if (t[i] >= 0 && t[i] < best)
			best = t[i];
	}
	coll_choice r = { 0, 0, 0, best, NULL };
	for (int i = 0; i < nc; i++)
		if (t[i] >= 0 && t[i] <= best * 1.02) {
			r = (coll_choice){ c[i].alg, c[i].fanout, c[i].segsize, t[i], NULL };
			break;
		}
	return r;
}

int coll_fit(const double *n, const double *t, int m, double *alpha, double *beta)
{
	double sw = 0, swn = 0, swnn = 0, swt = 0, swnt = 0, tmin = INFINITY;
	for (int i = 0; i < m; i++) {
		if (!(t[i] > 0))
			return -1;
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
	if (m < 2 || !(det > 1e-9 * sw * swnn))
		return -1;
	*alpha = (swt * swnn - swn * swnt) / det;
	*beta = (sw * swnt - swn * swt) / det;
	if (!(*alpha > 0))
		*alpha = tmin;
	if (!(*beta > 0))
		*beta = 1e-12;
	return 0;
}
