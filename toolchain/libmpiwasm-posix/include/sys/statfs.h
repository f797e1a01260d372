/* sys/statfs.h - statfs()/fstatfs() for wasm32-wasi (libmpiwasm-posix).
 *
 * WASI tells a module nothing about file systems.  What these report:
 * f_bsize and f_frsize the file's st_blksize, or 4096 when WASI gives none
 * (it never does today); f_fsid the file's st_dev; f_namelen NAME_MAX;
 * f_type, f_flags and every count (blocks, free blocks, files) 0, meaning
 * unknown.  A path or descriptor that stat() would refuse fails the same
 * way. */
#ifndef MPIWASM_SYS_STATFS_H
#define MPIWASM_SYS_STATFS_H

#include <sys/types.h>

#define __NEED_fsblkcnt_t
#define __NEED_fsfilcnt_t
#include <bits/alltypes.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __fsid_t {
	int __val[2];
} fsid_t;

struct statfs {
	unsigned long f_type, f_bsize;
	fsblkcnt_t f_blocks, f_bfree, f_bavail;
	fsfilcnt_t f_files, f_ffree;
	fsid_t f_fsid;
	unsigned long f_namelen, f_frsize, f_flags, f_spare[4];
};

int statfs(const char *, struct statfs *);
int fstatfs(int, struct statfs *);

#ifdef __cplusplus
}
#endif
#endif
