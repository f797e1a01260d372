/* smallops.c - per-call cost of small file-system operations, each timed
 * on its own: open (O_RDONLY of an existing file), close, stat of a name
 * directly in the directory, stat of a name one directory down, fstat,
 * 1-byte write, 1-byte read.  Built natively and to wasm32-wasi.
 * usage: smallops N
 * prints: open close stat stat2 fstat write1 read1   (microseconds/call) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BATCH 256   /* descriptors held open at once */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	n = (n + BATCH - 1) / BATCH * BATCH;
	int fds[BATCH];
	struct stat st;
	int fd = open("small.dat", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		die("smallops: open small.dat");
	close(fd);
	if (mkdir("smalldir", 0755) != 0)
		die("smallops: mkdir smalldir");
	fd = open("smalldir/f", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		die("smallops: open smalldir/f");
	close(fd);

	/* open and close in batches so that each is timed alone */
	double t_open = 0, t_close = 0;
	for (long i = 0; i < n; i += BATCH) {
		double a = now();
		for (int k = 0; k < BATCH; k++)
			if ((fds[k] = open("small.dat", O_RDONLY)) < 0)
				die("smallops: open");
		double b = now();
		for (int k = 0; k < BATCH; k++)
			close(fds[k]);
		double c = now();
		t_open += b - a;
		t_close += c - b;
	}
	double t0 = now();
	for (long i = 0; i < n; i++)
		if (stat("small.dat", &st) != 0)
			die("smallops: stat");
	double t1 = now();
	for (long i = 0; i < n; i++)
		if (stat("smalldir/f", &st) != 0)
			die("smallops: stat smalldir/f");
	double t2 = now();
	fd = open("small.dat", O_RDWR);
	if (fd < 0)
		die("smallops: open for writing");
	for (long i = 0; i < n; i++)
		if (fstat(fd, &st) != 0)
			die("smallops: fstat");
	double t3 = now();
	for (long i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			die("smallops: write");
	double t4 = now();
	if (lseek(fd, 0, SEEK_SET) != 0)
		die("smallops: lseek");
	char c;
	for (long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			die("smallops: read");
	double t5 = now();
	close(fd);
	unlink("small.dat");
	unlink("smalldir/f");
	rmdir("smalldir");
	double us = 1e6 / (double)n;
	printf("%.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", t_open * us, t_close * us,
	       (t1 - t0) * us, (t2 - t1) * us, (t3 - t2) * us, (t4 - t3) * us,
	       (t5 - t4) * us);
	return 0;
}
