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
 * neighborhood collective keeps the same record on its stack. */
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

#define KEEP_SNAPS 6   /* counts, displs, types; send and receive side */

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

/* A snapshot in k of the n ints at module address a, zeros after them up
 * to cap; *out is the copy. */
static int keep_snap(rt_instance *inst, keep *k, u32 a, int n, int cap, int **out)
{
	if (k->nsnap == KEEP_SNAPS)
		return MW_ERR_INTERN;
	mw_snap *sn = &k->snap[k->nsnap++];
	int rc = mw_snap_pad(inst, sn, a, n, cap);
	*out = sn->v;
	return rc;
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
	} else
		keep_free(k);
	return mw_ret(inst, rc, comm, proc);
}

/* ---- arguments -------------------------------------------------------------- */



/* Datatype of an argument: looked up where significant, else MPI_BYTE
 * (the host ignores it there, and the module may pass anything). */
static int dtype(u32 h, int significant, mw_dtype **d)
{
	static mw_dtype byte_dt;
	if (significant)
		return mw_dtype_get(h, d);
	byte_dt.h = MPI_BYTE;
	*d = &byte_dt;
	return 0;
}


/* nblocks blocks of count elements of d from module address a. */
static int blocks(rt_instance *inst, u32 a, u32 count, int nblocks,
                  const mw_dtype *d, void **p)
{
	int64_t n = (int64_t)(int32_t)count * nblocks;
	if ((int32_t)count < 0 || n > INT_MAX)
		return MW_ERR_COUNT;
	return mw_buf(inst, a, (int)n, d, p);
}

/* n int counts and n int displacements (in extents of d) from base a,
 * snapshots in k padded with zero counts up to cap entries (the other
 * degree of a neighborhood collective; else n). */
static int vblocks(rt_instance *inst, keep *k, u32 a, int n, int cap, u32 counts,
                   u32 displs, const mw_dtype *d, int **cp, int **dp, void **p)
{
	int *c, *s, rc;
	if ((rc = keep_snap(inst, k, counts, n, cap, &c)) ||
	    (rc = keep_snap(inst, k, displs, n, cap, &s)))
		return rc;
	if ((rc = mw_buf(inst, a, 0, d, p)))
		return rc;
	for (int i = 0; i < n; i++) {
		void *q;
		int64_t at;
		/* A displacement in extents of a huge type can pass 2^63 bytes. */
		if (__builtin_mul_overflow((int64_t)s[i], (int64_t)d->extent, &at))
			return MW_ERR_BUFFER;
		if ((rc = mw_buf_at(inst, a, at, c[i], d, &q)))
			return rc;
	}
	*cp = c;
	*dp = s;
	return 0;
}

/* n int counts, n byte displacements (int, or module MPI_Aint if *ad is
 * to receive host MPI_Aint copies) and n datatype handles from base a,
 * snapshots in k padded up to cap entries as in vblocks (zero counts,
 * MPI_BYTE); the host datatypes go to a new array *ht. */
static int wblocks(rt_instance *inst, keep *k, u32 a, int n, int cap, u32 counts,
                   u32 displs, u32 types, int **cp, int **dp, MPI_Aint **ad,
                   MPI_Datatype **ht, void **p)
{
	int *c, *s, *t, rc;
	if (cap < n)
		cap = n;
	if ((rc = keep_snap(inst, k, counts, n, cap, &c)) ||
	    (rc = keep_snap(inst, k, displs, n, cap, &s)) ||
	    (rc = keep_snap(inst, k, types, n, cap, &t)))
		return rc;
	*p = (uint8_t *)rt_mem(inst, 0, 0) + a;
	if (!(*ht = malloc(((size_t)cap + 1) * sizeof **ht)))
		return MW_ERR_NO_MEM;
	if (ad && !(*ad = calloc((size_t)cap + 1, sizeof **ad)))
		return MW_ERR_NO_MEM;
	for (int i = n; i <= cap; i++)
		(*ht)[i] = MPI_BYTE;
	for (int i = 0; i < n; i++) {
		mw_dtype *d;
		void *q;
		if ((rc = mw_dtype_get((u32)t[i], &d)))
			return rc;
		(*ht)[i] = d->h;
		if (ad)
			(*ad)[i] = s[i];
		if ((rc = mw_buf_at(inst, a, s[i], c[i], d, &q)))
			return rc;
	}
	*cp = c;
	if (dp)
		*dp = s;
	return 0;
}

/* The request argument, checked before anything starts. */
#define REQ(r, a) do { if (!((r) = mw_ptr(inst, (a), 4))) { rc = MW_ERR_ARG; goto fail; } } while (0)
#define COMM(c, a) TRY(mw_comm_live((a), &(c)))

/* ---- nonblocking collectives -----------------------------------------------
 * Their arguments are checked by coll_args.c, by the same rules as their
 * blocking forms' (hand.c); the snapshots go to the request's keep. */

/* Starts the checks of a call whose snapshots the request keeps (kp:
 * made here; NULL for a shape without arrays). */
static int nbc_begin(mw_coll *a, rt_instance *inst, u32 comm, keep **kp)
{
	int rc = mw_coll_begin(a, inst, comm, NULL, 0);
	if (rc || !kp)
		return rc;
	if (!keep_new(kp))
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
	a->nsnap = 0;
	a->stypes = a->rtypes = NULL;
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
	TRY(nbc_begin(&a, inst, comm, NULL));
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
	TRY(nbc_begin(&a, inst, comm, NULL));
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
	TRY(nbc_begin(&a, inst, comm, &k));
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
	TRY(nbc_begin(&a, inst, comm, &k));
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
	TRY(nbc_begin(&a, inst, comm, NULL));
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
	TRY(nbc_begin(&a, inst, comm, &k));
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
	TRY(nbc_begin(&a, inst, comm, &k));
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
	TRY(nbc_begin(&a, inst, comm, &k));
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
	TRY(nbc_begin(&a, inst, comm, NULL));
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
	TRY(nbc_begin(&a, inst, comm, NULL));
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
	TRY(nbc_begin(&a, inst, comm, NULL));
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
	TRY(nbc_begin(&a, inst, comm, &k));
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
/* Arrays of a neighborhood collective are snapshot with zero counts up to
 * the larger degree (mw_snap_pad says why). */
#define MAXDEG (in > out ? in : out)

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

static u32 nb_allgather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                        u32 rcn, u32 rdt, u32 comm, u32 req)
{
	const char *proc = req == NB_BLOCKING ? "MPI_Neighbor_allgather"
	                                      : "MPI_Ineighbor_allgather";
	MPI_Comm c;
	MPI_Request hr;
	mw_dtype *sd, *rd;
	void *sp, *rp;
	keep *k = NULL;
	u32 *r = NULL, ret;
	int rc, in, out;
	COMM(c, comm);
	TRY(mw_degrees(c, &in, &out));
	TRY(dtype(sdt, 1, &sd));
	TRY(dtype(rdt, 1, &rd));
	TRY(blocks(inst, sb, sc, 1, sd, &sp));
	TRY(blocks(inst, rb, rcn, in, rd, &rp));
	if (req != NB_BLOCKING)
		REQ(r, req);
	side snd = { NULL, (int)sc, NULL, sd->h }, rcv = { NULL, (int)rcn, NULL, rd->h };
	if (self_refused(inst, c, in, out, &snd, &rcv, comm, proc, &ret))
		return ret;
	NB_END(proc, MPI_Neighbor_allgather(sp, (int)sc, sd->h, rp, (int)rcn, rd->h, c),
	       MPI_Ineighbor_allgather(sp, (int)sc, sd->h, rp, (int)rcn, rd->h, c, &hr));
fail:
	return mw_fail(inst, rc, comm, proc);
}

static u32 nb_allgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                         u32 rcounts, u32 displs, u32 rdt, u32 comm, u32 req)
{
	const char *proc = req == NB_BLOCKING ? "MPI_Neighbor_allgatherv"
	                                      : "MPI_Ineighbor_allgatherv";
	MPI_Comm c;
	MPI_Request hr;
	mw_dtype *sd, *rd;
	void *sp, *rp;
	int *cnt, *dis;
	keep local, *k = NULL;   /* local: a blocking call's */
	u32 *r = NULL, ret;
	int rc, in, out;
	COMM(c, comm);
	TRY(mw_degrees(c, &in, &out));
	TRY(dtype(sdt, 1, &sd));
	TRY(dtype(rdt, 1, &rd));
	TRY(blocks(inst, sb, sc, 1, sd, &sp));
	k = req == NB_BLOCKING ? keep_init(&local) : keep_new(&k);
	if (!k)
		TRY(MW_ERR_NO_MEM);
	TRY(vblocks(inst, k, rb, in, MAXDEG, rcounts, displs, rd, &cnt, &dis, &rp));
	if (req != NB_BLOCKING)
		REQ(r, req);
	side snd = { NULL, (int)sc, NULL, sd->h }, rcv = { cnt, 0, NULL, rd->h };
	if (self_refused(inst, c, in, out, &snd, &rcv, comm, proc, &ret)) {
		keep_free(k);
		return ret;
	}
	NB_END(proc, MPI_Neighbor_allgatherv(sp, (int)sc, sd->h, rp, cnt, dis, rd->h, c),
	       MPI_Ineighbor_allgatherv(sp, (int)sc, sd->h, rp, cnt, dis, rd->h, c, &hr));
fail:
	keep_free(k);
	return mw_fail(inst, rc, comm, proc);
}

static u32 nb_alltoall(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                       u32 rcn, u32 rdt, u32 comm, u32 req)
{
	const char *proc = req == NB_BLOCKING ? "MPI_Neighbor_alltoall"
	                                      : "MPI_Ineighbor_alltoall";
	MPI_Comm c;
	MPI_Request hr;
	mw_dtype *sd, *rd;
	void *sp, *rp;
	keep *k = NULL;
	u32 *r = NULL, ret;
	int rc, in, out;
	COMM(c, comm);
	TRY(mw_degrees(c, &in, &out));
	TRY(dtype(sdt, 1, &sd));
	TRY(dtype(rdt, 1, &rd));
	TRY(blocks(inst, sb, sc, out, sd, &sp));
	TRY(blocks(inst, rb, rcn, in, rd, &rp));
	if (req != NB_BLOCKING)
		REQ(r, req);
	side snd = { NULL, (int)sc, NULL, sd->h }, rcv = { NULL, (int)rcn, NULL, rd->h };
	if (self_refused(inst, c, in, out, &snd, &rcv, comm, proc, &ret))
		return ret;
	NB_END(proc, MPI_Neighbor_alltoall(sp, (int)sc, sd->h, rp, (int)rcn, rd->h, c),
	       MPI_Ineighbor_alltoall(sp, (int)sc, sd->h, rp, (int)rcn, rd->h, c, &hr));
fail:
	return mw_fail(inst, rc, comm, proc);
}

static u32 nb_alltoallv(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                        u32 sdt, u32 rb, u32 rcounts, u32 rdispls, u32 rdt,
                        u32 comm, u32 req)
{
	const char *proc = req == NB_BLOCKING ? "MPI_Neighbor_alltoallv"
	                                      : "MPI_Ineighbor_alltoallv";
	MPI_Comm c;
	MPI_Request hr;
	mw_dtype *sd, *rd;
	void *sp, *rp;
	int *sc, *sdi, *rcn, *rdi;
	keep local, *k = NULL;   /* local: a blocking call's */
	u32 *r = NULL, ret;
	int rc, in, out;
	COMM(c, comm);
	TRY(mw_degrees(c, &in, &out));
	TRY(dtype(sdt, 1, &sd));
	TRY(dtype(rdt, 1, &rd));
	k = req == NB_BLOCKING ? keep_init(&local) : keep_new(&k);
	if (!k)
		TRY(MW_ERR_NO_MEM);
	TRY(vblocks(inst, k, sb, out, MAXDEG, scounts, sdispls, sd, &sc, &sdi, &sp));
	TRY(vblocks(inst, k, rb, in, MAXDEG, rcounts, rdispls, rd, &rcn, &rdi, &rp));
	if (req != NB_BLOCKING)
		REQ(r, req);
	side snd = { sc, 0, NULL, sd->h }, rcv = { rcn, 0, NULL, rd->h };
	if (self_refused(inst, c, in, out, &snd, &rcv, comm, proc, &ret)) {
		keep_free(k);
		return ret;
	}
	NB_END(proc, MPI_Neighbor_alltoallv(sp, sc, sdi, sd->h, rp, rcn, rdi, rd->h, c),
	       MPI_Ineighbor_alltoallv(sp, sc, sdi, sd->h, rp, rcn, rdi, rd->h, c, &hr));
fail:
	keep_free(k);
	return mw_fail(inst, rc, comm, proc);
}

/* Byte displacements are MPI_Aint: 32-bit in the module, converted. */
static u32 nb_alltoallw(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls,
                        u32 stypes, u32 rb, u32 rcounts, u32 rdispls,
                        u32 rtypes, u32 comm, u32 req)
{
	const char *proc = req == NB_BLOCKING ? "MPI_Neighbor_alltoallw"
	                                      : "MPI_Ineighbor_alltoallw";
	MPI_Comm c;
	MPI_Request hr;
	void *sp, *rp;
	int *sc, *rcn;
	keep local, *k = NULL;   /* local: a blocking call's */
	u32 *r = NULL, ret;
	int rc, in, out;
	COMM(c, comm);
	TRY(mw_degrees(c, &in, &out));
	k = req == NB_BLOCKING ? keep_init(&local) : keep_new(&k);
	if (!k)
		TRY(MW_ERR_NO_MEM);
	TRY(wblocks(inst, k, sb, out, MAXDEG, scounts, sdispls, stypes, &sc, NULL,
	            &k->sdispls, &k->stypes, &sp));
	TRY(wblocks(inst, k, rb, in, MAXDEG, rcounts, rdispls, rtypes, &rcn, NULL,
	            &k->rdispls, &k->rtypes, &rp));
	if (req != NB_BLOCKING)
		REQ(r, req);
	side snd = { sc, 0, k->stypes, MPI_BYTE }, rcv = { rcn, 0, k->rtypes, MPI_BYTE };
	if (self_refused(inst, c, in, out, &snd, &rcv, comm, proc, &ret)) {
		keep_free(k);
		return ret;
	}
	NB_END(proc, MPI_Neighbor_alltoallw(sp, sc, k->sdispls, k->stypes, rp, rcn,
	                                    k->rdispls, k->rtypes, c),
	       MPI_Ineighbor_alltoallw(sp, sc, k->sdispls, k->stypes, rp, rcn,
	                               k->rdispls, k->rtypes, c, &hr));
fail:
	keep_free(k);
	return mw_fail(inst, rc, comm, proc);
}

u32 mwh_Neighbor_allgather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                           u32 rcn, u32 rdt, u32 comm)
{ return nb_allgather(inst, sb, sc, sdt, rb, rcn, rdt, comm, NB_BLOCKING); }
u32 mwh_Ineighbor_allgather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                            u32 rcn, u32 rdt, u32 comm, u32 req)
{ return nb_allgather(inst, sb, sc, sdt, rb, rcn, rdt, comm, req); }

u32 mwh_Neighbor_allgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                            u32 rcounts, u32 displs, u32 rdt, u32 comm)
{ return nb_allgatherv(inst, sb, sc, sdt, rb, rcounts, displs, rdt, comm, NB_BLOCKING); }
u32 mwh_Ineighbor_allgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                             u32 rcounts, u32 displs, u32 rdt, u32 comm, u32 req)
{ return nb_allgatherv(inst, sb, sc, sdt, rb, rcounts, displs, rdt, comm, req); }

u32 mwh_Neighbor_alltoall(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                          u32 rcn, u32 rdt, u32 comm)
{ return nb_alltoall(inst, sb, sc, sdt, rb, rcn, rdt, comm, NB_BLOCKING); }
u32 mwh_Ineighbor_alltoall(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                           u32 rcn, u32 rdt, u32 comm, u32 req)
{ return nb_alltoall(inst, sb, sc, sdt, rb, rcn, rdt, comm, req); }

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
