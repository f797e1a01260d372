/* realpath.c - realpath() within the sandbox.
 *
 * A module sees one namespace rooted at "/": each granted directory sits
 * at its guest name (`--dir data` at /data, `--dir .` at /), and
 * wasi-libc finds the grant for every path by that name.  So the result
 * here is an absolute path in that namespace: the path joined to getcwd()
 * when relative, "." and ".." folded, symbolic links inside the grants
 * followed (at most MAX_LINKS).  Components above every grant (the /tmp
 * of a grant named /tmp/run) cannot be inspected (ENOTCAPABLE): they are
 * taken as plain directories.  The result must exist (stat), as POSIX
 * requires; it is never a host path. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40

/* Appends "/name" (n bytes) to out (length *len). */
static int push(char *out, size_t *len, const char *name, size_t n)
{
	if (*len + 1 + n >= PATH_MAX)
		return -1;
	out[(*len)++] = '/';
	memcpy(out + *len, name, n);
	*len += n;
	out[*len] = 0;
	return 0;
}

static void pop(char *out, size_t *len)
{
	while (*len > 0 && out[*len - 1] != '/')
		(*len)--;
	if (*len > 0)
		(*len)--;
	out[*len] = 0;
}

char *realpath(const char *restrict path, char *restrict resolved)
{
	char out[PATH_MAX], rest[PATH_MAX], link[PATH_MAX];
	size_t len = 0;
	int links = 0;
	struct stat st;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	if (!*path) {
		errno = ENOENT;
		return NULL;
	}
	if (strlen(path) >= sizeof rest) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(rest, path);
	out[0] = 0;
	if (path[0] != '/') {
		if (!getcwd(out, sizeof out))
			return NULL;
		len = strlen(out);
		while (len > 0 && out[len - 1] == '/')
			out[--len] = 0; /* "/" is kept as the empty string */
	}

	const char *p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *name = p;
		size_t n = strcspn(p, "/");
		p += n;
		if (n == 1 && name[0] == '.')
			continue;
		if (n == 2 && name[0] == '.' && name[1] == '.') {
			pop(out, &len);
			continue;
		}
		if (push(out, &len, name, n) != 0) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		ssize_t k = readlink(out, link, sizeof link - 1);
		if (k < 0 && errno == ENOTCAPABLE && *p)
			continue; /* above the grants: not ours to inspect */
		if (k < 0 && errno != EINVAL)
			return NULL; /* ENOENT, ENOTDIR, EACCES, ENOTCAPABLE... */
		if (k < 0) {
			/* Not a link: what follows needs a directory. */
			const char *q = p;
			while (*q == '/')
				q++;
			if (*q && stat(out, &st) != 0)
				return NULL;
			if (*q && !S_ISDIR(st.st_mode)) {
				errno = ENOTDIR;
				return NULL;
			}
			continue;
		}
		if (++links > MAX_LINKS) {
			errno = ELOOP;
			return NULL;
		}
		/* Splice: the link's target, then what was left of the path. */
		size_t tail = strlen(p);
		if ((size_t)k + tail + 1 >= sizeof link) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		memcpy(link + k, p, tail + 1);
		strcpy(rest, link);
		p = rest;
		pop(out, &len);
		if (rest[0] == '/') {
			len = 0;
			out[0] = 0;
		}
	}
	if (len == 0)
		strcpy(out, "/");
	if (stat(out, &st) != 0)
		return NULL;
	if (!resolved)
		return strdup(out);
	return strcpy(resolved, out);
}
