/* hand_nbc.c - nonblocking collectives (MPI_Ibarrier .. MPI_Iexscan) and
 * neighborhood collectives (MPI_Neighbor_*, MPI_Ineighbor_*).
 *
 * Buffers stay in linear memory (zero-copy: the memory's base never
 * moves, and MPI forbids touching them before the operation completes).
 * What the host call reads that is not a buffer - snapshots of the
 * counts, displacements and datatype arrays (the module may change the
 * originals before the operation completes: what was checked must be
 * what the library reads), per-peer host datatypes, 64-bit MPI_Aint
 * displacements, a host op standing for a module's user op - lives in a
 * `keep` record that the request owns (mw_req_attach): it is released
 * exactly once, when the request completes or is freed.  The procedures
 * are typed (family-nbc.txt): their generated entries check the arguments
 * by coll_args.c's rules, which the blocking collectives (hand_coll.c)
 * share, and the handlers get the host values the rules filled in
 * (mw_coll), the snapshots malloc'd for the request to take. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "coll_args.h"
#include "rt/rt.h"

typedef uint32_t u32;

/* ---- user-defined ops in nonblocking reductions --------------------------
 * The host calls an MPI_User_function with no user data, possibly long
 * after the call that started the reduction (in any later MPI call that
 * makes progress), so the bridge's "op of the running reduction" cannot
 * tell which module function to apply.  Each pending reduction with a user
 * op gets a host op of its own whose function is one of NTRAMP
 * trampolines; a trampoline is bound to one module function while any
 * pending reduction uses it. */

#define NTRAMP 64
static struct { u32 fn, refs; } tramp_slot[NTRAMP];

static void tramp_run(int k, void *in, void *inout, int *len, MPI_Datatype *dt)
{
	mw_uop_apply(tramp_slot[k].fn, in, inout, len, dt);
}

/* tramp_<k><j> runs trampoline slot 8*k + j. */
#define T1(k, j) static void tramp_##k##j(void *a, void *b, int *l, MPI_Datatype *d) \
	{ tramp_run(8 * k + j, a, b, l, d); }
#define T8(k) T1(k, 0) T1(k, 1) T1(k, 2) T1(k, 3) T1(k, 4) T1(k, 5) T1(k, 6) T1(k, 7)
T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)
#define P8(k) tramp_##k##0, tramp_##k##1, tramp_##k##2, tramp_##k##3, \
	tramp_##k##4, tramp_##k##5, tramp_##k##6, tramp_##k##7
static MPI_User_function *const tramps[NTRAMP] = {
	P8(0), P8(1), P8(2), P8(3), P8(4), P8(5), P8(6), P8(7)
};

/* A trampoline bound to module function fn (shared), or -1 if all are
 * bound to other functions. */
static int tramp_get(u32 fn)
{
	int free_k = -1;
	mw_lock();
	for (int k = 0; k < NTRAMP; k++) {
		if (tramp_slot[k].refs && tramp_slot[k].fn == fn) {
			tramp_slot[k].refs++;
			mw_unlock();
			return k;
		}
		if (!tramp_slot[k].refs && free_k < 0)
			free_k = k;
	}
	if (free_k >= 0) {
		tramp_slot[free_k].fn = fn;
		tramp_slot[free_k].refs = 1;
	}
	mw_unlock();
	return free_k;
}

/* ---- what a request keeps ------------------------------------------------ */

typedef struct keep {
	MPI_Op op;                /* host op for a user op, or MPI_OP_NULL */
	int tramp;                /* its trampoline, or -1 */
	MPI_Datatype *stypes, *rtypes;   /* per-peer host datatypes */
	MPI_Aint *sdispls, *rdispls;     /* per-peer byte displacements */
	int nsnap;
	mw_snap *snap;            /* the module arrays the host reads (malloc'd) */
} keep;

static void keep_free(void *arg)
{
	keep *k = arg;
	if (!k)
		return;
	if (k->op != MPI_OP_NULL)
		MPI_Op_free(&k->op);
	if (k->tramp >= 0) {
		mw_lock();
		tramp_slot[k->tramp].refs--;
		mw_unlock();
	}
	free(k->stypes);
	free(k->rtypes);
	free(k->sdispls);
	free(k->rdispls);
	for (int i = 0; i < k->nsnap; i++)
		mw_snap_free(&k->snap[i]);
	free(k->snap);
	free(k);
}

static keep *keep_new(keep **kp)
{
	if (!*kp && (*kp = calloc(1, sizeof **kp))) {
		(*kp)->op = MPI_OP_NULL;
		(*kp)->tramp = -1;
	}
	return *kp;
}

/* Hands what the checks of a call made that its host call reads
 * (snapshots, host datatypes and displacements) to the request's keep
 * *kp (made here if need be): 0, or MW_ERR_NO_MEM (a keeps them then). */
static int keep_take(keep **kp, mw_coll *a)
{
	if (!(a->nsnap && a->heap) && !a->stypes && !a->rtypes && !a->sadispls && !a->radispls)
		return 0;
	keep *k = keep_new(kp);
	if (!k)
		return MW_ERR_NO_MEM;
	k->snap = mw_coll_take(a, &k->nsnap);
	k->stypes = a->stypes;
	k->rtypes = a->rtypes;
	k->sdispls = a->sadispls;
	k->rdispls = a->radispls;
	a->stypes = a->rtypes = NULL;
	a->sadispls = a->radispls = NULL;
	return 0;
}

/* The host op for module op opv: a predefined op or the host op of a
 * user op as it is; a user op gets a host op of its own, kept in *kp. */
static int nbc_op(u32 opv, MPI_Op *out, keep **kp)
{
	MPI_Op h;
	u32 fn;
	int commute = 1;
	if (mw_op_get(opv, &h))
		return MW_ERR_OP;
	if (!mw_uop_fn(opv, &fn)) {
		*out = h;
		return 0;
	}
	MPI_Op_commutative(h, &commute);
	keep *k = keep_new(kp);
	if (!k)
		return MW_ERR_NO_MEM;
	if ((k->tramp = tramp_get(fn)) < 0) {
		fprintf(stderr, "mpiwasm: rank %d: hand_nbc.c: more than %d different "
		        "user-defined ops in pending nonblocking reductions\n",
		        mw_world_rank, NTRAMP);
		return MW_ERR_INTERN;
	}
	if (MPI_Op_create(tramps[k->tramp], commute, &k->op) != MPI_SUCCESS) {
		k->op = MPI_OP_NULL;
		return MW_ERR_INTERN;
	}
	*out = k->op;
	return 0;
}

/* A started operation: the module request, owning k, or the host's error.
 * Every such request owns a keep, if only a null one, so that
 * MPI_Request_free treats all of them alike (mw_req_orphan): MPI-3.1 5.12
 * makes freeing them erroneous and MPICH refuses it, but the bridge lets
 * the program do it on any host and completes the operation itself. */
static u32 started(const mw_call *c, int rc, MPI_Request hr, u32 *r, keep *k,
                   MPI_Comm hc)
{
	if (rc == MPI_SUCCESS) {
		*r = mw_req_put(hr);
		mw_req_attach(*r, keep_free, k);
		mw_req_hold(*r, hc);   /* a freed comm waits for it (mpib.c) */
	} else
		keep_free(k);
	return mw_call_ret(c, rc);
}

/* A nonblocking call of host procedure x (its request &hr) on the
 * arguments checked in m: what the request keeps is taken first. */
#define START(x)                                                          \
	do {                                                              \
		keep *kp = NULL;                                          \
		MPI_Request hr;                                           \
		int rc_ = keep_take(&kp, comm);                           \
		if (rc_)                                                  \
			return mw_call_fail(k, rc_);                      \
		rc_ = (x);   /* before hr is read */                      \
		return started(k, rc_, hr, request, kp, comm->c);         \
	} while (0)


/* ---- nonblocking collectives -----------------------------------------------
 * Their arguments were checked by coll_args.c, by the same rules as their
 * blocking forms' (hand_coll.c). */

u32 mwh_Ibarrier(const mw_call *k, mw_coll *comm, u32 *request)
{
	START(MPI_Ibarrier(comm->c, &hr));
}

u32 mwh_Ibcast(const mw_call *k, void *buffer, int count, mw_dtype *datatype, int root,
               mw_coll *comm, u32 *request)
{
	START(MPI_Ibcast(buffer, count, datatype->h, root, comm->c, &hr));
}

u32 mwh_Igather(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                void *recvbuf, int recvcount, mw_dtype *recvtype, int root, mw_coll *comm,
                u32 *request)
{
	START(MPI_Igather(sendbuf, sendcount, sendtype->h, recvbuf, recvcount, recvtype->h,
	                  root, comm->c, &hr));
}

u32 mwh_Iscatter(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                 void *recvbuf, int recvcount, mw_dtype *recvtype, int root, mw_coll *comm,
                 u32 *request)
{
	START(MPI_Iscatter(sendbuf, sendcount, sendtype->h, recvbuf, recvcount, recvtype->h,
	                   root, comm->c, &hr));
}

u32 mwh_Igatherv(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                 void *recvbuf, int *recvcounts, int *displs, mw_dtype *recvtype, int root,
                 mw_coll *comm, u32 *request)
{
	START(MPI_Igatherv(sendbuf, sendcount, sendtype->h, recvbuf, recvcounts, displs,
	                   recvtype->h, root, comm->c, &hr));
}

u32 mwh_Iscatterv(const mw_call *k, const void *sendbuf, int *sendcounts, int *displs,
                  mw_dtype *sendtype, void *recvbuf, int recvcount, mw_dtype *recvtype,
                  int root, mw_coll *comm, u32 *request)
{
	START(MPI_Iscatterv(sendbuf, sendcounts, displs, sendtype->h, recvbuf, recvcount,
	                    recvtype->h, root, comm->c, &hr));
}

u32 mwh_Iallgather(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                   void *recvbuf, int recvcount, mw_dtype *recvtype, mw_coll *comm,
                   u32 *request)
{
	START(MPI_Iallgather(sendbuf, sendcount, sendtype->h, recvbuf, recvcount, recvtype->h,
	                     comm->c, &hr));
}

u32 mwh_Ialltoall(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                  void *recvbuf, int recvcount, mw_dtype *recvtype, mw_coll *comm,
                  u32 *request)
{
	START(MPI_Ialltoall(sendbuf, sendcount, sendtype->h, recvbuf, recvcount, recvtype->h,
	                    comm->c, &hr));
}

u32 mwh_Iallgatherv(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                    void *recvbuf, int *recvcounts, int *displs, mw_dtype *recvtype,
                    mw_coll *comm, u32 *request)
{
	START(MPI_Iallgatherv(sendbuf, sendcount, sendtype->h, recvbuf, recvcounts, displs,
	                      recvtype->h, comm->c, &hr));
}

u32 mwh_Ialltoallv(const mw_call *k, const void *sendbuf, int *sendcounts, int *sdispls,
                   mw_dtype *sendtype, void *recvbuf, int *recvcounts, int *rdispls,
                   mw_dtype *recvtype, mw_coll *comm, u32 *request)
{
	START(MPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype->h, recvbuf, recvcounts,
	                     rdispls, recvtype->h, comm->c, &hr));
}

u32 mwh_Ialltoallw(const mw_call *k, const void *sendbuf, int *sendcounts, int *sdispls,
                   MPI_Datatype *sendtypes, void *recvbuf, int *recvcounts, int *rdispls,
                   MPI_Datatype *recvtypes, mw_coll *comm, u32 *request)
{
	START(MPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
	                     rdispls, recvtypes, comm->c, &hr));
}

/* The reductions: the host op for op (nbc_op, its keep the request's). */
#define RSTART(x)                                                         \
	do {                                                              \
		keep *kp = NULL;                                          \
		MPI_Request hr;                                           \
		MPI_Op h;                                                 \
		int rc_ = keep_take(&kp, comm);                           \
		if (!rc_)                                                 \
			rc_ = nbc_op(op->mod, &h, &kp);                   \
		if (rc_) {                                                \
			keep_free(kp);                                    \
			return mw_call_fail(k, rc_);                      \
		}                                                         \
		mw_ld_op(op->mod, datatype, &h);                          \
		rc_ = (x);   /* before hr is read */                      \
		return started(k, rc_, hr, request, kp, comm->c);         \
	} while (0)

u32 mwh_Ireduce(const mw_call *k, const void *sendbuf, void *recvbuf, int count,
                mw_dtype *datatype, const mw_op_ref *op, int root, mw_coll *comm,
                u32 *request)
{
	RSTART(MPI_Ireduce(sendbuf, recvbuf, count, datatype->h, h, root, comm->c, &hr));
}

u32 mwh_Iallreduce(const mw_call *k, const void *sendbuf, void *recvbuf, int count,
                   mw_dtype *datatype, const mw_op_ref *op, mw_coll *comm, u32 *request)
{
	RSTART(MPI_Iallreduce(sendbuf, recvbuf, count, datatype->h, h, comm->c, &hr));
}

u32 mwh_Iscan(const mw_call *k, const void *sendbuf, void *recvbuf, int count,
              mw_dtype *datatype, const mw_op_ref *op, mw_coll *comm, u32 *request)
{
	RSTART(MPI_Iscan(sendbuf, recvbuf, count, datatype->h, h, comm->c, &hr));
}

u32 mwh_Iexscan(const mw_call *k, const void *sendbuf, void *recvbuf, int count,
                mw_dtype *datatype, const mw_op_ref *op, mw_coll *comm, u32 *request)
{
	RSTART(MPI_Iexscan(sendbuf, recvbuf, count, datatype->h, h, comm->c, &hr));
}

u32 mwh_Ireduce_scatter_block(const mw_call *k, const void *sendbuf, void *recvbuf,
                              int recvcount, mw_dtype *datatype, const mw_op_ref *op,
                              mw_coll *comm, u32 *request)
{
	RSTART(MPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype->h, h, comm->c,
	                                 &hr));
}

u32 mwh_Ireduce_scatter(const mw_call *k, const void *sendbuf, void *recvbuf,
                        int *recvcounts, mw_dtype *datatype, const mw_op_ref *op,
                        mw_coll *comm, u32 *request)
{
	RSTART(MPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype->h, h, comm->c, &hr));
}

/* ---- neighborhood collectives ------------------------------------------------
 * Blocks go to and come from the neighbours of the communicator's
 * topology; a blocking call's snapshots stay with its entry. */

/* In- and out-degree of comm's topology (a cartesian one has 2 per
 * dimension, MPI_PROC_NULL neighbors included). */
int mw_degrees(MPI_Comm c, int *in, int *out)
{
	int topo = MPI_UNDEFINED, w, me, nd;
	if (MPI_Topo_test(c, &topo) != MPI_SUCCESS)
		return MW_ERR_COMM;
	switch (topo) {
	case MPI_CART:
		if (MPI_Cartdim_get(c, &nd) != MPI_SUCCESS)
			return MW_ERR_TOPOLOGY;
		*in = *out = 2 * nd;
		return 0;
	case MPI_GRAPH:
		MPI_Comm_rank(c, &me);
		if (MPI_Graph_neighbors_count(c, me, &nd) != MPI_SUCCESS)
			return MW_ERR_TOPOLOGY;
		*in = *out = nd;
		return 0;
	case MPI_DIST_GRAPH:
		if (MPI_Dist_graph_neighbors_count(c, in, out, &w) != MPI_SUCCESS)
			return MW_ERR_TOPOLOGY;
		return 0;
	default:
		return MW_ERR_TOPOLOGY;
	}
}

/* The neighbours of this process in comm's topology, in the order the
 * collectives use them: src[0..in) it receives from, dst[0..out) it sends
 * to (malloc'd; a cartesian topology gives the source then the
 * destination of a shift by 1 in each dimension). */
static int neighbours(MPI_Comm c, int in, int out, int **src, int **dst)
{
	int topo = MPI_UNDEFINED, me, rc = MPI_SUCCESS;
	*src = malloc(((size_t)in + 1) * sizeof **src);
	*dst = malloc(((size_t)out + 1) * sizeof **dst);
	int *sw = malloc(((size_t)in + 1) * sizeof *sw), *dw = malloc(((size_t)out + 1) * sizeof *dw);
	if (!*src || !*dst || !sw || !dw) {
		free(sw), free(dw);
		return MW_ERR_NO_MEM;
	}
	MPI_Topo_test(c, &topo);
	MPI_Comm_rank(c, &me);
	if (topo == MPI_CART) {
		for (int d = 0; 2 * d + 1 < in && rc == MPI_SUCCESS; d++)
			rc = MPI_Cart_shift(c, d, 1, &(*src)[2 * d], &(*src)[2 * d + 1]);
		memcpy(*dst, *src, (size_t)out * sizeof **dst);
	} else if (topo == MPI_GRAPH) {
		rc = MPI_Graph_neighbors(c, me, in, *src);
		memcpy(*dst, *src, (size_t)out * sizeof **dst);
	} else
		rc = MPI_Dist_graph_neighbors(c, in, *src, sw, out, *dst, dw);
	free(sw);
	free(dw);
	return rc == MPI_SUCCESS ? 0 : MW_ERR_TOPOLOGY;
}

/* One side of a neighborhood collective, per neighbour i: counts[i]
 * elements of types[i], where an array is NULL the same count or type
 * for all. */
typedef struct side {
	const int *counts;
	int count;
	const MPI_Datatype *types;
	MPI_Datatype type;
} side;

static int64_t side_bytes(const side *s, int i)
{
	MPI_Count size = 0;
	MPI_Type_size_x(s->types ? s->types[i] : s->type, &size);
	return (int64_t)(s->counts ? s->counts[i] : s->count) * size;
}

/* Messages this process sends to itself (a periodic dimension of size 1,
 * a graph listing it among its own neighbours): the k-th block it sends
 * to itself arrives in the k-th block it receives from itself, as Open
 * MPI and MPICH pair them (one tag, in order).  Sizes that differ are
 * erroneous (as in mw_own_block), and a longer message is copied whole
 * past the block's end by Open MPI 4.1's self transport, or waits for
 * ever (tests/fuzz-bridge/open/self-truncate.c); a shorter one that
 * splits an element makes MPICH 4.0 assert: refused here with
 * MPI_ERR_TRUNCATE, naming the blocks.  1 if refused (*ret is the
 * result), else 0. */
static int self_refused(rt_instance *inst, MPI_Comm c, int in, int out,
                        const side *snd, const side *rcv, u32 comm,
                        const char *proc, u32 *ret)
{
	int *src, *dst, me, rc, i = 0, j = 0;
	if ((rc = neighbours(c, in, out, &src, &dst))) {
		free(src);
		free(dst);
		*ret = mw_fail(inst, rc, comm, proc);
		return 1;
	}
	MPI_Comm_rank(c, &me);
	for (;;) {
		while (i < out && dst[i] != me)
			i++;
		while (j < in && src[j] != me)
			j++;
		if (i == out || j == in)
			break;
		int64_t sent = side_bytes(snd, i), room = side_bytes(rcv, j);
		if (sent != room) {
			free(src);
			free(dst);
			*ret = mw_fail_arg(inst, MW_ERR_TRUNCATE, comm, proc,
			                   "send block %d (%lld bytes) goes to this process, into "
			                   "receive block %d (%lld bytes)", i, (long long)sent, j,
			                   (long long)room);
			return 1;
		}
		i++, j++;
	}
	free(src);
	free(dst);
	return 0;
}


/* The checks the rule leaves to the handler: the blocks this process
 * sends itself (self_refused), then the call.  1 if refused, with the
 * result in *ret. */
static int nb_self(const mw_call *k, mw_coll *comm, const side *snd, const side *rcv,
                   u32 *ret)
{
	return self_refused(k->inst, comm->c, comm->indeg, comm->outdeg, snd, rcv, k->obj,
	                    k->proc, ret);
}

#define SIDES(sc, sts, st, rc_, rts, rt)                                  \
	side snd = { (sts), (sc), NULL, (st) }, rcv = { (rts), (rc_), NULL, (rt) }; \
	u32 ret;                                                          \
	if (nb_self(k, comm, &snd, &rcv, &ret))                           \
		return ret

u32 mwh_Neighbor_allgather(const mw_call *k, const void *sendbuf, int sendcount,
                           mw_dtype *sendtype, void *recvbuf, int recvcount,
                           mw_dtype *recvtype, mw_coll *comm)
{
	SIDES(sendcount, NULL, sendtype->h, recvcount, NULL, recvtype->h);
	return mw_call_ret(k, MPI_Neighbor_allgather(sendbuf, sendcount, sendtype->h, recvbuf,
	                                             recvcount, recvtype->h, comm->c));
}

u32 mwh_Ineighbor_allgather(const mw_call *k, const void *sendbuf, int sendcount,
                            mw_dtype *sendtype, void *recvbuf, int recvcount,
                            mw_dtype *recvtype, mw_coll *comm, u32 *request)
{
	SIDES(sendcount, NULL, sendtype->h, recvcount, NULL, recvtype->h);
	START(MPI_Ineighbor_allgather(sendbuf, sendcount, sendtype->h, recvbuf, recvcount,
	                              recvtype->h, comm->c, &hr));
}

u32 mwh_Neighbor_alltoall(const mw_call *k, const void *sendbuf, int sendcount,
                          mw_dtype *sendtype, void *recvbuf, int recvcount,
                          mw_dtype *recvtype, mw_coll *comm)
{
	SIDES(sendcount, NULL, sendtype->h, recvcount, NULL, recvtype->h);
	return mw_call_ret(k, MPI_Neighbor_alltoall(sendbuf, sendcount, sendtype->h, recvbuf,
	                                            recvcount, recvtype->h, comm->c));
}

u32 mwh_Ineighbor_alltoall(const mw_call *k, const void *sendbuf, int sendcount,
                           mw_dtype *sendtype, void *recvbuf, int recvcount,
                           mw_dtype *recvtype, mw_coll *comm, u32 *request)
{
	SIDES(sendcount, NULL, sendtype->h, recvcount, NULL, recvtype->h);
	START(MPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype->h, recvbuf, recvcount,
	                             recvtype->h, comm->c, &hr));
}

u32 mwh_Neighbor_allgatherv(const mw_call *k, const void *sendbuf, int sendcount,
                            mw_dtype *sendtype, void *recvbuf, int *recvcounts, int *displs,
                            mw_dtype *recvtype, mw_coll *comm)
{
	SIDES(sendcount, NULL, sendtype->h, 0, recvcounts, recvtype->h);
	return mw_call_ret(k, MPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype->h, recvbuf,
	                                              recvcounts, displs, recvtype->h, comm->c));
}

u32 mwh_Ineighbor_allgatherv(const mw_call *k, const void *sendbuf, int sendcount,
                             mw_dtype *sendtype, void *recvbuf, int *recvcounts,
                             int *displs, mw_dtype *recvtype, mw_coll *comm, u32 *request)
{
	SIDES(sendcount, NULL, sendtype->h, 0, recvcounts, recvtype->h);
	START(MPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype->h, recvbuf, recvcounts,
	                               displs, recvtype->h, comm->c, &hr));
}

u32 mwh_Neighbor_alltoallv(const mw_call *k, const void *sendbuf, int *sendcounts,
                           int *sdispls, mw_dtype *sendtype, void *recvbuf, int *recvcounts,
                           int *rdispls, mw_dtype *recvtype, mw_coll *comm)
{
	SIDES(0, sendcounts, sendtype->h, 0, recvcounts, recvtype->h);
	return mw_call_ret(k, MPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype->h,
	                                             recvbuf, recvcounts, rdispls, recvtype->h,
	                                             comm->c));
}

u32 mwh_Ineighbor_alltoallv(const mw_call *k, const void *sendbuf, int *sendcounts,
                            int *sdispls, mw_dtype *sendtype, void *recvbuf, int *recvcounts,
                            int *rdispls, mw_dtype *recvtype, mw_coll *comm, u32 *request)
{
	SIDES(0, sendcounts, sendtype->h, 0, recvcounts, recvtype->h);
	START(MPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype->h, recvbuf,
	                              recvcounts, rdispls, recvtype->h, comm->c, &hr));
}

/* The w forms: per-neighbour types. */
#define WSIDES()                                                          \
	side snd = { sendcounts, 0, sendtypes, MPI_BYTE },                \
	     rcv = { recvcounts, 0, recvtypes, MPI_BYTE };                \
	u32 ret;                                                          \
	if (nb_self(k, comm, &snd, &rcv, &ret))                           \
		return ret

u32 mwh_Neighbor_alltoallw(const mw_call *k, const void *sendbuf, int *sendcounts,
                           MPI_Aint *sdispls, MPI_Datatype *sendtypes, void *recvbuf,
                           int *recvcounts, MPI_Aint *rdispls, MPI_Datatype *recvtypes,
                           mw_coll *comm)
{
	WSIDES();
	return mw_call_ret(k, MPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes,
	                                             recvbuf, recvcounts, rdispls, recvtypes,
	                                             comm->c));
}

u32 mwh_Ineighbor_alltoallw(const mw_call *k, const void *sendbuf, int *sendcounts,
                            MPI_Aint *sdispls, MPI_Datatype *sendtypes, void *recvbuf,
                            int *recvcounts, MPI_Aint *rdispls, MPI_Datatype *recvtypes,
                            mw_coll *comm, u32 *request)
{
	WSIDES();
	START(MPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
	                              recvcounts, rdispls, recvtypes, comm->c, &hr));
}
