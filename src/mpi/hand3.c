/* hand3.c - hand-written host functions for attribute caching (keyvals with
 * module copy/delete callbacks, predefined attributes), Comm_idup,
 * Comm_call_errhandler, datatype decoding (envelope/contents), external32
 * packing, the topology constructors the generator cannot express, and
 * user-defined error classes and codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;

#define MW_UNWEIGHTED_ADDR 2u      /* mpi.h: ((int *)2) */
#define MW_WEIGHTS_EMPTY_ADDR 3u   /* mpi.h: ((int *)3) */

#define TRY(x) do { if ((rc = (x))) goto fail; } while (0)
#define OUT(p, a, n) do { if (!((p) = mw_ptr(inst, (a), (n)))) { rc = MW_ERR_ARG; goto fail; } } while (0)

/* ---- keyvals --------------------------------------------------------------
 * A user keyval remembers the module's callbacks (function-table indices,
 * 0 = the NULL function, 0xFFFFFFFF = the DUP function) and extra state.
 * The host gets our trampolines and a pointer to this record as its extra
 * state; attribute values are module words stored as host pointers. */

enum { KV_COMM, KV_TYPE };

/* uses: attributes set with the keyval.  A freed keyval keeps its module
 * number while any remain (MPI: it stays valid for them), so the number
 * is not given to a new keyval that a later MPI_Attr_delete would reach. */
typedef struct kv_rec {
	u32 copy, del, extra, mkey;
	int kind, uses, freed;
} kv_rec;

static void kv_release(kv_rec *kv);

/* An attribute with kv is gone (deleted, replaced, or its object freed). */
static void kv_unuse(kv_rec *kv)
{
	if (--kv->uses <= 0 && kv->freed)
		kv_release(kv);
}

#define KV_DUP 0xFFFFFFFFu

static __thread uint32_t kv_scratch;   /* 8 module bytes: attribute_val_out, flag */

static int kv_scratch_get(rt_instance *inst)
{
	if (!kv_scratch)
		kv_scratch = mw_malloc(inst, 8, "attribute copy callback");
	return kv_scratch != 0;
}

/* Runs a module attribute callback; a trap is kept for mw_after and
 * reported to the host as a failed callback. */
static int kv_call(rt_instance *inst, u32 fn, const char *sig, rt_value *a,
                   int n, int32_t *res)
{
	(void)n;
	const rt_func *f = rt_table_func(inst, 0, fn, sig);
	if (!f) {
		fprintf(stderr, "mpiwasm: rank %d: attribute callback: table entry %u "
		        "is not a function of the MPI callback type\n", mw_world_rank, fn);
		mw_pending_trap = RT_TRAP_INDIRECT_TYPE;
		return MPI_ERR_OTHER;
	}
	rt_value r = { .i32 = 0 };
	int k = rt_call(inst, f, a, &r);
	if (k) {
		mw_pending_trap = k;
		return MPI_ERR_OTHER;
	}
	*res = (int32_t)r.i32;
	return MPI_SUCCESS;
}

static int kv_copy(u32 obj, kv_rec *kv, void *in, void *out, int *flag)
{
	rt_instance *inst = mw_inst;
	u32 vin = (u32)(uintptr_t)in;
	*flag = 0;
	if (kv->copy == 0 || mw_pending_trap)
		return MPI_SUCCESS;
	if (kv->copy == KV_DUP) {
		*(void **)out = in;
		*flag = 1;
		kv->uses++;
		return MPI_SUCCESS;
	}
	if (!kv_scratch_get(inst))
		return MPI_ERR_NO_MEM;
	int32_t *s = mw_ptr(inst, kv_scratch, 8);
	s[0] = 0;
	s[1] = 0;
	rt_value a[6] = { { .i32 = obj }, { .i32 = kv->mkey }, { .i32 = kv->extra },
	                  { .i32 = vin }, { .i32 = kv_scratch }, { .i32 = kv_scratch + 4 } };
	int32_t r = 0;
	int rc = kv_call(inst, kv->copy, "iiiiii:i", a, 6, &r);
	if (rc)
		return rc;
	if (r != MW_SUCCESS)
		return MPI_ERR_OTHER;
	s = mw_ptr(inst, kv_scratch, 8);
	*(void **)out = (void *)(uintptr_t)(u32)s[0];
	*flag = s[1] != 0;
	kv->uses += *flag;
	return MPI_SUCCESS;
}

/* A failed delete callback leaves the attribute set (the host returns
 * the error), so only a success drops a use. */
static int kv_delete(u32 obj, kv_rec *kv, void *val)
{
	int32_t r = MW_SUCCESS;
	if (kv->del != 0 && !mw_pending_trap) {
		rt_value a[4] = { { .i32 = obj }, { .i32 = kv->mkey },
		                  { .i32 = (u32)(uintptr_t)val }, { .i32 = kv->extra } };
		int rc = kv_call(mw_inst, kv->del, "iiii:i", a, 4, &r);
		if (rc)
			return rc;
	}
	if (r != MW_SUCCESS)
		return MPI_ERR_OTHER;
	kv_unuse(kv);
	return MPI_SUCCESS;
}

static int comm_copy_tramp(MPI_Comm c, int key, void *extra, void *in, void *out,
                           int *flag)
{
	(void)key;
	return kv_copy(mw_comm_find(c), extra, in, out, flag);
}

static int comm_del_tramp(MPI_Comm c, int key, void *val, void *extra)
{
	(void)key;
	return kv_delete(mw_comm_find(c), extra, val);
}

static int type_copy_tramp(MPI_Datatype t, int key, void *extra, void *in,
                           void *out, int *flag)
{
	(void)key;
	return kv_copy(mw_dtype_find(t), extra, in, out, flag);
}

static int type_del_tramp(MPI_Datatype t, int key, void *val, void *extra)
{
	(void)key;
	return kv_delete(mw_dtype_find(t), extra, val);
}

/* Records by module keyval handle (freed with the keyval: the host may
 * still call delete callbacks of a freed keyval, so records are kept
 * until the end of the process). */
static kv_rec **kv_tab;
static uint32_t kv_cap;

/* kv_tab and kv_cap change under mw_lock. */
static kv_rec *kv_of(u32 key, int kind)
{
	mw_lock();
	kv_rec *kv = key < kv_cap && kv_tab[key] && kv_tab[key]->kind == kind ? kv_tab[key]
	                                                                     : NULL;
	mw_unlock();
	return kv;
}

/* The module number of a freed keyval whose last attribute is gone. */
static void kv_release(kv_rec *kv)
{
	mw_lock();
	if (kv->mkey < kv_cap && kv_tab[kv->mkey] == kv) {
		kv_tab[kv->mkey] = NULL;
		mw_keyval_del(kv->mkey);
	}
	mw_unlock();
}

static u32 keyval_create(rt_instance *inst, int kind, u32 copy, u32 del,
                         u32 keyp, u32 extra, const char *proc)
{
	uint32_t *o = mw_ptr(inst, keyp, 4);
	const char *csig = "iiiiii:i", *dsig = "iiii:i";
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, proc);
	if ((copy != 0 && copy != KV_DUP && !rt_table_func(inst, 0, copy, csig)) ||
	    (del != 0 && !rt_table_func(inst, 0, del, dsig)))
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, proc);
	kv_rec *kv = calloc(1, sizeof *kv);
	if (!kv)
		return mw_fail(inst, MW_ERR_NO_MEM, MW_NOCOMM, proc);
	kv->copy = copy;
	kv->del = del;
	kv->extra = extra;
	kv->kind = kind;
	int key, rc;
	if (kind == KV_COMM)
		rc = MPI_Comm_create_keyval(comm_copy_tramp, comm_del_tramp, &key, kv);
	else
		rc = MPI_Type_create_keyval(type_copy_tramp, type_del_tramp, &key, kv);
	if (rc != MPI_SUCCESS) {
		free(kv);
		return mw_ret(inst, rc, MW_NOCOMM, proc);
	}
	u32 h = mw_keyval_new(key);
	mw_lock();
	if (h >= kv_cap) {
		uint32_t cap = kv_cap ? kv_cap * 2 : 64;
		while (cap <= h)
			cap *= 2;
		kv_rec **v = realloc(kv_tab, cap * sizeof *v);
		if (!v) {
			mw_unlock();
			return mw_fail(inst, MW_ERR_NO_MEM, MW_NOCOMM, proc);
		}
		memset(v + kv_cap, 0, (cap - kv_cap) * sizeof *v);
		kv_tab = v;
		kv_cap = cap;
	}
	kv->mkey = h;
	kv_tab[h] = kv;
	mw_unlock();
	*o = h;
	return 0;
}

static u32 keyval_free(rt_instance *inst, int kind, u32 keyp, const char *proc)
{
	uint32_t *o = mw_ptr(inst, keyp, 4);
	int key, rc;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, proc);
	kv_rec *kv = kv_of(*o, kind);
	if (!kv || mw_keyval_get(*o, &key))
		return mw_fail(inst, MW_ERR_KEYVAL, MW_NOCOMM, proc);
	if (kv->freed)
		return mw_fail(inst, MW_ERR_KEYVAL, MW_NOCOMM, proc);
	rc = kind == KV_COMM ? MPI_Comm_free_keyval(&key) : MPI_Type_free_keyval(&key);
	if (rc == MPI_SUCCESS) {
		/* The record stays: attributes still set call its delete fn. */
		kv->freed = 1;
		if (kv->uses <= 0)
			kv_release(kv);
		*o = MW_KEYVAL_INVALID;
	}
	return mw_ret(inst, rc, MW_NOCOMM, proc);
}

u32 mwh_Comm_create_keyval(rt_instance *inst, u32 c, u32 d, u32 k, u32 e)
{ return keyval_create(inst, KV_COMM, c, d, k, e, "MPI_Comm_create_keyval"); }
u32 mwh_Keyval_create(rt_instance *inst, u32 c, u32 d, u32 k, u32 e)
{ return keyval_create(inst, KV_COMM, c, d, k, e, "MPI_Keyval_create"); }
u32 mwh_Type_create_keyval(rt_instance *inst, u32 c, u32 d, u32 k, u32 e)
{ return keyval_create(inst, KV_TYPE, c, d, k, e, "MPI_Type_create_keyval"); }
u32 mwh_Comm_free_keyval(rt_instance *inst, u32 k)
{ return keyval_free(inst, KV_COMM, k, "MPI_Comm_free_keyval"); }
u32 mwh_Keyval_free(rt_instance *inst, u32 k)
{ return keyval_free(inst, KV_COMM, k, "MPI_Keyval_free"); }
u32 mwh_Type_free_keyval(rt_instance *inst, u32 k)
{ return keyval_free(inst, KV_TYPE, k, "MPI_Type_free_keyval"); }

/* Predefined communicator attributes: the module gets a pointer into its
 * own memory, to a word holding the module-side value. */
static uint32_t predef_block;

/* User error codes (see "user error classes and codes" below). */
static struct { int host; int32_t cls; } *ucode;
static uint32_t n_ucode, ucode_cap;

static int predef_value(int mkey, int hval, int32_t *out)
{
	switch (mkey) {
	case MW_HOST:
	case MW_IO:
		*out = (int32_t)mw_rank_out(hval);
		return 1;
	case MW_LASTUSEDCODE:   /* the module's numbering, not the host's */
		*out = MW_ERR_LASTCODE + (int32_t)n_ucode;
		return 1;
	case MW_TAG_UB: case MW_WTIME_IS_GLOBAL: case MW_APPNUM: case MW_UNIVERSE_SIZE:
		*out = hval;
		return 1;
	default:
		return 0;
	}
}

static u32 comm_get_attr(rt_instance *inst, u32 comm, u32 key, u32 valp, u32 flagp,
                         const char *proc)
{
	MPI_Comm c;
	int hkey, rc, flag = 0;
	uint32_t *v;
	int32_t *f;
	void *val = NULL;
	TRY(mw_comm_get(comm, &c));
	TRY(mw_keyval_get(key, &hkey));
	OUT(v, valp, 4);
	OUT(f, flagp, 4);
	rc = MPI_Comm_get_attr(c, hkey, &val, &flag);
	if (rc != MPI_SUCCESS)
		return mw_ret(inst, rc, comm, proc);
	*f = flag;
	if (!flag)
		return 0;
	if (kv_of(key, KV_COMM) || key >= 13) {
		*v = (u32)(uintptr_t)val;
		return 0;
	}
	int32_t mval;
	if (!predef_value((int)key, *(int *)val, &mval))
		TRY(MW_ERR_KEYVAL);
	if (!predef_block) {
		predef_block = mw_malloc(inst, 16 * 4, proc);
		mw_after(inst, 0);
		if (!predef_block)
			TRY(MW_ERR_NO_MEM);
		v = mw_ptr(inst, valp, 4);
	}
	int32_t *slot = mw_ptr(inst, predef_block + 4 * key, 4);
	*slot = mval;
	*v = predef_block + 4 * key;
	return 0;
fail:
	return mw_fail(inst, rc, comm, proc);
}

u32 mwh_Comm_get_attr(rt_instance *inst, u32 c, u32 k, u32 v, u32 f)
{ return comm_get_attr(inst, c, k, v, f, "MPI_Comm_get_attr"); }
u32 mwh_Attr_get(rt_instance *inst, u32 c, u32 k, u32 v, u32 f)
{ return comm_get_attr(inst, c, k, v, f, "MPI_Attr_get"); }

static u32 comm_set_attr(rt_instance *inst, u32 comm, u32 key, u32 val, const char *proc)
{
	MPI_Comm c;
	int hkey, rc;
	TRY(mw_comm_get(comm, &c));
	if (!kv_of(key, KV_COMM) || mw_keyval_get(key, &hkey))
		TRY(MW_ERR_KEYVAL);
	/* Counted first: a value replaced is counted off by kv_delete. */
	kv_rec *kv = kv_of(key, KV_COMM);
	kv->uses++;
	rc = MPI_Comm_set_attr(c, hkey, (void *)(uintptr_t)val);
	if (rc != MPI_SUCCESS)
		kv_unuse(kv);
	return mw_ret(inst, rc, comm, proc);
fail:
	return mw_fail(inst, rc, comm, proc);
}

u32 mwh_Comm_set_attr(rt_instance *inst, u32 c, u32 k, u32 v)
{ return comm_set_attr(inst, c, k, v, "MPI_Comm_set_attr"); }
u32 mwh_Attr_put(rt_instance *inst, u32 c, u32 k, u32 v)
{ return comm_set_attr(inst, c, k, v, "MPI_Attr_put"); }

static u32 comm_delete_attr(rt_instance *inst, u32 comm, u32 key, const char *proc)
{
	MPI_Comm c;
	int hkey, rc;
	TRY(mw_comm_get(comm, &c));
	if (!kv_of(key, KV_COMM) || mw_keyval_get(key, &hkey))
		TRY(MW_ERR_KEYVAL);
	return mw_ret(inst, MPI_Comm_delete_attr(c, hkey), comm, proc);
fail:
	return mw_fail(inst, rc, comm, proc);
}

u32 mwh_Comm_delete_attr(rt_instance *inst, u32 c, u32 k)
{ return comm_delete_attr(inst, c, k, "MPI_Comm_delete_attr"); }
u32 mwh_Attr_delete(rt_instance *inst, u32 c, u32 k)
{ return comm_delete_attr(inst, c, k, "MPI_Attr_delete"); }

u32 mwh_Type_set_attr(rt_instance *inst, u32 dt, u32 key, u32 val)
{
	MPI_Datatype d;
	int hkey, rc;
	TRY(mw_dtype_hget(dt, &d));
	if (!kv_of(key, KV_TYPE) || mw_keyval_get(key, &hkey))
		TRY(MW_ERR_KEYVAL);
	kv_rec *kv = kv_of(key, KV_TYPE);
	kv->uses++;
	rc = MPI_Type_set_attr(d, hkey, (void *)(uintptr_t)val);
	if (rc != MPI_SUCCESS)
		kv_unuse(kv);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Type_set_attr");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_set_attr");
}

u32 mwh_Type_get_attr(rt_instance *inst, u32 dt, u32 key, u32 valp, u32 flagp)
{
	MPI_Datatype d;
	int hkey, rc, flag = 0;
	uint32_t *v;
	int32_t *f;
	void *val = NULL;
	TRY(mw_dtype_hget(dt, &d));
	if (!kv_of(key, KV_TYPE) || mw_keyval_get(key, &hkey))
		TRY(MW_ERR_KEYVAL);
	OUT(v, valp, 4);
	OUT(f, flagp, 4);
	rc = MPI_Type_get_attr(d, hkey, &val, &flag);
	if (rc == MPI_SUCCESS) {
		*f = flag;
		if (flag)
			*v = (u32)(uintptr_t)val;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Type_get_attr");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_get_attr");
}

u32 mwh_Type_delete_attr(rt_instance *inst, u32 dt, u32 key)
{
	MPI_Datatype d;
	int hkey, rc;
	TRY(mw_dtype_hget(dt, &d));
	if (!kv_of(key, KV_TYPE) || mw_keyval_get(key, &hkey))
		TRY(MW_ERR_KEYVAL);
	return mw_ret(inst, MPI_Type_delete_attr(d, hkey), MW_NOCOMM, "MPI_Type_delete_attr");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_delete_attr");
}

/* ---- Comm_idup ----------------------------------------------------------------
 * The module handle is written at once (the standard lets the module use
 * it only after completion: mw_comm_get refuses it until then); its slot
 * is filled when the request completes (mw_req_done).
 *
 * The parent may be freed meanwhile (MPI_Comm_free lets pending
 * operations complete), but Open MPI 4.1 then crashes progressing the
 * idup (tests/fuzz-bridge/open/idup-free.c): the module handle goes at
 * once, the host communicator when the last idup of it completes. */

typedef struct idup_rec {
	MPI_Comm nc, hparent;
	u32 slot, parent, req;
	int parent_freed;
} idup_rec;

/* One allocation per pending idup: the host writes the new communicator
 * into rec->nc when the request completes, so a record never moves while
 * its request is pending (the array of pointers may). */
static idup_rec **idups;
static uint32_t n_idup, idup_cap;   /* under mw_lock (mw_req_done runs with it held) */

void mw_req_done(uint32_t req)
{
	for (uint32_t i = 0; i < n_idup; i++)
		if (idups[i]->req == req) {
			idup_rec *d = idups[i];
			mw_comm_set(d->slot, d->nc);
			if (!d->parent_freed)
				mw_comm_inherit(d->slot, d->parent);
			idups[i] = idups[--n_idup];
			mw_req_watch(n_idup != 0);
			int last = d->parent_freed;
			for (uint32_t j = 0; j < n_idup && last; j++)
				last = !(idups[j]->parent_freed && idups[j]->hparent == d->hparent);
			if (last)
				MPI_Comm_free(&d->hparent);
			free(d);
			return;
		}
}

int mw_comm_free_later(uint32_t comm)
{
	int later = 0;
	mw_lock();
	for (uint32_t i = 0; i < n_idup; i++)
		if (idups[i]->parent == comm && !idups[i]->parent_freed) {
			idups[i]->parent_freed = 1;
			idups[i]->parent = MW_COMM_NULL;
			later = 1;
		}
	mw_unlock();
	return later;
}

u32 mwh_Comm_idup(rt_instance *inst, u32 comm, u32 newp, u32 reqp)
{
	MPI_Comm c;
	MPI_Request r;
	uint32_t *o, *q;
	int rc;
	TRY(mw_comm_get(comm, &c));
	OUT(o, newp, 4);
	OUT(q, reqp, 4);
	idup_rec *d = calloc(1, sizeof *d);
	if (!d)
		TRY(MW_ERR_NO_MEM);
	d->hparent = c;
	rc = MPI_Comm_idup(c, &d->nc, &r);
	if (rc != MPI_SUCCESS) {
		free(d);
		return mw_ret(inst, rc, comm, "MPI_Comm_idup");
	}
	mw_lock();
	if (n_idup == idup_cap) {
		uint32_t cap = idup_cap ? idup_cap * 2 : 8;
		idup_rec **v = realloc(idups, cap * sizeof *v);
		if (!v) {
			fprintf(stderr, "mpiwasm: mpib: out of memory for MPI_Comm_idup records\n");
			abort();
		}
		idups = v;
		idup_cap = cap;
	}
	idups[n_idup] = d;
	d->slot = mw_comm_reserve();
	/* The module has the handle now: an error on it before the request
	 * completes (erroneous, but it happens) goes to the handler it will
	 * have, not to MPI_ERRORS_ARE_FATAL (found by fuzz-bridge). */
	mw_comm_inherit(d->slot, comm);
	d->parent = comm;
	d->req = mw_req_put(r);
	n_idup++;
	mw_req_watch(1);
	mw_unlock();
	*o = d->slot;
	*q = d->req;
	return 0;
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_idup");
}

/* ---- error handlers called by the program ------------------------------------ */

u32 mwh_Comm_call_errhandler(rt_instance *inst, u32 comm, u32 code)
{
	MPI_Comm c;
	int rc;
	TRY(mw_comm_get(comm, &c));
	mw_call_errh(inst, (int)code, comm, "MPI_Comm_call_errhandler");
	return 0;
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_call_errhandler");
}

/* ---- user error classes and codes ---------------------------------------------
 * Module codes above MPI_ERR_LASTCODE (127) are the program's own; each
 * maps to the host's code, and remembers its module class. */


/* ucode and n_ucode change under mw_lock. */
int mw_code_out(int host)
{
	mw_lock();
	for (uint32_t i = 0; i < n_ucode; i++)
		if (ucode[i].host == host) {
			mw_unlock();
			return MW_ERR_LASTCODE + 1 + (int)i;
		}
	mw_unlock();
	return mw_class_out(host);
}

int mw_code_in(int32_t m, int *host, int32_t *cls)
{
	if (m >= 0 && m <= MW_ERR_LASTCODE) {
		*cls = m;
		*host = -1;
		return 0;
	}
	int64_t i = (int64_t)m - MW_ERR_LASTCODE - 1;   /* no overflow at INT_MIN */
	mw_lock();
	int bad = m <= MW_ERR_LASTCODE || i >= (int64_t)n_ucode;
	if (!bad) {
		*host = ucode[i].host;
		*cls = ucode[i].cls;
	}
	mw_unlock();
	return bad ? MW_ERR_ARG : 0;
}

static int32_t ucode_add_(int host, int32_t cls);

static int32_t ucode_add(int host, int32_t cls)
{
	mw_lock();
	int32_t c = ucode_add_(host, cls);
	mw_unlock();
	return c;
}

static int32_t ucode_add_(int host, int32_t cls)
{
	if (n_ucode == ucode_cap) {
		uint32_t cap = ucode_cap ? ucode_cap * 2 : 32;
		void *v = realloc(ucode, cap * sizeof *ucode);
		if (!v)
			return -1;
		ucode = v;
		ucode_cap = cap;
	}
	ucode[n_ucode].host = host;
	ucode[n_ucode].cls = cls < 0 ? MW_ERR_LASTCODE + 1 + (int32_t)n_ucode : cls;
	return MW_ERR_LASTCODE + 1 + (int32_t)n_ucode++;
}

u32 mwh_Add_error_class(rt_instance *inst, u32 clsp)
{
	int32_t *o = mw_ptr(inst, clsp, 4);
	int h;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Add_error_class");
	int rc = MPI_Add_error_class(&h);
	if (rc != MPI_SUCCESS)
		return mw_ret(inst, rc, MW_NOCOMM, "MPI_Add_error_class");
	int32_t m = ucode_add(h, -1);
	if (m < 0)
		return mw_fail(inst, MW_ERR_NO_MEM, MW_NOCOMM, "MPI_Add_error_class");
	*o = m;
	return 0;
}

u32 mwh_Add_error_code(rt_instance *inst, u32 cls, u32 codep)
{
	int32_t *o = mw_ptr(inst, codep, 4);
	int hcls, h, rc;
	int32_t mcls;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Add_error_code");
	if (mw_code_in((int32_t)cls, &hcls, &mcls) || mcls != (int32_t)cls)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Add_error_code");
	if (hcls < 0)   /* a predefined class: the host's number for it */
		hcls = mw_class_in((int)cls);
	rc = MPI_Add_error_code(hcls, &h);
	if (rc != MPI_SUCCESS)
		return mw_ret(inst, rc, MW_NOCOMM, "MPI_Add_error_code");
	int32_t m = ucode_add(h, mcls);
	if (m < 0)
		return mw_fail(inst, MW_ERR_NO_MEM, MW_NOCOMM, "MPI_Add_error_code");
	*o = m;
	return 0;
}

u32 mwh_Add_error_string(rt_instance *inst, u32 code, u32 str)
{
	const char *s = mw_str(inst, str);
	int h;
	int32_t cls;
	if (!s || mw_code_in((int32_t)code, &h, &cls) || h < 0)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Add_error_string");
	return mw_ret(inst, MPI_Add_error_string(h, s), MW_NOCOMM, "MPI_Add_error_string");
}

/* ---- datatype decoding ----------------------------------------------------------- */

static int combiner_out(int h)
{
	return mw_enum_out(MW_E_COMBINER, h);
}

u32 mwh_Type_get_envelope(rt_instance *inst, u32 dt, u32 ni, u32 na, u32 nd, u32 comb)
{
	MPI_Datatype d;
	int32_t *pi, *pa, *pd, *pc;
	int rc, i, a, t, c;
	TRY(mw_dtype_hget(dt, &d));
	OUT(pi, ni, 4);
	OUT(pa, na, 4);
	OUT(pd, nd, 4);
	OUT(pc, comb, 4);
	/* Predefined module types are named whatever the host uses for them. */
	if (mw_dtype_predefined(dt)) {
		*pi = *pa = *pd = 0;
		*pc = MW_COMBINER_NAMED;
		return 0;
	}
	rc = MPI_Type_get_envelope(d, &i, &a, &t, &c);
	if (rc == MPI_SUCCESS) {
		*pi = i;
		*pa = a;
		*pd = t;
		*pc = combiner_out(c);
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Type_get_envelope");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_get_envelope");
}

static int32_t order_out(int o)
{
	return mw_enum_out(MW_E_ORDER, o);
}

static int32_t distrib_out(int o)
{
	return mw_enum_out(MW_E_DISTRIB, o);
}

u32 mwh_Type_get_contents(rt_instance *inst, u32 dt, u32 mi, u32 ma, u32 md,
                          u32 ints, u32 aints, u32 types)
{
	MPI_Datatype d, *ht = NULL;
	MPI_Aint *ha = NULL;
	int32_t *pi, *pa;
	uint32_t *pt;
	int rc, ni, na, nd, comb;
	TRY(mw_dtype_hget(dt, &d));
	if ((int)mi < 0 || (int)ma < 0 || (int)md < 0)
		TRY(MW_ERR_ARG);
	pi = mw_arr(inst, ints, mi, 4);
	pa = mw_arr(inst, aints, ma, 4);
	pt = mw_arr(inst, types, md, 4);
	if ((!pi && mi) || (!pa && ma) || (!pt && md))
		TRY(MW_ERR_ARG);
	if (mw_dtype_predefined(dt))
		TRY(MW_ERR_TYPE);   /* MPI: erroneous for named types */
	if ((rc = MPI_Type_get_envelope(d, &ni, &na, &nd, &comb)))
		return mw_ret(inst, rc, MW_NOCOMM, "MPI_Type_get_contents");
	if (ni > (int)mi || na > (int)ma || nd > (int)md)
		TRY(MW_ERR_ARG);
	int *hi = malloc(((size_t)ni + 1) * sizeof *hi);
	ha = malloc(((size_t)na + 1) * sizeof *ha);
	ht = malloc(((size_t)nd + 1) * sizeof *ht);
	if (!hi || !ha || !ht) {
		free(hi);
		rc = MW_ERR_NO_MEM;
		goto fail;
	}
	rc = MPI_Type_get_contents(d, ni, na, nd, hi, ha, ht);
	if (rc == MPI_SUCCESS) {
		for (int k = 0; k < ni; k++)
			pi[k] = hi[k];
		int n = ni > 0 ? hi[0] : 0;   /* ndims of subarray/darray */
		if (comb == MPI_COMBINER_SUBARRAY && ni == 3 * n + 2)
			pi[3 * n + 1] = order_out(hi[3 * n + 1]);
		if (comb == MPI_COMBINER_DARRAY && ni >= 4) {
			n = hi[2];
			if (ni == 4 * n + 4) {
				for (int k = 0; k < n; k++) {
					pi[3 + n + k] = distrib_out(hi[3 + n + k]);
					if (hi[3 + 2 * n + k] == MPI_DISTRIBUTE_DFLT_DARG)
						pi[3 + 2 * n + k] = MW_DISTRIBUTE_DFLT_DARG;
				}
				pi[4 * n + 3] = order_out(hi[4 * n + 3]);
			}
		}
		for (int k = 0; k < na; k++)
			pa[k] = (int32_t)ha[k];
		/* Derived types come back as new handles the module frees;
		 * predefined ones as their fixed numbers. */
		for (int k = 0; k < nd; k++)
			pt[k] = mw_dtype_put(ht[k]);
	}
	free(hi);
	free(ha);
	free(ht);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Type_get_contents");
fail:
	free(ha);
	free(ht);
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_get_contents");
}

/* ---- external32 --------------------------------------------------------------- */

u32 mwh_Pack_external_size(rt_instance *inst, u32 rep, u32 count, u32 dt, u32 sizep)
{
	MPI_Datatype d;
	int32_t *o;
	MPI_Aint sz = 0;
	int rc;
	const char *s = mw_str(inst, rep);
	if (!s)
		TRY(MW_ERR_ARG);
	TRY(mw_dtype_cget(dt, &d));
	OUT(o, sizep, 4);
	rc = MPI_Pack_external_size(s, (int)count, d, &sz);
	if (rc == MPI_SUCCESS) {
		if (sz > INT32_MAX)
			TRY(MW_ERR_SIZE);
		*o = (int32_t)sz;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Pack_external_size");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Pack_external_size");
}

u32 mwh_Pack_external(rt_instance *inst, u32 rep, u32 in, u32 count, u32 dt,
                      u32 out, u32 outsize, u32 posp)
{
	mw_dtype *d;
	void *pin, *pout;
	int32_t *pp, pos;
	MPI_Aint need = 0;
	int rc;
	u32 ret;
	const char *s = mw_str(inst, rep);
	if (!s)
		TRY(MW_ERR_ARG);
	TRY(mw_dtype_get(dt, &d));
	TRY(mw_buf(inst, in, (int)count, d, &pin));
	if ((int32_t)outsize < 0 || !(pout = mw_ptr(inst, out, outsize)))
		TRY(MW_ERR_BUFFER);
	if ((rc = MPI_Pack_external_size(s, (int)count, d->h, &need)) != MPI_SUCCESS)
		return mw_ret(inst, rc, MW_NOCOMM, "MPI_Pack_external");
	if (mw_pos_check(inst, posp, (int32_t)outsize, need, &pp, &pos, MW_NOCOMM,
	                 "MPI_Pack_external", &ret))
		return ret;
	MPI_Aint hp = pos;
	rc = MPI_Pack_external(s, pin, (int)count, d->h, pout, (int32_t)outsize, &hp);
	if (rc == MPI_SUCCESS)
		*pp = (int32_t)hp;
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Pack_external");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Pack_external");
}

u32 mwh_Unpack_external(rt_instance *inst, u32 rep, u32 in, u32 insize, u32 posp,
                        u32 out, u32 count, u32 dt)
{
	mw_dtype *d;
	void *pin, *pout;
	int32_t *pp, pos;
	int rc;
	u32 ret;
	const char *s = mw_str(inst, rep);
	if (!s)
		TRY(MW_ERR_ARG);
	TRY(mw_dtype_get(dt, &d));
	TRY(mw_buf(inst, out, (int)count, d, &pout));
	if ((int32_t)insize < 0 || !(pin = mw_ptr(inst, in, insize)))
		TRY(MW_ERR_BUFFER);
	/* What count elements take in external32, after position: MPICH 4.0
	 * reads them whatever insize says (fuzz-bridge: a host read past
	 * linear memory). */
	MPI_Aint need = 0;
	if ((rc = MPI_Pack_external_size(s, (int)count, d->h, &need)) != MPI_SUCCESS)
		return mw_ret(inst, rc, MW_NOCOMM, "MPI_Unpack_external");
	if (mw_pos_check(inst, posp, (int32_t)insize, need, &pp, &pos, MW_NOCOMM,
	                 "MPI_Unpack_external", &ret))
		return ret;
	MPI_Aint hp = pos;
	rc = MPI_Unpack_external(s, pin, (int32_t)insize, &hp, pout, (int)count, d->h);
	if (rc == MPI_SUCCESS)
		*pp = (int32_t)hp;
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Unpack_external");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Unpack_external");
}

/* ---- topology constructors ------------------------------------------------------- */

static int32_t *int_arr(rt_instance *inst, u32 a, int n)
{
	if (n < 0)
		return NULL;
	int32_t *p = mw_arr(inst, a, (uint64_t)n, 4);
	return p ? p : (n == 0 ? (int32_t *)mw_ptr(inst, 0, 0) : NULL);
}

u32 mwh_Cart_sub(rt_instance *inst, u32 comm, u32 remain, u32 newp)
{
	MPI_Comm c, nc;
	uint32_t *o;
	int rc, nd = 0;
	TRY(mw_comm_get(comm, &c));
	if ((rc = MPI_Cartdim_get(c, &nd)))
		return mw_ret(inst, rc, comm, "MPI_Cart_sub");
	int32_t *r = int_arr(inst, remain, nd);
	if (!r)
		TRY(MW_ERR_ARG);
	OUT(o, newp, 4);
	rc = MPI_Cart_sub(c, r, &nc);
	if (rc == MPI_SUCCESS) {
		*o = mw_comm_put(nc);
		mw_comm_inherit(*o, comm);
	}
	return mw_ret(inst, rc, comm, "MPI_Cart_sub");
fail:
	return mw_fail(inst, rc, comm, "MPI_Cart_sub");
}

u32 mwh_Cart_rank(rt_instance *inst, u32 comm, u32 coords, u32 rankp)
{
	MPI_Comm c;
	int32_t *o;
	int rc, nd = 0;
	TRY(mw_comm_get(comm, &c));
	if ((rc = MPI_Cartdim_get(c, &nd)))
		return mw_ret(inst, rc, comm, "MPI_Cart_rank");
	int32_t *p = int_arr(inst, coords, nd);
	if (!p)
		TRY(MW_ERR_ARG);
	OUT(o, rankp, 4);
	rc = MPI_Cart_rank(c, p, o);
	return mw_ret(inst, rc, comm, "MPI_Cart_rank");
fail:
	return mw_fail(inst, rc, comm, "MPI_Cart_rank");
}

u32 mwh_Graph_create(rt_instance *inst, u32 comm, u32 nnodes, u32 index, u32 edges,
                     u32 reorder, u32 newp)
{
	MPI_Comm c, nc;
	uint32_t *o;
	int rc;
	TRY(mw_comm_get(comm, &c));
	int32_t *pi = int_arr(inst, index, (int)nnodes);
	if (!pi)
		TRY(MW_ERR_ARG);
	int ne = nnodes > 0 ? pi[(int)nnodes - 1] : 0;
	int32_t *pe = int_arr(inst, edges, ne);
	if (!pe)
		TRY(MW_ERR_ARG);
	OUT(o, newp, 4);
	rc = MPI_Graph_create(c, (int)nnodes, pi, pe, (int)reorder, &nc);
	if (rc == MPI_SUCCESS) {
		*o = mw_comm_put(nc);
		mw_comm_inherit(*o, comm);
	}
	return mw_ret(inst, rc, comm, "MPI_Graph_create");
fail:
	return mw_fail(inst, rc, comm, "MPI_Graph_create");
}

u32 mwh_Graph_map(rt_instance *inst, u32 comm, u32 nnodes, u32 index, u32 edges,
                  u32 newrank)
{
	MPI_Comm c;
	int32_t *o;
	int rc;
	TRY(mw_comm_get(comm, &c));
	int32_t *pi = int_arr(inst, index, (int)nnodes);
	if (!pi)
		TRY(MW_ERR_ARG);
	int32_t *pe = int_arr(inst, edges, nnodes > 0 ? pi[(int)nnodes - 1] : 0);
	if (!pe)
		TRY(MW_ERR_ARG);
	OUT(o, newrank, 4);
	rc = MPI_Graph_map(c, (int)nnodes, pi, pe, o);
	if (rc == MPI_SUCCESS)
		*o = (int32_t)mw_rank_out(*o);
	return mw_ret(inst, rc, comm, "MPI_Graph_map");
fail:
	return mw_fail(inst, rc, comm, "MPI_Graph_map");
}

/* Weights: MPI_UNWEIGHTED (2) and MPI_WEIGHTS_EMPTY (3) are sentinels. */
static int weights_in(rt_instance *inst, u32 a, int n, int **out)
{
	if (a == MW_UNWEIGHTED_ADDR) {
		*out = MPI_UNWEIGHTED;
		return 0;
	}
	if (a == MW_WEIGHTS_EMPTY_ADDR) {
		/* only for no edges: Open MPI reads n weights at the sentinel
		 * (found by fuzz-bridge) */
		if (n != 0)
			return MW_ERR_ARG;
		*out = MPI_WEIGHTS_EMPTY;
		return 0;
	}
	*out = int_arr(inst, a, n);
	return *out ? 0 : MW_ERR_ARG;
}

u32 mwh_Dist_graph_create_adjacent(rt_instance *inst, u32 comm, u32 indeg, u32 srcs,
                                   u32 sw, u32 outdeg, u32 dsts, u32 dw, u32 info,
                                   u32 reorder, u32 newp)
{
	MPI_Comm c, nc;
	MPI_Info in;
	uint32_t *o;
	int *psw, *pdw, rc;
	TRY(mw_comm_get(comm, &c));
	TRY(mw_info_get(info, &in));
	int32_t *ps = int_arr(inst, srcs, (int)indeg), *pd = int_arr(inst, dsts, (int)outdeg);
	if (!ps || !pd)
		TRY(MW_ERR_ARG);
	TRY(weights_in(inst, sw, (int)indeg, &psw));
	TRY(weights_in(inst, dw, (int)outdeg, &pdw));
	OUT(o, newp, 4);
	rc = MPI_Dist_graph_create_adjacent(c, (int)indeg, ps, psw, (int)outdeg, pd, pdw,
	                                    in, (int)reorder, &nc);
	if (rc == MPI_SUCCESS) {
		*o = mw_comm_put(nc);
		mw_comm_inherit(*o, comm);
	}
	return mw_ret(inst, rc, comm, "MPI_Dist_graph_create_adjacent");
fail:
	return mw_fail(inst, rc, comm, "MPI_Dist_graph_create_adjacent");
}

u32 mwh_Dist_graph_create(rt_instance *inst, u32 comm, u32 n, u32 srcs, u32 degs,
                          u32 dsts, u32 w, u32 info, u32 reorder, u32 newp)
{
	MPI_Comm c, nc;
	MPI_Info in;
	uint32_t *o;
	int *pw, rc;
	TRY(mw_comm_get(comm, &c));
	TRY(mw_info_get(info, &in));
	int32_t *ps = int_arr(inst, srcs, (int)n), *pg = int_arr(inst, degs, (int)n);
	if (!ps || !pg)
		TRY(MW_ERR_ARG);
	int64_t ne = 0;
	for (int i = 0; i < (int)n; i++)
		ne += pg[i] > 0 ? pg[i] : 0;
	if (ne > INT32_MAX)
		TRY(MW_ERR_ARG);
	int32_t *pd = int_arr(inst, dsts, (int)ne);
	if (!pd)
		TRY(MW_ERR_ARG);
	/* Every node a rank of comm: Open MPI 4.1 sends the edges to their
	 * nodes' owners and, for MPI_PROC_NULL or a bad rank, received them
	 * past a buffer of its own (heap overflow; found by fuzz-bridge). */
	int size = 0;
	if (c == MPI_COMM_NULL || MPI_Comm_size(c, &size))
		TRY(MW_ERR_COMM);
	for (int64_t i = 0; i < ne || i < (int)n; i++)
		if ((i < ne && (pd[i] < 0 || pd[i] >= size)) ||
		    (i < (int)n && (ps[i] < 0 || ps[i] >= size)))
			TRY(MW_ERR_RANK);
	TRY(weights_in(inst, w, (int)ne, &pw));
	OUT(o, newp, 4);
	rc = MPI_Dist_graph_create(c, (int)n, ps, pg, pd, pw, in, (int)reorder, &nc);
	if (rc == MPI_SUCCESS) {
		*o = mw_comm_put(nc);
		mw_comm_inherit(*o, comm);
	}
	return mw_ret(inst, rc, comm, "MPI_Dist_graph_create");
fail:
	return mw_fail(inst, rc, comm, "MPI_Dist_graph_create");
}

u32 mwh_Dist_graph_neighbors(rt_instance *inst, u32 comm, u32 maxin, u32 srcs, u32 sw,
                             u32 maxout, u32 dsts, u32 dw)
{
	MPI_Comm c;
	int rc, win = 0, wout = 0, wtd = 0;
	TRY(mw_comm_get(comm, &c));
	int32_t *ps = int_arr(inst, srcs, (int)maxin), *pd = int_arr(inst, dsts, (int)maxout);
	if (!ps || !pd)
		TRY(MW_ERR_ARG);
	if ((rc = MPI_Dist_graph_neighbors_count(c, &win, &wout, &wtd)))
		return mw_ret(inst, rc, comm, "MPI_Dist_graph_neighbors");
	int32_t *psw = NULL, *pdw = NULL;
	if (sw != MW_UNWEIGHTED_ADDR && !(psw = int_arr(inst, sw, (int)maxin)))
		TRY(MW_ERR_ARG);
	if (dw != MW_UNWEIGHTED_ADDR && !(pdw = int_arr(inst, dw, (int)maxout)))
		TRY(MW_ERR_ARG);
	/* Arrays longer than the degrees are allowed, but MPICH 4.0 copies
	 * max* entries from its own arrays of degree entries (ASan: a host heap
	 * read past them): the host is asked for no more than there are. */
	int nin = (int)maxin < win ? (int)maxin : win, nout = (int)maxout < wout ? (int)maxout : wout;
	rc = MPI_Dist_graph_neighbors(c, nin, ps, psw ? psw : MPI_UNWEIGHTED,
	                              nout, pd, pdw ? pdw : MPI_UNWEIGHTED);
	if (rc == MPI_SUCCESS) {
		for (int i = 0; i < (int)maxin && i < win; i++)
			ps[i] = (int32_t)mw_rank_out(ps[i]);
		for (int i = 0; i < (int)maxout && i < wout; i++)
			pd[i] = (int32_t)mw_rank_out(pd[i]);
	}
	return mw_ret(inst, rc, comm, "MPI_Dist_graph_neighbors");
fail:
	return mw_fail(inst, rc, comm, "MPI_Dist_graph_neighbors");
}

/* MPI_Pcontrol(level, ...): the varargs (a module pointer) mean nothing
 * to the host's profiling layer, so only the level is passed on. */
u32 mwh_Pcontrol(rt_instance *inst, u32 level, u32 va)
{
	(void)va;
	return mw_ret(inst, MPI_Pcontrol((int)level), MW_NOCOMM, "MPI_Pcontrol");
}
