/* sandbox.c - path resolution confined beneath a granted directory.
 *
 * Two resolvers with one contract (wasi_int.h): openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, where the kernel enforces the
 * confinement atomically; and, for kernels without openat2, a walker that
 * opens one component at a time with O_NOFOLLOW, keeps the directories it
 * went through on a stack (so `..` is a pop, never a lookup that a
 * concurrent rename could redirect) and expands symlinks itself,
 * refusing absolute targets. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "wasi_int.h"

#ifndef RESOLVE_BENEATH
struct open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_BENEATH       0x08
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define MAX_SYMLINKS 40

static int sb_mode = -1;   /* -1 unprobed, 1 openat2, 0 walker */

void wasi_sb_init(void)
{
	const char *off = getenv("MPIWASM_WASI_NO_OPENAT2");
	if (off && *off && strcmp(off, "0") != 0) {
		sb_mode = 0;
		return;
	}
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	                        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
	if (fd >= 0) {
		close((int)fd);
		sb_mode = 1;
	} else {
		/* ENOSYS (old kernel) or a seccomp filter: use the walker. */
		sb_mode = 0;
	}
}

bool wasi_sb_uses_openat2(void)
{
	if (sb_mode < 0)
		wasi_sb_init();
	return sb_mode == 1;
}

static uint16_t sb_openat2(int root, const char *path, int flags,
                           mode_t mode, bool follow, int *out)
{
	struct open_how how;
	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(flags | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	how.mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	for (int tries = 0; tries < 64; tries++) {
		long fd = syscall(SYS_openat2, root, path, &how, sizeof how);
		if (fd >= 0) {
			*out = (int)fd;
			return WE_SUCCESS;
		}
		/* EAGAIN: a concurrent rename made `..` resolution unsafe. */
		if (errno == EAGAIN || errno == EINTR)
			continue;
		if (errno == EXDEV)
			return WE_NOTCAPABLE;
		return wasi_errno(errno);
	}
	return WE_AGAIN;
}

/* The walker's state: a stack of directory descriptors; [0] is root and
 * not owned. */
typedef struct walk {
	int *fds;
	int n, cap;
} walk;

static void walk_free(walk *w)
{
	for (int i = 1; i < w->n; i++)
		close(w->fds[i]);
	free(w->fds);
}

static int walk_push(walk *w, int fd)
{
	if (w->n == w->cap) {
		int nc = w->cap ? 2 * w->cap : 16;
		int *p = realloc(w->fds, (size_t)nc * sizeof *p);
		if (!p)
			return -1;
		w->fds = p;
		w->cap = nc;
	}
	w->fds[w->n++] = fd;
	return 0;
}

/* Replaces rem with target + "/" + rest (rest may be empty). */
static uint16_t splice_link(char *rem, const char *target, size_t tlen,
                            const char *rest, bool trailing)
{
	if (tlen == 0)
		return WE_NOENT;
	if (target[0] == '/')
		return WE_NOTCAPABLE;
	size_t rlen = strlen(rest);
	if (tlen + 1 + rlen + 2 > PATH_MAX)
		return WE_NAMETOOLONG;
	char tmp[PATH_MAX];
	memcpy(tmp, target, tlen);
	size_t k = tlen;
	if (rlen) {
		tmp[k++] = '/';
		memcpy(tmp + k, rest, rlen);
		k += rlen;
	} else if (trailing) {
		tmp[k++] = '/';
	}
	tmp[k] = 0;
	memcpy(rem, tmp, k + 1);
	return WE_SUCCESS;
}

static uint16_t read_link(int dir, const char *name, char *buf, size_t *len)
{
	ssize_t r = readlinkat(dir, name, buf, PATH_MAX);
	if (r < 0)
		return wasi_errno(errno);
	if (r >= PATH_MAX)
		return WE_NAMETOOLONG;
	buf[r] = 0;
	*len = (size_t)r;
	return WE_SUCCESS;
}

static uint16_t sb_walk(int root, const char *path, int flags, mode_t mode,
                        bool follow, int *out)
{
	char rem[PATH_MAX], comp[NAME_MAX + 1], target[PATH_MAX];
	walk w = { 0 };
	uint16_t err = WE_SUCCESS;
	int links = 0;

	if (strlen(path) >= PATH_MAX)
		return WE_NAMETOOLONG;
	if (path[0] == '/')
		return WE_NOTCAPABLE;
	strcpy(rem, path);
	if (walk_push(&w, root) < 0)
		return WE_NOMEM;

	for (;;) {
		char *p = rem;
		while (*p == '/')
			p++;
		if (*p == 0) {
			/* Nothing (left) to name: the current directory. */
			int fd = openat(w.fds[w.n - 1], ".", flags | O_CLOEXEC, mode);
			if (fd < 0)
				err = wasi_errno(errno);
			else
				*out = fd;
			goto done;
		}
		char *e = strchr(p, '/');
		size_t clen = e ? (size_t)(e - p) : strlen(p);
		if (clen > NAME_MAX) {
			err = WE_NAMETOOLONG;
			goto done;
		}
		memcpy(comp, p, clen);
		comp[clen] = 0;
		char *rest = p + clen;
		bool trailing = *rest == '/';
		while (*rest == '/')
			rest++;
		bool last = *rest == 0;
		int cur = w.fds[w.n - 1];

		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
			if (comp[1] == '.') {
				if (w.n == 1) {
					err = WE_NOTCAPABLE;
					goto done;
				}
				close(w.fds[--w.n]);
			}
			memmove(rem, rest, strlen(rest) + 1);
			continue;
		}

		if (!last) {
			int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			struct stat st;
			if (fd < 0 || fstat(fd, &st) < 0) {
				err = wasi_errno(errno);
				if (fd >= 0)
					close(fd);
				goto done;
			}
			if (S_ISLNK(st.st_mode)) {
				size_t tlen = 0;
				close(fd);
				if (++links > MAX_SYMLINKS) {
					err = WE_LOOP;
					goto done;
				}
				if ((err = read_link(cur, comp, target, &tlen)) ||
				    (err = splice_link(rem, target, tlen, rest, false)))
					goto done;
				continue;
			}
			if (!S_ISDIR(st.st_mode)) {
				close(fd);
				err = WE_NOTDIR;
				goto done;
			}
			if (walk_push(&w, fd) < 0) {
				close(fd);
				err = WE_NOMEM;
				goto done;
			}
			memmove(rem, rest, strlen(rest) + 1);
			continue;
		}

		/* The last component: never let the kernel follow it. */
		int f = flags | O_NOFOLLOW | O_CLOEXEC | (trailing ? O_DIRECTORY : 0);
		int fd = openat(cur, comp, f, mode);
		int saved = errno;
		bool islink = false;
		if (fd >= 0 && (flags & O_PATH)) {
			struct stat st;
			if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode))
				islink = true;
		} else if (fd < 0 && (saved == ELOOP || saved == ENOTDIR ||
		                      saved == EMLINK)) {
			struct stat st;
			if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				islink = true;
		}
		if (islink && (follow || trailing)) {
			size_t tlen = 0;
			if (fd >= 0)
				close(fd);
			if (++links > MAX_SYMLINKS) {
				err = WE_LOOP;
				goto done;
			}
			if ((err = read_link(cur, comp, target, &tlen)) ||
			    (err = splice_link(rem, target, tlen, "", trailing)))
				goto done;
			continue;
		}
		if (fd < 0) {
			err = islink ? WE_LOOP : wasi_errno(saved);
			goto done;
		}
		*out = fd;
		goto done;
	}
done:
	walk_free(&w);
	return err;
}

uint16_t wasi_sb_open(int root, const char *path, int flags, mode_t mode,
                      bool follow, int *out)
{
	if (path[0] == 0)
		return WE_NOENT;
	if (path[0] == '/')
		return WE_NOTCAPABLE;
	if (strlen(path) >= PATH_MAX)
		return WE_NAMETOOLONG;
	if (wasi_sb_uses_openat2())
		return sb_openat2(root, path, flags, mode, follow, out);
	return sb_walk(root, path, flags, mode, follow, out);
}

uint16_t wasi_sb_parent(int root, const char *path, bool follow, int *dirfd,
                        char *last, bool *must_dir)
{
	char cur[PATH_MAX], dir[PATH_MAX], target[PATH_MAX];
	bool trailing = false;

	if (path[0] == 0)
		return WE_NOENT;
	if (path[0] == '/')
		return WE_NOTCAPABLE;
	if (strlen(path) >= PATH_MAX)
		return WE_NAMETOOLONG;
	strcpy(cur, path);

	for (int links = 0;; links++) {
		size_t n = strlen(cur);
		while (n > 1 && cur[n - 1] == '/') {
			cur[--n] = 0;
			trailing = true;
		}
		char *slash = strrchr(cur, '/');
		const char *name = slash ? slash + 1 : cur;
		if (slash) {
			size_t dl = (size_t)(slash - cur);
			memcpy(dir, cur, dl);
			dir[dl] = 0;
			if (dl == 0)   /* "/x" after a splice cannot happen: refused */
				return WE_NOTCAPABLE;
		} else {
			strcpy(dir, ".");
		}
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			/* Act on the directory itself, named "." inside it. */
			strcpy(dir, cur);
			name = ".";
		}
		if (strlen(name) > NAME_MAX)
			return WE_NAMETOOLONG;
		/* A single name directly in root (the common case) needs no
		 * lookup: the *at call on root with a slash-free name other
		 * than "." and ".." cannot leave it, and a final symlink is
		 * only followed below, by re-resolving its target from root. */
		int fd = root;
		uint16_t err = WE_SUCCESS;
		if (slash || strcmp(name, ".") == 0)
			err = wasi_sb_open(root, dir, O_PATH | O_DIRECTORY, 0,
			                   true, &fd);
		if (err)
			return err;
		strcpy(last, name);
		if (!(follow || trailing) || strcmp(name, ".") == 0) {
			*dirfd = fd;
			*must_dir = trailing;
			return WE_SUCCESS;
		}
		struct stat st;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode)) {
			/* Not a symlink (or absent): the *at call decides. */
			*dirfd = fd;
			*must_dir = trailing;
			return WE_SUCCESS;
		}
		size_t tlen = 0;
		err = read_link(fd, name, target, &tlen);
		wasi_sb_put(root, fd);
		if (err)
			return err;
		if (links >= MAX_SYMLINKS)
			return WE_LOOP;
		if (tlen == 0)
			return WE_NOENT;
		if (target[0] == '/')
			return WE_NOTCAPABLE;
		/* Re-resolve dir/target from root: the kernel (or the walker)
		 * confines every step again. */
		size_t dl = strcmp(dir, ".") == 0 ? 0 : strlen(dir);
		if (dl + 1 + tlen + 1 >= PATH_MAX)
			return WE_NAMETOOLONG;
		if (dl) {
			memcpy(cur, dir, dl);
			cur[dl] = '/';
			memcpy(cur + dl + 1, target, tlen + 1);
		} else {
			memcpy(cur, target, tlen + 1);
		}
	}
}
