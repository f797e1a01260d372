/* tier_loop.c - a module for the tiered start (e2e t_tier): a hot loop of
 * direct calls, calls through a table and floating point, run until the
 * file argv[1] exists (the test creates it once mpiwasm says that tier 1
 * is active; "-": no wait) or argv[2] seconds have passed; then one result
 * that does not depend on how long it ran, and with argv[3] "oob" a load
 * outside linear memory in poke (a trap found by its code address). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef uint32_t (*fn)(uint32_t);

__attribute__((noinline)) static uint32_t mix(uint32_t x)
{
	for (int k = 0; k < 50; k++)
		x = x * 2654435761u + (x >> 13);
	return x;
}

__attribute__((noinline)) static uint32_t fsum(uint32_t x)
{
	double s = 0;
	for (uint32_t k = 0; k < 64; k++)
		s += (double)(x ^ k) * 0.5;
	return (uint32_t)s;
}

__attribute__((noinline)) static uint32_t step(uint32_t x)
{
	return mix(x) ^ fsum(x);
}

static fn table[] = { mix, fsum, step };

__attribute__((noinline)) static uint32_t work(uint32_t n)
{
	uint32_t a = 1;
	for (uint32_t i = 0; i < n; i++)
		a += table[(a + i) % 3](a + i);
	return a;
}

__attribute__((noinline)) static int poke(uintptr_t addr)
{
	return *(volatile int *)addr;
}

static volatile uint32_t sink;

int main(int argc, char **argv)
{
	const char *flag = argc > 1 ? argv[1] : "-";
	double secs = argc > 2 ? atof(argv[2]) : 0, t;
	struct timespec a, b;
	unsigned rounds = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink = work(1000);
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &b);
		t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
		if (strcmp(flag, "-") && !access(flag, F_OK))
			break;
	} while (t < secs);
	printf("work %u\n", work(20000));
	fflush(stdout);
	fprintf(stderr, "tier_loop: %u rounds\n", rounds);
	if (argc > 3 && !strcmp(argv[3], "oob"))
		return poke((uintptr_t)strtoul("4294967280", NULL, 10));
	return 0;
}
