/* Clocks, sleeping, poll, randomness, sched_yield. */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include "common.h"

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
	struct timespec t;
	CHECK("realtime after 2020", clock_gettime(CLOCK_REALTIME, &t) == 0 && t.tv_sec > 1577836800);
	CHECK("getres monotonic", clock_getres(CLOCK_MONOTONIC, &t) == 0 && t.tv_sec == 0 && t.tv_nsec > 0);
	CHECK("cputime", clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0);
	double a = now(CLOCK_MONOTONIC), b = now(CLOCK_MONOTONIC);
	CHECK("monotonic", b >= a);
	struct timespec req = { 0, 30000000 };
	a = now(CLOCK_MONOTONIC);
	CHECK("nanosleep", nanosleep(&req, NULL) == 0);
	b = now(CLOCK_MONOTONIC);
	CHECK("slept >= 30 ms", b - a >= 0.030 && b - a < 2.0);
	a = now(CLOCK_MONOTONIC);
	CHECK("usleep", usleep(20000) == 0);
	CHECK("usleep >= 20 ms", now(CLOCK_MONOTONIC) - a >= 0.020);

	int fd = open("p.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(fd, "hello", 5);
	lseek(fd, 0, SEEK_SET);
	struct pollfd p[2] = { { fd, POLLIN, 0 }, { fd, POLLOUT, 0 } };
	int r = poll(p, 2, 1000);
	CHECK("poll file ready", r == 2 && (p[0].revents & POLLIN) && (p[1].revents & POLLOUT));
	a = now(CLOCK_MONOTONIC);
	r = poll(NULL, 0, 25);
	CHECK("poll timeout only", r == 0 && now(CLOCK_MONOTONIC) - a >= 0.025);
	close(fd);
	unlink("p.txt");

	unsigned char buf[64] = { 0 };
	CHECK("getentropy", getentropy(buf, sizeof buf) == 0);
	int nz = 0;
	for (int i = 0; i < 64; i++)
		nz += buf[i] != 0;
	CHECK("entropy not all zero", nz > 32);
	CHECK("sched_yield", sched_yield() == 0);
	time_t tt = time(NULL);
	CHECK("time()", tt > 1577836800);
	DONE();
}
