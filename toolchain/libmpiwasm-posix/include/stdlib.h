/* stdlib.h - wasi-libc's, plus realpath() (libmpiwasm-posix), which
 * resolves a path within the sandbox's own namespace. */
#pragma GCC system_header
#include_next <stdlib.h>

#if !defined(MPIWASM_STDLIB_H) && !defined(__need_malloc_and_calloc)
#define MPIWASM_STDLIB_H
#ifdef __cplusplus
extern "C" {
#endif

char *realpath(const char *__restrict, char *__restrict);

#ifdef __cplusplus
}
#endif
#endif
