/* POSIX file APIs: open flags, read/write, seek/tell, pread/pwrite,
 * truncate, allocate, sync, stat, links, symlinks, rename, timestamps. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	char buf[256];
	int fd = open("a.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK("open creat", fd >= 0);
	CHECK("write", write(fd, "0123456789", 10) == 10);
	CHECK("lseek cur", lseek(fd, 0, SEEK_CUR) == 10);
	CHECK("lseek set", lseek(fd, 2, SEEK_SET) == 2);
	CHECK("read", read(fd, buf, 3) == 3 && memcmp(buf, "234", 3) == 0);
	CHECK("lseek end", lseek(fd, -1, SEEK_END) == 9);
	CHECK("pwrite", pwrite(fd, "AB", 2, 4) == 2);
	CHECK("pread", pread(fd, buf, 10, 0) == 10 && memcmp(buf, "0123AB6789", 10) == 0);
	CHECK("offset kept", lseek(fd, 0, SEEK_CUR) == 9);
	CHECK("pwrite past end", pwrite(fd, "Z", 1, 20) == 1);
	struct stat st;
	CHECK("fstat", fstat(fd, &st) == 0 && st.st_size == 21 && S_ISREG(st.st_mode));
	CHECK("ftruncate", ftruncate(fd, 5) == 0 && fstat(fd, &st) == 0 && st.st_size == 5);
	CHECK("posix_fallocate", posix_fallocate(fd, 0, 4096) == 0 && fstat(fd, &st) == 0 && st.st_size == 4096);
	CHECK("posix_fadvise", posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) == 0);
	CHECK("fsync", fsync(fd) == 0);
	CHECK("fdatasync", fdatasync(fd) == 0);
	FAILS("lseek negative", (int)lseek(fd, -100, SEEK_SET), EINVAL);
	CHECK("close", close(fd) == 0);
	FAILS("close again", close(fd), EBADF);
	FAILS("read closed", (int)read(fd, buf, 1), EBADF);

	FAILS("open excl", open("a.txt", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
	FAILS("open missing", open("nope.txt", O_RDONLY), ENOENT);
	FAILS("open file as dir", open("a.txt/x", O_RDONLY), ENOTDIR);
	CHECK("mkdir", mkdir("d", 0755) == 0);
	FAILS("mkdir again", mkdir("d", 0755), EEXIST);
	FAILS("open dir for write", open("d", O_WRONLY), EISDIR);
	fd = open("d/b.txt", O_CREAT | O_WRONLY | O_APPEND, 0644);
	CHECK("open append", fd >= 0 && write(fd, "x", 1) == 1);
	CHECK("fcntl getfl append", (fcntl(fd, F_GETFL) & O_APPEND) != 0);
	close(fd);
	fd = open("d/b.txt", O_WRONLY | O_APPEND);
	CHECK("append again", write(fd, "yz", 2) == 2);
	close(fd);
	CHECK("stat size 3", stat("d/b.txt", &st) == 0 && st.st_size == 3);
	FAILS("rmdir non-empty", rmdir("d"), ENOTEMPTY);
	FAILS("unlink dir", unlink("d"), EISDIR);
	FAILS("rmdir file", rmdir("a.txt"), ENOTDIR);

	CHECK("link", link("a.txt", "d/hard") == 0);
	CHECK("nlink 2", stat("a.txt", &st) == 0 && st.st_nlink == 2);
	CHECK("symlink", symlink("../a.txt", "d/soft") == 0);
	ssize_t n = readlink("d/soft", buf, sizeof buf);
	CHECK("readlink", n == 8 && memcmp(buf, "../a.txt", 8) == 0);
	CHECK("lstat is link", lstat("d/soft", &st) == 0 && S_ISLNK(st.st_mode));
	CHECK("stat follows", stat("d/soft", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 4096);
	fd = open("d/soft", O_RDONLY);
	CHECK("open via symlink", fd >= 0 && read(fd, buf, 5) == 5 && memcmp(buf, "0123A", 5) == 0);
	close(fd);
	FAILS("open nofollow", open("d/soft", O_RDONLY | O_NOFOLLOW), ELOOP);
	FAILS("readlink of file", (int)readlink("a.txt", buf, sizeof buf), EINVAL);
	CHECK("symlink dangling", symlink("nowhere", "dangle") == 0);
	FAILS("stat dangling", stat("dangle", &st), ENOENT);
	CHECK("lstat dangling", lstat("dangle", &st) == 0);

	CHECK("rename file", rename("d/b.txt", "c.txt") == 0);
	FAILS("old name gone", access("d/b.txt", F_OK), ENOENT);
	CHECK("access new", access("c.txt", R_OK) == 0);
	CHECK("mkdir e", mkdir("e", 0755) == 0);
	CHECK("rename dir", rename("e", "d/e2") == 0);
	FAILS("rename dir over file", rename("d/e2", "c.txt"), ENOTDIR);
	CHECK("rename over existing file", rename("c.txt", "a2.txt") == 0);

	struct timespec ts[2] = { { 1000000000, 123456789 }, { 1200000000, 987654321 } };
	CHECK("utimensat", utimensat(AT_FDCWD, "a2.txt", ts, 0) == 0);
	CHECK("times read back", stat("a2.txt", &st) == 0 && st.st_atim.tv_sec == 1000000000 &&
	      st.st_mtim.tv_sec == 1200000000 && st.st_mtim.tv_nsec == 987654321);
	struct timespec om[2] = { { 0, UTIME_OMIT }, { 1300000000, 0 } };
	CHECK("utimensat omit", utimensat(AT_FDCWD, "a2.txt", om, 0) == 0 && stat("a2.txt", &st) == 0 &&
	      st.st_atim.tv_sec == 1000000000 && st.st_mtim.tv_sec == 1300000000);
	fd = open("a2.txt", O_RDONLY);
	/* Not UTIME_NOW: Debian's wasi-libc headers define it two ways
	 * (sys/stat.h and __header_sys_stat.h) and futimens refuses it. */
	struct timespec ft[2] = { { 1400000000, 5 }, { 1500000000, 7 } };
	CHECK("futimens", futimens(fd, ft) == 0 && fstat(fd, &st) == 0 && st.st_mtim.tv_sec == 1500000000 &&
	      st.st_mtim.tv_nsec == 7 && st.st_atim.tv_nsec == 5);
	close(fd);
	CHECK("lutimes on symlink", utimensat(AT_FDCWD, "d/soft", ts, AT_SYMLINK_NOFOLLOW) == 0 &&
	      lstat("d/soft", &st) == 0 && st.st_mtim.tv_sec == 1200000000);
	CHECK("truncate by path", truncate("a.txt", 3) == 0 && stat("a.txt", &st) == 0 && st.st_size == 3);

	CHECK("cleanup", unlink("d/hard") == 0 && unlink("d/soft") == 0 && unlink("dangle") == 0 &&
	      rmdir("d/e2") == 0 && rmdir("d") == 0 && unlink("a.txt") == 0 && unlink("a2.txt") == 0);
	FAILS("unlink missing", unlink("a.txt"), ENOENT);
	DONE();
}
