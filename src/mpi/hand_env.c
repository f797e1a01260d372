/* hand_env.c - environmental management and process initialization
 * (MPI-3.1 chapter 8: MPI_Init, MPI_Finalize, MPI_Abort, MPI_Wtime, version
 * and processor name, MPI_Alloc_mem; 12.4's thread queries), the info
 * object (chapter 9) where the generic rules of gen.py do not suffice, and
 * the bridge's registration (mpib_register) with the env imports the
 * published binaries need besides MPI.  Most procedures here are typed
 * (src/mpi/gen/family-env.txt, which says why the others are not): their
 * generated entry checks the arguments and k carries the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;


/* ---- environment ----------------------------------------------------------- */

static u32 init_done(const mw_call *k, int rc)
{
	mw_inst = k->inst;
	if (rc == MPI_SUCCESS)
		mw_tables_init();
	return mw_call_ret(k, rc);
}

/* argc and argv are the module's own: the host library gets none. */
u32 mwh_Init(const mw_call *k, u32 argc, u32 argv)
{
	return init_done(k, MPI_Init(NULL, NULL));
}

u32 mwh_Init_thread(const mw_call *k, u32 argc, u32 argv, int required, int32_t *provided)
{
	int rc = MPI_Init_thread(NULL, NULL, mw_enum_in(MW_E_THREAD_LEVEL, required), provided);
	if (rc == MPI_SUCCESS)
		*provided = mw_enum_out(MW_E_THREAD_LEVEL, *provided);
	return init_done(k, rc);
}

u32 mwh_Initialized(const mw_call *k, int32_t *flag)
{
	return mw_call_ret(k, MPI_Initialized(flag));
}

u32 mwh_Finalized(const mw_call *k, int32_t *flag)
{
	return mw_call_ret(k, MPI_Finalized(flag));
}

u32 mwh_Finalize(const mw_call *k)
{
	if (!mw_is_active)   /* not initialized, or a second MPI_Finalize */
		return mw_call_fail(k, MW_ERR_OTHER);
	mw_orphans_wait();
	mw_idups_complete();
	int n = mw_io_pending();
	if (n)
		return mw_fail_arg(k->inst, MW_ERR_PENDING, k->obj, k->proc, "%d nonblocking "
		                   "file request%s not completed", n, n == 1 ? "" : "s");
	mw_rma_fini();
	mw_tables_fini();
	int rc = MPI_Finalize();
	if (rc == MPI_SUCCESS)
		mw_tables_clear();
	return mw_call_ret(k, rc);
}

/* comm: a bad one, or MPI_COMM_NULL, is MPI_COMM_WORLD (class comm_abort). */
u32 mwh_Abort(const mw_call *k, MPI_Comm comm, int errorcode)
{
	fflush(stdout);
	fprintf(stderr, "mpiwasm: rank %d: MPI_Abort(%d) called by the module\n",
	        mw_world_rank, errorcode);
	mw_abort_job(comm, errorcode);
}

double mwh_Wtime(const mw_call *k)
{
	return MPI_Wtime();
}

double mwh_Wtick(const mw_call *k)
{
	return MPI_Wtick();
}

u32 mwh_Query_thread(const mw_call *k, int32_t *provided)
{
	int rc = MPI_Query_thread(provided);
	if (rc == MPI_SUCCESS)
		*provided = mw_enum_out(MW_E_THREAD_LEVEL, *provided);
	return mw_call_ret(k, rc);
}

u32 mwh_Is_thread_main(const mw_call *k, int32_t *flag)
{
	return mw_call_ret(k, MPI_Is_thread_main(flag));
}

u32 mwh_Get_version(const mw_call *k, int32_t *version, int32_t *subversion)
{
	/* The module's mpi.h is MPI-3.1, whatever the host implements. */
	*version = MW_VERSION;
	*subversion = MW_SUBVERSION;
	return 0;
}

/* The string and its length are checked as they are written (class sink):
 * over the string's length only. */
u32 mwh_Get_library_version(const mw_call *k, const mw_sink *version, u32 resultlen)
{
	char buf[MPI_MAX_LIBRARY_VERSION_STRING + 64];
	int n = 0, rc = MPI_Get_library_version(buf, &n);
	if (rc)
		return mw_call_ret(k, rc);
	char out[MW_MAX_LIBRARY_VERSION_STRING];
	snprintf(out, sizeof out, "mpiwasm (MPIWASM_ABI 1) on %.200s", buf);
	if ((rc = mw_str_out(k->inst, version->addr, version->cap, resultlen, out)))
		return mw_call_fail(k, rc);
	return 0;
}

u32 mwh_Get_processor_name(const mw_call *k, const mw_sink *name, u32 resultlen)
{
	char buf[MPI_MAX_PROCESSOR_NAME + 1];
	int n = 0, rc = MPI_Get_processor_name(buf, &n);
	if (rc)
		return mw_call_ret(k, rc);
	if ((rc = mw_str_out(k->inst, name->addr, name->cap, resultlen, buf)))
		return mw_call_fail(k, rc);
	return 0;
}

/* The module's malloc allocates (a negative size reads as the unsigned
 * word it is, which it refuses: MPI_ERR_NO_MEM); memory.grow does not move
 * linear memory, so baseptr stays where the entry checked it. */
u32 mwh_Alloc_mem(const mw_call *k, MPI_Aint size, MPI_Info info, uint32_t *baseptr)
{
	uint32_t a = mw_malloc(k->inst, (uint32_t)size ? (uint32_t)size : 1, k->proc);
	mw_after(k->inst, 0);
	if (!a)
		return mw_call_fail(k, MW_ERR_NO_MEM);
	*baseptr = a;
	return 0;
}

u32 mwh_Free_mem(const mw_call *k, uint32_t base)
{
	mw_free(k->inst, base);
	return mw_after(k->inst, 0);
}

/* ---- info ---------------------------------------------------------------------- */

/* A bad slot, a predefined or a bad handle are all MPI_ERR_INFO (class
 * info_io). */
u32 mwh_Info_free(const mw_call *k, mw_info_io *info)
{
	int rc = MPI_Info_free(&info->h);
	if (rc == MPI_SUCCESS) {
		mw_info_del(info->mod);
		*info->slot = MW_INFO_NULL;
	}
	return mw_call_ret(k, rc);
}

/* The value buffer is checked only when the key is found (class sink). */
u32 mwh_Info_get(const mw_call *k, MPI_Info info, const char *key, int valuelen,
                 const mw_sink *value, int32_t *flag)
{
	/* No value is longer than MPI_MAX_INFO_VAL: a larger valuelen asks for
	 * nothing more, and MPICH 4.0 fills the whole buffer it is given (1.4 GB
	 * for valuelen 0x55555556: seconds, a fuzz-bridge hang). */
	int hl = valuelen > MPI_MAX_INFO_VAL ? MPI_MAX_INFO_VAL : valuelen;
	char *buf = malloc((size_t)hl + 1);
	if (!buf)
		return mw_call_fail(k, MW_ERR_NO_MEM);
	int rc = MPI_Info_get(info, key, hl, buf, flag);
	buf[hl] = 0;   /* Open MPI left it unterminated for valuelen 0 (found by fuzz-bridge) */
	if (rc == MPI_SUCCESS && *flag)
		rc = mw_str_out(k->inst, value->addr, (u32)hl + 1, 0, buf) ? MPI_ERR_ARG : MPI_SUCCESS;
	free(buf);
	return mw_call_ret(k, rc);
}

u32 mwh_Info_get_nthkey(const mw_call *k, MPI_Info info, int n, char *key)
{
	char buf[MPI_MAX_INFO_KEY + 1];
	int rc = MPI_Info_get_nthkey(info, n, buf);
	if (rc == MPI_SUCCESS)
		snprintf(key, MW_MAX_INFO_KEY + 1, "%s", buf);
	return mw_call_ret(k, rc);
}

/* ---- env imports the published binaries need ----------------------------------- */

static u32 env_gethostname(rt_instance *inst, u32 name, u32 len)
{
	char buf[256];
	if (gethostname(buf, sizeof buf) != 0)
		return (u32)-1;
	buf[sizeof buf - 1] = 0;
	size_t n = strlen(buf) + 1;
	if ((int32_t)len <= 0)
		return (u32)-1;
	if (n > len)
		n = len;   /* POSIX: truncated, unspecified termination */
	char *d = mw_ptr(inst, name, n);
	if (!d)
		return (u32)-1;
	memcpy(d, buf, n);
	return 0;
}

static u32 env_cxa_allocate_exception(rt_instance *inst, u32 size)
{
	/* The throw that follows reports it; the object itself is unused. */
	u32 a = mw_malloc(inst, size ? size : 1, "__cxa_allocate_exception");
	return mw_after(inst, a);
}

static void env_cxa_throw(rt_instance *inst, u32 obj, u32 tinfo, u32 dtor)
{
	fflush(stdout);
	if (mw_is_active) {
		fprintf(stderr, "mpiwasm: rank %d: C++ exception thrown (exceptions are "
		        "not supported); ending the job (mpiwasm calls MPI_Abort with "
		        "errorcode 1)\n", mw_world_rank);
		mw_abort_job(MPI_COMM_WORLD, 1);
	}
	/* (MPIWasm's published binaries throw through this import, IMB's
	 * `-help` before MPI_Init) */
	if (mw_world_rank < 0)
		rt_trap_host(inst, "C++ exception thrown before MPI was initialized "
		             "(the module throws through env.__cxa_throw, which cannot "
		             "be caught; mpiwasm-c++ builds modules whose exceptions work)");
	rt_trap_host(inst, "C++ exception thrown in rank %d (through env.__cxa_throw, "
	             "which cannot be caught; mpiwasm-c++ builds modules whose "
	             "exceptions work)", mw_world_rank);
}

extern const rt_hostfn mw_glue[];
extern const unsigned mw_glue_n;

static const rt_hostfn env_fns[] = {
	{ "env", "gethostname", "ii:i", (void *)env_gethostname },
	{ "env", "__cxa_allocate_exception", "i:i", (void *)env_cxa_allocate_exception },
	{ "env", "__cxa_throw", "iii:", (void *)env_cxa_throw },
};

void mpib_register(void)
{
	rt_host_register(mw_glue, mw_glue_n);
	rt_host_register(env_fns, sizeof env_fns / sizeof env_fns[0]);
}
