/* hand_err.c - error handling (MPI-3.1 chapter 8.3-8.5): user error
 * handlers (they live in the module and are called through the bridge),
 * MPI_Comm_call_errhandler, error strings and classes, and user-defined
 * error classes and codes with their module numbering.  Typed
 * (src/mpi/gen/family-err.txt: the entries in glue.c check and convert the
 * arguments): all but MPI_Comm_create_errhandler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;

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

u32 mwh_Comm_set_errhandler(const mw_call *k, MPI_Comm c, uint32_t eh)
{
	(void)c;
	if (eh == MW_ERRHANDLER_NULL)
		return mw_call_fail(k, MW_ERR_ARG);
	mw_comm_set_errh(k->obj, eh);
	return 0;
}

u32 mwh_Comm_get_errhandler(const mw_call *k, MPI_Comm c, uint32_t *o)
{
	(void)c;
	*o = mw_comm_errh(k->obj);
	mw_errh_retain(*o);   /* a new reference the module frees */
	return 0;
}

/* void fn(MPI_Comm *, int *, ...) has a third wasm32 parameter (the
 * varargs pointer); void fn(MPI_Comm *, int *), as common, has not. */
const rt_func *mw_errh_fn(rt_instance *inst, uint32_t fn)
{
	const rt_func *f = rt_table_func(inst, 0, fn, "iii:");
	return f ? f : rt_table_func(inst, 0, fn, "ii:");
}

/* A new module error handler of function fn, into *o (the entry checked
 * the slot): the communicators', windows' and files' (their functions
 * have one wasm type, and the bridge runs them all the same way);
 * failures go to k's object. */
u32 mw_errh_create(const mw_call *k, uint32_t fn, uint32_t *o)
{
	if (!mw_errh_fn(k->inst, fn))
		return mw_call_fail(k, MW_ERR_ARG);
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
			return mw_call_fail(k, MW_ERR_NO_MEM);
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

/* The entry checked the out slot (MW_ERR_ARG first, as written by hand). */
u32 mwh_Comm_create_errhandler(const mw_call *k, uint32_t fn, uint32_t *o)
{
	return mw_errh_create(k, fn, o);
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

u32 mwh_Errhandler_free(const mw_call *k, mw_errh_io *e)
{
	if (e->mod == MW_ERRHANDLER_NULL)
		return mw_call_fail(k, MW_ERR_ARG);
	mw_errh_release(e->mod);   /* predefined handlers stay */
	*e->slot = MW_ERRHANDLER_NULL;
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

u32 mwh_Error_class(const mw_call *k, int code, int32_t *o)
{
	int32_t cls;
	int h;
	/* Predefined codes are classes (the bridge returns classes); codes
	 * above MPI_ERR_LASTCODE come from MPI_Add_error_code/class. */
	if (mw_code_in(code, &h, &cls))
		return mw_call_fail(k, MW_ERR_ARG);
	*o = cls;
	return 0;
}

/* A bad string buffer is MPI_ERR_BUFFER, found when the string is
 * written (class sink). */
u32 mwh_Error_string(const mw_call *k, int errorcode, const mw_sink *string, u32 resultlen)
{
	int32_t cls;
	int h, rc;
	if (mw_code_in(errorcode, &h, &cls))
		return mw_call_fail(k, MW_ERR_ARG);
	if (h >= 0) {   /* the program's own code: the host keeps its string */
		char buf[MPI_MAX_ERROR_STRING + 1] = "";
		int n = 0;
		if ((rc = MPI_Error_string(h, buf, &n)))
			return mw_call_ret(k, rc);
		rc = mw_str_out(k->inst, string->addr, string->cap, resultlen, buf);
	} else if (errorcode >= MW_SUCCESS && errorcode <= MW_ERR_WIN) {
		/* A class both sides have: the host's words, as a native run */
		char buf[MPI_MAX_ERROR_STRING + 1] = "";
		int n = 0;
		const char *t = MPI_Error_string(mw_class_in(errorcode), buf, &n) == MPI_SUCCESS &&
		                buf[0] ? buf : class_text(errorcode);
		rc = mw_str_out(k->inst, string->addr, string->cap, resultlen, t);
	} else {
		rc = mw_str_out(k->inst, string->addr, string->cap, resultlen, class_text(errorcode));
	}
	return rc ? mw_call_fail(k, rc) : 0;
}

/* ---- error handlers called by the program ------------------------------------ */

u32 mwh_Comm_call_errhandler(const mw_call *k, MPI_Comm c, int code)
{
	(void)c;
	mw_call_errh(k->inst, code, k->obj, k->proc);
	return 0;
}

/* ---- user error classes and codes ---------------------------------------------
 * Module codes above MPI_ERR_LASTCODE (127) are the program's own; each
 * maps to the host's code, and remembers its module class. */

static struct { int host; int32_t cls; } *ucode;
static uint32_t n_ucode, ucode_cap;

/* The number of user codes (MPI_LASTUSEDCODE's attribute, hand_attr.c). */
uint32_t mw_ucode_count(void)
{
	return n_ucode;
}

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

u32 mwh_Add_error_class(const mw_call *k, int32_t *o)
{
	int h;
	int rc = MPI_Add_error_class(&h);
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	int32_t m = ucode_add(h, -1);
	if (m < 0)
		return mw_call_fail(k, MW_ERR_NO_MEM);
	*o = m;
	return 0;
}

u32 mwh_Add_error_code(const mw_call *k, int cls, int32_t *o)
{
	int hcls, h;
	int32_t mcls;
	if (mw_code_in(cls, &hcls, &mcls) || mcls != cls)
		return mw_call_fail(k, MW_ERR_ARG);
	if (hcls < 0)   /* a predefined class: the host's number for it */
		hcls = mw_class_in(cls);
	int rc = MPI_Add_error_code(hcls, &h);
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	int32_t m = ucode_add(h, mcls);
	if (m < 0)
		return mw_call_fail(k, MW_ERR_NO_MEM);
	*o = m;
	return 0;
}

u32 mwh_Add_error_string(const mw_call *k, int code, const char *str)
{
	int h;
	int32_t cls;
	if (mw_code_in(code, &h, &cls) || h < 0)
		return mw_call_fail(k, MW_ERR_ARG);
	return mw_call_ret(k, MPI_Add_error_string(h, str));
}
