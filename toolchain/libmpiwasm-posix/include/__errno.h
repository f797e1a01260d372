/* __errno.h - mpiwasm's replacement for wasi-libc's <__errno.h>.
 *
 * wasi-libc declares `extern _Thread_local int errno;` (C++:
 * `thread_local`), so the old `extern int errno;` that many HPC codes
 * still carry is a compile error ("non-thread-local declaration of 'errno'
 * follows thread-local declaration"), and C++03 cannot parse the header.
 * Modules here are single-threaded (mpiwasm-cc refuses -pthread) and
 * Debian's libc.a is built without the atomics feature, where clang turns
 * thread-locals into plain globals: errno is an ordinary `int` in the
 * linked module either way, so declaring it plain is the same object. */
#ifndef __wasilibc___errno_h
#if defined(__wasm_atomics__)
/* A threads build: keep libc's own declaration. */
#include_next <__errno.h>
#else
#define __wasilibc___errno_h

#ifdef __cplusplus
extern "C" {
#endif

extern int errno;

#define errno errno

#ifdef __cplusplus
}
#endif

#endif
#endif
