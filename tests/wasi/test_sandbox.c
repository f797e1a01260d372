/* test_sandbox.c - the WASI host functions driven natively (host_stub.h
 * stands in for the runtime): escape attempts against a grant, each
 * checked against a snapshot of the host file system around the grant,
 * plus functional checks of rights, readdir cookies and file I/O.
 * Runs every case under both resolvers (openat2 and the walker). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "host_stub.h"
#include "wasi/wasi.h"
#include "wasi/wasi_int.h"

static rt_instance I;
static uint32_t top;
static char root[256], outside[300], grant[300], grant_ro[300];
static int npass, nfail;
static int outside_hostfd;

enum { RIGHTS_ALL = 0x3fffffff };
/* A directory opened with fd_write is ISDIR, as open(2) with O_WRONLY. */
enum { RIGHTS_DIR_ALL = RIGHTS_ALL & ~(1u << 6) };

/* ---- module memory and calls ---------------------------------------- */

static uint32_t S(const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t at = top;
	memcpy(I.mem + at, s, n);
	top += (uint32_t)((n + 7) & ~7u);
	return at;
}

static uint32_t A(uint32_t n)
{
	uint32_t at = top;
	memset(I.mem + at, 0, n);
	top += (n + 7) & ~7u;
	return at;
}

typedef uint32_t (*f_open)(rt_instance *, uint32_t, uint32_t, uint32_t,
	uint32_t, uint32_t, uint64_t, uint64_t, uint32_t, uint32_t);
typedef uint32_t (*f_3)(rt_instance *, uint32_t, uint32_t, uint32_t);
typedef uint32_t (*f_2)(rt_instance *, uint32_t, uint32_t);
typedef uint32_t (*f_1)(rt_instance *, uint32_t);
typedef uint32_t (*f_4)(rt_instance *, uint32_t, uint32_t, uint32_t, uint32_t);
typedef uint32_t (*f_5)(rt_instance *, uint32_t, uint32_t, uint32_t, uint32_t,
	uint32_t);
typedef uint32_t (*f_6)(rt_instance *, uint32_t, uint32_t, uint32_t, uint32_t,
	uint32_t, uint32_t);
typedef uint32_t (*f_7)(rt_instance *, uint32_t, uint32_t, uint32_t, uint32_t,
	uint32_t, uint32_t, uint32_t);
typedef uint32_t (*f_rw)(rt_instance *, uint32_t, uint32_t, uint32_t,
	uint64_t, uint32_t);
typedef uint32_t (*f_times)(rt_instance *, uint32_t, uint32_t, uint32_t,
	uint32_t, uint64_t, uint64_t, uint32_t);
typedef uint32_t (*f_seek)(rt_instance *, uint32_t, uint64_t, uint32_t,
	uint32_t);
typedef uint32_t (*f_2r)(rt_instance *, uint32_t, uint64_t, uint64_t);

static uint32_t get32(uint32_t at) { uint32_t v; memcpy(&v, I.mem + at, 4); return v; }
static uint64_t get64(uint32_t at) { uint64_t v; memcpy(&v, I.mem + at, 8); return v; }

static int w_open(uint32_t dir, const char *p, uint32_t lookup,
                  uint32_t oflags, uint64_t rights, uint32_t fdflags,
                  uint32_t *fd)
{
	uint32_t pp = S(p), out = A(4);
	int e = (int)((f_open)wfn("path_open"))(&I, dir, lookup, pp,
		(uint32_t)strlen(p), oflags, rights, RIGHTS_ALL, fdflags, out);
	if (!e && fd)
		*fd = get32(out);
	return e;
}

static int w_pathop(const char *fn, uint32_t dir, const char *p)
{
	return (int)((f_3)wfn(fn))(&I, dir, S(p), (uint32_t)strlen(p));
}

static int w_close(uint32_t fd) { return (int)((f_1)wfn("fd_close"))(&I, fd); }

/* Reads up to n-1 bytes into buf (NUL-terminated). */
static int w_read(uint32_t fd, char *buf, size_t n)
{
	uint32_t b = A((uint32_t)n), iov = A(8), res = A(4);
	memcpy(I.mem + iov, &b, 4);
	uint32_t l = (uint32_t)n - 1;
	memcpy(I.mem + iov + 4, &l, 4);
	int e = (int)((f_4)wfn("fd_read"))(&I, fd, iov, 1, res);
	if (e)
		return e;
	memcpy(buf, I.mem + b, get32(res));
	buf[get32(res)] = 0;
	return 0;
}

static int w_write(uint32_t fd, const char *s)
{
	uint32_t b = S(s), iov = A(8), res = A(4), l = (uint32_t)strlen(s);
	memcpy(I.mem + iov, &b, 4);
	memcpy(I.mem + iov + 4, &l, 4);
	return (int)((f_4)wfn("fd_write"))(&I, fd, iov, 1, res);
}

/* ---- host snapshot ---------------------------------------------------- */

static char *snap;
static size_t snaplen, snapcap;

static void snap_add(const char *s)
{
	size_t n = strlen(s);
	if (snaplen + n + 1 > snapcap) {
		snapcap = (snaplen + n + 1) * 2;
		snap = realloc(snap, snapcap);
	}
	memcpy(snap + snaplen, s, n + 1);
	snaplen += n;
}

static int snap_visit(const char *p, const struct stat *st, int flag,
                      struct FTW *ftw)
{
	char line[1024], tgt[512] = "";
	if (strcmp(p, grant) == 0 || strcmp(p, grant_ro) == 0)
		return FTW_SKIP_SUBTREE;   /* the grants may change */
	if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlink(p, tgt, sizeof tgt - 1);
		tgt[n > 0 ? n : 0] = 0;
	} else if (S_ISREG(st->st_mode)) {
		FILE *f = fopen(p, "rb");
		unsigned long h = 5381;
		int c;
		while (f && (c = fgetc(f)) != EOF)
			h = h * 33 + (unsigned)c;
		if (f)
			fclose(f);
		snprintf(tgt, sizeof tgt, "%lx", h);
	}
	snprintf(line, sizeof line, "%s %o %ld %ld %ld.%09ld %ld.%09ld %s\n", p,
	         st->st_mode, (long)st->st_size, (long)st->st_nlink,
	         (long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
	         (long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec, tgt);
	snap_add(line);
	return FTW_CONTINUE;
}

static char *snapshot(void)
{
	snaplen = 0;
	snap_add("");
	nftw(root, snap_visit, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	return strdup(snap);
}

/* ---- cases ------------------------------------------------------------- */

static const char *mode_name;

static void result(const char *name, bool ok, const char *why)
{
	if (ok) {
		npass++;
	} else {
		nfail++;
		printf("FAIL [%s] %s: %s\n", mode_name, name, why);
	}
}

/* Runs one escape attempt: it must fail with one of the errnos in
 * `allowed` (0-terminated) and leave the host outside the grants as it
 * was. */
static void escape(const char *name, int (*fn)(void), const int *allowed)
{
	char *before = snapshot();
	top = 4096;
	int e = fn();
	char *after = snapshot();
	char why[256];
	bool ok = false;
	for (const int *a = allowed; *a; a++)
		if (e == *a)
			ok = true;
	snprintf(why, sizeof why, "wasi errno %d", e);
	if (ok && strcmp(before, after) != 0) {
		ok = false;
		snprintf(why, sizeof why, "host files outside the grant changed");
	}
	result(name, ok, why);
	free(before);
	free(after);
}

static int secret_leak;

/* Opens and, if that worked, reads: a read of the outside secret is a
 * leak whatever the errno said. */
static int open_read(const char *p, uint32_t lookup)
{
	uint32_t fd;
	int e = w_open(3, p, lookup, 0, RIGHTS_ALL, 0, &fd);
	if (e)
		return e;
	char buf[256];
	if (w_read(fd, buf, sizeof buf) == 0 && strstr(buf, "TOPSECRET"))
		secret_leak = 1;
	w_close(fd);
	return 0;
}

static const int NOTCAP[] = { WE_NOTCAPABLE, 0 };
static const int DENIED[] = { WE_NOTCAPABLE, WE_PERM, WE_LOOP, WE_NOENT, 0 };
static const int BADF[] = { WE_BADF, 0 };

static int e_abs(void) { return open_read("/etc/passwd", 1); }
static int e_abs_grant(void) { return open_read(outside, 1); }
static int e_dotdot(void) { return open_read("../outside/secret.txt", 1); }
static int e_dotdot_deep(void) { return open_read("sub/../../outside/secret.txt", 1); }
static int e_dotdot_many(void) { return open_read("sub/deeper/../../../../../../etc/passwd", 1); }
static int e_dotdot_dir(void) { return open_read("..", 1); }
static int e_abs_link(void) { return open_read("abs_link", 1); }
static int e_rel_link(void) { return open_read("rel_link", 1); }
static int e_dir_link(void) { return open_read("dir_link/secret.txt", 0); }
static int e_abs_dir_link(void) { return open_read("abs_dir_link/secret.txt", 0); }
static int e_chain(void) { return open_read("chain1/secret.txt", 0); }
static int e_sub_up(void) { return open_read("sub/up/secret.txt", 0); }
static int e_proc_root(void) { return open_read("proc_root/etc/passwd", 0); }
static int e_magic_root(void)
{
	uint32_t fd;
	return w_open(4, "self/root/etc/passwd", 1, 0, RIGHTS_ALL, 0, &fd);
}
static int e_magic_fd(void)
{
	char p[64];
	uint32_t fd;
	snprintf(p, sizeof p, "self/fd/%d/secret.txt", outside_hostfd);
	return w_open(4, p, 1, 0, RIGHTS_ALL, 0, &fd);
}
static int e_magic_cwd(void)
{
	uint32_t fd;
	/* cwd is the test root: its outside/ must stay out of reach */
	return w_open(4, "thread-self/cwd/outside/secret.txt", 1, 0,
	              RIGHTS_ALL, 0, &fd);
}
static int e_create_via_dir_link(void)
{
	uint32_t fd;
	return w_open(3, "dir_link/new.txt", 1, 1 /* CREAT */, RIGHTS_ALL, 0, &fd);
}
static int e_create_dangling(void)
{
	uint32_t fd;
	return w_open(3, "dangle", 1, 1, RIGHTS_ALL, 0, &fd);
}
static int e_trunc_via_link(void)
{
	uint32_t fd;
	return w_open(3, "rel_link", 1, 8 /* TRUNC */, RIGHTS_ALL, 0, &fd);
}
static int e_ungranted_fd(void)
{
	char buf[64];
	/* a host descriptor the module was never given */
	return w_read((uint32_t)outside_hostfd, buf, sizeof buf);
}
static int e_ungranted_dirfd(void)
{
	uint32_t fd;
	return w_open((uint32_t)outside_hostfd, "secret.txt", 0, 0, RIGHTS_ALL,
	              0, &fd);
}
static int e_big_fd(void) { return w_pathop("path_unlink_file", 1000, "x"); }
static int e_rename_out(void)
{
	return (int)((f_6)wfn("path_rename"))(&I, 3, S("sub/file.txt"), 12, 3,
		S("../outside/stolen.txt"), 21);
}
static int e_rename_in(void)
{
	return (int)((f_6)wfn("path_rename"))(&I, 3, S("dir_link/secret.txt"),
		19, 3, S("got.txt"), 7);
}
static int e_rename_over_link(void)
{
	/* renaming onto "dir_link/secret.txt" would replace the outside file */
	return (int)((f_6)wfn("path_rename"))(&I, 3, S("sub/file.txt"), 12, 3,
		S("dir_link/secret.txt"), 19);
}
static int e_link_out(void)
{
	return (int)((f_7)wfn("path_link"))(&I, 3, 0, S("../outside/secret.txt"),
		21, 3, S("stolen"), 6);
}
static int e_link_follow(void)
{
	return (int)((f_7)wfn("path_link"))(&I, 3, 1, S("abs_link"), 8, 3,
		S("stolen2"), 7);
}
static int e_link_into_outside(void)
{
	return (int)((f_7)wfn("path_link"))(&I, 3, 0, S("sub/file.txt"), 12, 3,
		S("dir_link/planted"), 16);
}
static int e_unlink_out(void) { return w_pathop("path_unlink_file", 3, "dir_link/secret.txt"); }
static int e_unlink_dotdot(void) { return w_pathop("path_unlink_file", 3, "../outside/secret.txt"); }
static int e_rmdir_out(void) { return w_pathop("path_remove_directory", 3, "dir_link/dir"); }
static int e_mkdir_out(void) { return w_pathop("path_create_directory", 3, "chain1/newdir"); }
static int e_stat_follow(void)
{
	return (int)((f_5)wfn("path_filestat_get"))(&I, 3, 1, S("abs_link"), 8,
		A(64));
}
static int e_stat_dotdot(void)
{
	return (int)((f_5)wfn("path_filestat_get"))(&I, 3, 0,
		S("sub/../../outside"), 17, A(64));
}
static int e_utimes_follow(void)
{
	return (int)((f_times)wfn("path_filestat_set_times"))(&I, 3, 1,
		S("rel_link"), 8, 0, 0, 1 | 4);
}
static int e_readlink_out(void)
{
	return (int)((f_6)wfn("path_readlink"))(&I, 3, S("dir_link/../outside"),
		19, A(256), 256, A(4));
}
/* Refused when made (PERM); were it made, following it must still be. */
static int e_symlink_then_follow(void)
{
	int e = (int)((f_5)wfn("path_symlink"))(&I, S("../outside/secret.txt"),
		21, 3, S("mylink"), 6);
	if (e)
		return e == WE_PERM ? e : 1000 + e;
	e = open_read("mylink", 1);
	w_pathop("path_unlink_file", 3, "mylink");
	return e;
}
static int e_symlink_abs(void)
{
	return (int)((f_5)wfn("path_symlink"))(&I, S("/etc"), 4, 3, S("mylink"), 6);
}
static int e_symlink_up_from_sub(void)
{
	return (int)((f_5)wfn("path_symlink"))(&I, S("../../outside"), 13, 3,
		S("sub/mylink"), 10);
}
static int e_symlink_in_outside(void)
{
	return (int)((f_5)wfn("path_symlink"))(&I, S("x"), 1, 3,
		S("dir_link/evil"), 13);
}
static int e_nul(void)
{
	uint32_t p = A(32);
	memcpy(I.mem + p, "sub\0../../outside", 17);
	uint32_t out = A(4);
	return (int)((f_open)wfn("path_open"))(&I, 3, 0, p, 17, 0, RIGHTS_ALL,
		RIGHTS_ALL, 0, out);
}
static int e_loop(void) { return open_read("loop1", 1); }
static int e_bad_ptr(void)
{
	uint32_t out = A(4);
	return (int)((f_open)wfn("path_open"))(&I, 3, 0, (uint32_t)I.size - 4,
		100, 0, RIGHTS_ALL, RIGHTS_ALL, 0, out);
}
static int e_ro_create(void)
{
	uint32_t fd;
	return w_open(5, "new.txt", 0, 1, RIGHTS_ALL, 0, &fd);
}
static int e_ro_write(void)
{
	uint32_t fd;
	return w_open(5, "ro.txt", 0, 0, RIGHTS_ALL, 0, &fd);
}
static int e_ro_unlink(void) { return w_pathop("path_unlink_file", 5, "ro.txt"); }
static int e_rights_dropped(void)
{
	uint32_t fd;
	/* a directory fd without PATH_OPEN cannot open anything */
	int e = w_open(3, "sub", 0, 2, RIGHTS_DIR_ALL, 0, &fd);
	if (e)
		return 1000 + e;
	e = (int)((f_2r)wfn("fd_fdstat_set_rights"))(&I, fd, 1u << 14, 0);
	if (e)
		return 2000 + e;
	uint32_t g;
	e = w_open(fd, "file.txt", 0, 0, RIGHTS_ALL, 0, &g);
	w_close(fd);
	return e;
}
static int e_rights_grow(void)
{
	uint32_t fd;
	int e = w_open(3, "sub/file.txt", 0, 0, 1u << 1 /* READ */, 0, &fd);
	if (e)
		return 1000 + e;
	e = (int)((f_2r)wfn("fd_fdstat_set_rights"))(&I, fd, RIGHTS_ALL, 0);
	if (!e)
		e = w_write(fd, "x");
	w_close(fd);
	return e;
}

/* A directory swapped for a symlink to outside, again and again, while
 * the module opens through it. */
static volatile int race_stop;
static const char *race_a = "race", *race_b = "race_link";
static void *racer(void *arg)
{
	char a[400], b[400];
	snprintf(a, sizeof a, "%s/%s", grant, race_a);
	snprintf(b, sizeof b, "%s/%s", grant, race_b);
	while (!race_stop)
		renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	return arg;
}

/* Puts the real entry back under name a (the racer may have left the
 * pair swapped), so that a loop started now sees it at least once even
 * if the racer thread is not scheduled for a while. */
static void race_reset(const char *a, const char *b)
{
	char pa[400], pb[400];
	struct stat st;
	snprintf(pa, sizeof pa, "%s/%s", grant, a);
	snprintf(pb, sizeof pb, "%s/%s", grant, b);
	if (lstat(pa, &st) == 0 && S_ISLNK(st.st_mode))
		renameat2(AT_FDCWD, pa, AT_FDCWD, pb, RENAME_EXCHANGE);
}

/* path_filestat_get (following) of `path` while the racer swaps
 * race_a and race_b: any answer describing the outside secret is a
 * leak.  Names directly in the preopen take the no-lookup path, so this
 * races its fstatat against the swap. */
static int race_stat(const char *a, const char *b, const char *path)
{
	pthread_t t;
	struct stat sec;
	char p[400];
	int leaks = 0, ok = 0;
	snprintf(p, sizeof p, "%s/secret.txt", outside);
	if (stat(p, &sec))
		return 997;
	race_a = a;
	race_b = b;
	race_stop = 0;
	race_reset(a, b);
	pthread_create(&t, NULL, racer, NULL);
	for (int i = 0; i < 5000; i++) {
		uint32_t buf = A(64);
		int e = (int)((f_5)wfn("path_filestat_get"))(&I, 3, 1, S(path),
			(uint32_t)strlen(path), buf);
		if (e == 0) {
			ok++;
			if (get64(buf + 8) == (uint64_t)sec.st_ino &&
			    get64(buf) == (uint64_t)sec.st_dev)
				leaks++;
		}
		top = 4096;
	}
	race_stop = 1;
	pthread_join(t, NULL);
	race_a = "race";
	race_b = "race_link";
	if (leaks)
		return 998;
	/* the inside name must have been seen at least once */
	return ok ? WE_NOTCAPABLE : 996;
}
static int e_race_stat_name(void)
{
	return race_stat("rname", "rname_link", "rname");
}
static int e_race_stat_dir(void)
{
	return race_stat("race", "race_link", "race/secret.txt");
}
static int e_race(void)
{
	pthread_t t;
	int leaks = 0, created = 0;
	race_stop = 0;
	pthread_create(&t, NULL, racer, NULL);
	for (int i = 0; i < 3000; i++) {
		uint32_t fd;
		char buf[64];
		if (w_open(3, "race/secret.txt", 1, 0, RIGHTS_ALL, 0, &fd) == 0) {
			if (w_read(fd, buf, sizeof buf) == 0 && strstr(buf, "TOPSECRET"))
				leaks++;
			w_close(fd);
		}
		if (w_open(3, "race/pwned", 1, 1, RIGHTS_ALL, 0, &fd) == 0) {
			created++;
			w_close(fd);
			w_pathop("path_unlink_file", 3, "race/pwned");
		}
		top = 4096;
	}
	race_stop = 1;
	pthread_join(t, NULL);
	char p[400];
	snprintf(p, sizeof p, "%s/pwned", outside);
	if (access(p, F_OK) == 0)
		return 999;
	/* Leaks are what counts; opens that succeeded went to the inside dir. */
	return leaks ? 998 : WE_NOTCAPABLE;
}

/* ---- functional checks ------------------------------------------------------ */

static void check(const char *name, bool ok)
{
	result(name, ok, "assertion failed");
}

static void functional(void)
{
	uint32_t fd;
	char buf[256];
	top = 4096;
	/* positive controls: what the grant allows works */
	check("inside symlink opens", w_open(3, "inside_link", 1, 0, RIGHTS_ALL, 0, &fd) == 0 &&
	      w_read(fd, buf, sizeof buf) == 0 && strcmp(buf, "inside\n") == 0 && w_close(fd) == 0);
	check("inside .. opens", w_open(3, "sub/deeper/../file.txt", 0, 0, RIGHTS_ALL, 0, &fd) == 0 &&
	      w_close(fd) == 0);
	check("nofollow on symlink is ELOOP", w_open(3, "inside_link", 0, 0, RIGHTS_ALL, 0, &fd) == WE_LOOP);
	check("stat of a symlink itself", ((f_5)wfn("path_filestat_get"))(&I, 3, 0, S("abs_link"), 8, A(64)) == 0);

	/* write, seek, tell, pread, pwrite */
	uint32_t f2;
	check("create", w_open(3, "io.bin", 0, 1 | 8, RIGHTS_ALL, 0, &f2) == 0);
	check("write", w_write(f2, "hello world") == 0);
	uint32_t pos = A(8);
	check("tell", ((f_2)wfn("fd_tell"))(&I, f2, pos) == 0 && get64(pos) == 11);
	check("seek", ((f_seek)wfn("fd_seek"))(&I, f2, (uint64_t)-5, 1, pos) == 0 && get64(pos) == 6);
	check("read after seek", w_read(f2, buf, sizeof buf) == 0 && strcmp(buf, "world") == 0);
	uint32_t b = S("HELLO"), iov = A(8), res = A(4), l = 5;
	memcpy(I.mem + iov, &b, 4);
	memcpy(I.mem + iov + 4, &l, 4);
	check("pwrite", ((f_rw)wfn("fd_pwrite"))(&I, f2, iov, 1, 0, res) == 0 && get32(res) == 5);
	b = A(16);
	memcpy(I.mem + iov, &b, 4);
	l = 11;
	memcpy(I.mem + iov + 4, &l, 4);
	check("pread", ((f_rw)wfn("fd_pread"))(&I, f2, iov, 1, 0, res) == 0 && get32(res) == 11 &&
	      memcmp(I.mem + b, "HELLO world", 11) == 0);
	check("tell unchanged by pread", ((f_2)wfn("fd_tell"))(&I, f2, pos) == 0 && get64(pos) == 11);
	uint32_t st = A(64);
	check("filestat size", ((f_2)wfn("fd_filestat_get"))(&I, f2, st) == 0 && get64(st + 32) == 11 &&
	      I.mem[st + 16] == 4);
	check("set_size", ((f_2r)wfn("fd_filestat_set_size"))(&I, f2, 3, 0) == 0 &&
	      ((f_2)wfn("fd_filestat_get"))(&I, f2, st) == 0 && get64(st + 32) == 3);
	check("read on write-only fd refused",
	      w_open(3, "io.bin", 0, 0, 1u << 6, 0, &fd) == 0 && w_read(fd, buf, sizeof buf) == WE_NOTCAPABLE &&
	      w_close(fd) == 0);
	check("close", w_close(f2) == 0 && w_close(f2) == WE_BADF);
	check("unlink", w_pathop("path_unlink_file", 3, "io.bin") == 0);
	check("unlink of a dir is EISDIR", w_pathop("path_unlink_file", 3, "sub") == WE_ISDIR);
	check("rmdir of non-empty", w_pathop("path_remove_directory", 3, "sub") == WE_NOTEMPTY);

	/* readdir of a large directory through small buffers and cookies */
	check("mkdir big", w_pathop("path_create_directory", 3, "big") == 0);
	char name[64];
	int N = 3000;
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "big/entry-%05d-with-a-longer-name", i);
		if (w_open(3, name, 0, 1, RIGHTS_ALL, 0, &fd) || w_close(fd))
			break;
	}
	check("open big", w_open(3, "big", 0, 2, RIGHTS_DIR_ALL, 0, &fd) == 0);
	char *seen = calloc((size_t)N, 1);
	uint64_t cookie = 0;
	int dots = 0, bad = 0, calls = 0;
	uint32_t rb = A(700), used = A(4);
	for (;;) {
		top = rb + 704 + 8;
		if (((f_rw)wfn("fd_readdir"))(&I, fd, rb, 700, cookie, used)) {
			bad++;
			break;
		}
		calls++;
		uint32_t u = get32(used), o = 0;
		int got = 0;
		while (o + 24 <= u) {
			uint32_t nl = get32(rb + o + 16);
			if (o + 24 + nl > u)
				break;   /* truncated: resume from the last cookie */
			char nm[256];
			memcpy(nm, I.mem + rb + o + 24, nl);
			nm[nl] = 0;
			int k;
			if (!strcmp(nm, ".") || !strcmp(nm, ".."))
				dots++;
			else if (sscanf(nm, "entry-%05d", &k) == 1 && k >= 0 && k < N)
				seen[k]++;
			else
				bad++;
			cookie = get64(rb + o);
			o += 24 + nl;
			got++;
		}
		if (u < 700 || got == 0)
			break;
	}
	int once = 0;
	for (int i = 0; i < N; i++)
		once += seen[i] == 1;
	check("readdir: every entry exactly once across cookies", once == N && dots == 2 && !bad && calls > 10);
	free(seen);
	w_close(fd);

	/* stdio and preopens */
	uint32_t ps = A(8), nm = A(64);
	check("prestat of grant", ((f_2)wfn("fd_prestat_get"))(&I, 3, ps) == 0 && get32(ps + 4) == 1 &&
	      ((f_3)wfn("fd_prestat_dir_name"))(&I, 3, nm, 1) == 0 && I.mem[nm] == '.');
	check("prestat of stdout is EBADF", ((f_2)wfn("fd_prestat_get"))(&I, 1, ps) == WE_BADF);
	check("prestat past the end is EBADF", ((f_2)wfn("fd_prestat_get"))(&I, 6, ps) == WE_BADF);
	uint32_t t = A(8);
	check("clock_time_get", ((f_seek)wfn("clock_time_get"))(&I, 1, 0, t, 0) == 0 && get64(t) > 0);
	check("clock bad id", ((f_seek)wfn("clock_time_get"))(&I, 9, 0, t, 0) == WE_INVAL);
	check("random_get", ((f_2)wfn("random_get"))(&I, A(64), 64) == 0);
	check("random_get fault", ((f_2)wfn("random_get"))(&I, (uint32_t)I.size - 8, 64) == WE_FAULT);
	check("sock_accept", ((f_3)wfn("sock_accept"))(&I, 3, 0, A(4)) == WE_NOTSOCK &&
	      ((f_3)wfn("sock_accept"))(&I, 77, 0, A(4)) == WE_BADF);

	/* poll: a 20 ms relative clock */
	uint32_t sub = A(48), ev = A(32), nev = A(4);
	I.mem[sub + 8] = 0;
	uint32_t cid = 1;
	uint64_t ns = 20000000, ud = 0x1234;
	memcpy(I.mem + sub, &ud, 8);
	memcpy(I.mem + sub + 16, &cid, 4);
	memcpy(I.mem + sub + 24, &ns, 8);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int e = (int)((f_4)wfn("poll_oneoff"))(&I, sub, ev, 1, nev);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	check("poll clock", e == 0 && get32(nev) == 1 && get64(ev) == 0x1234 && I.mem[ev + 10] == 0 && ms >= 19.0);
}

static void setup_tree(void)
{
	char p[600], q[600];
	strcpy(root, "/tmp/wasi-sb-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	snprintf(outside, sizeof outside, "%s/outside", root);
	snprintf(grant, sizeof grant, "%s/grant", root);
	snprintf(grant_ro, sizeof grant_ro, "%s/grant_ro", root);
#define MK(d) do { snprintf(p, sizeof p, "%s/%s", root, d); mkdir(p, 0755); } while (0)
#define FILE_(f, s) do { snprintf(p, sizeof p, "%s/%s", root, f); FILE *fp = fopen(p, "w"); fputs(s, fp); fclose(fp); } while (0)
#define LN(t, l) do { snprintf(p, sizeof p, "%s/%s", root, l); if (symlink(t, p)) perror(p); } while (0)
	MK("outside"); MK("outside/dir"); MK("grant"); MK("grant/sub");
	MK("grant/sub/deeper"); MK("grant/race"); MK("grant_ro");
	FILE_("outside/secret.txt", "TOPSECRET\n");
	FILE_("outside/dir/f.txt", "TOPSECRET too\n");
	FILE_("grant/sub/file.txt", "inside\n");
	FILE_("grant/race/secret.txt", "inside-race\n");
	FILE_("grant/rname", "inside-name\n");
	FILE_("grant_ro/ro.txt", "read only\n");
	snprintf(q, sizeof q, "%s/secret.txt", outside);
	LN(q, "grant/abs_link");
	LN("../outside/secret.txt", "grant/rel_link");
	LN("../outside", "grant/dir_link");
	LN(outside, "grant/abs_dir_link");
	LN("chain2", "grant/chain1");
	LN("sub/up2", "grant/chain2");
	LN("../../outside", "grant/sub/up2");
	LN("../../outside", "grant/sub/up");
	LN("../outside/created.txt", "grant/dangle");
	LN("/proc/self/root", "grant/proc_root");
	LN("sub/file.txt", "grant/inside_link");
	LN("loop2", "grant/loop1");
	LN("loop1", "grant/loop2");
	LN("../outside", "grant/race_link");
	LN("../outside/secret.txt", "grant/rname_link");
	/* a host fd number the module never gets (its table stops at 5) */
	outside_hostfd = dup2(open(outside, O_RDONLY | O_DIRECTORY), 40);
	/* let /proc/thread-self/cwd point at the test root */
	if (chdir(root))
		perror("chdir");
}

static void run_mode(bool walker)
{
	char err[256];
	setenv("MPIWASM_WASI_NO_OPENAT2", walker ? "1" : "0", 1);
	wasi_preopen pre[3] = {
		{ grant, ".", false },
		{ "/proc", "/proc", false },
		{ grant_ro, "/ro", true },
	};
	char *argv[] = { "test" };
	wasi_config cfg = { 1, argv, 0, NULL, 3, pre };
	if (wasi_setup(&cfg, err, sizeof err)) {
		printf("FAIL wasi_setup: %s\n", err);
		nfail++;
		return;
	}
	mode_name = wasi_sb_uses_openat2() ? "openat2" : "walker";
	if (walker == wasi_sb_uses_openat2()) {
		printf("FAIL: resolver selection (wanted %s)\n", walker ? "walker" : "openat2");
		nfail++;
	}
#define ESC(fn, allowed) escape(#fn, fn, allowed)
	ESC(e_abs, NOTCAP);
	ESC(e_abs_grant, NOTCAP);
	ESC(e_dotdot, NOTCAP);
	ESC(e_dotdot_deep, NOTCAP);
	ESC(e_dotdot_many, NOTCAP);
	ESC(e_dotdot_dir, NOTCAP);
	ESC(e_abs_link, NOTCAP);
	ESC(e_rel_link, NOTCAP);
	ESC(e_dir_link, NOTCAP);
	ESC(e_abs_dir_link, NOTCAP);
	ESC(e_chain, NOTCAP);
	ESC(e_sub_up, NOTCAP);
	ESC(e_proc_root, NOTCAP);
	ESC(e_magic_root, DENIED);
	ESC(e_magic_fd, DENIED);
	ESC(e_magic_cwd, DENIED);
	ESC(e_create_via_dir_link, NOTCAP);
	ESC(e_create_dangling, NOTCAP);
	ESC(e_trunc_via_link, NOTCAP);
	ESC(e_ungranted_fd, BADF);
	ESC(e_ungranted_dirfd, BADF);
	ESC(e_big_fd, BADF);
	ESC(e_rename_out, NOTCAP);
	ESC(e_rename_in, NOTCAP);
	ESC(e_rename_over_link, NOTCAP);
	ESC(e_link_out, NOTCAP);
	ESC(e_link_follow, NOTCAP);
	ESC(e_link_into_outside, NOTCAP);
	ESC(e_unlink_out, NOTCAP);
	ESC(e_unlink_dotdot, NOTCAP);
	ESC(e_rmdir_out, NOTCAP);
	ESC(e_mkdir_out, NOTCAP);
	ESC(e_stat_follow, NOTCAP);
	ESC(e_stat_dotdot, NOTCAP);
	ESC(e_utimes_follow, NOTCAP);
	ESC(e_readlink_out, NOTCAP);
	ESC(e_symlink_then_follow, ((const int[]){ WE_PERM, WE_NOTCAPABLE, 0 }));
	ESC(e_symlink_abs, ((const int[]){ WE_PERM, 0 }));
	ESC(e_symlink_up_from_sub, ((const int[]){ WE_PERM, 0 }));
	ESC(e_symlink_in_outside, NOTCAP);
	ESC(e_nul, ((const int[]){ WE_INVAL, 0 }));
	ESC(e_loop, ((const int[]){ WE_LOOP, 0 }));
	ESC(e_bad_ptr, ((const int[]){ WE_FAULT, 0 }));
	ESC(e_ro_create, ((const int[]){ WE_ROFS, 0 }));
	ESC(e_ro_write, ((const int[]){ WE_ROFS, 0 }));
	ESC(e_ro_unlink, ((const int[]){ WE_ROFS, 0 }));
	ESC(e_rights_dropped, NOTCAP);
	ESC(e_rights_grow, NOTCAP);
	ESC(e_race, NOTCAP);
	ESC(e_race_stat_name, NOTCAP);
	ESC(e_race_stat_dir, NOTCAP);
	result("no secret read by any attempt", !secret_leak, "TOPSECRET was read");
	functional();
	w_pathop("path_remove_directory", 3, "big");   /* not empty: fine */
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf %s/big", grant);
	if (system(cmd))
		nfail++;
	wasi_teardown();
}

/* Reads what the host path the bridge would give the MPI library
 * opens to (at most n-1 bytes). */
static bool read_host(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	ssize_t r = read(fd, buf, n - 1);
	close(fd);
	buf[r > 0 ? r : 0] = 0;
	return r >= 0;
}

/* wasi_sandbox_open() under a "/data" grant of `grant` (and "/ro"). */
static void sandbox_open_checks(void)
{
	char hp[64], buf[64], p[400];
	int fd = wasi_sandbox_open("/data/sub/file.txt", O_RDONLY, 0, hp, sizeof hp);
	check("sandbox_open inside", fd >= 0 && strncmp(hp, "/proc/self/fd/", 14) == 0 &&
	      read_host(hp, buf, sizeof buf) && strcmp(buf, "inside\n") == 0);
	if (fd >= 0)
		close(fd);
	fd = wasi_sandbox_open("/data/inside_link", O_RDONLY, 0, hp, sizeof hp);
	check("sandbox_open follows an inside link", fd >= 0 &&
	      read_host(hp, buf, sizeof buf) && strcmp(buf, "inside\n") == 0);
	if (fd >= 0)
		close(fd);
	static const char *const outs[] = {
		"/data/../outside/secret.txt", "/data/dir_link/secret.txt",
		"/data/abs_link", "/data/rel_link", "/data/chain1/secret.txt",
		"/data/proc_root/etc/passwd", "/etc/passwd", "relative.txt",
	};
	bool all = true;
	for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
		errno = 0;
		fd = wasi_sandbox_open(outs[i], O_RDONLY, 0, hp, sizeof hp);
		if (fd >= 0 || errno != EACCES || hp[0]) {
			printf("FAIL sandbox_open %s: fd %d errno %d\n", outs[i], fd, errno);
			all = false;
			if (fd >= 0)
				close(fd);
		}
	}
	check("sandbox_open escapes refused with EACCES", all);
	errno = 0;
	fd = wasi_sandbox_open("/data/dangle", O_WRONLY | O_CREAT, 0644, hp, sizeof hp);
	snprintf(p, sizeof p, "%s/created.txt", outside);
	check("sandbox_open creates nothing through a dangling link",
	      fd < 0 && errno == EACCES && access(p, F_OK) != 0);
	fd = wasi_sandbox_open("/data/made.txt", O_WRONLY | O_CREAT | O_EXCL, 0644,
	                       hp, sizeof hp);
	int lib = fd >= 0 ? open(hp, O_WRONLY) : -1;   /* as the library would */
	bool wrote = lib >= 0 && write(lib, "via proc\n", 9) == 9;
	if (lib >= 0)
		close(lib);
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof p, "%s/made.txt", grant);
	check("sandbox_open creates inside; the /proc name writes it",
	      wrote && read_host(p, buf, sizeof buf) && strcmp(buf, "via proc\n") == 0);
	unlink(p);
	errno = 0;
	fd = wasi_sandbox_open("/ro/ro.txt", O_RDWR, 0, hp, sizeof hp);
	check("sandbox_open write below --dir-ro: EROFS", fd < 0 && errno == EROFS);
	fd = wasi_sandbox_open("/ro/ro.txt", O_RDONLY, 0, hp, sizeof hp);
	check("sandbox_open read below --dir-ro", fd >= 0 &&
	      read_host(hp, buf, sizeof buf) && strcmp(buf, "read only\n") == 0);
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = wasi_sandbox_open("/data/sub/file.txt", O_RDONLY, 0, hp, 8);
	check("sandbox_open short buffer: ENAMETOOLONG, no fd",
	      fd < 0 && errno == ENAMETOOLONG);

	/* The check and the library's open are one: swap race/ and a link
	 * to outside while opening through it and reading the name back. */
	pthread_t t;
	int leaks = 0, inside = 0;
	race_stop = 0;
	race_reset("race", "race_link");
	pthread_create(&t, NULL, racer, NULL);
	for (int i = 0; i < 3000; i++) {
		fd = wasi_sandbox_open("/data/race/secret.txt", O_RDONLY, 0, hp, sizeof hp);
		if (fd >= 0) {
			if (read_host(hp, buf, sizeof buf)) {
				if (strstr(buf, "TOPSECRET"))
					leaks++;
				else if (strstr(buf, "inside-race"))
					inside++;
			}
			close(fd);
		}
		fd = wasi_sandbox_open("/data/race/pwned", O_WRONLY | O_CREAT, 0644,
		                       hp, sizeof hp);
		if (fd >= 0)
			close(fd);
	}
	race_stop = 1;
	pthread_join(t, NULL);
	snprintf(p, sizeof p, "%s/pwned", outside);
	check("sandbox_open race: nothing outside read or created",
	      leaks == 0 && inside > 0 && access(p, F_OK) != 0);
	snprintf(p, sizeof p, "%s/race/pwned", grant);
	unlink(p);
	snprintf(p, sizeof p, "%s/race_link/pwned", grant);
	unlink(p);
}

/* The socket calls on a real listening socket given as stdin: accept,
 * send, recv (peek, truncation), shutdown, against a native client. */
static void sockets(void)
{
	char err[256], path[400], buf[16];
	snprintf(path, sizeof path, "%s/sock", root);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t plen = strlen(path);
	if (plen < sizeof sa.sun_path)
		memcpy(sa.sun_path, path, plen + 1);
	mode_name = "sockets";
	int saved = dup(0);
	bool up = plen < sizeof sa.sun_path && l >= 0 && c >= 0 && saved >= 0 &&
	          bind(l, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(l, 1) == 0 &&
	          connect(c, (struct sockaddr *)&sa, sizeof sa) == 0 && dup2(l, 0) == 0;
	wasi_config cfg = { 0, NULL, 0, NULL, 0, NULL };
	check("sockets: listener as stdin", up && wasi_setup(&cfg, err, sizeof err) == 0);
	if (!up)
		goto out;
	uint32_t pfd = A(4), st = A(24);
	int e = (int)((f_3)wfn("sock_accept"))(&I, 0, 0, pfd);
	uint32_t fd = get32(pfd);
	check("sock_accept", e == 0 && fd > 2);
	check("sock_accept bad flags", ((f_3)wfn("sock_accept"))(&I, 0, 1, pfd) == WE_INVAL);
	check("accepted fd is a stream socket",
	      ((f_2)wfn("fd_fdstat_get"))(&I, fd, st) == 0 && I.mem[st] == 6);
	uint32_t iov = A(8), data = S("hello"), n = A(4), fl = A(4);
	memcpy(I.mem + iov, &data, 4);
	uint32_t five = 5;
	memcpy(I.mem + iov + 4, &five, 4);
	typedef uint32_t (*f_send)(rt_instance *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
	typedef uint32_t (*f_recv)(rt_instance *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
	check("sock_send", ((f_send)wfn("sock_send"))(&I, fd, iov, 1, 0, n) == 0 &&
	      get32(n) == 5 && read(c, buf, 5) == 5 && memcmp(buf, "hello", 5) == 0);
	check("sock_send bad flags", ((f_send)wfn("sock_send"))(&I, fd, iov, 1, 1, n) == WE_INVAL);
	check("client writes", write(c, "world!", 6) == 6);
	uint32_t rb = A(8);
	uint32_t three = 3;
	memcpy(I.mem + iov, &rb, 4);
	memcpy(I.mem + iov + 4, &three, 4);
	e = (int)((f_recv)wfn("sock_recv"))(&I, fd, iov, 1, 1 /* peek */, n, fl);
	check("sock_recv peek", e == 0 && get32(n) == 3 && memcmp(I.mem + rb, "wor", 3) == 0);
	memset(I.mem + rb, 0, 8);
	e = (int)((f_recv)wfn("sock_recv"))(&I, fd, iov, 1, 2 /* waitall */, n, fl);
	check("sock_recv", e == 0 && get32(n) == 3 && memcmp(I.mem + rb, "wor", 3) == 0 &&
	      (get32(fl) & 0xffff) == 0);
	check("sock_recv bad pointer", ((f_recv)wfn("sock_recv"))(&I, fd, iov, 1, 0, n,
	      (uint32_t)I.size - 1) == WE_FAULT);
	check("sock_shutdown bad how", ((f_2)wfn("sock_shutdown"))(&I, fd, 4) == WE_INVAL);
	check("sock_shutdown wr: client sees EOF",
	      ((f_2)wfn("sock_shutdown"))(&I, fd, 2) == 0 && read(c, buf, 1) == 0);
	check("sock_send after shutdown: EPIPE (no SIGPIPE)",
	      ((f_send)wfn("sock_send"))(&I, fd, iov, 1, 0, n) == WE_PIPE);
	/* rights: a socket without FD_READ cannot recv */
	check("sock_recv needs FD_READ",
	      ((f_2r)wfn("fd_fdstat_set_rights"))(&I, fd, 1u << 6, 0) == 0 &&
	      ((f_recv)wfn("sock_recv"))(&I, fd, iov, 1, 0, n, fl) == WE_NOTCAPABLE);
	w_close(fd);
	wasi_teardown();
out:
	if (saved >= 0) {
		dup2(saved, 0);
		close(saved);
	}
	if (l >= 0)
		close(l);
	if (c >= 0)
		close(c);
	unlink(path);
}

static void setup_errors(void)
{
	char err[256];
	wasi_preopen bad[] = { { "/nonexistent-dir-xyz", NULL, false } };
	wasi_config cfg = { 0, NULL, 0, NULL, 1, bad };
	check("setup: missing dir refused", wasi_setup(&cfg, err, sizeof err) == -1 &&
	      strstr(err, "/nonexistent-dir-xyz") && !strchr(err, '\n'));
	char f[400];
	snprintf(f, sizeof f, "%s/sub/file.txt", grant);
	wasi_preopen notdir[] = { { f, "x", false } };
	cfg.preopens = notdir;
	check("setup: file refused", wasi_setup(&cfg, err, sizeof err) == -1 && strstr(err, "not a directory"));
	wasi_preopen coll[] = { { grant, "/data", false }, { outside, "/data/", false } };
	cfg.preopens = coll;
	cfg.npreopens = 2;
	check("setup: guest collision refused", wasi_setup(&cfg, err, sizeof err) == -1 &&
	      strstr(err, "already granted"));
	wasi_preopen ok[] = { { grant, "/data", false }, { grant_ro, "/ro", true } };
	cfg.preopens = ok;
	cfg.npreopens = 2;
	char *hp = NULL;
	check("sandbox_path inside", wasi_setup(&cfg, err, sizeof err) == 0 &&
	      (hp = wasi_sandbox_path("/data/sub/file.txt", false)) != NULL &&
	      strstr(hp, "/grant/sub/file.txt") != NULL);
	free(hp);
	check("sandbox_path escape", wasi_sandbox_path("/data/../outside/secret.txt", false) == NULL &&
	      wasi_sandbox_path("/data/dir_link/secret.txt", false) == NULL &&
	      wasi_sandbox_path("/etc/passwd", false) == NULL);
	hp = wasi_sandbox_path("/data/newfile", true);
	check("sandbox_path new file", hp && strstr(hp, "/grant/newfile"));
	free(hp);
	sandbox_open_checks();
	wasi_teardown();
}

int main(void)
{
	static uint8_t mem[1 << 20];
	I.mem = mem;
	I.size = sizeof mem;
	wasi_register();
	setup_tree();
	if (setjmp(I.exit_jb)) {
		printf("FAIL: unexpected proc_exit/trap: %s\n", I.trap);
		return 1;
	}
	run_mode(false);
	run_mode(true);
	setup_errors();
	sockets();
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (chdir("/") || system(cmd))
		fprintf(stderr, "test_sandbox: could not remove %s\n", root);
	printf("wasi-sandbox: %d passed, %d failed\n", npass, nfail);
	return nfail != 0;
}
