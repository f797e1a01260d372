/* hand_t.c - the MPI tool information interface (MPI_T_*, MPI-3.1 ch. 14).
 *
 * The variables are the host library's own (Open MPI and MPICH expose
 * different ones); the bridge translates everything else:
 * - Handles (enumeration types, control-variable handles, performance-
 *   variable sessions and handles) are module i32s, 0 the null handle,
 *   -1 MPI_T_PVAR_ALL_HANDLES.  Each record is allocated on its own: the
 *   host may keep the address of the bound object passed at allocation.
 * - Constants (verbosity, binding, scope, pvar class, thread level) and
 *   the MPI_T_ERR_* classes differ between the hosts: mapped both ways.
 * - A variable's datatype is given as the module datatype of the same
 *   representation (the host's 8-byte unsigned long is the module's
 *   MPI_UNSIGNED_LONG_LONG), so count x size of the module type is the
 *   number of bytes the host reads or writes, and buffers are checked for
 *   exactly that.  Values are zero-copy, except strings (MPI_CHAR), read
 *   through a host buffer because a host may copy a whole string whatever
 *   the count.
 * - Indices are checked against the host's current count before the host
 *   sees them (a negative one crashes Open MPI 4.1's pvar_get_info, an
 *   index equal to the count crashes MPICH 4.0's when it has no pvars; Open
 *   MPI answers MPI_T_ERR_INVALID for an unknown cvar index): a bad index is
 *   MPI_T_ERR_INVALID_INDEX, a bad enumeration item MPI_T_ERR_INVALID_ITEM.
 *
 * Errors: as the Standard says, MPI_T errors are return codes and invoke
 * no error handler.  An argument that reaches outside linear memory is a
 * sandbox violation, not an MPI_T condition: it goes the bridge's usual
 * way (MPI_COMM_WORLD's handler, fatal by default, naming the procedure).
 *
 * What a module may see and set (unless the engine runs with
 * --mpi-t-unrestricted): the host's variables are the host's, and many
 * name host files (mca_base_param_files, orte_top_session_dir), the
 * launcher's addresses and ports (orte_hnp_uri) or, written, change what
 * the library loads, reads, writes or connects to.  So:
 * - a control variable is written only if it is on the allow-list
 *   (cvar_open): a number (never a string: strings are where paths go)
 *   that selects or tunes a collective algorithm, i.e. only chooses among
 *   the library's own ways of moving this job's data: Open MPI's
 *   coll_tuned_* and coll_libnbc_* names containing "_algorithm" and
 *   coll_tuned_use_dynamic_rules (the switch that makes the forced
 *   algorithms count), MPICH's MPIR_CVAR_*_ALGORITHM.  Any other write
 *   is MPI_T_ERR_CVAR_SET_NEVER, with one line naming the variable.
 * - the value of a string variable (control or performance) reads as the
 *   empty string: the whole value withheld rather than guessed clean.
 * Names, descriptions and numeric values stay visible, so indices and
 * counts are the host's and tools that list variables keep working.
 *
 * MPI_T needs no MPI_Init (MPI_T_init_thread may come first, and MPI_T
 * outlives MPI_Finalize): nothing here uses the bridge's MPI tables except
 * to bind a variable to an MPI object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "coll/coll.h"

typedef uint32_t u32;

/* Window and file handles live in hand_rma.c and hand_io.c. */

/* ---- constants, module <-> host ------------------------------------------- */

typedef struct { int h, m; } t_pair;
#define N(a) (sizeof (a) / sizeof (a)[0])

static const t_pair t_errs[] = {
	{ MPI_SUCCESS, MW_SUCCESS },
	{ MPI_T_ERR_MEMORY, MW_T_ERR_MEMORY },
	{ MPI_T_ERR_NOT_INITIALIZED, MW_T_ERR_NOT_INITIALIZED },
	{ MPI_T_ERR_CANNOT_INIT, MW_T_ERR_CANNOT_INIT },
	{ MPI_T_ERR_INVALID_INDEX, MW_T_ERR_INVALID_INDEX },
	{ MPI_T_ERR_INVALID_ITEM, MW_T_ERR_INVALID_ITEM },
	{ MPI_T_ERR_INVALID_HANDLE, MW_T_ERR_INVALID_HANDLE },
	{ MPI_T_ERR_OUT_OF_HANDLES, MW_T_ERR_OUT_OF_HANDLES },
	{ MPI_T_ERR_OUT_OF_SESSIONS, MW_T_ERR_OUT_OF_SESSIONS },
	{ MPI_T_ERR_INVALID_SESSION, MW_T_ERR_INVALID_SESSION },
	{ MPI_T_ERR_CVAR_SET_NOT_NOW, MW_T_ERR_CVAR_SET_NOT_NOW },
	{ MPI_T_ERR_CVAR_SET_NEVER, MW_T_ERR_CVAR_SET_NEVER },
	{ MPI_T_ERR_PVAR_NO_STARTSTOP, MW_T_ERR_PVAR_NO_STARTSTOP },
	{ MPI_T_ERR_PVAR_NO_WRITE, MW_T_ERR_PVAR_NO_WRITE },
	{ MPI_T_ERR_PVAR_NO_ATOMIC, MW_T_ERR_PVAR_NO_ATOMIC },
	{ MPI_T_ERR_INVALID_NAME, MW_T_ERR_INVALID_NAME },
	{ MPI_T_ERR_INVALID, MW_T_ERR_INVALID },
	/* classes of the rest of MPI that the hosts return from MPI_T */
	{ MPI_ERR_ARG, MW_ERR_ARG }, { MPI_ERR_OTHER, MW_ERR_OTHER },
	{ MPI_ERR_INTERN, MW_ERR_INTERN }, { MPI_ERR_NO_MEM, MW_ERR_NO_MEM },
	{ MPI_ERR_UNKNOWN, MW_ERR_UNKNOWN },
};

static const t_pair t_verbs[] = {
	{ MPI_T_VERBOSITY_USER_BASIC, MW_T_VERBOSITY_USER_BASIC },
	{ MPI_T_VERBOSITY_USER_DETAIL, MW_T_VERBOSITY_USER_DETAIL },
	{ MPI_T_VERBOSITY_USER_ALL, MW_T_VERBOSITY_USER_ALL },
	{ MPI_T_VERBOSITY_TUNER_BASIC, MW_T_VERBOSITY_TUNER_BASIC },
	{ MPI_T_VERBOSITY_TUNER_DETAIL, MW_T_VERBOSITY_TUNER_DETAIL },
	{ MPI_T_VERBOSITY_TUNER_ALL, MW_T_VERBOSITY_TUNER_ALL },
	{ MPI_T_VERBOSITY_MPIDEV_BASIC, MW_T_VERBOSITY_MPIDEV_BASIC },
	{ MPI_T_VERBOSITY_MPIDEV_DETAIL, MW_T_VERBOSITY_MPIDEV_DETAIL },
	{ MPI_T_VERBOSITY_MPIDEV_ALL, MW_T_VERBOSITY_MPIDEV_ALL },
};

static const t_pair t_binds[] = {
	{ MPI_T_BIND_NO_OBJECT, MW_T_BIND_NO_OBJECT },
	{ MPI_T_BIND_MPI_COMM, MW_T_BIND_MPI_COMM },
	{ MPI_T_BIND_MPI_DATATYPE, MW_T_BIND_MPI_DATATYPE },
	{ MPI_T_BIND_MPI_ERRHANDLER, MW_T_BIND_MPI_ERRHANDLER },
	{ MPI_T_BIND_MPI_FILE, MW_T_BIND_MPI_FILE },
	{ MPI_T_BIND_MPI_GROUP, MW_T_BIND_MPI_GROUP },
	{ MPI_T_BIND_MPI_OP, MW_T_BIND_MPI_OP },
	{ MPI_T_BIND_MPI_REQUEST, MW_T_BIND_MPI_REQUEST },
	{ MPI_T_BIND_MPI_WIN, MW_T_BIND_MPI_WIN },
	{ MPI_T_BIND_MPI_MESSAGE, MW_T_BIND_MPI_MESSAGE },
	{ MPI_T_BIND_MPI_INFO, MW_T_BIND_MPI_INFO },
};

static const t_pair t_scopes[] = {
	{ MPI_T_SCOPE_CONSTANT, MW_T_SCOPE_CONSTANT },
	{ MPI_T_SCOPE_READONLY, MW_T_SCOPE_READONLY },
	{ MPI_T_SCOPE_LOCAL, MW_T_SCOPE_LOCAL },
	{ MPI_T_SCOPE_GROUP, MW_T_SCOPE_GROUP },
	{ MPI_T_SCOPE_GROUP_EQ, MW_T_SCOPE_GROUP_EQ },
	{ MPI_T_SCOPE_ALL, MW_T_SCOPE_ALL },
	{ MPI_T_SCOPE_ALL_EQ, MW_T_SCOPE_ALL_EQ },
};

static const t_pair t_classes[] = {
	{ MPI_T_PVAR_CLASS_STATE, MW_T_PVAR_CLASS_STATE },
	{ MPI_T_PVAR_CLASS_LEVEL, MW_T_PVAR_CLASS_LEVEL },
	{ MPI_T_PVAR_CLASS_SIZE, MW_T_PVAR_CLASS_SIZE },
	{ MPI_T_PVAR_CLASS_PERCENTAGE, MW_T_PVAR_CLASS_PERCENTAGE },
	{ MPI_T_PVAR_CLASS_HIGHWATERMARK, MW_T_PVAR_CLASS_HIGHWATERMARK },
	{ MPI_T_PVAR_CLASS_LOWWATERMARK, MW_T_PVAR_CLASS_LOWWATERMARK },
	{ MPI_T_PVAR_CLASS_COUNTER, MW_T_PVAR_CLASS_COUNTER },
	{ MPI_T_PVAR_CLASS_AGGREGATE, MW_T_PVAR_CLASS_AGGREGATE },
	{ MPI_T_PVAR_CLASS_TIMER, MW_T_PVAR_CLASS_TIMER },
	{ MPI_T_PVAR_CLASS_GENERIC, MW_T_PVAR_CLASS_GENERIC },
};

static const t_pair t_threads[] = {
	{ MPI_THREAD_SINGLE, MW_THREAD_SINGLE },
	{ MPI_THREAD_FUNNELED, MW_THREAD_FUNNELED },
	{ MPI_THREAD_SERIALIZED, MW_THREAD_SERIALIZED },
	{ MPI_THREAD_MULTIPLE, MW_THREAD_MULTIPLE },
};

/* v through table p, host -> module (out = 1) or back: 0 if absent. */
static int t_map(const t_pair *p, size_t n, int out, int v, int *r)
{
	for (size_t i = 0; i < n; i++)
		if ((out ? p[i].h : p[i].m) == v) {
			*r = out ? p[i].m : p[i].h;
			return 1;
		}
	return 0;
}

/* A host return code as the module's (no error handler runs). */
static u32 t_ret(int rc)
{
	int m;
	if (t_map(t_errs, N(t_errs), 1, rc, &m))
		return (u32)m;
	/* MPI_Error_class is no MPI_T procedure: only while MPI is up. */
	return (u32)(mw_is_active ? mw_code_out(rc) : MW_ERR_UNKNOWN);
}

static int is_t_err(int cls)
{
	return cls >= MW_T_ERR_MEMORY && cls <= MW_T_ERR_INVALID;
}

/* An error the bridge found: MPI_T's own classes are returned as they are,
 * a pointer outside linear memory takes the bridge's error path. */
static u32 t_fail(rt_instance *inst, int cls, const char *proc)
{
	if (is_t_err(cls))
		return (u32)cls;
	return mw_fail(inst, cls, MW_NOCOMM, proc);
}

/* ---- datatypes ---------------------------------------------------------------
 * The types MPI_T variables use (MPI-3.1 14.3.5 lists MPI_INT, MPI_UNSIGNED,
 * MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_COUNT, MPI_CHAR, MPI_DOUBLE;
 * Open MPI adds MPI_C_BOOL), each as the module type of its size. */

typedef struct { MPI_Datatype h; int32_t m; int size; } t_type;

_Static_assert(sizeof(MPI_Count) == 8 && sizeof(int) == 4 && sizeof(double) == 8,
               "hand_t.c: the module types below assume these host sizes");

static const t_type *t_type_of(MPI_Datatype d)
{
	static t_type map[24];
	static int n;
	if (!n) {
		const int ul8 = sizeof(unsigned long) == 8, l8 = sizeof(long) == 8;
		const t_type m[] = {
			{ MPI_INT, MW_INT, 4 }, { MPI_UNSIGNED, MW_UNSIGNED, 4 },
			{ MPI_COUNT, MW_COUNT, 8 },
			{ MPI_UNSIGNED_LONG, ul8 ? MW_UNSIGNED_LONG_LONG : MW_UNSIGNED_LONG,
			  (int)sizeof(unsigned long) },
			{ MPI_UNSIGNED_LONG_LONG, MW_UNSIGNED_LONG_LONG, 8 },
			{ MPI_LONG, l8 ? MW_LONG_LONG : MW_LONG, (int)sizeof(long) },
			{ MPI_LONG_LONG, MW_LONG_LONG, 8 },
			{ MPI_CHAR, MW_CHAR, 1 }, { MPI_DOUBLE, MW_DOUBLE, 8 },
			{ MPI_FLOAT, MW_FLOAT, 4 }, { MPI_C_BOOL, MW_C_BOOL, (int)sizeof(_Bool) },
			{ MPI_INT32_T, MW_INT32_T, 4 }, { MPI_UINT32_T, MW_UINT32_T, 4 },
			{ MPI_INT64_T, MW_INT64_T, 8 }, { MPI_UINT64_T, MW_UINT64_T, 8 },
			/* the module's MPI_AINT is 4 bytes */
			{ MPI_AINT, sizeof(MPI_Aint) == 8 ? MW_INT64_T : MW_AINT,
			  (int)sizeof(MPI_Aint) },
			{ MPI_OFFSET, MW_OFFSET, 8 },
		};
		for (size_t i = 0; i < N(m); i++)
			map[n++] = m[i];
	}
	for (int i = 0; i < n; i++)
		if (map[i].h == d)
			return &map[i];
	return NULL;
}

/* The module datatype of a variable, or 0 (with a line saying which). */
static int t_type_out(MPI_Datatype d, const char *proc, int index, int32_t *out)
{
	const t_type *t = t_type_of(d);
	if (!t) {
		fprintf(stderr, "mpiwasm: %s: variable %d has a host datatype with no "
		        "module equivalent (MPI_T_ERR_INVALID)\n", proc, index);
		return 0;
	}
	*out = t->m;
	return 1;
}

/* ---- handle tables -------------------------------------------------------------
 * Slot 0 is the null handle; a record per live handle. */

typedef struct { void **v; u32 n; } t_table;

static u32 t_add(t_table *t, void *p)
{
	for (u32 i = 1; i < t->n; i++)
		if (!t->v[i]) {
			t->v[i] = p;
			return i;
		}
	u32 n = t->n ? t->n * 2 : 16;
	void **v = realloc(t->v, n * sizeof *v);
	if (!v)
		return 0;
	memset(v + t->n, 0, (n - t->n) * sizeof *v);
	u32 i = t->n ? t->n : 1;
	t->v = v;
	t->n = n;
	t->v[i] = p;
	return i;
}

static void *t_get(const t_table *t, u32 h)
{
	return h && h < t->n ? t->v[h] : NULL;
}

static void t_clear(t_table *t)
{
	for (u32 i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* A control- or performance-variable handle. */
typedef struct t_var {
	MPI_T_cvar_handle c;
	MPI_T_pvar_handle p;
	u32 sess;              /* pvar: its session (module handle) */
	int index, count;
	int open;              /* cvar: on the allow-list (cvar_open) */
	const t_type *ty;
	union {                /* the bound object, at a stable address */
		MPI_Comm comm; MPI_Datatype dt; MPI_Errhandler eh; MPI_File file;
		MPI_Group group; MPI_Op op; MPI_Request req; MPI_Win win;
		MPI_Message msg; MPI_Info info;
	} obj;
} t_var;

typedef struct t_sess { MPI_T_pvar_session h; } t_sess;
typedef struct { MPI_T_enum h; } t_enum;

static t_table cvars, pvars, sessions, enums;
static int t_inits;        /* MPI_T_init_thread calls not yet finalized */

/* The module handle of host enumeration e (the same one each time, so a
 * tool can compare them), 0 for MPI_T_ENUM_NULL or out of memory. */
static u32 enum_out(MPI_T_enum e)
{
	if (e == MPI_T_ENUM_NULL)
		return MW_T_ENUM_NULL;
	for (u32 i = 1; i < enums.n; i++)
		if (enums.v[i] && ((t_enum *)enums.v[i])->h == e)
			return i;
	t_enum *r = malloc(sizeof *r);
	if (!r)
		return 0;
	r->h = e;
	u32 h = t_add(&enums, r);
	if (!h)
		free(r);
	return h;
}

/* ---- arguments ------------------------------------------------------------------
 * The checks of the generated entries (glue.c; the classes of args.py),
 * in the order the handlers below had them when written by hand. */

uint32_t mw_t_fail(rt_instance *inst, int cls, const char *proc)
{
	return t_fail(inst, cls, proc);
}

int mw_t_live(void)
{
	return t_inits > 0;
}

/* tstr: *len is the size of name on input (0: name untouched), the
 * characters with the NUL on output (MPI-3.1 14.3.3); without len, name is
 * not returned.  The length is read once into host memory, checked, given
 * to the library and written back after the call.  In place, the library
 * read it after writing the string, which may lie over it (a name over its
 * own length: Open MPI took the name's characters for the length and wrote
 * a byte that far away, outside linear memory; found by fuzz-bridge). */
int mw_t_str_out(rt_instance *inst, u32 name, u32 len, mw_tstr *s)
{
	s->buf = NULL;
	s->mlen = NULL;
	s->len = 0;
	if (!len)
		return 0;
	if (!(s->mlen = mw_ptr(inst, len, 4)))
		return MW_ERR_ARG;
	s->len = *s->mlen;
	if (name && s->len != 0) {
		if (s->len < 0)
			return MW_T_ERR_INVALID;
		if (!(s->buf = mw_ptr(inst, name, (uint64_t)s->len)))
			return MW_ERR_BUFFER;
	}
	return 0;
}

void mw_t_str_back(const mw_tstr *s)
{
	if (s->mlen)
		*s->mlen = s->len;
}
#define SLEN(s) ((s)->mlen ? &(s)->len : NULL)

/* tindex: within [0, the host's current number of variables); a host
 * failure to count them is returned as its code. */
int mw_t_index_ok(int which, int32_t index)
{
	int n = 0, rc = which == 0 ? MPI_T_cvar_get_num(&n) : which == 1 ? MPI_T_pvar_get_num(&n)
	                                                                   : MPI_T_category_get_num(&n);
	if (rc != MPI_SUCCESS)
		return (int)t_ret(rc);
	return index >= 0 && index < n ? 0 : MW_T_ERR_INVALID_INDEX;
}

int mw_t_enum_get(u32 m, MPI_T_enum *h)
{
	t_enum *e = t_get(&enums, m);
	if (!e)
		return MW_T_ERR_INVALID_HANDLE;
	*h = e->h;
	return 0;
}

struct t_var *mw_t_cvar(u32 m)
{
	return t_get(&cvars, m);
}

int mw_t_sess_get(u32 m, mw_tsess *r)
{
	r->mod = m;
	if (!(r->s = t_get(&sessions, m)))
		return MW_T_ERR_INVALID_SESSION;
	return 0;
}

/* tpvh: a handle of session sess (its lookup came first), or with all_ok
 * MPI_T_PVAR_ALL_HANDLES (*v NULL). */
int mw_t_pvar(u32 m, u32 sess, int all_ok, struct t_var **v)
{
	*v = NULL;
	if (all_ok && (int32_t)m == MW_T_PVAR_ALL_HANDLES)
		return 0;
	if (!(*v = t_get(&pvars, m)) || (*v)->sess != sess)
		return MW_T_ERR_INVALID_HANDLE;
	return 0;
}

/* The object a variable of (host) binding `bind` is bound to: the module
 * handle at obj, converted into v->obj; *out the host pointer to pass. */
static int bind_obj(rt_instance *inst, int bind, u32 obj, t_var *v, void **out)
{
	*out = NULL;
	if (bind == MPI_T_BIND_NO_OBJECT)
		return 0;
	uint32_t *m = mw_ptr(inst, obj, 4);
	if (!m)
		return MW_ERR_ARG;
	int bad = 1;
	if (bind == MPI_T_BIND_MPI_COMM) {
		bad = mw_comm_get(*m, &v->obj.comm) || v->obj.comm == MPI_COMM_NULL;
		*out = &v->obj.comm;
	} else if (bind == MPI_T_BIND_MPI_DATATYPE) {
		bad = mw_dtype_hget(*m, &v->obj.dt) || v->obj.dt == MPI_DATATYPE_NULL;
		*out = &v->obj.dt;
	} else if (bind == MPI_T_BIND_MPI_ERRHANDLER) {
		bad = mw_errh_get(*m, &v->obj.eh) || v->obj.eh == MPI_ERRHANDLER_NULL;
		*out = &v->obj.eh;
	} else if (bind == MPI_T_BIND_MPI_FILE) {
		bad = mw_file_hget(*m, &v->obj.file) || v->obj.file == MPI_FILE_NULL;
		*out = &v->obj.file;
	} else if (bind == MPI_T_BIND_MPI_GROUP) {
		bad = mw_group_get(*m, &v->obj.group) || v->obj.group == MPI_GROUP_NULL;
		*out = &v->obj.group;
	} else if (bind == MPI_T_BIND_MPI_OP) {
		bad = mw_op_get(*m, &v->obj.op) || v->obj.op == MPI_OP_NULL;
		*out = &v->obj.op;
	} else if (bind == MPI_T_BIND_MPI_REQUEST) {
		bad = mw_req_get(*m, &v->obj.req) || v->obj.req == MPI_REQUEST_NULL;
		*out = &v->obj.req;
	} else if (bind == MPI_T_BIND_MPI_WIN) {
		bad = mw_win_hget(*m, &v->obj.win) || v->obj.win == MPI_WIN_NULL;
		*out = &v->obj.win;
	} else if (bind == MPI_T_BIND_MPI_MESSAGE) {
		bad = mw_msg_get(*m, &v->obj.msg) || v->obj.msg == MPI_MESSAGE_NULL;
		*out = &v->obj.msg;
	} else if (bind == MPI_T_BIND_MPI_INFO) {
		bad = mw_info_get(*m, &v->obj.info) || v->obj.info == MPI_INFO_NULL;
		*out = &v->obj.info;
	}
	return bad ? MW_T_ERR_INVALID_HANDLE : 0;
}

/* A variable's value: count x size bytes at buf.  Strings are copied
 * through a host buffer with room to spare (Open MPI copies a whole
 * string whatever the count), only what fits the count reaching the
 * module, always terminated. */
int mw_t_val_out(rt_instance *inst, const t_var *v, u32 buf, mw_tval *b)
{
	uint64_t n = (uint64_t)v->count * (uint64_t)v->ty->size;
	memset(b, 0, sizeof *b);
	if (!(b->host = mw_ptr(inst, buf, n)))
		return MW_ERR_BUFFER;
	if (v->ty->m == MW_CHAR && v->count > 0) {
		if (!(b->stage = calloc((size_t)v->count + 65536, 1)))
			return MW_T_ERR_MEMORY;
		b->mod = b->host;
		b->n = v->count;
		b->host = b->stage;
	}
	return 0;
}

static int t_unrestricted;   /* --mpi-t-unrestricted */

void mpib_set_mpi_t_unrestricted(int on)
{
	t_unrestricted = on != 0;
}

/* The allow-list: see the top of the file. */
static int cvar_open(const char *name, MPI_Datatype dt)
{
	if (t_unrestricted)
		return 1;
	if (dt == MPI_CHAR)
		return 0;
	if (!strcmp(name, "coll_tuned_use_dynamic_rules"))
		return 1;
	if ((!strncmp(name, "coll_tuned_", 11) || !strncmp(name, "coll_libnbc_", 12)) &&
	    strstr(name, "_algorithm"))
		return 1;
	size_t n = strlen(name);
	return !strncmp(name, "MPIR_CVAR_", 10) && n > 20 &&
	       !strcmp(name + n - 10, "_ALGORITHM");
}

void mw_t_val_done(mw_tval *b, int ok)
{
	if (b->stage && ok) {
		/* A string value is withheld (see the top of the file). */
		size_t len = t_unrestricted ? strnlen(b->stage, (size_t)b->n) : 0;
		if (len == (size_t)b->n)
			len = (size_t)b->n - 1;   /* did not fit: truncated */
		memcpy(b->mod, b->stage, len);
		b->mod[len] = 0;
	}
	free(b->stage);
	b->stage = NULL;
}

/* A value the host reads: count x size bytes, a string up to its NUL. */
int mw_t_val_in(rt_instance *inst, const t_var *v, u32 buf, const void **out)
{
	if (v->ty->m == MW_CHAR)
		*out = mw_str(inst, buf);
	else
		*out = mw_ptr(inst, buf, (uint64_t)v->count * (uint64_t)v->ty->size);
	return *out ? 0 : MW_ERR_BUFFER;
}

/* ---- setup ------------------------------------------------------------------------- */
/* Every entry but MPI_T_init_thread's checked first that MPI_T is
 * initialized (MPI_T_ERR_NOT_INITIALIZED), then the arguments; the
 * handlers get the checked values (args.py's MPI_T classes) and run under
 * the bridge's lock (family-t.txt). */

u32 mwh_T_init_thread(const mw_call *k, int required, int32_t *provided)
{
	int hreq, hprov = 0, m;
	(void)k;
	if (!t_map(t_threads, N(t_threads), 0, required, &hreq))
		return MW_T_ERR_INVALID;
	int rc = MPI_T_init_thread(hreq, &hprov);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	t_inits++;
	/* The module runs one thread whatever the host offers. */
	*provided = t_map(t_threads, N(t_threads), 1, hprov, &m) ? m : MW_THREAD_SINGLE;
	return MW_SUCCESS;
}

u32 mwh_T_finalize(const mw_call *k)
{
	(void)k;
	int rc = MPI_T_finalize();
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	if (--t_inits == 0) {
		/* Every handle dies with the last MPI_T_finalize. */
		t_clear(&cvars);
		t_clear(&pvars);
		t_clear(&sessions);
		t_clear(&enums);
	}
	return MW_SUCCESS;
}

/* ---- enumerations -------------------------------------------------------------------- */

u32 mwh_T_enum_get_info(const mw_call *k, MPI_T_enum enumtype, int32_t *num, mw_tstr *name,
                        uint32_t name_len)
{
	(void)k, (void)name_len;
	int rc = MPI_T_enum_get_info(enumtype, num, name->buf, SLEN(name));
	if (rc == MPI_SUCCESS)
		mw_t_str_back(name);
	return t_ret(rc);
}

u32 mwh_T_enum_get_item(const mw_call *k, MPI_T_enum enumtype, int index, int32_t *value,
                        mw_tstr *name, uint32_t name_len)
{
	int rc, n = 0;
	(void)k, (void)name_len;
	if ((rc = MPI_T_enum_get_info(enumtype, &n, NULL, NULL)) != MPI_SUCCESS)
		return t_ret(rc);
	if (index < 0 || index >= n)
		return MW_T_ERR_INVALID_ITEM;
	rc = MPI_T_enum_get_item(enumtype, index, value, name->buf, SLEN(name));
	if (rc == MPI_SUCCESS)
		mw_t_str_back(name);
	return t_ret(rc);
}

/* ---- control variables ------------------------------------------------------------------ */

u32 mwh_T_cvar_get_num(const mw_call *k, int32_t *num_cvar)
{
	(void)k;
	return t_ret(MPI_T_cvar_get_num(num_cvar));
}

u32 mwh_T_cvar_get_info(const mw_call *k, int cvar_index, mw_tstr *name, uint32_t name_len,
                        int32_t *verbosity, int32_t *datatype, int32_t *enumtype,
                        mw_tstr *desc, uint32_t desc_len, int32_t *bind, int32_t *scope)
{
	int rc, hverb = 0, hbind = 0, hscope = 0;
	MPI_Datatype hdt = MPI_DATATYPE_NULL;
	MPI_T_enum het = MPI_T_ENUM_NULL;
	(void)name_len, (void)desc_len;
	rc = MPI_T_cvar_get_info(cvar_index, name->buf, SLEN(name), &hverb, &hdt, &het, desc->buf,
	                         SLEN(desc), &hbind, &hscope);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	mw_t_str_back(name);
	mw_t_str_back(desc);
	int32_t mverb, mdt, mbind, mscope;
	u32 met = enum_out(het);
	if (!t_map(t_verbs, N(t_verbs), 1, hverb, &mverb) ||
	    !t_map(t_binds, N(t_binds), 1, hbind, &mbind) ||
	    !t_map(t_scopes, N(t_scopes), 1, hscope, &mscope) ||
	    !t_type_out(hdt, k->proc, cvar_index, &mdt))
		return MW_T_ERR_INVALID;
	if (het != MPI_T_ENUM_NULL && !met)
		return MW_T_ERR_MEMORY;
	if (verbosity) *verbosity = mverb;
	if (datatype) *datatype = mdt;
	if (enumtype) *enumtype = (int32_t)met;
	if (bind) *bind = mbind;
	if (scope) *scope = mscope;
	return MW_SUCCESS;
}

u32 mwh_T_cvar_get_index(const mw_call *k, const char *name, int32_t *cvar_index)
{
	(void)k;
	return t_ret(MPI_T_cvar_get_index(name, cvar_index));
}

u32 mwh_T_cvar_handle_alloc(const mw_call *k, int cvar_index, uint32_t obj_handle,
                            int32_t *handle, int32_t *count)
{
	int rc, hbind = 0;
	MPI_Datatype hdt = MPI_DATATYPE_NULL;
	void *hobj;
	char name[256];
	int nlen = (int)sizeof name;
	rc = MPI_T_cvar_get_info(cvar_index, name, &nlen, NULL, &hdt, NULL, NULL, NULL,
	                         &hbind, NULL);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	t_var *v = calloc(1, sizeof *v);
	if (!v)
		return MW_T_ERR_MEMORY;
	int32_t mdt;
	if (!t_type_out(hdt, k->proc, cvar_index, &mdt)) {
		free(v);
		return MW_T_ERR_INVALID;
	}
	v->ty = t_type_of(hdt);
	v->index = cvar_index;
	/* A name longer than the buffer is truncated: not on the list. */
	v->open = nlen < (int)sizeof name && cvar_open(name, hdt);
	if ((rc = bind_obj(k->inst, hbind, obj_handle, v, &hobj))) {
		free(v);
		return t_fail(k->inst, rc, k->proc);
	}
	rc = MPI_T_cvar_handle_alloc(cvar_index, hobj, &v->c, &v->count);
	if (rc != MPI_SUCCESS) {
		free(v);
		return t_ret(rc);
	}
	u32 h = t_add(&cvars, v);
	if (!h) {
		MPI_T_cvar_handle_free(&v->c);
		free(v);
		return MW_T_ERR_OUT_OF_HANDLES;
	}
	*handle = (int32_t)h;
	*count = v->count;
	return MW_SUCCESS;
}

u32 mwh_T_cvar_handle_free(const mw_call *k, mw_tvar_io *handle)
{
	(void)k;
	t_var *v = handle->v;
	int rc = MPI_T_cvar_handle_free(&v->c);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	cvars.v[handle->mod] = NULL;
	free(v);
	*handle->slot = MW_T_CVAR_HANDLE_NULL;
	return MW_SUCCESS;
}

u32 mwh_T_cvar_read(const mw_call *k, struct t_var *handle, mw_tval *buf)
{
	(void)k;
	int rc = MPI_T_cvar_read(handle->c, buf->host);
	mw_t_val_done(buf, rc == MPI_SUCCESS);
	return t_ret(rc);
}

u32 mwh_T_cvar_write(const mw_call *k, struct t_var *handle, const void *buf)
{
	(void)k;
	t_var *v = handle;
	if (!v->open && !t_unrestricted) {
		char name[256];
		int nlen = (int)sizeof name;
		if (MPI_T_cvar_get_info(v->index, name, &nlen, NULL, NULL, NULL, NULL, NULL,
		                        NULL, NULL) != MPI_SUCCESS)
			snprintf(name, sizeof name, "index %d", v->index);
		fflush(stdout);
		fprintf(stderr, "mpiwasm: rank %d: MPI_T_cvar_write: '%s' is not writable "
		        "from a module (only collective algorithm choices are; the engine "
		        "option --mpi-t-unrestricted lifts this)\n", mw_world_rank, name);
		return MW_T_ERR_CVAR_SET_NEVER;
	}
	int rc = MPI_T_cvar_write(v->c, buf);
	if (rc == MPI_SUCCESS)
		mw_coll_cvar_written(v->index);   /* it wins over the collective rules */
	return t_ret(rc);
}

/* ---- performance variables ------------------------------------------------------------------ */

u32 mwh_T_pvar_get_num(const mw_call *k, int32_t *num_pvar)
{
	(void)k;
	return t_ret(MPI_T_pvar_get_num(num_pvar));
}

u32 mwh_T_pvar_get_info(const mw_call *k, int pvar_index, mw_tstr *name, uint32_t name_len,
                        int32_t *verbosity, int32_t *var_class, int32_t *datatype,
                        int32_t *enumtype, mw_tstr *desc, uint32_t desc_len, int32_t *bind,
                        int32_t *readonly, int32_t *continuous, int32_t *atomic)
{
	int rc, hverb = 0, hcls = 0, hbind = 0;
	MPI_Datatype hdt = MPI_DATATYPE_NULL;
	MPI_T_enum het = MPI_T_ENUM_NULL;
	(void)name_len, (void)desc_len;
	rc = MPI_T_pvar_get_info(pvar_index, name->buf, SLEN(name), &hverb, &hcls, &hdt, &het,
	                         desc->buf, SLEN(desc), &hbind, readonly, continuous, atomic);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	mw_t_str_back(name);
	mw_t_str_back(desc);
	int32_t mverb, mcls, mdt, mbind;
	u32 met = enum_out(het);
	if (!t_map(t_verbs, N(t_verbs), 1, hverb, &mverb) ||
	    !t_map(t_classes, N(t_classes), 1, hcls, &mcls) ||
	    !t_map(t_binds, N(t_binds), 1, hbind, &mbind) ||
	    !t_type_out(hdt, k->proc, pvar_index, &mdt))
		return MW_T_ERR_INVALID;
	if (het != MPI_T_ENUM_NULL && !met)
		return MW_T_ERR_MEMORY;
	if (verbosity) *verbosity = mverb;
	if (var_class) *var_class = mcls;
	if (datatype) *datatype = mdt;
	if (enumtype) *enumtype = (int32_t)met;
	if (bind) *bind = mbind;
	return MW_SUCCESS;
}

u32 mwh_T_pvar_get_index(const mw_call *k, const char *name, int var_class, int32_t *pvar_index)
{
	int hcls;
	(void)k;
	/* No variable has a class that does not exist. */
	if (!t_map(t_classes, N(t_classes), 0, var_class, &hcls))
		return MW_T_ERR_INVALID_NAME;
	return t_ret(MPI_T_pvar_get_index(name, hcls, pvar_index));
}

u32 mwh_T_pvar_session_create(const mw_call *k, int32_t *pe_session)
{
	(void)k;
	t_sess *s = malloc(sizeof *s);
	if (!s)
		return MW_T_ERR_MEMORY;
	int rc = MPI_T_pvar_session_create(&s->h);
	if (rc != MPI_SUCCESS) {
		free(s);
		return t_ret(rc);
	}
	u32 h = t_add(&sessions, s);
	if (!h) {
		MPI_T_pvar_session_free(&s->h);
		free(s);
		return MW_T_ERR_OUT_OF_SESSIONS;
	}
	*pe_session = (int32_t)h;
	return MW_SUCCESS;
}

u32 mwh_T_pvar_session_free(const mw_call *k, mw_tsess *pe_session)
{
	(void)k;
	t_sess *s = pe_session->s;
	int rc = MPI_T_pvar_session_free(&s->h);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	/* The host freed the session's handles with it. */
	for (u32 i = 1; i < pvars.n; i++) {
		t_var *v = pvars.v[i];
		if (v && v->sess == pe_session->mod) {
			free(v);
			pvars.v[i] = NULL;
		}
	}
	sessions.v[pe_session->mod] = NULL;
	free(s);
	*pe_session->slot = MW_T_PVAR_SESSION_NULL;
	return MW_SUCCESS;
}

u32 mwh_T_pvar_handle_alloc(const mw_call *k, const mw_tsess *pe_session, int pvar_index,
                            uint32_t obj_handle, int32_t *handle, int32_t *count)
{
	int rc, hbind = 0, hcls = 0;
	MPI_Datatype hdt = MPI_DATATYPE_NULL;
	void *hobj;
	rc = MPI_T_pvar_get_info(pvar_index, NULL, NULL, NULL, &hcls, &hdt, NULL, NULL,
	                         NULL, &hbind, NULL, NULL, NULL);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	t_var *v = calloc(1, sizeof *v);
	if (!v)
		return MW_T_ERR_MEMORY;
	int32_t mdt;
	if (!t_type_out(hdt, k->proc, pvar_index, &mdt)) {
		free(v);
		return MW_T_ERR_INVALID;
	}
	v->ty = t_type_of(hdt);
	v->index = pvar_index;
	v->sess = pe_session->mod;
	if ((rc = bind_obj(k->inst, hbind, obj_handle, v, &hobj))) {
		free(v);
		return t_fail(k->inst, rc, k->proc);
	}
	rc = MPI_T_pvar_handle_alloc(pe_session->s->h, pvar_index, hobj, &v->p, &v->count);
	if (rc != MPI_SUCCESS) {
		free(v);
		return t_ret(rc);
	}
	u32 h = t_add(&pvars, v);
	if (!h) {
		MPI_T_pvar_handle_free(pe_session->s->h, &v->p);
		free(v);
		return MW_T_ERR_OUT_OF_HANDLES;
	}
	*handle = (int32_t)h;
	*count = v->count;
	return MW_SUCCESS;
}

u32 mwh_T_pvar_handle_free(const mw_call *k, const mw_tsess *pe_session, mw_tvar_io *handle)
{
	(void)k;
	t_var *v = handle->v;
	int rc = MPI_T_pvar_handle_free(pe_session->s->h, &v->p);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	pvars.v[handle->mod] = NULL;
	free(v);
	*handle->slot = MW_T_PVAR_HANDLE_NULL;
	return MW_SUCCESS;
}

/* start, stop, reset: one handle or MPI_T_PVAR_ALL_HANDLES (NULL). */
u32 mwh_T_pvar_start(const mw_call *k, const mw_tsess *pe_session, struct t_var *handle)
{
	(void)k;
	return t_ret(MPI_T_pvar_start(pe_session->s->h, handle ? handle->p : MPI_T_PVAR_ALL_HANDLES));
}

u32 mwh_T_pvar_stop(const mw_call *k, const mw_tsess *pe_session, struct t_var *handle)
{
	(void)k;
	return t_ret(MPI_T_pvar_stop(pe_session->s->h, handle ? handle->p : MPI_T_PVAR_ALL_HANDLES));
}

u32 mwh_T_pvar_reset(const mw_call *k, const mw_tsess *pe_session, struct t_var *handle)
{
	(void)k;
	return t_ret(MPI_T_pvar_reset(pe_session->s->h, handle ? handle->p : MPI_T_PVAR_ALL_HANDLES));
}

u32 mwh_T_pvar_read(const mw_call *k, const mw_tsess *pe_session, struct t_var *handle,
                    mw_tval *buf)
{
	(void)k;
	int rc = MPI_T_pvar_read(pe_session->s->h, handle->p, buf->host);
	mw_t_val_done(buf, rc == MPI_SUCCESS);
	return t_ret(rc);
}

u32 mwh_T_pvar_readreset(const mw_call *k, const mw_tsess *pe_session, struct t_var *handle,
                         mw_tval *buf)
{
	(void)k;
	int rc = MPI_T_pvar_readreset(pe_session->s->h, handle->p, buf->host);
	mw_t_val_done(buf, rc == MPI_SUCCESS);
	return t_ret(rc);
}

u32 mwh_T_pvar_write(const mw_call *k, const mw_tsess *pe_session, struct t_var *handle,
                     const void *buf)
{
	(void)k;
	return t_ret(MPI_T_pvar_write(pe_session->s->h, handle->p, buf));
}

/* ---- categories ------------------------------------------------------------------------ */

u32 mwh_T_category_get_num(const mw_call *k, int32_t *num_cat)
{
	(void)k;
	return t_ret(MPI_T_category_get_num(num_cat));
}

u32 mwh_T_category_get_info(const mw_call *k, int cat_index, mw_tstr *name, uint32_t name_len,
                            mw_tstr *desc, uint32_t desc_len, int32_t *num_cvars,
                            int32_t *num_pvars, int32_t *num_categories)
{
	(void)k, (void)name_len, (void)desc_len;
	int rc = MPI_T_category_get_info(cat_index, name->buf, SLEN(name), desc->buf, SLEN(desc),
	                                 num_cvars, num_pvars, num_categories);
	if (rc == MPI_SUCCESS) {
		mw_t_str_back(name);
		mw_t_str_back(desc);
	}
	return t_ret(rc);
}

u32 mwh_T_category_get_index(const mw_call *k, const char *name, int32_t *cat_index)
{
	(void)k;
	return t_ret(MPI_T_category_get_index(name, cat_index));
}

/* get_cvars, get_pvars, get_categories: up to len indices. */
u32 mwh_T_category_get_cvars(const mw_call *k, int cat_index, int len, int32_t *indices)
{
	(void)k;
	return t_ret(MPI_T_category_get_cvars(cat_index, len, indices));
}

u32 mwh_T_category_get_pvars(const mw_call *k, int cat_index, int len, int32_t *indices)
{
	(void)k;
	return t_ret(MPI_T_category_get_pvars(cat_index, len, indices));
}

u32 mwh_T_category_get_categories(const mw_call *k, int cat_index, int len, int32_t *indices)
{
	(void)k;
	return t_ret(MPI_T_category_get_categories(cat_index, len, indices));
}

u32 mwh_T_category_changed(const mw_call *k, int32_t *update_number)
{
	(void)k;
	return t_ret(MPI_T_category_changed(update_number));
}
