/* omp_kernels - small numerical kernels in OpenMP whose results are exact
 * whatever the team size and the order reductions combine in (integers,
 * and doubles that hold integers): outputs are compared between libgomp,
 * libmpiwasm-omp natively and libmpiwasm-omp in wasm. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 200000

int main(void)
{
	double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
	if (!a || !b || !c)
		return 1;
	/* STREAM-like triad, then its checksum by reduction. */
#pragma omp parallel for
	for (int i = 0; i < N; i++) {
		b[i] = i % 1000;
		c[i] = (i * 7) % 13;
	}
#pragma omp parallel for schedule(static)
	for (int i = 0; i < N; i++)
		a[i] = b[i] + 3.0 * c[i];
	double s = 0;
#pragma omp parallel for reduction(+:s)
	for (int i = 0; i < N; i++)
		s += a[i];
	printf("triad checksum %.1f\n", s);

	/* Primes below N by trial division: uneven work, dynamic schedule. */
	int primes = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+:primes)
	for (int n = 2; n < N; n++) {
		int p = 1;
		for (int d = 2; d * d <= n; d++)
			if (n % d == 0) {
				p = 0;
				break;
			}
		primes += p;
	}
	printf("primes below %d: %d\n", N, primes);

	/* Histogram with atomic updates, guided schedule. */
	int hist[16] = {0};
#pragma omp parallel for schedule(guided)
	for (int i = 0; i < N; i++) {
		unsigned h = (unsigned)i * 2654435761u;
#pragma omp atomic
		hist[h >> 28]++;
	}
	printf("histogram:");
	for (int k = 0; k < 16; k++)
		printf(" %d", hist[k]);
	printf("\n");

	/* A 1-D stencil iterated with a barrier between sweeps, and the
	 * largest value by a max reduction. */
	long long *u = calloc(1024, sizeof *u), *v = calloc(1024, sizeof *v);
	u[512] = 1LL << 40;
	long long big = 0;
#pragma omp parallel
	{
		for (int it = 0; it < 50; it++) {
#pragma omp for
			for (int i = 1; i < 1023; i++)
				v[i] = (u[i - 1] + 2 * u[i] + u[i + 1]) / 4;
#pragma omp for
			for (int i = 1; i < 1023; i++)
				u[i] = v[i];
		}
#pragma omp for reduction(max:big)
		for (int i = 0; i < 1024; i++)
			big = u[i] > big ? u[i] : big;
	}
	long long tot = 0;
	for (int i = 0; i < 1024; i++)
		tot += u[i];
	printf("stencil max %lld total %lld\n", big, tot);
	free(a), free(b), free(c), free(u), free(v);
	return 0;
}
