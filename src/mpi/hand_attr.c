/* hand_attr.c - caching (MPI-3.1 chapter 6.7): keyvals with module
 * copy/delete callbacks, attributes on communicators and datatypes, and
 * the predefined communicator attributes.  Typed
 * (src/mpi/gen/family-attr.txt: the entries in glue.c check and convert
 * the arguments, the keyval looked up). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;


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

static u32 keyval_create(const mw_call *k, int kind, u32 copy, u32 del, int32_t *o,
                         u32 extra)
{
	rt_instance *inst = k->inst;
	const char *csig = "iiiiii:i", *dsig = "iiii:i";
	if ((copy != 0 && copy != KV_DUP && !rt_table_func(inst, 0, copy, csig)) ||
	    (del != 0 && !rt_table_func(inst, 0, del, dsig)))
		return mw_call_fail(k, MW_ERR_ARG);
	kv_rec *kv = calloc(1, sizeof *kv);
	if (!kv)
		return mw_call_fail(k, MW_ERR_NO_MEM);
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
		return mw_call_ret(k, rc);
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
			return mw_call_fail(k, MW_ERR_NO_MEM);
		}
		memset(v + kv_cap, 0, (cap - kv_cap) * sizeof *v);
		kv_tab = v;
		kv_cap = cap;
	}
	kv->mkey = h;
	kv_tab[h] = kv;
	mw_unlock();
	*o = (int32_t)h;
	return 0;
}

static u32 keyval_free(const mw_call *k, int kind, mw_keyval_io *key)
{
	kv_rec *kv = kv_of(key->mod, kind);
	if (!kv || kv->freed)
		return mw_call_fail(k, MW_ERR_KEYVAL);
	int rc = kind == KV_COMM ? MPI_Comm_free_keyval(&key->h) : MPI_Type_free_keyval(&key->h);
	if (rc == MPI_SUCCESS) {
		/* The record stays: attributes still set call its delete fn. */
		kv->freed = 1;
		if (kv->uses <= 0)
			kv_release(kv);
		*key->slot = MW_KEYVAL_INVALID;
	}
	return mw_call_ret(k, rc);
}

u32 mwh_Comm_create_keyval(const mw_call *k, u32 c, u32 d, int32_t *o, u32 e)
{ return keyval_create(k, KV_COMM, c, d, o, e); }
u32 mwh_Keyval_create(const mw_call *k, u32 c, u32 d, int32_t *o, u32 e)
{ return keyval_create(k, KV_COMM, c, d, o, e); }
u32 mwh_Type_create_keyval(const mw_call *k, u32 c, u32 d, int32_t *o, u32 e)
{ return keyval_create(k, KV_TYPE, c, d, o, e); }
u32 mwh_Comm_free_keyval(const mw_call *k, mw_keyval_io *key)
{ return keyval_free(k, KV_COMM, key); }
u32 mwh_Keyval_free(const mw_call *k, mw_keyval_io *key)
{ return keyval_free(k, KV_COMM, key); }
u32 mwh_Type_free_keyval(const mw_call *k, mw_keyval_io *key)
{ return keyval_free(k, KV_TYPE, key); }

/* Predefined communicator attributes: the module gets a pointer into its
 * own memory, to a word holding the module-side value. */
static uint32_t predef_block;

static int predef_value(int mkey, int hval, int32_t *out)
{
	switch (mkey) {
	case MW_HOST:
	case MW_IO:
		*out = (int32_t)mw_rank_out(hval);
		return 1;
	case MW_LASTUSEDCODE:   /* the module's numbering, not the host's */
		*out = MW_ERR_LASTCODE + (int32_t)mw_ucode_count();
		return 1;
	case MW_TAG_UB: case MW_WTIME_IS_GLOBAL: case MW_APPNUM: case MW_UNIVERSE_SIZE:
		*out = hval;
		return 1;
	default:
		return 0;
	}
}

static u32 comm_get_attr(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key,
                         uint32_t *v, int32_t *f)
{
	rt_instance *inst = k->inst;
	int flag = 0;
	void *val = NULL;
	int rc = MPI_Comm_get_attr(c, key->h, &val, &flag);
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	*f = flag;
	if (!flag)
		return 0;
	if (kv_of(key->mod, KV_COMM) || key->mod >= 13) {
		*v = (u32)(uintptr_t)val;
		return 0;
	}
	int32_t mval;
	if (!predef_value((int)key->mod, *(int *)val, &mval))
		return mw_call_fail(k, MW_ERR_KEYVAL);
	if (!predef_block) {
		uint32_t va = mw_addr(inst, v);   /* v again after the module's malloc */
		predef_block = mw_malloc(inst, 16 * 4, k->proc);
		mw_after(inst, 0);
		if (!predef_block)
			return mw_call_fail(k, MW_ERR_NO_MEM);
		v = mw_ptr(inst, va, 4);
	}
	int32_t *slot = mw_ptr(inst, predef_block + 4 * key->mod, 4);
	*slot = mval;
	*v = predef_block + 4 * key->mod;
	return 0;
}

u32 mwh_Comm_get_attr(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key, uint32_t *v,
                      int32_t *f)
{ return comm_get_attr(k, c, key, v, f); }
u32 mwh_Attr_get(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key, uint32_t *v,
                 int32_t *f)
{ return comm_get_attr(k, c, key, v, f); }

static u32 comm_set_attr(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key, u32 val)
{
	kv_rec *kv = kv_of(key->mod, KV_COMM);
	if (!kv)
		return mw_call_fail(k, MW_ERR_KEYVAL);
	/* Counted first: a value replaced is counted off by kv_delete. */
	kv->uses++;
	int rc = MPI_Comm_set_attr(c, key->h, (void *)(uintptr_t)val);
	if (rc != MPI_SUCCESS)
		kv_unuse(kv);
	return mw_call_ret(k, rc);
}

u32 mwh_Comm_set_attr(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key, u32 val)
{ return comm_set_attr(k, c, key, val); }
u32 mwh_Attr_put(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key, u32 val)
{ return comm_set_attr(k, c, key, val); }

static u32 comm_delete_attr(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key)
{
	if (!kv_of(key->mod, KV_COMM))
		return mw_call_fail(k, MW_ERR_KEYVAL);
	return mw_call_ret(k, MPI_Comm_delete_attr(c, key->h));
}

u32 mwh_Comm_delete_attr(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key)
{ return comm_delete_attr(k, c, key); }
u32 mwh_Attr_delete(const mw_call *k, MPI_Comm c, const mw_keyval_ref *key)
{ return comm_delete_attr(k, c, key); }

u32 mwh_Type_set_attr(const mw_call *k, mw_dtype *d, const mw_keyval_ref *key, u32 val)
{
	kv_rec *kv = kv_of(key->mod, KV_TYPE);
	if (!kv)
		return mw_call_fail(k, MW_ERR_KEYVAL);
	kv->uses++;
	int rc = MPI_Type_set_attr(d->h, key->h, (void *)(uintptr_t)val);
	if (rc != MPI_SUCCESS)
		kv_unuse(kv);
	return mw_call_ret(k, rc);
}

/* The keyval is a datatype's (class tkeyval: checked before the out
 * pointers). */
int mw_type_keyval_get(uint32_t h, int *out)
{
	if (!kv_of(h, KV_TYPE) || mw_keyval_get(h, out))
		return MW_ERR_KEYVAL;
	return 0;
}

u32 mwh_Type_get_attr(const mw_call *k, mw_dtype *d, const mw_keyval_ref *key,
                      uint32_t *v, int32_t *f)
{
	int flag = 0;
	void *val = NULL;
	int rc = MPI_Type_get_attr(d->h, key->h, &val, &flag);
	if (rc == MPI_SUCCESS) {
		*f = flag;
		if (flag)
			*v = (u32)(uintptr_t)val;
	}
	return mw_call_ret(k, rc);
}

u32 mwh_Type_delete_attr(const mw_call *k, mw_dtype *d, const mw_keyval_ref *key)
{
	if (!kv_of(key->mod, KV_TYPE))
		return mw_call_fail(k, MW_ERR_KEYVAL);
	return mw_call_ret(k, MPI_Type_delete_attr(d->h, key->h));
}
