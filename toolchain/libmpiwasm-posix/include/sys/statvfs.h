/* sys/statvfs.h - statvfs()/fstatvfs() for wasm32-wasi (libmpiwasm-posix),
 * with the same answers as statfs(): f_bsize and f_frsize the block size
 * (4096 when WASI gives none), f_fsid the file's st_dev, f_namemax
 * NAME_MAX, f_flag 0, every count 0 (unknown). */
#ifndef MPIWASM_SYS_STATVFS_H
#define MPIWASM_SYS_STATVFS_H

#define __NEED_fsblkcnt_t
#define __NEED_fsfilcnt_t
#include <bits/alltypes.h>

#ifdef __cplusplus
extern "C" {
#endif

struct statvfs {
	unsigned long f_bsize, f_frsize;
	fsblkcnt_t f_blocks, f_bfree, f_bavail;
	fsfilcnt_t f_files, f_ffree, f_favail;
	unsigned long f_fsid;
	unsigned long f_flag, f_namemax;
};

#define ST_RDONLY 1
#define ST_NOSUID 2

int statvfs(const char *__restrict, struct statvfs *__restrict);
int fstatvfs(int, struct statvfs *);

#ifdef __cplusplus
}
#endif
#endif
