/* __errno.h - mpiwasm's replacement for wasi-libc's <__errno.h>.
 *
 * wasi-libc declares `extern _Thread_local int errno;` (C++:
 * `thread_local`), so the old `extern int errno;` that many HPC codes
 * still carry is a compile error ("non-thread-local declaration of 'errno'
 * follows thread-local declaration"), and C++03 cannot parse the header.
 * Debian's libc.a is built without the atomics feature, where clang turns
 * thread-locals into plain globals: errno is an ordinary `int` in the
 * linked module, so declaring it plain is the same object.  That holds
 * for `mpiwasm-cc -pthread` too: code compiled with atomics would make a
 * `_Thread_local` errno a real thread-local that libc never writes (and
 * wasm-ld refuses the mix), so errno stays one variable shared by every
 * thread (toolchain/README.md, "Threads"). */
#ifndef __wasilibc___errno_h
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
