/* stubs.c - POSIX procedures wasi-libc leaves out, with the answer WASI
 * allows: fixed ids, no device nodes, no locks, no shell.  Each says in
 * errno why it did nothing, so callers' usual fallbacks apply (HDF5, for
 * one, carries on without locking when flock() fails with ENOSYS). */
#include <errno.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The sandbox has no users; 65534 is the conventional unprivileged
 * "nobody", so no program believes it runs as root. */
#define MPIWASM_ID 65534

uid_t getuid(void) { return MPIWASM_ID; }
uid_t geteuid(void) { return MPIWASM_ID; }
gid_t getgid(void) { return MPIWASM_ID; }
gid_t getegid(void) { return MPIWASM_ID; }

int mknod(const char *path, mode_t mode, dev_t dev)
{
	(void)path, (void)mode, (void)dev;
	errno = ENOSYS;
	return -1;
}

int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	(void)dirfd, (void)path, (void)mode, (void)dev;
	errno = ENOSYS;
	return -1;
}

static int is_open_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0;
}

int flock(int fd, int op)
{
	int kind = op & ~LOCK_NB;
	if (!is_open_fd(fd)) {
		errno = EBADF;
		return -1;
	}
	if (kind != LOCK_SH && kind != LOCK_EX && kind != LOCK_UN) {
		errno = EINVAL;
		return -1;
	}
	errno = ENOSYS;
	return -1;
}

int lockf(int fd, int cmd, off_t len)
{
	(void)len;
	if (!is_open_fd(fd)) {
		errno = EBADF;
		return -1;
	}
	if (cmd != F_ULOCK && cmd != F_LOCK && cmd != F_TLOCK && cmd != F_TEST) {
		errno = EINVAL;
		return -1;
	}
	errno = ENOSYS;
	return -1;
}

/* No processes to start.  system(NULL) asks whether there is a shell:
 * 0, there is none. */
int system(const char *cmd)
{
	if (!cmd)
		return 0;
	errno = ENOSYS;
	return -1;
}
