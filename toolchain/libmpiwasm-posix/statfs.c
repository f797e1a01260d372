/* statfs.c - statfs()/fstatfs()/statvfs()/fstatvfs(): what WASI can say
 * about a file system, which is little (see include/sys/statfs.h). */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

/* WASI's filestat has no block size; this is Linux's usual one. */
#define DEFAULT_BSIZE 4096

static unsigned long block_size(const struct stat *st)
{
	return st->st_blksize > 0 ? (unsigned long)st->st_blksize : DEFAULT_BSIZE;
}

static void fill_statfs(const struct stat *st, struct statfs *sf)
{
	memset(sf, 0, sizeof *sf);
	sf->f_bsize = sf->f_frsize = block_size(st);
	sf->f_fsid.__val[0] = (int)(st->st_dev & 0xffffffffu);
	sf->f_fsid.__val[1] = (int)(st->st_dev >> 32);
	sf->f_namelen = NAME_MAX;
}

static void fill_statvfs(const struct stat *st, struct statvfs *sv)
{
	memset(sv, 0, sizeof *sv);
	sv->f_bsize = sv->f_frsize = block_size(st);
	sv->f_fsid = (unsigned long)st->st_dev;
	sv->f_namemax = NAME_MAX;
}

int statfs(const char *path, struct statfs *sf)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	fill_statfs(&st, sf);
	return 0;
}

int fstatfs(int fd, struct statfs *sf)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -1;
	fill_statfs(&st, sf);
	return 0;
}

int statvfs(const char *restrict path, struct statvfs *restrict sv)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	fill_statvfs(&st, sv);
	return 0;
}

int fstatvfs(int fd, struct statvfs *sv)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -1;
	fill_statvfs(&st, sv);
	return 0;
}
