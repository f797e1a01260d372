/* errno.c - host errno -> WASI errno.  The module never sees a raw host
 * value: anything not in the table is reported as EIO.  The reverse, for
 * the host-side sandbox calls (wasi.h), uses the same table. */
#include <errno.h>
#include "wasi_int.h"

static const uint8_t errno_map[] = {
	[E2BIG] = WE_2BIG, [EACCES] = WE_ACCES, [EADDRINUSE] = WE_ADDRINUSE,
	[EADDRNOTAVAIL] = WE_ADDRNOTAVAIL, [EAFNOSUPPORT] = WE_AFNOSUPPORT,
	[EAGAIN] = WE_AGAIN, [EALREADY] = WE_ALREADY, [EBADF] = WE_BADF,
	[EBADMSG] = WE_BADMSG, [EBUSY] = WE_BUSY, [ECANCELED] = WE_CANCELED,
	[ECHILD] = WE_CHILD, [ECONNABORTED] = WE_CONNABORTED,
	[ECONNREFUSED] = WE_CONNREFUSED, [ECONNRESET] = WE_CONNRESET,
	[EDEADLK] = WE_DEADLK, [EDESTADDRREQ] = WE_DESTADDRREQ,
	[EDOM] = WE_DOM, [EDQUOT] = WE_DQUOT, [EEXIST] = WE_EXIST,
	[EFAULT] = WE_FAULT, [EFBIG] = WE_FBIG, [EHOSTUNREACH] = WE_HOSTUNREACH,
	[EIDRM] = WE_IDRM, [EILSEQ] = WE_ILSEQ, [EINPROGRESS] = WE_INPROGRESS,
	[EINTR] = WE_INTR, [EINVAL] = WE_INVAL, [EIO] = WE_IO,
	[EISCONN] = WE_ISCONN, [EISDIR] = WE_ISDIR, [ELOOP] = WE_LOOP,
	[EMFILE] = WE_MFILE, [EMLINK] = WE_MLINK, [EMSGSIZE] = WE_MSGSIZE,
	[EMULTIHOP] = WE_MULTIHOP, [ENAMETOOLONG] = WE_NAMETOOLONG,
	[ENETDOWN] = WE_NETDOWN, [ENETRESET] = WE_NETRESET,
	[ENETUNREACH] = WE_NETUNREACH, [ENFILE] = WE_NFILE,
	[ENOBUFS] = WE_NOBUFS, [ENODEV] = WE_NODEV, [ENOENT] = WE_NOENT,
	[ENOEXEC] = WE_NOEXEC, [ENOLCK] = WE_NOLCK, [ENOLINK] = WE_NOLINK,
	[ENOMEM] = WE_NOMEM, [ENOMSG] = WE_NOMSG, [ENOPROTOOPT] = WE_NOPROTOOPT,
	[ENOSPC] = WE_NOSPC, [ENOSYS] = WE_NOSYS, [ENOTCONN] = WE_NOTCONN,
	[ENOTDIR] = WE_NOTDIR, [ENOTEMPTY] = WE_NOTEMPTY,
	[ENOTRECOVERABLE] = WE_NOTRECOVERABLE, [ENOTSOCK] = WE_NOTSOCK,
	[ENOTSUP] = WE_NOTSUP, [ENOTTY] = WE_NOTTY, [ENXIO] = WE_NXIO,
	[EOVERFLOW] = WE_OVERFLOW, [EOWNERDEAD] = WE_OWNERDEAD,
	[EPERM] = WE_PERM, [EPIPE] = WE_PIPE, [EPROTO] = WE_PROTO,
	[EPROTONOSUPPORT] = WE_PROTONOSUPPORT, [EPROTOTYPE] = WE_PROTOTYPE,
	[ERANGE] = WE_RANGE, [EROFS] = WE_ROFS, [ESPIPE] = WE_SPIPE,
	[ESRCH] = WE_SRCH, [ESTALE] = WE_STALE, [ETIMEDOUT] = WE_TIMEDOUT,
	[ETXTBSY] = WE_TXTBSY, [EXDEV] = WE_XDEV,
};

uint16_t wasi_errno(int e)
{
	if (e == 0)
		return WE_IO;   /* a failure without an errno is still a failure */
	if (e > 0 && (unsigned)e < sizeof errno_map && errno_map[e])
		return errno_map[e];
	return WE_IO;
}

int wasi_host_errno(uint16_t we)
{
	if (we == WE_NOTCAPABLE)
		return EACCES;   /* outside the grant: permission denied */
	for (size_t e = 1; e < sizeof errno_map; e++)
		if (errno_map[e] == we)
			return (int)e;
	return EIO;
}
