/* cache.c - the key, the store of entries (trust, lock, atomic install)
 * and the compiler driver; src/load drives them (cache.h).
 *
 * Entry layout in the cache directory:
 *   KEY.so     the shared object
 *   KEY.meta   "mpiwasm-cache-2", its size and SHA-256, the identity of the
 *              installed file (device, inode, mtime, ctime), the source name
 *   KEY.lock   flock()ed by the one process that builds KEY
 *   cc-ID.id   `cc -v` output, ID from the compiler's path, mtime and size
 *   .tmp-KEY-PID.*   files being written; renamed into place when complete
 *   .tmp-KEY-PID-XXXXXX/   the private dir of a build: generated C, objects,
 *                    the compiler's own temp files (its TMPDIR)
 * Anything .tmp-KEY-* left by a build killed with SIGKILL is removed by the
 * next build of KEY (under the lock) or by `mpiwasm cache clean`.
 * A reader first checks KEY.so against KEY.meta without the lock; anything
 * short of a verified, loadable entry sends it to the locked path, which
 * re-checks and builds only if the entry is still missing or damaged.
 * The check is cheap while the file is the one installed (same inode,
 * size, mtime and ctime: a write or a replacement changes one of them, and
 * ctime cannot be set back); otherwise the SHA-256 of the whole file.
 * Trust: see cache.h; every file is 0600, every dir mpiwasm makes 0700. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cache.h"
#include "../rt/rt.h"
#include "xlate_source.h"   /* XLATE_SOURCE_HASH, written by the Makefile */

extern char **environ;

#define CACHE_FORMAT "mpiwasm-cache-2"
/* On x86, vectors of at most 256 bits.  Only a versioned loop's fast copy
 * is vectorized (MW_VEC, src/xlate/prelude.h), and gcc 12 picks 512-bit
 * vectors for it on an AVX-512 host (-march=native on this machine's AMD
 * EPYC): a streaming loop then runs slower than the scalar code (the
 * OpenMP triad of bench/threads at 1 thread: best 3.87 ms with 512-bit
 * vectors, 3.2-3.5 ms with 256, 3.1-3.4 ms for native gcc -O2), while the
 * compute-bound fast copies lose little or gain (bench/kernels dgemm
 * 0.0169 -> 0.0156 CPU s, jacobi within its noise).  gcc's own tuning for
 * Intel's AVX-512 cores makes the same choice. */
#if defined(__x86_64__) || defined(__i386__)
#define CACHE_OPTFLAGS "-O2 -march=native -mprefer-vector-width=256 -fPIC"
#else
#define CACHE_OPTFLAGS "-O2 -march=native -fPIC"
#endif
/* Tier 0 of a tiered start (cache_options.tier0): no optimization, the
 * cheapest level (bench/kernels/FINDINGS.md section 12 measured it). */
#define CACHE_TIER0_FLAGS "-O0 -march=native -fPIC"
/* The tier-0 compiler when MPIWASM_TIER0_CC does not name one, the first
 * found in PATH; else the tier-1 compiler. */
static const char *const tier0_ccs[] = { "clang-19", "clang" };
#define CC_OUTPUT_SHOWN 16384   /* bytes of compiler output shown on failure */

static void hash_cpu_text(cache_sha256 *s);

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void setf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void setf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- files --------------------------------------------------------------- */

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(buf, &st))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* The rest of fd into a NUL-terminated malloc'd buffer, or NULL; closes fd. */
static char *read_fd(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *s = malloc(cap + 1);
	for (;;) {
		if (!s)
			break;
		if (n == cap) {
			char *t = realloc(s, 2 * cap + 1);
			if (!t) {
				free(s);
				s = NULL;
				break;
			}
			s = t;
			cap *= 2;
		}
		ssize_t r = read(fd, s + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(s);
			s = NULL;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (s) {
		s[n] = 0;
		if (len)
			*len = n;
	}
	return s;
}

/* Whole file into a NUL-terminated malloc'd buffer, or NULL. */
static char *read_text(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? NULL : read_fd(fd, len);
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, p, n);
	if (close(fd))
		rc = -1;
	return rc;
}

/* SHA-256 of a file's contents; -1 if unreadable. */
static int hash_file(int fd, size_t size, char hex[65])
{
	cache_sha256 s;
	uint8_t d[32];
	cache_sha256_init(&s);
	if (size) {
		void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return -1;
		cache_sha256_update(&s, p, size);
		munmap(p, size);
	}
	cache_sha256_final(&s, d);
	cache_sha256_hex(d, hex);
	return 0;
}

/* ---- child processes ----------------------------------------------------- */

typedef struct strvec {
	char **v;
	size_t n, cap;
} strvec;

static int sv_push(strvec *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? 2 * sv->cap : 16;
		char **v = realloc(sv->v, cap * sizeof *v);
		if (!v)
			return -1;
		sv->v = v;
		sv->cap = cap;
	}
	if (!(sv->v[sv->n] = strdup(s)))
		return -1;
	sv->v[++sv->n] = NULL;
	return 0;
}

static int sv_split(strvec *sv, const char *words)
{
	char w[1024];
	while (words && *words) {
		size_t k = strspn(words, " \t\n");
		words += k;
		k = strcspn(words, " \t\n");
		if (!k)
			break;
		if (k >= sizeof w)
			return -1;
		memcpy(w, words, k);
		w[k] = 0;
		if (sv_push(sv, w))
			return -1;
		words += k;
	}
	return 0;
}

static void sv_free(strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof *sv);
}

/* The signals whose handler removes a build (cl_handler below). */
static void cleanup_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

/* Starts argv with stdin from /dev/null and stdout+stderr into outfd, in
 * a process group of its own so that a cleanup can kill the compiler's
 * own children (cc1, as, ld) with it.  The caller may block the cleanup
 * signals until it has recorded the pid (spawn_blocked): the compiler
 * starts with them unblocked. */
static pid_t spawn(char *const argv[], int outfd, char *const envp[])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid;
	sigset_t mask, cs;
	sigprocmask(SIG_BLOCK, NULL, &mask);
	cleanup_signals(&cs);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&cs, s) == 1)
			sigdelset(&mask, s);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &mask);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outfd, 1);
	posix_spawn_file_actions_adddup2(&fa, outfd, 2);
	int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, envp ? envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc) {
		errno = rc;
		return -1;
	}
	return pid;
}

/* spawn with the cleanup signals blocked until the pid is in *slot, so
 * that a SIGTERM arriving meanwhile (a tiered start's compile ended with
 * its process, src/load) finds the compiler in the cleanup list. */
static pid_t spawn_into(volatile pid_t *slot, char *const argv[], int outfd,
                        char *const envp[])
{
	sigset_t cs, old;
	cleanup_signals(&cs);
	sigprocmask(SIG_BLOCK, &cs, &old);
	pid_t pid = spawn(argv, outfd, envp);
	if (pid > 0)
		*slot = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

static int wait_pid(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

static void describe_status(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, len, "wait status %#x", (unsigned)st);
}

/* ---- cleanup on failure and on signals ----------------------------------- */

/* Everything a build creates is listed here before it is created, so that
 * an error path or a fatal signal (SIGINT/SIGTERM/SIGHUP from a launcher)
 * removes it: compilers first, then files, then the private directory. */
static struct {
	char **paths;
	size_t npaths;
	char *tmpdir;
	volatile pid_t *pids;
	size_t npids;
	volatile sig_atomic_t armed;
} cl;

/* Removes the files directly in `path` (the private dir holds no
 * subdirectories): what the list does not name, such as the compiler's
 * own temp files.  Only async-signal-safe calls: it runs in the handler. */
static void wipe_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (int pass = 0; pass < 8; pass++) {
		char buf[4096] __attribute__((aligned(8)));
		bool removed = false;
		long n;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
			for (long off = 0; off < n;) {
				/* struct linux_dirent64: ino, off, reclen, type, name */
				unsigned short reclen;
				memcpy(&reclen, buf + off + 16, sizeof reclen);
				const char *name = buf + off + 19;
				if (strcmp(name, ".") && strcmp(name, "..") &&
				    !unlinkat(fd, name, 0))
					removed = true;
				off += reclen;
			}
		if (!removed)
			break;
	}
	close(fd);
}

/* Removes `name` in dirfd, a directory tree or a file; not for handlers. */
static void remove_tree_at(int dfd, const char *name)
{
	if (!unlinkat(dfd, name, 0) || (errno != EISDIR && errno != EPERM))
		return;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			remove_tree_at(dirfd(d), de->d_name);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static const int cl_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction cl_old[sizeof cl_signals / sizeof *cl_signals];

static void cl_run(void)
{
	for (size_t i = 0; i < cl.npids; i++) {
		pid_t p = cl.pids[i];
		if (p > 0) {
			kill(-p, SIGKILL);
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
			cl.pids[i] = 0;
		}
	}
	for (size_t i = 0; i < cl.npaths; i++)
		if (cl.paths[i])
			unlink(cl.paths[i]);
	if (cl.tmpdir) {
		wipe_dir(cl.tmpdir);
		rmdir(cl.tmpdir);
	}
}

static void cl_handler(int sig)
{
	if (cl.armed)
		cl_run();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void cl_arm(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = cl_handler;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof cl_signals / sizeof *cl_signals; i++)
		sigaddset(&sa.sa_mask, cl_signals[i]);
	for (size_t i = 0; i < sizeof cl_signals / sizeof *cl_signals; i++)
		sigaction(cl_signals[i], &sa, &cl_old[i]);
	cl.armed = 1;
}

/* Removes the files unless `keep`, restores the handlers, frees the list. */
static void cl_disarm(bool keep)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (!keep)
		cl_run();
	if (cl.armed)
		for (size_t i = 0; i < sizeof cl_signals / sizeof *cl_signals; i++)
			sigaction(cl_signals[i], &cl_old[i], NULL);
	cl.armed = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (size_t i = 0; i < cl.npaths; i++)
		free(cl.paths[i]);
	free(cl.paths);
	free(cl.tmpdir);
	free((void *)cl.pids);
	memset(&cl, 0, sizeof cl);
}

static int cl_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int cl_add(const char *fmt, ...)
{
	char buf[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof buf)
		return -1;
	/* The handler walks the list: keep it out while the list moves. */
	sigset_t set, old;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof cl_signals / sizeof *cl_signals; i++)
		sigaddset(&set, cl_signals[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	int rc = -1;
	char **p = realloc(cl.paths, (cl.npaths + 1) * sizeof *p);
	if (p) {
		cl.paths = p;
		if ((p[cl.npaths] = strdup(buf))) {
			cl.npaths++;
			rc = 0;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* ---- trust ---------------------------------------------------------------- */

/* The per-user meeting place of a node's ranks when the cache dir may not
 * be used.  Its name is known to everyone, so it is trusted only after the
 * checks of dir_open(): a dir someone else made there is refused. */
static void fallback_dir(char *buf, size_t len)
{
	const char *e = getenv("XDG_RUNTIME_DIR");
	if (e && *e == '/') {
		snprintf(buf, len, "%s/mpiwasm", e);
		return;
	}
	e = getenv("TMPDIR");
	snprintf(buf, len, "%s/mpiwasm-%ld", e && *e == '/' ? e : "/tmp", (long)geteuid());
}

/* Why st (of `what`) may not be trusted, or NULL: someone else could
 * write it.  Root and we may own a parent; a sticky parent (/tmp) lets
 * nobody else rename or remove what is ours in it. */
static const char *untrusted(const struct stat *st, bool parent, char *why, size_t len)
{
	if (st->st_uid != geteuid() && !(parent && st->st_uid == 0))
		snprintf(why, len, "owned by uid %ld", (long)st->st_uid);
	else if ((st->st_mode & 022) && !(parent && (st->st_mode & S_ISVTX)))
		snprintf(why, len, "writable by %s", st->st_mode & 002 ? "others" : "its group");
	else
		return NULL;
	return why;
}

/* Creates path and its missing parents (0700), opens it without following
 * a symlink in its last component and checks it as ssh checks ~/.ssh: a
 * directory of ours that nobody else may write, beneath parents that are
 * root's or ours and that nobody else may write (or sticky).  Returns the
 * descriptor, or -1 with the reason in why and *unsafe telling a refusal
 * from a failure. */
static int dir_open(const char *path, bool *unsafe, char *why, size_t whylen)
{
	struct stat st;
	char real[PATH_MAX];
	*unsafe = false;
	if (mkdir_p(path)) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		*unsafe = !lstat(path, &st) && S_ISLNK(st.st_mode);
		snprintf(why, whylen, "%s", *unsafe ? "a symlink" : strerror(e));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s", strerror(errno ? errno : ENOTDIR));
		close(fd);
		return -1;
	}
	if (untrusted(&st, false, why, whylen)) {
		*unsafe = true;
		close(fd);
		return -1;
	}
	/* The parents, by the path the kernel resolved for the open dir. */
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, real, sizeof real - 1);
	if (n <= 0 || (size_t)n >= sizeof real - 1 || real[0] != '/') {
		if (!realpath(path, real)) {
			snprintf(why, whylen, "%s", strerror(errno));
			close(fd);
			return -1;
		}
	} else {
		real[n] = 0;
	}
	for (char *s = strrchr(real, '/'); s; s = strrchr(real, '/')) {
		if (s == real)
			s[1] = 0;
		else
			*s = 0;
		if (stat(real, &st)) {
			snprintf(why, whylen, "%.300s: %s", real, strerror(errno));
			close(fd);
			return -1;
		}
		char how[64];
		if (untrusted(&st, true, how, sizeof how)) {
			snprintf(why, whylen, "parent %.300s %s", real, how);
			*unsafe = true;
			close(fd);
			return -1;
		}
		if (s == real)
			break;
	}
	return fd;
}

/* 0 if fd is a regular file of ours that nobody else may write; else -1
 * with the reason in why. */
static int file_trusted(int fd, const char *name, char *why, size_t whylen)
{
	struct stat st;
	char how[128];
	if (fstat(fd, &st)) {
		snprintf(why, whylen, "%.200s: %s", name, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%.200s is not a regular file", name);
		return -1;
	}
	if (untrusted(&st, false, how, sizeof how)) {
		snprintf(why, whylen, "%.200s is not safe (%s)", name, how);
		return -1;
	}
	return 0;
}

/* ---- the key -------------------------------------------------------------- */

const char *cache_dir(const cache_options *opt)
{
	static char buf[PATH_MAX];
	const char *e;
	if (opt && opt->dir && *opt->dir)
		snprintf(buf, sizeof buf, "%s", opt->dir);
	else if ((e = getenv("MPIWASM_CACHE_DIR")) && *e)
		snprintf(buf, sizeof buf, "%s", e);
	else if ((e = getenv("XDG_CACHE_HOME")) && *e)
		snprintf(buf, sizeof buf, "%s/mpiwasm", e);
	else if ((e = getenv("HOME")) && *e)
		snprintf(buf, sizeof buf, "%s/.cache/mpiwasm", e);
	else
		fallback_dir(buf, sizeof buf);
	return buf;
}

/* Path of an executable: as given if it has a '/', else from $PATH. */
static int find_program(const char *name, char *out, size_t outlen)
{
	if (strchr(name, '/')) {
		if (access(name, X_OK))
			return -1;
		snprintf(out, outlen, "%s", name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t k = strcspn(path, ":");
		struct stat st;
		if (snprintf(out, outlen, "%.*s/%s", (int)(k ? k : 1),
		             k ? path : ".", name) < (int)outlen &&
		    !stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
			return 0;
		path += k;
		if (*path == ':')
			path++;
	}
	errno = ENOENT;
	return -1;
}

/* `cc ARGS -v` output: from the cache dir when the compiler binary is the
 * same (path, mtime, size) as when it was recorded, else by running it.
 * ARGS are the words after the program in MPIWASM_CC ("ccache gcc"). */
static char *cc_identity(const char *dir, const char *cc, const char *ccargs,
                         char *err, size_t errlen)
{
	struct stat st;
	if (stat(cc, &st)) {
		setf(err, errlen, "cache: cannot stat C compiler %s: %s", cc, strerror(errno));
		return NULL;
	}
	char idfile[PATH_MAX + 64] = "";
	if (dir) {
		char buf[PATH_MAX + 128];
		uint8_t d[32];
		char hex[65];
		cache_sha256 s;
		int n = snprintf(buf, sizeof buf, "%s|%lld.%09ld|%lld|%llu|", cc,
		                 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		                 (long long)st.st_size, (unsigned long long)st.st_ino);
		cache_sha256_init(&s);
		cache_sha256_update(&s, buf, (size_t)n);
		cache_sha256_update(&s, ccargs, strlen(ccargs));
		cache_sha256_final(&s, d);
		cache_sha256_hex(d, hex);
		snprintf(idfile, sizeof idfile, "%s/cc-%.32s.id", dir, hex);
		char *id = read_text(idfile, NULL);
		if (id && !strncmp(id, "mpiwasm-ccid\n", 13))
			return id;
		free(id);
	}

	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC)) {
		setf(err, errlen, "cache: pipe: %s", strerror(errno));
		return NULL;
	}
	strvec av = { 0 };
	pid_t pid = -1;
	if (sv_push(&av, cc) || sv_split(&av, ccargs) || sv_push(&av, "-v"))
		errno = ENOMEM;
	else
		pid = spawn(av.v, pfd[1], NULL);
	sv_free(&av);
	close(pfd[1]);
	if (pid < 0) {
		setf(err, errlen, "cache: cannot run C compiler %s: %s", cc, strerror(errno));
		close(pfd[0]);
		return NULL;
	}
	size_t cap = 4096, n = 13;
	char *out = malloc(cap);
	if (out)
		memcpy(out, "mpiwasm-ccid\n", 13);
	for (;;) {
		if (out && cap - n < 1025) {
			char *t = realloc(out, cap * 2);
			if (!t) {
				free(out);
				out = NULL;
			} else {
				out = t;
				cap *= 2;
			}
		}
		char sink[1024];
		ssize_t r = read(pfd[0], out ? out + n : sink, 1024);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (out)
			n += (size_t)r;
	}
	close(pfd[0]);
	int ws = wait_pid(pid);
	if (!out) {
		setf(err, errlen, "cache: out of memory reading `%s -v`", cc);
		return NULL;
	}
	out[n] = 0;
	if (ws < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
		char how[64];
		describe_status(ws, how, sizeof how);
		setf(err, errlen, "cache: `%s -v` failed (%s)", cc, how);
		free(out);
		return NULL;
	}
	if (*idfile) {
		/* Best effort: a failure only costs the next start-up a `cc -v`. */
		char tmp[PATH_MAX + 96];
		snprintf(tmp, sizeof tmp, "%s.tmp%ld", idfile, (long)getpid());
		if (!write_file(tmp, out, n)) {
			if (rename(tmp, idfile))
				unlink(tmp);
		} else {
			unlink(tmp);
		}
	}
	return out;
}

/* The same, remembered for the process while the binary is unchanged
 * (test drivers load thousands of modules). */
static char *cc_identity_memo(const char *dir, const char *cc, const char *ccargs,
                              char *err, size_t errlen)
{
	static char *path, *args, *id;
	static struct stat was;
	struct stat st;
	if (path && id && args && !strcmp(path, cc) && !strcmp(args, ccargs) && !stat(cc, &st) &&
	    st.st_ino == was.st_ino && st.st_size == was.st_size &&
	    st.st_mtim.tv_sec == was.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == was.st_mtim.tv_nsec)
		return strdup(id);
	char *r = cc_identity(dir, cc, ccargs, err, errlen);
	if (r && !stat(cc, &st)) {
		free(path);
		free(args);
		free(id);
		path = strdup(cc);
		args = strdup(ccargs);
		id = strdup(r);
		was = st;
	}
	return r;
}

/* Lines of /proc/cpuinfo that name the CPU and its features. */
static void hash_cpu(cache_sha256 *s)
{
	static cache_sha256 memo;
	static bool have;
	if (have) {
		/* Continue from the remembered state: same bytes, same result. */
		uint8_t tmp[32];
		cache_sha256 c = memo;
		cache_sha256_final(&c, tmp);
		cache_sha256_update(s, tmp, sizeof tmp);
		return;
	}
	cache_sha256_init(&memo);
	hash_cpu_text(&memo);
	have = true;
	hash_cpu(s);
}

static void hash_cpu_text(cache_sha256 *s)
{
	static const char *keys[] = { "model name", "flags", "Features",
		"CPU implementer", "CPU architecture", "CPU variant", "CPU part",
		"cpu model", "isa", "cpu", NULL };
	bool seen[16] = { 0 };
	char *text = read_text("/proc/cpuinfo", NULL);
	struct utsname u;
	if (!uname(&u))
		cache_sha256_update(s, u.machine, strlen(u.machine) + 1);
	if (!text)
		return;
	for (char *line = text; *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		for (int k = 0; keys[k]; k++) {
			size_t kl = strlen(keys[k]);
			if (!seen[k] && len > kl && !strncmp(line, keys[k], kl) &&
			    (line[kl] == ' ' || line[kl] == '\t' || line[kl] == ':')) {
				seen[k] = true;
				cache_sha256_update(s, line, len);
				cache_sha256_update(s, "\n", 1);
			}
		}
		line += len + (end ? 1 : 0);
	}
	free(text);
}

/* ---- entries -------------------------------------------------------------- */

typedef struct entry {
	char dir[PATH_MAX];
	int dfd;                 /* dir, opened and checked (dir_open); -1: none */
	char so[PATH_MAX + 128], meta[PATH_MAX + 128], lock[PATH_MAX + 128];
	char tmpso[PATH_MAX + 128], tmpmeta[PATH_MAX + 128];
	char key[65];
	bool private_dir;        /* cache unusable: a temp dir removed after load */
} entry;

/* Where cache_lookup stands: FIRST checks the entry without the lock; a
 * hit hands out its descriptor (HIT_*), and a call after a hit means that
 * its object did not load; MISS: the caller builds (under the lock when
 * a dir could be written). */
enum lookup_phase { FIRST, HIT_UNLOCKED, HIT_LOCKED, MISS };

struct cache {
	cache_options opt;
	const char *filename;
	char ccpath[PATH_MAX], ccargs[PATH_MAX];
	char *ccid;
	unsigned jobs;
	char dirs[2][PATH_MAX];   /* the cache dir, then the per-user fallback */
	int ndirs, d;
	entry e;
	int lockfd;
	/* The key's hash before the module bytes (compiler, flags, CPU,
	 * translator): continued with a unit's C text, the key of its
	 * compiled object (unit_key). */
	cache_sha256 unit_base;
	size_t units_reused, units_total;   /* of the last cache_store */
	enum lookup_phase phase;
	char why[PATH_MAX + 64];  /* why the last entry checked is not usable */
	bool armed;               /* cache_store armed the cleanup list */
	bool nowait;              /* cache_lookup_nowait: a held lock is busy */
	const char *optflags;     /* CACHE_OPTFLAGS, or CACHE_TIER0_FLAGS */
};

/* Full paths for messages and the cleanup list; the files themselves are
 * reached by their base names beneath e->dfd. */
static void entry_paths(entry *e)
{
	snprintf(e->so, sizeof e->so, "%s/%s.so", e->dir, e->key);
	snprintf(e->meta, sizeof e->meta, "%s/%s.meta", e->dir, e->key);
	snprintf(e->lock, sizeof e->lock, "%s/%s.lock", e->dir, e->key);
	snprintf(e->tmpso, sizeof e->tmpso, "%s/.tmp-%s-%ld.so", e->dir, e->key, (long)getpid());
	snprintf(e->tmpmeta, sizeof e->tmpmeta, "%s/.tmp-%s-%ld.meta", e->dir, e->key, (long)getpid());
}

/* The identity of an installed file, as its record keeps it. */
static int file_identity(const struct stat *st, char *buf, size_t len)
{
	return snprintf(buf, len, "file %llu %llu %lld.%09ld %lld.%09ld",
	                (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
	                (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
	                (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/* 1: KEY.so matches KEY.meta, and *sofd is its descriptor, checked; 0:
 * missing; -1: damaged or not ours (why in `why`). */
static int entry_check(const entry *e, int *sofd, char *why, size_t whylen)
{
	struct stat st;
	char *meta = NULL;
	int rc = -1;
	int mfd = openat(e->dfd, base_name(e->meta), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int merr = errno;
	int fd = openat(e->dfd, base_name(e->so), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	*sofd = -1;
	if (mfd < 0 && merr == ENOENT && fd < 0 && errno == ENOENT) {
		rc = 0;
		goto out;
	}
	if (fd < 0) {
		snprintf(why, whylen, "%.200s: %s", base_name(e->so),
		         errno == ELOOP ? "a symlink" : strerror(errno));
		goto out;
	}
	if (file_trusted(fd, base_name(e->so), why, whylen))
		goto out;
	if (mfd < 0 || file_trusted(mfd, base_name(e->meta), why, whylen) ||
	    !(meta = read_fd(mfd, NULL))) {
		if (mfd < 0)
			snprintf(why, whylen, "no readable %.200s", base_name(e->meta));
		mfd = -1;
		goto out;
	}
	mfd = -1;   /* read_fd closed it */
	unsigned long long size;
	char sum[65], hex[65], ident[160], now_ident[160];
	if (sscanf(meta, CACHE_FORMAT "\nsize %llu\nsha256 %64[0-9a-f]\n%159[^\n]",
	           &size, sum, ident) != 3) {
		snprintf(why, whylen, "malformed %.200s", base_name(e->meta));
		goto out;
	}
	if (fstat(fd, &st) || (unsigned long long)st.st_size != size) {
		snprintf(why, whylen, "size %lld, recorded %llu",
		         (long long)st.st_size, size);
		goto out;
	}
	/* The file installed, untouched since: no need to read it. */
	file_identity(&st, now_ident, sizeof now_ident);
	if (strcmp(ident, now_ident) &&
	    (hash_file(fd, (size_t)size, hex) || strcmp(hex, sum))) {
		snprintf(why, whylen, "checksum mismatch");
		goto out;
	}
	*sofd = fd;
	fd = -1;
	rc = 1;
out:
	free(meta);
	if (mfd >= 0)
		close(mfd);
	if (fd >= 0)
		close(fd);
	return rc;
}

static void cache_log(const char *what, const char *key, const char *file)
{
	const char *log = getenv("MPIWASM_CACHE_LOG");
	if (!log || !*log)
		return;
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	char line[PATH_MAX + 128];
	int n = snprintf(line, sizeof line, "%s %s %ld %s\n", what, key,
	                 (long)getpid(), file);
	if (n > 0)
		write_all(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	close(fd);
}

/* Removes leftovers of builds that died without cleaning up (SIGKILL):
 * those of this key (called with its lock held, so none is live), and
 * those of other keys whose lock nobody holds now (a build takes the lock
 * before it creates anything). */
static void remove_stale_tmp(const entry *e)
{
	DIR *d = opendir(e->dir);
	if (!d)
		return;
	char prefix[80];
	snprintf(prefix, sizeof prefix, ".tmp-%s-", e->key);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strncmp(n, prefix, strlen(prefix))) {
			remove_tree_at(dirfd(d), n);
			continue;
		}
		if (strncmp(n, ".tmp-", 5) || strlen(n) < 5 + 64 + 1 || n[5 + 64] != '-')
			continue;
		char lock[80];
		snprintf(lock, sizeof lock, "%.64s.lock", n + 5);
		int fd = openat(dirfd(d), lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!flock(fd, LOCK_EX | LOCK_NB))
			remove_tree_at(dirfd(d), n);
		close(fd);   /* releases it */
	}
	closedir(d);
}

/* Opens path (not a symlink) and checks it as a cache entry: the
 * descriptor, or -1 with the reason in why. */
static int open_checked(int dfd, const char *path, char *why, size_t whylen)
{
	int fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%.200s: %s", base_name(path), strerror(errno));
		return -1;
	}
	if (file_trusted(fd, base_name(path), why, whylen)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- building ------------------------------------------------------------- */

/* Prints up to CC_OUTPUT_SHOWN bytes of a compiler log to stderr. */
static void show_log(const char *path, const char *what)
{
	size_t n = 0;
	char *s = read_text(path, &n);
	if (!s)
		return;
	if (n) {
		fprintf(stderr, "mpiwasm: output of %s:\n", what);
		fwrite(s, 1, n < CC_OUTPUT_SHOWN ? n : CC_OUTPUT_SHOWN, stderr);
		if (n > CC_OUTPUT_SHOWN)
			fprintf(stderr, "\n[... %zu more bytes]\n", n - CC_OUTPUT_SHOWN);
		else if (s[n - 1] != '\n')
			fputc('\n', stderr);
	}
	free(s);
}

static int run_logged(strvec *argv, char *const envp[], const char *log,
                      pid_t *slot, int *status)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	pid_t pid = spawn_into(slot, argv->v, fd, envp);
	close(fd);
	if (pid < 0)
		return -1;
	*status = wait_pid(pid);
	*slot = 0;
	return 0;
}

/* mkdtemp template of a build's private dir: .tmp-KEY-PID-XXXXXX in the
 * cache dir, where a build killed with SIGKILL leaves nothing that the
 * next build of the key or `cache clean` does not remove.  In $TMPDIR
 * instead when the cache dir is unusable, when MPIWASM_KEEP_TEMP asks to
 * keep the files, or when its file system lacks room for the generated C
 * and the objects (a full cache disk then still runs the module). */
static void private_dir_template(const entry *e, const xlate_output *xo,
                                 char *tdir, size_t len)
{
	const char *tmpbase = getenv("TMPDIR");
	bool in_cache = !e->private_dir && !getenv("MPIWASM_KEEP_TEMP");
	if (in_cache) {
		struct statvfs vfs;
		unsigned long long need = 64ull << 20;
		for (size_t i = 0; i < xo->nunits; i++)
			need += 4ull * xo->units[i].len;
		in_cache = !statvfs(e->dir, &vfs) &&
		           (unsigned long long)vfs.f_bavail * vfs.f_frsize >= need;
	}
	if (in_cache && strlen(e->dir) + sizeof e->key + 40 < len) {
		memcpy(tdir, e->dir, strlen(e->dir) + 1);
		snprintf(tdir + strlen(tdir), len - strlen(tdir), "/.tmp-%s-%ld-XXXXXX",
		         e->key, (long)getpid());
	} else {
		snprintf(tdir, len, "%s/mpiwasm-XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp");
	}
}

/* ---- compiled units --------------------------------------------------------
 *
 * Besides the modules' objects, the cache keeps each compiled unit, as
 * u-KEY.o with KEY a SHA-256 over the unit's C text and everything else
 * the module key covers but the module (compiler, flags, CPU, translator).
 * The translator cuts units that one function's change does not move
 * (xlate_options.stable_units), so a module rebuilt with a few functions
 * changed, or with only its data changed, translates to mostly the same
 * units: those are linked from the cache, and only the others compiled.
 * Installed like entries (a temp name, then rename), opened like them
 * (beneath the checked dir, no symlinks, ours and not writable by others),
 * and if a link with reused units fails, every unit is compiled again. */

static void unit_key(const cache *c, const xlate_unit *u, char hex[65])
{
	cache_sha256 s = c->unit_base;
	uint8_t dg[32];
	uint64_t n = u->len;
	cache_sha256_update(&s, "unit", 5);
	cache_sha256_update(&s, &n, sizeof n);
	cache_sha256_update(&s, u->text, u->len);
	cache_sha256_final(&s, dg);
	cache_sha256_hex(dg, hex);
}

/* Copies the cached object of a unit to `dst`: 1 if there was one, 0 if
 * not (or it cannot be used: then it is simply compiled again). */
static int unit_fetch(const entry *e, const char *key, const char *dst)
{
	char name[80], why[PATH_MAX];
	snprintf(name, sizeof name, "u-%s.o", key);
	int fd = open_checked(e->dfd, name, why, sizeof why);
	if (fd < 0)
		return 0;
	size_t len = 0;
	char *p = read_fd(fd, &len);   /* closes fd */
	int ok = p && len && write_file(dst, p, len) == 0;
	free(p);
	return ok;
}

/* Keeps a freshly compiled unit's object in the cache dir (best effort:
 * a unit that cannot be kept is compiled again next time). */
static void unit_keep(const entry *e, const char *key, const char *obj)
{
	size_t len = 0;
	char *p = read_text(obj, &len);
	if (!p || !len) {
		free(p);
		return;
	}
	char tmp[128], name[80];
	snprintf(tmp, sizeof tmp, ".tmp-u-%s-%ld.o", key, (long)getpid());
	snprintf(name, sizeof name, "u-%s.o", key);
	int fd = openat(e->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		int bad = write_all(fd, p, len) || fsync(fd);
		bad |= close(fd);
		if (bad || renameat(e->dfd, tmp, e->dfd, name))
			unlinkat(e->dfd, tmp, 0);
	}
	free(p);
}

/* qsort_r order of unit indices: longer C text first, then by index. */
static int unit_larger_first(const void *a, const void *b, void *arg)
{
	const xlate_output *xo = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	size_t li = xo->units[i].len, lj = xo->units[j].len;
	if (li != lj)
		return li > lj ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Compiles the translated units in parallel and links them into `built`
 * in a private temp dir: 0, -1 (system: I/O, processes, memory) or -2
 * (the compiler failed) with one line in err.  The caller has armed the
 * cleanup list; everything created is on it. */
static int build(cache *c, const xlate_output *xo, char *built, size_t builtlen,
                 char *err, size_t errlen)
{
	const entry *e = &c->e;
	const char *filename = c->filename, *name = base_name(filename);
	const char *cc = c->ccpath, *ccargs = c->ccargs;
	const cache_options *opt = &c->opt;
	unsigned jobs = c->jobs;
	strvec av = { 0 }, envp = { 0 };
	int rc = -1;
	char (*ukeys)[65] = NULL;
	bool *reused = NULL;
	size_t *order = NULL, nreused = 0;

	if (!xo->nunits) {
		setf(err, errlen, "%s: cache: the translator produced no C units", filename);
		return -2;
	}

	char tdir[PATH_MAX];
	private_dir_template(e, xo, tdir, sizeof tdir);
	if (!mkdtemp(tdir)) {
		setf(err, errlen, "%s: cache: cannot create a temp dir %s: %s",
		     filename, tdir, strerror(errno));
		goto done;
	}
	cl.tmpdir = strdup(tdir);
	cl.pids = calloc(xo->nunits, sizeof *cl.pids);
	if (!cl.tmpdir || !cl.pids)
		goto nomem;
	cl.npids = xo->nunits;
	/* The compiler's own temp files (gcc's ccXXXX.*, collect2's) go into
	 * the private dir, so that the cleanup removes them even when the
	 * compiler is killed; -pipe avoids most of them. */
	for (char **ev = environ; *ev; ev++)
		if (strncmp(*ev, "TMPDIR=", 7) && sv_push(&envp, *ev))
			goto nomem;
	{
		char tv[PATH_MAX + 8];
		snprintf(tv, sizeof tv, "TMPDIR=%s", tdir);
		if (sv_push(&envp, tv))
			goto nomem;
	}
	for (size_t i = 0; i < xo->nunits; i++)
		if (cl_add("%s/u%zu.c", tdir, i) || cl_add("%s/u%zu.o", tdir, i) ||
		    cl_add("%s/u%zu.log", tdir, i))
			goto nomem;
	if (cl_add("%s/link.log", tdir) || cl_add("%s/out.so", tdir))
		goto nomem;
	snprintf(built, builtlen, "%s/out.so", tdir);

	/* Units compiled before (by this module or another) come from the
	 * cache; the others are written out to be compiled. */
	bool keep_units = e->dfd >= 0 && !e->private_dir;
	ukeys = calloc(xo->nunits, sizeof *ukeys);
	reused = calloc(xo->nunits, sizeof *reused);
	order = calloc(xo->nunits, sizeof *order);
	if (!ukeys || !reused || !order)
		goto nomem;
	for (size_t i = 0; i < xo->nunits; i++) {
		char p[PATH_MAX + 32];
		unit_key(c, &xo->units[i], ukeys[i]);
		snprintf(p, sizeof p, "%s/u%zu.o", tdir, i);
		if (keep_units && unit_fetch(e, ukeys[i], p)) {
			reused[i] = true;
			nreused++;
			continue;
		}
		snprintf(p, sizeof p, "%s/u%zu.c", tdir, i);
		if (write_file(p, xo->units[i].text, xo->units[i].len)) {
			setf(err, errlen, "%s: cache: cannot write %s: %s",
			     filename, p, strerror(errno));
			goto done;
		}
	}

compile:;
	/* Compile: at most `jobs` compilers at a time, the largest units first
	 * (a compiler's time grows with its unit's text), so that the last
	 * one to finish is a small one and no core idles long at the end. */
	for (size_t i = 0; i < xo->nunits; i++)
		order[i] = i;
	qsort_r(order, xo->nunits, sizeof *order, unit_larger_first, (void *)xo);
	size_t next = 0, running = 0, failed_unit = SIZE_MAX;
	int failed_status = 0;
	while (next < xo->nunits || running) {
		while (next < xo->nunits && reused[order[next]])
			next++;
		while (next < xo->nunits && running < jobs && failed_unit == SIZE_MAX) {
			size_t u = order[next];
			char src[PATH_MAX + 32], obj[PATH_MAX + 32], logp[PATH_MAX + 32];
			snprintf(src, sizeof src, "%s/u%zu.c", tdir, u);
			snprintf(obj, sizeof obj, "%s/u%zu.o", tdir, u);
			snprintf(logp, sizeof logp, "%s/u%zu.log", tdir, u);
			sv_free(&av);
			if (sv_push(&av, cc) || sv_split(&av, ccargs) ||
			    sv_split(&av, XLATE_CFLAGS) ||
			    sv_split(&av, c->optflags) ||
			    sv_split(&av, opt->extra_cflags) || sv_push(&av, "-pipe") ||
			    sv_push(&av, "-c") ||
			    sv_push(&av, src) || sv_push(&av, "-o") || sv_push(&av, obj))
				goto nomem;
			int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			pid_t pid = fd < 0 ? -1 : spawn_into(&cl.pids[u], av.v, fd, envp.v);
			if (fd >= 0)
				close(fd);
			if (pid < 0) {
				setf(err, errlen, "%s: cache: cannot run C compiler %s: %s",
				     filename, cc, strerror(errno));
				goto done;
			}
			cl.pids[u] = pid;
			next++;
			running++;
			while (next < xo->nunits && reused[order[next]])
				next++;
		}
		if (!running)
			break;
		/* Poll our own children only: the embedder may have others
		 * (test drivers fork) that waitpid(-1) would steal. */
		bool reaped = false;
		for (size_t i = 0; i < xo->nunits; i++) {
			int st;
			if (cl.pids[i] <= 0 || waitpid(cl.pids[i], &st, WNOHANG) <= 0)
				continue;
			cl.pids[i] = 0;
			running--;
			reaped = true;
			if ((!WIFEXITED(st) || WEXITSTATUS(st)) && failed_unit == SIZE_MAX) {
				failed_unit = i;
				failed_status = st;
			} else if (keep_units && WIFEXITED(st) && !WEXITSTATUS(st)) {
				char obj[PATH_MAX + 32];
				snprintf(obj, sizeof obj, "%s/u%zu.o", tdir, i);
				unit_keep(e, ukeys[i], obj);
			}
		}
		if (!reaped)
			nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
	if (failed_unit != SIZE_MAX) {
		char logp[PATH_MAX + 32], what[PATH_MAX + 400], how[64];
		snprintf(logp, sizeof logp, "%s/u%zu.log", tdir, failed_unit);
		snprintf(what, sizeof what, "%s on unit %zu of %.200s", cc, failed_unit, name);
		show_log(logp, what);
		describe_status(failed_status, how, sizeof how);
		setf(err, errlen, "%s: cache: C compiler %s failed on generated unit %zu of %zu (%s)",
		     filename, cc, failed_unit, xo->nunits, how);
		rc = -2;
		goto done;
	}

	/* Link in the private dir: a full cache file system then shows as a
	 * precise write error when the object is copied in. */
	sv_free(&av);
	if (sv_push(&av, cc) || sv_split(&av, ccargs) || sv_push(&av, "-shared") ||
	    sv_split(&av, opt->extra_cflags) || sv_push(&av, "-pipe") || sv_push(&av, "-o") ||
	    sv_push(&av, built))
		goto nomem;
	for (size_t i = 0; i < xo->nunits; i++) {
		char obj[PATH_MAX + 32];
		snprintf(obj, sizeof obj, "%s/u%zu.o", tdir, i);
		if (sv_push(&av, obj))
			goto nomem;
	}
	char linklog[PATH_MAX + 32];
	int st;
	snprintf(linklog, sizeof linklog, "%s/link.log", tdir);
	if (run_logged(&av, envp.v, linklog, (pid_t *)&cl.pids[0], &st)) {
		setf(err, errlen, "%s: cache: cannot run C compiler %s to link: %s",
		     filename, cc, strerror(errno));
		goto done;
	}
	if ((!WIFEXITED(st) || WEXITSTATUS(st)) && nreused) {
		/* A kept unit that does not link (damaged, say): compile them
		 * all from their C and link again. */
		for (size_t i = 0; i < xo->nunits; i++) {
			char p[PATH_MAX + 32];
			snprintf(p, sizeof p, "%s/u%zu.c", tdir, i);
			if (reused[i] && write_file(p, xo->units[i].text, xo->units[i].len)) {
				setf(err, errlen, "%s: cache: cannot write %s: %s",
				     filename, p, strerror(errno));
				goto done;
			}
			reused[i] = false;
		}
		nreused = 0;
		goto compile;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char how[64], what[PATH_MAX + 400];
		snprintf(what, sizeof what, "%s -shared (link of %.200s)", cc, name);
		show_log(linklog, what);
		describe_status(st, how, sizeof how);
		setf(err, errlen, "%s: cache: linking the shared object failed (%s)",
		     filename, how);
		rc = -2;
		goto done;
	}
	rc = 0;
	goto done;
nomem:
	setf(err, errlen, "%s: cache: out of memory", filename);
done:
	if (rc == 0) {
		c->units_reused = nreused;
		c->units_total = xo->nunits;
	}
	sv_free(&av);
	sv_free(&envp);
	free(ukeys);
	free(reused);
	free(order);
	return rc;
}

/* Copies the built object into the cache dir as e->tmpso, renames it
 * into place, then writes its record (with the identity of the installed
 * file, known only after the rename, which changes its ctime); on failure
 * removes what it wrote and says why. */
static int install(const entry *e, const char *built, const char *source,
                   char *why, size_t whylen)
{
	int in = open(built, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), outfd = -1;
	struct stat st, ist;
	char hex[65], meta[PATH_MAX + 256], ident[160];
	const char *tso = base_name(e->tmpso), *tmeta = base_name(e->tmpmeta);
	void *p = MAP_FAILED;
	int rc = -1;
	bool placed = false;
	if (in < 0 || fstat(in, &st) || !st.st_size) {
		snprintf(why, whylen, "cannot read the built object: %s",
		         in < 0 ? strerror(errno) : "empty");
		goto out;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, in, 0);
	if (p == MAP_FAILED) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		goto out;
	}
	{
		cache_sha256 s;
		uint8_t d[32];
		cache_sha256_init(&s);
		cache_sha256_update(&s, p, (size_t)st.st_size);
		cache_sha256_final(&s, d);
		cache_sha256_hex(d, hex);
	}
	outfd = openat(e->dfd, tso, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (outfd < 0 || write_all(outfd, p, (size_t)st.st_size)) {
		snprintf(why, whylen, "writing %.200s: %s", tso, strerror(errno));
		goto out;
	}
	/* A reader that sees the object before its record takes the lock,
	 * which we hold, and looks again. */
	if (renameat(e->dfd, tso, e->dfd, base_name(e->so))) {
		snprintf(why, whylen, "rename: %s", strerror(errno));
		goto out;
	}
	placed = true;
	if (fstat(outfd, &ist) || close(outfd)) {
		snprintf(why, whylen, "writing %.200s: %s", base_name(e->so), strerror(errno));
		outfd = -1;
		goto out;
	}
	outfd = -1;
	file_identity(&ist, ident, sizeof ident);
	int n = snprintf(meta, sizeof meta, CACHE_FORMAT "\nsize %lld\nsha256 %s\n%s\nsource %s\n",
	                 (long long)st.st_size, hex, ident, base_name(source));
	int mfd = openat(e->dfd, tmeta, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	int wrc = mfd < 0 ? -1 : write_all(mfd, meta, (size_t)n);
	if (mfd >= 0 && close(mfd))
		wrc = -1;
	if (wrc) {
		snprintf(why, whylen, "writing %.200s: %s", tmeta, strerror(errno));
		goto out;
	}
	if (renameat(e->dfd, tmeta, e->dfd, base_name(e->meta))) {
		snprintf(why, whylen, "rename: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (outfd >= 0)
		close(outfd);
	if (p != MAP_FAILED)
		munmap(p, (size_t)st.st_size);
	if (in >= 0)
		close(in);
	if (rc) {
		unlinkat(e->dfd, tso, 0);
		unlinkat(e->dfd, tmeta, 0);
		if (placed)
			unlinkat(e->dfd, base_name(e->so), 0);
	}
	return rc;
}

/* One line saying why a cache dir is not used. */
static void warn_dir(const char *dir, bool unsafe, const char *why)
{
	fprintf(stderr, "mpiwasm: warning: cache dir %s is not %s (%s); using a private "
	        "directory\n", dir, unsafe ? "safe" : "usable", why);
}

/* Makes dir the entry's cache dir if it is safe (dir_open): 0, or -1
 * after the warning. */
static int entry_set_dir(entry *e, const char *dir)
{
	char why[PATH_MAX + 64];
	bool unsafe;
	int fd = dir_open(dir, &unsafe, why, sizeof why);
	if (fd < 0) {
		warn_dir(dir, unsafe, why);
		return -1;
	}
	if (e->dfd >= 0)
		close(e->dfd);
	e->dfd = fd;
	snprintf(e->dir, sizeof e->dir, "%s", dir);
	if (*e->key)
		entry_paths(e);
	return 0;
}

/* ---- the loader's session ------------------------------------------------ */

const char *cache_key(const cache *c)
{
	return c->e.key;
}

int cache_begin(cache **cp, const uint8_t *bytes, size_t size, const char *filename,
                const cache_options *opt, char *err, size_t errlen)
{
	static const cache_options defaults = { 0 };
	cache *c = calloc(1, sizeof *c);
	*cp = NULL;
	if (!c) {
		setf(err, errlen, "%s: cache: out of memory", filename);
		return -1;
	}
	c->opt = opt ? *opt : defaults;
	opt = &c->opt;
	c->filename = filename;
	c->e.dfd = -1;
	c->lockfd = -1;

	const char *ccspec = opt->cc;
	char t0path[PATH_MAX];
	c->optflags = opt->tier0 ? CACHE_TIER0_FLAGS : CACHE_OPTFLAGS;
	if (opt->tier0 && !opt->tier0_same_cc && (!ccspec || !*ccspec)) {
		ccspec = getenv("MPIWASM_TIER0_CC");
		for (size_t i = 0; (!ccspec || !*ccspec) && i < sizeof tier0_ccs / sizeof *tier0_ccs;
		     i++)
			if (!find_program(tier0_ccs[i], t0path, sizeof t0path))
				ccspec = tier0_ccs[i];
	}
	if (!ccspec || !*ccspec)
		ccspec = getenv("MPIWASM_CC");
	if (!ccspec || !*ccspec)
		ccspec = "cc";
	/* "ccache gcc": the program, then words that go before every flag. */
	char ccname[PATH_MAX];
	ccspec += strspn(ccspec, " \t");
	size_t pl = strcspn(ccspec, " \t");
	snprintf(ccname, sizeof ccname, "%.*s", (int)pl, ccspec);
	snprintf(c->ccargs, sizeof c->ccargs, "%s", ccspec + pl);
	if (find_program(ccname, c->ccpath, sizeof c->ccpath)) {
		setf(err, errlen, "%s: cache: C compiler '%s' not found%s", filename,
		     ccname, strchr(ccname, '/') ? "" : " in PATH (set MPIWASM_CC)");
		cache_end(c);
		return -1;
	}
	c->jobs = opt->jobs;
	if (!c->jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		c->jobs = n > 0 ? (unsigned)n : 1;
	}

	/* The cache dir if it is safe, else the per-user fallback if that is;
	 * else no dir (each process compiles for itself). */
	c->ndirs = 2;
	snprintf(c->dirs[0], sizeof c->dirs[0], "%s", cache_dir(opt));
	fallback_dir(c->dirs[1], sizeof c->dirs[1]);
	if (!strcmp(c->dirs[0], c->dirs[1]))
		c->ndirs = 1;
	while (c->d < c->ndirs && entry_set_dir(&c->e, c->dirs[c->d]))
		c->d++;

	c->ccid = cc_identity_memo(c->e.dfd >= 0 ? c->e.dir : NULL, c->ccpath, c->ccargs,
	                           err, errlen);
	if (!c->ccid) {
		cache_end(c);
		return -1;
	}
	cache_sha256 s;
	uint8_t dg[32];
	uint64_t sz = size;
	uint32_t abi = RT_CODE_ABI;
	const char *parts[] = { CACHE_FORMAT, XLATE_VERSION, XLATE_SOURCE_HASH, XLATE_CFLAGS,
		c->optflags, opt->extra_cflags ? opt->extra_cflags : "",
		c->ccpath, c->ccargs, c->ccid,
		opt->no_loop_versioning ? "no-loop-versioning" : "loop-versioning",
		opt->terminal_traps ? "terminal-traps" : "exact-traps",
		opt->tier0 ? "tier0" : "" };
	cache_sha256_init(&s);
	cache_sha256_update(&s, &abi, sizeof abi);
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		cache_sha256_update(&s, parts[i], strlen(parts[i]) + 1);
	hash_cpu(&s);
	c->unit_base = s;
	cache_sha256_update(&s, &sz, sizeof sz);
	cache_sha256_update(&s, bytes, size);
	cache_sha256_final(&s, dg);
	cache_sha256_hex(dg, c->e.key);
	entry_paths(&c->e);
	*cp = c;
	return 0;
}

/* Opens the lock file of the current dir, which a build needs: 0, or -1
 * with the reason in c->why (the dir cannot be written). */
static int open_lock(cache *c)
{
	entry *e = &c->e;
	if (c->lockfd >= 0)
		return 0;   /* opened by a lookup that found the lock busy */
	if (faccessat(e->dfd, ".", W_OK | X_OK, AT_EACCESS)) {
		snprintf(c->why, sizeof c->why, "%s", strerror(errno));
		return -1;
	}
	c->lockfd = openat(e->dfd, base_name(e->lock), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	                   0600);
	if (c->lockfd < 0) {
		snprintf(c->why, sizeof c->why, "%.200s: %s", base_name(e->lock), strerror(errno));
		return -1;
	}
	if (file_trusted(c->lockfd, base_name(e->lock), c->why, sizeof c->why)) {
		close(c->lockfd);
		c->lockfd = -1;
		return -1;
	}
	return 0;
}

int cache_lookup(cache *c, const char *rejected, int *fd, double *wait,
                 char *err, size_t errlen)
{
	entry *e = &c->e;
	int checked = 1;
	*fd = -1;
	*wait = 0;
	if (rejected)
		snprintf(c->why, sizeof c->why, "%s", rejected);
	switch (c->phase) {
	case FIRST:
	case HIT_UNLOCKED:
		/* A verified entry loads without the lock; a build needs the
		 * lock, i.e. a dir we can write: else the next dir, where the
		 * ranks of this node meet (one builds, the others wait). */
		while (e->dfd >= 0) {
			if (c->phase == FIRST && entry_check(e, fd, c->why, sizeof c->why) == 1) {
				c->phase = HIT_UNLOCKED;
				return 1;
			}
			c->phase = FIRST;
			if (!open_lock(c))
				break;
			warn_dir(e->dir, false, c->why);
			close(e->dfd);
			e->dfd = -1;
			while (++c->d < c->ndirs && entry_set_dir(e, c->dirs[c->d]))
				;
		}
		if (c->lockfd < 0) {
			e->private_dir = true;
			c->phase = MISS;
			return 0;
		}
		double t0 = now();
		while (flock(c->lockfd, LOCK_EX | (c->nowait ? LOCK_NB : 0)))
			if (errno == EWOULDBLOCK && c->nowait) {
				return 2;   /* phase FIRST: a later lookup waits */
			} else if (errno != EINTR) {
				setf(err, errlen, "%s: cache: flock %s: %s", c->filename,
				     e->lock, strerror(errno));
				return -1;
			}
		*wait = now() - t0;
		/* Someone else may have built it while we waited. */
		checked = entry_check(e, fd, c->why, sizeof c->why);
		if (checked == 1) {
			c->phase = HIT_LOCKED;
			return 1;
		}
		break;
	case HIT_LOCKED:   /* its object did not load */
		break;
	case MISS:
		return 0;
	}
	c->phase = MISS;
	if (checked != 0) {   /* damaged, not ours, or its object did not load */
		if (!c->opt.quiet)
			fprintf(stderr, "mpiwasm: cache entry %.16s for %s is damaged "
			        "(%s); rebuilding it\n", e->key, base_name(c->filename), c->why);
		cache_log("damaged", e->key, c->filename);
		unlinkat(e->dfd, base_name(e->so), 0);
		unlinkat(e->dfd, base_name(e->meta), 0);
	}
	remove_stale_tmp(e);
	return 0;
}

int cache_lookup_nowait(cache *c, int *fd, char *err, size_t errlen)
{
	double wait;
	c->nowait = true;
	int rc = cache_lookup(c, NULL, fd, &wait, err, errlen);
	c->nowait = false;
	return rc;
}

bool cache_is_private(const cache *c)
{
	return c->e.private_dir;
}

const char *cache_compiler(const cache *c)
{
	return base_name(c->ccpath);
}

void cache_miss(const cache *c)
{
	if (!c->opt.quiet)
		fprintf(stderr, c->e.private_dir ? "mpiwasm: compiling %s\n" :
		        "mpiwasm: compiling %s (first run; later runs use the cache)\n",
		        base_name(c->filename));
	cache_log("compile", c->e.key, c->filename);
}

/* Says where MPIWASM_KEEP_TEMP kept the build's files, then removes them
 * (unless kept) and restores the signal handlers. */
static void cache_disarm(cache *c)
{
	bool keep = getenv("MPIWASM_KEEP_TEMP") != NULL;
	if (keep && cl.tmpdir)
		fprintf(stderr, "mpiwasm: kept the generated C in %s\n", cl.tmpdir);
	cl_disarm(keep);
	c->armed = false;
}

int cache_store(cache *c, const xlate_output *xo, int *fd, char *err, size_t errlen)
{
	entry *e = &c->e;
	char built[PATH_MAX + 32] = "";
	*fd = -1;
	if (!e->private_dir && (cl_add("%s", e->tmpso) || cl_add("%s", e->tmpmeta))) {
		setf(err, errlen, "%s: cache: out of memory", c->filename);
		cl_disarm(false);
		return -1;
	}
	cl_arm();
	c->armed = true;
	int rc = build(c, xo, built, sizeof built, err, errlen);
	if (rc) {
		cache_disarm(c);
		return rc;
	}
	if (!e->private_dir) {
		if (!install(e, built, c->filename, c->why, sizeof c->why))
			*fd = open_checked(e->dfd, base_name(e->so), c->why, sizeof c->why);
		else
			fprintf(stderr, "mpiwasm: warning: cannot store the compiled %s in the "
			        "cache %s (%s); running from a private copy\n",
			        base_name(c->filename), e->dir, c->why);
	}
	if (*fd < 0)
		*fd = open_checked(AT_FDCWD, built, c->why, sizeof c->why);
	if (*fd < 0) {
		setf(err, errlen, "%s: cache: the freshly built object does not load: %s",
		     c->filename, c->why);
		return -2;
	}
	return 0;
}

void cache_units(const cache *c, size_t *reused, size_t *total)
{
	*reused = c->units_reused;
	*total = c->units_total;
}

void cache_end(cache *c)
{
	if (!c)
		return;
	if (c->armed)
		cache_disarm(c);
	if (c->lockfd >= 0)
		close(c->lockfd);   /* releases the flock */
	if (c->e.dfd >= 0)
		close(c->e.dfd);
	free(c->ccid);
	free(c);
}

/* ---- listing and cleaning ------------------------------------------------- */

static bool is_key(const char *s, size_t n)
{
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool has_suffix(const char *s, const char *suf, size_t *stem)
{
	size_t n = strlen(s), k = strlen(suf);
	if (n < k || strcmp(s + n - k, suf))
		return false;
	*stem = n - k;
	return true;
}

int cache_list(const cache_options *opt,
               void (*fn)(void *ud, const cache_entry_info *e), void *ud,
               char *err, size_t errlen)
{
	const char *dir = cache_dir(opt);
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		setf(err, errlen, "cache: cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	int count = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t stem;
		if (!has_suffix(de->d_name, ".so", &stem) || !is_key(de->d_name, stem))
			continue;
		cache_entry_info info;
		struct stat st;
		char meta[80], src[256] = "";
		memset(&info, 0, sizeof info);
		memcpy(info.key, de->d_name, 64);
		info.key[64] = 0;
		if (fstatat(dirfd(d), de->d_name, &st, 0))
			continue;
		info.size = (uint64_t)st.st_size;
		info.mtime = st.st_mtime;
		snprintf(meta, sizeof meta, "%s.meta", info.key);
		int mfd = openat(dirfd(d), meta, O_RDONLY | O_CLOEXEC);
		if (mfd >= 0) {
			char buf[1024];
			ssize_t n = read(mfd, buf, sizeof buf - 1);
			close(mfd);
			if (n > 0) {
				buf[n] = 0;
				char *p = strstr(buf, "\nsource ");
				info.complete = !strncmp(buf, CACHE_FORMAT "\n", strlen(CACHE_FORMAT) + 1);
				if (p)
					sscanf(p + 8, "%255[^\n]", src);
			}
		}
		info.source = src;
		count++;
		if (fn)
			fn(ud, &info);
	}
	closedir(d);
	return count;
}

/* The collective rules of `mpiwasm tune` in DIR/coll (src/coll/rules.c:
 * NAME.rules, NAME.rules.model and their NAME...tmpPID while written),
 * then the directory itself if that emptied it. */
static void clean_coll(int dfd, int *failed, int *fail_errno)
{
	int cfd = openat(dfd, "coll", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cfd < 0)
		return;
	DIR *c = fdopendir(cfd);
	if (!c) {
		close(cfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(c))) {
		size_t stem;
		const char *n = de->d_name;
		if (!(has_suffix(n, ".rules", &stem) || has_suffix(n, ".rules.model", &stem) ||
		      strstr(n, ".rules.tmp") || strstr(n, ".rules.model.tmp")))
			continue;
		if (unlinkat(dirfd(c), n, 0)) {
			(*failed)++;
			*fail_errno = errno;
		}
	}
	closedir(c);
	unlinkat(dfd, "coll", AT_REMOVEDIR);   /* stays if something else is in it */
}

int cache_clean(const cache_options *opt, char *err, size_t errlen)
{
	const char *dir = cache_dir(opt);
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		setf(err, errlen, "cache: cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	int count = 0, failed = 0, fail_errno = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t stem;
		bool ours = (has_suffix(n, ".so", &stem) && is_key(n, stem)) ||
		            (has_suffix(n, ".meta", &stem) && is_key(n, stem)) ||
		            (has_suffix(n, ".lock", &stem) && is_key(n, stem)) ||
		            (!strncmp(n, "u-", 2) && has_suffix(n, ".o", &stem) &&
		             is_key(n + 2, stem - 2)) ||
		            (!strncmp(n, "cc-", 3) && strstr(n, ".id")) ||
		            !strncmp(n, ".tmp-", 5);
		if (!ours)
			continue;
		if (!strncmp(n, ".tmp-", 5) && de->d_type == DT_DIR) {
			remove_tree_at(dirfd(d), n);
			continue;
		}
		if (unlinkat(dirfd(d), n, 0)) {
			failed++;
			fail_errno = errno;
			continue;
		}
		if (has_suffix(n, ".so", &stem) && is_key(n, stem))
			count++;
	}
	clean_coll(dirfd(d), &failed, &fail_errno);
	closedir(d);
	if (failed) {
		setf(err, errlen, "cache: could not remove %d files from %s: %s",
		     failed, dir, strerror(fail_errno));
		return -1;
	}
	return count;
}
