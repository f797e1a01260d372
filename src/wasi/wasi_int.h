/* wasi_int.h - internals of src/wasi shared between its files and its
 * unit tests (tests/wasi).  Not part of the interface: see wasi.h. */
#ifndef MPIWASM_WASI_INT_H
#define MPIWASM_WASI_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

/* WASI errno values (wasi_snapshot_preview1.witx, `errno`). */
enum {
	WE_SUCCESS = 0, WE_2BIG = 1, WE_ACCES = 2, WE_ADDRINUSE = 3,
	WE_ADDRNOTAVAIL = 4, WE_AFNOSUPPORT = 5, WE_AGAIN = 6, WE_ALREADY = 7,
	WE_BADF = 8, WE_BADMSG = 9, WE_BUSY = 10, WE_CANCELED = 11,
	WE_CHILD = 12, WE_CONNABORTED = 13, WE_CONNREFUSED = 14,
	WE_CONNRESET = 15, WE_DEADLK = 16, WE_DESTADDRREQ = 17, WE_DOM = 18,
	WE_DQUOT = 19, WE_EXIST = 20, WE_FAULT = 21, WE_FBIG = 22,
	WE_HOSTUNREACH = 23, WE_IDRM = 24, WE_ILSEQ = 25, WE_INPROGRESS = 26,
	WE_INTR = 27, WE_INVAL = 28, WE_IO = 29, WE_ISCONN = 30, WE_ISDIR = 31,
	WE_LOOP = 32, WE_MFILE = 33, WE_MLINK = 34, WE_MSGSIZE = 35,
	WE_MULTIHOP = 36, WE_NAMETOOLONG = 37, WE_NETDOWN = 38,
	WE_NETRESET = 39, WE_NETUNREACH = 40, WE_NFILE = 41, WE_NOBUFS = 42,
	WE_NODEV = 43, WE_NOENT = 44, WE_NOEXEC = 45, WE_NOLCK = 46,
	WE_NOLINK = 47, WE_NOMEM = 48, WE_NOMSG = 49, WE_NOPROTOOPT = 50,
	WE_NOSPC = 51, WE_NOSYS = 52, WE_NOTCONN = 53, WE_NOTDIR = 54,
	WE_NOTEMPTY = 55, WE_NOTRECOVERABLE = 56, WE_NOTSOCK = 57,
	WE_NOTSUP = 58, WE_NOTTY = 59, WE_NXIO = 60, WE_OVERFLOW = 61,
	WE_OWNERDEAD = 62, WE_PERM = 63, WE_PIPE = 64, WE_PROTO = 65,
	WE_PROTONOSUPPORT = 66, WE_PROTOTYPE = 67, WE_RANGE = 68, WE_ROFS = 69,
	WE_SPIPE = 70, WE_SRCH = 71, WE_STALE = 72, WE_TIMEDOUT = 73,
	WE_TXTBSY = 74, WE_XDEV = 75, WE_NOTCAPABLE = 76,
};

/* Host errno -> WASI errno, by table; unknown values become WE_IO. */
uint16_t wasi_errno(int host_errno);

/* WASI errno -> host errno for the host-side calls of wasi.h;
 * WE_NOTCAPABLE becomes EACCES, anything unknown EIO. */
int wasi_host_errno(uint16_t wasi_errno);

/* Chooses the resolver: openat2(RESOLVE_BENEATH) when the kernel has it
 * and MPIWASM_WASI_NO_OPENAT2 is unset, else the component walker. */
void wasi_sb_init(void);
bool wasi_sb_uses_openat2(void);

/* Opens `path` (relative, NUL-terminated) at or below directory `root`.
 * flags are host open(2) flags; `follow` says whether a final symlink is
 * followed (intermediate ones always are, while they stay beneath).
 * Returns a WASI errno; on success *out is a new O_CLOEXEC descriptor. */
uint16_t wasi_sb_open(int root, const char *path, int flags, mode_t mode,
                      bool follow, int *out);

/* For operations that act on a name without opening it: resolves the
 * directory that holds the last component of `path` beneath `root`,
 * returning in *dirfd a descriptor of it and the last component (no
 * slashes, never "..") in last[] (PATH_MAX bytes).  With `follow`, a
 * final symlink is followed (beneath root) first.  *must_dir is set
 * when the path ended in '/'.  Returns a WASI errno.
 * *dirfd is `root` itself when the name lies directly in root (no
 * lookup, no new descriptor); otherwise a new O_PATH descriptor.  Give
 * it back with wasi_sb_put(). */
uint16_t wasi_sb_parent(int root, const char *path, bool follow, int *dirfd,
                        char *last, bool *must_dir);

static inline void wasi_sb_put(int root, int dirfd)
{
	if (dirfd != root)
		close(dirfd);
}

#endif
