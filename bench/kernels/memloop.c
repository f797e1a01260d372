/* memloop - loops whose bounds and bases are loaded from memory, through
 * a struct the loop body also writes (so the bound cannot be hoisted by
 * the C compiler on either side): a segmented axpy over a list of
 * segments, each described by {n, off}, with the running total kept in
 * the segment's own struct. */
#include "bench.h"

#define NSEG 4096
#define MAXLEN 96
#define TOTAL (NSEG * MAXLEN)
#define PASSES 40

typedef struct seg {
	int n, off;
	double total;
} seg;

BENCH_HOT static void segaxpy(seg *s, int nseg, double a, const double *x, double *y)
{
	for (int k = 0; k < nseg; k++)
		for (int i = 0; i < s[k].n; i++) {
			y[s[k].off + i] += a * x[s[k].off + i];
			s[k].total += y[s[k].off + i];
		}
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 8);
	seg *s = bench_alloc(NSEG * sizeof(seg), "segs");
	double *x = bench_alloc(TOTAL * sizeof(double), "x");
	double *y = bench_alloc(TOTAL * sizeof(double), "y");
	uint64_t r = 99;
	int off = 0;
	for (int k = 0; k < NSEG; k++) {
		s[k].n = 1 + (int)(bench_rand(&r) % MAXLEN);
		s[k].off = off;
		off += s[k].n;
	}
	for (int i = 0; i < TOTAL; i++)
		x[i] = (double)(i % 13) * 0.5;
	bench_timer tm = BENCH_TIMER_INIT;
	for (int rep = 0; rep < reps; rep++) {
		for (int k = 0; k < NSEG; k++)
			s[k].total = 0;
		for (int i = 0; i < TOTAL; i++)
			y[i] = 1.0;
		bench_start(&tm);
		for (int p = 0; p < PASSES; p++)
			segaxpy(s, NSEG, 0.25, x, y);
		bench_stop(&tm);
	}
	double sum = 0;
	for (int k = 0; k < NSEG; k++)
		sum += s[k].total * (double)(k % 3 + 1);
	bench_report("memloop", &tm, bench_bits(sum), sum);
	free(s); free(x); free(y);
	return 0;
}
