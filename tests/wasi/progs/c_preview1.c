/* Preview1 conformance checks that have no native counterpart (rights,
 * fdflags, what a runtime refuses): raw wasi_snapshot_preview1 calls, run
 * only under mpiwasm with the current (empty) directory granted.  Each
 * check prints one "ok"/"FAIL" line; the expectations are preview1's, as
 * wasmtime, WAMR and WasmEdge behave (the official wasi-testsuite's
 * path_filestat, path_open_preopen, path_link and symlink cases). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wasi/api.h>

static int failures;

static const char *ename(__wasi_errno_t e)
{
	switch (e) {
	case __WASI_ERRNO_SUCCESS: return "SUCCESS";
	case __WASI_ERRNO_EXIST: return "EXIST";
	case __WASI_ERRNO_ISDIR: return "ISDIR";
	case __WASI_ERRNO_NOENT: return "NOENT";
	case __WASI_ERRNO_NOTDIR: return "NOTDIR";
	case __WASI_ERRNO_NOTCAPABLE: return "NOTCAPABLE";
	case __WASI_ERRNO_PERM: return "PERM";
	case __WASI_ERRNO_INVAL: return "INVAL";
	case __WASI_ERRNO_ROFS: return "ROFS";
	case __WASI_ERRNO_ACCES: return "ACCES";
	default: return "other";
	}
}

/* expect(name, got, want): one line, counted. */
static void expect(const char *name, __wasi_errno_t got, __wasi_errno_t want)
{
	if (got == want) {
		printf("ok   %s -> %s\n", name, ename(got));
	} else {
		printf("FAIL %s -> %s (%d), want %s\n", name, ename(got), got,
		       ename(want));
		failures++;
	}
}

static void truth(const char *name, int cond)
{
	printf("%s %s\n", cond ? "ok  " : "FAIL", name);
	if (!cond)
		failures++;
}

static __wasi_fd_t pre;

static __wasi_errno_t op(const char *p, __wasi_oflags_t of, __wasi_rights_t base,
                         __wasi_rights_t inh, __wasi_fdflags_t ff,
                         __wasi_fd_t *out)
{
	return __wasi_path_open(pre, 0, p, of, base, inh, ff, out);
}

/* Opens and closes at once: the errno only. */
static __wasi_errno_t op_at(__wasi_fd_t dir, const char *p, __wasi_oflags_t of,
                            __wasi_rights_t base, __wasi_rights_t inh,
                            __wasi_fdflags_t ff)
{
	__wasi_fd_t fd;
	__wasi_errno_t e = __wasi_path_open(dir, 0, p, of, base, inh, ff, &fd);
	if (e == 0)
		__wasi_fd_close(fd);
	return e;
}

static int exists(const char *p)
{
	__wasi_filestat_t st;
	return __wasi_path_filestat_get(pre, 0, p, &st) == 0;
}

static void sync_flags(void)
{
	__wasi_fd_t fd, dfd;
	__wasi_fdstat_t fs;
	/* (made first, so that the checks below do not hang on this one) */
	expect("create f1", op_at(pre, "f1", __WASI_OFLAGS_CREAT,
		__WASI_RIGHTS_FD_WRITE, 0, 0), 0);
	/* path_filestat: a file opened with SYNC and rights without FD_SYNC */
	__wasi_errno_t e = op("f1", __WASI_OFLAGS_CREAT,
		__WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE |
		__WASI_RIGHTS_PATH_FILESTAT_GET, 0,
		__WASI_FDFLAGS_APPEND | __WASI_FDFLAGS_SYNC, &fd);
	expect("open f1 creat, append|sync, rights read|write", e, 0);
	if (e == 0) {
		truth("f1 fdstat has append and sync",
		      __wasi_fd_fdstat_get(fd, &fs) == 0 &&
		      (fs.fs_flags & __WASI_FDFLAGS_APPEND) &&
		      (fs.fs_flags & __WASI_FDFLAGS_SYNC));
		__wasi_ciovec_t v = { (const uint8_t *)"abc", 3 };
		__wasi_size_t n = 0;
		truth("f1 write", __wasi_fd_write(fd, &v, 1, &n) == 0 && n == 3);
		__wasi_fd_close(fd);
	}
	expect("open f1 dsync, rights read", op_at(pre, "f1", 0,
		__WASI_RIGHTS_FD_READ, 0, __WASI_FDFLAGS_DSYNC), 0);
	expect("open f1 rsync, rights read", op_at(pre, "f1", 0,
		__WASI_RIGHTS_FD_READ, 0, __WASI_FDFLAGS_RSYNC), 0);

	/* A directory that may not hand out the sync rights refuses them. */
	expect("mkdir d", __wasi_path_create_directory(pre, "d"), 0);
	e = op("d", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_PATH_OPEN |
		__WASI_RIGHTS_PATH_CREATE_FILE,
		__WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE, 0, &dfd);
	expect("open d, inheriting read|write", e, 0);
	if (e == 0) {
		expect("from d: create with sync", op_at(dfd, "g", __WASI_OFLAGS_CREAT,
			__WASI_RIGHTS_FD_WRITE, 0, __WASI_FDFLAGS_SYNC),
			__WASI_ERRNO_NOTCAPABLE);
		expect("from d: create with dsync", op_at(dfd, "g", __WASI_OFLAGS_CREAT,
			__WASI_RIGHTS_FD_WRITE, 0, __WASI_FDFLAGS_DSYNC),
			__WASI_ERRNO_NOTCAPABLE);
		expect("from d: create plain", op_at(dfd, "g", __WASI_OFLAGS_CREAT,
			__WASI_RIGHTS_FD_WRITE, 0, 0), 0);
		__wasi_fd_close(dfd);
		__wasi_path_unlink_file(pre, "d/g");
	}
}

static void reopen_dirs(void)
{
	__wasi_fdstat_t fs;
	truth("fdstat of the preopen", __wasi_fd_fdstat_get(pre, &fs) == 0 &&
	      fs.fs_filetype == __WASI_FILETYPE_DIRECTORY);
	expect("reopen . with the preopen's own rights", op_at(pre, ".",
		__WASI_OFLAGS_DIRECTORY, fs.fs_rights_base,
		fs.fs_rights_inheriting, 0), 0);
	expect("reopen . with the preopen's own rights, no O_DIRECTORY",
		op_at(pre, ".", 0, fs.fs_rights_base, fs.fs_rights_inheriting, 0), 0);
	expect("reopen . with no rights", op_at(pre, ".",
		__WASI_OFLAGS_DIRECTORY, 0, 0, 0), 0);
	expect("reopen . directory + fd_write", op_at(pre, ".",
		__WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_WRITE, 0, 0),
		__WASI_ERRNO_ISDIR);
	expect("reopen . directory + fd_read", op_at(pre, ".",
		__WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READ, 0, 0), 0);
	expect("open . fd_write (no O_DIRECTORY)", op_at(pre, ".", 0,
		__WASI_RIGHTS_FD_WRITE, 0, 0), __WASI_ERRNO_ISDIR);
	expect("open . fd_read (no O_DIRECTORY)", op_at(pre, ".", 0,
		__WASI_RIGHTS_FD_READ, 0, 0), 0);
	expect("open d directory + datasync|sync|readdir", op_at(pre, "d",
		__WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_DATASYNC |
		__WASI_RIGHTS_FD_SYNC | __WASI_RIGHTS_FD_READDIR, 0, 0), 0);
	expect("open d set_size (no O_DIRECTORY, no fd_write)", op_at(pre, "d",
		0, __WASI_RIGHTS_FD_FILESTAT_SET_SIZE, 0, 0), 0);
	expect("open f1 directory + fd_write", op_at(pre, "f1",
		__WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_WRITE, 0, 0),
		__WASI_ERRNO_NOTDIR);
	expect("open f1 datasync only", op_at(pre, "f1", 0,
		__WASI_RIGHTS_FD_DATASYNC, 0, 0), 0);
}

/* Each case starts with no "lnk"; one wrongly made is named and removed. */
static void link_case(const char *from, const char *to, __wasi_errno_t want)
{
	char name[128];
	snprintf(name, sizeof name, "link %s -> %s", from, to);
	expect(name, __wasi_path_link(pre, 0, from, pre, to), want);
	if (want)
		truth("  no lnk was made", !exists("lnk"));
	__wasi_path_unlink_file(pre, "lnk");
}

static void links(void)
{
	link_case("f1", "lnk/", __WASI_ERRNO_NOENT);
	link_case("f1/", "lnk", __WASI_ERRNO_NOTDIR);
	link_case("f1/", "lnk/", __WASI_ERRNO_NOTDIR);
	link_case("nope/", "lnk", __WASI_ERRNO_NOENT);
	link_case("d/", "lnk", __WASI_ERRNO_PERM);
	link_case("d", "lnk/", __WASI_ERRNO_NOENT);
	link_case("f1", "d/", __WASI_ERRNO_EXIST);
	expect("link f1 -> lnk", __wasi_path_link(pre, 0, "f1", pre, "lnk"), 0);
	__wasi_filestat_t st;
	truth("f1 has 2 links", __wasi_path_filestat_get(pre, 0, "f1", &st) == 0 &&
	      st.nlink == 2);
	__wasi_path_unlink_file(pre, "lnk");
}

static void symlinks(void)
{
	static const struct { const char *tgt, *at; __wasi_errno_t want; } c[] = {
		{ "/", "s", __WASI_ERRNO_PERM },
		{ "/etc/passwd", "s", __WASI_ERRNO_PERM },
		{ "..", "s", __WASI_ERRNO_PERM },
		{ "../x", "s", __WASI_ERRNO_PERM },
		{ "./../x", "s", __WASI_ERRNO_PERM },
		{ "x/../../y", "s", __WASI_ERRNO_PERM },
		{ "../../x", "d/s", __WASI_ERRNO_PERM },
		{ "../d/../../x", "d/s", __WASI_ERRNO_PERM },
		/* dl -> d: one level down, however the path reads */
		{ "../../x", "dl/s", __WASI_ERRNO_PERM },
		/* dot -> .: the grant itself, though the path reads one down */
		{ "../x", "dot/s", __WASI_ERRNO_PERM },
		{ "x", "s", 0 },
		{ "d/../f1", "s2", 0 },
		{ "../f1", "d/s3", 0 },
		{ "..", "d/s4", 0 },
		{ "./f1/", "s5", 0 },
	};
	expect("symlink dl -> d", __wasi_path_symlink("d", pre, "dl"), 0);
	expect("symlink dot -> .", __wasi_path_symlink(".", pre, "dot"), 0);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char name[128];
		snprintf(name, sizeof name, "symlink %s at %s", c[i].tgt, c[i].at);
		expect(name, __wasi_path_symlink(c[i].tgt, pre, c[i].at), c[i].want);
		if (c[i].want)
			truth("  nothing was made", !exists(c[i].at));
		__wasi_path_unlink_file(pre, c[i].at);
	}
	/* A directory fd is a root of its own: ".." from it is refused. */
	__wasi_fd_t dfd;
	__wasi_errno_t e = op("d", __WASI_OFLAGS_DIRECTORY,
		__WASI_RIGHTS_PATH_SYMLINK, 0, 0, &dfd);
	expect("open d with path_symlink", e, 0);
	if (e == 0) {
		expect("from d: symlink ../f1 at s6",
		       __wasi_path_symlink("../f1", dfd, "s6"), __WASI_ERRNO_PERM);
		__wasi_path_unlink_file(pre, "d/s6");
		expect("from d: symlink f at s6",
		       __wasi_path_symlink("f", dfd, "s6"), 0);
		__wasi_fd_close(dfd);
		__wasi_path_unlink_file(pre, "d/s6");
	}
	__wasi_path_unlink_file(pre, "dl");
	__wasi_path_unlink_file(pre, "dot");
}

int main(void)
{
	__wasi_prestat_t ps;
	for (pre = 3; pre < 64; pre++)
		if (__wasi_fd_prestat_get(pre, &ps) == 0)
			break;
	if (pre == 64) {
		printf("FAIL no preopen\n");
		return 1;
	}
	sync_flags();
	reopen_dirs();
	links();
	symlinks();
	__wasi_path_unlink_file(pre, "f1");
	__wasi_path_remove_directory(pre, "d");
	printf("c_preview1: %d failures\n", failures);
	return failures != 0;
}
