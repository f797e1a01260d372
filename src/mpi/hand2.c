/* hand2.c - hand-written host functions for communicators, groups,
 * datatypes, error handlers and names: new communicators inherit the
 * module-side error handler, MPI_Aint arrays are widened, names are
 * clipped to the module's maxima. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;

#define TRY(x) do { if ((rc = (x))) goto fail; } while (0)
#define OUT(p, a, n) do { if (!((p) = mw_ptr(inst, (a), (n)))) { rc = MW_ERR_ARG; goto fail; } } while (0)

/* ---- communicators ---------------------------------------------------------- */

static u32 comm_new(rt_instance *inst, int rc, const MPI_Comm *ncp, uint32_t *out,
                    u32 parent, const char *proc)
{
	MPI_Comm nc = *ncp;   /* read after the call made it */
	if (rc == MPI_SUCCESS) {
		*out = mw_comm_put(nc);
		if (nc != MPI_COMM_NULL)
			mw_comm_inherit(*out, parent);
	}
	return mw_ret(inst, rc, parent, proc);
}

#define COMM_IN(c, a) TRY(mw_comm_get((a), &(c)))

u32 mwh_Comm_dup(rt_instance *inst, u32 comm, u32 newp)
{
	MPI_Comm c, nc;
	uint32_t *o;
	int rc;
	COMM_IN(c, comm);
	OUT(o, newp, 4);
	return comm_new(inst, MPI_Comm_dup(c, &nc), &nc, o, comm, "MPI_Comm_dup");
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_dup");
}

u32 mwh_Comm_dup_with_info(rt_instance *inst, u32 comm, u32 info, u32 newp)
{
	MPI_Comm c, nc;
	MPI_Info i;
	uint32_t *o;
	int rc;
	COMM_IN(c, comm);
	TRY(mw_info_get(info, &i));
	OUT(o, newp, 4);
	return comm_new(inst, MPI_Comm_dup_with_info(c, i, &nc), &nc, o, comm,
	                "MPI_Comm_dup_with_info");
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_dup_with_info");
}

u32 mwh_Comm_create(rt_instance *inst, u32 comm, u32 group, u32 newp)
{
	MPI_Comm c, nc;
	MPI_Group g;
	uint32_t *o;
	int rc;
	COMM_IN(c, comm);
	TRY(mw_group_get(group, &g));
	OUT(o, newp, 4);
	return comm_new(inst, MPI_Comm_create(c, g, &nc), &nc, o, comm, "MPI_Comm_create");
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_create");
}

u32 mwh_Comm_create_group(rt_instance *inst, u32 comm, u32 group, u32 tag, u32 newp)
{
	MPI_Comm c, nc;
	MPI_Group g;
	uint32_t *o;
	int rc;
	COMM_IN(c, comm);
	TRY(mw_group_get(group, &g));
	OUT(o, newp, 4);
	return comm_new(inst, MPI_Comm_create_group(c, g, mw_tag_in(tag), &nc), &nc, o,
	                comm, "MPI_Comm_create_group");
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_create_group");
}

u32 mwh_Comm_split(rt_instance *inst, u32 comm, u32 color, u32 key, u32 newp)
{
	MPI_Comm c, nc;
	uint32_t *o;
	int rc;
	COMM_IN(c, comm);
	OUT(o, newp, 4);
	int col = (int)color == MW_UNDEFINED ? MPI_UNDEFINED : (int)color;
	return comm_new(inst, MPI_Comm_split(c, col, (int)key, &nc), &nc, o, comm,
	                "MPI_Comm_split");
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_split");
}

u32 mwh_Comm_split_type(rt_instance *inst, u32 comm, u32 type, u32 key,
                        u32 info, u32 newp)
{
	MPI_Comm c, nc;
	MPI_Info i;
	uint32_t *o;
	int rc, t;
	COMM_IN(c, comm);
	TRY(mw_info_get(info, &i));
	OUT(o, newp, 4);
	if ((int)type == MW_UNDEFINED)
		t = MPI_UNDEFINED;
	else if ((int)type == MW_COMM_TYPE_SHARED)
		t = MPI_COMM_TYPE_SHARED;
	else
		TRY(MW_ERR_ARG);
	return comm_new(inst, MPI_Comm_split_type(c, t, (int)key, i, &nc), &nc, o, comm,
	                "MPI_Comm_split_type");
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_split_type");
}

u32 mwh_Intercomm_create(rt_instance *inst, u32 local, u32 lleader, u32 peer,
                         u32 rleader, u32 tag, u32 newp)
{
	MPI_Comm lc, pc, nc;
	uint32_t *o;
	int rc;
	COMM_IN(lc, local);
	COMM_IN(pc, peer);
	OUT(o, newp, 4);
	return comm_new(inst, MPI_Intercomm_create(lc, mw_rank_in(lleader), pc,
	                mw_rank_in(rleader), mw_tag_in(tag), &nc), &nc, o, local,
	                "MPI_Intercomm_create");
fail:
	return mw_fail(inst, rc, local, "MPI_Intercomm_create");
}

u32 mwh_Intercomm_merge(rt_instance *inst, u32 comm, u32 high, u32 newp)
{
	MPI_Comm c, nc;
	uint32_t *o;
	int rc;
	COMM_IN(c, comm);
	OUT(o, newp, 4);
	/* Only an intercommunicator merges (MPICH 4.0 asserts on another). */
	int inter = 0;
	MPI_Comm_test_inter(c, &inter);
	if (!inter)
		return mw_fail_arg(inst, MW_ERR_COMM, comm, "MPI_Intercomm_merge",
		                   "argument intercomm is an intracommunicator");
	return comm_new(inst, MPI_Intercomm_merge(c, (int)high, &nc), &nc, o, comm,
	                "MPI_Intercomm_merge");
fail:
	return mw_fail(inst, rc, comm, "MPI_Intercomm_merge");
}

u32 mwh_Comm_free(rt_instance *inst, u32 commp)
{
	uint32_t *o = mw_ptr(inst, commp, 4);
	MPI_Comm c;
	int rc;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Comm_free");
	u32 h = *o;
	if (h == MW_COMM_WORLD || h == MW_COMM_SELF || h == MW_COMM_NULL)
		return mw_fail(inst, MW_ERR_COMM, h == MW_COMM_NULL ? MW_NOCOMM : h,
		               "MPI_Comm_free");
	if ((rc = mw_comm_get(h, &c)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Comm_free");
	rc = mw_comm_free_later(h) ? MPI_SUCCESS : MPI_Comm_free(&c);
	if (rc == MPI_SUCCESS) {
		mw_comm_del(h);
		mw_comm_set_errh(h, 0);
		*o = MW_COMM_NULL;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Comm_free");
}

/* Names: the module's maximum is MPI_MAX_OBJECT_NAME (128). */
u32 mwh_Comm_set_name(rt_instance *inst, u32 comm, u32 name)
{
	MPI_Comm c;
	int rc;
	COMM_IN(c, comm);
	const char *s = mw_str(inst, name);
	if (!s)
		TRY(MW_ERR_ARG);
	return mw_ret(inst, MPI_Comm_set_name(c, s), comm, "MPI_Comm_set_name");
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_set_name");
}

u32 mwh_Comm_get_name(rt_instance *inst, u32 comm, u32 name, u32 lenp)
{
	MPI_Comm c;
	char buf[MPI_MAX_OBJECT_NAME + 1] = "";
	int rc, n = 0;
	COMM_IN(c, comm);
	if (!mw_ptr(inst, name, MW_MAX_OBJECT_NAME) || !mw_ptr(inst, lenp, 4))
		TRY(MW_ERR_ARG);
	rc = MPI_Comm_get_name(c, buf, &n);
	if (rc == MPI_SUCCESS)
		mw_str_out(inst, name, MW_MAX_OBJECT_NAME, lenp, buf);
	return mw_ret(inst, rc, comm, "MPI_Comm_get_name");
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_get_name");
}

/* Predefined module types are mapped by representation (MPI_LONG is the
 * host's MPI_INT32_T), so their names live on the host type of the same
 * name, where a native program finds them: MPI_DATATYPE_NULL if the host
 * has none (then the module's name is its own, fixed). */
#define MW_NAMED_TYPES(X) X(INT8_T) X(INT16_T) X(INT32_T) X(INT) X(INT64_T)     \
	X(UINT8_T) X(UINT16_T) X(UINT32_T) X(UINT64_T) X(LONG) X(LONG_LONG)         \
	X(LONG_LONG_INT) X(FLOAT) X(DOUBLE) X(DOUBLE_INT) X(CHAR) X(C_BOOL) X(BYTE) \
	X(SHORT) X(SIGNED_CHAR) X(UNSIGNED_CHAR) X(UNSIGNED_SHORT) X(UNSIGNED)      \
	X(UNSIGNED_LONG) X(UNSIGNED_LONG_LONG) X(LONG_DOUBLE) X(WCHAR) X(PACKED)    \
	X(AINT) X(OFFSET) X(COUNT) X(C_COMPLEX) X(C_FLOAT_COMPLEX)                  \
	X(C_DOUBLE_COMPLEX) X(C_LONG_DOUBLE_COMPLEX) X(FLOAT_INT) X(LONG_INT)       \
	X(2INT) X(SHORT_INT) X(LONG_DOUBLE_INT) X(CXX_BOOL) X(CXX_FLOAT_COMPLEX)    \
	X(CXX_DOUBLE_COMPLEX) X(CXX_LONG_DOUBLE_COMPLEX) X(CHARACTER) X(LOGICAL)    \
	X(INTEGER) X(REAL) X(DOUBLE_PRECISION) X(COMPLEX) X(DOUBLE_COMPLEX)         \
	X(INTEGER1) X(INTEGER2) X(INTEGER4) X(INTEGER8) X(REAL4) X(REAL8) X(REAL16) \
	X(COMPLEX8) X(COMPLEX16) X(COMPLEX32) X(2REAL) X(2DOUBLE_PRECISION)         \
	X(2INTEGER)

static MPI_Datatype named_type(u32 dt, const char **fixed)
{
	*fixed = NULL;
#define X(n) if (dt == (u32)MW_##n) { *fixed = "MPI_" #n; return MPI_##n; }
	MW_NAMED_TYPES(X)
	/* Not in every host's mpi.h (Open MPI 4.1 has none of them). */
#ifdef MPI_INTEGER16
	X(INTEGER16)
#endif
#ifdef MPI_REAL2
	X(REAL2)
#endif
#ifdef MPI_COMPLEX4
	X(COMPLEX4)
#endif
#undef X
	if (dt == (u32)MW_UINT_T)
		*fixed = "MPI_UINT_T";
	if (dt == (u32)MW_INTEGER16)
		*fixed = "MPI_INTEGER16";
	if (dt == (u32)MW_REAL2)
		*fixed = "MPI_REAL2";
	if (dt == (u32)MW_COMPLEX4)
		*fixed = "MPI_COMPLEX4";
	return MPI_DATATYPE_NULL;
}

u32 mwh_Type_set_name(rt_instance *inst, u32 dt, u32 name)
{
	MPI_Datatype d;
	int rc;
	TRY(mw_dtype_hget(dt, &d));
	const char *s = mw_str(inst, name), *fixed;
	if (!s)
		TRY(MW_ERR_ARG);
	if (mw_dtype_predefined(dt)) {
		d = named_type(dt, &fixed);
		if (d == MPI_DATATYPE_NULL)   /* no host type to hold it */
			return mw_fail(inst, MW_ERR_TYPE, MW_NOCOMM, "MPI_Type_set_name");
	}
	return mw_ret(inst, MPI_Type_set_name(d, s), MW_NOCOMM, "MPI_Type_set_name");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_set_name");
}

u32 mwh_Type_get_name(rt_instance *inst, u32 dt, u32 name, u32 lenp)
{
	MPI_Datatype d;
	char buf[MPI_MAX_OBJECT_NAME + 1] = "";
	int rc, n = 0;
	TRY(mw_dtype_hget(dt, &d));
	if (!mw_ptr(inst, name, MW_MAX_OBJECT_NAME) || !mw_ptr(inst, lenp, 4))
		TRY(MW_ERR_ARG);
	const char *fixed = NULL;
	if (mw_dtype_predefined(dt) && (d = named_type(dt, &fixed)) == MPI_DATATYPE_NULL) {
		rc = MPI_SUCCESS;
		snprintf(buf, sizeof buf, "%s", fixed ? fixed : "");
	} else if ((rc = MPI_Type_get_name(d, buf, &n)) != MPI_SUCCESS && fixed) {
		rc = MPI_SUCCESS;   /* the host's type of that name is not usable */
		snprintf(buf, sizeof buf, "%s", fixed);
	}
	if (rc == MPI_SUCCESS)
		mw_str_out(inst, name, MW_MAX_OBJECT_NAME, lenp, buf);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Type_get_name");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_get_name");
}

/* ---- error handlers and strings ------------------------------------------------ */

static u32 *eh_fn, *eh_ref;
static uint32_t eh_cap;

/* eh_fn, eh_ref and eh_cap change under mw_lock. */
void mw_errh_retain(uint32_t eh)
{
	mw_lock();
	if (eh >= 4 && eh < eh_cap && eh_fn[eh])
		eh_ref[eh]++;
	mw_unlock();
}

void mw_errh_release(uint32_t eh)
{
	mw_lock();
	if (eh >= 4 && eh < eh_cap && eh_fn[eh] && --eh_ref[eh] == 0) {
		mw_errh_del(eh);
		eh_fn[eh] = 0;
	}
	mw_unlock();
}

u32 mwh_Comm_set_errhandler(rt_instance *inst, u32 comm, u32 eh)
{
	MPI_Comm c;
	MPI_Errhandler e;
	int rc;
	COMM_IN(c, comm);
	if (eh == MW_ERRHANDLER_NULL || mw_errh_get(eh, &e))
		TRY(MW_ERR_ARG);
	mw_comm_set_errh(comm, eh);
	return 0;
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_set_errhandler");
}

u32 mwh_Comm_get_errhandler(rt_instance *inst, u32 comm, u32 ehp)
{
	MPI_Comm c;
	uint32_t *o;
	int rc;
	COMM_IN(c, comm);
	OUT(o, ehp, 4);
	*o = mw_comm_errh(comm);
	mw_errh_retain(*o);   /* a new reference the module frees */
	return 0;
fail:
	return mw_fail(inst, rc, comm, "MPI_Comm_get_errhandler");
}

/* void fn(MPI_Comm *, int *, ...) has a third wasm32 parameter (the
 * varargs pointer); void fn(MPI_Comm *, int *), as common, has not. */
const rt_func *mw_errh_fn(rt_instance *inst, uint32_t fn)
{
	const rt_func *f = rt_table_func(inst, 0, fn, "iii:");
	return f ? f : rt_table_func(inst, 0, fn, "ii:");
}

u32 mwh_Comm_create_errhandler(rt_instance *inst, u32 fn, u32 ehp)
{
	uint32_t *o = mw_ptr(inst, ehp, 4);
	if (!o || !mw_errh_fn(inst, fn))
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Comm_create_errhandler");
	/* The host never sees it: the bridge runs module handlers itself. */
	uint32_t h = mw_errh_new(MPI_ERRORS_RETURN);
	mw_lock();
	if (h >= eh_cap) {
		uint32_t cap = eh_cap ? eh_cap * 2 : 32;
		while (cap <= h)
			cap *= 2;
		u32 *v = realloc(eh_fn, cap * sizeof *v);
		u32 *r = v ? realloc(eh_ref, cap * sizeof *r) : NULL;
		if (!r) {
			if (v)
				eh_fn = v;
			mw_unlock();
			return mw_fail(inst, MW_ERR_NO_MEM, MW_NOCOMM, "MPI_Comm_create_errhandler");
		}
		eh_fn = v;
		eh_ref = r;
		eh_cap = cap;
	}
	eh_fn[h] = fn;
	eh_ref[h] = 1;
	mw_unlock();
	*o = h;
	return 0;
}

int mw_errh_call(rt_instance *inst, uint32_t eh, uint32_t comm, int cls);

int mw_errh_call(rt_instance *inst, uint32_t eh, uint32_t comm, int cls)
{
	mw_lock();
	u32 fn = eh < eh_cap ? eh_fn[eh] : 0;
	mw_unlock();
	if (!fn)
		return -1;
	const rt_func *f = mw_errh_fn(inst, fn);
	uint32_t s = f ? mw_malloc(inst, 8, "error handler") : 0;
	if (!s)
		return -1;
	int32_t *p = mw_ptr(inst, s, 8);
	p[0] = (int32_t)(comm == MW_NOCOMM ? MW_COMM_WORLD : comm);
	p[1] = cls;
	rt_value args[3] = { { .i32 = s }, { .i32 = s + 4 }, { .i32 = 0 } };
	int k = rt_call(inst, f, args, NULL);
	mw_free(inst, s);
	if (k)
		rt_trap_rethrow(inst, k);   /* directly inside a host function */
	return 0;
}

u32 mwh_Errhandler_free(rt_instance *inst, u32 ehp)
{
	uint32_t *o = mw_ptr(inst, ehp, 4);
	MPI_Errhandler e;
	if (!o || mw_errh_get(*o, &e) || *o == MW_ERRHANDLER_NULL)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Errhandler_free");
	mw_errh_release(*o);   /* predefined handlers stay */
	*o = MW_ERRHANDLER_NULL;
	return 0;
}

static const char *class_text(int cls)
{
	switch (cls) {
	case MW_SUCCESS: return "MPI_SUCCESS: no error";
	case MW_ERR_BUFFER: return "MPI_ERR_BUFFER: invalid buffer pointer";
	case MW_ERR_COUNT: return "MPI_ERR_COUNT: invalid count argument";
	case MW_ERR_TYPE: return "MPI_ERR_TYPE: invalid datatype";
	case MW_ERR_TAG: return "MPI_ERR_TAG: invalid tag";
	case MW_ERR_COMM: return "MPI_ERR_COMM: invalid communicator";
	case MW_ERR_RANK: return "MPI_ERR_RANK: invalid rank";
	case MW_ERR_REQUEST: return "MPI_ERR_REQUEST: invalid request";
	case MW_ERR_ROOT: return "MPI_ERR_ROOT: invalid root";
	case MW_ERR_GROUP: return "MPI_ERR_GROUP: invalid group";
	case MW_ERR_OP: return "MPI_ERR_OP: invalid reduction operation";
	case MW_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY: invalid topology";
	case MW_ERR_DIMS: return "MPI_ERR_DIMS: invalid dimension argument";
	case MW_ERR_ARG: return "MPI_ERR_ARG: invalid argument";
	case MW_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE: message truncated";
	case MW_ERR_OTHER: return "MPI_ERR_OTHER: known error not in this list";
	case MW_ERR_INTERN: return "MPI_ERR_INTERN: internal error";
	case MW_ERR_PENDING: return "MPI_ERR_PENDING: pending request";
	case MW_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS: error code is in status";
	case MW_ERR_INFO_KEY: return "MPI_ERR_INFO_KEY: invalid info key";
	case MW_ERR_INFO_NOKEY: return "MPI_ERR_INFO_NOKEY: no such info key";
	case MW_ERR_INFO_VALUE: return "MPI_ERR_INFO_VALUE: invalid info value";
	case MW_ERR_INFO: return "MPI_ERR_INFO: invalid info object";
	case MW_ERR_KEYVAL: return "MPI_ERR_KEYVAL: invalid keyval";
	case MW_ERR_NO_MEM: return "MPI_ERR_NO_MEM: out of memory";
	/* The tool interface's classes: MPICH 4.0 numbers them apart from its
	 * own strings, so these are the bridge's. */
	case MW_T_ERR_MEMORY: return "MPI_T_ERR_MEMORY: out of memory";
	case MW_T_ERR_NOT_INITIALIZED: return "MPI_T_ERR_NOT_INITIALIZED: the tool interface is not initialized";
	case MW_T_ERR_CANNOT_INIT: return "MPI_T_ERR_CANNOT_INIT: the tool interface cannot be initialized";
	case MW_T_ERR_INVALID_INDEX: return "MPI_T_ERR_INVALID_INDEX: index out of range";
	case MW_T_ERR_INVALID_ITEM: return "MPI_T_ERR_INVALID_ITEM: item index out of range";
	case MW_T_ERR_INVALID_HANDLE: return "MPI_T_ERR_INVALID_HANDLE: invalid handle";
	case MW_T_ERR_OUT_OF_HANDLES: return "MPI_T_ERR_OUT_OF_HANDLES: no more handles available";
	case MW_T_ERR_OUT_OF_SESSIONS: return "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions available";
	case MW_T_ERR_INVALID_SESSION: return "MPI_T_ERR_INVALID_SESSION: invalid session";
	case MW_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T_ERR_CVAR_SET_NOT_NOW: the variable cannot be set at this moment";
	case MW_T_ERR_CVAR_SET_NEVER: return "MPI_T_ERR_CVAR_SET_NEVER: the variable cannot be set";
	case MW_T_ERR_PVAR_NO_STARTSTOP: return "MPI_T_ERR_PVAR_NO_STARTSTOP: the variable cannot be started or stopped";
	case MW_T_ERR_PVAR_NO_WRITE: return "MPI_T_ERR_PVAR_NO_WRITE: the variable cannot be written or reset";
	case MW_T_ERR_PVAR_NO_ATOMIC: return "MPI_T_ERR_PVAR_NO_ATOMIC: the variable cannot be read and written atomically";
	case MW_T_ERR_INVALID_NAME: return "MPI_T_ERR_INVALID_NAME: invalid variable or category name";
	case MW_T_ERR_INVALID: return "MPI_T_ERR_INVALID: invalid use of the tool interface";
	default: return "MPI error (see mpi.h for the class)";
	}
}

u32 mwh_Error_class(rt_instance *inst, u32 code, u32 clsp)
{
	int32_t *o = mw_ptr(inst, clsp, 4);
	int32_t cls;
	int h;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Error_class");
	/* Predefined codes are classes (the bridge returns classes); codes
	 * above MPI_ERR_LASTCODE come from MPI_Add_error_code/class. */
	if (mw_code_in((int32_t)code, &h, &cls))
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Error_class");
	*o = cls;
	return 0;
}

u32 mwh_Error_string(rt_instance *inst, u32 code, u32 s, u32 lenp)
{
	int32_t cls;
	int h, rc;
	if (mw_code_in((int32_t)code, &h, &cls))
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Error_string");
	if (h >= 0) {   /* the program's own code: the host keeps its string */
		char buf[MPI_MAX_ERROR_STRING + 1] = "";
		int n = 0;
		if ((rc = MPI_Error_string(h, buf, &n)))
			return mw_ret(inst, rc, MW_NOCOMM, "MPI_Error_string");
		rc = mw_str_out(inst, s, MW_MAX_ERROR_STRING, lenp, buf);
	} else if ((int32_t)code >= MW_SUCCESS && (int32_t)code <= MW_ERR_WIN) {
		/* A class both sides have: the host's words, as a native run */
		char buf[MPI_MAX_ERROR_STRING + 1] = "";
		int n = 0;
		const char *t = MPI_Error_string(mw_class_in((int)code), buf, &n) == MPI_SUCCESS &&
		                buf[0] ? buf : class_text((int)code);
		rc = mw_str_out(inst, s, MW_MAX_ERROR_STRING, lenp, t);
	} else {
		rc = mw_str_out(inst, s, MW_MAX_ERROR_STRING, lenp, class_text((int)code));
	}
	return rc ? mw_fail(inst, rc, MW_NOCOMM, "MPI_Error_string") : 0;
}

/* ---- groups ------------------------------------------------------------------ */

u32 mwh_Group_free(rt_instance *inst, u32 gp)
{
	uint32_t *o = mw_ptr(inst, gp, 4);
	MPI_Group g;
	int rc;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Group_free");
	if ((rc = mw_group_get(*o, &g)) || g == MPI_GROUP_NULL)
		return mw_fail(inst, MW_ERR_GROUP, MW_NOCOMM, "MPI_Group_free");
	if (*o == MW_GROUP_EMPTY) {
		*o = MW_GROUP_NULL;
		return 0;
	}
	rc = MPI_Group_free(&g);
	if (rc == MPI_SUCCESS) {
		mw_group_del(*o);
		*o = MW_GROUP_NULL;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Group_free");
}

static u32 group_range(rt_instance *inst, int excl, u32 group, u32 n, u32 ranges,
                       u32 newp)
{
	const char *proc = excl ? "MPI_Group_range_excl" : "MPI_Group_range_incl";
	MPI_Group g, ng;
	uint32_t *o;
	int rc;
	TRY(mw_group_get(group, &g));
	if ((int)n < 0)
		TRY(MW_ERR_ARG);
	int (*r)[3] = mw_arr(inst, ranges, (uint64_t)n, 12);
	if (!r && n)
		TRY(MW_ERR_ARG);
	OUT(o, newp, 4);
	rc = excl ? MPI_Group_range_excl(g, (int)n, r, &ng)
	          : MPI_Group_range_incl(g, (int)n, r, &ng);
	if (rc == MPI_SUCCESS)
		*o = mw_group_put(ng);
	return mw_ret(inst, rc, MW_NOCOMM, proc);
fail:
	return mw_fail(inst, rc, MW_NOCOMM, proc);
}

u32 mwh_Group_range_incl(rt_instance *inst, u32 g, u32 n, u32 r, u32 o)
{ return group_range(inst, 0, g, n, r, o); }
u32 mwh_Group_range_excl(rt_instance *inst, u32 g, u32 n, u32 r, u32 o)
{ return group_range(inst, 1, g, n, r, o); }

u32 mwh_Group_translate_ranks(rt_instance *inst, u32 g1, u32 n, u32 r1, u32 g2,
                              u32 r2)
{
	MPI_Group a, b;
	mw_snap in = { 0 };
	int rc;
	TRY(mw_group_get(g1, &a));
	TRY(mw_group_get(g2, &b));
	if ((int)n < 0)
		TRY(MW_ERR_ARG);
	/* ranks1 read once, each a rank of group1 or MPI_PROC_NULL (Open MPI
	 * 4.1 reads group1's process table at any rank it is given: a crash
	 * found by fuzz-bridge), in the host's numbering. */
	int *out = mw_arr(inst, r2, n, 4), size = 0;
	if ((rc = mw_snap_in(inst, &in, r1, (int)n)) || (!out && n))
		TRY(rc ? rc : MW_ERR_ARG);
	if (a == MPI_GROUP_NULL || b == MPI_GROUP_NULL)
		TRY(MW_ERR_GROUP);
	MPI_Group_size(a, &size);
	for (u32 i = 0; i < n; i++) {
		in.v[i] = mw_rank_in((uint32_t)in.v[i]);
		if (in.v[i] != MPI_PROC_NULL && (in.v[i] < 0 || in.v[i] >= size))
			TRY(MW_ERR_RANK);
	}
	rc = MPI_Group_translate_ranks(a, (int)n, in.v, b, out);
	mw_snap_free(&in);
	if (rc == MPI_SUCCESS)
		for (u32 i = 0; i < n; i++)
			out[i] = (int)mw_rank_out(out[i]);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Group_translate_ranks");
fail:
	mw_snap_free(&in);
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Group_translate_ranks");
}

/* ---- info ---------------------------------------------------------------------- */

u32 mwh_Info_free(rt_instance *inst, u32 ip)
{
	uint32_t *o = mw_ptr(inst, ip, 4);
	MPI_Info i;
	if (!o || *o < 2 || mw_info_get(*o, &i))
		return mw_fail(inst, MW_ERR_INFO, MW_NOCOMM, "MPI_Info_free");
	int rc = MPI_Info_free(&i);
	if (rc == MPI_SUCCESS) {
		mw_info_del(*o);
		*o = MW_INFO_NULL;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Info_free");
}

u32 mwh_Info_get(rt_instance *inst, u32 info, u32 key, u32 vlen, u32 value, u32 flag)
{
	MPI_Info i;
	int rc, *f;
	TRY(mw_info_get(info, &i));
	const char *k = mw_str(inst, key);
	if (!k || (int)vlen < 0)
		TRY(MW_ERR_ARG);
	OUT(f, flag, 4);
	/* No value is longer than MPI_MAX_INFO_VAL: a larger valuelen asks for
	 * nothing more, and MPICH 4.0 fills the whole buffer it is given (1.4 GB
	 * for valuelen 0x55555556: seconds, a fuzz-bridge hang). */
	u32 hl = vlen > MPI_MAX_INFO_VAL ? MPI_MAX_INFO_VAL : vlen;
	char *buf = malloc(hl + 1);
	if (!buf)
		TRY(MW_ERR_NO_MEM);
	rc = MPI_Info_get(i, k, (int)hl, buf, f);
	buf[hl] = 0;   /* Open MPI left it unterminated for valuelen 0 (found by fuzz-bridge) */
	if (rc == MPI_SUCCESS && *f)
		rc = mw_str_out(inst, value, hl + 1, 0, buf) ? MPI_ERR_ARG : MPI_SUCCESS;
	free(buf);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Info_get");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Info_get");
}

u32 mwh_Info_get_nthkey(rt_instance *inst, u32 info, u32 n, u32 key)
{
	MPI_Info i;
	char buf[MPI_MAX_INFO_KEY + 1];
	int rc;
	TRY(mw_info_get(info, &i));
	if (!mw_ptr(inst, key, MW_MAX_INFO_KEY + 1))
		TRY(MW_ERR_ARG);
	rc = MPI_Info_get_nthkey(i, (int)n, buf);
	if (rc == MPI_SUCCESS)
		mw_str_out(inst, key, MW_MAX_INFO_KEY + 1, 0, buf);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Info_get_nthkey");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Info_get_nthkey");
}

/* ---- datatypes -------------------------------------------------------------------- */

static u32 type_out(rt_instance *inst, int rc, const MPI_Datatype *nt, uint32_t *o,
                    const char *proc)
{
	if (rc == MPI_SUCCESS)
		*o = mw_dtype_put(*nt);
	return mw_ret(inst, rc, MW_NOCOMM, proc);
}

/* Widens n module MPI_Aint (4 bytes) into a host array. */
static MPI_Aint *aints(rt_instance *inst, u32 a, int n, int *rc)
{
	int32_t *m = mw_arr(inst, a, n < 0 ? 0 : (uint64_t)n, 4);
	if (!m && n > 0) {   /* checked before allocating n of them */
		*rc = MW_ERR_ARG;
		return NULL;
	}
	MPI_Aint *h = malloc(((size_t)(n < 0 ? 0 : n) + 1) * sizeof *h);
	if (!h) {
		*rc = MW_ERR_NO_MEM;
		return NULL;
	}
	for (int i = 0; i < n; i++)
		h[i] = m[i];
	return h;
}

u32 mwh_Type_create_hvector(rt_instance *inst, u32 count, u32 bl, u32 stride,
                            u32 old, u32 newp)
{
	MPI_Datatype o, nt;
	uint32_t *p;
	int rc;
	TRY(mw_dtype_hget(old, &o));
	OUT(p, newp, 4);
	return type_out(inst, MPI_Type_create_hvector((int)count, (int)bl,
	                (MPI_Aint)(int32_t)stride, o, &nt), &nt, p, "MPI_Type_create_hvector");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_create_hvector");
}

u32 mwh_Type_create_hindexed(rt_instance *inst, u32 count, u32 bls, u32 displs,
                             u32 old, u32 newp)
{
	MPI_Datatype o, nt;
	MPI_Aint *d = NULL;
	uint32_t *p;
	int rc, *b;
	TRY(mw_dtype_hget(old, &o));
	OUT(p, newp, 4);
	b = mw_arr(inst, bls, (int)count < 0 ? 0 : count, 4);
	if (!b && (int)count > 0)
		TRY(MW_ERR_ARG);
	if (!(d = aints(inst, displs, (int)count, &rc)))
		goto fail;
	rc = MPI_Type_create_hindexed((int)count, b, d, o, &nt);
	free(d);
	return type_out(inst, rc, &nt, p, "MPI_Type_create_hindexed");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_create_hindexed");
}

u32 mwh_Type_create_hindexed_block(rt_instance *inst, u32 count, u32 bl,
                                   u32 displs, u32 old, u32 newp)
{
	MPI_Datatype o, nt;
	MPI_Aint *d;
	uint32_t *p;
	int rc;
	TRY(mw_dtype_hget(old, &o));
	OUT(p, newp, 4);
	if (!(d = aints(inst, displs, (int)count, &rc)))
		goto fail;
	rc = MPI_Type_create_hindexed_block((int)count, (int)bl, d, o, &nt);
	free(d);
	return type_out(inst, rc, &nt, p, "MPI_Type_create_hindexed_block");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_create_hindexed_block");
}

u32 mwh_Type_create_struct(rt_instance *inst, u32 count, u32 bls, u32 displs,
                           u32 types, u32 newp)
{
	MPI_Datatype nt, *t = NULL;
	MPI_Aint *d = NULL;
	uint32_t *p;
	int rc, *b, n = (int)count;
	int32_t *mt;
	OUT(p, newp, 4);
	b = mw_arr(inst, bls, n < 0 ? 0 : (uint64_t)n, 4);
	mt = mw_arr(inst, types, n < 0 ? 0 : (uint64_t)n, 4);
	if ((!b || !mt) && n > 0)
		TRY(MW_ERR_ARG);
	if (!(d = aints(inst, displs, n, &rc)))
		goto fail;
	t = malloc(((size_t)(n < 0 ? 0 : n) + 1) * sizeof *t);
	if (!t) {
		free(d);
		TRY(MW_ERR_NO_MEM);
	}
	for (int i = 0; i < n; i++)
		if ((rc = mw_dtype_hget((u32)mt[i], &t[i]))) {
			free(d);
			free(t);
			goto fail;
		}
	rc = MPI_Type_create_struct(n, b, d, t, &nt);
	free(d);
	free(t);
	return type_out(inst, rc, &nt, p, "MPI_Type_create_struct");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_create_struct");
}

u32 mwh_Type_create_resized(rt_instance *inst, u32 old, u32 lb, u32 ext, u32 newp)
{
	MPI_Datatype o, nt;
	uint32_t *p;
	int rc;
	TRY(mw_dtype_hget(old, &o));
	OUT(p, newp, 4);
	return type_out(inst, MPI_Type_create_resized(o, (MPI_Aint)(int32_t)lb,
	                (MPI_Aint)(int32_t)ext, &nt), &nt, p, "MPI_Type_create_resized");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_create_resized");
}

static u32 arrays_type(rt_instance *inst, int darray, u32 a0, u32 a1, u32 a2,
                       u32 a3, u32 a4, u32 a5, u32 a6, u32 a7, u32 a8, u32 a9)
{
	const char *proc = darray ? "MPI_Type_create_darray" : "MPI_Type_create_subarray";
	MPI_Datatype o, nt;
	uint32_t *p;
	int rc;
	if (!darray) {
		/* (ndims, sizes, subsizes, starts, order, old, new) */
		int n = (int)a0;
		int *s = mw_arr(inst, a1, n < 0 ? 0 : (uint64_t)n, 4);
		int *ss = mw_arr(inst, a2, n < 0 ? 0 : (uint64_t)n, 4);
		int *st = mw_arr(inst, a3, n < 0 ? 0 : (uint64_t)n, 4);
		if ((!s || !ss || !st) && n > 0)
			TRY(MW_ERR_ARG);
		TRY(mw_dtype_hget(a5, &o));
		OUT(p, a6, 4);
		int order = (int)a4 == MW_ORDER_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
		rc = MPI_Type_create_subarray(n, s, ss, st, order, o, &nt);
	} else {
		/* (size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, new) */
		int n = (int)a2;
		int *gs = mw_arr(inst, a3, n < 0 ? 0 : (uint64_t)n, 4);
		int *di = mw_arr(inst, a4, n < 0 ? 0 : (uint64_t)n, 4);
		int *da = mw_arr(inst, a5, n < 0 ? 0 : (uint64_t)n, 4);
		int *ps = mw_arr(inst, a6, n < 0 ? 0 : (uint64_t)n, 4);
		if ((!gs || !di || !da || !ps) && n > 0)
			TRY(MW_ERR_ARG);
		TRY(mw_dtype_hget(a8, &o));
		OUT(p, a9, 4);
		int hdi[64], hda[64];
		if (n > 64)
			TRY(MW_ERR_DIMS);
		/* The process grid: positive sizes whose product is size, rank in
		 * it (MPICH 4.0 divides by a zero psize: SIGFPE, found by
		 * fuzz-bridge). */
		int64_t procs = 1;
		for (int i = 0; i < n; i++) {
			if (gs[i] <= 0 || ps[i] <= 0)
				return mw_fail_arg(inst, MW_ERR_ARG, MW_NOCOMM, proc, "argument %s[%d] = %d "
				                   "is not positive", gs[i] <= 0 ? "array_of_gsizes" :
				                   "array_of_psizes", i, gs[i] <= 0 ? gs[i] : ps[i]);
			procs = procs * ps[i] > INT_MAX ? (int64_t)INT_MAX + 1 : procs * ps[i];
		}
		if (procs != (int32_t)a0 || (int32_t)a1 < 0 || (int32_t)a1 >= (int32_t)a0)
			return mw_fail_arg(inst, MW_ERR_ARG, MW_NOCOMM, proc, "arguments size = %d, "
			                   "rank = %d: not a rank of the %lld processes of "
			                   "array_of_psizes", (int)a0, (int)a1, (long long)procs);
		for (int i = 0; i < n; i++) {
			hdi[i] = di[i] == MW_DISTRIBUTE_BLOCK ? MPI_DISTRIBUTE_BLOCK
			       : di[i] == MW_DISTRIBUTE_CYCLIC ? MPI_DISTRIBUTE_CYCLIC
			       : MPI_DISTRIBUTE_NONE;
			hda[i] = da[i] == MW_DISTRIBUTE_DFLT_DARG ? MPI_DISTRIBUTE_DFLT_DARG : da[i];
		}
		int order = (int)a7 == MW_ORDER_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
		rc = MPI_Type_create_darray((int)a0, (int)a1, n, gs, hdi, hda, ps, order, o, &nt);
	}
	return type_out(inst, rc, &nt, p, proc);
fail:
	return mw_fail(inst, rc, MW_NOCOMM, proc);
}

u32 mwh_Type_create_subarray(rt_instance *inst, u32 n, u32 s, u32 ss, u32 st,
                             u32 order, u32 old, u32 newp)
{ return arrays_type(inst, 0, n, s, ss, st, order, old, newp, 0, 0, 0); }
u32 mwh_Type_create_darray(rt_instance *inst, u32 size, u32 rank, u32 n, u32 gs,
                           u32 di, u32 da, u32 ps, u32 order, u32 old, u32 newp)
{ return arrays_type(inst, 1, size, rank, n, gs, di, da, ps, order, old, newp); }

u32 mwh_Type_commit(rt_instance *inst, u32 tp)
{
	uint32_t *o = mw_ptr(inst, tp, 4);
	MPI_Datatype d;
	int rc;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Type_commit");
	if ((rc = mw_dtype_hget(*o, &d)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Type_commit");
	rc = MPI_Type_commit(&d);
	if (rc == MPI_SUCCESS)
		mw_dtype_refresh(*o);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Type_commit");
}

u32 mwh_Type_free(rt_instance *inst, u32 tp)
{
	uint32_t *o = mw_ptr(inst, tp, 4);
	MPI_Datatype d;
	int rc;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Type_free");
	if (*o < 128 || (rc = mw_dtype_hget(*o, &d)))
		return mw_fail(inst, MW_ERR_TYPE, MW_NOCOMM, "MPI_Type_free");
	rc = MPI_Type_free(&d);
	if (rc == MPI_SUCCESS) {
		mw_dtype_del(*o);
		*o = (uint32_t)MW_DATATYPE_NULL;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Type_free");
}

static u32 extent(rt_instance *inst, int truex, u32 dt, u32 lbp, u32 extp)
{
	const char *proc = truex ? "MPI_Type_get_true_extent" : "MPI_Type_get_extent";
	mw_dtype *d;
	int32_t *lb, *ex;
	int rc;
	TRY(mw_dtype_get(dt, &d));
	OUT(lb, lbp, 4);
	OUT(ex, extp, 4);
	/* Layouts are the module's: predefined types map to same-size host types. */
	*lb = (int32_t)(truex ? d->tlb : d->lb);
	*ex = (int32_t)(truex ? d->textent : d->extent);
	return 0;
fail:
	return mw_fail(inst, rc, MW_NOCOMM, proc);
}

u32 mwh_Type_get_extent(rt_instance *inst, u32 dt, u32 lb, u32 ext)
{ return extent(inst, 0, dt, lb, ext); }
u32 mwh_Type_get_true_extent(rt_instance *inst, u32 dt, u32 lb, u32 ext)
{ return extent(inst, 1, dt, lb, ext); }

u32 mwh_Get_address(rt_instance *inst, u32 loc, u32 addrp)
{
	int32_t *o = mw_ptr(inst, addrp, 4);
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Get_address");
	*o = (int32_t)loc;   /* addresses are module addresses (MPI_BOTTOM = 0) */
	return 0;
}

u32 mwh_Aint_add(rt_instance *inst, u32 base, u32 disp)
{
	return base + disp;
}

u32 mwh_Aint_diff(rt_instance *inst, u32 a, u32 b)
{
	return a - b;
}

/* ---- packing --------------------------------------------------------------------- */

u32 mwh_Pack(rt_instance *inst, u32 inbuf, u32 count, u32 dt, u32 outbuf,
             u32 outsize, u32 posp, u32 comm)
{
	MPI_Comm c;
	mw_dtype *d;
	void *ip, *op;
	int32_t *pp, pos;
	int rc;
	u32 ret;
	TRY(mw_comm_get(comm, &c));
	TRY(mw_dtype_get(dt, &d));
	TRY(mw_buf(inst, inbuf, (int)count, d, &ip));
	op = mw_ptr(inst, outbuf, outsize);
	if ((int32_t)outsize < 0 || (!op && outsize))
		TRY(MW_ERR_BUFFER);
	if (mw_pos_check(inst, posp, (int32_t)outsize, (int64_t)(int32_t)count * d->size,
	                 &pp, &pos, comm, "MPI_Pack", &ret))
		return ret;
	rc = MPI_Pack(ip, (int)count, d->h, op, (int)outsize, &pos, c);
	if (rc == MPI_SUCCESS)
		*pp = pos;
	return mw_ret(inst, rc, comm, "MPI_Pack");
fail:
	return mw_fail(inst, rc, comm, "MPI_Pack");
}

u32 mwh_Unpack(rt_instance *inst, u32 inbuf, u32 insize, u32 posp, u32 outbuf,
               u32 count, u32 dt, u32 comm)
{
	MPI_Comm c;
	mw_dtype *d;
	void *ip, *op;
	int32_t *pp, pos;
	int rc;
	u32 ret;
	TRY(mw_comm_get(comm, &c));
	TRY(mw_dtype_get(dt, &d));
	ip = mw_ptr(inst, inbuf, insize);
	if ((int32_t)insize < 0 || (!ip && insize))
		TRY(MW_ERR_BUFFER);
	TRY(mw_buf(inst, outbuf, (int)count, d, &op));
	/* count elements' packed bytes must follow position: MPICH 4.0 asserts
	 * (ends the process) unpacking a partial element. */
	if (mw_pos_check(inst, posp, (int32_t)insize, (int64_t)(int32_t)count * d->size, &pp, &pos,
	                 comm, "MPI_Unpack", &ret))
		return ret;
	rc = MPI_Unpack(ip, (int)insize, &pos, op, (int)count, d->h, c);
	if (rc == MPI_SUCCESS)
		*pp = pos;
	return mw_ret(inst, rc, comm, "MPI_Unpack");
fail:
	return mw_fail(inst, rc, comm, "MPI_Unpack");
}

u32 mwh_Pack_size(rt_instance *inst, u32 count, u32 dt, u32 comm, u32 sizep)
{
	MPI_Comm c;
	MPI_Datatype d;
	int rc, *s;
	TRY(mw_comm_live(comm, &c));
	TRY(mw_dtype_cget(dt, &d));
	OUT(s, sizep, 4);
	return mw_ret(inst, MPI_Pack_size((int)count, d, c, s), comm, "MPI_Pack_size");
fail:
	return mw_fail(inst, rc, comm, "MPI_Pack_size");
}
