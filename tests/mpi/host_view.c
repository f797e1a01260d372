/* wasm only: what the module sees of the host through MPI_INFO_ENV and
 * MPI_T.  The script gives, as environment variables FORBID1..FORBIDn,
 * strings no value may contain: the host working directory, the engine's
 * path and directory, a --dir grant's host path, the launcher's "tcp://".
 *
 * usage: host_view.wasm restricted|unrestricted [ARGS...]
 *   restricted    (the default engine) MPI_INFO_ENV shows this module's
 *                 command and arguments and nothing of the host; no cvar
 *                 or pvar string value contains a forbidden string (they
 *                 read empty); a write to a variable off the allow-list is
 *                 MPI_T_ERR_CVAR_SET_NEVER, a collective algorithm choice
 *                 is written
 *   unrestricted  (--mpi-t-unrestricted) string values are shown and the
 *                 write off the allow-list reaches the library */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tmpi.h"

static const char *forbid[16];
static int nforbid;

/* Checks one string the module can see; where says what it is. */
static int leaks(const char *where, const char *s)
{
	for (int i = 0; i < nforbid; i++)
		if (strstr(s, forbid[i])) {
			tm_out("FAIL %s shows '%s': %.200s", where, forbid[i], s);
			tm_fail++;
			return 1;
		}
	return 0;
}

static void check_info_env(int argc, char **argv)
{
	int nkeys = 0, flag = 0;
	char key[MPI_MAX_INFO_KEY + 1], v[MPI_MAX_INFO_VAL + 1];
	OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
	for (int i = 0; i < nkeys; i++) {
		OK(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
		OK(MPI_Info_get(MPI_INFO_ENV, key, MPI_MAX_INFO_VAL, v, &flag));
		char where[MPI_MAX_INFO_KEY + 32];
		snprintf(where, sizeof where, "MPI_INFO_ENV %s", key);
		tm_checks++;
		leaks(where, v);
		leaks(where, key);
	}
	/* command and argv are the module's own */
	OK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, v, &flag));
	CHECK(flag && !strcmp(v, argv[0]));
	char want[MPI_MAX_INFO_VAL + 1] = "";
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strcat(want, " ");
		strcat(want, argv[i]);
	}
	OK(MPI_Info_get(MPI_INFO_ENV, "argv", MPI_MAX_INFO_VAL, v, &flag));
	CHECK(flag && !strcmp(v, want));
	/* the host's working directory, host names and files are not */
	static const char *const gone[] = { "wdir", "host", "file", "ompi_positioned_file_dir" };
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
		OK(MPI_Info_get(MPI_INFO_ENV, gone[i], MPI_MAX_INFO_VAL, v, &flag));
		tm_checks++;
		if (flag) {
			tm_fail++;
			tm_out("FAIL MPI_INFO_ENV has %s=%s", gone[i], v);
		}
	}
	/* a copy (MPI_Info_dup) is the same view */
	MPI_Info d;
	OK(MPI_Info_dup(MPI_INFO_ENV, &d));
	OK(MPI_Info_get(d, "command", MPI_MAX_INFO_VAL, v, &flag));
	CHECK(flag && !strcmp(v, argv[0]));
	OK(MPI_Info_free(&d));
}

/* Every cvar's name, description and (unbound) value; returns how many
 * string values were not empty. */
static int check_cvars(void)
{
	int n = 0, shown = 0;
	OK(MPI_T_cvar_get_num(&n));
	for (int i = 0; i < n; i++) {
		char name[256], desc[2048], where[300];
		int nl = sizeof name, dl = sizeof desc, verb, bind, scope, count = 0;
		MPI_Datatype dt;
		MPI_T_enum et;
		if (MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &et, desc, &dl, &bind, &scope))
			continue;
		snprintf(where, sizeof where, "cvar %s (name/description)", name);
		leaks(where, name) || leaks(where, desc);
		if (bind != MPI_T_BIND_NO_OBJECT || dt != MPI_CHAR)
			continue;
		MPI_T_cvar_handle h;
		if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
			continue;
		char *b = calloc((size_t)count + 1, 1);
		if (count > 0 && MPI_T_cvar_read(h, b) == MPI_SUCCESS) {
			snprintf(where, sizeof where, "cvar %s", name);
			tm_checks++;
			leaks(where, b);
			shown += b[0] != 0;
		}
		free(b);
		MPI_T_cvar_handle_free(&h);
	}
	return shown;
}

static int check_pvars(void)
{
	int n = 0, shown = 0;
	MPI_T_pvar_session s;
	OK(MPI_T_pvar_get_num(&n));
	OK(MPI_T_pvar_session_create(&s));
	for (int i = 0; i < n; i++) {
		char name[256], desc[2048], where[300];
		int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, at, count = 0;
		MPI_Datatype dt;
		MPI_T_enum et;
		if (MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &et, desc, &dl, &bind,
		                        &ro, &cont, &at))
			continue;
		snprintf(where, sizeof where, "pvar %s (name/description)", name);
		leaks(where, name) || leaks(where, desc);
		if (bind != MPI_T_BIND_NO_OBJECT || dt != MPI_CHAR)
			continue;
		MPI_T_pvar_handle h;
		if (MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count) != MPI_SUCCESS)
			continue;
		if (!cont)
			MPI_T_pvar_start(s, h);
		char *b = calloc((size_t)count + 1, 1);
		if (count > 0 && MPI_T_pvar_read(s, h, b) == MPI_SUCCESS) {
			snprintf(where, sizeof where, "pvar %s", name);
			tm_checks++;
			leaks(where, b);
			shown += b[0] != 0;
		}
		free(b);
		MPI_T_pvar_handle_free(s, &h);
	}
	OK(MPI_T_pvar_session_free(&s));
	return shown;
}

/* Writes an int cvar's own value back: the write's return code, or -1 if
 * the variable is not there. */
static int write_back(const char *name)
{
	int i, count = 0, v = 0, rc;
	MPI_T_cvar_handle h;
	if (MPI_T_cvar_get_index(name, &i) != MPI_SUCCESS)
		return -1;
	OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
	CHECK(count == 1);
	OK(MPI_T_cvar_read(h, &v));
	rc = MPI_T_cvar_write(h, &v);
	MPI_T_cvar_handle_free(&h);
	return rc;
}

int main(int argc, char **argv)
{
	int prov, unrestricted = argc > 1 && !strcmp(argv[1], "unrestricted");
	char var[16];
	for (nforbid = 0; nforbid < 16; nforbid++) {
		snprintf(var, sizeof var, "FORBID%d", nforbid + 1);
		if (!(forbid[nforbid] = getenv(var)) || !*forbid[nforbid])
			break;
	}
	MPI_Init(&argc, &argv);
	CHECK(nforbid >= 3);
	check_info_env(argc, argv);
	OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
	int before = nforbid;
	if (unrestricted)
		nforbid = 0;   /* values are the host's: only count them */
	int cs = check_cvars(), ps = check_pvars();
	nforbid = before;
	if (unrestricted)
		CHECK(cs > 0);
	else
		CHECK(cs == 0 && ps == 0);

	/* Off the allow-list: refused, unless unrestricted.  On it: written. */
	int off = write_back("coll_base_verbose");
	if (off == -1)
		off = write_back("MPIR_CVAR_ASYNC_PROGRESS");
	int on = write_back("coll_tuned_bcast_algorithm");
	if (on == -1)
		on = write_back("MPIR_CVAR_BCAST_INTRA_ALGORITHM");
	CHECK(off != -1 && on != -1);
	if (unrestricted)   /* the library's own answer */
		CHECK(off == MPI_SUCCESS || off == MPI_T_ERR_CVAR_SET_NOT_NOW);
	else
		CHECK(off == MPI_T_ERR_CVAR_SET_NEVER);
	CHECK(on == MPI_SUCCESS);
	OK(MPI_T_finalize());
	tm_out("%s: MPI_INFO_ENV and MPI_T checked (%s)", argv[1],
	       unrestricted ? "string values shown" : "no host paths, writes limited");
	int bad = tm_finish("host_view");
	MPI_Finalize();
	return bad;
}
