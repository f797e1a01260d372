/* userop.c - reductions with user-defined operations: a (value, count)
 * pair type built with MPI_Type_create_struct, reduced with a commutative
 * "merge mean" op, and a non-commutative 2x2 matrix product op whose
 * result depends on rank order.
 * Build: build/mpiwasm-cc -O2 userop.c -o userop.wasm
 * Run:   mpirun -np 4 build/mpiwasm userop.wasm */
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
	double mean;
	long count;
} stat_t;

static void merge_mean(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	stat_t *a = in, *b = inout;
	for (int i = 0; i < *len; i++) {
		long n = a[i].count + b[i].count;
		if (n)
			b[i].mean = (a[i].mean * a[i].count + b[i].mean * b[i].count) / n;
		b[i].count = n;
	}
}

/* inout = in * inout, 2x2 integer matrices, row major */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	long *a = in, *b = inout;
	for (int k = 0; k < *len; k++, a += 4, b += 4) {
		long r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
			     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
		for (int i = 0; i < 4; i++)
			b[i] = r[i];
	}
}

int main(int argc, char **argv)
{
	int rank, size, fails = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* (mean, count) struct type */
	int bl[2] = {1, 1};
	MPI_Aint disp[2] = {offsetof(stat_t, mean), offsetof(stat_t, count)};
	MPI_Datatype types[2] = {MPI_DOUBLE, MPI_LONG}, tstat, tstat_r;
	MPI_Type_create_struct(2, bl, disp, types, &tstat);
	MPI_Type_create_resized(tstat, 0, sizeof(stat_t), &tstat_r);
	MPI_Type_commit(&tstat_r);
	MPI_Op op_mean, op_mat;
	MPI_Op_create(merge_mean, 1, &op_mean);
	MPI_Op_create(matmul, 0, &op_mat);

	/* rank r contributes r+1 samples of value r: mean = sum r(r+1) / sum (r+1) */
	stat_t mine[2] = {{rank, rank + 1}, {2.0 * rank, 1}}, all[2];
	MPI_Allreduce(mine, all, 2, tstat_r, op_mean, MPI_COMM_WORLD);
	double num = 0, den = 0;
	for (int r = 0; r < size; r++) {
		num += (double)r * (r + 1);
		den += r + 1;
	}
	if (fabs(all[0].mean - num / den) > 1e-12 || all[0].count != (long)den ||
	    fabs(all[1].mean - (size - 1)) > 1e-12 || all[1].count != size) {
		printf("rank %d: merge_mean got (%g,%ld) (%g,%ld)\n", rank, all[0].mean,
		       all[0].count, all[1].mean, all[1].count);
		fails++;
	}

	/* non-commutative: product M_0 * M_1 * ... * M_{p-1}, M_r = [[1, r+1],[0, 1]] * ... */
	long m[4] = {1, rank + 1, rank % 2, 1}, prod[4];
	MPI_Datatype tmat;
	MPI_Type_contiguous(4, MPI_LONG, &tmat);
	MPI_Type_commit(&tmat);
	MPI_Reduce(m, prod, 1, tmat, op_mat, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		long e[4] = {1, 0, 0, 1};
		for (int r = 0; r < size; r++) {
			long b[4] = {1, r + 1, r % 2, 1};
			long t[4] = {e[0] * b[0] + e[1] * b[2], e[0] * b[1] + e[1] * b[3],
				     e[2] * b[0] + e[3] * b[2], e[2] * b[1] + e[3] * b[3]};
			for (int i = 0; i < 4; i++)
				e[i] = t[i];
		}
		for (int i = 0; i < 4; i++)
			if (prod[i] != e[i])
				fails++;
		printf("userop: ranks=%d mean=%.6f (expect %.6f) product=[%ld %ld; %ld %ld] (expect [%ld %ld; %ld %ld]) %s\n",
		       size, all[0].mean, num / den, prod[0], prod[1], prod[2], prod[3],
		       e[0], e[1], e[2], e[3], fails ? "FAILED" : "OK");
	}
	MPI_Op_free(&op_mean);
	MPI_Op_free(&op_mat);
	MPI_Type_free(&tmat);
	MPI_Type_free(&tstat);
	MPI_Type_free(&tstat_r);
	int any;
	MPI_Allreduce(&fails, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	return any ? 1 : 0;
}
