/* bench.h - timing and reporting shared by the kernels.
 *
 * Each kernel is one C file built twice from the same source: natively and
 * to wasm32-wasi.  It times only its hot part with CLOCK_MONOTONIC, keeps
 * the best of several repetitions, and prints one line that the runner
 * (run.sh) parses:
 *
 *   BENCH kernel=<name> best_s=<s> cpu_s=<s> reps=<n> checksum=<hex> value=<%.17g>
 *
 * best_s is wall time (CLOCK_MONOTONIC); cpu_s is the best process CPU time
 * over the same repetitions, which on a shared machine is much less
 * disturbed by other jobs than wall time (time spent descheduled is not
 * counted).
 * The checksum is exact (the bits of a double, or an integer hash), so
 * native and wasm runs can be compared for equality.  Both sides are built
 * with -ffp-contract=off: WebAssembly rounds every operation, and an FMA on
 * the native side alone would change the low bits. */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The timed kernel stays a real function on both sides: inlined into the
 * repetition loop, gcc -O3 interchanged triad's pass and element loops and
 * kept only the last pass. */
#define BENCH_HOT __attribute__((noinline))

static inline double bench_now(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
		fprintf(stderr, "bench_now: clock_gettime(CLOCK_MONOTONIC) failed\n");
		exit(2);
	}
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bench_cpu(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) {
		fprintf(stderr, "bench_cpu: clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed\n");
		exit(2);
	}
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best-of-N timing of the hot part: bench_start/bench_stop around it. */
typedef struct bench_timer {
	double best, best_cpu, t0, c0;
	int reps;
} bench_timer;
#define BENCH_TIMER_INIT { 1e30, 1e30, 0, 0, 0 }

static inline void bench_start(bench_timer *t)
{
	t->c0 = bench_cpu();
	t->t0 = bench_now();
}

static inline void bench_stop(bench_timer *t)
{
	double w = bench_now() - t->t0, c = bench_cpu() - t->c0;
	if (w < t->best)
		t->best = w;
	if (c < t->best_cpu)
		t->best_cpu = c;
	t->reps++;
}

static inline void *bench_alloc(size_t n, const char *what)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "bench_alloc: cannot allocate %zu bytes for %s\n", n, what);
		exit(2);
	}
	return p;
}

/* Repetitions: argv[1] if given, else the kernel's default. */
static inline int bench_reps(int argc, char **argv, int dflt)
{
	if (argc > 1) {
		int r = atoi(argv[1]);
		if (r < 1) {
			fprintf(stderr, "bench_reps: bad repetition count '%s'\n", argv[1]);
			exit(2);
		}
		return r;
	}
	return dflt;
}

static inline uint64_t bench_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* FNV-1a over 64-bit words, for integer results. */
static inline uint64_t bench_hash(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}
#define BENCH_HASH_INIT 0xcbf29ce484222325ull

/* A small deterministic generator (same on every target). */
static inline uint32_t bench_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static inline void bench_report(const char *name, const bench_timer *t,
                                uint64_t checksum, double value)
{
	printf("BENCH kernel=%s best_s=%.6f cpu_s=%.6f reps=%d checksum=%016llx value=%.17g\n",
	       name, t->best, t->best_cpu, t->reps, (unsigned long long)checksum, value);
}

#endif
