/* Escape attempts through wasi-libc, run only under mpiwasm with the
 * current directory granted as ".": every attempt must be refused.  The
 * runner plants the symlinks (abs_link, rel_link, dir_link, chain1,
 * sub/up, proc_root, dangle) and checks the host around the grant. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

static int n, leaks;

static void attempt(const char *name, int r)
{
	n++;
	if (r >= 0) {
		leaks++;
		printf("LEAK %s\n", name);
	} else {
		printf("denied %s: %s\n", name, errname(errno));
	}
}

static int rd(const char *p)
{
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return -1;
	char b[64] = { 0 };
	read(fd, b, sizeof b - 1);
	close(fd);
	if (strstr(b, "TOPSECRET"))
		return 1;
	errno = 0;
	return -1;   /* opened something, but not the secret */
}

int main(void)
{
	struct stat st;
	char buf[256];
	attempt("open /etc/passwd", rd("/etc/passwd"));
	attempt("open ../outside/secret.txt", rd("../outside/secret.txt"));
	attempt("open sub/../../outside/secret.txt", rd("sub/../../outside/secret.txt"));
	attempt("open ./../../../../etc/passwd", rd("./../../../../etc/passwd"));
	attempt("open abs_link", rd("abs_link"));
	attempt("open rel_link", rd("rel_link"));
	attempt("open dir_link/secret.txt", rd("dir_link/secret.txt"));
	attempt("open chain1/secret.txt", rd("chain1/secret.txt"));
	attempt("open sub/up/secret.txt", rd("sub/up/secret.txt"));
	attempt("open proc_root/etc/passwd", rd("proc_root/etc/passwd"));
	attempt("open /proc/self/root/etc/passwd", rd("/proc/self/root/etc/passwd"));
	attempt("open /proc/self/cwd/../outside/secret.txt", rd("/proc/self/cwd/../outside/secret.txt"));
	attempt("create dir_link/new", open("dir_link/new", O_CREAT | O_WRONLY, 0644));
	attempt("create through dangle", open("dangle", O_CREAT | O_WRONLY, 0644));
	attempt("truncate rel_link", open("rel_link", O_WRONLY | O_TRUNC));
	attempt("stat ../outside", stat("../outside", &st));
	attempt("stat abs_link", stat("abs_link", &st));
	attempt("opendir ..", opendir("..") ? 0 : -1);
	attempt("opendir dir_link", opendir("dir_link") ? 0 : -1);
	attempt("mkdir ../newdir", mkdir("../newdir", 0755));
	attempt("mkdir dir_link/newdir", mkdir("dir_link/newdir", 0755));
	attempt("unlink dir_link/secret.txt", unlink("dir_link/secret.txt"));
	attempt("rmdir dir_link/dir", rmdir("dir_link/dir"));
	int fd = open("mine.txt", O_CREAT | O_WRONLY, 0644);
	close(fd);
	attempt("rename out", rename("mine.txt", "../outside/mine.txt"));
	attempt("rename out via link", rename("mine.txt", "dir_link/mine.txt"));
	attempt("rename in", rename("dir_link/secret.txt", "got.txt"));
	attempt("link out", link("mine.txt", "dir_link/planted"));
	attempt("link in", link("../outside/secret.txt", "stolen"));
	attempt("link in via abs_link target", link("dir_link/secret.txt", "stolen2"));
	attempt("symlink in outside", symlink("x", "dir_link/evil"));
	attempt("readlink outside", (int)readlink("dir_link/../outside/lnk", buf, sizeof buf));
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	attempt("utimes follow rel_link", utimensat(AT_FDCWD, "rel_link", ts, 0));
	attempt("truncate by path via link", truncate("rel_link", 0));
	attempt("symlink to /", symlink("/", "abs_made"));
	attempt("symlink to /etc/passwd", symlink("/etc/passwd", "abs_made"));
	attempt("symlink ../outside/secret.txt", symlink("../outside/secret.txt", "rel_made"));
	attempt("symlink sub/../../outside", symlink("sub/../../outside", "rel_made"));
	attempt("symlink ../../outside in sub", symlink("../../outside", "sub/rel_made"));
	symlink("../outside/secret.txt", "made_link");
	attempt("open a link the module made", rd("made_link"));
	unlink("made_link");
	unlink("mine.txt");
	attempt("read fd 40 (never granted)", (int)read(40, buf, 1));
	attempt("openat fd 41 (never granted)", openat(41, "secret.txt", O_RDONLY));
	(void)failures;
	printf("%d attempts, %d leaks\n", n, leaks);
	return leaks != 0;
}
