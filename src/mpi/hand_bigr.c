/* hand_bigr.c - MPI-4's large-count reductions: MPI_Allreduce_c,
 * MPI_Reduce_c, MPI_Reduce_local_c, MPI_Scan_c, MPI_Exscan_c,
 * MPI_Reduce_scatter_block_c, MPI_Reduce_scatter_c and
 * MPI_Ireduce_scatter_c (their own sections, below) and the nonblocking
 * MPI_Iallreduce_c, MPI_Ireduce_c, MPI_Iscan_c, MPI_Iexscan_c,
 * MPI_Ireduce_scatter_block_c.
 *
 * A count up to INT_MAX goes through the int version, as the generated
 * glue does for the other procedures, so what a module sees does not
 * change.  Above it (a predefined op needs a predefined type, so the
 * contiguous type of the transfers cannot carry the count):
 *
 * - where the host has MPI-4's large-count procedures (MPICH 4), a
 *   predefined op on a type the host reduces itself goes to the host's own
 *   `_c` procedure, after the int version's argument rules with a 64-bit
 *   count (not a user op, which the bridge calls through an int length,
 *   nor a long double type, which the bridge reduces);
 * - otherwise the blocking Allreduce, Reduce, Reduce_local, Scan and
 *   Exscan run as chunks of at most INT_MAX elements through the int
 *   version: an op applies element by element, so the chunks' results are
 *   the whole one's, and each chunk's buffers are checked as the int
 *   version checks them (MPI_IN_PLACE stays MPI_IN_PLACE);
 * - Reduce_scatter_block and the nonblocking forms (whose one request
 *   must stand for the whole operation) make one host call on ONE element
 *   of a contiguous type of count elements, with an op of the bridge's
 *   (wrap_fn) that applies the module's op to the elements in pieces: a
 *   predefined op or the bridge's long double op through
 *   MPI_Reduce_local, a user op through the module's function.  The
 *   request is then an ordinary host request: MPI_Wait, MPI_Test, their
 *   array forms, MPI_Request_free complete or release it as any other.
 *
 * MPIWASM_BIGC_LIMIT (tests only) lowers the INT_MAX above, so that
 * small counts take these paths. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_args.h"
#include "mpib_int.h"
#include "hand_protos.h"

typedef uint32_t u32;

#define IN_PLACE(a) ((a) == 1)

/* A user op is called on at most this many bytes at a time: the bridge
 * stages what is not in linear memory (the host's temporary buffers)
 * through the module's malloc. */
#define PIECE_BYTES ((int64_t)1 << 26)

/* The largest count that goes through an int version, and the largest
 * chunk. */
static int64_t limit(void)
{
	static int64_t lim;
	if (!lim) {
		const char *s = getenv("MPIWASM_BIGC_LIMIT");
		long long v = s ? atoll(s) : 0;
		lim = v > 0 && v < INT_MAX ? v : INT_MAX;
	}
	return lim;
}

enum { R_ALL, R_ONE, R_LOCAL, R_SCAN, R_EXSCAN, R_RSB };
static const char *const red_name[] = {
	"MPI_Allreduce_c", "MPI_Reduce_c", "MPI_Reduce_local_c", "MPI_Scan_c",
	"MPI_Exscan_c", "MPI_Reduce_scatter_block_c"
};
static const char *const ired_name[] = {
	"MPI_Iallreduce_c", "MPI_Ireduce_c", NULL, "MPI_Iscan_c", "MPI_Iexscan_c",
	"MPI_Ireduce_scatter_block_c"
};

/* The int version of kind, count elements. */
static u32 int_version(rt_instance *inst, int kind, u32 sb, u32 rb, u32 n, u32 dt,
                       u32 opv, u32 root, u32 comm)
{
	switch (kind) {
	case R_ALL: return mwg_Allreduce(inst, sb, rb, n, dt, opv, comm);
	case R_ONE: return mwg_Reduce(inst, sb, rb, n, dt, opv, root, comm);
	case R_LOCAL: return mwg_Reduce_local(inst, sb, rb, n, dt, opv);
	case R_SCAN: return mwg_Scan(inst, sb, rb, n, dt, opv, comm);
	case R_EXSCAN: return mwg_Exscan(inst, sb, rb, n, dt, opv, comm);
	default: return mwg_Reduce_scatter_block(inst, sb, rb, n, dt, opv, comm);
	}
}

static u32 int_nb(rt_instance *inst, int kind, u32 sb, u32 rb, u32 n, u32 dt, u32 opv,
                  u32 root, u32 comm, u32 req)
{
	switch (kind) {
	case R_ALL: return mwg_Iallreduce(inst, sb, rb, n, dt, opv, comm, req);
	case R_ONE: return mwg_Ireduce(inst, sb, rb, n, dt, opv, root, comm, req);
	case R_SCAN: return mwg_Iscan(inst, sb, rb, n, dt, opv, comm, req);
	case R_EXSCAN: return mwg_Iexscan(inst, sb, rb, n, dt, opv, comm, req);
	default: return mwg_Ireduce_scatter_block(inst, sb, rb, n, dt, opv, comm, req);
	}
}

/* A predefined op on a type the host reduces itself (not a long double
 * type): what the host's own large-count procedures may take. */
static int host_reduces(u32 dt, u32 opv)
{
	mw_dtype *d;
	MPI_Op op;
	return opv <= MW_NO_OP && !mw_op_get(opv, &op) && !mw_dtype_get(dt, &d) &&
	       !mw_dtype_ld(d);
}

/* The module address of element `off` bytes past buffer addr (MPI_IN_PLACE
 * stays itself); 1 with the failure raised if it lies past 4 GiB. */
static int shift(mw_bigc *x, const char *arg, u32 addr, int64_t off, u32 *out)
{
	int64_t v = (int64_t)addr + off;
	*out = addr;
	if (IN_PLACE(addr) || off == 0)
		return 0;
	if (v < 0 || v > UINT32_MAX)
		return mw_bigc_fail(x, MW_ERR_BUFFER, "argument %s: the elements from 0x%08x "
		                    "run past linear memory", arg, addr);
	*out = (u32)v;
	return 0;
}

/* Blocking: chunks of at most limit() elements (a user op's of at most
 * PIECE_BYTES) through the int version; the first failure ends it. */
static void chunked(mw_bigc *x, int kind, u32 sb, u32 rb, int64_t n, u32 dt, u32 opv,
                    u32 root, u32 comm)
{
	mw_dtype *d;
	int64_t ext = 0, step = limit();
	u32 fn;
	if (!mw_dtype_get(dt, &d))
		ext = d->extent;   /* else the first chunk's int version says why */
	if (mw_uop_fn(opv, &fn) && ext) {
		int64_t s = PIECE_BYTES / (ext < 0 ? -ext : ext);
		if (s < step)
			step = s > 0 ? s : 1;
	}
	const char *sa = kind == R_LOCAL ? "inbuf" : "sendbuf";
	const char *ra = kind == R_LOCAL ? "inoutbuf" : "recvbuf";
	/* Reduce's receive buffer means nothing off the root: left as it is. */
	int64_t rext = kind == R_ONE && !mw_bigc_root(comm, root) ? 0 : ext;
	for (int64_t done = 0; done < n; done += step) {
		int64_t c = n - done < step ? n - done : step;
		u32 s, r;
		if (shift(x, sa, sb, done * ext, &s) || shift(x, ra, rb, done * rext, &r))
			return;
		x->r = int_version(x->inst, kind, s, r, (u32)c, dt, opv, root, comm);
		if (x->r || mw_pending_trap)
			return;
	}
}

/* ---- one element of a contiguous type, with the bridge's op ------------- */

/* What wrap_fn applies to one element of the contiguous type it is an
 * attribute of (freed with the type, i.e. when the last operation that
 * uses it is done). */
typedef struct wrap_rec {
	MPI_Datatype elem;    /* the module's element type (host handle) */
	MPI_Aint ext, bigext; /* extents: an element, the whole type */
	MPI_Count n, piece;   /* elements in the type; per call of the op */
	MPI_Op op;            /* a predefined op or the bridge's long double op */
	int user;             /* else: the module's user function fn */
	u32 fn;
} wrap_rec;

static int wrap_key = MPI_KEYVAL_INVALID;
static MPI_Op wrap_op[2] = { MPI_OP_NULL, MPI_OP_NULL };   /* [commutative] */

static int wrap_del(MPI_Datatype t, int key, void *attr, void *extra)
{
	(void)t, (void)key, (void)extra;
	free(attr);
	return MPI_SUCCESS;
}

static void wrap_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	wrap_rec *w = NULL;
	int flag = 0;
	if (MPI_Type_get_attr(*dt, wrap_key, &w, &flag) != MPI_SUCCESS || !flag || !w) {
		fprintf(stderr, "mpiwasm: rank %d: hand_bigr.c: the large-count reduction's "
		        "op was called on a datatype it did not make\n", mw_world_rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return;
	}
	for (int i = 0; i < *len; i++) {
		char *a = (char *)in + (MPI_Aint)i * w->bigext;
		char *b = (char *)inout + (MPI_Aint)i * w->bigext;
		for (MPI_Count done = 0; done < w->n && !mw_pending_trap; done += w->piece) {
			int c = (int)(w->n - done < w->piece ? w->n - done : w->piece);
			MPI_Aint off = (MPI_Aint)done * w->ext;
			if (w->user) {
				mw_uop_apply(w->fn, a + off, b + off, &c, &w->elem);
			} else if (MPI_Reduce_local(a + off, b + off, c, w->elem, w->op)) {
				/* wrap_type tried the op on this type first */
				fprintf(stderr, "mpiwasm: rank %d: hand_bigr.c: MPI_Reduce_local "
				        "failed in a large-count reduction\n", mw_world_rank);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
	}
}

/* Whether predefined (or long double) op is defined on host type t, as
 * the int versions' host call would say: the op applied to one element of
 * zeros; MPI_SUCCESS or the host's error (a derived type: MPI_ERR_OP). */
static int try_op(MPI_Datatype t, MPI_Op op)
{
	_Alignas(16) unsigned char a[64] = {0}, b[64] = {0};
	MPI_Aint tlb, text;
	int cls = MPI_ERR_OP;
	if (MPI_Type_get_true_extent(t, &tlb, &text) || tlb < 0 || tlb + text > 64)
		return MPI_ERR_OP;
	int rc = MPI_Reduce_local(a, b, 1, t, op);
	if (rc != MPI_SUCCESS)
		MPI_Error_class(rc, &cls);
	return rc == MPI_SUCCESS ? MPI_SUCCESS : cls;
}

/* The module handle of one element of n elements of dt, with the op for
 * it in *wop; 1 with the failure raised.  x releases the type. */
static int wrap_type(mw_bigc *x, int64_t n, u32 dt, u32 opv, u32 *bigh, MPI_Op *wop)
{
	mw_dtype *d;
	MPI_Op op;
	MPI_Aint lb;
	MPI_Datatype big;
	u32 fn;
	int commute = 1, rc;
	if (mw_dtype_get(dt, &d))
		return mw_bigc_fail(x, MW_ERR_TYPE, "argument datatype is not a datatype");
	if (!d->committed)
		return mw_bigc_fail(x, MW_ERR_TYPE, "argument datatype is not committed");
	if (mw_op_get(opv, &op) || op == MPI_OP_NULL)
		return mw_bigc_fail(x, MW_ERR_OP, "argument op is not an op");
	wrap_rec *w = calloc(1, sizeof *w);
	if (!w)
		return mw_bigc_fail(x, MW_ERR_NO_MEM, "no host memory for the reduction");
	w->elem = d->h;
	w->n = n;
	w->piece = limit();
	MPI_Type_get_extent(d->h, &lb, &w->ext);
	if (mw_uop_fn(opv, &fn)) {
		w->user = 1;
		w->fn = fn;
		MPI_Op_commutative(op, &commute);
		MPI_Aint e = w->ext < 0 ? -w->ext : w->ext;
		if (e && PIECE_BYTES / e < w->piece)
			w->piece = PIECE_BYTES / e > 0 ? PIECE_BYTES / e : 1;
	} else {
		w->op = op;
		mw_ld_op(opv, d, &w->op);
		if ((rc = try_op(d->h, w->op))) {
			free(w);
			return mw_bigc_fail(x, rc == MPI_ERR_OP ? MW_ERR_OP : mw_class_out(rc),
			                    "argument op: not defined on argument datatype");
		}
	}
	commute = commute != 0;
	mw_lock();
	rc = MPI_SUCCESS;
	if (wrap_key == MPI_KEYVAL_INVALID)
		rc = MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, wrap_del, &wrap_key, NULL);
	if (rc == MPI_SUCCESS && wrap_op[commute] == MPI_OP_NULL)
		rc = MPI_Op_create(wrap_fn, commute, &wrap_op[commute]);
	*wop = wrap_op[commute];
	mw_unlock();
	if (rc != MPI_SUCCESS) {
		free(w);
		return mw_bigc_fail(x, mw_class_out(rc), "the bridge's reduction op");
	}
	if ((rc = mw_bigc_contig(n, d->h, &big)) != MPI_SUCCESS) {
		free(w);
		return mw_bigc_fail(x, mw_class_out(rc), "argument count = %lld: no contiguous "
		                    "type of that many elements", (long long)n);
	}
	MPI_Type_get_extent(big, &lb, &w->bigext);
	if ((rc = MPI_Type_commit(&big)) != MPI_SUCCESS ||
	    (rc = MPI_Type_set_attr(big, wrap_key, w)) != MPI_SUCCESS) {
		free(w);
		MPI_Type_free(&big);
		return mw_bigc_fail(x, mw_class_out(rc), "argument count = %lld: no contiguous "
		                    "type of that many elements", (long long)n);
	}
	*bigh = mw_dtype_put(big);
	mw_dtype_refresh(*bigh);
	x->type[x->ntype++] = *bigh;   /* freed by mw_bigc_end; the host keeps it while used */
	return 0;
}

/* A nonblocking operation's request owns nothing of the bridge's; it is
 * marked as owning something so that MPI_Request_free treats it as the
 * int versions' (mw_req_orphan: the bridge completes it). */
static void owns_nothing(void *arg)
{
	(void)arg;
}

static void started(mw_bigc *x, int rc, MPI_Request hr, u32 *r, u32 comm)
{
	if (r && rc == MPI_SUCCESS) {
		*r = mw_req_put(hr);
		mw_req_attach(*r, owns_nothing, NULL);
		mw_req_comm(*r, comm);
	}
	mw_proc_as = NULL;
	x->r = mw_ret(x->inst, rc, comm, x->proc);
}

/* After the argument rules (rc): the module's request pointer (req, 0 for
 * a blocking form) into *r; 1 with the failure raised if either failed. */
static int checked(mw_bigc *x, mw_coll *a, int rc, u32 req, u32 **r, u32 comm)
{
	if (!rc && req && !(*r = mw_ptr(x->inst, req, 4))) {
		a->arg = "request";
		rc = MW_ERR_ARG;
	}
	if (!rc)
		return 0;
	mw_proc_as = NULL;
	x->r = mw_coll_fail(a, rc, comm, x->proc);
	return 1;
}

/* Reduce_scatter_block, or a nonblocking form (req: the module's request
 * pointer): one element of a contiguous type. */
static void wrapped(mw_bigc *x, int kind, u32 sb, u32 rb, int64_t n, u32 dt, u32 opv,
                    u32 root, u32 comm, u32 req)
{
	mw_coll a;
	MPI_Op op = MPI_OP_NULL;
	MPI_Request hr = MPI_REQUEST_NULL;
	u32 bigh = 0, *r = NULL;
	if (wrap_type(x, n, dt, opv, &bigh, &op))
		return;
	int rc = mw_coll_begin(&a, x->inst, comm, NULL, 0);
	if (!rc) {
		switch (kind) {
		case R_ONE: rc = mw_coll_reduce(&a, sb, rb, 1, bigh, opv, root); break;
		case R_RSB: rc = mw_coll_reduce_scatter_block(&a, sb, rb, 1, bigh, opv); break;
		default: rc = mw_coll_allreduce(&a, sb, rb, 1, bigh, opv); break;
		}
	}
	if (checked(x, &a, rc, req, &r, comm))
		return;
	MPI_Datatype t = a.sd->h;
	switch (kind * 2 + (req != 0)) {
	case R_ALL * 2: rc = MPI_Allreduce(a.sp, a.rp, 1, t, op, a.c); break;
	case R_ALL * 2 + 1: rc = MPI_Iallreduce(a.sp, a.rp, 1, t, op, a.c, &hr); break;
	case R_ONE * 2: rc = MPI_Reduce(a.sp, a.rp, 1, t, op, a.root, a.c); break;
	case R_ONE * 2 + 1: rc = MPI_Ireduce(a.sp, a.rp, 1, t, op, a.root, a.c, &hr); break;
	case R_SCAN * 2: rc = MPI_Scan(a.sp, a.rp, 1, t, op, a.c); break;
	case R_SCAN * 2 + 1: rc = MPI_Iscan(a.sp, a.rp, 1, t, op, a.c, &hr); break;
	case R_EXSCAN * 2: rc = MPI_Exscan(a.sp, a.rp, 1, t, op, a.c); break;
	case R_EXSCAN * 2 + 1: rc = MPI_Iexscan(a.sp, a.rp, 1, t, op, a.c, &hr); break;
	case R_RSB * 2: rc = MPI_Reduce_scatter_block(a.sp, a.rp, 1, t, op, a.c); break;
	default: rc = MPI_Ireduce_scatter_block(a.sp, a.rp, 1, t, op, a.c, &hr); break;
	}
	started(x, rc, hr, r, comm);
}

/* The host's own large-count procedure (MPI-4 host, host_reduces). */
static void host_c(mw_bigc *x, int kind, u32 sb, u32 rb, int64_t n, u32 dt, u32 opv,
                   u32 root, u32 comm, u32 req)
{
#if MPI_VERSION >= 4
	mw_coll a;
	MPI_Op op;
	MPI_Request hr = MPI_REQUEST_NULL;
	u32 *r = NULL;
	int rc = mw_coll_begin(&a, x->inst, comm, NULL, 0);
	if (!rc)
		rc = kind == R_ONE ? mw_coll_reduce64(&a, sb, rb, n, dt, opv, root)
		                   : mw_coll_allreduce64(&a, sb, rb, n, dt, opv);
	if (checked(x, &a, rc, req, &r, comm))
		return;
	mw_op_get(opv, &op);   /* checked by the argument rules */
	MPI_Count c = (MPI_Count)n;
	MPI_Datatype t = a.sd->h;
	switch (kind * 2 + (req != 0)) {
	case R_ALL * 2: rc = MPI_Allreduce_c(a.sp, a.rp, c, t, op, a.c); break;
	case R_ALL * 2 + 1: rc = MPI_Iallreduce_c(a.sp, a.rp, c, t, op, a.c, &hr); break;
	case R_ONE * 2: rc = MPI_Reduce_c(a.sp, a.rp, c, t, op, a.root, a.c); break;
	case R_ONE * 2 + 1: rc = MPI_Ireduce_c(a.sp, a.rp, c, t, op, a.root, a.c, &hr); break;
	case R_SCAN * 2: rc = MPI_Scan_c(a.sp, a.rp, c, t, op, a.c); break;
	case R_SCAN * 2 + 1: rc = MPI_Iscan_c(a.sp, a.rp, c, t, op, a.c, &hr); break;
	case R_EXSCAN * 2: rc = MPI_Exscan_c(a.sp, a.rp, c, t, op, a.c); break;
	default: rc = MPI_Iexscan_c(a.sp, a.rp, c, t, op, a.c, &hr); break;
	}
	started(x, rc, hr, r, comm);
#else
	(void)kind, (void)sb, (void)rb, (void)n, (void)dt, (void)opv, (void)root, (void)comm;
	(void)req;
	mw_bigc_fail(x, MW_ERR_INTERN, "no host large-count procedure (MPI %d)", MPI_VERSION);
#endif
}

/* More than 4 GiB of data, or more than 2^32 elements (of a type of size
 * or extent 0: no buffer check stops them), is refused as the transfers'
 * messages are: 1 with the failure raised. */
static int too_big(mw_bigc *x, int64_t n, u32 dt)
{
	mw_dtype *d;
	const int64_t g4 = (int64_t)1 << 32;
	if (mw_dtype_get(dt, &d))
		return 0;   /* the path taken says the datatype is bad */
	if (n > g4 || (d->size > 0 && d->size > g4 / n))
		return mw_bigc_fail(x, MW_ERR_COUNT, "argument count = %lld: a reduction of "
		                    "more than 4 GiB or 2^32 elements", (long long)n);
	return 0;
}

static u32 reduce_c(rt_instance *inst, int kind, u32 sb, u32 rb, uint64_t count, u32 dt,
                    u32 opv, u32 root, u32 comm)
{
	mw_bigc x;
	int64_t n = (int64_t)count;
	mw_bigc_begin(&x, inst, red_name[kind], MW_BIGC_COMM,
	              kind == R_LOCAL ? MW_NOCOMM : comm);
	if (n >= 0 && n <= limit())
		x.r = int_version(inst, kind, sb, rb, (u32)n, dt, opv, root, comm);
	else if (n < 0)
		mw_bigc_fail(&x, MW_ERR_COUNT, "argument count = %lld is negative", (long long)n);
	else if (too_big(&x, n, dt))
		;
	else if (MPI_VERSION >= 4 && kind != R_LOCAL && kind != R_RSB && host_reduces(dt, opv))
		host_c(&x, kind, sb, rb, n, dt, opv, root, comm, 0);
	else if (kind == R_RSB)
		wrapped(&x, kind, sb, rb, n, dt, opv, root, comm, 0);
	else
		chunked(&x, kind, sb, rb, n, dt, opv, root, comm);
	return mw_bigc_end(&x);
}

static u32 ireduce_c(rt_instance *inst, int kind, u32 sb, u32 rb, uint64_t count, u32 dt,
                     u32 opv, u32 root, u32 comm, u32 req)
{
	mw_bigc x;
	int64_t n = (int64_t)count;
	mw_bigc_begin(&x, inst, ired_name[kind], MW_BIGC_COMM, comm);
	if (n >= 0 && n <= limit())
		x.r = int_nb(inst, kind, sb, rb, (u32)n, dt, opv, root, comm, req);
	else if (n < 0)
		mw_bigc_fail(&x, MW_ERR_COUNT, "argument count = %lld is negative", (long long)n);
	else if (too_big(&x, n, dt))
		;
	else if (MPI_VERSION >= 4 && kind != R_RSB && host_reduces(dt, opv))
		host_c(&x, kind, sb, rb, n, dt, opv, root, comm, req);
	else
		wrapped(&x, kind, sb, rb, n, dt, opv, root, comm, req);
	return mw_bigc_end(&x);
}

u32 mwb_Allreduce_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt, u32 op,
                    u32 comm)
{ return reduce_c(inst, R_ALL, sb, rb, count, dt, op, 0, comm); }
u32 mwb_Reduce_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt, u32 op,
                 u32 root, u32 comm)
{ return reduce_c(inst, R_ONE, sb, rb, count, dt, op, root, comm); }
u32 mwb_Reduce_local_c(rt_instance *inst, u32 ib, u32 iob, uint64_t count, u32 dt, u32 op)
{ return reduce_c(inst, R_LOCAL, ib, iob, count, dt, op, 0, MW_NOCOMM); }
u32 mwb_Scan_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt, u32 op, u32 comm)
{ return reduce_c(inst, R_SCAN, sb, rb, count, dt, op, 0, comm); }
u32 mwb_Exscan_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt, u32 op,
                 u32 comm)
{ return reduce_c(inst, R_EXSCAN, sb, rb, count, dt, op, 0, comm); }
u32 mwb_Reduce_scatter_block_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt,
                               u32 op, u32 comm)
{ return reduce_c(inst, R_RSB, sb, rb, count, dt, op, 0, comm); }

u32 mwb_Iallreduce_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt, u32 op,
                     u32 comm, u32 req)
{ return ireduce_c(inst, R_ALL, sb, rb, count, dt, op, 0, comm, req); }
u32 mwb_Ireduce_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt, u32 op,
                  u32 root, u32 comm, u32 req)
{ return ireduce_c(inst, R_ONE, sb, rb, count, dt, op, root, comm, req); }
u32 mwb_Iscan_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt, u32 op,
                u32 comm, u32 req)
{ return ireduce_c(inst, R_SCAN, sb, rb, count, dt, op, 0, comm, req); }
u32 mwb_Iexscan_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count, u32 dt, u32 op,
                  u32 comm, u32 req)
{ return ireduce_c(inst, R_EXSCAN, sb, rb, count, dt, op, 0, comm, req); }
u32 mwb_Ireduce_scatter_block_c(rt_instance *inst, u32 sb, u32 rb, uint64_t count,
                                u32 dt, u32 op, u32 comm, u32 req)
{ return ireduce_c(inst, R_RSB, sb, rb, count, dt, op, 0, comm, req); }

/* ---- MPI_Reduce_scatter_c -------------------------------------------------
 * recvcounts are MPI_Counts.  All within limit(): the int version on an
 * int copy of them (as the generated glue does).  Above, on any host: one
 * MPI_Reduce of each rank's block, rooted at that rank, in chunks
 * (chunked(), R_ONE): an op applies element by element, so the blocks'
 * results are the whole reduction's, scattered.  Every rank makes the same
 * calls (recvcounts must be the same everywhere).  In place, each block is
 * reduced where it lies in recvbuf, and the rank's own is then moved to
 * recvbuf's start.  The nonblocking MPI_Ireduce_scatter_c: its own
 * section, below. */

/* Moves n elements of d from element off of recvbuf rb to its start
 * (off > 0; the reduction checked both ranges), in ascending pieces (a
 * piece's destination ends before the next one's source begins): a type
 * without holes by memmove, another packed to host memory and unpacked. */
static int move_down(mw_bigc *x, u32 rb, int64_t off, int64_t n, u32 dt)
{
	mw_dtype *d;
	if (mw_dtype_get(dt, &d) || d->size <= 0)
		return 0;   /* the reductions refused a bad type; nothing to move */
	int solid = d->size == d->extent && d->extent == d->textent;
	int64_t step = solid ? limit() : PIECE_BYTES / d->size;
	if (step > limit())
		step = limit();
	char *tmp = solid ? NULL : malloc((size_t)(step * d->size));
	if (!solid && !tmp)
		return mw_bigc_fail(x, MW_ERR_NO_MEM, "no host memory to move the in-place "
		                    "block to the start of recvbuf");
	int rc = MPI_SUCCESS;
	for (int64_t done = 0; done < n && rc == MPI_SUCCESS; done += step) {
		int c = (int)(n - done < step ? n - done : step), pos = 0;
		u32 s, t;
		void *sp, *tp;
		if (shift(x, "recvbuf", rb, (off + done) * d->extent, &s) ||
		    shift(x, "recvbuf", rb, done * d->extent, &t)) {
			free(tmp);
			return 1;
		}
		if (mw_buf(x->inst, s, c, d, &sp) || mw_buf(x->inst, t, c, d, &tp)) {
			free(tmp);
			return mw_bigc_fail(x, MW_ERR_BUFFER, "argument recvbuf: the in-place "
			                    "block lies outside linear memory");
		}
		if (solid)
			memmove((char *)tp + d->tlb, (char *)sp + d->tlb, (size_t)c * (size_t)d->size);
		else if ((rc = MPI_Pack(sp, c, d->h, tmp, (int)(step * d->size), &pos,
		                        MPI_COMM_SELF)) == MPI_SUCCESS) {
			pos = 0;
			rc = MPI_Unpack(tmp, (int)(step * d->size), &pos, tp, c, d->h, MPI_COMM_SELF);
		}
	}
	free(tmp);
	if (rc != MPI_SUCCESS)
		return mw_bigc_fail(x, mw_class_out(rc), "argument recvbuf: the in-place block "
		                    "could not be moved to its start");
	return 0;
}

/* What both forms refuse above INT_MAX: an intercommunicator, more than
 * 4 GiB or 2^32 elements in all.  0, or 1 with the failure raised; *me
 * this process's rank. */
static int rs_refused(mw_bigc *x, const int64_t *counts, int n, u32 dt, u32 comm, int *me)
{
	MPI_Comm c;
	mw_dtype *d;
	int inter = 0;
	int64_t total = 0;
	mw_comm_live(comm, &c);   /* live: mw_bigc_size said its size */
	MPI_Comm_rank(c, me);
	MPI_Comm_test_inter(c, &inter);
	if (inter)
		return mw_bigc_fail(x, MW_ERR_COUNT, "argument recvcounts: a count above "
		                    "INT_MAX on an intercommunicator (the bridge's large-count "
		                    "reduce-scatter takes intracommunicators only)");
	for (int i = 0; i < n && total <= ((int64_t)1 << 32); i++)
		total += counts[i];   /* each below 2^63: cannot overflow before the check */
	if (total > ((int64_t)1 << 32) || (!mw_dtype_get(dt, &d) && d->size > 0 &&
	                                   d->size > ((int64_t)1 << 32) / total))
		return mw_bigc_fail(x, MW_ERR_COUNT, "argument recvcounts: %lld elements in "
		                    "all, a reduction of more than 4 GiB or 2^32 elements",
		                    (long long)total);
	return 0;
}

/* The blocks' reductions (counts: the host copy of recvcounts, n ranks). */
static void scattered(mw_bigc *x, u32 sb, u32 rb, const int64_t *counts, int n, u32 dt,
                      u32 opv, u32 comm)
{
	mw_dtype *d;
	int me = -1;
	int64_t ext = 0, mine = 0;
	if (rs_refused(x, counts, n, dt, comm, &me))
		return;
	if (!mw_dtype_get(dt, &d))
		ext = d->extent;   /* else the first chunk's int version says why */
	int in_place = IN_PLACE(sb);
	for (int i = 0; i < n; i++) {
		int64_t off = 0;
		for (int j = 0; j < i; j++)
			off += counts[j];
		if (i == me)
			mine = off;
		if (!counts[i])
			continue;
		/* In place, every rank's part of block i lies in recvbuf. */
		u32 s, r = rb;
		if (shift(x, in_place ? "recvbuf" : "sendbuf", in_place ? rb : sb, off * ext, &s))
			return;
		if (in_place && i == me) {
			r = s;
			s = sb;   /* MPI_IN_PLACE at the root */
		}
		chunked(x, R_ONE, s, r, counts[i], dt, opv, (u32)i, comm);
		if (x->r || mw_pending_trap)
			return;
	}
	if (in_place && mine > 0 && counts[me] > 0)
		move_down(x, rb, mine, counts[me], dt);
}

/* recvcounts (n of them at module address rcounts) copied to host
 * memory (*counts, NULL if they could not be: the int version says why);
 * -1 if one is negative, 1 if one is above limit(), else 0. */
static int rs_counts(rt_instance *inst, u32 rcounts, int64_t n, int64_t **counts)
{
	int big = 0;
	const unsigned char *p = n > 0 ? mw_arr(inst, rcounts, (uint64_t)n, 8) : NULL;
	*counts = NULL;
	if (p && (*counts = malloc((size_t)n * sizeof **counts))) {
		memcpy(*counts, p, (size_t)n * 8);   /* once: what is checked is used */
		for (int64_t i = 0; i < n && big >= 0; i++)
			if ((*counts)[i] < 0)
				big = -1;   /* the int version's refusal */
			else if ((*counts)[i] > limit())
				big = 1;
	}
	return big;
}

u32 mwb_Reduce_scatter_c(rt_instance *inst, u32 sb, u32 rb, u32 rcounts, u32 dt, u32 opv,
                         u32 comm)
{
	mw_bigc x;
	mw_bigc_begin(&x, inst, "MPI_Reduce_scatter_c", MW_BIGC_COMM, comm);
	int64_t n = mw_bigc_size(comm, 0), *counts;
	u32 b2;
	if (rs_counts(inst, rcounts, n, &counts) <= 0) {
		if (!mw_bigc_arr(&x, "recvcounts", rcounts, n, &b2))
			x.r = mwg_Reduce_scatter(inst, sb, rb, b2, dt, opv, comm);
	} else {
		scattered(&x, sb, rb, counts, (int)n, dt, opv, comm);
	}
	free(counts);
	return mw_bigc_end(&x);
}

/* ---- MPI_Ireduce_scatter_c ------------------------------------------------
 * All counts within limit(): the int version on an int copy of them.
 * Above (one request must stand for the whole operation):
 * - MPI-4 host (MPICH), a predefined op on a type it reduces (host_reduces):
 *   its own MPI_Ireduce_scatter_c, after the int version's argument rules
 *   with 64-bit counts;
 * - otherwise one host MPI_Ireduce_scatter on a contiguous type of u
 *   elements, u the greatest common divisor of the counts, each count
 *   divided by u, with the bridge's op (wrap_fn: the module's op in pieces,
 *   as the other nonblocking forms).  The buffers are the same bytes, so
 *   they are checked element by element as above;
 * - where the quotients by u are still above limit() (e.g. 2^31 and
 *   2^31+1 elements): allreduced, below. */

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* What the request owns: the int counts the host reads until it is done. */
static void counts_free(void *arg)
{
	free(arg);
}

/* Counts without a large enough common divisor: the whole reduction as
 * one host MPI_Iallreduce on one element of a contiguous type of all the
 * elements (in place: in recvbuf; else into host memory), this process's
 * block copied to recvbuf's start when the request completes (rs_done,
 * run by the request's release).  A copy by bytes: refused for a type
 * with holes (recvbuf's holes must stay as they are). */
typedef struct rs_after {
	char *to;
	const char *from;
	size_t bytes;
	void *tmp;   /* the host buffer of the whole result, or NULL */
} rs_after;

static void rs_done(void *arg)
{
	rs_after *f = arg;
	if (f->bytes && f->to != f->from)
		memmove(f->to, f->from, f->bytes);
	free(f->tmp);
	free(f);
}

static void allreduced(mw_bigc *x, u32 sb, u32 rb, const int64_t *counts, int n, int me,
                       u32 dt, u32 opv, u32 comm, u32 req)
{
	mw_dtype *d, *big;
	mw_coll a;
	int64_t total = 0, off = 0;
	MPI_Request hr = MPI_REQUEST_NULL;
	MPI_Op op = MPI_OP_NULL;
	u32 bigh = 0, *r = NULL;
	for (int i = 0; i < n; i++) {
		total += counts[i];
		off += i < me ? counts[i] : 0;
	}
	if (!mw_dtype_get(dt, &d) && !(d->size == d->extent && d->extent == d->textent))
		return (void)mw_bigc_fail(x, MW_ERR_COUNT, "argument recvcounts: no common "
		        "divisor of the counts leaves them within INT_MAX, and on a datatype "
		        "with holes the bridge cannot reduce them whole and copy this "
		        "process's block out (the copy would write recvbuf's holes)");
	if (wrap_type(x, total, dt, opv, &bigh, &op))
		return;
	int rc = mw_coll_begin(&a, x->inst, comm, NULL, 0);
	if (!rc)
		rc = mw_coll_reduce_scatter64(&a, sb, rb, counts, dt, opv);
	if (checked(x, &a, rc, req, &r, comm))
		return;
	rs_after *f = calloc(1, sizeof *f);
	size_t bytes = (size_t)total * (size_t)a.sd->size;
	if (f && !a.in_place && !(f->tmp = malloc(bytes + 1))) {
		free(f);
		f = NULL;
	}
	if (!f)
		return (void)mw_bigc_fail(x, MW_ERR_NO_MEM, "no host memory for the whole "
		                          "reduction (%lld elements)", (long long)total);
	/* the host writes element k's data at buf + tlb + k * extent */
	char *res = a.in_place ? (char *)a.rp : (char *)f->tmp - a.sd->tlb;
	f->from = res + a.sd->tlb + off * a.sd->extent;
	f->to = (char *)a.rp + a.sd->tlb;
	f->bytes = (size_t)counts[me] * (size_t)a.sd->size;
	mw_dtype_get(bigh, &big);   /* wrap_type made it */
	rc = MPI_Iallreduce(a.in_place ? MPI_IN_PLACE : a.sp, res, 1, big->h, op, a.c, &hr);
	if (rc == MPI_SUCCESS) {
		*r = mw_req_put(hr);
		mw_req_attach(*r, rs_done, f);
		mw_req_comm(*r, comm);
	} else {
		free(f->tmp);
		free(f);
	}
	mw_proc_as = NULL;
	x->r = mw_ret(x->inst, rc, comm, x->proc);
}

static void iscattered(mw_bigc *x, u32 sb, u32 rb, const int64_t *counts, int n, u32 dt,
                       u32 opv, u32 comm, u32 req)
{
	mw_coll a;
	int me = -1, rc;
	MPI_Request hr = MPI_REQUEST_NULL;
	u32 *r = NULL;
	if (rs_refused(x, counts, n, dt, comm, &me))
		return;
	int host = MPI_VERSION >= 4 && host_reduces(dt, opv);
	int64_t u = 0;
	for (int i = 0; i < n; i++)
		u = gcd64(u, counts[i]);   /* > 0: one count is above limit() */
	for (int i = 0; i < n && !host; i++)
		if (counts[i] / u > limit())
			return allreduced(x, sb, rb, counts, n, me, dt, opv, comm, req);
	/* The counts the host reads until the operation is done: the request's. */
	int *q = host ? NULL : malloc((size_t)n * sizeof *q);
	int64_t *c64 = host ? malloc((size_t)n * sizeof *c64) : NULL;
	void *own = host ? (void *)c64 : (void *)q;
	if (!own)
		return (void)mw_bigc_fail(x, MW_ERR_NO_MEM, "no host memory for the counts");
	if (c64)
		memcpy(c64, counts, (size_t)n * sizeof *c64);
	for (int i = 0; q && i < n; i++)
		q[i] = (int)(counts[i] / u);
	MPI_Op op = MPI_OP_NULL;
	u32 bigh = 0;
	if (!host && wrap_type(x, u, dt, opv, &bigh, &op)) {
		free(own);
		return;
	}
	rc = mw_coll_begin(&a, x->inst, comm, NULL, 0);
	if (!rc)
		rc = mw_coll_reduce_scatter64(&a, sb, rb, counts, dt, opv);
	if (checked(x, &a, rc, req, &r, comm)) {
		free(own);
		return;
	}
	if (host) {
#if MPI_VERSION >= 4
		mw_op_get(opv, &op);   /* checked by the argument rules */
		rc = MPI_Ireduce_scatter_c(a.sp, a.rp, (const MPI_Count *)c64, a.sd->h, op,
		                           a.c, &hr);
#endif
	} else {
		mw_dtype *big;
		mw_dtype_get(bigh, &big);   /* wrap_type made it */
		rc = MPI_Ireduce_scatter(a.sp, a.rp, q, big->h, op, a.c, &hr);
	}
	if (r && rc == MPI_SUCCESS) {
		*r = mw_req_put(hr);
		mw_req_attach(*r, counts_free, own);
		mw_req_comm(*r, comm);
	} else {
		free(own);
	}
	mw_proc_as = NULL;
	x->r = mw_ret(x->inst, rc, comm, x->proc);
}

u32 mwb_Ireduce_scatter_c(rt_instance *inst, u32 sb, u32 rb, u32 rcounts, u32 dt, u32 opv,
                          u32 comm, u32 req)
{
	mw_bigc x;
	mw_bigc_begin(&x, inst, "MPI_Ireduce_scatter_c", MW_BIGC_COMM, comm);
	int64_t n = mw_bigc_size(comm, 1), *counts;
	u32 b2;
	if (rs_counts(inst, rcounts, n, &counts) <= 0) {
		if (!mw_bigc_arr(&x, "recvcounts", rcounts, n, &b2))
			x.r = mwg_Ireduce_scatter(inst, sb, rb, b2, dt, opv, comm, req);
	} else {
		iscattered(&x, sb, rb, counts, (int)n, dt, opv, comm, req);
	}
	free(counts);
	return mw_bigc_end(&x);
}
