/* fam_t.c - the MPI tool information interface (MPI_T_*).  The variables
 * are the host library's (different in Open MPI and MPICH), so nothing
 * library-specific is printed: the program checks invariants that hold
 * for every variable the library has (every index has info, a name gives
 * its index back, a handle reads exactly count x size bytes, categories
 * list valid indices...) and prints what it checked. */
#include "tmpi.h"

#define GUARD 0x5a

static int ncvar, npvar, ncat;

/* One of the datatypes MPI-3.1 14.3.5 allows (plus MPI_C_BOOL, which
 * Open MPI uses), and in *size the size of its C type here (not
 * MPI_Type_size: cvars are read before MPI_Init). */
static int t_type_ok(MPI_Datatype dt, int *size)
{
	struct { MPI_Datatype dt; int size; } ok[] = {
		{ MPI_INT, sizeof(int) }, { MPI_UNSIGNED, sizeof(unsigned) },
		{ MPI_UNSIGNED_LONG, sizeof(unsigned long) },
		{ MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long) },
		{ MPI_COUNT, sizeof(MPI_Count) }, { MPI_CHAR, 1 },
		{ MPI_DOUBLE, sizeof(double) }, { MPI_C_BOOL, sizeof(_Bool) },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (dt == ok[i].dt) {
			*size = ok[i].size;
			return 1;
		}
	return 0;
}

static int bind_ok(int b)
{
	int ok[] = { MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE,
	             MPI_T_BIND_MPI_ERRHANDLER, MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP,
	             MPI_T_BIND_MPI_OP, MPI_T_BIND_MPI_REQUEST, MPI_T_BIND_MPI_WIN,
	             MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (b == ok[i])
			return 1;
	return 0;
}

static int verb_ok(int v)
{
	int ok[] = { MPI_T_VERBOSITY_USER_BASIC, MPI_T_VERBOSITY_USER_DETAIL,
	             MPI_T_VERBOSITY_USER_ALL, MPI_T_VERBOSITY_TUNER_BASIC,
	             MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
	             MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL,
	             MPI_T_VERBOSITY_MPIDEV_ALL };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (v == ok[i])
			return 1;
	return 0;
}

static int scope_ok(int s)
{
	int ok[] = { MPI_T_SCOPE_CONSTANT, MPI_T_SCOPE_READONLY, MPI_T_SCOPE_LOCAL,
	             MPI_T_SCOPE_GROUP, MPI_T_SCOPE_GROUP_EQ, MPI_T_SCOPE_ALL,
	             MPI_T_SCOPE_ALL_EQ };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (s == ok[i])
			return 1;
	return 0;
}

static int class_ok(int c)
{
	int ok[] = { MPI_T_PVAR_CLASS_STATE, MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_SIZE,
	             MPI_T_PVAR_CLASS_PERCENTAGE, MPI_T_PVAR_CLASS_HIGHWATERMARK,
	             MPI_T_PVAR_CLASS_LOWWATERMARK, MPI_T_PVAR_CLASS_COUNTER,
	             MPI_T_PVAR_CLASS_AGGREGATE, MPI_T_PVAR_CLASS_TIMER,
	             MPI_T_PVAR_CLASS_GENERIC };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (c == ok[i])
			return 1;
	return 0;
}

/* A returned string: terminated inside its buffer, *len its length + 1. */
static int str_ok(const char *s, int cap, int len)
{
	const char *z = memchr(s, 0, (size_t)cap);
	return z && len == (int)(z - s) + 1;
}

/* A description may be missing: empty, with length 0 (Open MPI). */
static int desc_ok(const char *s, int cap, int len)
{
	return (len == 0 && s[0] == 0) || str_ok(s, cap, len);
}

/* The bytes after n in a buffer filled with GUARD are untouched. */
static int guard_ok(const unsigned char *b, int n, int cap)
{
	for (int i = n; i < cap; i++)
		if (b[i] != GUARD)
			return 0;
	return 1;
}

/* ---- enumerations ------------------------------------------------------- */

static void check_enum(MPI_T_enum et)
{
	char name[256];
	int num = -1, len = sizeof name, v, rc;
	OK(MPI_T_enum_get_info(et, &num, name, &len));
	CHECK(num >= 0);
	CHECK(str_ok(name, sizeof name, len));
	for (int i = 0; i < num; i++) {
		char item[256];
		int ilen = sizeof item;
		OK(MPI_T_enum_get_item(et, i, &v, item, &ilen));
		CHECK(str_ok(item, sizeof item, ilen));
	}
	/* an item past the last (Open MPI says INVALID_INDEX) */
	len = sizeof name;
	rc = MPI_T_enum_get_item(et, num, &v, name, &len);
	CHECK(rc == MPI_T_ERR_INVALID_ITEM || rc == MPI_T_ERR_INVALID_INDEX);
}

/* ---- control variables ------------------------------------------------------ */

/* Every cvar's info; with `values`, a handle and its value (before
 * MPI_Init only: Open MPI 4.1 crashes reading some variables of the
 * components it unloaded during MPI_Init). */
static void check_cvars(int values)
{
	int enums = 0, reads = 0, writes = 0, rc;
	/* Open MPI deregisters the variables of the components it closed
	 * during MPI_Init: their indices stay, their info and values are
	 * MPI_T_ERR_INVALID_INDEX. */
	for (int i = 0; i < ncvar; i++) {
		char name[512], desc[4096];
		int nlen = sizeof name, dlen = sizeof desc, verb = -1, bind = -1, scope = -1;
		int size = 0, idx = -1, count = -1;
		MPI_Datatype dt = MPI_DATATYPE_NULL;
		MPI_T_enum et = MPI_T_ENUM_NULL;
		MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
		rc = MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &et, desc, &dlen, &bind, &scope);
		if (rc == MPI_T_ERR_INVALID_INDEX)
			continue;
		CHECK(rc == MPI_SUCCESS);
		CHECK(str_ok(name, sizeof name, nlen));
		CHECK(desc_ok(desc, sizeof desc, dlen));
		CHECK(verb_ok(verb));
		CHECK(bind_ok(bind));
		CHECK(scope_ok(scope));
		CHECK(t_type_ok(dt, &size));
		OK(MPI_T_cvar_get_index(name, &idx));
		CHECK(idx == i);
		if (et != MPI_T_ENUM_NULL && enums++ < 8)
			check_enum(et);
		if (i < 16) {
			/* length query, then a truncated copy */
			int qlen = 0, tlen = 4;
			char t[4];
			OK(MPI_T_cvar_get_info(i, NULL, &qlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
			CHECK(qlen == nlen);
			memset(t, 'x', sizeof t);
			OK(MPI_T_cvar_get_info(i, t, &tlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
			CHECK(memchr(t, 0, sizeof t) != NULL && strncmp(t, name, strlen(t)) == 0);
		}
		if (!values || bind != MPI_T_BIND_NO_OBJECT)
			continue;
		OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
		CHECK(count >= 0);
		if (count >= 0 && count <= 4096) {
			int n = count * size, cap = n + 64;
			unsigned char *b = malloc((size_t)cap);
			memset(b, GUARD, (size_t)cap);
			rc = MPI_T_cvar_read(h, b);
			CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_INVALID_INDEX);
			CHECK(guard_ok(b, rc ? 0 : n, cap));
			if (rc == MPI_SUCCESS && dt == MPI_CHAR && count > 0)
				CHECK(memchr(b, 0, (size_t)count) != NULL);
			reads += rc == MPI_SUCCESS;
			/* write an int back as it is (the library may refuse now) */
			if (rc == MPI_SUCCESS && dt == MPI_INT && count == 1 && writes < 4 &&
			    (scope == MPI_T_SCOPE_LOCAL || scope == MPI_T_SCOPE_ALL)) {
				int v0, v1 = -7, rc = MPI_T_cvar_write(h, b);
				memcpy(&v0, b, sizeof v0);
				CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_CVAR_SET_NOT_NOW ||
				      rc == MPI_T_ERR_CVAR_SET_NEVER);
				OK(MPI_T_cvar_read(h, &v1));
				CHECK(v1 == v0);
				writes++;
			}
			free(b);
		}
		OK(MPI_T_cvar_handle_free(&h));
		CHECK(h == MPI_T_CVAR_HANDLE_NULL);
	}
	CHECK(!values || ncvar == 0 || reads > 0);
	if (values)
		tm_out("cvars before MPI_Init: info, names and indices, strings, enumerations, reads and writes checked");
	else
		tm_out("cvars after MPI_Init: info, names and indices, strings, enumerations checked");
}

/* ---- performance variables ---------------------------------------------------- */

/* One pvar through a session, if it can be bound here. */
static void check_pvar_handle(MPI_T_pvar_session s, int i, MPI_Datatype dt, int size,
                              int bind, int ro, int cont)
{
	MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
	MPI_Comm comm = MPI_COMM_WORLD;
	int count = -1, rc;
	void *obj = NULL;
	if (bind == MPI_T_BIND_MPI_COMM)
		obj = &comm;
	else if (bind != MPI_T_BIND_NO_OBJECT)
		return;
	rc = MPI_T_pvar_handle_alloc(s, i, obj, &h, &count);
	if (rc != MPI_SUCCESS)
		return;   /* a component that is not in use here */
	CHECK(count >= 0);
	if (count >= 0 && count <= 4096) {
		int n = count * size, cap = n + 64;
		unsigned char *b = malloc((size_t)cap);
		memset(b, GUARD, (size_t)cap);
		if (!cont) {
			OK(MPI_T_pvar_start(s, h));
		} else {
			rc = MPI_T_pvar_start(s, h);
			CHECK(rc == MPI_T_ERR_PVAR_NO_STARTSTOP || rc == MPI_SUCCESS);
		}
		OK(MPI_T_pvar_read(s, h, b));
		CHECK(guard_ok(b, n, cap));
		if (!cont)
			OK(MPI_T_pvar_stop(s, h));
		/* read-only: Open MPI 4.1 says MPI_T_ERR_INVALID, not NO_WRITE,
		 * and MPI_T_ERR_INVALID_HANDLE to a readreset */
		rc = MPI_T_pvar_reset(s, h);
		CHECK(rc == MPI_SUCCESS || (ro && (rc == MPI_T_ERR_PVAR_NO_WRITE ||
		                                   rc == MPI_T_ERR_INVALID)));
		memset(b, GUARD, (size_t)cap);
		rc = MPI_T_pvar_readreset(s, h, b);
		CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_PVAR_NO_ATOMIC ||
		      (ro && (rc == MPI_T_ERR_PVAR_NO_WRITE || rc == MPI_T_ERR_INVALID ||
		              rc == MPI_T_ERR_INVALID_HANDLE)));
		CHECK(guard_ok(b, rc ? 0 : n, cap));
		if (ro) {
			rc = MPI_T_pvar_write(s, h, b);
			CHECK(rc == MPI_T_ERR_PVAR_NO_WRITE || rc == MPI_T_ERR_INVALID);
		}
		(void)dt;
		free(b);
	}
	OK(MPI_T_pvar_handle_free(s, &h));
	CHECK(h == MPI_T_PVAR_HANDLE_NULL);
}

static void check_pvars(void)
{
	MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL, s2 = MPI_T_PVAR_SESSION_NULL;
	MPI_T_pvar_handle h2 = MPI_T_PVAR_HANDLE_NULL;
	OK(MPI_T_pvar_session_create(&s));
	OK(MPI_T_pvar_session_create(&s2));
	CHECK(s != MPI_T_PVAR_SESSION_NULL && s2 != MPI_T_PVAR_SESSION_NULL && s != s2);
	for (int i = 0; i < npvar; i++) {
		char name[512], desc[4096];
		int nlen = sizeof name, dlen = sizeof desc, verb = -1, cls = -1, bind = -1;
		int ro = -1, cont = -1, atomic = -1, size = 0, idx = -1;
		MPI_Datatype dt = MPI_DATATYPE_NULL;
		MPI_T_enum et = MPI_T_ENUM_NULL;
		int rc = MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &et, desc, &dlen,
		                             &bind, &ro, &cont, &atomic);
		if (rc == MPI_T_ERR_INVALID_INDEX || rc == MPI_T_ERR_INVALID)
			continue;   /* gone with its component, as cvars (Open MPI) */
		CHECK(rc == MPI_SUCCESS);
		CHECK(str_ok(name, sizeof name, nlen));
		CHECK(desc_ok(desc, sizeof desc, dlen));
		CHECK(verb_ok(verb));
		CHECK(class_ok(cls));
		CHECK(bind_ok(bind));
		CHECK(t_type_ok(dt, &size));
		CHECK((ro == 0 || ro == 1) && (cont == 0 || cont == 1) && (atomic == 0 || atomic == 1));
		OK(MPI_T_pvar_get_index(name, cls, &idx));
		CHECK(idx == i);
		if (et != MPI_T_ENUM_NULL)
			check_enum(et);
		/* Open MPI 4.1.4 registers the psm2 MTL's pvars even when another
		 * PML runs (--mca pml ob1), and reading one then crashes in
		 * libpsm2 (psm2_mq_get_stats on a null queue), natively too. */
		if (!strncmp(name, "mtl_psm2_", 9))
			continue;
		check_pvar_handle(s, i, dt, size, bind, ro, cont);
		/* a handle left in s2 goes with the session */
		if (h2 == MPI_T_PVAR_HANDLE_NULL && bind == MPI_T_BIND_NO_OBJECT) {
			int c;
			if (MPI_T_pvar_handle_alloc(s2, i, NULL, &h2, &c) != MPI_SUCCESS)
				h2 = MPI_T_PVAR_HANDLE_NULL;
		}
	}
	/* every handle of a session at once */
	OK(MPI_T_pvar_start(s2, MPI_T_PVAR_ALL_HANDLES));
	OK(MPI_T_pvar_stop(s2, MPI_T_PVAR_ALL_HANDLES));
	OK(MPI_T_pvar_session_free(&s));
	OK(MPI_T_pvar_session_free(&s2));
	CHECK(s == MPI_T_PVAR_SESSION_NULL && s2 == MPI_T_PVAR_SESSION_NULL);
	tm_out("pvars: info, names and indices, sessions and handles checked");
}

/* ---- categories ----------------------------------------------------------------- */

static void check_categories(void)
{
	int stamp = -1, stamp2 = -1, idx;
	OK(MPI_T_category_changed(&stamp));
	for (int i = 0; i < ncat; i++) {
		char name[512], desc[4096];
		int nlen = sizeof name, dlen = sizeof desc, nc = -1, np = -1, nk = -1;
		int rc = MPI_T_category_get_info(i, name, &nlen, desc, &dlen, &nc, &np, &nk);
		if (rc == MPI_T_ERR_INVALID_INDEX)
			continue;   /* gone with its component (Open MPI) */
		CHECK(rc == MPI_SUCCESS);
		CHECK(str_ok(name, sizeof name, nlen));
		CHECK(desc_ok(desc, sizeof desc, dlen));
		CHECK(nc >= 0 && np >= 0 && nk >= 0);
		idx = -1;
		OK(MPI_T_category_get_index(name, &idx));
		CHECK(idx == i);
		int n = nc + np + nk + 2;
		int *v = malloc(sizeof(int) * (size_t)n);
		for (int k = 0; k < n; k++) v[k] = -1;
		OK(MPI_T_category_get_cvars(i, nc, v));
		for (int k = 0; k < nc; k++) CHECK(v[k] >= 0 && v[k] < ncvar);
		CHECK(v[nc] == -1);
		for (int k = 0; k < n; k++) v[k] = -1;
		OK(MPI_T_category_get_pvars(i, np, v));
		for (int k = 0; k < np; k++) CHECK(v[k] >= 0 && v[k] < npvar);
		CHECK(v[np] == -1);
		for (int k = 0; k < n; k++) v[k] = -1;
		OK(MPI_T_category_get_categories(i, nk, v));
		for (int k = 0; k < nk; k++) CHECK(v[k] >= 0 && v[k] < ncat);
		CHECK(v[nk] == -1);
		/* len shorter than the list: only len written */
		if (nc > 1) {
			for (int k = 0; k < n; k++) v[k] = -1;
			OK(MPI_T_category_get_cvars(i, 1, v));
			CHECK(v[0] >= 0 && v[1] == -1);
		}
		free(v);
	}
	OK(MPI_T_category_changed(&stamp2));
	CHECK(stamp2 == stamp);
	tm_out("categories: info, names and indices, member lists checked");
}

/* ---- errors ------------------------------------------------------------------------ */

static void check_errors(void)
{
	int idx, v[4], rc, count;
	MPI_T_cvar_handle h;
	/* Open MPI answers MPI_T_ERR_INVALID for a cvar index it lacks */
	rc = MPI_T_cvar_get_info(ncvar, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	CHECK(rc == MPI_T_ERR_INVALID_INDEX || rc == MPI_T_ERR_INVALID);
	rc = MPI_T_cvar_handle_alloc(ncvar, NULL, &h, &count);
	CHECK(rc == MPI_T_ERR_INVALID_INDEX || rc == MPI_T_ERR_INVALID);
	rc = MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	CHECK(rc == MPI_T_ERR_INVALID_INDEX || rc == MPI_T_ERR_INVALID);
	rc = MPI_T_category_get_cvars(ncat, 4, v);
	CHECK(rc == MPI_T_ERR_INVALID_INDEX);
	CHECK(MPI_T_cvar_get_index("mpiwasm_no_such_variable", &idx) == MPI_T_ERR_INVALID_NAME);
	CHECK(MPI_T_pvar_get_index("mpiwasm_no_such_variable", MPI_T_PVAR_CLASS_COUNTER, &idx) ==
	      MPI_T_ERR_INVALID_NAME);
	CHECK(MPI_T_category_get_index("mpiwasm_no_such_category", &idx) == MPI_T_ERR_INVALID_NAME);
	tm_out("errors: bad indices and names refused with MPI_T error classes");
}

int main(int argc, char **argv)
{
	int prov = -1, prov2 = -1, n = -1, provided;

	/* MPI_T before MPI_Init */
	OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
	CHECK(prov >= MPI_THREAD_SINGLE && prov <= MPI_THREAD_MULTIPLE);
	OK(MPI_T_cvar_get_num(&ncvar));
	CHECK(ncvar >= 0);
	tm_out("MPI_T_init_thread before MPI_Init: ok");
	check_cvars(1);
	n = ncvar;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
	/* nested: one more MPI_T_init_thread, one more MPI_T_finalize */
	OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov2));
	OK(MPI_T_cvar_get_num(&ncvar));
	OK(MPI_T_pvar_get_num(&npvar));
	OK(MPI_T_category_get_num(&ncat));
	CHECK(ncvar >= n && npvar >= 0 && ncat >= 0);

	check_cvars(0);
	check_pvars();
	check_categories();
	check_errors();

	OK(MPI_T_finalize());
	OK(MPI_T_cvar_get_num(&n));   /* still initialized once */
	OK(MPI_T_finalize());
	CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
	tm_out("MPI_T_finalize: nested calls, then not initialized");
	/* (MPI_T after MPI_Finalize is not tried: MPICH 4.0 crashes in it) */
	int st = tm_finish("fam_t");
	MPI_Finalize();
	return st;
}
