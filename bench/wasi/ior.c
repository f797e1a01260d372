/* ior.c - IOR-style sequential write then read of one file with a fixed
 * transfer size, fsync at the end of the write phase.  Built natively and
 * to wasm32-wasi from this source.  usage: ior XFER_BYTES TOTAL_MIB
 * prints: write_MiBps read_MiBps */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	if (argc < 3) {
		fprintf(stderr, "usage: ior XFER_BYTES TOTAL_MIB\n");
		return 2;
	}
	size_t xfer = (size_t)atol(argv[1]);
	long long total = atoll(argv[2]) << 20;
	long long n = total / (long long)xfer;
	char *buf = malloc(xfer);
	if (!buf)
		return 1;
	memset(buf, 'x', xfer);
	int fd = open("ior.dat", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0) {
		perror("ior: open");
		return 1;
	}
	double t0 = now();
	for (long long i = 0; i < n; i++)
		if (write(fd, buf, xfer) != (ssize_t)xfer) {
			perror("ior: write");
			return 1;
		}
	fsync(fd);
	close(fd);
	double t1 = now();
	fd = open("ior.dat", O_RDONLY);
	double t2 = now();
	for (long long i = 0; i < n; i++)
		if (read(fd, buf, xfer) != (ssize_t)xfer) {
			perror("ior: read");
			return 1;
		}
	double t3 = now();
	close(fd);
	unlink("ior.dat");
	double mib = (double)(n * (long long)xfer) / (1 << 20);
	printf("%.1f %.1f\n", mib / (t1 - t0), mib / (t3 - t2));
	return 0;
}
