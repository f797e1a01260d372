/* common.h - shared by the tests/threads programs, which are built with
 * gcc -pthread and with mpiwasm-cc -pthread and must print the same. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;

/* One line per check: "ok NAME" or "FAIL NAME: detail". */
#define CHECK(name, cond, ...) do { \
	if (cond) printf("ok %s\n", name); \
	else { failures++; printf("FAIL %s: ", name); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

/* Creating a thread must work; anything else is not worth going on. */
#define SPAWN(t, attr, fn, arg) do { \
	int e_ = pthread_create((t), (attr), (fn), (arg)); \
	if (e_) { printf("FAIL pthread_create: %s\n", strerror(e_)); exit(1); } \
} while (0)

static inline double now_mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* An absolute time ms milliseconds from now on clock c. */
static inline struct timespec deadline(clockid_t c, long ms)
{
	struct timespec t;
	clock_gettime(c, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static inline int finish(void)
{
	printf("%s\n", failures ? "FAILED" : "PASSED");
	return failures != 0;
}
