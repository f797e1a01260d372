/* smallops.c - per-call cost of small file-system operations: open+close,
 * stat, and 1-byte writes.  usage: smallops N
 * prints: open_close_us stat_us write1_us */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int fd = open("small.dat", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0) {
		perror("smallops: open");
		return 1;
	}
	close(fd);
	struct stat st;
	double t0 = now();
	for (long i = 0; i < n; i++) {
		fd = open("small.dat", O_RDONLY);
		close(fd);
	}
	double t1 = now();
	for (long i = 0; i < n; i++)
		stat("small.dat", &st);
	double t2 = now();
	fd = open("small.dat", O_WRONLY);
	for (long i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return 1;
	double t3 = now();
	close(fd);
	unlink("small.dat");
	printf("%.3f %.3f %.3f\n", (t1 - t0) / (double)n * 1e6,
	       (t2 - t1) / (double)n * 1e6, (t3 - t2) / (double)n * 1e6);
	return 0;
}
