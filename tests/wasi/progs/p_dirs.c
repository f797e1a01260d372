/* Directories: a large directory read back through readdir (many
 * fd_readdir calls and cookies), rewinddir, telldir/seekdir, nesting. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

#define N 5000

static int scan(const char *dir, unsigned long *sum)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	int n = 0;
	*sum = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		for (const char *p = e->d_name; *p; p++)
			*sum += (unsigned char)*p * (unsigned long)(p - e->d_name + 1);
	}
	closedir(d);
	return n;
}

int main(void)
{
	char name[300];
	CHECK("mkdir big", mkdir("big", 0755) == 0);
	int made = 0;
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "big/f%05d-%s", i,
		         i % 3 ? "short" : "a-rather-longer-name-to-vary-the-entry-sizes");
		int fd = open(name, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0) {
			made++;
			close(fd);
		}
	}
	printf("created %d\n", made);
	unsigned long sum;
	int n = scan("big", &sum);
	printf("readdir saw %d entries, checksum %lu\n", n, sum);

	DIR *d = opendir("big");
	int first = 0, types_ok = 1;
	struct dirent *e;
	while (first < 100 && (e = readdir(d))) {
		if (e->d_name[0] == 'f' && e->d_type != DT_REG)
			types_ok = 0;
		first++;
	}
	CHECK("d_type regular", types_ok);
	long pos = telldir(d);
	e = readdir(d);
	snprintf(name, sizeof name, "%s", e ? e->d_name : "");
	int rest = 1;
	while (readdir(d))
		rest++;
	seekdir(d, pos);
	e = readdir(d);
	CHECK("seekdir returns to the same entry", e && strcmp(e->d_name, name) == 0);
	rewinddir(d);
	int again = 0;
	while (readdir(d))
		again++;
	printf("after rewind %d (with . and ..)\n", again);
	CHECK("first+rest = all", first + rest == again);
	closedir(d);

	CHECK("nested mkdir", mkdir("n1", 0755) == 0 && mkdir("n1/n2", 0755) == 0 &&
	      mkdir("n1/n2/n3", 0755) == 0);
	int fd = open("n1/n2/n3/leaf", O_CREAT | O_WRONLY, 0644);
	CHECK("leaf", fd >= 0 && close(fd) == 0);
	struct stat st;
	CHECK("stat via ..", stat("n1/n2/../n2/n3/leaf", &st) == 0 && S_ISREG(st.st_mode));
	CHECK("dir type", stat("n1/n2", &st) == 0 && S_ISDIR(st.st_mode));
	FAILS("opendir file", opendir("n1/n2/n3/leaf") ? 0 : -1, ENOTDIR);
	FAILS("opendir missing", opendir("nope") ? 0 : -1, ENOENT);

	int removed = 0;
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "big/f%05d-%s", i,
		         i % 3 ? "short" : "a-rather-longer-name-to-vary-the-entry-sizes");
		removed += unlink(name) == 0;
	}
	printf("removed %d\n", removed);
	CHECK("empty now", scan("big", &sum) == 0);
	CHECK("cleanup", rmdir("big") == 0 && unlink("n1/n2/n3/leaf") == 0 && rmdir("n1/n2/n3") == 0 &&
	      rmdir("n1/n2") == 0 && rmdir("n1") == 0);
	DONE();
}
