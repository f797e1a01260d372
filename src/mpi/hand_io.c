/* hand_io.c - MPI-IO (MPI_File_*) on the host's MPI library, inside the
 * WASI sandbox.
 *
 * A module names files by GUEST paths.  Every rank resolves its own name
 * beneath the directories granted to the module (wasi_sandbox_open, as
 * WASI's path_open would: "..", absolute paths outside every grant and
 * symlinks leading out are refused; a --dir-ro grant refuses writing and
 * creation) and hands the library "/proc/self/fd/N", which names the very
 * file it checked whatever is renamed afterwards.  A rank whose name does
 * not resolve makes the open fail on every rank (an Allreduce of the
 * outcome before the library's collective open), so nothing hangs.
 *
 * What the library would do with the file's NAME is done here instead,
 * since "/proc/self/fd/N" has no directory of its own: MPI_MODE_EXCL and
 * MPI_MODE_DELETE_ON_CLOSE (through a descriptor of the file's directory,
 * beneath the grant), MPI_MODE_APPEND, and the shared file pointer (ROMIO
 * keeps it in a hidden file beside the data file): here it is one 64-bit
 * counter in an MPI window at rank 0 of the file's communicator, advanced
 * with MPI_Fetch_and_op; shared and ordered accesses become explicit-offset
 * accesses at the offsets it hands out.
 *
 * Files have their own error handlers (MPI_ERRORS_RETURN by default, the
 * one of MPI_FILE_NULL for MPI_File_open/MPI_File_delete and invalid file
 * handles), run here like the communicators' ones in mpib.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"
#include "wasi/wasi.h"

typedef uint32_t u32;
typedef uint64_t u64;

/* A user error handler lives in the module (hand_err.c). */
int mw_errh_call(rt_instance *inst, uint32_t eh, uint32_t comm, int cls);

/* ---- file handles -------------------------------------------------------- */

enum { SPLIT_NONE, SPLIT_READ, SPLIT_WRITE };

typedef struct mwf {
	MPI_File h;            /* MPI_FILE_NULL marks a free slot */
	MPI_Comm comm;         /* the bridge's own duplicate of the open's comm */
	MPI_Win win;           /* shared file pointer: int64 at comm rank 0 */
	int rank;
	u32 amode;             /* as the module gave it */
	u32 eh;                /* module error handler */
	u32 etype, ftype;      /* module handles given to the last set_view */
	MPI_Count esize;       /* etype size in bytes */
	int dirfd;             /* DELETE_ON_CLOSE (comm rank 0): directory ... */
	char *last;            /* ... and the name in it */
	int split;             /* split collective under way */
	const void *split_buf;
	MPI_Status split_st;   /* ... done at its begin: the status for its end */
	int pending;           /* its nonblocking requests not released yet */
} mwf;

static mwf *ft;
static u32 ft_n, ft_cap;
static u32 file_null_eh = MW_ERRORS_RETURN;   /* MPI_FILE_NULL's handler */
static int host_eh_set;

/* A file's nonblocking requests are counted until their slots go (the
 * wait, test or free that ends them): MPI_File_close refuses while any is
 * left, since Open MPI frees the file and a later wait on one of them used
 * it (found by fuzz-bridge). */
static void io_done(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	if (i < ft_n && ft[i].pending > 0)
		ft[i].pending--;
}

static void io_req(mwf *f, uint32_t *r, MPI_Request hr)
{
	*r = mw_req_put(hr);
	f->pending++;
	mw_req_attach(*r, io_done, (void *)(uintptr_t)(f - ft));
}

int mw_io_pending(void)
{
	int n = 0;
	for (u32 i = 0; i < ft_n; i++)
		if (ft[i].h != MPI_FILE_NULL)
			n += ft[i].pending;
	return n;
}

static mwf *f_get(u32 h)
{
	if (h == MW_FILE_NULL || h >= ft_n || ft[h].h == MPI_FILE_NULL)
		return NULL;
	return &ft[h];
}

int mw_file_hget(u32 h, MPI_File *out)
{
	mwf *f = f_get(h);
	if (!f)
		return MW_ERR_FILE;
	*out = f->h;
	return 0;
}

/* A free slot, claimed for host file h (under mw_lock: threads may open
 * files at once).  The table grows into a new array and the old one is
 * kept, not freed: another thread may hold a pointer from f_get. */
static u32 f_new(MPI_File h)
{
	u32 i = 0;
	mw_lock();
	for (u32 k = 1; k < ft_n && !i; k++)
		if (ft[k].h == MPI_FILE_NULL)
			i = k;
	if (!i && (ft_n + 1 >= ft_cap || !ft)) {
		u32 cap = ft_cap ? ft_cap * 2 : 16;
		mwf *v = malloc(cap * sizeof *v);
		if (!v) {
			mw_unlock();
			return 0;
		}
		if (ft_cap)
			memcpy(v, ft, ft_cap * sizeof *v);
		for (u32 j = ft_cap; j < cap; j++)
			v[j].h = MPI_FILE_NULL;
		ft = v;
		ft_cap = cap;
	}
	if (!i) {
		if (ft_n == 0)
			ft_n = 1;   /* 0 is MPI_FILE_NULL */
		i = ft_n++;
	}
	ft[i].h = h;
	mw_unlock();
	return i;
}

/* ---- errors ---------------------------------------------------------------- */

static const char *class_name(int cls)
{
	static const struct { int c; const char *n; } t[] = {
		{ MW_ERR_BUFFER, "MPI_ERR_BUFFER" }, { MW_ERR_COUNT, "MPI_ERR_COUNT" },
		{ MW_ERR_TYPE, "MPI_ERR_TYPE" }, { MW_ERR_COMM, "MPI_ERR_COMM" },
		{ MW_ERR_REQUEST, "MPI_ERR_REQUEST" }, { MW_ERR_ARG, "MPI_ERR_ARG" },
		{ MW_ERR_OTHER, "MPI_ERR_OTHER" }, { MW_ERR_INTERN, "MPI_ERR_INTERN" },
		{ MW_ERR_ACCESS, "MPI_ERR_ACCESS" }, { MW_ERR_AMODE, "MPI_ERR_AMODE" },
		{ MW_ERR_BAD_FILE, "MPI_ERR_BAD_FILE" },
		{ MW_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS" },
		{ MW_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE" }, { MW_ERR_FILE, "MPI_ERR_FILE" },
		{ MW_ERR_INFO, "MPI_ERR_INFO" }, { MW_ERR_IO, "MPI_ERR_IO" },
		{ MW_ERR_NO_MEM, "MPI_ERR_NO_MEM" }, { MW_ERR_NOT_SAME, "MPI_ERR_NOT_SAME" },
		{ MW_ERR_NO_SPACE, "MPI_ERR_NO_SPACE" },
		{ MW_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE" },
		{ MW_ERR_QUOTA, "MPI_ERR_QUOTA" }, { MW_ERR_READ_ONLY, "MPI_ERR_READ_ONLY" },
		{ MW_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP" },
		{ MW_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION" },
		{ MW_ERR_CONVERSION, "MPI_ERR_CONVERSION" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].c == cls)
			return t[i].n;
	return "MPI error";
}

/* The handler of file fh (a free or bad handle: MPI_FILE_NULL's) decides:
 * return the class, run the module's handler, or end the job. */
static u32 f_raise(rt_instance *inst, int cls, const char *detail, u32 fh,
                   const char *proc)
{
	if (mw_proc_as) {   /* a large-count version's name */
		proc = mw_proc_as;
		mw_proc_as = NULL;
	}
	if (!mw_is_active)   /* mpib.c says "not initialized" / "finalized" */
		return mw_fail(inst, cls, MW_NOCOMM, proc);
	mwf *f = f_get(fh);
	u32 eh = f ? f->eh : file_null_eh;
	if (eh == MW_ERRORS_RETURN)
		return (u32)cls;
	if (eh != MW_ERRORS_ARE_FATAL && eh != MW_ERRHANDLER_NULL &&
	    mw_errh_call(inst, eh, f ? fh : MW_FILE_NULL, cls) == 0)
		return (u32)cls;
	char line[768];
	int n = snprintf(line, sizeof line, "mpiwasm: rank %d: %s: %s (%s); ending the job "
	                 "(mpiwasm calls MPI_Abort with errorcode %d)\n",
	                 mw_world_rank, proc, detail, class_name(cls), cls);
	fflush(stdout);
	if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
		n = 0;
	mw_abort_job(MPI_COMM_WORLD, cls);
}

static u32 f_fail(rt_instance *inst, int cls, u32 fh, const char *proc)
{
	const char *why;
	switch (cls) {
	case MW_ERR_BUFFER: why = "buffer lies outside linear memory"; break;
	case MW_ERR_FILE: why = "invalid file handle"; break;
	case MW_ERR_TYPE: why = "invalid datatype handle"; break;
	case MW_ERR_COMM: why = "invalid communicator handle"; break;
	case MW_ERR_INFO: why = "invalid info handle"; break;
	case MW_ERR_COUNT: why = "invalid count"; break;
	case MW_ERR_AMODE: why = "invalid access mode"; break;
	case MW_ERR_ARG: why = "invalid argument (pointer outside linear memory?)"; break;
	case MW_ERR_NO_MEM: why = "out of memory"; break;
	default: why = "invalid argument"; break;
	}
	return f_raise(inst, cls, why, fh, proc);
}

u32 mw_file_fail(rt_instance *inst, int cls, u32 fh, const char *proc,
                 const char *detail)
{
	return f_raise(inst, cls, detail, fh, proc);
}

/* A host return code: its last, most specific line of text as detail. */
static u32 f_ret(rt_instance *inst, int rc, u32 fh, const char *proc)
{
	if (rc == MPI_SUCCESS)
		return mw_after(inst, MW_SUCCESS);
	mw_after(inst, 0);
	char msg[MPI_MAX_ERROR_STRING + 1] = "";
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	char *s = msg, *nl;
	while ((nl = strchr(s, '\n')) && nl[1])
		s = nl + 1;
	if ((nl = strchr(s, '\n')))
		*nl = 0;
	return f_raise(inst, mw_code_out(rc), *s ? s : "error", fh, proc);
}

/* The typed procedures' file and errors (mpib_int.h). */
struct mwf *mw_file_of(u32 fh)
{
	return f_get(fh);
}

u32 mw_file_kfail(const mw_call *k, int cls)
{
	return f_fail(k->inst, cls, k->obj, k->proc);
}

u32 mw_file_kret(const mw_call *k, int rc)
{
	return f_ret(k->inst, rc, k->obj, k->proc);
}

/* ---- names beneath the grants ---------------------------------------------- */

static int errno_class(int e)
{
	switch (e) {
	case EACCES: case EPERM: return MW_ERR_ACCESS;
	case EROFS: return MW_ERR_READ_ONLY;
	case ENOENT: return MW_ERR_NO_SUCH_FILE;
	case EEXIST: return MW_ERR_FILE_EXISTS;
	case ENOSPC: return MW_ERR_NO_SPACE;
	case EDQUOT: return MW_ERR_QUOTA;
	case ENOMEM: return MW_ERR_NO_MEM;
	case EISDIR: case ENOTDIR: case ENAMETOOLONG: case ELOOP: case EINVAL:
		return MW_ERR_BAD_FILE;
	default: return MW_ERR_IO;
	}
}

static const char *errno_text(int e)
{
	switch (e) {
	case EACCES: return "outside the directories granted to the module";
	case EROFS: return "below a read-only grant (--dir-ro)";
	default: return strerror(e);
	}
}

/* One line that names the path the sandbox refused; the module gets the
 * class (or its handler runs) like for any other error. */
static void say_refused(const char *proc, const char *path, int e)
{
	fflush(stdout);
	fprintf(stderr, "mpiwasm: rank %d: %s: '%s': %s\n", mw_world_rank, proc,
	        path, errno_text(e));
	fflush(stderr);
}

/* Splits a guest path into its directory (guest path, malloc'd) and its
 * last component; 0 or an errno. */
static int split_path(const char *path, char **dir, char **last)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *end = path + n, *s = end;
	while (s > path && s[-1] != '/')
		s--;
	size_t ln = (size_t)(end - s);
	if (ln == 0 || (ln == 1 && s[0] == '.') || (ln == 2 && s[0] == '.' && s[1] == '.'))
		return EISDIR;
	if (s == path)
		*dir = strdup(".");
	else if (s - 1 == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, (size_t)(s - 1 - path));
	*last = strndup(s, ln);
	if (!*dir || !*last) {
		free(*dir);
		free(*last);
		return ENOMEM;
	}
	return 0;
}

/* The directory holding `path`, opened beneath its grant, for removing a
 * name in it (a read-only grant refuses).  Returns the descriptor and
 * *last the name (malloc'd), or -1 with errno and *last NULL (the caller
 * frees *last on every path, so a failure must not leave it set). */
static int open_parent(const char *path, char **last)
{
	char *dir = NULL, hp[64];
	*last = NULL;
	int e = split_path(path, &dir, last);
	if (e) {
		*last = NULL;   /* split_path freed what it made */
		errno = e;
		return -1;
	}
	char *check = wasi_sandbox_path(path, true);   /* grant, read-only, escape */
	if (!check) {
		e = errno;
		free(dir);
		free(*last);
		*last = NULL;
		errno = e;
		return -1;
	}
	free(check);
	int fd = wasi_sandbox_open(dir, O_RDONLY | O_DIRECTORY, 0, hp, sizeof hp);
	e = errno;
	free(dir);
	if (fd < 0) {
		free(*last);
		*last = NULL;
		errno = e;
	}
	return fd;
}

/* ---- access modes ----------------------------------------------------------- */

/* Module amode -> host amode, without the bits the bridge does itself
 * (EXCL, APPEND, DELETE_ON_CLOSE, SEQUENTIAL); 0 or MW_ERR_AMODE. */
static int amode_in(u32 m, int *host, int *oflags)
{
	static const struct { u32 m; int h; } bits[] = {
		{ MW_MODE_RDONLY, MPI_MODE_RDONLY }, { MW_MODE_WRONLY, MPI_MODE_WRONLY },
		{ MW_MODE_RDWR, MPI_MODE_RDWR }, { MW_MODE_CREATE, MPI_MODE_CREATE },
		{ MW_MODE_UNIQUE_OPEN, MPI_MODE_UNIQUE_OPEN },
		/* The bridge keeps the shared file pointer and accesses at
		 * explicit offsets, which ROMIO refuses on a sequential file. */
		{ MW_MODE_SEQUENTIAL, 0 },
		{ MW_MODE_EXCL, 0 }, { MW_MODE_APPEND, 0 }, { MW_MODE_DELETE_ON_CLOSE, 0 },
	};
	u32 known = 0;
	int h = 0;
	for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
		known |= bits[i].m;
		if (m & bits[i].m)
			h |= bits[i].h;
	}
	int acc = !!(m & MW_MODE_RDONLY) + !!(m & MW_MODE_WRONLY) + !!(m & MW_MODE_RDWR);
	if ((m & ~known) || acc != 1 ||
	    ((m & MW_MODE_RDONLY) && (m & (MW_MODE_CREATE | MW_MODE_EXCL))) ||
	    ((m & MW_MODE_RDWR) && (m & MW_MODE_SEQUENTIAL)))
		return MW_ERR_AMODE;
	*host = h;
	*oflags = (m & MW_MODE_RDONLY) ? O_RDONLY : (m & MW_MODE_WRONLY) ? O_WRONLY : O_RDWR;
	return 0;
}

/* ---- the shared file pointer ------------------------------------------------ */

static int sfp_op(mwf *f, int64_t val, MPI_Op op, int64_t *old)
{
	int64_t dummy;
	int rc = MPI_Win_lock(op == MPI_NO_OP ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, 0, 0,
	                      f->win);
	if (rc == MPI_SUCCESS) {
		rc = MPI_Fetch_and_op(&val, old ? old : &dummy, MPI_INT64_T, 0, 0, op, f->win);
		int rc2 = MPI_Win_unlock(0, f->win);
		if (rc == MPI_SUCCESS)
			rc = rc2;
	}
	return rc;
}

/* Collective: rank 0 sets the pointer, nobody goes on before it is set. */
static int sfp_set(mwf *f, int64_t v)
{
	int rc = f->rank == 0 ? sfp_op(f, v, MPI_REPLACE, NULL) : MPI_SUCCESS;
	int rc2 = MPI_Barrier(f->comm);
	return rc ? rc : rc2;
}

/* count elements of dt in etypes of the view; 0 or MW_ERR_TYPE. */
static int in_etypes(mwf *f, int count, const mw_dtype *d, int64_t *n)
{
	int64_t bytes = (int64_t)count * (int64_t)d->size;
	if (f->esize <= 0 || bytes % f->esize)
		return MW_ERR_TYPE;
	*n = bytes / f->esize;
	return 0;
}

/* Ordered access: offsets in rank order from the shared pointer, which
 * moves past them all.  Collective over the file's communicator. */
static int ordered_offset(mwf *f, int64_t n, MPI_Offset *off)
{
	int64_t pre = 0, tot = 0, base = 0;
	int rc = MPI_Exscan(&n, &pre, 1, MPI_INT64_T, MPI_SUM, f->comm);
	if (rc == MPI_SUCCESS)
		rc = MPI_Allreduce(&n, &tot, 1, MPI_INT64_T, MPI_SUM, f->comm);
	if (rc == MPI_SUCCESS && f->rank == 0)
		rc = sfp_op(f, tot, MPI_SUM, &base);
	int rc2 = MPI_Bcast(&base, 1, MPI_INT64_T, 0, f->comm);
	if (rc == MPI_SUCCESS)
		rc = rc2;
	if (f->rank == 0)
		pre = 0;   /* MPI_Exscan leaves rank 0's result undefined */
	*off = (MPI_Offset)(base + pre);
	return rc;
}

/* ---- open, close, delete ----------------------------------------------------- */

/* Class gpath: the only way a handler opens a module's file name. */
int mw_gpath_open(const mw_gpath *g, int flags, unsigned mode, char *hp, size_t hpsize)
{
	return wasi_sandbox_open(g->guest, flags, (mode_t)mode, hp, hpsize);
}

/* The entry checked the name and the slot (MW_ERR_ARG), then the info, and
 * left this rank's verdict in k->lc; the access mode is checked here, then
 * the name beneath the grants, and the ranks agree before the host's open. */
u32 mwh_File_open(const mw_call *k, MPI_Comm c, const mw_gpath *filename, int amode,
                  MPI_Info in, uint32_t *out)
{
	rt_instance *inst = k->inst;
	const char *P = k->proc;
	int rc = 0, hmode = 0, oflags = 0, rank = 0, fd = -1, dirfd = -1;
	char hp[64] = "", *last = NULL;
	const char *path = filename->guest;
	if (!host_eh_set) {   /* the bridge runs the module's handlers */
		MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
		host_eh_set = 1;
	}
	MPI_Comm_rank(c, &rank);
	/* Local checks first, but the verdict is collective: every rank
	 * learns that one failed, nobody waits in the library's open. */
	int lc = k->lc, lc0 = 0, e = 0, saved_errno = 0;
	if (!lc)
		lc = amode_in((u32)amode, &hmode, &oflags);
	/* With MPI_MODE_CREATE rank 0 creates the file (EXCL: only if new),
	 * then the others open what it made. */
	int create = lc == 0 && (amode & MW_MODE_CREATE);
	for (int step = create ? 0 : 1; step < 2; step++) {
		int mine = create ? (step == 0) == (rank == 0) : 1;
		if (mine && lc == 0 && lc0 == 0) {
			int fl = oflags;
			if (step == 0)
				fl |= O_CREAT | ((amode & MW_MODE_EXCL) ? O_EXCL : 0);
			fd = mw_gpath_open(filename, fl, 0666, hp, sizeof hp);
			if (fd < 0) {
				e = errno;
				lc = errno_class(e);
			} else if ((amode & MW_MODE_DELETE_ON_CLOSE) && rank == 0) {
				dirfd = open_parent(path, &last);
				if (dirfd < 0) {
					e = errno;
					lc = errno_class(e);
				}
			}
			saved_errno = e;
		}
		/* Rank 0's outcome (the others skip their open if it failed). */
		if (step == 0) {
			lc0 = lc;
			if ((rc = MPI_Bcast(&lc0, 1, MPI_INT, 0, c)))
				goto host_fail;
		}
	}
	int all = 0;
	if ((rc = MPI_Allreduce(&lc, &all, 1, MPI_INT, MPI_MAX, c)))
		goto host_fail;
	if (all) {
		if (fd >= 0)
			close(fd);
		if (dirfd >= 0)
			close(dirfd);
		free(last);
		if (lc && saved_errno) {
			char why[512];
			snprintf(why, sizeof why, "'%.400s': %s", path, errno_text(saved_errno));
			if (saved_errno == EACCES || saved_errno == EROFS) {
				if ((file_null_eh == MW_ERRORS_RETURN || file_null_eh >= 4))
					say_refused(P, path, saved_errno);
			}
			return f_raise(inst, lc, why, MW_FILE_NULL, P);
		}
		if (lc)
			return f_fail(inst, lc, MW_FILE_NULL, P);
		return f_raise(inst, all, "another rank could not open its file",
		               MW_FILE_NULL, P);
	}
	MPI_File h = MPI_FILE_NULL;
	rc = MPI_File_open(c, hp, hmode, in, &h);
	close(fd);
	fd = -1;
	if (rc != MPI_SUCCESS) {
		if (dirfd >= 0)
			close(dirfd);
		free(last);
		return f_ret(inst, rc, MW_FILE_NULL, P);
	}
	MPI_File_set_errhandler(h, MPI_ERRORS_RETURN);
	u32 m = f_new(h);
	mwf *f = m ? &ft[m] : NULL;
	void *base = NULL;
	if (!f) {
		MPI_File_close(&h);
		if (dirfd >= 0)
			close(dirfd);
		free(last);
		return f_fail(inst, MW_ERR_NO_MEM, MW_FILE_NULL, P);
	}
	memset(f, 0, sizeof *f);
	f->h = h;
	f->rank = rank;
	f->amode = amode;
	f->eh = file_null_eh;
	mw_errh_retain(f->eh);
	f->etype = f->ftype = MW_BYTE;
	f->esize = 1;
	f->dirfd = dirfd;
	f->last = last;
	f->win = MPI_WIN_NULL;
	rc = MPI_Comm_dup(c, &f->comm);
	if (rc == MPI_SUCCESS)
		rc = MPI_Win_allocate(rank == 0 ? 8 : 0, 8, MPI_INFO_NULL, f->comm, &base,
		                      &f->win);
	int64_t start = 0;
	if (rc == MPI_SUCCESS && (amode & MW_MODE_APPEND)) {
		/* Every file pointer starts at the end (the view is bytes now). */
		MPI_Offset size = 0;
		rc = MPI_File_get_size(h, &size);
		if (rc == MPI_SUCCESS)
			rc = MPI_File_seek(h, size, MPI_SEEK_SET);
		start = size;
	}
	if (rc == MPI_SUCCESS)
		rc = sfp_set(f, start);
	if (rc != MPI_SUCCESS) {
		if (f->win != MPI_WIN_NULL)
			MPI_Win_free(&f->win);
		if (f->comm != MPI_COMM_NULL)
			MPI_Comm_free(&f->comm);
		MPI_File_close(&f->h);
		f->h = MPI_FILE_NULL;
		mw_errh_release(f->eh);
		if (dirfd >= 0)
			close(dirfd);
		free(last);
		return f_ret(inst, rc, MW_FILE_NULL, P);
	}
	*out = m;
	return 0;
host_fail:
	if (fd >= 0)
		close(fd);
	if (dirfd >= 0)
		close(dirfd);
	free(last);
	return f_ret(inst, rc, MW_FILE_NULL, P);
}

/* Typed procedures (family-io.txt): glue.c's entry checked the arguments;
 * k->obj is the file (MPI_FILE_NULL where there is none), and
 * mw_call_ret/mw_call_fail raise on its handler (mw_file_kret/kfail). */
u32 mwh_File_close(const mw_call *k, mw_file_io *q)
{
	mwf *f = f_get(q->mod);
	/* A request of the file that MPI_Request_free left to the bridge is
	 * complete (every access is done at initiation): released here, not
	 * counted as pending (else the close was refused and MPICH's UCX
	 * asserted at MPI_Finalize on the open file's window). */
	mw_orphans_test();
	if (f->pending)
		return f_fail(k->inst, MW_ERR_PENDING, q->mod, k->proc);
	int rc = MPI_File_close(&f->h);
	int rc2 = MPI_Win_free(&f->win);
	int rc3 = MPI_Comm_free(&f->comm);
	if (f->dirfd >= 0) {
		/* After the library closed it, as MPI_MODE_DELETE_ON_CLOSE says. */
		if (rc == MPI_SUCCESS && unlinkat(f->dirfd, f->last, 0) < 0)
			rc = MPI_ERR_IO;
		close(f->dirfd);
	}
	free(f->last);
	u32 eh = f->eh;
	f->h = MPI_FILE_NULL;
	*q->slot = MW_FILE_NULL;
	if (rc == MPI_SUCCESS)
		rc = rc2 ? rc2 : rc3;
	/* The handle is gone: errors of the close go to MPI_FILE_NULL's
	 * handler unless the file's own one is used right here. */
	u32 r = 0;
	if (rc != MPI_SUCCESS) {
		u32 keep = file_null_eh;
		file_null_eh = eh;
		r = f_ret(k->inst, rc, MW_FILE_NULL, k->proc);
		file_null_eh = keep;
	}
	mw_errh_release(eh);
	return r;
}

u32 mwh_File_delete(const mw_call *k, const char *path, MPI_Info in)
{
	char *last = NULL, hp[PATH_MAX];
	int dfd = open_parent(path, &last);
	if (dfd < 0) {
		int e = errno;
		char why[512];
		snprintf(why, sizeof why, "'%.400s': %s", path, errno_text(e));
		if ((e == EACCES || e == EROFS) &&
		    (file_null_eh == MW_ERRORS_RETURN || file_null_eh >= 4))
			say_refused(k->proc, path, e);
		return f_raise(k->inst, errno_class(e), why, MW_FILE_NULL, k->proc);
	}
	/* The name in the directory that was checked, whatever is renamed. */
	snprintf(hp, sizeof hp, "/proc/self/fd/%d/%s", dfd, last);
	if (!host_eh_set) {
		MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
		host_eh_set = 1;
	}
	int rc = MPI_File_delete(hp, in);
	close(dfd);
	free(last);
	return mw_call_ret(k, rc);
}

/* ---- simple queries and settings --------------------------------------------- */

u32 mwh_File_set_size(const mw_call *k, mwf *f, MPI_Offset size)
{
	return mw_call_ret(k, MPI_File_set_size(f->h, size));
}

u32 mwh_File_preallocate(const mw_call *k, mwf *f, MPI_Offset size)
{
	return mw_call_ret(k, MPI_File_preallocate(f->h, size));
}

#define OFFSET_OUT(NAME)                                                       \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, int64_t *o)                     \
{                                                                             \
	MPI_Offset v = 0;                                                     \
	int rc = MPI_File_##NAME(f->h, &v);                                   \
	if (rc == MPI_SUCCESS)                                                \
		*o = (int64_t)v;                                              \
	return mw_call_ret(k, rc);                                            \
}
OFFSET_OUT(get_size)
OFFSET_OUT(get_position)

u32 mwh_File_get_position_shared(const mw_call *k, mwf *f, int64_t *o)
{
	int64_t v = 0;
	int rc = sfp_op(f, 0, MPI_NO_OP, &v);
	if (rc == MPI_SUCCESS)
		*o = v;
	return mw_call_ret(k, rc);
}

u32 mwh_File_get_byte_offset(const mw_call *k, mwf *f, MPI_Offset off, int64_t *o)
{
	MPI_Offset v = 0;
	int rc = MPI_File_get_byte_offset(f->h, off, &v);
	if (rc == MPI_SUCCESS)
		*o = (int64_t)v;
	return mw_call_ret(k, rc);
}

u32 mwh_File_get_type_extent(const mw_call *k, mwf *f, mw_dtype *d, int32_t *o)
{
	MPI_Aint v = 0;
	int rc = MPI_File_get_type_extent(f->h, d->h, &v);
	if (rc == MPI_SUCCESS) {
		if (v > INT32_MAX || v < INT32_MIN)   /* MPI_Aint is 32-bit here */
			return mw_call_fail(k, MW_ERR_TYPE);
		*o = (int32_t)v;
	}
	return mw_call_ret(k, rc);
}

u32 mwh_File_get_amode(const mw_call *k, mwf *f, int32_t *o)
{
	*o = (int32_t)f->amode;
	return 0;
}

u32 mwh_File_get_group(const mw_call *k, mwf *f, uint32_t *o)
{
	MPI_Group g;
	int rc = MPI_File_get_group(f->h, &g);
	if (rc == MPI_SUCCESS)
		*o = mw_group_put(g);
	return mw_call_ret(k, rc);
}

u32 mwh_File_get_info(const mw_call *k, mwf *f, uint32_t *o)
{
	MPI_Info i;
	int rc = MPI_File_get_info(f->h, &i);
	if (rc == MPI_SUCCESS)
		*o = mw_info_put(i);
	return mw_call_ret(k, rc);
}

u32 mwh_File_set_info(const mw_call *k, mwf *f, MPI_Info i)
{
	return mw_call_ret(k, MPI_File_set_info(f->h, i));
}

u32 mwh_File_set_atomicity(const mw_call *k, mwf *f, int flag)
{
	return mw_call_ret(k, MPI_File_set_atomicity(f->h, flag));
}

u32 mwh_File_get_atomicity(const mw_call *k, mwf *f, int32_t *o)
{
	return mw_call_ret(k, MPI_File_get_atomicity(f->h, (int *)o));
}

u32 mwh_File_sync(const mw_call *k, mwf *f)
{
	return mw_call_ret(k, MPI_File_sync(f->h));
}

static int whence_in(int w, int *h)
{
	switch (w) {
	case MW_SEEK_SET: *h = MPI_SEEK_SET; return 0;
	case MW_SEEK_CUR: *h = MPI_SEEK_CUR; return 0;
	case MW_SEEK_END: *h = MPI_SEEK_END; return 0;
	default: return MW_ERR_ARG;
	}
}

u32 mwh_File_seek(const mw_call *k, mwf *f, MPI_Offset off, int whence)
{
	int w;
	if (whence_in(whence, &w))
		return mw_call_fail(k, MW_ERR_ARG);
	return mw_call_ret(k, MPI_File_seek(f->h, off, w));
}

/* Collective; rank 0 computes the new position (SEEK_END through the
 * library's own view arithmetic on the individual pointer, restored
 * after) and every rank learns the outcome. */
u32 mwh_File_seek_shared(const mw_call *k, mwf *f, MPI_Offset off, int whence)
{
	int rc = 0, w = 0;
	int64_t res[2] = { whence_in(whence, &w), 0 };   /* class, position */
	if (f->rank == 0 && res[0] == 0) {
		int64_t cur = 0;
		MPI_Offset mine = 0, end = 0;
		if (w == MPI_SEEK_SET)
			cur = 0;
		else if (w == MPI_SEEK_CUR)
			rc = sfp_op(f, 0, MPI_NO_OP, &cur);
		else if (!(rc = MPI_File_get_position(f->h, &mine)) &&
		         !(rc = MPI_File_seek(f->h, 0, MPI_SEEK_END)) &&
		         !(rc = MPI_File_get_position(f->h, &end)))
			rc = MPI_File_seek(f->h, mine, MPI_SEEK_SET);
		if (w != MPI_SEEK_SET && rc)
			res[0] = mw_class_out(rc);
		res[1] = (w == MPI_SEEK_END ? (int64_t)end : cur) + (int64_t)off;
		if (res[0] == 0 && res[1] < 0)
			res[0] = MW_ERR_ARG;
		if (res[0] == 0 && (rc = sfp_op(f, res[1], MPI_REPLACE, NULL)))
			res[0] = mw_class_out(rc);
	}
	if ((rc = MPI_Bcast(res, 2, MPI_INT64_T, 0, f->comm)))
		return mw_call_ret(k, rc);
	if (res[0])
		return f_raise(k->inst, (int)res[0], res[1] < 0 ? "position before the start of the view"
		               : "invalid whence or offset", k->obj, k->proc);
	return 0;
}

/* ---- views -------------------------------------------------------------- */

/* MPI_DISPLACEMENT_CURRENT: the byte offset of the shared file pointer,
 * which is the bridge's, not the library's (rank 0 has it; collective). */
static int sfp_bytes(mwf *f, MPI_Offset *d)
{
	int64_t cur = 0, res[2] = { 0, 0 };   /* host error code, bytes */
	if (f->rank == 0) {
		MPI_Offset b = 0;
		int rc = sfp_op(f, 0, MPI_NO_OP, &cur);
		if (rc == MPI_SUCCESS)
			rc = MPI_File_get_byte_offset(f->h, (MPI_Offset)cur, &b);
		res[0] = rc;
		res[1] = (int64_t)b;
	}
	int rc = MPI_Bcast(res, 2, MPI_INT64_T, 0, f->comm);
	*d = (MPI_Offset)res[1];
	return rc ? rc : (int)res[0];
}

u32 mwh_File_set_view(const mw_call *k, mwf *f, MPI_Offset d, const mw_dtype_ref *e,
                      const mw_dtype_ref *t, const char *r, MPI_Info in)
{
	int rc;
	if (d == MW_DISPLACEMENT_CURRENT && !(f->amode & MW_MODE_SEQUENTIAL))
		return mw_call_fail(k, MW_ERR_ARG);   /* MPI: for sequential files only */
	if (d == MW_DISPLACEMENT_CURRENT && (rc = sfp_bytes(f, &d)))
		return mw_call_ret(k, rc);
	rc = MPI_File_set_view(f->h, d, e->d->h, t->d->h, r, in);
	if (rc == MPI_SUCCESS) {
		f->etype = e->mod;
		f->ftype = t->mod;
		f->esize = e->d->size;
		rc = sfp_set(f, 0);   /* the view resets both pointers */
	}
	return mw_call_ret(k, rc);
}

/* Host type of a view -> module handle: the predefined one the module
 * gave set_view (MPI_LONG and MPI_INT32_T are one host type), else a new
 * module handle for the library's copy, which the module frees. */
static u32 view_type_out(MPI_Datatype h, u32 given)
{
	int ni, na, nd, comb;
	mw_dtype *d;
	if (MPI_Type_get_envelope(h, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
	    comb == MPI_COMBINER_NAMED) {
		if (mw_dtype_predefined(given) && !mw_dtype_get(given, &d) && d->h == h)
			return given;
		return mw_dtype_find(h);
	}
	return mw_dtype_put(h);
}

u32 mwh_File_get_view(const mw_call *k, mwf *f, int64_t *dp, uint32_t *eo, uint32_t *fo,
                      char *rep)
{
	MPI_Offset disp = 0;
	MPI_Datatype e, t;
	char r[MPI_MAX_DATAREP_STRING + 1] = "";
	int rc = MPI_File_get_view(f->h, &disp, &e, &t, r);
	if (rc == MPI_SUCCESS) {
		*dp = disp == MPI_DISPLACEMENT_CURRENT ? MW_DISPLACEMENT_CURRENT : (int64_t)disp;
		*eo = view_type_out(e, f->etype);
		*fo = view_type_out(t, f->ftype);
		size_t n = strnlen(r, MW_MAX_DATAREP_STRING - 1);
		memcpy(rep, r, n);
		rep[n] = 0;
	}
	return mw_call_ret(k, rc);
}

/* ---- data access ----------------------------------------------------------- */

/* The status of a file access: its count, not cancelled.  The library
 * sets no source, tag or error there (natively they stay as the program
 * left them; here they were the host status's stack bytes, which went to
 * the module: found migrating this chapter, tests/mpi/fam_io.c). */
static void io_status(mw_status *m, const MPI_Status *st)
{
	if (!m)
		return;
	MPI_Count n = 0;
	MPI_Get_elements_x(st, MPI_BYTE, &n);
	m->cancelled = 0;
	m->ucount = n == MPI_UNDEFINED ? 0 : n;
}

/* Individual and collective accesses with the library's own pointer,
 * with an explicit offset, and their nonblocking forms. */
#define ACCESS(NAME, CONST)                                                     \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, CONST void *p, int count,         \
                    mw_dtype *d, mw_status *s)                                \
{                                                                             \
	MPI_Status st;                                                        \
	int rc = MPI_File_##NAME(f->h, p, count, d->h, s ? &st : MPI_STATUS_IGNORE); \
	if (rc == MPI_SUCCESS)                                                \
		io_status(s, &st);                                            \
	return mw_call_ret(k, rc);                                            \
}
ACCESS(read, )
ACCESS(read_all, )
ACCESS(write, const)
ACCESS(write_all, const)

#define ACCESS_AT(NAME, CONST)                                                  \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, MPI_Offset off, CONST void *p,    \
                    int count, mw_dtype *d, mw_status *s)                     \
{                                                                             \
	MPI_Status st;                                                        \
	int rc = MPI_File_##NAME(f->h, off, p, count, d->h,                   \
	                         s ? &st : MPI_STATUS_IGNORE);                \
	if (rc == MPI_SUCCESS)                                                \
		io_status(s, &st);                                            \
	return mw_call_ret(k, rc);                                            \
}
ACCESS_AT(read_at, )
ACCESS_AT(read_at_all, )
ACCESS_AT(write_at, const)
ACCESS_AT(write_at_all, const)

/* Every nonblocking data access (iread, iwrite, their _at, _shared and
 * collective _all forms) and every split collective is done at initiation
 * with the host's blocking INDEPENDENT access, and the module gets a
 * request that is already complete and carries its status (the split
 * collectives keep it for their _end).  Open MPI 4.1's ompio (Debian 12)
 * fails two ways on its own nonblocking file requests:
 * - a read that reaches past the end of the file never completes (its
 *   posix fbtl submits the short aio_read again for ever), which is a
 *   correct call: tests/fuzz-bridge/open/iread-eof-hang.c and
 *   iread-all-eof-hang.c (its split collective reads are such requests);
 * - a request that completes with an error (a write at an offset the
 *   file system refuses) makes MPI_Wait/Test* crash (a NULL file in
 *   ompi_errhandler_request_invoke): open/iwrite-error-segv.c.
 * The blocking accesses do neither: the read returns its short count and
 * an error is returned at initiation, through the file's handler.
 * The standard lets a nonblocking call complete before it returns
 * (MPI-3.1 3.7.3), and a collective access has the result of each
 * process's own access (MPI-3.1 13.4.5: it need not synchronize); the
 * independent access waits for no other process, so a program in which
 * another process enters the collective later cannot deadlock here.
 * What is lost is overlap, and the library's aggregation of the
 * nonblocking and split collective accesses.  (MPICH's ROMIO has neither
 * fault, but with its own requests the fuzzer's regressions
 * finalize-freed-iread and waitany-duplicate crash: MPICH does the same.) */

static int io_query(void *x, MPI_Status *st)
{
	*st = *(MPI_Status *)x;
	st->MPI_ERROR = MPI_SUCCESS;
	MPI_Status_set_cancelled(st, 0);
	return MPI_SUCCESS;
}
static int io_free(void *x) { free(x); return MPI_SUCCESS; }
/* Complete from the start, so there is nothing to cancel. */
static int io_cancel(void *x, int complete) { (void)x; (void)complete; return MPI_SUCCESS; }

/* A complete host request whose status is st's count.  Source and tag
 * are MPI_UNDEFINED, as ROMIO's requests give (st's are stack bytes). */
static int io_done_req(const MPI_Status *st, MPI_Request *q)
{
	MPI_Status *x = malloc(sizeof *x);
	if (!x)
		return MPI_ERR_NO_MEM;
	*x = *st;
	x->MPI_SOURCE = MPI_UNDEFINED;
	x->MPI_TAG = MPI_UNDEFINED;
	int rc = MPI_Grequest_start(io_query, io_free, io_cancel, x, q);
	if (rc != MPI_SUCCESS) {
		free(x);
		return rc;
	}
	return MPI_Grequest_complete(*q);
}

enum { IO_READ, IO_WRITE };

/* The blocking independent access: at the individual file pointer, or at
 * offset off if at. */
static int io_now(mwf *f, int dir, int at, MPI_Offset off, void *p, int count,
                  MPI_Datatype t, MPI_Status *st)
{
	if (at)
		return dir == IO_WRITE ? MPI_File_write_at(f->h, off, p, count, t, st)
		                       : MPI_File_read_at(f->h, off, p, count, t, st);
	return dir == IO_WRITE ? MPI_File_write(f->h, p, count, t, st)
	                       : MPI_File_read(f->h, p, count, t, st);
}

/* The access, then the module's request r: complete, with its status. */
static int io_start(mwf *f, int dir, int at, MPI_Offset off, void *p, int count,
                    MPI_Datatype t, uint32_t *r)
{
	MPI_Status st;
	MPI_Request hr;
	int rc = io_now(f, dir, at, off, p, count, t, &st);
	if (rc == MPI_SUCCESS)
		rc = io_done_req(&st, &hr);
	if (rc == MPI_SUCCESS)
		io_req(f, r, hr);
	return rc;
}

#define IACCESS(NAME, DIR, CONST)                                               \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, CONST void *p, int count,         \
                    mw_dtype *d, uint32_t *r)                                 \
{                                                                             \
	return mw_call_ret(k, io_start(f, DIR, 0, 0, (void *)p, count, d->h, r)); \
}
IACCESS(iread, IO_READ, )
IACCESS(iread_all, IO_READ, )
IACCESS(iwrite, IO_WRITE, const)
IACCESS(iwrite_all, IO_WRITE, const)

#define IACCESS_AT(NAME, DIR, CONST)                                            \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, MPI_Offset off, CONST void *p,    \
                    int count, mw_dtype *d, uint32_t *r)                      \
{                                                                             \
	return mw_call_ret(k, io_start(f, DIR, 1, off, (void *)p, count, d->h, r)); \
}
IACCESS_AT(iread_at, IO_READ, )
IACCESS_AT(iread_at_all, IO_READ, )
IACCESS_AT(iwrite_at, IO_WRITE, const)
IACCESS_AT(iwrite_at_all, IO_WRITE, const)

/* Shared pointer: take the next count elements' worth of etypes, then an
 * explicit-offset access there. */
#define SHARED(NAME, AT, CONST)                                                 \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, CONST void *p, int count,         \
                    mw_dtype *d, mw_status *s)                                \
{                                                                             \
	MPI_Status st;                                                        \
	int64_t n, off = 0;                                                   \
	if (in_etypes(f, count, d, &n))                                       \
		return mw_call_fail(k, MW_ERR_TYPE);                          \
	int rc = sfp_op(f, n, MPI_SUM, &off);                                 \
	if (rc == MPI_SUCCESS)                                                \
		rc = AT(f->h, (MPI_Offset)off, p, count, d->h,                \
		        s ? &st : MPI_STATUS_IGNORE);                         \
	if (rc == MPI_SUCCESS)                                                \
		io_status(s, &st);                                            \
	return mw_call_ret(k, rc);                                            \
}
SHARED(read_shared, MPI_File_read_at, )
SHARED(write_shared, MPI_File_write_at, const)

#define ISHARED(NAME, DIR, CONST)                                           \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, CONST void *p, int count,         \
                    mw_dtype *d, uint32_t *r)                                 \
{                                                                             \
	int64_t n, off = 0;                                                   \
	if (in_etypes(f, count, d, &n))                                       \
		return mw_call_fail(k, MW_ERR_TYPE);                          \
	int rc = sfp_op(f, n, MPI_SUM, &off);                                 \
	if (rc == MPI_SUCCESS)                                                \
		rc = io_start(f, DIR, 1, (MPI_Offset)off, (void *)p, count,   \
		              d->h, r);                                       \
	return mw_call_ret(k, rc);                                            \
}
ISHARED(iread_shared, IO_READ, )
ISHARED(iwrite_shared, IO_WRITE, const)

#define ORDERED(NAME, AT, CONST)                                                \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, CONST void *p, int count,         \
                    mw_dtype *d, mw_status *s)                                \
{                                                                             \
	MPI_Status st;                                                        \
	MPI_Offset off = 0;                                                   \
	int64_t n;                                                            \
	if (in_etypes(f, count, d, &n))                                       \
		return mw_call_fail(k, MW_ERR_TYPE);                          \
	int rc = ordered_offset(f, n, &off);                                  \
	if (rc == MPI_SUCCESS)                                                \
		rc = AT(f->h, off, p, count, d->h, s ? &st : MPI_STATUS_IGNORE); \
	if (rc == MPI_SUCCESS)                                                \
		io_status(s, &st);                                            \
	return mw_call_ret(k, rc);                                            \
}
ORDERED(read_ordered, MPI_File_read_at_all, )
ORDERED(write_ordered, MPI_File_write_at_all, const)

/* ---- split collectives ---------------------------------------------------------
 * The access is done at _begin (io_now: see the nonblocking accesses
 * above); _end hands out its status.  The _end call names the buffer
 * again; it must be the one of _begin. */

static int split_begin(mwf *f, int kind, const void *buf)
{
	if (f->split != SPLIT_NONE)
		return MW_ERR_OTHER;   /* one split collective per file at a time */
	f->split = kind;
	f->split_buf = buf;
	return 0;
}

/* The access of a split collective begun on f; it ends the split if it fails. */
static int split_now(mwf *f, int at, MPI_Offset off, void *p, int count, MPI_Datatype t)
{
	int rc = io_now(f, f->split == SPLIT_WRITE ? IO_WRITE : IO_READ, at, off, p,
	                count, t, &f->split_st);
	if (rc != MPI_SUCCESS)
		f->split = SPLIT_NONE;
	return rc;
}

#define BEGIN(NAME, KIND, CONST)                                                \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, CONST void *p, int count,         \
                    mw_dtype *d)                                              \
{                                                                             \
	int rc;                                                               \
	if ((rc = split_begin(f, KIND, p)))                                   \
		return mw_call_fail(k, rc);                                   \
	rc = split_now(f, 0, 0, (void *)p, count, d->h);                      \
	return mw_call_ret(k, rc);                                            \
}
BEGIN(read_all_begin, SPLIT_READ, )
BEGIN(write_all_begin, SPLIT_WRITE, const)

#define BEGIN_AT(NAME, KIND, CONST)                                             \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, MPI_Offset off, CONST void *p,    \
                    int count, mw_dtype *d)                                   \
{                                                                             \
	int rc;                                                               \
	if ((rc = split_begin(f, KIND, p)))                                   \
		return mw_call_fail(k, rc);                                   \
	rc = split_now(f, 1, off, (void *)p, count, d->h);                    \
	return mw_call_ret(k, rc);                                            \
}
BEGIN_AT(read_at_all_begin, SPLIT_READ, )
BEGIN_AT(write_at_all_begin, SPLIT_WRITE, const)

/* Ordered begin: the offsets are agreed now (collective), then the
 * access at this process's offset. */
#define OBEGIN(NAME, KIND, CONST)                                           \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, CONST void *p, int count,         \
                    mw_dtype *d)                                              \
{                                                                             \
	MPI_Offset off = 0;                                                   \
	int64_t n;                                                            \
	int rc;                                                               \
	if (in_etypes(f, count, d, &n))                                       \
		return mw_call_fail(k, MW_ERR_TYPE);                          \
	if ((rc = split_begin(f, KIND, p)))                                   \
		return mw_call_fail(k, rc);                                   \
	rc = ordered_offset(f, n, &off);                                      \
	if (rc == MPI_SUCCESS)                                                \
		rc = split_now(f, 1, off, (void *)p, count, d->h);            \
	else                                                                  \
		f->split = SPLIT_NONE;                                        \
	return mw_call_ret(k, rc);                                            \
}
OBEGIN(read_ordered_begin, SPLIT_READ, )
OBEGIN(write_ordered_begin, SPLIT_WRITE, const)

/* buf must be _begin's (compared as host addresses: the same base). */
#define END(NAME, KIND)                                                         \
u32 mwh_File_##NAME(const mw_call *k, mwf *f, uint32_t buf, mw_status *s)       \
{                                                                             \
	if (f->split != KIND || f->split_buf != mw_raw(k->inst, buf))         \
		return mw_call_fail(k, f->split == KIND ? MW_ERR_BUFFER : MW_ERR_OTHER); \
	f->split = SPLIT_NONE;                                                \
	io_status(s, &f->split_st);                                           \
	return mw_call_ret(k, MPI_SUCCESS);                                   \
}
END(read_all_end, SPLIT_READ)
END(write_all_end, SPLIT_WRITE)
END(read_at_all_end, SPLIT_READ)
END(write_at_all_end, SPLIT_WRITE)
END(read_ordered_end, SPLIT_READ)
END(write_ordered_end, SPLIT_WRITE)

/* ---- error handlers ---------------------------------------------------------- */

/* void fn(MPI_File *, int *, ...): the shape of a communicator's handler,
 * and the bridge runs both the same way.  The entry checked the slot;
 * failures go to MPI_FILE_NULL's handler (k->obj). */
u32 mwh_File_create_errhandler(const mw_call *k, uint32_t fn, uint32_t *o)
{
	return mw_errh_create(k, fn, o);
}

/* f is NULL for MPI_FILE_NULL, whose handler MPI_File_open's errors run. */
u32 mwh_File_set_errhandler(const mw_call *k, mwf *f, uint32_t eh)
{
	if (eh == MW_ERRHANDLER_NULL)
		return mw_call_fail(k, MW_ERR_ARG);
	u32 *slot = f ? &f->eh : &file_null_eh;
	u32 old = *slot;
	mw_errh_retain(eh);
	*slot = eh;
	mw_errh_release(old);
	return 0;
}

u32 mwh_File_get_errhandler(const mw_call *k, mwf *f, uint32_t *o)
{
	*o = f ? f->eh : file_null_eh;
	mw_errh_retain(*o);   /* a new reference the module frees */
	return 0;
}

u32 mwh_File_call_errhandler(const mw_call *k, mwf *f, int code)
{
	char why[64];
	snprintf(why, sizeof why, "error code %d raised by the program", code);
	f_raise(k->inst, code, why, k->obj, k->proc);
	return 0;
}

/* ---- Fortran handles: module handles are Fortran integers already ---------- */

u32 mwh_File_c2f(const mw_call *k, uint32_t file)
{
	(void)k;
	return file;
}

u32 mwh_File_f2c(const mw_call *k, uint32_t file)
{
	(void)k;
	return file;
}
