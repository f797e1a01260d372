/* posix.c - the POSIX procedures real codes call that wasi-libc leaves out
 * or hides, each with the result toolchain/README.md documents for
 * mpiwasm.  Prints one line per check; exit status 0 when all passed.
 * usage: posix DIR   (DIR granted with --dir DIR, empty, writable) */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/times.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* What old HPC codes still write: a compile error with wasi-libc's own
 * headers (errno is declared thread-local there). */
extern int errno;

static int failures;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) { got_usr1 = sig; }

static char dirpath[512];
static const char *at(const char *name)
{
	static char buf[4][600];
	static int i;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s/%s", dirpath, name);
	return buf[i];
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: posix DIR\n");
		return 2;
	}
	snprintf(dirpath, sizeof dirpath, "%s", argv[1]);
	char want[700], *r;

	/* statfs/fstatfs/statvfs: block size 4096, counts 0 (unknown). */
	struct statfs sf;
	struct statvfs sv;
	memset(&sf, 0xff, sizeof sf);
	check(statfs(dirpath, &sf) == 0 && sf.f_bsize == 4096 && sf.f_frsize == 4096 &&
	      sf.f_blocks == 0 && sf.f_bfree == 0 && sf.f_bavail == 0 && sf.f_files == 0 &&
	      sf.f_type == 0 && sf.f_namelen == 255, "statfs: f_bsize 4096, counts 0, f_namelen 255");
	int fd = open(at("f.txt"), O_CREAT | O_RDWR | O_TRUNC, 0644);
	check(fd >= 0 && write(fd, "hello mmap\n", 11) == 11, "open and write a file");
	memset(&sf, 0xff, sizeof sf);
	check(fstatfs(fd, &sf) == 0 && sf.f_bsize == 4096 && sf.f_blocks == 0, "fstatfs");
	errno = 0;
	check(statfs(at("missing"), &sf) == -1 && errno == ENOENT, "statfs of a missing path: ENOENT");
	check(statvfs(dirpath, &sv) == 0 && sv.f_bsize == 4096 && sv.f_blocks == 0 &&
	      sv.f_namemax == 255 && fstatvfs(fd, &sv) == 0, "statvfs and fstatvfs");

	/* realpath within the sandbox's namespace. */
	check(mkdir(at("a"), 0755) == 0 && mkdir(at("a/b"), 0755) == 0, "mkdir a/b");
	int f2 = open(at("a/b/file"), O_CREAT | O_WRONLY, 0644);
	check(f2 >= 0 && close(f2) == 0, "create a/b/file");
	check(symlink("b", at("a/link")) == 0, "symlink a/link -> b");
	check(symlink("loop", at("loop")) == 0, "symlink loop -> loop");
	snprintf(want, sizeof want, "/%s/a/b/file", dirpath);
	char buf[4096];
	r = realpath(at("a/./b/../b//file"), buf);
	check(r == buf && strcmp(buf, want) == 0, "realpath folds . and .. into /DIR/a/b/file");
	printf("     realpath -> %s\n", r ? r : "(null)");
	r = realpath(at("a/link/file"), NULL);
	check(r && strcmp(r, want) == 0, "realpath follows a symlink, mallocs with NULL");
	free(r);
	errno = 0;
	check(!realpath(at("a/missing"), buf) && errno == ENOENT, "realpath of a missing file: ENOENT");
	errno = 0;
	check(!realpath(at("a/b/file/x"), buf) && errno == ENOTDIR, "realpath through a file: ENOTDIR");
	errno = 0;
	check(!realpath(at("loop"), buf) && errno == ELOOP, "realpath of a symlink loop: ELOOP");
	errno = 0;
	check(!realpath("/no-such-grant/x", buf) && errno == ENOTCAPABLE,
	      "realpath outside every grant: ENOTCAPABLE");
	char cwd[512];
	snprintf(want, sizeof want, "/%s/a/b", dirpath);
	check(chdir(at("a")) == 0 && (r = realpath("link", buf)) && strcmp(r, want) == 0 &&
	      getcwd(cwd, sizeof cwd) != NULL, "realpath of a relative path after chdir");

	/* Fixed ids. */
	check(getuid() == 65534 && geteuid() == 65534 && getgid() == 65534 && getegid() == 65534,
	      "getuid/geteuid/getgid/getegid: 65534");

	/* Nothing the sandbox cannot do pretends to have been done. */
	errno = 0;
	check(mknod(at("node"), S_IFIFO | 0644, 0) == -1 && errno == ENOSYS, "mknod: ENOSYS");
	errno = 0;
	check(flock(fd, LOCK_EX) == -1 && errno == ENOSYS, "flock(LOCK_EX): ENOSYS");
	errno = 0;
	check(flock(fd, LOCK_UN | LOCK_NB) == -1 && errno == ENOSYS, "flock(LOCK_UN|LOCK_NB): ENOSYS");
	errno = 0;
	check(flock(999, LOCK_SH) == -1 && errno == EBADF, "flock of a closed fd: EBADF");
	errno = 0;
	check(flock(fd, 0) == -1 && errno == EINVAL, "flock with no operation: EINVAL");
	errno = 0;
	check(lockf(fd, F_LOCK, 0) == -1 && errno == ENOSYS && F_TLOCK == 2, "lockf: ENOSYS");
	errno = 0;
	check(lockf(999, F_TEST, 0) == -1 && errno == EBADF, "lockf of a closed fd: EBADF");
	errno = 0;
	check(system("ls") == -1 && errno == ENOSYS, "system(cmd): -1, ENOSYS");
	check(system(NULL) == 0, "system(NULL): 0 (no shell)");

	/* wasi-libc's own emulations, linked by default. */
	char *m = (char *)mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int zero = m != MAP_FAILED;
	for (int i = 0; zero && i < (1 << 20); i += 4096)
		zero = m[i] == 0;
	if (m != MAP_FAILED)
		memset(m, 7, 1 << 20);
	check(zero && munmap(m, 1 << 20) == 0, "mmap anonymous 1 MiB, zeroed, munmap");
	char *fm = (char *)mmap(NULL, 11, PROT_READ, MAP_PRIVATE, fd, 0);
	check(fm != MAP_FAILED && memcmp(fm, "hello mmap\n", 11) == 0 && munmap(fm, 11) == 0,
	      "mmap of a file, MAP_PRIVATE");
	check(getpid() == 42, "getpid: 42");
	signal(SIGUSR1, on_usr1);
	check(raise(SIGUSR1) == 0 && got_usr1 == SIGUSR1, "signal/raise call the handler");
	signal(SIGINT, SIG_IGN);
	check(raise(SIGINT) == 0, "raise of an ignored signal");
	clock_t c0 = clock();
	volatile double x = 0;
	for (int i = 0; i < 20000000; i++)
		x += i * 0.5;
	clock_t c1 = clock();
	struct tms t;
	struct rusage ru;
	check(c0 != (clock_t)-1 && c1 > c0, "clock: process CPU time advances");
	check(times(&t) != (clock_t)-1 && getrusage(RUSAGE_SELF, &ru) == 0 &&
	      (ru.ru_utime.tv_sec > 0 || ru.ru_utime.tv_usec > 0), "times and getrusage");

	/* extern int errno; is the errno libc sets. */
	errno = 0;
	check(open(at("missing/x"), O_RDONLY) == -1 && errno == ENOENT, "extern int errno sees ENOENT");
	close(fd);
	printf("posix: %d failures\n", failures);
	return failures != 0;
}
