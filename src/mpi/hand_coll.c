/* hand_coll.c - blocking collective communication (MPI-3.1 chapter 5):
 * barrier, broadcast, gathers, scatters, all-to-all, reductions and scans,
 * and user-defined reduction operations (MPI_Op_create: the module's
 * function is called on a copy in module memory).  The argument rules
 * (root, MPI_IN_PLACE, intercommunicators, per-peer counts) are
 * coll_args.c's, shared with the nonblocking forms (hand_nbc.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "coll_args.h"
#include "coll/coll.h"
#include "rt/rt.h"

typedef uint32_t u32;

#define TRY(x) do { if ((rc = (x))) goto fail; } while (0)
#define COMM(c, a) TRY(mw_comm_live((a), &(c)))
#define DTYPE(d, a) TRY(mw_dtype_get((a), &(d)))
#define BUF(p, a, n, d) TRY(mw_buf(inst, (a), (int)(n), (d), &(p)))

/* ---- user-defined operations --------------------------------------------------
 * The host calls op_tramp with no user data, so the op being applied is
 * remembered around each reduction (calls are not reentrant), per thread,
 * as is the module scratch the op's arguments are staged in.  The table
 * of ops changes under mw_lock. */

static struct { u32 fn; int used; } *uop;
static uint32_t uop_cap;
static __thread u32 cur_op = (u32)-1;
static __thread uint32_t scratch, scratch_len;

static uint32_t module_scratch(rt_instance *inst, uint32_t len)
{
	if (len <= scratch_len)
		return scratch;
	if (scratch)
		mw_free(inst, scratch);
	scratch = mw_malloc(inst, len, "user-defined op");
	scratch_len = scratch ? len : 0;
	return scratch;
}

/* Whether host bytes [p, p + n) lie in linear memory [base, base + size). */
static int in_linear(const uint8_t *base, uint64_t size, uintptr_t p, uint64_t n)
{
	uintptr_t b = (uintptr_t)base;
	return p >= b && p - b <= size && n <= size - (p - b);
}

/* The op sees in and inout through module addresses: a buffer already in
 * linear memory as it is, any other (the library's temporary buffers) as
 * a copy in the module's scratch of exactly the bytes the datatype spans,
 * [lo, hi) from the buffer address by its true lower bound and extent;
 * only those bytes of inout are copied back. */
void mw_uop_apply(u32 fn, void *in, void *inout, int *len, MPI_Datatype *dt)
{
	rt_instance *inst = mw_inst;
	if (mw_pending_trap || *len <= 0)
		return;
	MPI_Aint lb, ext, tlb, text;
	MPI_Type_get_extent(*dt, &lb, &ext);
	MPI_Type_get_true_extent(*dt, &tlb, &text);
	int64_t span = (int64_t)(*len - 1) * ext;
	int64_t lo = tlb + (span < 0 ? span : 0), hi = tlb + (span > 0 ? span : 0) + text;
	uint64_t bytes = hi > lo ? (uint64_t)(hi - lo) : 0;
	uint8_t *base = rt_mem(inst, 0, 0);
	uint64_t size = rt_mem_size(inst);
	uintptr_t pin = (uintptr_t)in + (uintptr_t)lo, pio = (uintptr_t)inout + (uintptr_t)lo;
	int in_lin = in_linear(base, size, pin, bytes);
	int io_lin = in_linear(base, size, pio, bytes);
	/* len, datatype, then the staged copies, 16-aligned; a copy starts at
	 * a module address >= lo, so that its buffer address (copy - lo)
	 * does not wrap below 0. */
	uint64_t room = (bytes + 15) & ~(uint64_t)15;
	uint64_t staged = (in_lin ? 0 : room) + (io_lin ? 0 : room);
	uint64_t skip = 0;
	uint32_t s = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (16 + skip + staged > UINT32_MAX / 2) {
			s = 0;
			break;
		}
		s = module_scratch(inst, (uint32_t)(16 + skip + staged));
		if (!s || mw_pending_trap || staged == 0 || lo <= 0 || (int64_t)s + 16 >= lo)
			break;
		skip = ((uint64_t)lo - 16 + 15) & ~(uint64_t)15;   /* s + 16 + skip >= lo */
	}
	if (!s || mw_pending_trap) {
		if (!mw_pending_trap)
			fprintf(stderr, "mpiwasm: rank %d: user op: no module memory for staging "
			        "%llu bytes\n", mw_world_rank, (unsigned long long)staged);
		return;
	}
	base = rt_mem(inst, 0, 0);   /* malloc may have grown memory */
	uint32_t c_in = s + 16 + (uint32_t)skip;
	uint32_t c_io = c_in + (in_lin ? 0 : (uint32_t)room);
	uint32_t a_in = in_lin ? (uint32_t)(pin - (uintptr_t)base - (uintptr_t)lo)
	                       : c_in - (uint32_t)lo;
	uint32_t a_io = io_lin ? (uint32_t)(pio - (uintptr_t)base - (uintptr_t)lo)
	                       : c_io - (uint32_t)lo;
	if (!in_lin)
		memcpy(base + c_in, (const void *)pin, bytes);
	if (!io_lin)
		memcpy(base + c_io, (const void *)pio, bytes);
	int32_t *hdr = (int32_t *)(base + s);
	hdr[0] = *len;
	hdr[1] = (int32_t)mw_dtype_find(*dt);
	const rt_func *f = rt_table_func(inst, 0, fn, "iiii:");
	if (!f) {
		fprintf(stderr, "mpiwasm: rank %d: user op: table entry %u is not a "
		        "void(void*, void*, int*, MPI_Datatype*) function\n",
		        mw_world_rank, fn);
		mw_pending_trap = RT_TRAP_INDIRECT_TYPE;
		return;
	}
	rt_value args[4] = { { .i32 = a_in }, { .i32 = a_io }, { .i32 = s }, { .i32 = s + 4 } };
	int k = rt_call(inst, f, args, NULL);
	if (k) {
		mw_pending_trap = k;
		return;
	}
	base = rt_mem(inst, 0, 0);
	if (!io_lin)
		memcpy((void *)pio, base + c_io, bytes);
}

static void op_tramp(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	mw_lock();
	int known = cur_op < uop_cap;
	u32 fn = known ? uop[cur_op].fn : 0;
	mw_unlock();
	if (known)
		mw_uop_apply(fn, in, inout, len, dt);
}

int mw_uop_fn(u32 op, u32 *fn)
{
	MPI_Op h;
	if (mw_op_get(op, &h))
		return 0;
	mw_lock();
	int ok = op >= 32 && op < uop_cap && uop[op].used;
	if (ok)
		*fn = uop[op].fn;
	mw_unlock();
	return ok;
}

int mw_uop_create(u32 fn, int commute, uint32_t *out, int *hrc)
{
	MPI_Op op;
	if ((*hrc = MPI_Op_create(op_tramp, commute, &op)) != MPI_SUCCESS)
		return 0;
	uint32_t h = mw_op_new(op);
	mw_lock();
	if (h >= uop_cap) {
		uint32_t cap = uop_cap ? uop_cap * 2 : 64;
		while (cap <= h)
			cap *= 2;
		void *v = realloc(uop, cap * sizeof *uop);
		if (!v) {
			mw_unlock();
			return MW_ERR_NO_MEM;
		}
		uop = v;
		uop_cap = cap;
	}
	uop[h].fn = fn;
	uop[h].used = 1;
	mw_unlock();
	*out = h;
	return 0;
}

void mw_uop_forget(uint32_t h)
{
	/* The slot no longer names a user op (its handle may be reused). */
	mw_lock();
	if (h < uop_cap)
		uop[h].used = 0;
	mw_unlock();
}

/* After DTYPE(d, ...): long double types get the bridge's ops. */
#define OP(o, a) do { TRY(mw_op_get((a), &(o))); mw_ld_op((a), d, &(o)); \
	cur_op = (a); } while (0)

/* ---- collectives -------------------------------------------------------------- */

/* The rules of `mpiwasm tune` under MPICH (coll_measure.c, mw_coll_rule):
 * before a tuned collective, its algorithm for the call's size (bytes as
 * tune measured them; -1 where no rule applies).  Costs one test when
 * the collective has no rule: the arguments are evaluated only after it. */
static void coll_rule(int coll_id, MPI_Comm c, long long bytes)
{
	int p, inter = 0;
	MPI_Comm_test_inter(c, &inter);
	MPI_Comm_size(c, &p);
	mw_coll_rule(coll_id, p, inter ? -1 : bytes);
}
#define RULE(id, c, bytes) \
	do { if (mw_coll_rules & 1 << (id)) coll_rule((id), (c), (bytes)); } while (0)

/* A reduction's bytes, or -1 for a user-defined op (tune measured
 * MPI_SUM; an op's own cost or order is not what the rule was verified on). */
static long long red_bytes(u32 opv, int count, const mw_dtype *d)
{
	u32 fn;
	return mw_uop_fn(opv, &fn) ? -1 : (long long)count * d->size;
}

/* The arguments of each are checked by coll_args.c, by the same rules as
 * its nonblocking form's (hand_nbc.c); snapshots live on this stack. */

u32 mwh_Barrier(rt_instance *inst, u32 comm)
{
	MPI_Comm c;
	int rc;
	COMM(c, comm);
	RULE(COLL_ID_BARRIER, c, 0);
	return mw_ret(inst, MPI_Barrier(c), comm, "MPI_Barrier");
fail:
	return mw_fail(inst, rc, comm, "MPI_Barrier");
}

u32 mwh_Bcast(rt_instance *inst, u32 buf, u32 count, u32 dt, u32 root, u32 comm)
{
	mw_coll a;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_bcast(&a, buf, count, dt, root));
	RULE(COLL_ID_BCAST, a.c, (long long)count * a.sd->size);
	return mw_ret(inst, MPI_Bcast(a.sp, (int)count, a.sd->h, a.root, a.c),
	              comm, "MPI_Bcast");
fail:
	return mw_coll_fail(&a, rc, comm, "MPI_Bcast");
}

/* Gather/Scatter: per-process block on one side, n blocks at the root. */
static u32 gather_scatter(rt_instance *inst, int scatter, u32 sb, u32 sc, u32 sdt,
                          u32 rb, u32 rcn, u32 rdt, u32 root, u32 comm)
{
	const char *proc = scatter ? "MPI_Scatter" : "MPI_Gather";
	mw_coll a;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_gather(&a, scatter, sb, sc, sdt, rb, rcn, rdt, root));
	rc = scatter ? MPI_Scatter(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.root, a.c)
	             : MPI_Gather(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.root, a.c);
	return mw_ret(inst, rc, comm, proc);
fail:
	return mw_coll_fail(&a, rc, comm, proc);
}

u32 mwh_Gather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rc_,
               u32 rdt, u32 root, u32 comm)
{ return gather_scatter(inst, 0, sb, sc, sdt, rb, rc_, rdt, root, comm); }
u32 mwh_Scatter(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rc_,
                u32 rdt, u32 root, u32 comm)
{ return gather_scatter(inst, 1, sb, sc, sdt, rb, rc_, rdt, root, comm); }

u32 mwh_Gatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcounts,
                u32 displs, u32 rdt, u32 root, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_gatherv(&a, sb, sc, sdt, rb, rcounts, displs, rdt, root));
	rc = MPI_Gatherv(a.sp, (int)sc, a.sd->h, a.rp, a.rcounts, a.rdispls, a.rd->h,
	                 a.root, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Gatherv");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Gatherv");
}

u32 mwh_Scatterv(rt_instance *inst, u32 sb, u32 scounts, u32 displs, u32 sdt,
                 u32 rb, u32 rcn, u32 rdt, u32 root, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_scatterv(&a, sb, scounts, displs, sdt, rb, rcn, rdt, root));
	rc = MPI_Scatterv(a.sp, a.scounts, a.sdispls, a.sd->h, a.rp, (int)rcn, a.rd->h,
	                  a.root, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Scatterv");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Scatterv");
}

/* Allgather and Alltoall: one block or n blocks sent, n received. */
static u32 all_blocks(rt_instance *inst, int alltoall, u32 sb, u32 sc, u32 sdt,
                      u32 rb, u32 rcn, u32 rdt, u32 comm)
{
	const char *proc = alltoall ? "MPI_Alltoall" : "MPI_Allgather";
	mw_coll a;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_allgather(&a, alltoall, sb, sc, sdt, rb, rcn, rdt));
	/* the p blocks together, one block as the receiver's (the sender's
	 * type signature matches it; MPI_IN_PLACE has no send type) */
	RULE(alltoall ? COLL_ID_ALLTOALL : COLL_ID_ALLGATHER, a.c,
	     (long long)a.n * rcn * a.rd->size);
	rc = alltoall ? MPI_Alltoall(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.c)
	              : MPI_Allgather(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.c);
	return mw_ret(inst, rc, comm, proc);
fail:
	return mw_coll_fail(&a, rc, comm, proc);
}

u32 mwh_Allgather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcn,
                  u32 rdt, u32 comm)
{ return all_blocks(inst, 0, sb, sc, sdt, rb, rcn, rdt, comm); }
u32 mwh_Alltoall(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcn,
                 u32 rdt, u32 comm)
{ return all_blocks(inst, 1, sb, sc, sdt, rb, rcn, rdt, comm); }

u32 mwh_Allgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                   u32 rcounts, u32 rdispls, u32 rdt, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_allgatherv(&a, sb, sc, sdt, rb, rcounts, rdispls, rdt));
	rc = MPI_Allgatherv(a.sp, (int)sc, a.sd->h, a.rp, a.rcounts, a.rdispls,
	                    a.rd->h, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Allgatherv");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Allgatherv");
}

u32 mwh_Alltoallv(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls, u32 sdt,
                  u32 rb, u32 rcounts, u32 rdispls, u32 rdt, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_alltoallv(&a, sb, scounts, sdispls, sdt, rb, rcounts, rdispls, rdt));
	rc = MPI_Alltoallv(a.sp, a.scounts, a.sdispls, a.sd->h, a.rp, a.rcounts,
	                   a.rdispls, a.rd->h, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Alltoallv");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Alltoallv");
}

u32 mwh_Alltoallw(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls, u32 stypes,
                  u32 rb, u32 rcounts, u32 rdispls, u32 rtypes, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_alltoallw(&a, sb, scounts, sdispls, stypes, rb, rcounts, rdispls,
	                      rtypes));
	rc = MPI_Alltoallw(a.sp, a.scounts, a.sdispls, a.stypes, a.rp, a.rcounts,
	                   a.rdispls, a.rtypes, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Alltoallw");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Alltoallw");
}

u32 mwh_Reduce(rt_instance *inst, u32 sb, u32 rb, u32 count, u32 dt, u32 opv,
               u32 root, u32 comm)
{
	mw_coll a;
	MPI_Op op;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_reduce(&a, sb, rb, count, dt, opv, root));
	mw_dtype *d = a.sd;
	OP(op, opv);
	RULE(COLL_ID_REDUCE, a.c, red_bytes(opv, (int)count, d));
	rc = MPI_Reduce(a.sp, a.rp, (int)count, d->h, op, a.root, a.c);
	return mw_ret(inst, rc, comm, "MPI_Reduce");
fail:
	return mw_coll_fail(&a, rc, comm, "MPI_Reduce");
}

#define ALLRED_LIKE(NAME, TUNED)                                                \
u32 mwh_##NAME(rt_instance *inst, u32 sb, u32 rb, u32 count, u32 dt, u32 opv,  \
               u32 comm)                                                      \
{                                                                             \
	mw_coll a;                                                            \
	MPI_Op op;                                                            \
	int rc;                                                               \
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));                          \
	TRY(mw_coll_allreduce(&a, sb, rb, count, dt, opv));                   \
	mw_dtype *d = a.sd;                                                   \
	OP(op, opv);                                                          \
	if (mw_coll_rules & (TUNED)) /* MPI_Allreduce only */                 \
		coll_rule(COLL_ID_ALLREDUCE, a.c, red_bytes(opv, (int)count, d)); \
	return mw_ret(inst, MPI_##NAME(a.sp, a.rp, (int)count, d->h, op, a.c), \
	              comm, "MPI_" #NAME);                                    \
fail:                                                                         \
	return mw_coll_fail(&a, rc, comm, "MPI_" #NAME);                      \
}
ALLRED_LIKE(Allreduce, 1 << COLL_ID_ALLREDUCE)
ALLRED_LIKE(Scan, 0)
ALLRED_LIKE(Exscan, 0)

u32 mwh_Reduce_local(rt_instance *inst, u32 ib, u32 iob, u32 count, u32 dt, u32 opv)
{
	mw_dtype *d;
	MPI_Op op;
	void *ip, *iop;
	int rc;
	DTYPE(d, dt);
	OP(op, opv);
	BUF(ip, ib, count, d);
	BUF(iop, iob, count, d);
	TRY(mw_disjoint(ip, (int32_t)count, iop, (int32_t)count, d));
	return mw_ret(inst, MPI_Reduce_local(ip, iop, (int)count, d->h, op),
	              MW_NOCOMM, "MPI_Reduce_local");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Reduce_local");
}

u32 mwh_Reduce_scatter_block(rt_instance *inst, u32 sb, u32 rb, u32 count,
                             u32 dt, u32 opv, u32 comm)
{
	mw_coll a;
	MPI_Op op;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_reduce_scatter_block(&a, sb, rb, count, dt, opv));
	mw_dtype *d = a.sd;
	OP(op, opv);
	return mw_ret(inst, MPI_Reduce_scatter_block(a.sp, a.rp, (int)count, d->h, op, a.c),
	              comm, "MPI_Reduce_scatter_block");
fail:
	return mw_coll_fail(&a, rc, comm, "MPI_Reduce_scatter_block");
}

u32 mwh_Reduce_scatter(rt_instance *inst, u32 sb, u32 rb, u32 rcounts, u32 dt,
                       u32 opv, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	MPI_Op op;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_reduce_scatter(&a, sb, rb, rcounts, dt, opv));
	mw_dtype *d = a.sd;
	OP(op, opv);
	if (mw_coll_rules & 1 << COLL_ID_REDUCE_SCATTER) {
		long long n = 0;
		for (int i = 0; i < a.n; i++)
			n += a.rcounts[i];
		RULE(COLL_ID_REDUCE_SCATTER, a.c, red_bytes(opv, 1, d) < 0 ? -1 : n * d->size);
	}
	rc = MPI_Reduce_scatter(a.sp, a.rp, a.rcounts, d->h, op, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Reduce_scatter");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Reduce_scatter");
}
