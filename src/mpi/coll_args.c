/* coll_args.c - the argument rules of the collective operations (MPI-3.1
 * chapter 5, Collective Communication), written once for the blocking
 * form of each (hand_coll.c) and its nonblocking form (hand_nbc.c): the root,
 * which arguments are significant at this process (root or not,
 * MPI_IN_PLACE, an intercommunicator's MPI_ROOT and MPI_PROC_NULL), the
 * datatypes and the op, host snapshots of the per-peer counts,
 * displacements and datatypes, and the buffers they describe.
 *
 * The checks run in one order: root, datatypes, op, then the send side
 * (its arrays, then its buffer), the receive side, and last the block a
 * process sends itself (mw_own_block) or a reduction's aliasing
 * (mw_disjoint).  So the blocking and the nonblocking form of one
 * erroneous call fail with the same class, and the same line but for the
 * procedure's name (tests/mpi/coll_forms.c).  Arguments that are not
 * significant are not looked at: their datatype is a stand-in for
 * MPI_BYTE, their buffer the module address unchecked (mw_raw), which the
 * host library does not dereference there. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_args.h"

typedef uint32_t u32;

#define IN_PLACE(x) ((x) == 1)
/* Runs check x; if it fails, records argument name and returns the class. */
#define CK(x, name) do { int r_ = (x); if (r_) { a->arg = (name); return r_; } } while (0)

int mw_coll_begin(mw_coll *a, rt_instance *inst, u32 comm, mw_snap *snap,
                  int maxsnap)
{
	a->inst = inst;
	a->arg = NULL;
	a->detail[0] = 0;
	a->snap = snap;
	a->nsnap = 0;
	a->maxsnap = maxsnap;
	a->heap = !snap && maxsnap > 0;
	a->scounts = a->sdispls = a->rcounts = a->rdispls = NULL;
	a->stypes = a->rtypes = NULL;
	a->sadispls = a->radispls = NULL;
	a->indeg = a->outdeg = a->cap = 0;
	a->in_place = 0;
	a->root = MPI_PROC_NULL;
	a->all = a->own = 1;
	int rc = mw_comm_live(comm, &a->c);
	if (rc)
		return rc;
	a->inter = mw_is_inter(a->c);
	a->n = mw_peers(a->c);
	return 0;
}

void mw_coll_end(mw_coll *a)
{
	for (int i = 0; i < a->nsnap; i++)
		mw_snap_free(&a->snap[i]);
	a->nsnap = 0;
	if (a->heap) {
		free(a->snap);
		a->snap = NULL;
	}
	free(a->stypes);
	free(a->rtypes);
	free(a->sadispls);
	free(a->radispls);
	a->stypes = a->rtypes = NULL;
	a->sadispls = a->radispls = NULL;
}

mw_snap *mw_coll_take(mw_coll *a, int *n)
{
	mw_snap *s = a->heap ? a->snap : NULL;
	*n = s ? a->nsnap : 0;
	if (s) {
		a->snap = NULL;
		a->nsnap = 0;
	}
	return s;
}

uint32_t mw_coll_fail(mw_coll *a, int rc, u32 comm, const char *proc)
{
	if (!a->arg)
		return mw_fail(a->inst, rc, comm, proc);
	return mw_fail_arg(a->inst, rc, comm, proc, "argument %s: %s", a->arg,
	                   a->detail[0] ? a->detail : mw_class_why(rc));
}

/* ---- one argument each -------------------------------------------------------- */

/* The root: a rank of c (of the remote group for an intercommunicator,
 * where MPI_ROOT and MPI_PROC_NULL are roots too).  Sets which sides this
 * process uses: all (the root's n blocks) and own (its own block). */
static int root_arg(mw_coll *a, u32 root)
{
	int r = mw_rank_in(root), size = 0;
	a->root = r;
	if (a->inter) {
		MPI_Comm_remote_size(a->c, &size);
		if (r == MPI_ROOT || r == MPI_PROC_NULL || (r >= 0 && r < size)) {
			a->all = r == MPI_ROOT;
			a->own = r != MPI_ROOT && r != MPI_PROC_NULL;
			return 0;
		}
		snprintf(a->detail, sizeof a->detail, "root = %d is not a rank of the "
		         "remote group (size %d), MPI_ROOT or MPI_PROC_NULL", (int)root, size);
	} else {
		MPI_Comm_size(a->c, &size);
		if (r >= 0 && r < size) {
			a->all = r == mw_my_rank(a->c);
			a->own = 1;
			return 0;
		}
		snprintf(a->detail, sizeof a->detail, "root = %d is not a rank of the "
		         "communicator (size %d)", (int)root, size);
	}
	a->arg = "root";
	return MW_ERR_ROOT;
}

/* Datatype handle h where significant, else the stand-in. */
static int dtype_arg(u32 h, int significant, mw_dtype **d)
{
	static mw_dtype byte_dt;
	if (significant)
		return mw_dtype_get(h, d);
	byte_dt.h = MPI_BYTE;
	*d = &byte_dt;
	return 0;
}

/* nblocks blocks of count elements of d from module address x (count is
 * the module's int: negative is MPI_ERR_COUNT; the product is checked in
 * 64 bits). */
static int blocks64(mw_coll *a, u32 x, int64_t count, int nblocks, const mw_dtype *d,
                    void **p)
{
	if (count < 0 || count > INT64_MAX / (nblocks > 1 ? nblocks : 1))
		return MW_ERR_COUNT;
	return mw_buf_at64(a->inst, x, 0, count * nblocks, d, p);
}

static int blocks(mw_coll *a, u32 x, u32 count, int nblocks, const mw_dtype *d,
                  void **p)
{
	return blocks64(a, x, (int32_t)count, nblocks, d, p);
}

/* The next snapshot: n module ints at x (zeros after them up to a->cap). */
static int snap(mw_coll *a, u32 x, int n, int **out)
{
	if (a->nsnap == a->maxsnap)
		return MW_ERR_INTERN;
	if (!a->snap && (!a->heap || !(a->snap = calloc((size_t)a->maxsnap, sizeof *a->snap))))
		return a->heap ? MW_ERR_NO_MEM : MW_ERR_INTERN;
	mw_snap *s = &a->snap[a->nsnap++];
	memset(s, 0, sizeof *s);
	int rc = mw_snap_pad(a->inst, s, x, n, a->cap);
	*out = s->v;
	return rc;
}

/* n (count, displacement in extents of d) blocks from base x, the arrays
 * snapshot first: *cp, *dp are the copies the library gets. */
static int vblocks(mw_coll *a, u32 x, int n, u32 counts, u32 displs,
                   const mw_dtype *d, int **cp, int **dp, void **p,
                   const char *cname, const char *dname, const char *bname)
{
	int *c, *s;
	CK(snap(a, counts, n, &c), cname);
	CK(snap(a, displs, n, &s), dname);
	*cp = c;
	*dp = s;
	CK(mw_buf(a->inst, x, 0, d, p), bname);
	for (int i = 0; i < n; i++) {
		void *q;
		int64_t at;
		/* A displacement in extents of a huge type can pass 2^63 bytes. */
		if (__builtin_mul_overflow((int64_t)s[i], (int64_t)d->extent, &at))
			CK(MW_ERR_BUFFER, bname);
		CK(mw_buf_at(a->inst, x, at, c[i], d, &q), bname);
	}
	return 0;
}

/* The w form's side: n counts, byte displacements and datatype handles
 * from base x; *ht gets the host datatypes (malloc'd, MPI_BYTE after the
 * n up to a->cap), *ad if not NULL the displacements as host MPI_Aint
 * (the neighborhood form's type). */
static int wblocks(mw_coll *a, u32 x, int n, u32 counts, u32 displs, u32 types,
                   int **cp, int **dp, MPI_Aint **ad, MPI_Datatype **ht, void **p,
                   const char *cname, const char *dname, const char *tname,
                   const char *bname)
{
	int *c, *s, *t, cap = a->cap > n ? a->cap : n;
	CK(snap(a, counts, n, &c), cname);
	CK(snap(a, displs, n, &s), dname);
	CK(snap(a, types, n, &t), tname);
	*cp = c;
	*dp = s;
	if (!(*ht = malloc(((size_t)cap + 1) * sizeof **ht)))
		CK(MW_ERR_NO_MEM, tname);
	for (int i = n; i <= cap; i++)
		(*ht)[i] = MPI_BYTE;
	if (ad && !(*ad = calloc((size_t)cap + 1, sizeof **ad)))
		CK(MW_ERR_NO_MEM, dname);
	*p = mw_raw(a->inst, x);
	for (int i = 0; i < n; i++) {
		mw_dtype *d;
		void *q;
		CK(mw_dtype_get((u32)t[i], &d), tname);
		(*ht)[i] = d->h;
		if (ad)
			(*ad)[i] = s[i];
		CK(mw_buf_at(a->inst, x, s[i], c[i], d, &q), bname);
	}
	return 0;
}

/* ---- the shapes ---------------------------------------------------------------- */

int mw_coll_bcast(mw_coll *a, u32 buf, u32 count, u32 dt, u32 root)
{
	CK(root_arg(a, root), "root");
	int sig = a->root != MPI_PROC_NULL;
	a->sp = mw_raw(a->inst, buf);
	CK(dtype_arg(dt, sig, &a->sd), "datatype");
	if (sig)
		CK(blocks(a, buf, count, 1, a->sd, &a->sp), "buffer");
	a->rd = a->sd;
	return 0;
}

/* Gather and scatter have one side of one block (own) and one of n blocks
 * (all, at the root); MPI_IN_PLACE replaces the root's one block. */
int mw_coll_gather(mw_coll *a, int scatter, u32 sb, u32 sc, u32 sdt, u32 rb,
                   u32 rcn, u32 rdt, u32 root)
{
	CK(root_arg(a, root), "root");
	a->sp = mw_raw(a->inst, sb);
	a->rp = mw_raw(a->inst, rb);
	a->in_place = a->own && a->all && IN_PLACE(scatter ? rb : sb);
	int one = a->own && !a->in_place;
	CK(dtype_arg(sdt, scatter ? a->all : one, &a->sd), "sendtype");
	CK(dtype_arg(rdt, scatter ? one : a->all, &a->rd), "recvtype");
	if (scatter) {
		if (a->all)
			CK(blocks(a, sb, sc, a->n, a->sd, &a->sp), "sendbuf");
		if (a->in_place)
			a->rp = MPI_IN_PLACE;
		else if (one)
			CK(blocks(a, rb, rcn, 1, a->rd, &a->rp), "recvbuf");
	} else {
		if (a->in_place)
			a->sp = MPI_IN_PLACE;
		else if (one)
			CK(blocks(a, sb, sc, 1, a->sd, &a->sp), "sendbuf");
		if (a->all)
			CK(blocks(a, rb, rcn, a->n, a->rd, &a->rp), "recvbuf");
	}
	if (a->all && !a->inter && !a->in_place)
		CK(mw_own_block(a->c, (int64_t)(int32_t)sc * a->sd->size,
		                (int64_t)(int32_t)rcn * a->rd->size), scatter ? "recvcount" : "sendcount");
	return 0;
}

int mw_coll_gatherv(mw_coll *a, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcounts,
                    u32 displs, u32 rdt, u32 root)
{
	CK(root_arg(a, root), "root");
	a->sp = mw_raw(a->inst, sb);
	a->rp = mw_raw(a->inst, rb);
	a->in_place = a->own && a->all && IN_PLACE(sb);
	int one = a->own && !a->in_place;
	CK(dtype_arg(sdt, one, &a->sd), "sendtype");
	CK(dtype_arg(rdt, a->all, &a->rd), "recvtype");
	if (a->in_place)
		a->sp = MPI_IN_PLACE;
	else if (one)
		CK(blocks(a, sb, sc, 1, a->sd, &a->sp), "sendbuf");
	if (!a->all)
		return 0;
	int rc = vblocks(a, rb, a->n, rcounts, displs, a->rd, &a->rcounts, &a->rdispls,
	                 &a->rp, "recvcounts", "displs", "recvbuf");
	if (rc)
		return rc;
	if (!a->inter && !a->in_place)
		CK(mw_own_block(a->c, (int64_t)(int32_t)sc * a->sd->size,
		                (int64_t)a->rcounts[a->root] * a->rd->size), "sendcount");
	return 0;
}

int mw_coll_scatterv(mw_coll *a, u32 sb, u32 scounts, u32 displs, u32 sdt,
                     u32 rb, u32 rcn, u32 rdt, u32 root)
{
	CK(root_arg(a, root), "root");
	a->sp = mw_raw(a->inst, sb);
	a->rp = mw_raw(a->inst, rb);
	a->in_place = a->own && a->all && IN_PLACE(rb);
	int one = a->own && !a->in_place;
	CK(dtype_arg(sdt, a->all, &a->sd), "sendtype");
	CK(dtype_arg(rdt, one, &a->rd), "recvtype");
	if (a->all) {
		int rc = vblocks(a, sb, a->n, scounts, displs, a->sd, &a->scounts,
		                 &a->sdispls, &a->sp, "sendcounts", "displs", "sendbuf");
		if (rc)
			return rc;
	}
	if (a->in_place)
		a->rp = MPI_IN_PLACE;
	else if (one)
		CK(blocks(a, rb, rcn, 1, a->rd, &a->rp), "recvbuf");
	if (a->all && !a->inter && !a->in_place)
		CK(mw_own_block(a->c, (int64_t)a->scounts[a->root] * a->sd->size,
		                (int64_t)(int32_t)rcn * a->rd->size), "recvcount");
	return 0;
}

int mw_coll_allgather(mw_coll *a, int alltoall, u32 sb, u32 sc, u32 sdt, u32 rb,
                      u32 rcn, u32 rdt)
{
	a->in_place = IN_PLACE(sb);
	CK(dtype_arg(sdt, !a->in_place, &a->sd), "sendtype");
	CK(dtype_arg(rdt, 1, &a->rd), "recvtype");
	if (a->in_place)
		a->sp = MPI_IN_PLACE;
	else
		CK(blocks(a, sb, sc, alltoall ? a->n : 1, a->sd, &a->sp), "sendbuf");
	CK(blocks(a, rb, rcn, a->n, a->rd, &a->rp), "recvbuf");
	if (!a->in_place)
		CK(mw_own_block(a->c, (int64_t)(int32_t)sc * a->sd->size,
		                (int64_t)(int32_t)rcn * a->rd->size), "sendcount");
	return 0;
}

int mw_coll_allgatherv(mw_coll *a, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcounts,
                       u32 rdispls, u32 rdt)
{
	a->in_place = IN_PLACE(sb);
	CK(dtype_arg(sdt, !a->in_place, &a->sd), "sendtype");
	CK(dtype_arg(rdt, 1, &a->rd), "recvtype");
	if (a->in_place)
		a->sp = MPI_IN_PLACE;
	else
		CK(blocks(a, sb, sc, 1, a->sd, &a->sp), "sendbuf");
	int rc = vblocks(a, rb, a->n, rcounts, rdispls, a->rd, &a->rcounts, &a->rdispls,
	                 &a->rp, "recvcounts", "displs", "recvbuf");
	if (rc)
		return rc;
	if (!a->in_place && !a->inter)
		CK(mw_own_block(a->c, (int64_t)(int32_t)sc * a->sd->size,
		                (int64_t)a->rcounts[mw_my_rank(a->c)] * a->rd->size), "sendcount");
	return 0;
}

int mw_coll_alltoallv(mw_coll *a, u32 sb, u32 scounts, u32 sdispls, u32 sdt,
                      u32 rb, u32 rcounts, u32 rdispls, u32 rdt)
{
	int rc;
	a->in_place = IN_PLACE(sb);
	CK(dtype_arg(sdt, !a->in_place, &a->sd), "sendtype");
	CK(dtype_arg(rdt, 1, &a->rd), "recvtype");
	a->sp = MPI_IN_PLACE;
	if (!a->in_place && (rc = vblocks(a, sb, a->n, scounts, sdispls, a->sd,
	                                  &a->scounts, &a->sdispls, &a->sp,
	                                  "sendcounts", "sdispls", "sendbuf")))
		return rc;
	if ((rc = vblocks(a, rb, a->n, rcounts, rdispls, a->rd, &a->rcounts,
	                  &a->rdispls, &a->rp, "recvcounts", "rdispls", "recvbuf")))
		return rc;
	if (!a->in_place && !a->inter) {
		int me = mw_my_rank(a->c);
		CK(mw_own_block(a->c, (int64_t)a->scounts[me] * a->sd->size,
		                (int64_t)a->rcounts[me] * a->rd->size), "sendcounts");
	}
	return 0;
}

int mw_coll_alltoallw(mw_coll *a, u32 sb, u32 scounts, u32 sdispls, u32 stypes,
                      u32 rb, u32 rcounts, u32 rdispls, u32 rtypes)
{
	int rc;
	a->in_place = IN_PLACE(sb);
	dtype_arg(0, 0, &a->sd);
	a->rd = a->sd;
	a->sp = MPI_IN_PLACE;
	if (!a->in_place && (rc = wblocks(a, sb, a->n, scounts, sdispls, stypes,
	                                  &a->scounts, &a->sdispls, NULL, &a->stypes, &a->sp,
	                                  "sendcounts", "sdispls", "sendtypes", "sendbuf")))
		return rc;
	if ((rc = wblocks(a, rb, a->n, rcounts, rdispls, rtypes, &a->rcounts,
	                  &a->rdispls, NULL, &a->rtypes, &a->rp, "recvcounts", "rdispls",
	                  "recvtypes", "recvbuf")))
		return rc;
	if (!a->in_place && !a->inter) {
		int me = mw_my_rank(a->c);
		CK(mw_own_block(a->c, (int64_t)a->scounts[me] * mw_type_size(a->stypes[me]),
		                (int64_t)a->rcounts[me] * mw_type_size(a->rtypes[me])), "sendcounts");
	}
	/* On one process Open MPI 4.1 (its coll/self component) takes the byte
	 * displacements for counts of extents, and reads and writes outside
	 * the buffers the bridge checked (outside linear memory: found by
	 * fuzz-bridge; tests/fuzz-bridge/open/alltoallw-self-disp.c).  The same
	 * call with each displacement folded into its buffer's address and 0
	 * in its place is what the host gets then. */
	if (a->n == 1 && !a->inter) {
		if (!a->in_place) {
			a->sp = (char *)a->sp + a->sdispls[0];
			a->sdispls[0] = 0;
		}
		a->rp = (char *)a->rp + a->rdispls[0];
		a->rdispls[0] = 0;
	}
	return 0;
}

/* ---- reductions ------------------------------------------------------------------ */

int mw_op_arg(u32 opv, MPI_Op *h)
{
	return mw_op_get(opv, h) || *h == MPI_OP_NULL ? MW_ERR_OP : 0;
}

static int op_arg(u32 opv)
{
	MPI_Op op;
	return mw_op_arg(opv, &op);
}

int mw_coll_reduce(mw_coll *a, u32 sb, u32 rb, u32 count, u32 dt, u32 opv, u32 root)
{
	return mw_coll_reduce64(a, sb, rb, (int32_t)count, dt, opv, root);
}

int mw_coll_reduce64(mw_coll *a, u32 sb, u32 rb, int64_t count, u32 dt, u32 opv, u32 root)
{
	CK(root_arg(a, root), "root");
	a->sp = mw_raw(a->inst, sb);
	a->rp = mw_raw(a->inst, rb);
	CK(dtype_arg(dt, a->own || a->all, &a->sd), "datatype");
	a->rd = a->sd;
	CK(op_arg(opv), "op");
	a->in_place = a->own && a->all && IN_PLACE(sb);
	if (a->in_place)
		a->sp = MPI_IN_PLACE;
	else if (a->own)
		CK(blocks64(a, sb, count, 1, a->sd, &a->sp), "sendbuf");
	if (a->all)
		CK(blocks64(a, rb, count, 1, a->sd, &a->rp), "recvbuf");
	if (a->all && a->own && !a->in_place)
		CK(mw_disjoint(a->sp, count, a->rp, count, a->sd), "recvbuf");
	return 0;
}

/* Allreduce, Scan, Exscan: count elements in, count out. */
int mw_coll_allreduce(mw_coll *a, u32 sb, u32 rb, u32 count, u32 dt, u32 opv)
{
	return mw_coll_allreduce64(a, sb, rb, (int32_t)count, dt, opv);
}

int mw_coll_allreduce64(mw_coll *a, u32 sb, u32 rb, int64_t count, u32 dt, u32 opv)
{
	CK(dtype_arg(dt, 1, &a->sd), "datatype");
	a->rd = a->sd;
	CK(op_arg(opv), "op");
	a->in_place = IN_PLACE(sb);
	if (a->in_place)
		a->sp = MPI_IN_PLACE;
	else
		CK(blocks64(a, sb, count, 1, a->sd, &a->sp), "sendbuf");
	CK(blocks64(a, rb, count, 1, a->sd, &a->rp), "recvbuf");
	if (!a->in_place)
		CK(mw_disjoint(a->sp, count, a->rp, count, a->sd), "recvbuf");
	return 0;
}

/* n blocks of count in, one out (n blocks in place).  On an
 * intercommunicator the send buffer is checked for the larger group's
 * blocks, whichever the host library reads by. */
int mw_coll_reduce_scatter_block(mw_coll *a, u32 sb, u32 rb, u32 count, u32 dt,
                                 u32 opv)
{
	int n = a->n, local = 0;
	MPI_Comm_size(a->c, &local);
	if (local > n)
		n = local;
	CK(dtype_arg(dt, 1, &a->sd), "datatype");
	a->rd = a->sd;
	CK(op_arg(opv), "op");
	a->in_place = IN_PLACE(sb);
	if (a->in_place) {
		a->sp = MPI_IN_PLACE;
		CK(blocks(a, rb, count, n, a->sd, &a->rp), "recvbuf");
	} else {
		CK(blocks(a, sb, count, n, a->sd, &a->sp), "sendbuf");
		CK(blocks(a, rb, count, 1, a->sd, &a->rp), "recvbuf");
		CK(mw_disjoint(a->sp, (int64_t)(int32_t)count * n, a->rp, (int32_t)count,
		               a->sd), "recvbuf");
	}
	return 0;
}

/* recvcounts[i] elements to process i of the local group: their sum in,
 * this process's count out (the sum in place). */
int mw_coll_reduce_scatter(mw_coll *a, u32 sb, u32 rb, u32 rcounts, u32 dt, u32 opv)
{
	int n = 0, me = mw_my_rank(a->c);
	MPI_Comm_size(a->c, &n);
	CK(dtype_arg(dt, 1, &a->sd), "datatype");
	a->rd = a->sd;
	CK(op_arg(opv), "op");
	CK(snap(a, rcounts, n, &a->rcounts), "recvcounts");
	int64_t total = 0;
	for (int i = 0; i < n; i++)
		total += a->rcounts[i] < 0 ? 0 : a->rcounts[i];
	if (total > INT_MAX)
		CK(MW_ERR_COUNT, "recvcounts");
	a->in_place = IN_PLACE(sb);
	if (a->in_place) {
		a->sp = MPI_IN_PLACE;
		CK(blocks(a, rb, (u32)total, 1, a->sd, &a->rp), "recvbuf");
	} else {
		CK(blocks(a, sb, (u32)total, 1, a->sd, &a->sp), "sendbuf");
		CK(blocks(a, rb, (u32)a->rcounts[me], 1, a->sd, &a->rp), "recvbuf");
		CK(mw_disjoint(a->sp, total, a->rp, a->rcounts[me], a->sd), "recvbuf");
	}
	return 0;
}

/* The same with MPI_Count recvcounts, already copied to host memory
 * (counts, each at least 0, their total below 2^63; the large-count
 * MPI_Ireduce_scatter_c, hand_bigr.c). */
int mw_coll_reduce_scatter64(mw_coll *a, u32 sb, u32 rb, const int64_t *counts, u32 dt,
                             u32 opv)
{
	int n = 0, me = mw_my_rank(a->c);
	MPI_Comm_size(a->c, &n);
	CK(dtype_arg(dt, 1, &a->sd), "datatype");
	a->rd = a->sd;
	CK(op_arg(opv), "op");
	int64_t total = 0;
	for (int i = 0; i < n; i++)
		total += counts[i];
	a->in_place = IN_PLACE(sb);
	if (a->in_place) {
		a->sp = MPI_IN_PLACE;
		CK(blocks64(a, rb, total, 1, a->sd, &a->rp), "recvbuf");
	} else {
		CK(blocks64(a, sb, total, 1, a->sd, &a->sp), "sendbuf");
		CK(blocks64(a, rb, counts[me], 1, a->sd, &a->rp), "recvbuf");
		CK(mw_disjoint(a->sp, total, a->rp, counts[me], a->sd), "recvbuf");
	}
	return 0;
}

/* ---- neighborhood collectives ----------------------------------------------------
 * Blocks go to and come from the neighbours of c's topology: outdeg sent,
 * indeg received.  The block a process sends itself (a periodic
 * dimension of size 1, a graph listing it as its own neighbour) is checked
 * by hand_nbc.c's self_refused, which needs the neighbour lists. */

int mw_coll_neighbors(mw_coll *a)
{
	CK(mw_degrees(a->c, &a->indeg, &a->outdeg), "comm");
	a->cap = a->indeg > a->outdeg ? a->indeg : a->outdeg;
	return 0;
}

int mw_coll_nb_allgather(mw_coll *a, int alltoall, u32 sb, u32 sc, u32 sdt,
                         u32 rb, u32 rcn, u32 rdt)
{
	CK(dtype_arg(sdt, 1, &a->sd), "sendtype");
	CK(dtype_arg(rdt, 1, &a->rd), "recvtype");
	CK(blocks(a, sb, sc, alltoall ? a->outdeg : 1, a->sd, &a->sp), "sendbuf");
	CK(blocks(a, rb, rcn, a->indeg, a->rd, &a->rp), "recvbuf");
	return 0;
}

int mw_coll_nb_allgatherv(mw_coll *a, u32 sb, u32 sc, u32 sdt, u32 rb,
                          u32 rcounts, u32 displs, u32 rdt)
{
	CK(dtype_arg(sdt, 1, &a->sd), "sendtype");
	CK(dtype_arg(rdt, 1, &a->rd), "recvtype");
	CK(blocks(a, sb, sc, 1, a->sd, &a->sp), "sendbuf");
	return vblocks(a, rb, a->indeg, rcounts, displs, a->rd, &a->rcounts,
	               &a->rdispls, &a->rp, "recvcounts", "displs", "recvbuf");
}

int mw_coll_nb_alltoallv(mw_coll *a, u32 sb, u32 scounts, u32 sdispls, u32 sdt,
                         u32 rb, u32 rcounts, u32 rdispls, u32 rdt)
{
	int rc;
	CK(dtype_arg(sdt, 1, &a->sd), "sendtype");
	CK(dtype_arg(rdt, 1, &a->rd), "recvtype");
	if ((rc = vblocks(a, sb, a->outdeg, scounts, sdispls, a->sd, &a->scounts,
	                  &a->sdispls, &a->sp, "sendcounts", "sdispls", "sendbuf")))
		return rc;
	return vblocks(a, rb, a->indeg, rcounts, rdispls, a->rd, &a->rcounts,
	               &a->rdispls, &a->rp, "recvcounts", "rdispls", "recvbuf");
}

/* Byte displacements are MPI_Aint here: 32-bit in the module, converted. */
int mw_coll_nb_alltoallw(mw_coll *a, u32 sb, u32 scounts, u32 sdispls, u32 stypes,
                         u32 rb, u32 rcounts, u32 rdispls, u32 rtypes)
{
	int rc;
	dtype_arg(0, 0, &a->sd);
	a->rd = a->sd;
	if ((rc = wblocks(a, sb, a->outdeg, scounts, sdispls, stypes, &a->scounts,
	                  &a->sdispls, &a->sadispls, &a->stypes, &a->sp,
	                  "sendcounts", "sdispls", "sendtypes", "sendbuf")))
		return rc;
	return wblocks(a, rb, a->indeg, rcounts, rdispls, rtypes, &a->rcounts,
	               &a->rdispls, &a->radispls, &a->rtypes, &a->rp,
	               "recvcounts", "rdispls", "recvtypes", "recvbuf");
}
