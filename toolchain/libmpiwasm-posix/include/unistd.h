/* unistd.h - wasi-libc's, plus the POSIX procedures it leaves out that
 * mpiwasm's libmpiwasm-posix provides (see toolchain/README.md). */
#pragma GCC system_header
#include_next <unistd.h>

#ifndef MPIWASM_UNISTD_H
#define MPIWASM_UNISTD_H
#ifdef __cplusplus
extern "C" {
#endif

/* The sandbox has no users: every module runs as the unprivileged 65534
 * ("nobody"/"nogroup"), never the host's ids. */
uid_t getuid(void);
uid_t geteuid(void);
gid_t getgid(void);
gid_t getegid(void);

/* No file locks in WASI: fails with ENOSYS (EBADF, EINVAL first). */
#ifndef F_ULOCK
#define F_ULOCK 0
#define F_LOCK  1
#define F_TLOCK 2
#define F_TEST  3
#endif
int lockf(int, int, off_t);

#ifdef __cplusplus
}
#endif
#endif
