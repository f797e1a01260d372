/* dgemm - C += A*B for N x N doubles, the naive i-k-j loop nest so that the
 * inner loop is a unit-stride axpy the compiler can vectorize. */
#include "bench.h"

#define N 512

BENCH_HOT static void dgemm(int n, const double *a, const double *b, double *c)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++) {
			double aik = a[i * n + k];
			for (int j = 0; j < n; j++)
				c[i * n + j] += aik * b[k * n + j];
		}
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 60);
	size_t bytes = (size_t)N * N * sizeof(double);
	double *a = bench_alloc(bytes, "A"), *b = bench_alloc(bytes, "B");
	double *c = bench_alloc(bytes, "C");
	uint64_t s = 1;
	for (int i = 0; i < N * N; i++) {
		a[i] = (double)(bench_rand(&s) % 1000) / 1000.0 - 0.5;
		b[i] = (double)(bench_rand(&s) % 1000) / 1000.0 - 0.5;
	}
	double sum = 0;
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		memset(c, 0, bytes);
		bench_start(&tm);
		dgemm(N, a, b, c);
		bench_stop(&tm);
	}
	for (int i = 0; i < N * N; i++)
		sum += c[i] * (double)(i % 7 + 1);
	bench_report("dgemm", &tm, bench_bits(sum), sum);
	free(a); free(b); free(c);
	return 0;
}
