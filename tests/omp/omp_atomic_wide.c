/* omp_atomic_wide - `omp atomic` on types no atomic instruction covers
 * (long double, double _Complex): clang calls __atomic_load and
 * __atomic_compare_exchange, which natively come from libatomic and in
 * wasm from libmpiwasm-omp.  Every thread adds 1000 times; no update may
 * be lost.  (gcc rejects atomics on complex types, so the reference is
 * clang natively.) */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	long double ld = 0;
	double _Complex z = 0;
	int nth = 1;
#pragma omp parallel
	{
#pragma omp single
		nth = omp_get_num_threads();
		for (int k = 0; k < 1000; k++) {
#pragma omp atomic
			ld += 0.5L;
#pragma omp atomic
			z += 2.0;
		}
	}
	/* As double: wasi-libc's printf formats long double only with an
	 * extra library. */
	printf("%d threads: long double %.1f (want %.1f), complex %.1f (want %.1f)\n", nth,
	       (double)ld, nth * 500.0, __real__ z, nth * 2000.0);
	return ld != nth * 500.0L || __real__ z != nth * 2000.0;
}
