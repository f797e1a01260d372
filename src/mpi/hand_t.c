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

typedef struct { MPI_T_pvar_session h; } t_sess;
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

/* ---- arguments ------------------------------------------------------------------ */

#define T_INIT() do { if (!t_inits) return MW_T_ERR_NOT_INITIALIZED; } while (0)
#define TRY(x) do { if ((rc = (x))) goto fail; } while (0)

/* An optional output: address 0 (the program's NULL, which MPI_T ignores)
 * is a host NULL, else n bytes of linear memory. */
static int opt(rt_instance *inst, u32 a, uint64_t n, void *out)
{
	void *p = NULL;
	if (a && !(p = mw_ptr(inst, a, n)))
		return MW_ERR_ARG;
	memcpy(out, &p, sizeof p);
	return 0;
}

/* A string output and its length (MPI-3.1 14.3.3): *len is the size of
 * name on input (0: name untouched), the characters with the NUL on
 * output.  Without len, name is not returned. */
/* A string the host library writes, with its in/out length: the length is
 * read once into host memory, checked, given to the library and written
 * back after the call.  In place, the library read it after writing the
 * string, which may lie over it (a name over its own length: Open MPI took
 * the name's characters for the length and wrote a byte that far away,
 * outside linear memory; found by fuzz-bridge). */
typedef struct t_str { char *buf; int32_t *mlen; int len; } t_str;
#define SLEN(s) ((s).mlen ? &(s).len : NULL)

static int str_out(rt_instance *inst, u32 name, u32 len, t_str *s)
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

static void str_back(const t_str *s)
{
	if (s->mlen)
		*s->mlen = s->len;
}

/* index within [0, the host's current number of variables). */
static int index_ok(int (*num)(int *), int32_t index)
{
	int n = 0, rc = num(&n);
	if (rc != MPI_SUCCESS)
		return (int)t_ret(rc);
	return index >= 0 && index < n ? 0 : MW_T_ERR_INVALID_INDEX;
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
typedef struct { void *host; char *stage; char *mod; int n; } t_val;

static int val_out(rt_instance *inst, const t_var *v, u32 buf, t_val *b)
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

static void val_done(t_val *b, int ok)
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
static int val_in(rt_instance *inst, const t_var *v, u32 buf, const void **out)
{
	if (v->ty->m == MW_CHAR)
		*out = mw_str(inst, buf);
	else
		*out = mw_ptr(inst, buf, (uint64_t)v->count * (uint64_t)v->ty->size);
	return *out ? 0 : MW_ERR_BUFFER;
}

/* ---- setup ------------------------------------------------------------------------- */

u32 mwh_T_init_thread(rt_instance *inst, u32 req, u32 prov)
{
	int *p = mw_ptr(inst, prov, 4), hreq, hprov = 0, m;
	if (!p)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_init_thread");
	if (!t_map(t_threads, N(t_threads), 0, (int)req, &hreq))
		return MW_T_ERR_INVALID;
	int rc = MPI_T_init_thread(hreq, &hprov);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	t_inits++;
	/* The module runs one thread whatever the host offers. */
	*p = t_map(t_threads, N(t_threads), 1, hprov, &m) ? m : MW_THREAD_SINGLE;
	return MW_SUCCESS;
}

u32 mwh_T_finalize(rt_instance *inst)
{
	(void)inst;
	T_INIT();
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

u32 mwh_T_enum_get_info(rt_instance *inst, u32 et, u32 num, u32 name, u32 name_len)
{
	static const char proc[] = "MPI_T_enum_get_info";
	int *pn, rc;
	t_str sn;
	T_INIT();
	TRY(opt(inst, num, 4, &pn));
	TRY(str_out(inst, name, name_len, &sn));
	t_enum *e = t_get(&enums, et);
	if (!e)
		return MW_T_ERR_INVALID_HANDLE;
	rc = MPI_T_enum_get_info(e->h, pn, sn.buf, SLEN(sn));
	if (rc == MPI_SUCCESS)
		str_back(&sn);
	return t_ret(rc);
fail:
	return t_fail(inst, rc, proc);
}

u32 mwh_T_enum_get_item(rt_instance *inst, u32 et, u32 index, u32 value, u32 name,
                        u32 name_len)
{
	static const char proc[] = "MPI_T_enum_get_item";
	int *pv, rc, n = 0;
	t_str sn;
	T_INIT();
	TRY(opt(inst, value, 4, &pv));
	TRY(str_out(inst, name, name_len, &sn));
	t_enum *e = t_get(&enums, et);
	if (!e)
		return MW_T_ERR_INVALID_HANDLE;
	if ((rc = MPI_T_enum_get_info(e->h, &n, NULL, NULL)) != MPI_SUCCESS)
		return t_ret(rc);
	if ((int32_t)index < 0 || (int32_t)index >= n)
		return MW_T_ERR_INVALID_ITEM;
	rc = MPI_T_enum_get_item(e->h, (int)index, pv, sn.buf, SLEN(sn));
	if (rc == MPI_SUCCESS)
		str_back(&sn);
	return t_ret(rc);
fail:
	return t_fail(inst, rc, proc);
}

/* ---- control variables ------------------------------------------------------------------ */

u32 mwh_T_cvar_get_num(rt_instance *inst, u32 num)
{
	int *p = mw_ptr(inst, num, 4);
	T_INIT();
	if (!p)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_cvar_get_num");
	return t_ret(MPI_T_cvar_get_num(p));
}

u32 mwh_T_cvar_get_info(rt_instance *inst, u32 index, u32 name, u32 name_len,
                        u32 verbosity, u32 datatype, u32 enumtype, u32 desc,
                        u32 desc_len, u32 bind, u32 scope)
{
	static const char proc[] = "MPI_T_cvar_get_info";
	int32_t *pverb, *pdt, *pet, *pbind, *pscope;
	int rc, hverb = 0, hbind = 0, hscope = 0;
	t_str sn, sd;
	MPI_Datatype hdt = MPI_DATATYPE_NULL;
	MPI_T_enum het = MPI_T_ENUM_NULL;
	T_INIT();
	TRY(str_out(inst, name, name_len, &sn));
	TRY(str_out(inst, desc, desc_len, &sd));
	TRY(opt(inst, verbosity, 4, &pverb));
	TRY(opt(inst, datatype, 4, &pdt));
	TRY(opt(inst, enumtype, 4, &pet));
	TRY(opt(inst, bind, 4, &pbind));
	TRY(opt(inst, scope, 4, &pscope));
	if ((rc = index_ok(MPI_T_cvar_get_num, (int32_t)index)))
		return (u32)rc;
	rc = MPI_T_cvar_get_info((int)index, sn.buf, SLEN(sn), &hverb, &hdt, &het, sd.buf,
	                         SLEN(sd), &hbind, &hscope);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	str_back(&sn);
	str_back(&sd);
	int32_t mverb, mdt, mbind, mscope;
	u32 met = enum_out(het);
	if (!t_map(t_verbs, N(t_verbs), 1, hverb, &mverb) ||
	    !t_map(t_binds, N(t_binds), 1, hbind, &mbind) ||
	    !t_map(t_scopes, N(t_scopes), 1, hscope, &mscope) ||
	    !t_type_out(hdt, proc, (int)index, &mdt))
		return MW_T_ERR_INVALID;
	if (het != MPI_T_ENUM_NULL && !met)
		return MW_T_ERR_MEMORY;
	if (pverb) *pverb = mverb;
	if (pdt) *pdt = mdt;
	if (pet) *pet = (int32_t)met;
	if (pbind) *pbind = mbind;
	if (pscope) *pscope = mscope;
	return MW_SUCCESS;
fail:
	return t_fail(inst, rc, proc);
}

u32 mwh_T_cvar_get_index(rt_instance *inst, u32 name, u32 index)
{
	const char *s = mw_str(inst, name);
	int *p = mw_ptr(inst, index, 4);
	T_INIT();
	if (!s || !p)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_cvar_get_index");
	return t_ret(MPI_T_cvar_get_index(s, p));
}

u32 mwh_T_cvar_handle_alloc(rt_instance *inst, u32 index, u32 obj, u32 handle,
                            u32 count)
{
	static const char proc[] = "MPI_T_cvar_handle_alloc";
	int32_t *ph = mw_ptr(inst, handle, 4), *pc = mw_ptr(inst, count, 4);
	int rc, hbind = 0;
	MPI_Datatype hdt = MPI_DATATYPE_NULL;
	void *hobj;
	T_INIT();
	if (!ph || !pc)
		return t_fail(inst, MW_ERR_ARG, proc);
	if ((rc = index_ok(MPI_T_cvar_get_num, (int32_t)index)))
		return (u32)rc;
	char name[256];
	int nlen = (int)sizeof name;
	rc = MPI_T_cvar_get_info((int)index, name, &nlen, NULL, &hdt, NULL, NULL, NULL,
	                         &hbind, NULL);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	t_var *v = calloc(1, sizeof *v);
	if (!v)
		return MW_T_ERR_MEMORY;
	int32_t mdt;
	if (!t_type_out(hdt, proc, (int)index, &mdt)) {
		free(v);
		return MW_T_ERR_INVALID;
	}
	v->ty = t_type_of(hdt);
	v->index = (int)index;
	/* A name longer than the buffer is truncated: not on the list. */
	v->open = nlen < (int)sizeof name && cvar_open(name, hdt);
	if ((rc = bind_obj(inst, hbind, obj, v, &hobj))) {
		free(v);
		return t_fail(inst, rc, proc);
	}
	rc = MPI_T_cvar_handle_alloc((int)index, hobj, &v->c, &v->count);
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
	*ph = (int32_t)h;
	*pc = v->count;
	return MW_SUCCESS;
}

u32 mwh_T_cvar_handle_free(rt_instance *inst, u32 handle)
{
	int32_t *ph = mw_ptr(inst, handle, 4);
	T_INIT();
	if (!ph)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_cvar_handle_free");
	t_var *v = t_get(&cvars, (u32)*ph);
	if (!v)
		return MW_T_ERR_INVALID_HANDLE;
	int rc = MPI_T_cvar_handle_free(&v->c);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	cvars.v[*ph] = NULL;
	free(v);
	*ph = MW_T_CVAR_HANDLE_NULL;
	return MW_SUCCESS;
}

u32 mwh_T_cvar_read(rt_instance *inst, u32 handle, u32 buf)
{
	T_INIT();
	t_var *v = t_get(&cvars, handle);
	if (!v)
		return MW_T_ERR_INVALID_HANDLE;
	t_val b;
	int rc = val_out(inst, v, buf, &b);
	if (rc)
		return t_fail(inst, rc, "MPI_T_cvar_read");
	rc = MPI_T_cvar_read(v->c, b.host);
	val_done(&b, rc == MPI_SUCCESS);
	return t_ret(rc);
}

u32 mwh_T_cvar_write(rt_instance *inst, u32 handle, u32 buf)
{
	const void *p;
	T_INIT();
	t_var *v = t_get(&cvars, handle);
	if (!v)
		return MW_T_ERR_INVALID_HANDLE;
	int rc = val_in(inst, v, buf, &p);
	if (rc)
		return t_fail(inst, rc, "MPI_T_cvar_write");
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
	rc = MPI_T_cvar_write(v->c, p);
	if (rc == MPI_SUCCESS)
		mw_coll_cvar_written(v->index);   /* it wins over the collective rules */
	return t_ret(rc);
}

/* ---- performance variables ------------------------------------------------------------------ */

u32 mwh_T_pvar_get_num(rt_instance *inst, u32 num)
{
	int *p = mw_ptr(inst, num, 4);
	T_INIT();
	if (!p)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_pvar_get_num");
	return t_ret(MPI_T_pvar_get_num(p));
}

u32 mwh_T_pvar_get_info(rt_instance *inst, u32 index, u32 name, u32 name_len,
                        u32 verbosity, u32 var_class, u32 datatype, u32 enumtype,
                        u32 desc, u32 desc_len, u32 bind, u32 readonly,
                        u32 continuous, u32 atomic)
{
	static const char proc[] = "MPI_T_pvar_get_info";
	int32_t *pverb, *pcls, *pdt, *pet, *pbind;
	int *pro, *pco, *pat, rc, hverb = 0, hcls = 0, hbind = 0;
	t_str sn, sd;
	MPI_Datatype hdt = MPI_DATATYPE_NULL;
	MPI_T_enum het = MPI_T_ENUM_NULL;
	T_INIT();
	TRY(str_out(inst, name, name_len, &sn));
	TRY(str_out(inst, desc, desc_len, &sd));
	TRY(opt(inst, verbosity, 4, &pverb));
	TRY(opt(inst, var_class, 4, &pcls));
	TRY(opt(inst, datatype, 4, &pdt));
	TRY(opt(inst, enumtype, 4, &pet));
	TRY(opt(inst, bind, 4, &pbind));
	TRY(opt(inst, readonly, 4, &pro));
	TRY(opt(inst, continuous, 4, &pco));
	TRY(opt(inst, atomic, 4, &pat));
	if ((rc = index_ok(MPI_T_pvar_get_num, (int32_t)index)))
		return (u32)rc;
	rc = MPI_T_pvar_get_info((int)index, sn.buf, SLEN(sn), &hverb, &hcls, &hdt, &het,
	                         sd.buf, SLEN(sd), &hbind, pro, pco, pat);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	str_back(&sn);
	str_back(&sd);
	int32_t mverb, mcls, mdt, mbind;
	u32 met = enum_out(het);
	if (!t_map(t_verbs, N(t_verbs), 1, hverb, &mverb) ||
	    !t_map(t_classes, N(t_classes), 1, hcls, &mcls) ||
	    !t_map(t_binds, N(t_binds), 1, hbind, &mbind) ||
	    !t_type_out(hdt, proc, (int)index, &mdt))
		return MW_T_ERR_INVALID;
	if (het != MPI_T_ENUM_NULL && !met)
		return MW_T_ERR_MEMORY;
	if (pverb) *pverb = mverb;
	if (pcls) *pcls = mcls;
	if (pdt) *pdt = mdt;
	if (pet) *pet = (int32_t)met;
	if (pbind) *pbind = mbind;
	return MW_SUCCESS;
fail:
	return t_fail(inst, rc, proc);
}

u32 mwh_T_pvar_get_index(rt_instance *inst, u32 name, u32 var_class, u32 index)
{
	const char *s = mw_str(inst, name);
	int *p = mw_ptr(inst, index, 4), hcls;
	T_INIT();
	if (!s || !p)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_pvar_get_index");
	/* No variable has a class that does not exist. */
	if (!t_map(t_classes, N(t_classes), 0, (int)var_class, &hcls))
		return MW_T_ERR_INVALID_NAME;
	return t_ret(MPI_T_pvar_get_index(s, hcls, p));
}

u32 mwh_T_pvar_session_create(rt_instance *inst, u32 session)
{
	int32_t *ps = mw_ptr(inst, session, 4);
	T_INIT();
	if (!ps)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_pvar_session_create");
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
	*ps = (int32_t)h;
	return MW_SUCCESS;
}

u32 mwh_T_pvar_session_free(rt_instance *inst, u32 session)
{
	int32_t *ps = mw_ptr(inst, session, 4);
	T_INIT();
	if (!ps)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_pvar_session_free");
	t_sess *s = t_get(&sessions, (u32)*ps);
	if (!s)
		return MW_T_ERR_INVALID_SESSION;
	int rc = MPI_T_pvar_session_free(&s->h);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	/* The host freed the session's handles with it. */
	for (u32 i = 1; i < pvars.n; i++) {
		t_var *v = pvars.v[i];
		if (v && v->sess == (u32)*ps) {
			free(v);
			pvars.v[i] = NULL;
		}
	}
	sessions.v[*ps] = NULL;
	free(s);
	*ps = MW_T_PVAR_SESSION_NULL;
	return MW_SUCCESS;
}

u32 mwh_T_pvar_handle_alloc(rt_instance *inst, u32 session, u32 index, u32 obj,
                            u32 handle, u32 count)
{
	static const char proc[] = "MPI_T_pvar_handle_alloc";
	int32_t *ph = mw_ptr(inst, handle, 4), *pc = mw_ptr(inst, count, 4);
	int rc, hbind = 0, hcls = 0;
	MPI_Datatype hdt = MPI_DATATYPE_NULL;
	void *hobj;
	T_INIT();
	if (!ph || !pc)
		return t_fail(inst, MW_ERR_ARG, proc);
	t_sess *s = t_get(&sessions, session);
	if (!s)
		return MW_T_ERR_INVALID_SESSION;
	if ((rc = index_ok(MPI_T_pvar_get_num, (int32_t)index)))
		return (u32)rc;
	rc = MPI_T_pvar_get_info((int)index, NULL, NULL, NULL, &hcls, &hdt, NULL, NULL,
	                         NULL, &hbind, NULL, NULL, NULL);
	if (rc != MPI_SUCCESS)
		return t_ret(rc);
	t_var *v = calloc(1, sizeof *v);
	if (!v)
		return MW_T_ERR_MEMORY;
	int32_t mdt;
	if (!t_type_out(hdt, proc, (int)index, &mdt)) {
		free(v);
		return MW_T_ERR_INVALID;
	}
	v->ty = t_type_of(hdt);
	v->index = (int)index;
	v->sess = session;
	if ((rc = bind_obj(inst, hbind, obj, v, &hobj))) {
		free(v);
		return t_fail(inst, rc, proc);
	}
	rc = MPI_T_pvar_handle_alloc(s->h, (int)index, hobj, &v->p, &v->count);
	if (rc != MPI_SUCCESS) {
		free(v);
		return t_ret(rc);
	}
	u32 h = t_add(&pvars, v);
	if (!h) {
		MPI_T_pvar_handle_free(s->h, &v->p);
		free(v);
		return MW_T_ERR_OUT_OF_HANDLES;
	}
	*ph = (int32_t)h;
	*pc = v->count;
	return MW_SUCCESS;
}

/* Session and handle of a pvar call: 0, or the MPI_T error. */
static int pvar_of(u32 session, u32 handle, int all_ok, t_sess **s, t_var **v)
{
	*v = NULL;
	if (!(*s = t_get(&sessions, session)))
		return MW_T_ERR_INVALID_SESSION;
	if (all_ok && (int32_t)handle == MW_T_PVAR_ALL_HANDLES)
		return 0;
	if (!(*v = t_get(&pvars, handle)) || (*v)->sess != session)
		return MW_T_ERR_INVALID_HANDLE;
	return 0;
}

u32 mwh_T_pvar_handle_free(rt_instance *inst, u32 session, u32 handle)
{
	int32_t *ph = mw_ptr(inst, handle, 4);
	t_sess *s;
	t_var *v;
	T_INIT();
	if (!ph)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_pvar_handle_free");
	int rc = pvar_of(session, (u32)*ph, 0, &s, &v);
	if (rc)
		return (u32)rc;
	if ((rc = MPI_T_pvar_handle_free(s->h, &v->p)) != MPI_SUCCESS)
		return t_ret(rc);
	pvars.v[*ph] = NULL;
	free(v);
	*ph = MW_T_PVAR_HANDLE_NULL;
	return MW_SUCCESS;
}

/* start, stop, reset: one handle or MPI_T_PVAR_ALL_HANDLES. */
static u32 pvar_ctl(u32 session, u32 handle,
                    int (*fn)(MPI_T_pvar_session, MPI_T_pvar_handle))
{
	t_sess *s;
	t_var *v;
	T_INIT();
	int rc = pvar_of(session, handle, 1, &s, &v);
	if (rc)
		return (u32)rc;
	return t_ret(fn(s->h, v ? v->p : MPI_T_PVAR_ALL_HANDLES));
}

u32 mwh_T_pvar_start(rt_instance *inst, u32 session, u32 handle)
{
	(void)inst;
	return pvar_ctl(session, handle, MPI_T_pvar_start);
}

u32 mwh_T_pvar_stop(rt_instance *inst, u32 session, u32 handle)
{
	(void)inst;
	return pvar_ctl(session, handle, MPI_T_pvar_stop);
}

u32 mwh_T_pvar_reset(rt_instance *inst, u32 session, u32 handle)
{
	(void)inst;
	return pvar_ctl(session, handle, MPI_T_pvar_reset);
}

/* read and readreset: the value into buf. */
static u32 pvar_get(rt_instance *inst, u32 session, u32 handle, u32 buf,
                    int (*fn)(MPI_T_pvar_session, MPI_T_pvar_handle, void *),
                    const char *proc)
{
	t_sess *s;
	t_var *v;
	t_val b;
	T_INIT();
	int rc = pvar_of(session, handle, 0, &s, &v);
	if (rc)
		return (u32)rc;
	if ((rc = val_out(inst, v, buf, &b)))
		return t_fail(inst, rc, proc);
	rc = fn(s->h, v->p, b.host);
	val_done(&b, rc == MPI_SUCCESS);
	return t_ret(rc);
}

u32 mwh_T_pvar_read(rt_instance *inst, u32 session, u32 handle, u32 buf)
{
	return pvar_get(inst, session, handle, buf, MPI_T_pvar_read, "MPI_T_pvar_read");
}

u32 mwh_T_pvar_readreset(rt_instance *inst, u32 session, u32 handle, u32 buf)
{
	return pvar_get(inst, session, handle, buf, MPI_T_pvar_readreset,
	                "MPI_T_pvar_readreset");
}

u32 mwh_T_pvar_write(rt_instance *inst, u32 session, u32 handle, u32 buf)
{
	t_sess *s;
	t_var *v;
	const void *p;
	T_INIT();
	int rc = pvar_of(session, handle, 0, &s, &v);
	if (rc)
		return (u32)rc;
	if ((rc = val_in(inst, v, buf, &p)))
		return t_fail(inst, rc, "MPI_T_pvar_write");
	return t_ret(MPI_T_pvar_write(s->h, v->p, p));
}

/* ---- categories ------------------------------------------------------------------------ */

u32 mwh_T_category_get_num(rt_instance *inst, u32 num)
{
	int *p = mw_ptr(inst, num, 4);
	T_INIT();
	if (!p)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_category_get_num");
	return t_ret(MPI_T_category_get_num(p));
}

u32 mwh_T_category_get_info(rt_instance *inst, u32 index, u32 name, u32 name_len,
                            u32 desc, u32 desc_len, u32 num_cvars, u32 num_pvars,
                            u32 num_cats)
{
	static const char proc[] = "MPI_T_category_get_info";
	int *pc, *pp, *pk, rc;
	t_str sn, sd;
	T_INIT();
	TRY(str_out(inst, name, name_len, &sn));
	TRY(str_out(inst, desc, desc_len, &sd));
	TRY(opt(inst, num_cvars, 4, &pc));
	TRY(opt(inst, num_pvars, 4, &pp));
	TRY(opt(inst, num_cats, 4, &pk));
	if ((rc = index_ok(MPI_T_category_get_num, (int32_t)index)))
		return (u32)rc;
	rc = MPI_T_category_get_info((int)index, sn.buf, SLEN(sn), sd.buf, SLEN(sd), pc, pp, pk);
	if (rc == MPI_SUCCESS) {
		str_back(&sn);
		str_back(&sd);
	}
	return t_ret(rc);
fail:
	return t_fail(inst, rc, proc);
}

u32 mwh_T_category_get_index(rt_instance *inst, u32 name, u32 index)
{
	const char *s = mw_str(inst, name);
	int *p = mw_ptr(inst, index, 4);
	T_INIT();
	if (!s || !p)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_category_get_index");
	return t_ret(MPI_T_category_get_index(s, p));
}

/* get_cvars, get_pvars, get_categories: up to len indices. */
static u32 cat_list(rt_instance *inst, u32 index, u32 len, u32 indices,
                    int (*fn)(int, int, int[]), const char *proc)
{
	int *p = NULL;
	T_INIT();
	if ((int32_t)len < 0)
		return MW_T_ERR_INVALID;
	if (len && !(p = mw_arr(inst, indices, len, 4)))
		return t_fail(inst, MW_ERR_BUFFER, proc);
	int rc = index_ok(MPI_T_category_get_num, (int32_t)index);
	if (rc)
		return (u32)rc;
	return t_ret(fn((int)index, (int)len, p));
}

u32 mwh_T_category_get_cvars(rt_instance *inst, u32 index, u32 len, u32 indices)
{
	return cat_list(inst, index, len, indices, MPI_T_category_get_cvars,
	                "MPI_T_category_get_cvars");
}

u32 mwh_T_category_get_pvars(rt_instance *inst, u32 index, u32 len, u32 indices)
{
	return cat_list(inst, index, len, indices, MPI_T_category_get_pvars,
	                "MPI_T_category_get_pvars");
}

u32 mwh_T_category_get_categories(rt_instance *inst, u32 index, u32 len, u32 indices)
{
	return cat_list(inst, index, len, indices, MPI_T_category_get_categories,
	                "MPI_T_category_get_categories");
}

u32 mwh_T_category_changed(rt_instance *inst, u32 update)
{
	int *p = mw_ptr(inst, update, 4);
	T_INIT();
	if (!p)
		return t_fail(inst, MW_ERR_ARG, "MPI_T_category_changed");
	return t_ret(MPI_T_category_changed(p));
}
