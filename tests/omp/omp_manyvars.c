/* omp_manyvars - parallel regions capturing 32 shared variables (the most
 * libmpiwasm-omp passes: must work) and 33 (must stop with a message
 * naming the limit, not run with arguments lost). */
#include <stdio.h>

int main(void)
{
	int v1 = 1, v2 = 2, v3 = 3, v4 = 4, v5 = 5, v6 = 6, v7 = 7, v8 = 8;
	int v9 = 9, v10 = 10, v11 = 11, v12 = 12, v13 = 13, v14 = 14, v15 = 15, v16 = 16;
	int v17 = 17, v18 = 18, v19 = 19, v20 = 20, v21 = 21, v22 = 22, v23 = 23, v24 = 24;
	int v25 = 25, v26 = 26, v27 = 27, v28 = 28, v29 = 29, v30 = 30, v31 = 31, v32 = 32;
	int sum = 0;
	/* 31 + sum = 32 captured. */
#pragma omp parallel
	{
#pragma omp atomic
		sum += v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 + v16 +
		       v17 + v18 + v19 + v20 + v21 + v22 + v23 + v24 + v25 + v26 + v27 + v28 + v29 + v30 + v31;
	}
	printf("32 captured: sum %d\n", sum);
	fflush(stdout);
	/* 32 + sum = 33 captured. */
#pragma omp parallel
	{
#pragma omp atomic
		sum += v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 + v16 +
		       v17 + v18 + v19 + v20 + v21 + v22 + v23 + v24 + v25 + v26 + v27 + v28 + v29 + v30 + v31 + v32;
	}
	printf("33 captured: sum %d\n", sum);
	return 0;
}
