/* hand_type.c - derived datatypes (MPI-3.1 chapter 4): constructors,
 * extents, addresses, decoding (MPI_Type_get_envelope/contents), packing
 * and external32 packing.  Every procedure here is typed
 * (src/mpi/gen/family-type.txt): its entry in glue.c checks and converts
 * the arguments (datatypes, buffers, MPI_Aint arrays widened from the
 * module's 32-bit words, int and datatype arrays snapshotted, the packing
 * position read once and range-checked) and the handler gets host values;
 * what is left here is each procedure's semantics. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;

/* ---- argument arrays (the generated entries' aints and dtypes) -------------- */

int mw_aints_in(rt_instance *inst, mw_aints *a, uint32_t addr, int32_t n)
{
	a->v = a->small;
	if (n < 0)
		n = 0;
	const int32_t *m = mw_arr(inst, addr, (uint64_t)n, 4);
	if (!m && n > 0)
		return MW_ERR_ARG;
	if (n > MW_SNAP_SMALL && !(a->v = malloc((size_t)n * sizeof *a->v))) {
		a->v = a->small;
		return MW_ERR_NO_MEM;
	}
	for (int32_t i = 0; i < n; i++)
		a->v[i] = ((const volatile int32_t *)m)[i];
	return 0;
}

void mw_aints_free(mw_aints *a)
{
	if (a->v && a->v != a->small)
		free(a->v);
	a->v = NULL;
}

int mw_dtypes_in(rt_instance *inst, mw_dtypes *t, uint32_t addr, int32_t n)
{
	t->n = n < 0 ? 0 : n;
	t->h = t->small;
	int rc = mw_snap_in(inst, &t->s, addr, t->n);
	if (rc)
		return rc;
	if (t->n > MW_SNAP_SMALL && !(t->h = malloc((size_t)t->n * sizeof *t->h))) {
		t->h = t->small;
		return MW_ERR_NO_MEM;
	}
	return 0;
}

int mw_dtypes_get(mw_dtypes *t)
{
	int rc;
	for (int i = 0; i < t->n; i++)
		if ((rc = mw_dtype_hget((uint32_t)t->s.v[i], &t->h[i])))
			return rc;
	return 0;
}

void mw_dtypes_free(mw_dtypes *t)
{
	mw_snap_free(&t->s);
	if (t->h && t->h != t->small)
		free(t->h);
	t->h = NULL;
}

/* ---- datatypes -------------------------------------------------------------------- */

/* A constructor's result: the new type's module handle in *o. */
static u32 type_out(const mw_call *k, int rc, MPI_Datatype nt, uint32_t *o)
{
	if (rc == MPI_SUCCESS)
		*o = mw_dtype_put(nt);
	return mw_call_ret(k, rc);
}

u32 mwh_Type_create_hvector(const mw_call *k, int count, int bl, MPI_Aint stride,
                            mw_dtype *old, uint32_t *o)
{
	MPI_Datatype nt;
	int rc = MPI_Type_create_hvector(count, bl, stride, old->h, &nt);
	return type_out(k, rc, nt, o);
}

u32 mwh_Type_create_hindexed(const mw_call *k, int count, int *bls,
                             const MPI_Aint *displs, mw_dtype *old, uint32_t *o)
{
	MPI_Datatype nt;
	int rc = MPI_Type_create_hindexed(count, bls, displs, old->h, &nt);
	return type_out(k, rc, nt, o);
}

u32 mwh_Type_create_hindexed_block(const mw_call *k, int count, int bl,
                                   const MPI_Aint *displs, mw_dtype *old, uint32_t *o)
{
	MPI_Datatype nt;
	int rc = MPI_Type_create_hindexed_block(count, bl, displs, old->h, &nt);
	return type_out(k, rc, nt, o);
}

u32 mwh_Type_create_struct(const mw_call *k, int count, int *bls,
                           const MPI_Aint *displs, const MPI_Datatype *types, uint32_t *o)
{
	MPI_Datatype nt;
	int rc = MPI_Type_create_struct(count, bls, displs, types, &nt);
	return type_out(k, rc, nt, o);
}

u32 mwh_Type_create_resized(const mw_call *k, mw_dtype *old, MPI_Aint lb, MPI_Aint ext,
                            uint32_t *o)
{
	MPI_Datatype nt;
	int rc = MPI_Type_create_resized(old->h, lb, ext, &nt);
	return type_out(k, rc, nt, o);
}

/* The module's MPI_ORDER_C, else Fortran order (as the host gets it). */
static int order_in(int order)
{
	return order == MW_ORDER_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
}

u32 mwh_Type_create_subarray(const mw_call *k, int n, int *sizes,
                             int *subsizes, int *starts, int order,
                             mw_dtype *old, uint32_t *o)
{
	MPI_Datatype nt;
	int rc = MPI_Type_create_subarray(n, sizes, subsizes, starts, order_in(order),
	                                  old->h, &nt);
	return type_out(k, rc, nt, o);
}

u32 mwh_Type_create_darray(const mw_call *k, int size, int rank, int n, int *gs,
                           int *di, int *da, int *ps, int order,
                           mw_dtype *old, uint32_t *o)
{
	MPI_Datatype nt;
	int hdi[64], hda[64];
	if (n > 64)
		return mw_call_fail(k, MW_ERR_DIMS);
	/* The process grid: positive sizes whose product is size, rank in
	 * it (MPICH 4.0 divides by a zero psize: SIGFPE, found by
	 * fuzz-bridge). */
	int64_t procs = 1;
	for (int i = 0; i < n; i++) {
		if (gs[i] <= 0 || ps[i] <= 0)
			return mw_fail_arg(k->inst, MW_ERR_ARG, k->obj, k->proc, "argument %s[%d] = %d "
			                   "is not positive", gs[i] <= 0 ? "array_of_gsizes" :
			                   "array_of_psizes", i, gs[i] <= 0 ? gs[i] : ps[i]);
		procs = procs * ps[i] > INT_MAX ? (int64_t)INT_MAX + 1 : procs * ps[i];
	}
	if (procs != size || rank < 0 || rank >= size)
		return mw_fail_arg(k->inst, MW_ERR_ARG, k->obj, k->proc, "arguments size = %d, "
		                   "rank = %d: not a rank of the %lld processes of "
		                   "array_of_psizes", size, rank, (long long)procs);
	for (int i = 0; i < n; i++) {
		hdi[i] = di[i] == MW_DISTRIBUTE_BLOCK ? MPI_DISTRIBUTE_BLOCK
		       : di[i] == MW_DISTRIBUTE_CYCLIC ? MPI_DISTRIBUTE_CYCLIC
		       : MPI_DISTRIBUTE_NONE;
		hda[i] = da[i] == MW_DISTRIBUTE_DFLT_DARG ? MPI_DISTRIBUTE_DFLT_DARG : da[i];
	}
	int rc = MPI_Type_create_darray(size, rank, n, gs, hdi, hda, ps, order_in(order),
	                                old->h, &nt);
	return type_out(k, rc, nt, o);
}

u32 mwh_Type_commit(const mw_call *k, mw_dtype_io *t)
{
	int rc = MPI_Type_commit(&t->h);
	if (rc == MPI_SUCCESS)
		mw_dtype_refresh(t->mod);
	return mw_call_ret(k, rc);
}

u32 mwh_Type_free(const mw_call *k, mw_dtype_io *t)
{
	if (t->mod < 128)   /* a predefined type */
		return mw_call_fail(k, MW_ERR_TYPE);
	int rc = MPI_Type_free(&t->h);
	if (rc == MPI_SUCCESS) {
		mw_dtype_del(t->mod);
		*t->slot = (uint32_t)MW_DATATYPE_NULL;
	}
	return mw_call_ret(k, rc);
}

/* Layouts are the module's: predefined types map to same-size host types. */
u32 mwh_Type_get_extent(const mw_call *k, mw_dtype *d, int32_t *lb, int32_t *ext)
{
	*lb = (int32_t)d->lb;
	*ext = (int32_t)d->extent;
	return 0;
}

u32 mwh_Type_get_true_extent(const mw_call *k, mw_dtype *d, int32_t *lb, int32_t *ext)
{
	*lb = (int32_t)d->tlb;
	*ext = (int32_t)d->textent;
	return 0;
}

u32 mwh_Get_address(const mw_call *k, uint32_t loc, int32_t *addr)
{
	*addr = (int32_t)loc;   /* addresses are module addresses (MPI_BOTTOM = 0) */
	return 0;
}

u32 mwh_Aint_add(const mw_call *k, MPI_Aint base, MPI_Aint disp)
{
	return (uint32_t)(base + disp);
}

u32 mwh_Aint_diff(const mw_call *k, MPI_Aint a, MPI_Aint b)
{
	return (uint32_t)(a - b);
}

/* ---- packing --------------------------------------------------------------------- */

u32 mwh_Pack(const mw_call *k, const void *in, int count, mw_dtype *d, void *out,
             int outsize, mw_pos *pos, MPI_Comm c)
{
	uint32_t r;
	if (mw_pos_room(k, pos, outsize, (int64_t)count * d->size, &r) ||
	    mw_pack_disjoint(k, in, count, d, out, pos->v, (int64_t)count * d->size,
	                     "outbuf", &r))
		return r;
	int p = pos->v;
	int rc = MPI_Pack(in, count, d->h, out, outsize, &p, c);
	if (rc == MPI_SUCCESS)
		*pos->slot = p;
	return mw_call_ret(k, rc);
}

u32 mwh_Unpack(const mw_call *k, void *in, int insize, mw_pos *pos, void *out,
               int count, mw_dtype *d, MPI_Comm c)
{
	uint32_t r;
	/* count elements' packed bytes must follow position: MPICH 4.0 asserts
	 * (ends the process) unpacking a partial element. */
	if (mw_pos_room(k, pos, insize, (int64_t)count * d->size, &r) ||
	    mw_pack_disjoint(k, out, count, d, in, pos->v, (int64_t)count * d->size,
	                     "outbuf", &r))
		return r;
	int p = pos->v;
	int rc = MPI_Unpack(in, insize, &p, out, count, d->h, c);
	if (rc == MPI_SUCCESS)
		*pos->slot = p;
	return mw_call_ret(k, rc);
}

u32 mwh_Pack_size(const mw_call *k, int count, mw_dtype *d, MPI_Comm c, int32_t *size)
{
	return mw_call_ret(k, MPI_Pack_size(count, d->h, c, size));
}

/* ---- datatype decoding ----------------------------------------------------------- */

static int combiner_out(int h)
{
	return mw_enum_out(MW_E_COMBINER, h);
}

u32 mwh_Type_get_envelope(const mw_call *k, const mw_dtype_ref *t, int32_t *pi,
                          int32_t *pa, int32_t *pd, int32_t *pc)
{
	int i, a, n, c;
	/* Predefined module types are named whatever the host uses for them. */
	if (mw_dtype_predefined(t->mod)) {
		*pi = *pa = *pd = 0;
		*pc = MW_COMBINER_NAMED;
		return 0;
	}
	int rc = MPI_Type_get_envelope(t->d->h, &i, &a, &n, &c);
	if (rc == MPI_SUCCESS) {
		*pi = i;
		*pa = a;
		*pd = n;
		*pc = combiner_out(c);
	}
	return mw_call_ret(k, rc);
}

static int32_t order_out(int o)
{
	return mw_enum_out(MW_E_ORDER, o);
}

static int32_t distrib_out(int o)
{
	return mw_enum_out(MW_E_DISTRIB, o);
}

u32 mwh_Type_get_contents(const mw_call *k, const mw_dtype_ref *t, int mi, int ma,
                          int md, int32_t *pi, int32_t *pa, int32_t *pt)
{
	MPI_Datatype d = t->d->h, *ht = NULL;
	MPI_Aint *ha = NULL;
	int rc, ni, na, nd, comb;
	if (mi < 0 || ma < 0 || md < 0)
		return mw_call_fail(k, MW_ERR_ARG);
	if (mw_dtype_predefined(t->mod))
		return mw_call_fail(k, MW_ERR_TYPE);   /* MPI: erroneous for named types */
	if ((rc = MPI_Type_get_envelope(d, &ni, &na, &nd, &comb)))
		return mw_call_ret(k, rc);
	if (ni > mi || na > ma || nd > md)
		return mw_call_fail(k, MW_ERR_ARG);
	int *hi = malloc(((size_t)ni + 1) * sizeof *hi);
	ha = malloc(((size_t)na + 1) * sizeof *ha);
	ht = malloc(((size_t)nd + 1) * sizeof *ht);
	if (!hi || !ha || !ht) {
		free(hi);
		free(ha);
		free(ht);
		return mw_call_fail(k, MW_ERR_NO_MEM);
	}
	rc = MPI_Type_get_contents(d, ni, na, nd, hi, ha, ht);
	if (rc == MPI_SUCCESS) {
		for (int j = 0; j < ni; j++)
			pi[j] = hi[j];
		int n = ni > 0 ? hi[0] : 0;   /* ndims of subarray/darray */
		if (comb == MPI_COMBINER_SUBARRAY && ni == 3 * n + 2)
			pi[3 * n + 1] = order_out(hi[3 * n + 1]);
		if (comb == MPI_COMBINER_DARRAY && ni >= 4) {
			n = hi[2];
			if (ni == 4 * n + 4) {
				for (int j = 0; j < n; j++) {
					pi[3 + n + j] = distrib_out(hi[3 + n + j]);
					if (hi[3 + 2 * n + j] == MPI_DISTRIBUTE_DFLT_DARG)
						pi[3 + 2 * n + j] = MW_DISTRIBUTE_DFLT_DARG;
				}
				pi[4 * n + 3] = order_out(hi[4 * n + 3]);
			}
		}
		for (int j = 0; j < na; j++)
			pa[j] = (int32_t)ha[j];
		/* Derived types come back as new handles the module frees;
		 * predefined ones as their fixed numbers. */
		for (int j = 0; j < nd; j++)
			pt[j] = (int32_t)mw_dtype_put(ht[j]);
	}
	free(hi);
	free(ha);
	free(ht);
	return mw_call_ret(k, rc);
}

/* ---- external32 --------------------------------------------------------------- */

u32 mwh_Pack_external_size(const mw_call *k, const char *rep, int count, mw_dtype *d,
                           int32_t *size)
{
	MPI_Aint sz = 0;
	int rc = MPI_Pack_external_size(rep, count, d->h, &sz);
	if (rc == MPI_SUCCESS) {
		if (sz > INT32_MAX)
			return mw_call_fail(k, MW_ERR_SIZE);
		*size = (int32_t)sz;
	}
	return mw_call_ret(k, rc);
}

u32 mwh_Pack_external(const mw_call *k, const char *rep, const void *in, int count,
                      mw_dtype *d, void *out, MPI_Aint outsize, mw_pos *pos)
{
	MPI_Aint need = 0;
	uint32_t r;
	int rc = MPI_Pack_external_size(rep, count, d->h, &need);
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	if (mw_pos_room(k, pos, (int32_t)outsize, need, &r) ||
	    mw_pack_disjoint(k, in, count, d, out, pos->v, need, "outbuf", &r))
		return r;
	MPI_Aint hp = pos->v;
	rc = MPI_Pack_external(rep, in, count, d->h, out, outsize, &hp);
	if (rc == MPI_SUCCESS)
		*pos->slot = (int32_t)hp;
	return mw_call_ret(k, rc);
}

u32 mwh_Unpack_external(const mw_call *k, const char *rep, void *in, MPI_Aint insize,
                        mw_pos *pos, void *out, int count, mw_dtype *d)
{
	/* What count elements take in external32, after position: MPICH 4.0
	 * reads them whatever insize says (fuzz-bridge: a host read past
	 * linear memory). */
	MPI_Aint need = 0;
	uint32_t r;
	int rc = MPI_Pack_external_size(rep, count, d->h, &need);
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	if (mw_pos_room(k, pos, (int32_t)insize, need, &r) ||
	    mw_pack_disjoint(k, out, count, d, in, pos->v, need, "outbuf", &r))
		return r;
	MPI_Aint hp = pos->v;
	rc = MPI_Unpack_external(rep, in, insize, &hp, out, count, d->h);
	if (rc == MPI_SUCCESS)
		*pos->slot = (int32_t)hp;
	return mw_call_ret(k, rc);
}
