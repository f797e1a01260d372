/* sys/stat.h - wasi-libc's, plus mknod()/mknodat() (libmpiwasm-posix),
 * which fail with ENOSYS: WASI cannot make device or FIFO nodes. */
#pragma GCC system_header
#include_next <sys/stat.h>

#ifndef MPIWASM_SYS_STAT_H
#define MPIWASM_SYS_STAT_H
#ifdef __cplusplus
extern "C" {
#endif

int mknod(const char *, mode_t, dev_t);
int mknodat(int, const char *, mode_t, dev_t);

#ifdef __cplusplus
}
#endif
#endif
