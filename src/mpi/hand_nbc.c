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
 * exactly once, when the request completes or is freed.  A blocking
 * neighborhood collective keeps the same record on its stack.  The
 * arguments are checked by coll_args.c, which the blocking collectives
 * (hand_coll.c) share. */
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

#define TRY(x) do { if ((rc = (x))) goto fail; } while (0)
#define IN_PLACE(a) ((a) == 1)

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

#define KEEP_SNAPS MW_COLL_SNAPS   /* counts, displs, types; send and receive side */

typedef struct keep {
	MPI_Op op;                /* host op for a user op, or MPI_OP_NULL */
	int tramp;                /* its trampoline, or -1 */
	MPI_Datatype *stypes, *rtypes;   /* per-peer host datatypes */
	MPI_Aint *sdispls, *rdispls;     /* per-peer byte displacements */
	int heap;                 /* malloc'd (keep_new), else on a stack */
	int nsnap;
	mw_snap snap[KEEP_SNAPS]; /* the module arrays the host reads */
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
	if (k->heap)
		free(k);
}

static keep *keep_init(keep *k)
{
	memset(k, 0, sizeof *k);
	k->op = MPI_OP_NULL;
	k->tramp = -1;
	return k;
}

static keep *keep_new(keep **kp)
{
	if (!*kp && (*kp = malloc(sizeof **kp))) {
		keep_init(*kp);
		(*kp)->heap = 1;
	}
	return *kp;
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
static u32 started(rt_instance *inst, int rc, MPI_Request hr, u32 *r, keep *k,
                   u32 comm, const char *proc)
{
	if (rc == MPI_SUCCESS) {
		*r = mw_req_put(hr);
		mw_req_attach(*r, keep_free, k);
		mw_req_comm(*r, comm);   /* a freed comm waits for it (mpib.c) */
	} else
		keep_free(k);
	return mw_ret(inst, rc, comm, proc);
}

/* ---- arguments (the collectives' own: coll_args.c) ------------------------- */

/* MPI_Ibarrier's request and communicator. */
#define REQ(r, a) do { if (!((r) = mw_ptr(inst, (a), 4))) { rc = MW_ERR_ARG; goto fail; } } while (0)
#define COMM(c, a) TRY(mw_comm_live((a), &(c)))

/* ---- nonblocking collectives -----------------------------------------------
 * Their arguments are checked by coll_args.c, by the same rules as their
 * blocking forms' (hand_coll.c); the snapshots go to the request's keep. */

/* Starts the checks of a call whose snapshots the request keeps (kp:
 * made here, on the heap or as *local for a blocking call; NULL for a
 * shape without arrays). */
static int nbc_begin(mw_coll *a, rt_instance *inst, u32 comm, keep **kp, keep *local)
{
	int rc = mw_coll_begin(a, inst, comm, NULL, 0);
	if (rc || !kp)
		return rc;
	if (local)
		*kp = keep_init(local);
	else if (!keep_new(kp))
		return MW_ERR_NO_MEM;
	a->snap = (*kp)->snap;
	a->maxsnap = KEEP_SNAPS;
	return 0;
}

/* Hands what a's checks made (snapshots, host datatypes) to k, which
 * releases them, also after a failure. */
static void keep_take(keep *k, mw_coll *a)
{
	if (!k || !a->snap)
		return;
	if (a->nsnap)
		k->nsnap = a->nsnap;
	if (a->stypes)
		k->stypes = a->stypes;
	if (a->rtypes)
		k->rtypes = a->rtypes;
	if (a->sadispls)
		k->sdispls = a->sadispls;
	if (a->radispls)
		k->rdispls = a->radispls;
	a->nsnap = 0;
	a->stypes = a->rtypes = NULL;
	a->sadispls = a->radispls = NULL;
}

/* The request argument, checked after the others. */
#define CREQ(r, x) do { if (!((r) = mw_ptr(inst, (x), 4))) { a.arg = "request"; \
	rc = MW_ERR_ARG; goto fail; } } while (0)

u32 mwh_Ibarrier(rt_instance *inst, u32 comm, u32 req)
{
	MPI_Comm c;
	MPI_Request hr;
	u32 *r;
	int rc;
	COMM(c, comm);
	REQ(r, req);
	rc = MPI_Ibarrier(c, &hr);
	return started(inst, rc, hr, r, NULL, comm, "MPI_Ibarrier");
fail:
	return mw_fail(inst, rc, comm, "MPI_Ibarrier");
}

u32 mwh_Ibcast(rt_instance *inst, u32 buf, u32 count, u32 dt, u32 root,
               u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, NULL, NULL));
	TRY(mw_coll_bcast(&a, buf, count, dt, root));
	CREQ(r, req);
	rc = MPI_Ibcast(a.sp, (int)count, a.sd->h, a.root, a.c, &hr);
	return started(inst, rc, hr, r, NULL, comm, "MPI_Ibcast");
fail:
	return mw_coll_fail(&a, rc, comm, "MPI_Ibcast");
}

/* Igather/Iscatter: per-process block on one side, n blocks at the root. */
static u32 igather_scatter(rt_instance *inst, int scatter, u32 sb, u32 sc, u32 sdt,
                           u32 rb, u32 rcn, u32 rdt, u32 root, u32 comm, u32 req)
{
	const char *proc = scatter ? "MPI_Iscatter" : "MPI_Igather";
	mw_coll a;
	MPI_Request hr;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, NULL, NULL));
	TRY(mw_coll_gather(&a, scatter, sb, sc, sdt, rb, rcn, rdt, root));
	CREQ(r, req);
	rc = scatter ? MPI_Iscatter(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h,
	                            a.root, a.c, &hr)
	             : MPI_Igather(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h,
	                           a.root, a.c, &hr);
	return started(inst, rc, hr, r, NULL, comm, proc);
fail:
	return mw_coll_fail(&a, rc, comm, proc);
}

u32 mwh_Igather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcn,
                u32 rdt, u32 root, u32 comm, u32 req)
{ return igather_scatter(inst, 0, sb, sc, sdt, rb, rcn, rdt, root, comm, req); }
u32 mwh_Iscatter(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcn,
                 u32 rdt, u32 root, u32 comm, u32 req)
{ return igather_scatter(inst, 1, sb, sc, sdt, rb, rcn, rdt, root, comm, req); }

u32 mwh_Igatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                 u32 rcounts, u32 displs, u32 rdt, u32 root, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, &k, NULL));
	TRY(mw_coll_gatherv(&a, sb, sc, sdt, rb, rcounts, displs, rdt, root));
	CREQ(r, req);
	keep_take(k, &a);
	rc = MPI_Igatherv(a.sp, (int)sc, a.sd->h, a.rp, a.rcounts, a.rdispls, a.rd->h,
	                  a.root, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, "MPI_Igatherv");
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, "MPI_Igatherv");
}

u32 mwh_Iscatterv(rt_instance *inst, u32 sb, u32 scounts, u32 displs, u32 sdt,
                  u32 rb, u32 rcn, u32 rdt, u32 root, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, &k, NULL));
	TRY(mw_coll_scatterv(&a, sb, scounts, displs, sdt, rb, rcn, rdt, root));
	CREQ(r, req);
	keep_take(k, &a);
	rc = MPI_Iscatterv(a.sp, a.scounts, a.sdispls, a.sd->h, a.rp, (int)rcn, a.rd->h,
	                   a.root, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, "MPI_Iscatterv");
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, "MPI_Iscatterv");
}

/* Iallgather and Ialltoall: one block or n blocks sent, n received. */
static u32 iall_blocks(rt_instance *inst, int alltoall, u32 sb, u32 sc, u32 sdt,
                       u32 rb, u32 rcn, u32 rdt, u32 comm, u32 req)
{
	const char *proc = alltoall ? "MPI_Ialltoall" : "MPI_Iallgather";
	mw_coll a;
	MPI_Request hr;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, NULL, NULL));
	TRY(mw_coll_allgather(&a, alltoall, sb, sc, sdt, rb, rcn, rdt));
	CREQ(r, req);
	rc = alltoall ? MPI_Ialltoall(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.c, &hr)
	              : MPI_Iallgather(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.c, &hr);
	return started(inst, rc, hr, r, NULL, comm, proc);
fail:
	return mw_coll_fail(&a, rc, comm, proc);
}

u32 mwh_Iallgather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcn,
                   u32 rdt, u32 comm, u32 req)
{ return iall_blocks(inst, 0, sb, sc, sdt, rb, rcn, rdt, comm, req); }
u32 mwh_Ialltoall(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcn,
                  u32 rdt, u32 comm, u32 req)
{ return iall_blocks(inst, 1, sb, sc, sdt, rb, rcn, rdt, comm, req); }

u32 mwh_Iallgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                    u32 rcounts, u32 displs, u32 rdt, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, &k, NULL));
	TRY(mw_coll_allgatherv(&a, sb, sc, sdt, rb, rcounts, displs, rdt));
	CREQ(r, req);
	keep_take(k, &a);
	rc = MPI_Iallgatherv(a.sp, (int)sc, a.sd->h, a.rp, a.rcounts, a.rdispls,
	                     a.rd->h, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, "MPI_Iallgatherv");
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, "MPI_Iallgatherv");
}

u32 mwh_Ialltoallv(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls, u32 sdt,
                   u32 rb, u32 rcounts, u32 rdispls, u32 rdt, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, &k, NULL));
	TRY(mw_coll_alltoallv(&a, sb, scounts, sdispls, sdt, rb, rcounts, rdispls, rdt));
	CREQ(r, req);
	keep_take(k, &a);
	rc = MPI_Ialltoallv(a.sp, a.scounts, a.sdispls, a.sd->h, a.rp, a.rcounts,
	                    a.rdispls, a.rd->h, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, "MPI_Ialltoallv");
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, "MPI_Ialltoallv");
}

u32 mwh_Ialltoallw(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                   u32 stypes, u32 rb, u32 rcounts, u32 rdispls, u32 rtypes,
                   u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, &k, NULL));
	TRY(mw_coll_alltoallw(&a, sb, scounts, sdispls, stypes, rb, rcounts, rdispls,
	                      rtypes));
	CREQ(r, req);
	keep_take(k, &a);
	rc = MPI_Ialltoallw(a.sp, a.scounts, a.sdispls, k->stypes, a.rp, a.rcounts,
	                    a.rdispls, k->rtypes, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, "MPI_Ialltoallw");
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, "MPI_Ialltoallw");
}

u32 mwh_Ireduce(rt_instance *inst, u32 sb, u32 rb, u32 count, u32 dt, u32 opv,
                u32 root, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	MPI_Op op;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, NULL, NULL));
	TRY(mw_coll_reduce(&a, sb, rb, count, dt, opv, root));
	CREQ(r, req);
	TRY(nbc_op(opv, &op, &k));
	mw_ld_op(opv, a.sd, &op);
	rc = MPI_Ireduce(a.sp, a.rp, (int)count, a.sd->h, op, a.root, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, "MPI_Ireduce");
fail:
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, "MPI_Ireduce");
}

/* Iallreduce, Iscan, Iexscan: count elements in, count out, in place. */
typedef int allred_fn(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm,
                      MPI_Request *);

static u32 iallred(rt_instance *inst, allred_fn *fn, const char *proc, u32 sb,
                   u32 rb, u32 count, u32 dt, u32 opv, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	MPI_Op op;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, NULL, NULL));
	TRY(mw_coll_allreduce(&a, sb, rb, count, dt, opv));
	CREQ(r, req);
	TRY(nbc_op(opv, &op, &k));
	mw_ld_op(opv, a.sd, &op);
	rc = fn(a.sp, a.rp, (int)count, a.sd->h, op, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, proc);
fail:
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, proc);
}

u32 mwh_Iallreduce(rt_instance *inst, u32 sb, u32 rb, u32 count, u32 dt,
                   u32 opv, u32 comm, u32 req)
{ return iallred(inst, MPI_Iallreduce, "MPI_Iallreduce", sb, rb, count, dt, opv, comm, req); }
u32 mwh_Iscan(rt_instance *inst, u32 sb, u32 rb, u32 count, u32 dt, u32 opv,
              u32 comm, u32 req)
{ return iallred(inst, MPI_Iscan, "MPI_Iscan", sb, rb, count, dt, opv, comm, req); }
u32 mwh_Iexscan(rt_instance *inst, u32 sb, u32 rb, u32 count, u32 dt, u32 opv,
                u32 comm, u32 req)
{ return iallred(inst, MPI_Iexscan, "MPI_Iexscan", sb, rb, count, dt, opv, comm, req); }

u32 mwh_Ireduce_scatter_block(rt_instance *inst, u32 sb, u32 rb, u32 count,
                              u32 dt, u32 opv, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	MPI_Op op;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, NULL, NULL));
	TRY(mw_coll_reduce_scatter_block(&a, sb, rb, count, dt, opv));
	CREQ(r, req);
	TRY(nbc_op(opv, &op, &k));
	mw_ld_op(opv, a.sd, &op);
	rc = MPI_Ireduce_scatter_block(a.sp, a.rp, (int)count, a.sd->h, op, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, "MPI_Ireduce_scatter_block");
fail:
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, "MPI_Ireduce_scatter_block");
}

u32 mwh_Ireduce_scatter(rt_instance *inst, u32 sb, u32 rb, u32 rcounts, u32 dt,
                        u32 opv, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Request hr;
	MPI_Op op;
	keep *k = NULL;
	u32 *r;
	int rc;
	TRY(nbc_begin(&a, inst, comm, &k, NULL));
	TRY(mw_coll_reduce_scatter(&a, sb, rb, rcounts, dt, opv));
	CREQ(r, req);
	keep_take(k, &a);
	TRY(nbc_op(opv, &op, &k));
	mw_ld_op(opv, a.sd, &op);
	rc = MPI_Ireduce_scatter(a.sp, a.rp, a.rcounts, a.sd->h, op, a.c, &hr);
	return started(inst, rc, hr, r, k, comm, "MPI_Ireduce_scatter");
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, "MPI_Ireduce_scatter");
}

/* ---- neighborhood collectives ------------------------------------------------
 * Blocking and nonblocking share one body each: req is the module's
 * request pointer, or NB_BLOCKING. */

#define NB_BLOCKING UINT32_MAX

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

/* The end of every neighborhood collective: the blocking call's result,
 * or the started request. */
#define NB_END(proc, blocking_call, nonblocking_call)                          \
	do {                                                                  \
		if (req == NB_BLOCKING) {                                     \
			rc = (blocking_call);                                 \
			keep_free(k);                                         \
			return mw_ret(inst, rc, comm, proc);                  \
		}                                                             \
		rc = (nonblocking_call);                                      \
		return started(inst, rc, hr, r, k, comm, proc);               \
	} while (0)

/* The start of every neighborhood collective: the degrees, then the
 * arguments of the shape (in `check`). */
#define NB_BEGIN(check)                                                        \
	do {                                                                  \
		TRY(nbc_begin(&a, inst, comm, &k, req == NB_BLOCKING ? &local : NULL)); \
		TRY(mw_coll_neighbors(&a));                                   \
		TRY(check);                                                   \
		if (req != NB_BLOCKING)                                       \
			CREQ(r, req);                                         \
		keep_take(k, &a);                                             \
	} while (0)

/* Neighbor_allgather and Neighbor_alltoall: one block or outdeg blocks
 * sent, indeg received. */
static u32 nb_blocks(rt_instance *inst, int alltoall, u32 sb, u32 sc, u32 sdt,
                     u32 rb, u32 rcn, u32 rdt, u32 comm, u32 req)
{
	const char *proc = alltoall ? (req == NB_BLOCKING ? "MPI_Neighbor_alltoall"
	                                                  : "MPI_Ineighbor_alltoall")
	                            : (req == NB_BLOCKING ? "MPI_Neighbor_allgather"
	                                                  : "MPI_Ineighbor_allgather");
	mw_coll a;
	MPI_Request hr;
	keep local, *k = NULL;   /* local: a blocking call's */
	u32 *r = NULL, ret;
	int rc;
	NB_BEGIN(mw_coll_nb_allgather(&a, alltoall, sb, sc, sdt, rb, rcn, rdt));
	side snd = { NULL, (int)sc, NULL, a.sd->h }, rcv = { NULL, (int)rcn, NULL, a.rd->h };
	if (self_refused(inst, a.c, a.indeg, a.outdeg, &snd, &rcv, comm, proc, &ret)) {
		keep_free(k);
		return ret;
	}
	if (alltoall)
		NB_END(proc, MPI_Neighbor_alltoall(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn,
		                                   a.rd->h, a.c),
		       MPI_Ineighbor_alltoall(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn,
		                              a.rd->h, a.c, &hr));
	NB_END(proc, MPI_Neighbor_allgather(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn,
	                                    a.rd->h, a.c),
	       MPI_Ineighbor_allgather(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn,
	                               a.rd->h, a.c, &hr));
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, proc);
}

static u32 nb_allgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                         u32 rcounts, u32 displs, u32 rdt, u32 comm, u32 req)
{
	const char *proc = req == NB_BLOCKING ? "MPI_Neighbor_allgatherv"
	                                      : "MPI_Ineighbor_allgatherv";
	mw_coll a;
	MPI_Request hr;
	keep local, *k = NULL;   /* local: a blocking call's */
	u32 *r = NULL, ret;
	int rc;
	NB_BEGIN(mw_coll_nb_allgatherv(&a, sb, sc, sdt, rb, rcounts, displs, rdt));
	side snd = { NULL, (int)sc, NULL, a.sd->h }, rcv = { a.rcounts, 0, NULL, a.rd->h };
	if (self_refused(inst, a.c, a.indeg, a.outdeg, &snd, &rcv, comm, proc, &ret)) {
		keep_free(k);
		return ret;
	}
	NB_END(proc, MPI_Neighbor_allgatherv(a.sp, (int)sc, a.sd->h, a.rp, a.rcounts,
	                                     a.rdispls, a.rd->h, a.c),
	       MPI_Ineighbor_allgatherv(a.sp, (int)sc, a.sd->h, a.rp, a.rcounts,
	                                a.rdispls, a.rd->h, a.c, &hr));
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, proc);
}

static u32 nb_alltoallv(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                        u32 sdt, u32 rb, u32 rcounts, u32 rdispls, u32 rdt,
                        u32 comm, u32 req)
{
	const char *proc = req == NB_BLOCKING ? "MPI_Neighbor_alltoallv"
	                                      : "MPI_Ineighbor_alltoallv";
	mw_coll a;
	MPI_Request hr;
	keep local, *k = NULL;   /* local: a blocking call's */
	u32 *r = NULL, ret;
	int rc;
	NB_BEGIN(mw_coll_nb_alltoallv(&a, sb, scounts, sdispls, sdt, rb, rcounts,
	                              rdispls, rdt));
	side snd = { a.scounts, 0, NULL, a.sd->h }, rcv = { a.rcounts, 0, NULL, a.rd->h };
	if (self_refused(inst, a.c, a.indeg, a.outdeg, &snd, &rcv, comm, proc, &ret)) {
		keep_free(k);
		return ret;
	}
	NB_END(proc, MPI_Neighbor_alltoallv(a.sp, a.scounts, a.sdispls, a.sd->h, a.rp,
	                                    a.rcounts, a.rdispls, a.rd->h, a.c),
	       MPI_Ineighbor_alltoallv(a.sp, a.scounts, a.sdispls, a.sd->h, a.rp,
	                               a.rcounts, a.rdispls, a.rd->h, a.c, &hr));
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, proc);
}

static u32 nb_alltoallw(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                        u32 stypes, u32 rb, u32 rcounts, u32 rdispls,
                        u32 rtypes, u32 comm, u32 req)
{
	const char *proc = req == NB_BLOCKING ? "MPI_Neighbor_alltoallw"
	                                      : "MPI_Ineighbor_alltoallw";
	mw_coll a;
	MPI_Request hr;
	keep local, *k = NULL;   /* local: a blocking call's */
	u32 *r = NULL, ret;
	int rc;
	NB_BEGIN(mw_coll_nb_alltoallw(&a, sb, scounts, sdispls, stypes, rb, rcounts,
	                              rdispls, rtypes));
	side snd = { a.scounts, 0, k->stypes, MPI_BYTE }, rcv = { a.rcounts, 0, k->rtypes, MPI_BYTE };
	if (self_refused(inst, a.c, a.indeg, a.outdeg, &snd, &rcv, comm, proc, &ret)) {
		keep_free(k);
		return ret;
	}
	NB_END(proc, MPI_Neighbor_alltoallw(a.sp, a.scounts, k->sdispls, k->stypes, a.rp,
	                                    a.rcounts, k->rdispls, k->rtypes, a.c),
	       MPI_Ineighbor_alltoallw(a.sp, a.scounts, k->sdispls, k->stypes, a.rp,
	                               a.rcounts, k->rdispls, k->rtypes, a.c, &hr));
fail:
	keep_take(k, &a);
	keep_free(k);
	return mw_coll_fail(&a, rc, comm, proc);
}

u32 mwh_Neighbor_allgather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                           u32 rcn, u32 rdt, u32 comm)
{ return nb_blocks(inst, 0, sb, sc, sdt, rb, rcn, rdt, comm, NB_BLOCKING); }
u32 mwh_Ineighbor_allgather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                            u32 rcn, u32 rdt, u32 comm, u32 req)
{ return nb_blocks(inst, 0, sb, sc, sdt, rb, rcn, rdt, comm, req); }

u32 mwh_Neighbor_allgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                            u32 rcounts, u32 displs, u32 rdt, u32 comm)
{ return nb_allgatherv(inst, sb, sc, sdt, rb, rcounts, displs, rdt, comm, NB_BLOCKING); }
u32 mwh_Ineighbor_allgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                             u32 rcounts, u32 displs, u32 rdt, u32 comm, u32 req)
{ return nb_allgatherv(inst, sb, sc, sdt, rb, rcounts, displs, rdt, comm, req); }

u32 mwh_Neighbor_alltoall(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                          u32 rcn, u32 rdt, u32 comm)
{ return nb_blocks(inst, 1, sb, sc, sdt, rb, rcn, rdt, comm, NB_BLOCKING); }
u32 mwh_Ineighbor_alltoall(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                           u32 rcn, u32 rdt, u32 comm, u32 req)
{ return nb_blocks(inst, 1, sb, sc, sdt, rb, rcn, rdt, comm, req); }

u32 mwh_Neighbor_alltoallv(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                           u32 sdt, u32 rb, u32 rcounts, u32 rdispls, u32 rdt,
                           u32 comm)
{ return nb_alltoallv(inst, sb, scounts, sdispls, sdt, rb, rcounts, rdispls, rdt, comm, NB_BLOCKING); }
u32 mwh_Ineighbor_alltoallv(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                            u32 sdt, u32 rb, u32 rcounts, u32 rdispls, u32 rdt,
                            u32 comm, u32 req)
{ return nb_alltoallv(inst, sb, scounts, sdispls, sdt, rb, rcounts, rdispls, rdt, comm, req); }

u32 mwh_Neighbor_alltoallw(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                           u32 stypes, u32 rb, u32 rcounts, u32 rdispls,
                           u32 rtypes, u32 comm)
{ return nb_alltoallw(inst, sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, comm, NB_BLOCKING); }
u32 mwh_Ineighbor_alltoallw(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                            u32 stypes, u32 rb, u32 rcounts, u32 rdispls,
                            u32 rtypes, u32 comm, u32 req)
{ return nb_alltoallw(inst, sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, comm, req); }
