/* triad - an OpenMP STREAM-like triad a = b + s*c over N doubles, static
 * schedule, best of REPS sweeps.
 *   triad [N] [REPS]   prints "triad THREADS SECONDS GBS CHECKSUM" */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000;
	int reps = argc > 2 ? atoi(argv[2]) : 20;
	double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b),
	       *c = malloc((size_t)n * sizeof *c);
	if (!a || !b || !c || reps < 1)
		return 1;
	/* First touch by the thread that will use each part. */
#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++) {
		a[i] = 0;
		b[i] = (double)(i % 100);
		c[i] = (double)(i % 7);
	}
	double best = 1e30;
	for (int r = 0; r < reps; r++) {
		double t0 = omp_get_wtime();
		/* Restrict-qualified copies: clang's outlined region gets the
		 * pointers by reference and could not vectorize otherwise. */
#pragma omp parallel
		{
			double *restrict pa = a;
			const double *restrict pb = b, *restrict pc = c;
#pragma omp for schedule(static)
			for (long i = 0; i < n; i++)
				pa[i] = pb[i] + 3.0 * pc[i];
		}
		double dt = omp_get_wtime() - t0;
		if (dt < best)
			best = dt;
	}
	double sum = 0;
	for (long i = 0; i < n; i++)
		sum += a[i];
	printf("triad %d %.6f %.2f %.0f\n", omp_get_max_threads(), best,
	       3.0 * 8.0 * (double)n / best * 1e-9, sum);
	return 0;
}
