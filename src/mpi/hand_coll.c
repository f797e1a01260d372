/* hand_coll.c - blocking collective communication (MPI-3.1 chapter 5):
 * barrier, broadcast, gathers, scatters, all-to-all, reductions and scans,
 * and user-defined reduction operations (MPI_Op_create: the module's
 * function is called on a copy in module memory).  The collectives are
 * typed (family-coll.txt): their generated entries check the arguments by
 * coll_args.c's rules (root, MPI_IN_PLACE, intercommunicators, per-peer
 * counts), shared with the nonblocking forms (hand_nbc.c), and the
 * handlers get the host values the rules filled in (mw_coll). */
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

/* The host op of a blocking reduction on d: long double types get the
 * bridge's ops, and a user op is the one op_tramp applies. */
static MPI_Op red_op(const mw_op_ref *op, const mw_dtype *d)
{
	MPI_Op h = op->h;
	mw_ld_op(op->mod, d, &h);
	cur_op = op->mod;
	return h;
}

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

u32 mwh_Barrier(const mw_call *k, mw_coll *comm)
{
	RULE(COLL_ID_BARRIER, comm->c, 0);
	return mw_call_ret(k, MPI_Barrier(comm->c));
}

u32 mwh_Bcast(const mw_call *k, void *buffer, int count, mw_dtype *datatype, int root,
              mw_coll *comm)
{
	RULE(COLL_ID_BCAST, comm->c, (long long)count * datatype->size);
	return mw_call_ret(k, MPI_Bcast(buffer, count, datatype->h, root, comm->c));
}

u32 mwh_Gather(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
               void *recvbuf, int recvcount, mw_dtype *recvtype, int root, mw_coll *comm)
{
	return mw_call_ret(k, MPI_Gather(sendbuf, sendcount, sendtype->h, recvbuf, recvcount,
	                                 recvtype->h, root, comm->c));
}

u32 mwh_Scatter(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                void *recvbuf, int recvcount, mw_dtype *recvtype, int root, mw_coll *comm)
{
	return mw_call_ret(k, MPI_Scatter(sendbuf, sendcount, sendtype->h, recvbuf, recvcount,
	                                  recvtype->h, root, comm->c));
}

u32 mwh_Gatherv(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                void *recvbuf, int *recvcounts, int *displs, mw_dtype *recvtype, int root,
                mw_coll *comm)
{
	return mw_call_ret(k, MPI_Gatherv(sendbuf, sendcount, sendtype->h, recvbuf, recvcounts,
	                                  displs, recvtype->h, root, comm->c));
}

u32 mwh_Scatterv(const mw_call *k, const void *sendbuf, int *sendcounts, int *displs,
                 mw_dtype *sendtype, void *recvbuf, int recvcount, mw_dtype *recvtype,
                 int root, mw_coll *comm)
{
	return mw_call_ret(k, MPI_Scatterv(sendbuf, sendcounts, displs, sendtype->h, recvbuf,
	                                   recvcount, recvtype->h, root, comm->c));
}

/* Allgather and Alltoall: the rule's size is the p blocks together, one
 * block as the receiver's (the sender's type signature matches it;
 * MPI_IN_PLACE has no send type). */
u32 mwh_Allgather(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                  void *recvbuf, int recvcount, mw_dtype *recvtype, mw_coll *comm)
{
	RULE(COLL_ID_ALLGATHER, comm->c, (long long)comm->n * (u32)recvcount * recvtype->size);
	return mw_call_ret(k, MPI_Allgather(sendbuf, sendcount, sendtype->h, recvbuf, recvcount,
	                                    recvtype->h, comm->c));
}

u32 mwh_Alltoall(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                 void *recvbuf, int recvcount, mw_dtype *recvtype, mw_coll *comm)
{
	RULE(COLL_ID_ALLTOALL, comm->c, (long long)comm->n * (u32)recvcount * recvtype->size);
	return mw_call_ret(k, MPI_Alltoall(sendbuf, sendcount, sendtype->h, recvbuf, recvcount,
	                                   recvtype->h, comm->c));
}

u32 mwh_Allgatherv(const mw_call *k, const void *sendbuf, int sendcount, mw_dtype *sendtype,
                   void *recvbuf, int *recvcounts, int *displs, mw_dtype *recvtype,
                   mw_coll *comm)
{
	return mw_call_ret(k, MPI_Allgatherv(sendbuf, sendcount, sendtype->h, recvbuf, recvcounts,
	                                     displs, recvtype->h, comm->c));
}

u32 mwh_Alltoallv(const mw_call *k, const void *sendbuf, int *sendcounts, int *sdispls,
                  mw_dtype *sendtype, void *recvbuf, int *recvcounts, int *rdispls,
                  mw_dtype *recvtype, mw_coll *comm)
{
	return mw_call_ret(k, MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype->h, recvbuf,
	                                    recvcounts, rdispls, recvtype->h, comm->c));
}

u32 mwh_Alltoallw(const mw_call *k, const void *sendbuf, int *sendcounts, int *sdispls,
                  MPI_Datatype *sendtypes, void *recvbuf, int *recvcounts, int *rdispls,
                  MPI_Datatype *recvtypes, mw_coll *comm)
{
	return mw_call_ret(k, MPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
	                                    recvcounts, rdispls, recvtypes, comm->c));
}

u32 mwh_Reduce(const mw_call *k, const void *sendbuf, void *recvbuf, int count,
               mw_dtype *datatype, const mw_op_ref *op, int root, mw_coll *comm)
{
	MPI_Op h = red_op(op, datatype);
	RULE(COLL_ID_REDUCE, comm->c, red_bytes(op->mod, count, datatype));
	return mw_call_ret(k, MPI_Reduce(sendbuf, recvbuf, count, datatype->h, h, root, comm->c));
}

u32 mwh_Allreduce(const mw_call *k, const void *sendbuf, void *recvbuf, int count,
                  mw_dtype *datatype, const mw_op_ref *op, mw_coll *comm)
{
	MPI_Op h = red_op(op, datatype);
	RULE(COLL_ID_ALLREDUCE, comm->c, red_bytes(op->mod, count, datatype));
	return mw_call_ret(k, MPI_Allreduce(sendbuf, recvbuf, count, datatype->h, h, comm->c));
}

u32 mwh_Scan(const mw_call *k, const void *sendbuf, void *recvbuf, int count,
             mw_dtype *datatype, const mw_op_ref *op, mw_coll *comm)
{
	MPI_Op h = red_op(op, datatype);
	return mw_call_ret(k, MPI_Scan(sendbuf, recvbuf, count, datatype->h, h, comm->c));
}

u32 mwh_Exscan(const mw_call *k, const void *sendbuf, void *recvbuf, int count,
               mw_dtype *datatype, const mw_op_ref *op, mw_coll *comm)
{
	MPI_Op h = red_op(op, datatype);
	return mw_call_ret(k, MPI_Exscan(sendbuf, recvbuf, count, datatype->h, h, comm->c));
}

u32 mwh_Reduce_local(const mw_call *k, const void *inbuf, void *inoutbuf, int count,
                     mw_dtype *datatype, const mw_op_ref *op)
{
	int rc = mw_disjoint(inbuf, count, inoutbuf, count, datatype);
	if (rc)
		return mw_call_fail(k, rc);
	MPI_Op h = red_op(op, datatype);
	return mw_call_ret(k, MPI_Reduce_local(inbuf, inoutbuf, count, datatype->h, h));
}

u32 mwh_Reduce_scatter_block(const mw_call *k, const void *sendbuf, void *recvbuf,
                             int recvcount, mw_dtype *datatype, const mw_op_ref *op,
                             mw_coll *comm)
{
	MPI_Op h = red_op(op, datatype);
	return mw_call_ret(k, MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype->h,
	                                               h, comm->c));
}

u32 mwh_Reduce_scatter(const mw_call *k, const void *sendbuf, void *recvbuf, int *recvcounts,
                       mw_dtype *datatype, const mw_op_ref *op, mw_coll *comm)
{
	MPI_Op h = red_op(op, datatype);
	if (mw_coll_rules & 1 << COLL_ID_REDUCE_SCATTER) {
		long long n = 0;
		for (int i = 0; i < comm->n; i++)
			n += recvcounts[i];
		RULE(COLL_ID_REDUCE_SCATTER, comm->c,
		     red_bytes(op->mod, 1, datatype) < 0 ? -1 : n * datatype->size);
	}
	return mw_call_ret(k, MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype->h, h,
	                                         comm->c));
}
