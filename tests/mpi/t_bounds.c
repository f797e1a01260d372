/* wasm only: the MPI_T bridge's own checks.  Outputs that reach outside
 * linear memory fail with MPI_ERR_BUFFER/MPI_ERR_ARG under
 * MPI_ERRORS_RETURN (and end the job under MPI_ERRORS_ARE_FATAL: argument
 * "fatal", or "preinit" before MPI_Init); handles that name nothing,
 * indices out of range and bad lengths give the MPI_T error classes the
 * Standard names, whichever library runs below (natively, some of these
 * crash Open MPI 4.1 or MPICH 4.0). */
#include "tmpi.h"
#include <stdint.h>

#define FAR ((void *)(uintptr_t)0xFFFFFFF0u)

#define IS(call, code) do { int rc_ = (call); CHECK(rc_ == (code)); \
	tm_out("%-60.60s -> %s", #call, rc_ == (code) ? #code : "unexpected"); } while (0)
/* a bridge error under MPI_ERRORS_RETURN: an MPI error class */
#define BAD(call, cls) do { int rc_ = (call), c_ = -1; MPI_Error_class(rc_, &c_); \
	CHECK(c_ == (cls)); tm_out("%-60.60s -> %s", #call, tm_class(rc_)); } while (0)

/* The last n bytes of linear memory. */
static char *mem_end(int n)
{
	return (char *)(uintptr_t)(__builtin_wasm_memory_size(0) * 65536u - (unsigned)n);
}

int main(int argc, char **argv)
{
	int prov, n, ncvar, npvar, ncat, count, v[4], idx, len;
	char name[64];
	MPI_T_cvar_handle ch;
	MPI_T_pvar_session s;
	MPI_T_pvar_handle ph;
	const char *mode = argc > 1 ? argv[1] : "";

	IS(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
	OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
	if (!strcmp(mode, "preinit")) {
		len = 100;
		MPI_T_cvar_get_info(0, FAR, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		printf("survived\n");
		return 0;
	}
	MPI_Init(&argc, &argv);
	if (!strcmp(mode, "fatal")) {
		len = 100;
		MPI_T_cvar_get_info(0, FAR, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		printf("survived\n");
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	OK(MPI_T_cvar_get_num(&ncvar));
	OK(MPI_T_pvar_get_num(&npvar));
	OK(MPI_T_category_get_num(&ncat));

	/* outputs outside linear memory */
	len = 100;
	BAD(MPI_T_cvar_get_info(0, FAR, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_ERR_BUFFER);
	BAD(MPI_T_cvar_get_info(0, name, FAR, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_ERR_ARG);
	BAD(MPI_T_cvar_get_info(0, NULL, NULL, FAR, NULL, NULL, NULL, NULL, NULL, NULL), MPI_ERR_ARG);
	len = 100;   /* 100 bytes from 50 before the end */
	BAD(MPI_T_category_get_info(0, mem_end(50), &len, NULL, NULL, NULL, NULL, NULL), MPI_ERR_BUFFER);
	BAD(MPI_T_cvar_get_num(FAR), MPI_ERR_ARG);
	BAD(MPI_T_cvar_get_index(FAR, &idx), MPI_ERR_ARG);
	BAD(MPI_T_category_get_cvars(0, 4, FAR), MPI_ERR_BUFFER);
	BAD(MPI_T_pvar_session_create(FAR), MPI_ERR_ARG);
	/* a name that fits exactly at the end of memory is fine */
	len = 4;
	OK(MPI_T_cvar_get_info(0, mem_end(4), &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
	CHECK(len <= 4 && mem_end(4)[len - 1] == 0);

	/* a value: count x size bytes, checked against the end of memory */
	for (int i = 0; i < ncvar; i++) {
		MPI_Datatype dt;
		int bind, sz;
		if (MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, &bind, NULL) ||
		    bind != MPI_T_BIND_NO_OBJECT || dt == MPI_CHAR)
			continue;
		OK(MPI_T_cvar_handle_alloc(i, NULL, &ch, &count));
		MPI_Type_size(dt, &sz);
		if (count < 1) {
			MPI_T_cvar_handle_free(&ch);
			continue;
		}
		BAD(MPI_T_cvar_read(ch, FAR), MPI_ERR_BUFFER);
		BAD(MPI_T_cvar_read(ch, mem_end(count * sz - 1)), MPI_ERR_BUFFER);
		OK(MPI_T_cvar_read(ch, mem_end(count * sz)));
		BAD(MPI_T_cvar_write(ch, FAR), MPI_ERR_BUFFER);
		OK(MPI_T_cvar_handle_free(&ch));
		break;
	}

	/* indices and lengths */
	IS(MPI_T_cvar_get_info(ncvar, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
	IS(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
	IS(MPI_T_cvar_handle_alloc(-1, NULL, &ch, &count), MPI_T_ERR_INVALID_INDEX);
	IS(MPI_T_pvar_get_info(npvar, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
	IS(MPI_T_pvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
	IS(MPI_T_category_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
	IS(MPI_T_category_get_pvars(ncat, 4, v), MPI_T_ERR_INVALID_INDEX);
	IS(MPI_T_category_get_cvars(0, -1, v), MPI_T_ERR_INVALID);
	len = -5;
	IS(MPI_T_cvar_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID);
	IS(MPI_T_pvar_get_index("x", 12345, &idx), MPI_T_ERR_INVALID_NAME);

	/* handles that name nothing */
	IS(MPI_T_enum_get_info(12345, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_enum_get_item(12345, 0, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_cvar_read(777, v), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_cvar_write(777, v), MPI_T_ERR_INVALID_HANDLE);
	ch = 777;
	IS(MPI_T_cvar_handle_free(&ch), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_pvar_start(4242, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
	OK(MPI_T_pvar_session_create(&s));
	IS(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, v), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_pvar_write(s, 99, v), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_pvar_readreset(s, 99, v), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_pvar_reset(s, 99), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_pvar_stop(s, 99), MPI_T_ERR_INVALID_HANDLE);
	ph = 99;
	IS(MPI_T_pvar_handle_free(s, &ph), MPI_T_ERR_INVALID_HANDLE);
	IS(MPI_T_pvar_handle_alloc(4242, 0, NULL, &ph, &count), MPI_T_ERR_INVALID_SESSION);
	OK(MPI_T_pvar_session_free(&s));
	IS(MPI_T_pvar_session_free(&s), MPI_T_ERR_INVALID_SESSION);

	/* an enumeration's items, and a pvar bound to a communicator that is not one
	 * (Open MPI has both; MPICH neither) */
	for (int i = 0; i < ncvar; i++) {
		MPI_T_enum et;
		if (MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, &et, NULL, NULL, NULL, NULL) ||
		    et == MPI_T_ENUM_NULL)
			continue;
		OK(MPI_T_enum_get_info(et, &n, NULL, NULL));
		CHECK(MPI_T_enum_get_item(et, n, &idx, NULL, NULL) == MPI_T_ERR_INVALID_ITEM);
		CHECK(MPI_T_enum_get_item(et, -1, &idx, NULL, NULL) == MPI_T_ERR_INVALID_ITEM);
		break;
	}
	OK(MPI_T_pvar_session_create(&s));
	for (int i = 0; i < npvar; i++) {
		int bind;
		MPI_Comm bogus = (MPI_Comm)9999;
		if (MPI_T_pvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &bind,
		                        NULL, NULL, NULL) || bind != MPI_T_BIND_MPI_COMM)
			continue;
		CHECK(MPI_T_pvar_handle_alloc(s, i, &bogus, &ph, &count) == MPI_T_ERR_INVALID_HANDLE);
		CHECK(MPI_T_pvar_handle_alloc(s, i, FAR, &ph, &count) == MPI_ERR_ARG);
		break;
	}
	OK(MPI_T_pvar_session_free(&s));
	OK(MPI_T_finalize());
	IS(MPI_T_pvar_session_create(&s), MPI_T_ERR_NOT_INITIALIZED);

	int st = tm_finish("t_bounds");
	MPI_Finalize();
	return st;
}
