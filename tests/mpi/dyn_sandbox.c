/* dyn_sandbox.c - wasm only: dynamic processes inside the WASI sandbox.
 * run.sh grants /g (a scratch directory holding notwasm.txt, child.wasm,
 * and link_out, a symlink to ../outside.wasm beside the grant).
 *
 * MPI_Comm_spawn(_multiple) must refuse a command outside the grants
 * (absolute, "..", symlink), a file that is not a WebAssembly module, a
 * missing one and launcher info keys a module may not set, with the same
 * error class on every rank (nobody left waiting); port and status
 * buffers that overrun linear memory fail with MPI_ERR_ARG.  A module
 * beneath the grant, named by its guest path, is spawned (where the host
 * library can spawn at all: Open MPI here).
 *
 * Argument "fatal": a refused spawn under MPI_ERRORS_ARE_FATAL ends the
 * job; "fatalbuf": MPI_Open_port into a buffer off linear memory does;
 * "gtrap": a generalized request's query function that traps (called
 * from inside the library's MPI_Wait) does, reported as a trap. */
#include <stdint.h>
#include "tmpi.h"

static unsigned mem_end(void)
{
	return (unsigned)__builtin_wasm_memory_size(0) * 65536u;
}

static int cls_of(int rc)
{
	int c = -1;
	MPI_Error_class(rc, &c);
	return c;
}

/* A spawn that must be refused with class `want` on every rank. */
static void refused(const char *cmd, MPI_Info info, int want)
{
	MPI_Comm inter = MPI_COMM_NULL;
	int errs[2] = { -7, -7 };
	int rc = MPI_Comm_spawn(cmd, MPI_ARGV_NULL, 2, info, 0, MPI_COMM_WORLD, &inter, errs);
	int c = cls_of(rc);
	CHECK(rc != MPI_SUCCESS && c == want);
	if (c != want)
		tm_out("spawn of %s: class %d, expected %d", cmd, c, want);
	CHECK(inter == MPI_COMM_NULL);
	CHECK(errs[0] == -7 && errs[1] == -7);   /* untouched: nothing spawned */
}

static int trap_query(void *extra, MPI_Status *st)
{
	(void)extra;
	(void)st;
	__builtin_trap();
}

static int no_free(void *extra)
{
	(void)extra;
	return MPI_SUCCESS;
}

static int no_cancel(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS;
}

static int child(MPI_Comm parent)
{
	int fails = 0;
	char name[MPI_MAX_PORT_NAME];
	/* A child's buffers are checked like anyone's. */
	if (MPI_Open_port(MPI_INFO_NULL, (char *)(uintptr_t)(mem_end() - 8)) == MPI_SUCCESS)
		fails++;
	(void)name;
	MPI_Reduce(&fails, NULL, 1, MPI_INT, MPI_SUM, 0, parent);
	MPI_Comm_disconnect(&parent);
	MPI_Finalize();
	return 0;
}

int main(int argc, char **argv)
{
	MPI_Comm parent = MPI_COMM_NULL;
	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (parent != MPI_COMM_NULL) {
		MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		return child(parent);
	}
	if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
		MPI_Comm inter;
		MPI_Comm_spawn("/etc/passwd", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
		               MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
		printf("survived\n");
		MPI_Finalize();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "gtrap") == 0) {
		MPI_Request req;
		MPI_Grequest_start(trap_query, no_free, no_cancel, NULL, &req);
		MPI_Grequest_complete(req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		printf("survived\n");
		MPI_Finalize();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "fatalbuf") == 0) {
		MPI_Open_port(MPI_INFO_NULL, (char *)(uintptr_t)(mem_end() - 16));
		printf("survived\n");
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

	/* Escapes and non-modules. */
	refused("/etc/passwd", MPI_INFO_NULL, MPI_ERR_SPAWN);
	refused("/g/../outside.wasm", MPI_INFO_NULL, MPI_ERR_SPAWN);
	refused("/g/link_out", MPI_INFO_NULL, MPI_ERR_SPAWN);
	refused("/g/notwasm.txt", MPI_INFO_NULL, MPI_ERR_SPAWN);
	refused("/g/missing.wasm", MPI_INFO_NULL, MPI_ERR_SPAWN);
	refused("/g", MPI_INFO_NULL, MPI_ERR_SPAWN);
	/* A working directory (or any launcher key but host/soft/arch). */
	MPI_Info info;
	MPI_Info_create(&info);
	MPI_Info_set(info, "wdir", "/");
	refused("/g/child.wasm", info, MPI_ERR_INFO_KEY);
	MPI_Info_free(&info);
	{
		char *cmds[2] = { (char *)"/g/child.wasm", (char *)"/etc/passwd" };
		int maxp[2] = { 1, 1 };
		MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
		MPI_Comm inter = MPI_COMM_NULL;
		int rc = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxp, infos, 0,
		                                 MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
		CHECK(rc != MPI_SUCCESS && cls_of(rc) == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
	}
	/* An argv array off linear memory (the root reads it). */
	{
		MPI_Comm inter = MPI_COMM_NULL;
		int rc = MPI_Comm_spawn("/g/child.wasm", (char **)(uintptr_t)mem_end(), 1,
		                        MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
		                        MPI_ERRCODES_IGNORE);
		CHECK(rc != MPI_SUCCESS && cls_of(rc) == MPI_ERR_ARG);
	}

	/* Buffers off linear memory. */
	{
		MPI_Status st;
		char *end = (char *)(uintptr_t)mem_end();
		memset(&st, 0, sizeof st);
		CHECK(cls_of(MPI_Open_port(MPI_INFO_NULL, end - 100)) == MPI_ERR_ARG);
		CHECK(cls_of(MPI_Lookup_name("x", MPI_INFO_NULL, end - 8)) == MPI_ERR_ARG);
		CHECK(cls_of(MPI_Status_c2f(&st, (MPI_Fint *)(end - 8))) == MPI_ERR_ARG);
		CHECK(cls_of(MPI_Status_f2c((MPI_Fint *)(end - 20), &st)) == MPI_ERR_ARG);
		CHECK(cls_of(MPI_Status_c2f08(&st, (MPI_F08_status *)(end - 4))) == MPI_ERR_ARG);
		CHECK(cls_of(MPI_Status_c2f(MPI_STATUS_IGNORE, (MPI_Fint *)&st)) == MPI_ERR_ARG);
		CHECK(cls_of(MPI_Close_port(end)) == MPI_ERR_ARG);
		MPI_Comm inter;
		CHECK(cls_of(MPI_Comm_accept("p", MPI_INFO_NULL, 0, MPI_COMM_WORLD,
		                             (MPI_Comm *)(end - 2))) == MPI_ERR_ARG);
		(void)inter;
	}

	/* MPI_Comm_accept and MPI_Comm_connect check the port name and info
	 * at the root only, and every rank learns the verdict before the host
	 * call: a bad argument at the root fails the call on every rank (none
	 * waits for a peer), with the root's class; the arguments only the
	 * root reads are not checked elsewhere. */
	{
		char *end = (char *)(uintptr_t)mem_end();
		int rank = tm_rank(), size = tm_size();
		MPI_Comm inter = MPI_COMM_NULL, ic = MPI_COMM_NULL;
		int root = size - 1;   /* a root that is not rank 0 */
		const char *port = rank == root ? end : "p";   /* past the memory */
		MPI_Info junk = (MPI_Info)(uintptr_t)0x7ABC;
		CHECK(cls_of(MPI_Comm_accept(port, MPI_INFO_NULL, root, MPI_COMM_WORLD,
		                             &inter)) == MPI_ERR_ARG);
		CHECK(cls_of(MPI_Comm_connect(port, MPI_INFO_NULL, root, MPI_COMM_WORLD,
		                              &inter)) == MPI_ERR_ARG);
		/* A bad info at the root: MPI_ERR_INFO everywhere (a bad port
		 * elsewhere is not significant). */
		port = rank == root ? "p" : end;
		CHECK(cls_of(MPI_Comm_accept(port, rank == root ? junk : MPI_INFO_NULL, root,
		                             MPI_COMM_WORLD, &inter)) == MPI_ERR_INFO);
		CHECK(cls_of(MPI_Comm_connect(port, rank == root ? junk : MPI_INFO_NULL, root,
		                              MPI_COMM_WORLD, &inter)) == MPI_ERR_INFO);
		/* The new communicator's slot is checked first, then the port,
		 * then the info: a bad slot with a bad info is MPI_ERR_ARG. */
		CHECK(cls_of(MPI_Comm_accept("p", junk, 0, MPI_COMM_WORLD,
		                             (MPI_Comm *)(end - 2))) == MPI_ERR_ARG);
		/* One rank's bad slot fails the call on every rank. */
		CHECK(cls_of(MPI_Comm_connect("p", MPI_INFO_NULL, 0, MPI_COMM_WORLD,
		                              rank == 0 ? (MPI_Comm *)(end - 2) : &inter))
		      == MPI_ERR_ARG);
		/* An intercommunicator or MPI_COMM_NULL: MPI_ERR_COMM. */
		CHECK(cls_of(MPI_Comm_accept("p", MPI_INFO_NULL, 0, MPI_COMM_NULL,
		                             &inter)) == MPI_ERR_COMM);
		if (size >= 2) {
			MPI_Comm half;
			MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
			if (MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &ic)
			    == MPI_SUCCESS) {
				MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
				CHECK(cls_of(MPI_Comm_connect("p", MPI_INFO_NULL, 0, ic, &inter))
				      == MPI_ERR_COMM);
				MPI_Comm_free(&ic);
			}
			MPI_Comm_free(&half);
		}
		CHECK(inter == MPI_COMM_NULL);
	}

	/* A module beneath the grant, by its guest path. */
	{
		char v[MPI_MAX_LIBRARY_VERSION_STRING];
		int len = 0, errs[2] = { -7, -7 };
		MPI_Get_library_version(v, &len);
		MPI_Comm inter = MPI_COMM_NULL;
		int rc = MPI_Comm_spawn("/g/child.wasm", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
		                        MPI_COMM_WORLD, &inter, errs);
		if (strstr(v, "Open MPI"))
			CHECK(rc == MPI_SUCCESS);
		if (rc == MPI_SUCCESS) {
			int kid_fails = -1, rank = tm_rank();
			CHECK(errs[0] == MPI_SUCCESS && errs[1] == MPI_SUCCESS);
			MPI_Reduce(NULL, &kid_fails, 1, MPI_INT, MPI_SUM,
			           rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
			if (rank == 0)
				CHECK(kid_fails == 0);
			OK(MPI_Comm_disconnect(&inter));
		}
	}
	return tm_finish("dyn_sandbox") + MPI_Finalize();
}
