/* io.c - file I/O from a worker thread against the same I/O from the
 * main thread, in one process: each case runs REPS times on the main
 * thread and REPS times on one long-lived worker thread, alternating,
 * and the best time of each side is printed (on a machine
 * shared with other jobs the minimum is the least disturbed figure), so
 * the two share the machine's state (page cache, load) as far as
 * possible.
 * Built with gcc -pthread and mpiwasm-cc -pthread; run in a scratch
 * directory (wasm: granted with --dir .).
 *
 *   io [REPS]   ->  lines "CASE main_ms worker_ms" */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIG (64 << 20)
#define CHUNK (1 << 20)
#define LINES 200000

static char *buf;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Each case returns its own time in seconds. */
static double big_write(void)
{
	double t0 = now();
	int fd = open("big.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open big.dat");
	for (int i = 0; i < BIG / CHUNK; i++)
		if (write(fd, buf, CHUNK) != CHUNK)
			die("write");
	close(fd);
	return now() - t0;
}

static double big_read(void)
{
	double t0 = now();
	int fd = open("big.dat", O_RDONLY);
	if (fd < 0)
		die("open big.dat");
	long total = 0, n;
	while ((n = read(fd, buf, CHUNK)) > 0)
		total += n;
	close(fd);
	if (total != BIG)
		die("short read");
	return now() - t0;
}

static double small_stdio(void)
{
	double t0 = now();
	FILE *f = fopen("lines.txt", "w");
	if (!f)
		die("fopen lines.txt");
	for (int i = 0; i < LINES; i++)
		fprintf(f, "line %d of the small-I/O case\n", i);
	fclose(f);
	f = fopen("lines.txt", "r");
	if (!f)
		die("fopen lines.txt");
	char line[128];
	int n = 0;
	while (fgets(line, sizeof line, f))
		n++;
	fclose(f);
	if (n != LINES)
		die("lines lost");
	return now() - t0;
}

/* Many small syscalls: 4 KiB pwrite/pread at scattered offsets. */
static double small_syscalls(void)
{
	double t0 = now();
	int fd = open("small.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open small.dat");
	for (int i = 0; i < 20000; i++)
		if (pwrite(fd, buf, 4096, (off_t)((i * 7919) % 4096) * 4096) != 4096)
			die("pwrite");
	for (int i = 0; i < 20000; i++)
		if (pread(fd, buf, 4096, (off_t)((i * 104729) % 4096) * 4096) != 4096)
			die("pread");
	close(fd);
	return now() - t0;
}

typedef double (*io_case)(void);

/* One worker thread for the whole run, handed one case at a time: what
 * is measured is the I/O on that thread, not thread creation. */
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static io_case job;          /* to run; NULL when idle */
static int quit;
static double job_time;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mx);
	for (;;) {
		while (!job && !quit)
			pthread_cond_wait(&cv, &mx);
		if (quit)
			break;
		io_case c = job;
		pthread_mutex_unlock(&mx);
		double t = c();
		pthread_mutex_lock(&mx);
		job_time = t;
		job = NULL;
		pthread_cond_broadcast(&cv);
	}
	pthread_mutex_unlock(&mx);
	return NULL;
}

static double run_worker(io_case c)
{
	pthread_mutex_lock(&mx);
	job = c;
	pthread_cond_broadcast(&cv);
	while (job)
		pthread_cond_wait(&cv, &mx);
	double t = job_time;
	pthread_mutex_unlock(&mx);
	return t;
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 7;
	if (reps < 1 || reps > 100)
		reps = 7;
	buf = malloc(CHUNK);
	if (!buf)
		die("malloc");
	memset(buf, 'x', CHUNK);
	pthread_t th;
	if (pthread_create(&th, NULL, worker, NULL))
		die("pthread_create");
	static const struct { const char *name; io_case c; } cases[] = {
		{ "write_64MiB", big_write }, { "read_64MiB", big_read },
		{ "stdio_200k_lines", small_stdio }, { "pwrite_pread_4KiB", small_syscalls },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		double m[100], w[100];
		cases[k].c();   /* warm-up: file exists, page cache filled */
		for (int r = 0; r < reps; r++) {
			if (r % 2) {
				w[r] = run_worker(cases[k].c);
				m[r] = cases[k].c();
			} else {
				m[r] = cases[k].c();
				w[r] = run_worker(cases[k].c);
			}
		}
		qsort(m, (size_t)reps, sizeof m[0], cmp);
		qsort(w, (size_t)reps, sizeof w[0], cmp);
		printf("%s %.3f %.3f\n", cases[k].name, m[0] * 1e3, w[0] * 1e3);
	}
	pthread_mutex_lock(&mx);
	quit = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mx);
	pthread_join(th, NULL);
	unlink("big.dat");
	unlink("lines.txt");
	unlink("small.dat");
	return 0;
}
