/* hand_dyn.c - generalized requests, status conversions, ports and
 * names, and dynamic processes.
 *
 * Generalized requests: the module's query/free/cancel functions are
 * entries of its table; the host library calls trampolines here (during
 * MPI_Wait, MPI_Test, MPI_Cancel, ...) that call them, the status staged
 * through module memory.
 *
 * Status conversions: in this ABI the C status, the Fortran status (an
 * MPI_Fint array of 6 elements: the same 24 bytes) and the F08 status
 * (toolchain/mpi.h: a typedef of MPI_Status) share one layout, so each
 * conversion is a checked copy.
 *
 * Dynamic processes: MPI_Comm_spawn's command is a module path, resolved
 * beneath the WASI grants like a file open and required to be a
 * WebAssembly module; the host spawns this mpiwasm binary with the
 * parent's engine options (read back from /proc/self/cmdline), so a
 * child has the parent's sandbox, never more.  The child runs a private
 * copy of the very file checked (--module-copy=, see src/cli/main.c),
 * never the path again: a directory swapped for a symlink after the check
 * would otherwise hand it a module from outside the grants.  Root-only arguments are
 * checked at the root and the verdict is shared before the host call,
 * so a refused spawn/accept/connect never leaves the other ranks waiting.
 * MPI_Comm_join stays refused: its argument is a host socket and a module
 * has none (a WASI descriptor is a file, a directory or stdio). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"
#include "wasi/wasi.h"

typedef uint32_t u32;

#define TRY(x) do { if ((rc = (x))) goto fail; } while (0)

/* ---- status conversions ------------------------------------------------ */

/* The three layouts are one (see the top of this file): 24 bytes, both
 * checked by the entry (class fstatus: the *_STATUS_IGNOREs, 0, are not
 * statuses). */
static u32 status_copy(const mw_status *from, mw_status *to)
{
	memmove(to, from, sizeof *to);
	return MW_SUCCESS;
}

u32 mwh_Status_c2f(const mw_call *k, mw_status *c_status, mw_status *f_status)
{ return status_copy(c_status, f_status); }
u32 mwh_Status_f2c(const mw_call *k, mw_status *f_status, mw_status *c_status)
{ return status_copy(f_status, c_status); }
u32 mwh_Status_c2f08(const mw_call *k, mw_status *c_status, mw_status *f08_status)
{ return status_copy(c_status, f08_status); }
u32 mwh_Status_f082c(const mw_call *k, mw_status *f08_status, mw_status *c_status)
{ return status_copy(f08_status, c_status); }
u32 mwh_Status_f2f08(const mw_call *k, mw_status *f_status, mw_status *f08_status)
{ return status_copy(f_status, f08_status); }
u32 mwh_Status_f082f(const mw_call *k, mw_status *f08_status, mw_status *f_status)
{ return status_copy(f08_status, f_status); }

/* ---- generalized requests ------------------------------------------------ */

typedef struct greq {
	u32 query, free, cancel;   /* module table indices */
	u32 extra;                 /* the module's extra_state */
} greq;

/* A module error code returned by a callback -> the host's code. */
static int code_to_host(int32_t m)
{
	int host;
	int32_t cls;
	if (m == MW_SUCCESS)
		return MPI_SUCCESS;
	if (mw_code_in(m, &host, &cls))
		return MPI_ERR_OTHER;
	return host >= 0 ? host : mw_class_in((int)cls);
}

/* Calls module function fn (type sig) with args; its i32 result, or
 * MPI_ERR_OTHER with the trap left in mw_pending_trap. */
static int greq_call(u32 fn, const char *sig, const char *what, rt_value *args,
                     int32_t *out)
{
	rt_instance *inst = mw_inst;
	if (mw_pending_trap)
		return MPI_ERR_OTHER;
	const rt_func *f = rt_table_func(inst, 0, fn, sig);
	if (!f) {   /* checked at MPI_Grequest_start; the table may change */
		fprintf(stderr, "mpiwasm: rank %d: generalized request: table entry %u is "
		        "no longer a %s function\n", mw_world_rank, fn, what);
		mw_pending_trap = RT_TRAP_INDIRECT_TYPE;
		return MPI_ERR_OTHER;
	}
	rt_value r = { .i32 = 0 };
	int k = rt_call(inst, f, args, &r);
	if (k) {
		mw_pending_trap = k;
		return MPI_ERR_OTHER;
	}
	*out = (int32_t)r.i32;
	return MPI_SUCCESS;
}

static int greq_query(void *state, MPI_Status *status)
{
	greq *g = state;
	rt_instance *inst = mw_inst;
	if (mw_pending_trap)
		return MPI_ERR_OTHER;
	u32 a = mw_malloc(inst, 24, "generalized request query");
	if (!a) {
		if (!mw_pending_trap)
			fprintf(stderr, "mpiwasm: rank %d: generalized request: no module "
			        "memory for the query function's status\n", mw_world_rank);
		return MPI_ERR_NO_MEM;
	}
	int32_t *m = mw_ptr(inst, a, 24);
	memset(m, 0, 24);
	m[0] = MW_ANY_SOURCE;   /* what an untouched status says */
	m[1] = MW_ANY_TAG;
	rt_value args[2] = { { .i32 = g->extra }, { .i32 = a } };
	int32_t ret = 0;
	int rc = greq_call(g->query, "ii:i", "MPI_Grequest_query_function", args, &ret);
	if (rc == MPI_SUCCESS) {
		m = mw_ptr(inst, a, 24);   /* memory may have grown, not moved */
		int32_t err = m[2];
		mw_status_in(inst, a, status);
		status->MPI_ERROR = code_to_host(err);
		rc = code_to_host(ret);
	}
	mw_free(inst, a);
	return rc;
}

static int greq_free(void *state)
{
	greq *g = state;
	rt_value args[1] = { { .i32 = g->extra } };
	int32_t ret = 0;
	int rc = greq_call(g->free, "i:i", "MPI_Grequest_free_function", args, &ret);
	free(g);   /* the library calls this exactly once */
	return rc == MPI_SUCCESS ? code_to_host(ret) : rc;
}

static int greq_cancel(void *state, int complete)
{
	greq *g = state;
	rt_value args[2] = { { .i32 = g->extra }, { .i32 = (u32)(complete != 0) } };
	int32_t ret = 0;
	int rc = greq_call(g->cancel, "ii:i", "MPI_Grequest_cancel_function", args, &ret);
	return rc == MPI_SUCCESS ? code_to_host(ret) : rc;
}

u32 mwh_Grequest_start(const mw_call *k, u32 query, u32 freefn, u32 cancel,
                       u32 extra, uint32_t *o)
{
	rt_instance *inst = k->inst;
	const char *P = k->proc;
	const char *bad = !rt_table_func(inst, 0, query, "ii:i") ? "query_fn" :
	                  !rt_table_func(inst, 0, freefn, "i:i") ? "free_fn" :
	                  !rt_table_func(inst, 0, cancel, "ii:i") ? "cancel_fn" : NULL;
	if (bad) {
		fflush(stdout);
		fprintf(stderr, "mpiwasm: rank %d: %s: %s is not a function of the right "
		        "type in the module's table\n", mw_world_rank, P, bad);
		return mw_call_fail(k, MW_ERR_ARG);
	}
	greq *g = malloc(sizeof *g);
	if (!g)
		return mw_call_fail(k, MW_ERR_NO_MEM);
	*g = (greq){ query, freefn, cancel, extra };
	MPI_Request h;
	int rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &h);
	if (rc != MPI_SUCCESS) {
		free(g);
		return mw_call_ret(k, rc);
	}
	*o = mw_req_put(h);
	mw_req_greq_set(*o);
	return mw_call_ret(k, rc);
}

/* request: a live one, not MPI_REQUEST_NULL (class reqref). */
u32 mwh_Grequest_complete(const mw_call *k, const mw_req_ref *request)
{
	/* Only a generalized request of the module, once: the host takes any
	 * request for one and completes and releases it (Open MPI 4.1: SIGSEGV
	 * in ompi_grequest_complete on a request the bridge made complete;
	 * found by fuzz-bridge). */
	if (mw_req_greq_complete(request->mod))
		return mw_fail_arg(k->inst, MW_ERR_REQUEST, k->obj, k->proc,
		                   "argument request: not a generalized request, or completed already");
	return mw_call_ret(k, MPI_Grequest_complete(request->h));
}

/* ---- ports and names --------------------------------------------------------- */

/* A port name from the module (class port): a string of fewer than the
 * module's MPI_MAX_PORT_NAME bytes, or NULL. */
const char *mw_port_in(rt_instance *inst, u32 addr)
{
	const char *s = mw_str(inst, addr);
	if (!s || strnlen(s, MW_MAX_PORT_NAME) >= MW_MAX_PORT_NAME)
		return NULL;
	return s;
}

/* A port name from the host into the module's port_name[MPI_MAX_PORT_NAME]
 * (already checked): 0, or MW_ERR_INTERN if it does not fit (a truncated
 * port name would name another port). */
static int port_out(char *dst, const char *s)
{
	size_t n = strlen(s);
	if (n >= MW_MAX_PORT_NAME)
		return MW_ERR_INTERN;
	memcpy(dst, s, n + 1);
	return 0;
}

/* The ports this process opened: only those close.  Closing any other
 * name is erroneous, and MPICH 4.0's MPI_Close_port writes through a
 * pointer it finds in a name it did not make (SIGSEGV; found by
 * fuzz-bridge with an empty name). */
static char **open_ports;
static int n_open_ports;

static int port_index(const char *s)
{
	for (int i = 0; i < n_open_ports; i++)
		if (!strcmp(open_ports[i], s))
			return i;
	return -1;
}

/* The port name's buffer is checked before the info, as written by hand
 * (args.txt). */
u32 mwh_Open_port(const mw_call *k, MPI_Info info, char *port_name)
{
	char host[MPI_MAX_PORT_NAME + 1] = "";
	int rc = MPI_Open_port(info, host);
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	if ((rc = port_out(port_name, host))) {
		fprintf(stderr, "mpiwasm: rank %d: %s: the library's port name has %zu "
		        "bytes, more than the module's MPI_MAX_PORT_NAME\n",
		        mw_world_rank, k->proc, strlen(host));
		MPI_Close_port(host);
		return mw_call_fail(k, rc);
	}
	mw_lock();
	char **v = realloc(open_ports, ((size_t)n_open_ports + 1) * sizeof *v);
	if (v && (v[n_open_ports] = strdup(host)))
		n_open_ports++;
	if (v)
		open_ports = v;
	mw_unlock();
	return MW_SUCCESS;
}

u32 mwh_Close_port(const mw_call *k, const char *port_name)
{
	mw_lock();
	int i = port_index(port_name);
	char *mine = i >= 0 ? open_ports[i] : NULL;
	if (mine)
		open_ports[i] = open_ports[--n_open_ports];
	mw_unlock();
	if (!mine)
		return mw_fail_arg(k->inst, MW_ERR_PORT, k->obj, k->proc,
		                   "argument port_name is not a port this process opened");
	int rc = MPI_Close_port(mine);
	free(mine);
	return mw_call_ret(k, rc);
}

/* The info is looked up after the strings, as written by hand (args.txt). */
u32 mwh_Publish_name(const mw_call *k, const char *service_name, MPI_Info info,
                     const char *port_name)
{ return mw_call_ret(k, MPI_Publish_name(service_name, info, port_name)); }
u32 mwh_Unpublish_name(const mw_call *k, const char *service_name, MPI_Info info,
                       const char *port_name)
{ return mw_call_ret(k, MPI_Unpublish_name(service_name, info, port_name)); }

u32 mwh_Lookup_name(const mw_call *k, const char *service_name, MPI_Info info,
                    char *port_name)
{
	char host[MPI_MAX_PORT_NAME + 1] = "";
	int rc = MPI_Lookup_name(service_name, info, host);
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	if ((rc = port_out(port_name, host)))
		return mw_call_fail(k, rc);
	return MW_SUCCESS;
}

/* ---- connecting and disconnecting ------------------------------------------ */

/* A communicator the library made for the module: the host returns
 * errors (the bridge applies the module's handler), the module's handler
 * is parent's (MW_NOCOMM: the default). */
static u32 comm_adopt(MPI_Comm nc, u32 parent)
{
	MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
	u32 h = mw_comm_put(nc);
	mw_comm_inherit(h, parent);
	return h;
}

/* The collective verdict on the arguments: every rank of c learns the
 * largest local error class, so nobody enters the library's collective
 * when one rank refused.  With `root_val`, the root's value is shared
 * too (-1 from non-roots).  0, or the class to fail with. */
static int agree(MPI_Comm c, int local, int *root_val)
{
	int in[2] = { local, root_val ? *root_val : -1 }, out[2] = { 0, -1 };
	if (MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, c) != MPI_SUCCESS)
		return local ? local : MW_ERR_OTHER;
	if (root_val)
		*root_val = out[1];
	return local ? local : out[0];
}

/* The rank in comm and whether it is root (an intracommunicator: MPI
 * says so for spawn, accept and connect).  Class rcomm's check. */
int mw_root_in(uint32_t comm, int root, mw_root *r)
{
	int inter = 0, rank = -1;
	int rc = mw_comm_get(comm, &r->h);
	if (rc)
		return rc;
	if (r->h == MPI_COMM_NULL || MPI_Comm_test_inter(r->h, &inter) != MPI_SUCCESS || inter)
		return MW_ERR_COMM;
	MPI_Comm_rank(r->h, &rank);
	r->am_root = rank == root;
	return 0;
}

/* The entry checked the port name and info at the root only and the
 * new communicator's slot everywhere; k->lc is this rank's verdict. */
static u32 accept_connect(const mw_call *k, int connect, const char *port, MPI_Info info,
                          int root, const mw_root *comm, uint32_t *o)
{
	MPI_Comm nc = MPI_COMM_NULL;
	int rc;
	if ((rc = agree(comm->h, k->lc, NULL)))
		return mw_call_fail(k, rc);
	rc = connect ? MPI_Comm_connect(port, info, root, comm->h, &nc)
	             : MPI_Comm_accept(port, info, root, comm->h, &nc);
	if (rc == MPI_SUCCESS)
		*o = nc == MPI_COMM_NULL ? MW_COMM_NULL : comm_adopt(nc, k->obj);
	return mw_call_ret(k, rc);
}

u32 mwh_Comm_accept(const mw_call *k, const char *port_name, MPI_Info info, int root,
                    const mw_root *comm, uint32_t *newcomm)
{ return accept_connect(k, 0, port_name, info, root, comm, newcomm); }
u32 mwh_Comm_connect(const mw_call *k, const char *port_name, MPI_Info info, int root,
                     const mw_root *comm, uint32_t *newcomm)
{ return accept_connect(k, 1, port_name, info, root, comm, newcomm); }

/* comm: the slot checked and read, its handle looked up (the entry). */
u32 mwh_Comm_disconnect(const mw_call *k, mw_comm_io *comm)
{
	rt_instance *inst = k->inst;
	const char *P = k->proc;
	MPI_Comm c = comm->h;
	int rc;
	u32 h = comm->mod;
	if (h == MW_COMM_WORLD || h == MW_COMM_SELF || h == MW_COMM_NULL)
		return mw_fail(inst, MW_ERR_COMM, h == MW_COMM_NULL ? MW_NOCOMM : h, P);
	/* As MPI_Comm_free: with an MPI_Comm_idup of comm pending, the host
	 * communicator goes when the last such idup completes (Open MPI 4.1
	 * crashes in the next communicator's context id agreement if it goes
	 * before: SIGSEGV in opal_progress under MPI_Comm_dup or
	 * MPI_Win_allocate, found by fuzz-bridge).  It is then freed, not
	 * disconnected. */
	/* It waits for the communicator's pending operations (MPI-3.1 10.5.4);
	 * the nonblocking ones MPI_Request_free left to the bridge (erroneous
	 * for a collective, MPI-3.1 5.12, but allowed here) are completed
	 * first: Open MPI 4.1 never completes a collective it has not
	 * progressed when its communicator goes
	 * (tests/fuzz-bridge/open/nbc-comm-free-hang.c; found by fuzz-bridge
	 * as MPI_Finalize hangs). */
	mw_orphans_complete();
	rc = mw_comm_free_later(h) ? MPI_SUCCESS : mw_comm_host_free(&c, 1);
	if (rc == MPI_SUCCESS) {
		mw_comm_del(h);
		mw_comm_set_errh(h, 0);
		*comm->slot = MW_COMM_NULL;
		return mw_ret(inst, rc, MW_NOCOMM, P);
	}
	return mw_ret(inst, rc, h, P);
}

u32 mwh_Comm_get_parent(const mw_call *k, uint32_t *o)
{
	MPI_Comm pc;
	int rc = MPI_Comm_get_parent(&pc);
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	if (pc == MPI_COMM_NULL) {
		*o = MW_COMM_NULL;
		return MW_SUCCESS;
	}
	/* The same handle each time, while the module has not freed it. */
	u32 h = mw_comm_find(pc);
	*o = h != MW_COMM_NULL ? h : comm_adopt(pc, MW_NOCOMM);
	return MW_SUCCESS;
}

/* ---- spawning ------------------------------------------------------------------ */

/* The engine's own options (everything between the program name and the
 * module on mpiwasm's command line), as the command line gave them to
 * mpib_set_engine_options(): a child runs with the same grants,
 * environment and cache.  NULL if the engine gave none (a program
 * embedding the bridge without mpiwasm's command line). */
static char *const *eng_opts;
static int eng_nopts = -1;

void mpib_set_engine_options(int n, char *const *opts)
{
	eng_opts = opts;
	eng_nopts = n;
}

static char *const *engine_opts(int *n)
{
	*n = eng_nopts;
	return eng_nopts >= 0 ? eng_opts : NULL;
}

/* Info keys a sandboxed module may give the launcher: where to start the
 * children.  Others (wdir, prefix, hostfile, preload, MCA parameters,
 * ...) could change what the child runs or reads.  "path" is the
 * bridge's own: the directories, beneath the grants, searched for a
 * command without a '/'. */
static int info_key_ok(const char *k)
{
	return !strcmp(k, "host") || !strcmp(k, "soft") || !strcmp(k, "arch");
}

/* One refusal line naming what was refused (as MPI-IO does for paths). */
static void say(const char *proc, const char *what, const char *why)
{
	fflush(stdout);
	fprintf(stderr, "mpiwasm: rank %d: %s: '%.400s': %s\n", mw_world_rank, proc, what, why);
	fflush(stderr);
}

/* One command of a spawn, prepared at the root for the host call. */
typedef struct spcmd {
	char *path;      /* the module's host path (checked): the child's argv[0] */
	char *copyopt;   /* "--module-copy=" and the private copy's path */
	char **argv;     /* copyopt, engine options, "--", path, the module's argv, NULL */
	int maxprocs;
	MPI_Info info;   /* the bridge's own copy (MPI_INFO_NULL if none) */
} spcmd;

#define COPYOPT "--module-copy="

static void spcmd_free(spcmd *s)
{
	if (s->copyopt) {
		char *copy = s->copyopt + strlen(COPYOPT), *slash = strrchr(copy, '/');
		unlink(copy);
		*slash = 0;
		rmdir(copy);
		free(s->copyopt);
	}
	free(s->path);
	free(s->argv);
	if (s->info != MPI_INFO_NULL)
		MPI_Info_free(&s->info);
	memset(s, 0, sizeof *s);
}

/* A private copy of the module open as fd, in a fresh 0700 dir under
 * $MPIWASM_SPAWN_DIR, else $TMPDIR, else /tmp (children started on other
 * nodes need a dir they share): s->copyopt names it.  The children have
 * mapped it by the time MPI_Comm_spawn returns (before their MPI_Init),
 * so spcmd_free removes it then.  0, or -1 with errno. */
static int copy_module(int fd, spcmd *s)
{
	const char *base = getenv("MPIWASM_SPAWN_DIR");
	if (!base || *base != '/')
		base = getenv("TMPDIR");
	if (!base || *base != '/')
		base = "/tmp";
	size_t n = strlen(COPYOPT) + strlen(base) + sizeof "/mpiwasm-spawn-XXXXXX/module.wasm";
	char *opt = malloc(n);
	if (!opt)
		return -1;
	snprintf(opt, n, COPYOPT "%s/mpiwasm-spawn-XXXXXX", base);
	char *copy = opt + strlen(COPYOPT);
	if (!mkdtemp(copy)) {
		free(opt);
		return -1;
	}
	strcat(copy, "/module.wasm");
	s->copyopt = opt;
	int out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return -1;
	char buf[65536];
	off_t off = 0;
	for (;;) {
		ssize_t r = pread(fd, buf, sizeof buf, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = errno;
			if (close(out) || r < 0) {
				errno = r < 0 ? e : errno;
				return -1;
			}
			return 0;
		}
		for (ssize_t w = 0; w < r;) {
			ssize_t k = write(out, buf + w, (size_t)(r - w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				int e = errno;
				close(out);
				errno = e;
				return -1;
			}
			w += k;
		}
		off += r;
	}
}

/* Checks and prepares one command at the root: 0 or a module class, with
 * a line on stderr naming the problem. */
static int spcmd_make(rt_instance *inst, const char *P, u32 cmd, u32 argv, int32_t maxprocs,
                      u32 info, spcmd *s)
{
	char hp[64], real[PATH_MAX];
	memset(s, 0, sizeof *s);
	s->info = MPI_INFO_NULL;
	const char *guest = mw_str(inst, cmd);
	if (!guest)
		return MW_ERR_ARG;
	if (maxprocs <= 0) {
		say(P, guest, "maxprocs must be positive");
		return MW_ERR_ARG;
	}
	s->maxprocs = maxprocs;
	MPI_Info mi = MPI_INFO_NULL;
	if (mw_info_get(info, &mi))
		return MW_ERR_INFO;
	/* The file, opened beneath the grants by the sandbox's resolver; the
	 * child runs a copy of what this descriptor reads. */
	char dirs[1025], cand[PATH_MAX];
	int has_path = 0, fd = -1;
	if (mi != MPI_INFO_NULL && !strchr(guest, '/') &&
	    MPI_Info_get(mi, "path", (int)sizeof dirs - 1, dirs, &has_path) != MPI_SUCCESS)
		return MW_ERR_INFO;
	char *save = NULL;
	for (char *d = has_path ? strtok_r(dirs, ":", &save) : NULL; d && fd < 0;
	     d = strtok_r(NULL, ":", &save)) {
		if (snprintf(cand, sizeof cand, "%s/%s", d, guest) >= (int)sizeof cand)
			continue;
		if ((fd = wasi_sandbox_open(cand, O_RDONLY, 0, hp, sizeof hp)) >= 0)
			guest = cand;
	}
	if (fd < 0)
		fd = wasi_sandbox_open(guest, O_RDONLY, 0, hp, sizeof hp);
	if (fd < 0) {
		int e = errno;
		say(P, guest, e == EACCES ? "outside the directories granted to the module"
		    : strerror(e));
		return MW_ERR_SPAWN;
	}
	struct stat st;
	unsigned char magic[4] = { 0 };
	ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, magic, 4, 0) : -1;
	ssize_t rl = readlink(hp, real, sizeof real - 1);
	if (got != 4 || memcmp(magic, "\0asm", 4)) {
		close(fd);
		say(P, guest, "not a WebAssembly module (a spawned command must be one)");
		return MW_ERR_SPAWN;
	}
	if (rl <= 0 || (size_t)rl >= sizeof real - 1 || real[0] != '/') {
		close(fd);
		say(P, guest, "cannot name the module's host path");
		return MW_ERR_SPAWN;
	}
	real[rl] = 0;
	int crc = copy_module(fd, s);
	int cerr = errno;
	close(fd);
	if (crc) {
		say(P, guest, cerr == ENOMEM ? "out of memory" : "cannot make a private copy for "
		    "the children (MPIWASM_SPAWN_DIR, TMPDIR)");
		return MW_ERR_SPAWN;
	}
	if (!(s->path = strdup(real)))
		return MW_ERR_NO_MEM;
	/* argv: the module's NULL-terminated array of strings. */
	int nargs = 0;
	const uint32_t *av = NULL;
	if (argv) {
		for (;; nargs++) {
			/* 64-bit: an array running off the top of memory must not
			 * wrap around to address 0. */
			const uint32_t *e = rt_mem(inst, (uint64_t)argv + 4u * (uint64_t)nargs, 4);
			if (!e || nargs > 65536)
				return MW_ERR_ARG;
			if (!*e)
				break;
			if (!mw_str(inst, *e))
				return MW_ERR_ARG;
		}
		av = mw_arr(inst, argv, (uint64_t)nargs, 4);
	}
	int nopt = 0;
	char *const *opts = engine_opts(&nopt);
	if (!opts) {
		say(P, guest, "the engine did not give its options (mpib_set_engine_options)");
		return MW_ERR_SPAWN;
	}
	s->argv = calloc((size_t)(nopt + nargs + 4), sizeof *s->argv);
	if (!s->argv)
		return MW_ERR_NO_MEM;
	int k = 0;
	s->argv[k++] = s->copyopt;   /* first: main() takes it off before the options */
	for (int i = 0; i < nopt; i++)
		s->argv[k++] = opts[i];
	s->argv[k++] = "--";
	s->argv[k++] = s->path;
	for (int i = 0; i < nargs; i++)
		s->argv[k++] = (char *)mw_str(inst, av[i]);
	s->argv[k] = NULL;
	/* Info: the allowed keys, and the parent's working directory, so
	 * relative paths among the options mean what they mean here. */
	if (MPI_Info_create(&s->info) != MPI_SUCCESS) {
		s->info = MPI_INFO_NULL;
		return MW_ERR_NO_MEM;
	}
	int nkeys = 0;
	if (mi != MPI_INFO_NULL && MPI_Info_get_nkeys(mi, &nkeys) != MPI_SUCCESS)
		return MW_ERR_INFO;
	for (int i = 0; i < nkeys; i++) {
		char key[MPI_MAX_INFO_KEY + 1], val[1025];
		int flag = 0;
		if (MPI_Info_get_nthkey(mi, i, key) != MPI_SUCCESS)
			return MW_ERR_INFO;
		if (!strcmp(key, "path"))
			continue;   /* used above */
		if (!info_key_ok(key)) {
			say(P, key, "this info key is not passed to the launcher for a sandboxed "
			    "module (allowed: host, soft, arch)");
			return MW_ERR_INFO_KEY;
		}
		if (MPI_Info_get(mi, key, (int)sizeof val - 1, val, &flag) != MPI_SUCCESS)
			return MW_ERR_INFO;
		if (flag)
			MPI_Info_set(s->info, key, val);
	}
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof cwd))
		MPI_Info_set(s->info, "wdir", cwd);
	return 0;
}

/* This mpiwasm binary, by its real path (the launcher starts the
 * children, so /proc/self/exe itself would name the launcher's). */
static const char *self_exe(void)
{
	static char exe[PATH_MAX];
	if (!exe[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0 || (size_t)n >= sizeof exe - 1)
			return NULL;
		exe[n] = 0;
	}
	return exe;
}

/* Class spcmd: at the root, every command checked and prepared (multi:
 * the arrays of count; else count 1, the arguments themselves).  0, or
 * the module class of the first refusal (sp then holds no command). */
int mw_spawn_in(rt_instance *inst, const char *P, mw_spawn *sp, int multi, u32 count,
                u32 cmds, u32 argvs, u32 maxprocs, u32 infos)
{
	int n = multi ? (int)count : 1, lc = 0;
	const uint32_t *cm = NULL, *av = NULL, *in = NULL;
	const int32_t *mp = NULL;
	sp->n = 0;
	sp->total = -1;
	sp->sc = NULL;
	if (multi && (n <= 0 || n > 4096 ||
	    !(cm = mw_arr(inst, cmds, (uint64_t)n, 4)) ||
	    !(mp = mw_arr(inst, maxprocs, (uint64_t)n, 4)) ||
	    !(in = mw_arr(inst, infos, (uint64_t)n, 4)) ||
	    (argvs && !(av = mw_arr(inst, argvs, (uint64_t)n, 4)))))
		return MW_ERR_ARG;
	if (!(sp->sc = calloc((size_t)n, sizeof *sp->sc)))
		return MW_ERR_NO_MEM;
	sp->n = n;
	/* mw_spawn_free runs on every command, also those after a bad one
	 * that were never made (MPI_INFO_NULL is not 0 in Open MPI). */
	for (int i = 0; i < n; i++)
		sp->sc[i].info = MPI_INFO_NULL;
	int total = 0;
	for (int i = 0; i < n && !lc; i++) {
		if (multi)
			lc = spcmd_make(inst, P, cm[i], av ? av[i] : 0, mp[i], in[i], &sp->sc[i]);
		else
			lc = spcmd_make(inst, P, cmds, argvs, (int32_t)maxprocs, infos, &sp->sc[i]);
		if (!lc && (total += sp->sc[i].maxprocs) > 65536)
			lc = MW_ERR_ARG;
	}
	if (lc) {
		mw_spawn_free(sp);
		return lc;
	}
	sp->total = total;
	return 0;
}

void mw_spawn_free(mw_spawn *sp)
{
	for (int i = 0; sp->sc && i < sp->n; i++)
		spcmd_free(&sp->sc[i]);
	free(sp->sc);
	sp->sc = NULL;
	sp->n = 0;
	sp->total = -1;
}

/* Class errcodes: one per child at the root, the module's own maxprocs
 * (MPI_Comm_spawn) or none elsewhere. */
int mw_errcodes_in(rt_instance *inst, mw_errcodes *e, u32 addr, int am_root, const mw_spawn *sp,
                   int32_t mine)
{
	e->p = NULL;
	e->n = 0;
	e->addr = addr;
	if (!addr)
		return 0;   /* MPI_ERRCODES_IGNORE */
	int n = am_root ? sp->total : (mine > 0 ? mine : 0);
	if (n > 65536)   /* no spawn is that large (checked at the root) */
		n = 65536;
	if (n > 0 && !(e->p = mw_arr(inst, addr, (uint64_t)n, 4)))
		return MW_ERR_ARG;
	e->n = n > 0 ? n : 0;
	return 0;
}

/* MPI_Comm_spawn (multi = 0; maxprocs: the module's own, significant at
 * the root only) and MPI_Comm_spawn_multiple.  The entry checked the
 * communicator (refused at once), the intercommunicator's slot, then at
 * the root the commands (sp), then the error codes; k->lc is this rank's
 * verdict, shared with the other ranks before the host call. */
static u32 spawn(const mw_call *k, int multi, const mw_spawn *sp, u32 maxprocs, int root,
                 const mw_root *comm, uint32_t *o, const mw_errcodes *errs)
{
	const char *P = k->proc;
	MPI_Comm c = comm->h, ic = MPI_COMM_NULL;
	int am_root = comm->am_root, rc, lc = k->lc, n = sp->n;
	const char *exe = self_exe();
	if (am_root && !lc && !exe) {
		say(P, "/proc/self/exe", "cannot read this mpiwasm's path");
		lc = MW_ERR_SPAWN;
	}
	int rtotal = am_root && !lc ? sp->total : -1, local_n = lc ? 0 : errs->n;
	if ((rc = agree(c, lc, &rtotal)))
		return mw_call_fail(k, rc);
	/* Room for whatever count the library writes here. */
	int hn = rtotal > local_n ? rtotal : local_n;
	int *hcodes = errs->addr && hn > 0 ? malloc((size_t)hn * sizeof *hcodes) : NULL;
	for (int i = 0; hcodes && i < hn; i++)
		hcodes[i] = INT_MIN;
	int *codes_arg = hcodes ? hcodes : MPI_ERRCODES_IGNORE;
	spcmd *sc = sp->sc;
	if (!multi) {
		rc = MPI_Comm_spawn(am_root ? exe : "", am_root ? sc[0].argv + 0 : MPI_ARGV_NULL,
		                    am_root ? sc[0].maxprocs : ((int32_t)maxprocs > 0 ? (int)maxprocs : 1),
		                    am_root ? sc[0].info : MPI_INFO_NULL, root, c, &ic, codes_arg);
	} else {
		char **hcmd = NULL, ***hargv = NULL;
		int *hmax = NULL;
		MPI_Info *hinfo = NULL;
		int kn = am_root ? n : 1;
		hcmd = calloc((size_t)kn, sizeof *hcmd);
		hargv = calloc((size_t)kn, sizeof *hargv);
		hmax = calloc((size_t)kn, sizeof *hmax);
		hinfo = calloc((size_t)kn, sizeof *hinfo);
		if (!hcmd || !hargv || !hmax || !hinfo) {
			rc = MPI_ERR_NO_MEM;
		} else {
			for (int i = 0; i < kn; i++) {
				hcmd[i] = (char *)(am_root ? exe : "");
				hargv[i] = am_root ? sc[i].argv : MPI_ARGV_NULL;
				hmax[i] = am_root ? sc[i].maxprocs : 1;
				hinfo[i] = am_root ? sc[i].info : MPI_INFO_NULL;
			}
			rc = MPI_Comm_spawn_multiple(am_root ? n : 1, hcmd, hargv, hmax, hinfo,
			                             root, c, &ic, codes_arg);
		}
		free(hcmd);
		free(hargv);
		free(hmax);
		free(hinfo);
	}
	if (hcodes) {
		for (int i = 0; errs->p && i < local_n && i < hn; i++)
			if (hcodes[i] != INT_MIN)
				errs->p[i] = hcodes[i] == MPI_SUCCESS ? MW_SUCCESS : mw_code_out(hcodes[i]);
		free(hcodes);
	}
	if (rc == MPI_SUCCESS)
		*o = ic == MPI_COMM_NULL ? MW_COMM_NULL : comm_adopt(ic, k->obj);
	return mw_call_ret(k, rc);
}

/* argv, info: the module's words, read at the root by the entry (class
 * spcmd); maxprocs too, and kept for the host call elsewhere. */
u32 mwh_Comm_spawn(const mw_call *k, const mw_spawn *command, uint32_t argv, uint32_t maxprocs,
                   uint32_t info, int root, const mw_root *comm, uint32_t *intercomm,
                   const mw_errcodes *array_of_errcodes)
{
	(void)argv, (void)info;
	return spawn(k, 0, command, maxprocs, root, comm, intercomm, array_of_errcodes);
}

u32 mwh_Comm_spawn_multiple(const mw_call *k, uint32_t count, const mw_spawn *array_of_commands,
                            uint32_t array_of_argv, uint32_t array_of_maxprocs,
                            uint32_t array_of_info, int root, const mw_root *comm,
                            uint32_t *intercomm, const mw_errcodes *array_of_errcodes)
{
	(void)count, (void)array_of_argv, (void)array_of_maxprocs, (void)array_of_info;
	return spawn(k, 1, array_of_commands, 0, root, comm, intercomm, array_of_errcodes);
}
