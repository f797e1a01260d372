/* p_misc.c - the preview1 calls that the other programs do not reach
 * through plain POSIX calls:
 *   fd_renumber            (dup2 + close natively)
 *   fd_fdstat_set_rights   (natively: the descriptor reopened read-only)
 *   proc_raise             (raise)
 *   sock_recv, sock_send, sock_shutdown, sock_accept
 *                          (recv, send, shutdown, accept)
 * Run through tests/wasi/sockrun, which makes stdin a connected stream
 * socket whose peer sends "ping", collects what comes back until EOF and
 * prints it after this program has ended. */
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common.h"
#ifndef __wasi__
#include <signal.h>
#endif
#ifdef __wasi__
#include <wasi/api.h>
#define SIGCHLD 0   /* unused: the wasi numbers are passed */
#define SIGURG 0
/* wasi-libc no longer declares it; the import is part of preview1. */
__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_raise")))
extern uint16_t wasi_proc_raise(uint32_t sig);
#endif

static int put(const char *name, const char *text)
{
	int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		return -1;
	int r = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return r;
}

/* fd_renumber: `to` becomes what `from` was, `from` is closed. */
static int renumber(int from, int to)
{
#ifdef __wasi__
	__wasi_errno_t e = __wasi_fd_renumber((__wasi_fd_t)from, (__wasi_fd_t)to);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
#else
	/* WASI renumbers onto an open descriptor only */
	if (fcntl(from, F_GETFD) < 0 || fcntl(to, F_GETFD) < 0) {
		errno = EBADF;
		return -1;
	}
	if (dup2(from, to) < 0)
		return -1;
	return close(from);
#endif
}

/* Takes the write right away from fd (natively: the same file,
 * reopened read-only, in its place). */
static int drop_write(int fd)
{
#ifdef __wasi__
	__wasi_fdstat_t st;
	__wasi_errno_t e = __wasi_fd_fdstat_get((__wasi_fd_t)fd, &st);
	if (!e)
		e = __wasi_fd_fdstat_set_rights((__wasi_fd_t)fd,
			st.fs_rights_base & ~__WASI_RIGHTS_FD_WRITE,
			st.fs_rights_inheriting);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
#else
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	int r = open(p, O_RDONLY);
	if (r < 0 || dup2(r, fd) < 0)
		return -1;
	return close(r);
#endif
}

/* raise() of a signal number that is ignored by default, or invalid. */
static int raise_sig(int wasi_sig, int host_sig)
{
#ifdef __wasi__
	(void)host_sig;
	uint16_t e = wasi_proc_raise((uint32_t)wasi_sig);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
#else
	(void)wasi_sig;
	return raise(host_sig);
#endif
}

int main(void)
{
	char buf[64];

	/* fd_renumber */
	CHECK("put a", put("a.txt", "AAAA") == 0);
	CHECK("put b", put("b.txt", "BBBB") == 0);
	int a = open("a.txt", O_RDONLY), b = open("b.txt", O_RDONLY);
	CHECK("open both", a >= 0 && b >= 0 && a != b);
	CHECK("renumber", renumber(a, b) == 0);
	memset(buf, 0, sizeof buf);
	CHECK("renumbered fd reads the source file",
	      read(b, buf, 4) == 4 && memcmp(buf, "AAAA", 4) == 0);
	FAILS("source fd closed", (int)read(a, buf, 1), EBADF);
	FAILS("renumber from a closed fd", renumber(a, b), EBADF);
	FAILS("renumber onto a closed fd", renumber(b, a), EBADF);
	CHECK("close", close(b) == 0);

	/* fd_fdstat_set_rights */
	int w = open("b.txt", O_RDWR);
	CHECK("open rw", w >= 0);
	CHECK("write before", write(w, "x", 1) == 1);
	CHECK("drop the write right", drop_write(w) == 0);
	errno = 0;
	int wr = (int)write(w, "y", 1);
	printf("%-4s write without the right refused\n",
	       wr == -1 && (errno == EBADF
#ifdef ENOTCAPABLE
	                    || errno == ENOTCAPABLE
#endif
	                    ) ? "ok" : "FAIL");
	if (wr != -1)
		failures++;
	CHECK("read still allowed", lseek(w, 0, SEEK_SET) == 0 &&
	      read(w, buf, 4) == 4 && memcmp(buf, "xBBB", 4) == 0);
	close(w);

	/* proc_raise: SIGCHLD is ignored by default; 200 is no signal */
	CHECK("raise SIGCHLD", raise_sig(16, SIGCHLD) == 0);
	CHECK("raise SIGURG", raise_sig(22, SIGURG) == 0);
	FAILS("raise 200", raise_sig(200, 200), EINVAL);

	/* sockets: stdin is the connected socket from sockrun.  The module
	 * never gets SIGPIPE (the host sends with MSG_NOSIGNAL); natively
	 * it is ignored to match. */
#ifndef __wasi__
	signal(SIGPIPE, SIG_IGN);
#endif
	memset(buf, 0, sizeof buf);
	CHECK("recv peek", recv(0, buf, 2, MSG_PEEK) == 2 && memcmp(buf, "pi", 2) == 0);
	memset(buf, 0, sizeof buf);
	CHECK("recv waitall", recv(0, buf, 4, MSG_WAITALL) == 4 &&
	      memcmp(buf, "ping", 4) == 0);
	CHECK("send", send(0, "pong", 4, 0) == 4);
	CHECK("shutdown wr", shutdown(0, SHUT_WR) == 0);
	FAILS("send after shutdown", (int)send(0, "x", 1, 0), EPIPE);
	CHECK("recv EOF once the peer closed", recv(0, buf, sizeof buf, 0) == 0);
	FAILS("accept on a connected socket", accept(0, NULL, NULL), EINVAL);
	FAILS("recv on a file", (int)recv(1, buf, 1, 0), ENOTSOCK);
	FAILS("shutdown a file", shutdown(1, SHUT_RD), ENOTSOCK);
	FAILS("send on a closed fd", (int)send(99, "x", 1, 0), EBADF);
	FAILS("accept on a closed fd", accept(99, NULL, NULL), EBADF);
	unlink("a.txt");
	unlink("b.txt");
	fflush(stdout);
	DONE();
}
