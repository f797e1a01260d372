/* common.h - helpers for the WASI test programs: each is built natively
 * and to wasm32-wasi from the same source and must print the same lines.
 * Errno values differ between glibc and wasi-libc, so they are printed by
 * name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case ENOENT: return "ENOENT"; case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR"; case EISDIR: return "EISDIR";
	case ENOTEMPTY: return "ENOTEMPTY"; case EBADF: return "EBADF";
	case EINVAL: return "EINVAL"; case ELOOP: return "ELOOP";
	case EACCES: return "EACCES"; case EPERM: return "EPERM";
	case ESPIPE: return "ESPIPE"; case EXDEV: return "EXDEV";
	#ifdef ENOTCAPABLE
	case ENOTCAPABLE: return "ENOTCAPABLE";
#endif
	case EROFS: return "EROFS"; case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOTSOCK: return "ENOTSOCK"; case EPIPE: return "EPIPE";
	case ENOTSUP: return "ENOTSUP"; case ENOTCONN: return "ENOTCONN";
	default: return "E?";
	}
}

static int failures;
#define CHECK(name, cond) do { \
	if (cond) printf("ok   %s\n", name); \
	else { printf("FAIL %s (errno %s)\n", name, errname(errno)); failures++; } \
} while (0)
/* a call expected to fail with a given errno */
#define FAILS(name, call, want) do { errno = 0; \
	int r_ = (call); \
	printf("%-4s %s -> %s\n", r_ == -1 && errno == (want) ? "ok" : "FAIL", \
	       name, r_ == -1 ? errname(errno) : "succeeded"); \
	if (!(r_ == -1 && errno == (want))) failures++; \
} while (0)
#define DONE() do { printf("%s: %d failures\n", __FILE__, failures); \
	return failures != 0; } while (0)
