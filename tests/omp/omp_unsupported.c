/* omp_unsupported - uses tasks, which libmpiwasm-omp does not implement:
 * linking must fail, naming the entry point (never run a wrong answer). */
#include <stdio.h>

int main(void)
{
	int x = 0;
#pragma omp parallel
#pragma omp single
	{
#pragma omp task shared(x)
		x = 1;
#pragma omp taskwait
	}
	printf("%d\n", x);
	return 0;
}
