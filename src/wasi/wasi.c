/* wasi.c - the wasi_snapshot_preview1 host functions: descriptor table,
 * rights, and every preview1 call on the host's system calls.  Paths go
 * through sandbox.c; errnos through errno.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "../rt/host.h"
#include "wasi.h"
#include "wasi_int.h"

/* ---- witx constants ---------------------------------------------------- */

#define R(n) ((uint64_t)1 << (n))
enum {
	FT_UNKNOWN, FT_BLOCK, FT_CHAR, FT_DIR, FT_REG, FT_DGRAM, FT_STREAM, FT_LINK
};
#define RT_FD_DATASYNC          R(0)
#define RT_FD_READ              R(1)
#define RT_FD_SEEK              R(2)
#define RT_FD_FDSTAT_SET_FLAGS  R(3)
#define RT_FD_SYNC              R(4)
#define RT_FD_TELL              R(5)
#define RT_FD_WRITE             R(6)
#define RT_FD_ADVISE            R(7)
#define RT_FD_ALLOCATE          R(8)
#define RT_PATH_CREATE_DIRECTORY R(9)
#define RT_PATH_CREATE_FILE     R(10)
#define RT_PATH_LINK_SOURCE     R(11)
#define RT_PATH_LINK_TARGET     R(12)
#define RT_PATH_OPEN            R(13)
#define RT_FD_READDIR           R(14)
#define RT_PATH_READLINK        R(15)
#define RT_PATH_RENAME_SOURCE   R(16)
#define RT_PATH_RENAME_TARGET   R(17)
#define RT_PATH_FILESTAT_GET    R(18)
#define RT_PATH_FILESTAT_SET_SIZE R(19)
#define RT_PATH_FILESTAT_SET_TIMES R(20)
#define RT_FD_FILESTAT_GET      R(21)
#define RT_FD_FILESTAT_SET_SIZE R(22)
#define RT_FD_FILESTAT_SET_TIMES R(23)
#define RT_PATH_SYMLINK         R(24)
#define RT_PATH_REMOVE_DIRECTORY R(25)
#define RT_PATH_UNLINK_FILE     R(26)
#define RT_POLL_FD_READWRITE    R(27)
#define RT_SOCK_SHUTDOWN        R(28)
#define RT_SOCK_ACCEPT          R(29)

#define RIGHTS_FILE (RT_FD_DATASYNC | RT_FD_READ | RT_FD_SEEK | \
	RT_FD_FDSTAT_SET_FLAGS | RT_FD_SYNC | RT_FD_TELL | RT_FD_WRITE | \
	RT_FD_ADVISE | RT_FD_ALLOCATE | RT_FD_FILESTAT_GET | \
	RT_FD_FILESTAT_SET_SIZE | RT_FD_FILESTAT_SET_TIMES | RT_POLL_FD_READWRITE)
#define RIGHTS_DIR (RT_FD_FDSTAT_SET_FLAGS | RT_FD_SYNC | RT_FD_DATASYNC | \
	RT_FD_ADVISE | RT_PATH_CREATE_DIRECTORY | RT_PATH_CREATE_FILE | \
	RT_PATH_LINK_SOURCE | RT_PATH_LINK_TARGET | RT_PATH_OPEN | \
	RT_FD_READDIR | RT_PATH_READLINK | RT_PATH_RENAME_SOURCE | \
	RT_PATH_RENAME_TARGET | RT_PATH_FILESTAT_GET | \
	RT_PATH_FILESTAT_SET_SIZE | RT_PATH_FILESTAT_SET_TIMES | \
	RT_FD_FILESTAT_GET | RT_FD_FILESTAT_SET_TIMES | RT_PATH_SYMLINK | \
	RT_PATH_REMOVE_DIRECTORY | RT_PATH_UNLINK_FILE | RT_POLL_FD_READWRITE)
/* Ttys, pipes, sockets: no seek/tell (wasi-libc's isatty looks at that). */
#define RIGHTS_STREAM (RT_FD_READ | RT_FD_WRITE | RT_FD_FDSTAT_SET_FLAGS | \
	RT_FD_FILESTAT_GET | RT_FD_SYNC | RT_FD_DATASYNC | RT_FD_ADVISE | \
	RT_POLL_FD_READWRITE)

enum { FDF_APPEND = 1, FDF_DSYNC = 2, FDF_NONBLOCK = 4, FDF_RSYNC = 8,
       FDF_SYNC = 16 };
enum { OF_CREAT = 1, OF_DIRECTORY = 2, OF_EXCL = 4, OF_TRUNC = 8 };
enum { FST_ATIM = 1, FST_ATIM_NOW = 2, FST_MTIM = 4, FST_MTIM_NOW = 8 };
enum { LOOKUP_SYMLINK_FOLLOW = 1 };

/* ---- state --------------------------------------------------------------- */

typedef struct wfd {
	bool open;
	bool ro;              /* below a --dir-ro grant */
	bool stdio;           /* host 0-2: never closed on the host */
	uint8_t type;         /* FT_* */
	uint16_t fdflags;
	int host;
	uint64_t base, inh;   /* rights */
	char *guest;          /* preopen name, else NULL */
	DIR *dir;             /* fd_readdir stream, on its own descriptor */
	long *offs;           /* offs[c]: host telldir() position of cookie c */
	uint64_t noffs, capoffs;
	uint64_t dirpos;      /* cookie the stream is at */
} wfd;

static struct {
	wfd *fds;
	uint32_t nfds;
	uint32_t free_hint;   /* see fd_alloc */
	int argc, nenv;
	char **argv, **env;
	bool setup;
} W;

/* ---- helpers ------------------------------------------------------------- */

#define MEM(p, n) rt_mem(inst, (p), (n))

static uint8_t ftype_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFBLK: return FT_BLOCK;
	case S_IFCHR: return FT_CHAR;
	case S_IFDIR: return FT_DIR;
	case S_IFREG: return FT_REG;
	case S_IFLNK: return FT_LINK;
	case S_IFSOCK: return FT_STREAM;
	default: return FT_UNKNOWN;   /* FIFOs have no witx filetype */
	}
}

static uint64_t rights_for(uint8_t t)
{
	switch (t) {
	case FT_DIR: return RIGHTS_DIR;
	case FT_REG: case FT_BLOCK: return RIGHTS_FILE;
	case FT_STREAM: case FT_DGRAM:
		return RIGHTS_STREAM | RT_SOCK_SHUTDOWN | RT_SOCK_ACCEPT;
	default: return RIGHTS_STREAM;
	}
}

/* A socket's filetype by its SO_TYPE (S_IFSOCK alone does not say). */
static uint8_t sock_type(int host)
{
	int t = 0;
	socklen_t l = sizeof t;
	if (getsockopt(host, SOL_SOCKET, SO_TYPE, &t, &l) == 0 && t == SOCK_DGRAM)
		return FT_DGRAM;
	return FT_STREAM;
}

/* The table is allocated at its largest (untouched pages cost nothing)
 * and never moves, so a thread may use its descriptor while another
 * opens one; W.nfds is how much of it is in use.  Opening, closing and
 * renumbering hold fd_lock (module threads call them concurrently). */
#define FD_CAP (1u << 20)
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

/* The lowest free number, as POSIX open() gives; W.free_hint is at or
 * below it (every descriptor under the hint is in use).  With fd_lock
 * held, until the caller has marked the slot open. */
static uint32_t fd_alloc(void)
{
	for (uint32_t i = W.free_hint < 3 ? 3 : W.free_hint; i < W.nfds; i++)
		if (!W.fds[i].open) {
			W.free_hint = i + 1;
			return i;
		}
	uint32_t n = W.nfds < 16 ? 16 : W.nfds * 2;
	if (n > FD_CAP)
		return UINT32_MAX;
	uint32_t first = W.nfds < 3 ? 3 : W.nfds;
	W.nfds = n;
	W.free_hint = first + 1;
	return first;
}

/* The descriptor if it is open and holds every right in `need`. */
static wfd *fd_get(uint32_t fd, uint64_t need, uint16_t *err)
{
	if (fd >= W.nfds || !W.fds[fd].open) {
		*err = WE_BADF;
		return NULL;
	}
	wfd *f = &W.fds[fd];
	if ((f->base & need) != need) {
		*err = WE_NOTCAPABLE;
		return NULL;
	}
	return f;
}

/* Slot f became free: keep fd_alloc's hint at or below it. */
static void fd_freed(wfd *f)
{
	uint32_t i = (uint32_t)(f - W.fds);
	if (i < W.free_hint)
		W.free_hint = i;
}

static void fd_release(wfd *f)
{
	if (f->dir)
		closedir(f->dir);
	free(f->offs);
	if (!f->stdio && f->host >= 0)
		close(f->host);
	free(f->guest);
	memset(f, 0, sizeof *f);
	f->host = -1;
	fd_freed(f);
}

/* Copies a module path into buf as a C string. */
static uint16_t get_path(rt_instance *inst, uint32_t p, uint32_t len,
                         char buf[PATH_MAX])
{
	const char *s = MEM(p, len);
	if (!s)
		return WE_FAULT;
	if (len >= PATH_MAX)
		return WE_NAMETOOLONG;
	if (memchr(s, 0, len))
		return WE_INVAL;   /* a NUL cannot be in a host path */
	memcpy(buf, s, len);
	buf[len] = 0;
	return WE_SUCCESS;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static uint32_t put_u32(rt_instance *inst, uint32_t p, uint32_t v)
{
	uint8_t *d = MEM(p, 4);
	if (!d)
		return WE_FAULT;
	put32(d, v);
	return WE_SUCCESS;
}

static uint32_t put_u64(rt_instance *inst, uint32_t p, uint64_t v)
{
	uint8_t *d = MEM(p, 8);
	if (!d)
		return WE_FAULT;
	put64(d, v);
	return WE_SUCCESS;
}

static uint64_t ts_ns(struct timespec t)
{
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void write_filestat(uint8_t *d, const struct stat *st)
{
	memset(d, 0, 64);
	put64(d + 0, (uint64_t)st->st_dev);
	put64(d + 8, (uint64_t)st->st_ino);
	d[16] = ftype_of(st->st_mode);
	put64(d + 24, (uint64_t)st->st_nlink);
	put64(d + 32, (uint64_t)st->st_size);
	put64(d + 40, ts_ns(st->st_atim));
	put64(d + 48, ts_ns(st->st_mtim));
	put64(d + 56, ts_ns(st->st_ctim));
}

/* Module iovec array -> host iovecs (at most IOV_MAX, as writev). */
static uint16_t get_iovs(rt_instance *inst, uint32_t iovs, uint32_t n,
                         struct iovec *out)
{
	if (n > IOV_MAX)
		return WE_INVAL;
	const uint8_t *a = rt_mem_array(inst, iovs, n, 8);
	if (!a && n)
		return WE_FAULT;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t buf = get32(a + 8 * i), len = get32(a + 8 * i + 4);
		void *h = MEM(buf, len);
		if (!h && len)
			return WE_FAULT;
		out[i].iov_base = h;
		out[i].iov_len = len;
	}
	return WE_SUCCESS;
}

static int clock_host(uint32_t id, clockid_t *c)
{
	switch (id) {
	case 0: *c = CLOCK_REALTIME; return 0;
	case 1: *c = CLOCK_MONOTONIC; return 0;
	case 2: *c = CLOCK_PROCESS_CPUTIME_ID; return 0;
	case 3: *c = CLOCK_THREAD_CPUTIME_ID; return 0;
	default: return -1;
	}
}

/* ---- args, environ, clocks, random, proc, sched ------------------------ */

static uint32_t strv_sizes(rt_instance *inst, int n, char **v, uint32_t pc,
                           uint32_t psz)
{
	uint64_t sz = 0;
	for (int i = 0; i < n; i++)
		sz += strlen(v[i]) + 1;
	if (sz > UINT32_MAX)
		return WE_2BIG;
	uint32_t e = put_u32(inst, pc, (uint32_t)n);
	return e ? e : put_u32(inst, psz, (uint32_t)sz);
}

static uint32_t strv_get(rt_instance *inst, int n, char **v, uint32_t pv,
                         uint32_t pbuf)
{
	uint8_t *ptrs = rt_mem_array(inst, pv, (uint64_t)n, 4);
	if (!ptrs && n)
		return WE_FAULT;
	uint32_t off = pbuf;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(v[i]) + 1;
		char *d = MEM(off, l);
		if (!d)
			return WE_FAULT;
		memcpy(d, v[i], l);
		put32(ptrs + 4 * i, off);
		off += (uint32_t)l;
	}
	return WE_SUCCESS;
}

static uint32_t w_args_sizes_get(rt_instance *inst, uint32_t pc, uint32_t psz)
{
	return strv_sizes(inst, W.argc, W.argv, pc, psz);
}

static uint32_t w_args_get(rt_instance *inst, uint32_t pv, uint32_t pbuf)
{
	return strv_get(inst, W.argc, W.argv, pv, pbuf);
}

static uint32_t w_environ_sizes_get(rt_instance *inst, uint32_t pc, uint32_t psz)
{
	return strv_sizes(inst, W.nenv, W.env, pc, psz);
}

static uint32_t w_environ_get(rt_instance *inst, uint32_t pv, uint32_t pbuf)
{
	return strv_get(inst, W.nenv, W.env, pv, pbuf);
}

static uint32_t w_clock_res_get(rt_instance *inst, uint32_t id, uint32_t pres)
{
	clockid_t c;
	struct timespec t;
	if (clock_host(id, &c) < 0)
		return WE_INVAL;
	if (clock_getres(c, &t) < 0)
		return wasi_errno(errno);
	return put_u64(inst, pres, ts_ns(t));
}

static uint32_t w_clock_time_get(rt_instance *inst, uint32_t id,
                                 uint64_t precision, uint32_t ptime)
{
	clockid_t c;
	struct timespec t;
	if (clock_host(id, &c) < 0)
		return WE_INVAL;
	if (clock_gettime(c, &t) < 0)
		return wasi_errno(errno);
	return put_u64(inst, ptime, ts_ns(t));
}

static uint32_t w_random_get(rt_instance *inst, uint32_t buf, uint32_t len)
{
	uint8_t *d = MEM(buf, len);
	if (!d && len)
		return WE_FAULT;
	while (len) {
		ssize_t r = getrandom(d, len, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return wasi_errno(errno);
		}
		d += r;
		len -= (uint32_t)r;
	}
	return WE_SUCCESS;
}

static void w_proc_exit(rt_instance *inst, uint32_t code)
{
	rt_exit(inst, (int)code);
}

static const char *const signames[] = {
	"NONE", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE",
	"KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM", "CHLD", "CONT",
	"STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF",
	"WINCH", "POLL", "PWR", "SYS",
};

/* The module is the process: a signal whose default action ends it ends
 * the module (as a host-reported termination, since a real host signal
 * would hit the runtime's own handlers); ignored ones do nothing; stop
 * signals stop the host process as they would the program. */
static uint32_t w_proc_raise(rt_instance *inst, uint32_t sig)
{
	if (sig >= sizeof signames / sizeof *signames)
		return WE_INVAL;
	switch (sig) {
	case 0: case 16: case 17: case 22: case 27:   /* NONE CHLD CONT URG WINCH */
		return WE_SUCCESS;
	case 18: case 19: case 20: case 21:           /* STOP TSTP TTIN TTOU */
		raise(SIGSTOP);
		return WE_SUCCESS;
	}
	rt_trap_host(inst, "wasi proc_raise: module terminated by SIG%s",
	             signames[sig]);
}

static uint32_t w_sched_yield(rt_instance *inst)
{
	sched_yield();
	return WE_SUCCESS;
}

/* ---- descriptors ---------------------------------------------------------- */

static uint32_t w_fd_close(rt_instance *inst, uint32_t fd)
{
	uint16_t err;
	pthread_mutex_lock(&fd_lock);
	wfd *f = fd_get(fd, 0, &err);
	if (f)
		fd_release(f);
	pthread_mutex_unlock(&fd_lock);
	return f ? WE_SUCCESS : err;
}

static uint32_t fd_renumber(uint32_t from, uint32_t to);

static uint32_t w_fd_renumber(rt_instance *inst, uint32_t from, uint32_t to)
{
	(void)inst;
	pthread_mutex_lock(&fd_lock);
	uint32_t e = fd_renumber(from, to);
	pthread_mutex_unlock(&fd_lock);
	return e;
}

static uint32_t fd_renumber(uint32_t from, uint32_t to)
{
	uint16_t err;
	wfd *f = fd_get(from, 0, &err);
	wfd *t = fd_get(to, 0, &err);
	if (!f || !t)
		return WE_BADF;
	if (from == to)
		return WE_SUCCESS;
	if (t->stdio && !f->stdio) {
		/* Keep the host's fd 0-2 numbering: the module's stdout is
		 * what the host writes to fd 1. */
		if (dup2(f->host, t->host) < 0)
			return wasi_errno(errno);
		wfd moved = *f;
		if (!f->stdio)
			close(f->host);
		moved.host = t->host;
		moved.stdio = true;
		if (t->dir)
			closedir(t->dir);
		free(t->offs);
		free(t->guest);
		*t = moved;
		memset(f, 0, sizeof *f);
		f->host = -1;
		fd_freed(f);
		return WE_SUCCESS;
	}
	fd_release(t);
	*t = *f;
	memset(f, 0, sizeof *f);
	f->host = -1;
	fd_freed(f);
	return WE_SUCCESS;
}

static uint32_t w_fd_fdstat_get(rt_instance *inst, uint32_t fd, uint32_t p)
{
	uint16_t err;
	wfd *f = fd_get(fd, 0, &err);
	if (!f)
		return err;
	uint8_t *d = MEM(p, 24);
	if (!d)
		return WE_FAULT;
	/* Descriptors we opened have an open file description of their
	 * own, changed only through fd_fdstat_set_flags, so fdflags is
	 * exact for them (wasi-libc asks on every open()); the host's
	 * stdio may be shared with other processes: ask the kernel. */
	uint16_t flags = f->fdflags;
	int fl = f->stdio ? fcntl(f->host, F_GETFL) : -1;
	if (fl >= 0) {
		flags &= (uint16_t)~(FDF_APPEND | FDF_NONBLOCK);
		if (fl & O_APPEND)
			flags |= FDF_APPEND;
		if (fl & O_NONBLOCK)
			flags |= FDF_NONBLOCK;
	}
	memset(d, 0, 24);
	d[0] = f->type;
	put16(d + 2, flags);
	put64(d + 8, f->base);
	put64(d + 16, f->inh);
	return WE_SUCCESS;
}

static uint32_t w_fd_fdstat_set_flags(rt_instance *inst, uint32_t fd,
                                      uint32_t flags)
{
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_FDSTAT_SET_FLAGS, &err);
	if (!f)
		return err;
	if (flags & ~(uint32_t)(FDF_APPEND | FDF_NONBLOCK | FDF_DSYNC |
	                        FDF_RSYNC | FDF_SYNC))
		return WE_INVAL;
	/* Linux cannot change the sync modes of an open file. */
	if ((flags & (FDF_DSYNC | FDF_RSYNC | FDF_SYNC)) !=
	    (f->fdflags & (FDF_DSYNC | FDF_RSYNC | FDF_SYNC)))
		return WE_NOTSUP;
	int fl = fcntl(f->host, F_GETFL);
	if (fl < 0)
		return wasi_errno(errno);
	fl &= ~(O_APPEND | O_NONBLOCK);
	if (flags & FDF_APPEND)
		fl |= O_APPEND;
	if (flags & FDF_NONBLOCK)
		fl |= O_NONBLOCK;
	if (fcntl(f->host, F_SETFL, fl) < 0)
		return wasi_errno(errno);
	f->fdflags = (uint16_t)flags;
	return WE_SUCCESS;
}

static uint32_t w_fd_fdstat_set_rights(rt_instance *inst, uint32_t fd,
                                       uint64_t base, uint64_t inh)
{
	uint16_t err;
	wfd *f = fd_get(fd, 0, &err);
	if (!f)
		return err;
	/* Rights only ever shrink. */
	if ((base & ~f->base) || (inh & ~f->inh))
		return WE_NOTCAPABLE;
	f->base = base;
	f->inh = inh;
	return WE_SUCCESS;
}

static uint32_t w_fd_prestat_get(rt_instance *inst, uint32_t fd, uint32_t p)
{
	uint16_t err;
	wfd *f = fd_get(fd, 0, &err);
	if (!f)
		return err;
	if (!f->guest)
		return WE_BADF;
	uint8_t *d = MEM(p, 8);
	if (!d)
		return WE_FAULT;
	memset(d, 0, 8);
	put32(d + 4, (uint32_t)strlen(f->guest));
	return WE_SUCCESS;
}

static uint32_t w_fd_prestat_dir_name(rt_instance *inst, uint32_t fd,
                                      uint32_t p, uint32_t len)
{
	uint16_t err;
	wfd *f = fd_get(fd, 0, &err);
	if (!f)
		return err;
	if (!f->guest)
		return WE_BADF;
	size_t n = strlen(f->guest);
	if (len < n)
		return WE_NAMETOOLONG;
	char *d = MEM(p, n);
	if (!d && n)
		return WE_FAULT;
	memcpy(d, f->guest, n);
	return WE_SUCCESS;
}

/* ---- reading and writing --------------------------------------------------- */

static uint32_t rw(rt_instance *inst, uint32_t fd, uint32_t iovs, uint32_t n,
                   uint64_t off, bool positional, bool wr, uint32_t pres)
{
	uint16_t err;
	uint64_t need = (wr ? RT_FD_WRITE : RT_FD_READ) |
	                (positional ? RT_FD_SEEK : 0);
	wfd *f = fd_get(fd, need, &err);
	if (!f)
		return err;
	if (f->type == FT_DIR)
		return WE_ISDIR;
	if (positional && off > INT64_MAX)
		return WE_INVAL;
	struct iovec v[IOV_MAX];
	if ((err = get_iovs(inst, iovs, n, v)))
		return err;
	uint8_t *res = MEM(pres, 4);
	if (!res)
		return WE_FAULT;
	ssize_t r;
	/* One buffer (what wasi-libc's read/write pass) goes without the
	 * kernel's iovec import. */
	do {
		if (n == 1 && positional)
			r = wr ? pwrite(f->host, v[0].iov_base, v[0].iov_len, (off_t)off)
			          : pread(f->host, v[0].iov_base, v[0].iov_len, (off_t)off);
		else if (n == 1)
			r = wr ? write(f->host, v[0].iov_base, v[0].iov_len)
			          : read(f->host, v[0].iov_base, v[0].iov_len);
		else if (positional)
			r = wr ? pwritev(f->host, v, (int)n, (off_t)off)
			          : preadv(f->host, v, (int)n, (off_t)off);
		else
			r = wr ? writev(f->host, v, (int)n)
			          : readv(f->host, v, (int)n);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return wasi_errno(errno);
	put32(res, (uint32_t)r);
	return WE_SUCCESS;
}

static uint32_t w_fd_read(rt_instance *inst, uint32_t fd, uint32_t iovs,
                          uint32_t n, uint32_t pres)
{
	return rw(inst, fd, iovs, n, 0, false, false, pres);
}

static uint32_t w_fd_write(rt_instance *inst, uint32_t fd, uint32_t iovs,
                           uint32_t n, uint32_t pres)
{
	return rw(inst, fd, iovs, n, 0, false, true, pres);
}

static uint32_t w_fd_pread(rt_instance *inst, uint32_t fd, uint32_t iovs,
                           uint32_t n, uint64_t off, uint32_t pres)
{
	return rw(inst, fd, iovs, n, off, true, false, pres);
}

static uint32_t w_fd_pwrite(rt_instance *inst, uint32_t fd, uint32_t iovs,
                            uint32_t n, uint64_t off, uint32_t pres)
{
	return rw(inst, fd, iovs, n, off, true, true, pres);
}

static uint32_t w_fd_seek(rt_instance *inst, uint32_t fd, uint64_t off,
                          uint32_t whence, uint32_t pres)
{
	uint16_t err;
	/* Asking where we are needs only the tell right. */
	uint64_t need = (whence == 1 && off == 0) ? RT_FD_TELL : RT_FD_SEEK;
	wfd *f = fd_get(fd, need, &err);
	if (!f)
		return err;
	int w;
	switch (whence) {
	case 0: w = SEEK_SET; break;
	case 1: w = SEEK_CUR; break;
	case 2: w = SEEK_END; break;
	default: return WE_INVAL;
	}
	uint8_t *d = MEM(pres, 8);
	if (!d)
		return WE_FAULT;
	off_t r = lseek(f->host, (off_t)(int64_t)off, w);
	if (r < 0)
		return wasi_errno(errno);
	put64(d, (uint64_t)r);
	return WE_SUCCESS;
}

static uint32_t w_fd_tell(rt_instance *inst, uint32_t fd, uint32_t pres)
{
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_TELL, &err);
	if (!f)
		return err;
	uint8_t *d = MEM(pres, 8);
	if (!d)
		return WE_FAULT;
	off_t r = lseek(f->host, 0, SEEK_CUR);
	if (r < 0)
		return wasi_errno(errno);
	put64(d, (uint64_t)r);
	return WE_SUCCESS;
}

static uint32_t w_fd_advise(rt_instance *inst, uint32_t fd, uint64_t off,
                            uint64_t len, uint32_t advice)
{
	static const int adv[] = { POSIX_FADV_NORMAL, POSIX_FADV_SEQUENTIAL,
		POSIX_FADV_RANDOM, POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED,
		POSIX_FADV_NOREUSE };
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_ADVISE, &err);
	if (!f)
		return err;
	if (advice >= 6 || off > INT64_MAX || len > INT64_MAX)
		return WE_INVAL;
	if (f->type == FT_DIR)
		return WE_BADF;
	int r = posix_fadvise(f->host, (off_t)off, (off_t)len, adv[advice]);
	return r ? wasi_errno(r) : WE_SUCCESS;
}

static uint32_t w_fd_allocate(rt_instance *inst, uint32_t fd, uint64_t off,
                              uint64_t len)
{
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_ALLOCATE, &err);
	if (!f)
		return err;
	if (f->ro)
		return WE_ROFS;
	if (off > INT64_MAX || len > INT64_MAX || off + len > INT64_MAX)
		return WE_INVAL;
	int r = posix_fallocate(f->host, (off_t)off, (off_t)len);
	return r ? wasi_errno(r) : WE_SUCCESS;
}

static uint32_t w_fd_datasync(rt_instance *inst, uint32_t fd)
{
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_DATASYNC, &err);
	if (!f)
		return err;
	return fdatasync(f->host) < 0 ? wasi_errno(errno) : WE_SUCCESS;
}

static uint32_t w_fd_sync(rt_instance *inst, uint32_t fd)
{
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_SYNC, &err);
	if (!f)
		return err;
	return fsync(f->host) < 0 ? wasi_errno(errno) : WE_SUCCESS;
}

static uint32_t w_fd_filestat_get(rt_instance *inst, uint32_t fd, uint32_t p)
{
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_FILESTAT_GET, &err);
	if (!f)
		return err;
	uint8_t *d = MEM(p, 64);
	if (!d)
		return WE_FAULT;
	struct stat st;
	if (fstat(f->host, &st) < 0)
		return wasi_errno(errno);
	write_filestat(d, &st);
	return WE_SUCCESS;
}

static uint32_t w_fd_filestat_set_size(rt_instance *inst, uint32_t fd,
                                       uint64_t size)
{
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_FILESTAT_SET_SIZE, &err);
	if (!f)
		return err;
	if (f->ro)
		return WE_ROFS;
	if (size > INT64_MAX)
		return WE_FBIG;
	return ftruncate(f->host, (off_t)size) < 0 ? wasi_errno(errno)
	                                          : WE_SUCCESS;
}

static uint16_t make_times(uint64_t atim, uint64_t mtim, uint32_t fst,
                           struct timespec ts[2])
{
	if (fst & ~15u)
		return WE_INVAL;
	if ((fst & FST_ATIM) && (fst & FST_ATIM_NOW))
		return WE_INVAL;
	if ((fst & FST_MTIM) && (fst & FST_MTIM_NOW))
		return WE_INVAL;
	ts[0].tv_sec = 0;
	ts[1].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_nsec = UTIME_OMIT;
	if (fst & FST_ATIM) {
		ts[0].tv_sec = (time_t)(atim / 1000000000u);
		ts[0].tv_nsec = (long)(atim % 1000000000u);
	} else if (fst & FST_ATIM_NOW) {
		ts[0].tv_nsec = UTIME_NOW;
	}
	if (fst & FST_MTIM) {
		ts[1].tv_sec = (time_t)(mtim / 1000000000u);
		ts[1].tv_nsec = (long)(mtim % 1000000000u);
	} else if (fst & FST_MTIM_NOW) {
		ts[1].tv_nsec = UTIME_NOW;
	}
	return WE_SUCCESS;
}

static uint32_t w_fd_filestat_set_times(rt_instance *inst, uint32_t fd,
                                        uint64_t atim, uint64_t mtim,
                                        uint32_t fst)
{
	uint16_t err;
	struct timespec ts[2];
	wfd *f = fd_get(fd, RT_FD_FILESTAT_SET_TIMES, &err);
	if (!f)
		return err;
	if ((err = make_times(atim, mtim, fst, ts)))
		return err;
	if (f->ro)
		return WE_ROFS;
	return futimens(f->host, ts) < 0 ? wasi_errno(errno) : WE_SUCCESS;
}

/* ---- directories ----------------------------------------------------------- */

static uint8_t dtype_of(unsigned char t)
{
	switch (t) {
	case DT_BLK: return FT_BLOCK;
	case DT_CHR: return FT_CHAR;
	case DT_DIR: return FT_DIR;
	case DT_REG: return FT_REG;
	case DT_LNK: return FT_LINK;
	case DT_SOCK: return FT_STREAM;
	default: return FT_UNKNOWN;
	}
}

/* Cookies are entry counts (1 = after the first entry), not the host's
 * d_off: ext4's are 63-bit hashes, and wasi-libc's telldir() hands the
 * cookie to the module as a 32-bit long.  offs[] remembers the host
 * position of every cookie given out, so any of them can be resumed. */
static int cookie_note(wfd *f, uint64_t c, long pos)
{
	if (c >= f->capoffs) {
		uint64_t n = f->capoffs ? f->capoffs * 2 : 256;
		while (n <= c)
			n *= 2;
		long *p = realloc(f->offs, n * sizeof *p);
		if (!p)
			return -1;
		f->offs = p;
		f->capoffs = n;
	}
	f->offs[c] = pos;
	if (c >= f->noffs)
		f->noffs = c + 1;
	return 0;
}

static uint32_t w_fd_readdir(rt_instance *inst, uint32_t fd, uint32_t buf,
                             uint32_t len, uint64_t cookie, uint32_t pused)
{
	uint16_t err;
	wfd *f = fd_get(fd, RT_FD_READDIR, &err);
	if (!f)
		return err;
	if (f->type != FT_DIR)
		return WE_NOTDIR;
	uint8_t *d = MEM(buf, len);
	uint8_t *u = MEM(pused, 4);
	if ((!d && len) || !u)
		return WE_FAULT;
	if (!f->dir) {
		int h = openat(f->host, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (h < 0)
			return wasi_errno(errno);
		if (!(f->dir = fdopendir(h))) {
			err = wasi_errno(errno);
			close(h);
			return err;
		}
		f->dirpos = 0;
		if (cookie_note(f, 0, telldir(f->dir)) < 0)
			return WE_NOMEM;
	}
	if (cookie >= f->noffs)
		return WE_INVAL;   /* never handed out */
	if (cookie != f->dirpos) {
		if (cookie == 0)
			rewinddir(f->dir);
		else
			seekdir(f->dir, f->offs[cookie]);
		f->dirpos = cookie;
	}
	uint32_t used = 0;
	while (used < len) {
		errno = 0;
		struct dirent *e = readdir(f->dir);
		if (!e) {
			if (errno)
				return wasi_errno(errno);
			break;
		}
		f->dirpos++;
		if (cookie_note(f, f->dirpos, telldir(f->dir)) < 0)
			return WE_NOMEM;
		uint8_t hdr[24];
		size_t nl = strlen(e->d_name);
		uint8_t t = dtype_of(e->d_type);
		if (e->d_type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(f->dir), e->d_name, &st,
			            AT_SYMLINK_NOFOLLOW) == 0)
				t = ftype_of(st.st_mode);
		}
		memset(hdr, 0, sizeof hdr);
		put64(hdr, f->dirpos);
		put64(hdr + 8, (uint64_t)e->d_ino);
		put32(hdr + 16, (uint32_t)nl);
		hdr[20] = t;
		/* A truncated last entry tells the caller to retry with a
		 * bigger buffer from the previous cookie. */
		uint32_t k = len - used < 24 ? len - used : 24;
		memcpy(d + used, hdr, k);
		used += k;
		k = len - used < nl ? len - used : (uint32_t)nl;
		memcpy(d + used, e->d_name, k);
		used += k;
	}
	put32(u, used);
	return WE_SUCCESS;
}

/* ---- paths ----------------------------------------------------------------- */

/* The directory descriptor for a path call, holding `need`. */
static wfd *dir_get(uint32_t fd, uint64_t need, uint16_t *err)
{
	wfd *f = fd_get(fd, need, err);
	if (f && f->type != FT_DIR) {
		*err = WE_NOTDIR;
		return NULL;
	}
	return f;
}

static uint32_t w_path_open(rt_instance *inst, uint32_t dirfd,
                            uint32_t lookup, uint32_t ppath, uint32_t plen,
                            uint32_t oflags, uint64_t base, uint64_t inh,
                            uint32_t fdflags, uint32_t pfd)
{
	uint16_t err;
	char path[PATH_MAX];
	uint64_t need = RT_PATH_OPEN;
	if (oflags & OF_CREAT)
		need |= RT_PATH_CREATE_FILE;
	if (oflags & OF_TRUNC)
		need |= RT_PATH_FILESTAT_SET_SIZE;
	wfd *d = dir_get(dirfd, need, &err);
	if (!d)
		return err;
	if ((err = get_path(inst, ppath, plen, path)))
		return err;
	uint8_t *out = MEM(pfd, 4);
	if (!out)
		return WE_FAULT;
	if (oflags & ~15u || fdflags & ~31u)
		return WE_INVAL;

	/* The sync fdflags are a question to the directory (witx: with
	 * path_open, fd_datasync allows dsync and fd_sync allows dsync and
	 * rsync): what it may hand out, not what the new fd asks for. */
	if ((fdflags & FDF_DSYNC) && !(d->inh & (RT_FD_DATASYNC | RT_FD_SYNC)))
		return WE_NOTCAPABLE;
	if ((fdflags & (FDF_RSYNC | FDF_SYNC)) && !(d->inh & RT_FD_SYNC))
		return WE_NOTCAPABLE;
	/* Writing is what a directory cannot do, whatever may be handed out
	 * (syncing it can be done, and fdstat reports those rights): as
	 * open(2), ISDIR once the name is known to be a directory. */
	bool dir_write = (oflags & OF_DIRECTORY) && (base & RT_FD_WRITE);

	/* Rights come from what the directory may hand out. */
	base &= d->inh;
	inh &= d->inh;
	bool rd = base & (RT_FD_READ | RT_FD_READDIR);
	/* fd_sync and fd_datasync work on a descriptor open for reading. */
	bool wr = base & (RT_FD_WRITE | RT_FD_ALLOCATE | RT_FD_FILESTAT_SET_SIZE);
	if (d->ro && ((wr && !(oflags & OF_DIRECTORY)) ||
	              (oflags & (OF_CREAT | OF_TRUNC)) ||
	              (fdflags & FDF_APPEND)))
		return WE_ROFS;

	/* A directory is opened for reading whatever else was asked: the
	 * rights of the new fd are cut to a directory's below. */
	if (oflags & OF_DIRECTORY)
		wr = false;
	int fl = wr ? (rd ? O_RDWR : O_WRONLY) : O_RDONLY;
	if (oflags & OF_CREAT) fl |= O_CREAT;
	if (oflags & OF_DIRECTORY) fl |= O_DIRECTORY;
	if (oflags & OF_EXCL) fl |= O_EXCL;
	if (oflags & OF_TRUNC) fl |= O_TRUNC;
	if (fdflags & FDF_APPEND) fl |= O_APPEND;
	if (fdflags & FDF_DSYNC) fl |= O_DSYNC;
	if (fdflags & FDF_NONBLOCK) fl |= O_NONBLOCK;
	if (fdflags & FDF_RSYNC) fl |= O_RSYNC;
	if (fdflags & FDF_SYNC) fl |= O_SYNC;

	int h;
	err = wasi_sb_open(d->host, path, fl, 0666,
	                   lookup & LOOKUP_SYMLINK_FOLLOW, &h);
	/* Only fd_write makes a directory's open fail: without it, the
	 * size and allocate rights are dropped (cut to a directory's below). */
	if (err == WE_ISDIR && wr && !(base & RT_FD_WRITE) &&
	    !(oflags & (OF_CREAT | OF_TRUNC))) {
		wr = false;
		fl = (fl & ~O_ACCMODE) | O_RDONLY;
		err = wasi_sb_open(d->host, path, fl, 0666,
		                   lookup & LOOKUP_SYMLINK_FOLLOW, &h);
	}
	if (err)
		return err;
	struct stat st;
	if (fstat(h, &st) < 0 || dir_write) {
		err = dir_write ? WE_ISDIR : wasi_errno(errno);
		close(h);
		return err;
	}
	pthread_mutex_lock(&fd_lock);
	uint32_t nfd = fd_alloc();
	if (nfd == UINT32_MAX) {
		pthread_mutex_unlock(&fd_lock);
		close(h);
		return WE_MFILE;
	}
	wfd *f = &W.fds[nfd];
	memset(f, 0, sizeof *f);
	f->open = true;
	f->ro = d->ro;
	f->host = h;
	f->type = ftype_of(st.st_mode);
	f->fdflags = (uint16_t)fdflags;
	f->base = base & rights_for(f->type);
	if (!rd)
		f->base &= ~(RT_FD_READ | RT_FD_READDIR);
	if (!wr)
		f->base &= ~(RT_FD_WRITE | RT_FD_ALLOCATE | RT_FD_FILESTAT_SET_SIZE);
	f->inh = f->type == FT_DIR ? inh : 0;
	pthread_mutex_unlock(&fd_lock);
	put32(out, nfd);
	return WE_SUCCESS;
}

/* Resolves (dirfd, path) for a path call that acts on the last name. */
typedef struct pref {
	int dir, root;        /* dir may be root itself: see wasi_sb_parent */
	bool must_dir;        /* the path ended in '/' */
	char last[PATH_MAX];
} pref;

static void path_done(pref *r)
{
	wasi_sb_put(r->root, r->dir);
}

static uint16_t path_at(rt_instance *inst, uint32_t dirfd, uint64_t need,
                        bool mutate, uint32_t p, uint32_t len, bool follow,
                        pref *r)
{
	uint16_t err;
	char path[PATH_MAX];
	wfd *d = dir_get(dirfd, need, &err);
	if (!d)
		return err;
	if ((err = get_path(inst, p, len, path)))
		return err;
	if (mutate && d->ro)
		return WE_ROFS;
	r->root = d->host;
	return wasi_sb_parent(d->host, path, follow, &r->dir, r->last,
	                      &r->must_dir);
}

static uint32_t w_path_create_directory(rt_instance *inst, uint32_t fd,
                                        uint32_t p, uint32_t len)
{
	pref r;
	uint16_t err = path_at(inst, fd, RT_PATH_CREATE_DIRECTORY, true, p, len,
	                       false, &r);
	if (err)
		return err;
	err = mkdirat(r.dir, r.last, 0777) < 0 ? wasi_errno(errno) : WE_SUCCESS;
	path_done(&r);
	return err;
}

static uint32_t w_path_remove_directory(rt_instance *inst, uint32_t fd,
                                        uint32_t p, uint32_t len)
{
	pref r;
	uint16_t err = path_at(inst, fd, RT_PATH_REMOVE_DIRECTORY, true, p, len,
	                       false, &r);
	if (err)
		return err;
	err = unlinkat(r.dir, r.last, AT_REMOVEDIR) < 0 ? wasi_errno(errno)
	                                           : WE_SUCCESS;
	path_done(&r);
	return err;
}

static uint32_t w_path_unlink_file(rt_instance *inst, uint32_t fd,
                                   uint32_t p, uint32_t len)
{
	pref r;
	uint16_t err = path_at(inst, fd, RT_PATH_UNLINK_FILE, true, p, len,
	                       false, &r);
	if (err)
		return err;
	struct stat st;
	if (r.must_dir && fstatat(r.dir, r.last, &st, AT_SYMLINK_NOFOLLOW) == 0)
		err = S_ISDIR(st.st_mode) ? WE_ISDIR : WE_NOTDIR;
	else if (unlinkat(r.dir, r.last, 0) < 0)
		err = wasi_errno(errno);
	path_done(&r);
	return err;
}

static uint32_t w_path_filestat_get(rt_instance *inst, uint32_t fd,
                                    uint32_t flags, uint32_t p, uint32_t len,
                                    uint32_t pbuf)
{
	pref r;
	struct stat st;
	uint8_t *d = MEM(pbuf, 64);
	if (!d)
		return WE_FAULT;
	/* One fstatat without following; only a name that is a symlink
	 * (and is to be followed) pays for a second, confined resolution.
	 * The stat that decides is always the one whose result is used. */
	uint16_t err = path_at(inst, fd, RT_PATH_FILESTAT_GET, false, p, len,
	                       false, &r);
	if (err)
		return err;
	int rc = fstatat(r.dir, r.last, &st, AT_SYMLINK_NOFOLLOW);
	if (rc == 0 && S_ISLNK(st.st_mode) && (flags & LOOKUP_SYMLINK_FOLLOW)) {
		path_done(&r);
		err = path_at(inst, fd, RT_PATH_FILESTAT_GET, false, p, len,
		              true, &r);
		if (err)
			return err;
		rc = fstatat(r.dir, r.last, &st, AT_SYMLINK_NOFOLLOW);
	}
	if (rc < 0)
		err = wasi_errno(errno);
	else if (r.must_dir && !S_ISDIR(st.st_mode))
		err = WE_NOTDIR;
	else
		write_filestat(d, &st);
	path_done(&r);
	return err;
}

static uint32_t w_path_filestat_set_times(rt_instance *inst, uint32_t fd,
                                          uint32_t flags, uint32_t p,
                                          uint32_t len, uint64_t atim,
                                          uint64_t mtim, uint32_t fst)
{
	pref r;
	struct timespec ts[2];
	uint16_t err = make_times(atim, mtim, fst, ts);
	if (err)
		return err;
	err = path_at(inst, fd, RT_PATH_FILESTAT_SET_TIMES, true, p, len,
	              flags & LOOKUP_SYMLINK_FOLLOW, &r);
	if (err)
		return err;
	/* Any final symlink left here was not to be followed. */
	if (utimensat(r.dir, r.last, ts, AT_SYMLINK_NOFOLLOW) < 0)
		err = wasi_errno(errno);
	path_done(&r);
	return err;
}

static uint32_t w_path_readlink(rt_instance *inst, uint32_t fd, uint32_t p,
                                uint32_t len, uint32_t buf, uint32_t blen,
                                uint32_t pused)
{
	pref r;
	char tgt[PATH_MAX];
	uint16_t err = path_at(inst, fd, RT_PATH_READLINK, false, p, len, false,
	                       &r);
	if (err)
		return err;
	ssize_t k = readlinkat(r.dir, r.last, tgt, sizeof tgt);
	path_done(&r);
	if (k < 0)
		return wasi_errno(errno);
	char *d = MEM(buf, blen);
	uint8_t *u = MEM(pused, 4);
	if ((!d && blen) || !u)
		return WE_FAULT;
	/* Truncated like readlink(2). */
	size_t n = (size_t)k < blen ? (size_t)k : blen;
	memcpy(d, tgt, n);
	put32(u, (uint32_t)n);
	return WE_SUCCESS;
}

/* How many directories `dir` lies below `root`, by walking "..": the
 * names on the way may be symlinks, so the path text does not say.
 * -1 when root is not met (the directory was moved out meanwhile). */
static int depth_below(int root, int dir)
{
	struct stat rs, st;
	if (fstat(root, &rs) < 0)
		return -1;
	int cur = dir, depth = 0;
	while (depth < PATH_MAX / 2) {
		if (fstat(cur, &st) < 0)
			break;
		if (st.st_dev == rs.st_dev && st.st_ino == rs.st_ino) {
			if (cur != dir)
				close(cur);
			return depth;
		}
		int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cur != dir)
			close(cur);
		cur = up;
		if (cur < 0)
			return -1;
		struct stat us;
		if (fstat(cur, &us) == 0 && us.st_dev == st.st_dev &&
		    us.st_ino == st.st_ino)
			break;   /* "/" is its own parent */
		depth++;
	}
	if (cur >= 0 && cur != dir)
		close(cur);
	return -1;
}

/* PERM unless the relative symlink target `tgt`, read from the
 * directory `dir` as text (each ".." one level up, as a later lookup
 * from there would go if no component were a link), stays at or
 * below `root`. */
static uint16_t target_beneath(int root, int dir, const char *tgt)
{
	int depth = dir == root ? 0 : depth_below(root, dir);
	if (depth < 0)
		return WE_PERM;
	for (const char *c = tgt; *c; ) {
		size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (--depth < 0)
				return WE_PERM;
		} else if (n && !(n == 1 && c[0] == '.'))
			depth++;
		c += n;
		c += *c == '/';
	}
	return WE_SUCCESS;
}

static uint32_t w_path_symlink(rt_instance *inst, uint32_t pold,
                               uint32_t oldlen, uint32_t fd, uint32_t pnew,
                               uint32_t newlen)
{
	pref r;
	char tgt[PATH_MAX];
	uint16_t err = get_path(inst, pold, oldlen, tgt);
	if (err)
		return err;
	/* mpiwasm confines following any link, but host tools that walk the
	 * grant later do not: a module may not leave a link out of it. */
	if (tgt[0] == '/')
		return WE_PERM;
	err = path_at(inst, fd, RT_PATH_SYMLINK, true, pnew, newlen, false,
	              &r);
	if (err)
		return err;
	if (r.must_dir)
		err = WE_NOENT;   /* as symlink(2) for "name/" that does not exist */
	if (!err)
		err = target_beneath(r.root, r.dir, tgt);
	if (!err && symlinkat(tgt, r.dir, r.last) < 0)
		err = wasi_errno(errno);
	path_done(&r);
	return err;
}

static uint32_t w_path_link(rt_instance *inst, uint32_t ofd, uint32_t oflags,
                            uint32_t pold, uint32_t oldlen, uint32_t nfd,
                            uint32_t pnew, uint32_t newlen)
{
	pref o, n;
	/* A followed source is resolved beneath the grant here, so the
	 * kernel is never asked to follow anything. */
	uint16_t err = path_at(inst, ofd, RT_PATH_LINK_SOURCE, true, pold,
	                       oldlen, oflags & LOOKUP_SYMLINK_FOLLOW, &o);
	if (err)
		return err;
	/* A source ending in '/' names what a final symlink leads to. */
	if (o.must_dir && !(oflags & LOOKUP_SYMLINK_FOLLOW)) {
		path_done(&o);
		err = path_at(inst, ofd, RT_PATH_LINK_SOURCE, true, pold,
		              oldlen, true, &o);
		if (err)
			return err;
	}
	err = path_at(inst, nfd, RT_PATH_LINK_TARGET, true, pnew, newlen,
	              false, &n);
	if (err) {
		path_done(&o);
		return err;
	}
	/* path_at took the trailing '/'s off: decide what link(2) decides
	 * with them, in its order (source, then the new name, then a
	 * directory source), since no link can come of it. */
	struct stat st;
	if (o.must_dir || n.must_dir) {
		if (fstatat(o.dir, o.last, &st, AT_SYMLINK_NOFOLLOW) < 0)
			err = wasi_errno(errno);
		else if (o.must_dir && !S_ISDIR(st.st_mode))
			err = WE_NOTDIR;
		else if (n.must_dir)
			err = fstatat(n.dir, n.last, &st, AT_SYMLINK_NOFOLLOW) == 0
			      ? WE_EXIST : WE_NOENT;
		else
			err = WE_PERM;   /* a hard link to a directory */
	} else if (linkat(o.dir, o.last, n.dir, n.last, 0) < 0)
		err = wasi_errno(errno);
	path_done(&o);
	path_done(&n);
	return err;
}

static uint32_t w_path_rename(rt_instance *inst, uint32_t ofd, uint32_t pold,
                              uint32_t oldlen, uint32_t nfd, uint32_t pnew,
                              uint32_t newlen)
{
	pref o, n;
	uint16_t err = path_at(inst, ofd, RT_PATH_RENAME_SOURCE, true, pold,
	                       oldlen, false, &o);
	if (err)
		return err;
	err = path_at(inst, nfd, RT_PATH_RENAME_TARGET, true, pnew, newlen,
	              false, &n);
	if (err) {
		path_done(&o);
		return err;
	}
	struct stat st;
	if ((o.must_dir || n.must_dir) &&
	    fstatat(o.dir, o.last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISDIR(st.st_mode))
		err = WE_NOTDIR;
	else if (renameat(o.dir, o.last, n.dir, n.last) < 0)
		err = wasi_errno(errno);
	path_done(&o);
	path_done(&n);
	return err;
}

/* ---- poll ------------------------------------------------------------------ */

enum { EV_CLOCK = 0, EV_FD_READ = 1, EV_FD_WRITE = 2 };

static uint32_t w_poll_oneoff(rt_instance *inst, uint32_t pin, uint32_t pout,
                              uint32_t nsubs, uint32_t pnev)
{
	if (nsubs == 0)
		return WE_INVAL;
	const uint8_t *in = rt_mem_array(inst, pin, nsubs, 48);
	uint8_t *out = rt_mem_array(inst, pout, nsubs, 32);
	uint8_t *nev = MEM(pnev, 4);
	if (!in || !out || !nev)
		return WE_FAULT;
	struct pollfd *pf = calloc(nsubs, sizeof *pf);
	uint32_t *pidx = calloc(nsubs, sizeof *pidx);
	if (!pf || !pidx) {
		free(pf);
		free(pidx);
		return WE_NOMEM;
	}
	uint32_t np = 0, n = 0;
	int64_t timeout = -1;   /* ns; -1 = no clock: wait for an fd */
	struct timespec now;
	uint64_t start = 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	start = ts_ns(now);

	/* Immediate results (bad subscriptions) go out first. */
	for (uint32_t i = 0; i < nsubs; i++) {
		const uint8_t *s = in + 48 * i;
		uint8_t tag = s[8];
		uint16_t err = 0;
		if (tag == EV_CLOCK) {
			clockid_t c;
			uint32_t id = get32(s + 16);
			uint64_t t = get64(s + 24);
			uint16_t fl = (uint16_t)(s[40] | s[41] << 8);
			if (clock_host(id, &c) < 0) {
				err = WE_INVAL;
			} else {
				int64_t rel = (int64_t)(t > INT64_MAX ? INT64_MAX : t);
				if (fl & 1) {   /* absolute */
					struct timespec cn;
					clock_gettime(c, &cn);
					rel = t > ts_ns(cn) ? (int64_t)(t - ts_ns(cn)) : 0;
				}
				if (timeout < 0 || rel < timeout)
					timeout = rel;
				continue;
			}
		} else if (tag == EV_FD_READ || tag == EV_FD_WRITE) {
			wfd *f = fd_get(get32(s + 16), RT_POLL_FD_READWRITE, &err);
			if (f) {
				pf[np].fd = f->host;
				pf[np].events = tag == EV_FD_READ ? POLLIN : POLLOUT;
				pidx[np++] = i;
				continue;
			}
		} else {
			err = WE_INVAL;
		}
		uint8_t *e = out + 32 * n++;
		memset(e, 0, 32);
		memcpy(e, s, 8);
		put16(e + 8, err);
		e[10] = tag;
	}

	int64_t left = n ? 0 : timeout;
	for (;;) {
		struct timespec ts, *tp = NULL;
		if (left >= 0) {
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			tp = &ts;
		}
		int r = ppoll(pf, np, tp, NULL);
		if (r >= 0)
			break;
		if (errno != EINTR) {
			free(pf);
			free(pidx);
			return wasi_errno(errno);
		}
		if (left > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			int64_t el = (int64_t)(ts_ns(now) - start);
			left = timeout - el > 0 ? timeout - el : 0;
		}
	}
	bool fd_ready = false;
	for (uint32_t k = 0; k < np; k++) {
		if (!pf[k].revents)
			continue;
		const uint8_t *s = in + 48 * pidx[k];
		uint8_t *e = out + 32 * n++;
		memset(e, 0, 32);
		memcpy(e, s, 8);
		e[10] = s[8];
		fd_ready = true;
		if (pf[k].revents & POLLNVAL) {
			put16(e + 8, WE_BADF);
			continue;
		}
		if ((pf[k].revents & POLLERR) && !(pf[k].revents & (POLLIN | POLLOUT))) {
			put16(e + 8, WE_IO);
			continue;
		}
		uint64_t avail = 0;
		if (s[8] == EV_FD_READ) {
			struct stat st;
			int q = 0;
			if (fstat(pf[k].fd, &st) == 0 && S_ISREG(st.st_mode)) {
				off_t cur = lseek(pf[k].fd, 0, SEEK_CUR);
				if (cur >= 0 && st.st_size > cur)
					avail = (uint64_t)(st.st_size - cur);
			} else if (ioctl(pf[k].fd, FIONREAD, &q) == 0 && q > 0) {
				avail = (uint64_t)q;
			}
		}
		put64(e + 16, avail);
		if (pf[k].revents & POLLHUP)
			put16(e + 24, 1);
	}
	/* Clocks fire when no fd became ready first. */
	if (!fd_ready && n == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t el = (int64_t)(ts_ns(now) - start);
		for (uint32_t i = 0; i < nsubs; i++) {
			const uint8_t *s = in + 48 * i;
			if (s[8] != EV_CLOCK)
				continue;
			clockid_t c;
			if (clock_host(get32(s + 16), &c) < 0)
				continue;
			uint64_t t = get64(s + 24);
			if (!(s[40] & 1) && (int64_t)t > el && (int64_t)t != timeout)
				continue;   /* a later relative clock */
			uint8_t *e = out + 32 * n++;
			memset(e, 0, 32);
			memcpy(e, s, 8);
			e[10] = EV_CLOCK;
		}
	}
	free(pf);
	free(pidx);
	put32(nev, n);
	return WE_SUCCESS;
}

/* ---- sockets ---------------------------------------------------------------
 * The module cannot create sockets, but it may be given one (a socket as
 * stdin/stdout, or one accepted from a listening socket it was given). */

enum { RI_PEEK = 1, RI_WAITALL = 2, RO_TRUNCATED = 1, SD_RD = 1, SD_WR = 2 };

/* The socket behind fd, holding `need`; ENOTSOCK for anything else, as
 * the host would say, before any rights question. */
static wfd *sock_get(uint32_t fd, uint64_t need, uint16_t *err)
{
	wfd *f = fd_get(fd, 0, err);
	if (!f)
		return NULL;
	if (f->type != FT_STREAM && f->type != FT_DGRAM) {
		*err = WE_NOTSOCK;
		return NULL;
	}
	return fd_get(fd, need, err);
}

static uint32_t w_sock_accept(rt_instance *inst, uint32_t fd, uint32_t fl,
                              uint32_t pfd)
{
	uint16_t err;
	wfd *f = sock_get(fd, RT_SOCK_ACCEPT, &err);
	if (!f)
		return err;
	if (fl & ~(uint32_t)FDF_NONBLOCK)
		return WE_INVAL;
	uint8_t *out = MEM(pfd, 4);
	if (!out)
		return WE_FAULT;
	int h;
	do
		h = accept4(f->host, NULL, NULL, SOCK_CLOEXEC |
		            ((fl & FDF_NONBLOCK) ? SOCK_NONBLOCK : 0));
	while (h < 0 && errno == EINTR);
	if (h < 0)
		return wasi_errno(errno);
	pthread_mutex_lock(&fd_lock);
	uint32_t nfd = fd_alloc();
	if (nfd == UINT32_MAX) {
		pthread_mutex_unlock(&fd_lock);
		close(h);
		return WE_MFILE;
	}
	wfd *n = &W.fds[nfd];
	memset(n, 0, sizeof *n);
	n->open = true;
	n->host = h;
	n->type = sock_type(h);
	n->fdflags = (uint16_t)fl;
	n->base = rights_for(n->type) & ~(uint64_t)RT_SOCK_ACCEPT;
	pthread_mutex_unlock(&fd_lock);
	put32(out, nfd);
	return WE_SUCCESS;
}

static uint32_t w_sock_recv(rt_instance *inst, uint32_t fd, uint32_t iovs,
                            uint32_t n, uint32_t riflags, uint32_t plen,
                            uint32_t pflags)
{
	uint16_t err;
	wfd *f = sock_get(fd, RT_FD_READ, &err);
	if (!f)
		return err;
	if (riflags & ~(uint32_t)(RI_PEEK | RI_WAITALL))
		return WE_INVAL;
	struct iovec v[IOV_MAX];
	if ((err = get_iovs(inst, iovs, n, v)))
		return err;
	uint8_t *pl = MEM(plen, 4), *pf = MEM(pflags, 2);
	if (!pl || !pf)
		return WE_FAULT;
	struct msghdr m;
	memset(&m, 0, sizeof m);
	m.msg_iov = v;
	m.msg_iovlen = n;
	int hf = ((riflags & RI_PEEK) ? MSG_PEEK : 0) |
	         ((riflags & RI_WAITALL) ? MSG_WAITALL : 0);
	ssize_t r;
	do
		r = recvmsg(f->host, &m, hf);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return wasi_errno(errno);
	put32(pl, (uint32_t)r);
	put16(pf, (m.msg_flags & MSG_TRUNC) ? RO_TRUNCATED : 0);
	return WE_SUCCESS;
}

static uint32_t w_sock_send(rt_instance *inst, uint32_t fd, uint32_t iovs,
                            uint32_t n, uint32_t siflags, uint32_t plen)
{
	uint16_t err;
	wfd *f = sock_get(fd, RT_FD_WRITE, &err);
	if (!f)
		return err;
	if (siflags != 0)   /* witx defines no siflags */
		return WE_INVAL;
	struct iovec v[IOV_MAX];
	if ((err = get_iovs(inst, iovs, n, v)))
		return err;
	uint8_t *pl = MEM(plen, 4);
	if (!pl)
		return WE_FAULT;
	struct msghdr m;
	memset(&m, 0, sizeof m);
	m.msg_iov = v;
	m.msg_iovlen = n;
	ssize_t r;
	/* MSG_NOSIGNAL: a closed peer is EPIPE for the module, not a host
	 * SIGPIPE that would kill the runtime. */
	do
		r = sendmsg(f->host, &m, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return wasi_errno(errno);
	put32(pl, (uint32_t)r);
	return WE_SUCCESS;
}

static uint32_t w_sock_shutdown(rt_instance *inst, uint32_t fd, uint32_t how)
{
	uint16_t err;
	wfd *f = sock_get(fd, RT_SOCK_SHUTDOWN, &err);
	if (!f)
		return err;
	int h;
	switch (how) {
	case SD_RD: h = SHUT_RD; break;
	case SD_WR: h = SHUT_WR; break;
	case SD_RD | SD_WR: h = SHUT_RDWR; break;
	default: return WE_INVAL;
	}
	return shutdown(f->host, h) < 0 ? wasi_errno(errno) : WE_SUCCESS;
}

/* ---- registration ----------------------------------------------------------- */

#define M "wasi_snapshot_preview1"
static const rt_hostfn wasi_fns[] = {
	{ M, "args_get", "ii:i", (void *)w_args_get },
	{ M, "args_sizes_get", "ii:i", (void *)w_args_sizes_get },
	{ M, "environ_get", "ii:i", (void *)w_environ_get },
	{ M, "environ_sizes_get", "ii:i", (void *)w_environ_sizes_get },
	{ M, "clock_res_get", "ii:i", (void *)w_clock_res_get },
	{ M, "clock_time_get", "iIi:i", (void *)w_clock_time_get },
	{ M, "fd_advise", "iIIi:i", (void *)w_fd_advise },
	{ M, "fd_allocate", "iII:i", (void *)w_fd_allocate },
	{ M, "fd_close", "i:i", (void *)w_fd_close },
	{ M, "fd_datasync", "i:i", (void *)w_fd_datasync },
	{ M, "fd_fdstat_get", "ii:i", (void *)w_fd_fdstat_get },
	{ M, "fd_fdstat_set_flags", "ii:i", (void *)w_fd_fdstat_set_flags },
	{ M, "fd_fdstat_set_rights", "iII:i", (void *)w_fd_fdstat_set_rights },
	{ M, "fd_filestat_get", "ii:i", (void *)w_fd_filestat_get },
	{ M, "fd_filestat_set_size", "iI:i", (void *)w_fd_filestat_set_size },
	{ M, "fd_filestat_set_times", "iIIi:i", (void *)w_fd_filestat_set_times },
	{ M, "fd_pread", "iiiIi:i", (void *)w_fd_pread },
	{ M, "fd_prestat_get", "ii:i", (void *)w_fd_prestat_get },
	{ M, "fd_prestat_dir_name", "iii:i", (void *)w_fd_prestat_dir_name },
	{ M, "fd_pwrite", "iiiIi:i", (void *)w_fd_pwrite },
	{ M, "fd_read", "iiii:i", (void *)w_fd_read },
	{ M, "fd_readdir", "iiiIi:i", (void *)w_fd_readdir },
	{ M, "fd_renumber", "ii:i", (void *)w_fd_renumber },
	{ M, "fd_seek", "iIii:i", (void *)w_fd_seek },
	{ M, "fd_sync", "i:i", (void *)w_fd_sync },
	{ M, "fd_tell", "ii:i", (void *)w_fd_tell },
	{ M, "fd_write", "iiii:i", (void *)w_fd_write },
	{ M, "path_create_directory", "iii:i", (void *)w_path_create_directory },
	{ M, "path_filestat_get", "iiiii:i", (void *)w_path_filestat_get },
	{ M, "path_filestat_set_times", "iiiiIIi:i",
	  (void *)w_path_filestat_set_times },
	{ M, "path_link", "iiiiiii:i", (void *)w_path_link },
	{ M, "path_open", "iiiiiIIii:i", (void *)w_path_open },
	{ M, "path_readlink", "iiiiii:i", (void *)w_path_readlink },
	{ M, "path_remove_directory", "iii:i", (void *)w_path_remove_directory },
	{ M, "path_rename", "iiiiii:i", (void *)w_path_rename },
	{ M, "path_symlink", "iiiii:i", (void *)w_path_symlink },
	{ M, "path_unlink_file", "iii:i", (void *)w_path_unlink_file },
	{ M, "poll_oneoff", "iiii:i", (void *)w_poll_oneoff },
	{ M, "proc_exit", "i:", (void *)w_proc_exit },
	{ M, "proc_raise", "i:i", (void *)w_proc_raise },
	{ M, "sched_yield", ":i", (void *)w_sched_yield },
	{ M, "random_get", "ii:i", (void *)w_random_get },
	{ M, "sock_accept", "iii:i", (void *)w_sock_accept },
	{ M, "sock_recv", "iiiiii:i", (void *)w_sock_recv },
	{ M, "sock_send", "iiiii:i", (void *)w_sock_send },
	{ M, "sock_shutdown", "ii:i", (void *)w_sock_shutdown },
};
#undef M

void wasi_register(void)
{
	rt_host_register(wasi_fns, sizeof wasi_fns / sizeof *wasi_fns);
}

/* ---- setup --------------------------------------------------------------- */

/* Guest names compare without trailing slashes ("/data/" is "/data"). */
static size_t guest_len(const char *g)
{
	size_t n = strlen(g);
	while (n > 1 && g[n - 1] == '/')
		n--;
	return n;
}

static void stdio_init(int i)
{
	wfd *f = &W.fds[i];
	struct stat st;
	memset(f, 0, sizeof *f);
	f->host = i;
	f->stdio = true;
	if (fstat(i, &st) < 0)
		return;   /* not open on the host: not open in the module */
	f->open = true;
	f->type = ftype_of(st.st_mode);
	if (S_ISSOCK(st.st_mode))
		f->type = sock_type(i);
	f->base = rights_for(f->type);
	if (f->type == FT_DIR)
		f->base = RIGHTS_STREAM & ~(RT_FD_READ | RT_FD_WRITE);
	f->inh = 0;
}

int wasi_setup(const wasi_config *cfg, char *err, size_t errlen)
{
	if (W.setup)
		wasi_teardown();
	wasi_sb_init();
	for (int i = 0; i < cfg->npreopens; i++) {
		const wasi_preopen *p = &cfg->preopens[i];
		const char *g = p->guest ? p->guest : p->host;
		const char *opt = p->readonly ? "--dir-ro" : "--dir";
		struct stat st;
		if (!p->host || !*p->host || !*g) {
			snprintf(err, errlen, "%s: empty directory name", opt);
			return -1;
		}
		if (stat(p->host, &st) < 0) {
			snprintf(err, errlen, "%s %s: %s", opt, p->host,
			         strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s %s: not a directory", opt,
			         p->host);
			return -1;
		}
		for (int j = 0; j < i; j++) {
			const wasi_preopen *q = &cfg->preopens[j];
			const char *h = q->guest ? q->guest : q->host;
			size_t a = guest_len(g), b = guest_len(h);
			if (a == b && memcmp(g, h, a) == 0) {
				snprintf(err, errlen, "%s %s: guest path '%s' "
				         "is already granted (by %s %s)", opt,
				         p->host, g, q->readonly ? "--dir-ro" : "--dir",
				         q->host);
				return -1;
			}
		}
	}
	W.nfds = (uint32_t)(3 + cfg->npreopens);
	if (W.nfds < 16)
		W.nfds = 16;
	W.fds = calloc(FD_CAP, sizeof *W.fds);
	if (!W.fds) {
		snprintf(err, errlen, "wasi_setup: out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < W.nfds; i++)
		W.fds[i].host = -1;
	for (int i = 0; i < 3; i++)
		stdio_init(i);
	W.setup = true;
	for (int i = 0; i < cfg->npreopens; i++) {
		const wasi_preopen *p = &cfg->preopens[i];
		const char *g = p->guest ? p->guest : p->host;
		wfd *f = &W.fds[3 + i];
		int h = open(p->host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (h < 0) {
			snprintf(err, errlen, "%s %s: %s",
			         p->readonly ? "--dir-ro" : "--dir", p->host,
			         strerror(errno));
			wasi_teardown();
			return -1;
		}
		f->open = true;
		f->host = h;
		f->ro = p->readonly;
		f->type = FT_DIR;
		f->base = RIGHTS_DIR;
		f->inh = RIGHTS_DIR | RIGHTS_FILE;
		f->guest = strndup(g, guest_len(g));
		if (!f->guest) {
			snprintf(err, errlen, "wasi_setup: out of memory");
			wasi_teardown();
			return -1;
		}
	}
	W.argc = cfg->argc;
	W.argv = cfg->argv;
	W.nenv = cfg->nenv;
	W.env = cfg->env;
	return 0;
}

void wasi_teardown(void)
{
	for (uint32_t i = 0; i < W.nfds; i++)
		if (W.fds[i].open || W.fds[i].guest || W.fds[i].dir)
			fd_release(&W.fds[i]);
	free(W.fds);
	memset(&W, 0, sizeof W);
}

/* ---- the MPI bridge's view ------------------------------------------------ */

/* The preopen whose guest name is the longest prefix of path, as
 * wasi-libc's resolver chooses (a relative path matches "." or a
 * relative guest name). */
static wfd *preopen_for(const char *path, const char **rel)
{
	wfd *best = NULL;
	size_t bestlen = 0;
	for (uint32_t i = 0; i < W.nfds; i++) {
		wfd *f = &W.fds[i];
		if (!f->open || !f->guest)
			continue;
		const char *g = f->guest;
		size_t n = strlen(g);
		const char *r;
		if (strcmp(g, ".") == 0 || strcmp(g, "./") == 0) {
			if (path[0] == '/')
				continue;
			n = 0;
			r = path;
		} else {
			if (strncmp(path, g, n) != 0)
				continue;
			if (path[n] != 0 && path[n] != '/' && !(n == 1 && g[0] == '/'))
				continue;
			r = path + n;
		}
		if (!best || n > bestlen) {
			best = f;
			bestlen = n;
			*rel = r;
		}
	}
	return best;
}

/* The grant for a module path and the rest of the path beneath it
 * (never empty: "." for the grant itself), or NULL with errno set. */
static wfd *sandbox_grant(const char *guest_path, bool write,
                          const char **rel)
{
	if (!guest_path) {
		errno = EFAULT;
		return NULL;
	}
	wfd *d = preopen_for(guest_path, rel);
	if (!d) {
		errno = EACCES;
		return NULL;
	}
	if (write && d->ro) {
		errno = EROFS;
		return NULL;
	}
	while (**rel == '/')
		(*rel)++;
	if (!**rel)
		*rel = ".";
	return d;
}

char *wasi_sandbox_path(const char *guest_path, bool write)
{
	const char *rel = NULL;
	wfd *d = sandbox_grant(guest_path, write, &rel);
	if (!d)
		return NULL;
	int pfd;
	bool md;
	char last[PATH_MAX];
	uint16_t e = wasi_sb_parent(d->host, rel, true, &pfd, last, &md);
	if (e) {
		errno = wasi_host_errno(e);
		return NULL;
	}
	char link[64], dir[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", pfd);
	ssize_t n = readlink(link, dir, sizeof dir - 1);
	int saved = errno;
	wasi_sb_put(d->host, pfd);
	if (n < 0 || n >= (ssize_t)sizeof dir - 1) {
		errno = n < 0 ? saved : ENAMETOOLONG;
		return NULL;
	}
	dir[n] = 0;
	char *out;
	if (strcmp(last, ".") == 0)
		out = strdup(dir);
	else if (asprintf(&out, "%s/%s", strcmp(dir, "/") ? dir : "", last) < 0)
		out = NULL;
	if (!out)
		errno = ENOMEM;
	return out;
}

int wasi_sandbox_open(const char *guest_path, int oflags, mode_t mode,
                      char *hostpath_out, size_t len)
{
	bool write = (oflags & O_ACCMODE) != O_RDONLY ||
	             (oflags & (O_CREAT | O_TRUNC | O_APPEND));
	const char *rel = NULL;
	if (!hostpath_out || len == 0) {
		errno = EINVAL;
		return -1;
	}
	hostpath_out[0] = 0;
	wfd *d = sandbox_grant(guest_path, write, &rel);
	if (!d)
		return -1;
	int fd;
	uint16_t e = wasi_sb_open(d->host, rel, oflags & ~O_CLOEXEC, mode, true,
	                          &fd);
	if (e) {
		errno = wasi_host_errno(e);
		return -1;
	}
	/* The name must lead back to this very file (no /proc, or a /proc
	 * of another pid namespace, would make it name something else). */
	struct stat a, b;
	int n = snprintf(hostpath_out, len, "/proc/self/fd/%d", fd);
	if (n < 0 || (size_t)n >= len) {
		close(fd);
		hostpath_out[0] = 0;
		errno = ENAMETOOLONG;
		return -1;
	}
	if (fstat(fd, &a) < 0 || stat(hostpath_out, &b) < 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		hostpath_out[0] = 0;
		errno = ENOENT;
		return -1;
	}
	return fd;
}
