/* libc_errno.h - LIBC_ERRNO names the errno that libc itself reads and
 * writes.  Debian's wasm32 libc.a is built without the atomics feature,
 * where clang makes thread-locals plain globals, so its errno is an
 * ordinary global symbol; code built with -matomics that includes
 * wasi-libc's <errno.h> would reference a thread-local instead and fail to
 * link.  The asm label binds a plain declaration to that symbol whatever
 * the header says.  Natively it is just errno. */
#ifndef MPIWASM_LIBC_ERRNO_H
#define MPIWASM_LIBC_ERRNO_H

#include <errno.h>

#if defined(__wasm__)
extern int mpiwasm_libc_errno __asm__("errno");
#define LIBC_ERRNO mpiwasm_libc_errno
#else
#define LIBC_ERRNO errno
#endif

#endif
