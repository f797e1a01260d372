/* ior.c - IOR-style sequential write then read of one file per process
 * with a fixed transfer size; fsync at the end of the write phase, timed
 * on its own.  Built natively and to wasm32-wasi from this source; with
 * -DIOR_MPI (mpicc / mpiwasm-cc) every rank writes its own file
 * ior.<rank>.dat, phases are separated by barriers and rank 0 prints the
 * slowest rank's times.
 *
 * usage: ior XFER_BYTES TOTAL_MIB
 * prints: MiB write_s fsync_s read_s write_cpu_s read_cpu_s
 * (MiB per process; *_cpu_s: this process's CPU time in the write and
 * read loops, which, unlike wall time, does not count the time spent
 * waiting for a core on a shared machine or throttled by writeback) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef IOR_MPI
#include <mpi.h>
#endif

static double clk(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now(void) { return clk(CLOCK_MONOTONIC); }
static double cpu(void) { return clk(CLOCK_PROCESS_CPUTIME_ID); }

static void sync_all(void)
{
#ifdef IOR_MPI
	MPI_Barrier(MPI_COMM_WORLD);
#endif
}

int main(int argc, char **argv)
{
	int rank = 0;
#ifdef IOR_MPI
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
	if (argc < 3) {
		fprintf(stderr, "usage: ior XFER_BYTES TOTAL_MIB\n");
		return 2;
	}
	size_t xfer = (size_t)atol(argv[1]);
	long long total = atoll(argv[2]) << 20;
	long long n = total / (long long)xfer;
	char name[64];
	snprintf(name, sizeof name, "ior.%d.dat", rank);
	char *buf = malloc(xfer);
	if (!buf || n <= 0) {
		fprintf(stderr, "ior: bad sizes\n");
		return 1;
	}
	memset(buf, 'x', xfer);
	int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0) {
		perror("ior: open");
		return 1;
	}
	sync_all();
	double c0 = cpu(), t0 = now();
	for (long long i = 0; i < n; i++)
		if (write(fd, buf, xfer) != (ssize_t)xfer) {
			perror("ior: write");
			return 1;
		}
	double t1 = now(), c1 = cpu();
	if (fsync(fd) != 0) {
		perror("ior: fsync");
		return 1;
	}
	close(fd);
	double t2 = now();
	sync_all();
	fd = open(name, O_RDONLY);
	if (fd < 0) {
		perror("ior: open for reading");
		return 1;
	}
	double c3 = cpu(), t3 = now();
	for (long long i = 0; i < n; i++)
		if (read(fd, buf, xfer) != (ssize_t)xfer) {
			perror("ior: read");
			return 1;
		}
	double t4 = now(), c4 = cpu();
	close(fd);
	unlink(name);
	double t[5] = { t1 - t0, t2 - t1, t4 - t3, c1 - c0, c4 - c3 };
#ifdef IOR_MPI
	double m[5];
	MPI_Reduce(t, m, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	memcpy(t, m, sizeof t);
#endif
	if (rank == 0)
		printf("%.1f %.6f %.6f %.6f %.6f %.6f\n",
		       (double)(n * (long long)xfer) / (1 << 20), t[0], t[1], t[2],
		       t[3], t[4]);
#ifdef IOR_MPI
	MPI_Finalize();
#endif
	return 0;
}
