/* hybrid - MPI + OpenMP with MPI_THREAD_MULTIPLE: in every rank a team of
 * OMP_NUM_THREADS threads, each exchanging with the same thread of the
 * neighbouring ranks at once (tag = thread number), then a reduction over
 * threads and an MPI_Allreduce over ranks.  Only rank 0 prints, after a
 * final barrier. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define LEN 1000

int main(int argc, char **argv)
{
	int provided, rank, size;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (provided < MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			printf("hybrid: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
		MPI_Finalize();
		return 1;
	}
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	long total = 0;
	int nth = 0, errors = 0;
#pragma omp parallel reduction(+:total, errors)
	{
		int t = omp_get_thread_num();
#pragma omp single
		nth = omp_get_num_threads();
		int out[LEN], in[LEN];
		for (int round = 0; round < 20; round++) {
			for (int i = 0; i < LEN; i++)
				out[i] = rank * 1000000 + t * 10000 + round * 100 + i % 100;
			MPI_Sendrecv(out, LEN, MPI_INT, right, t, in, LEN, MPI_INT, left, t,
				     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			for (int i = 0; i < LEN; i++) {
				int want = left * 1000000 + t * 10000 + round * 100 + i % 100;
				errors += in[i] != want;
				total += in[i] % 1000;
			}
		}
	}
	long all = 0;
	int allerr = 0;
	MPI_Allreduce(&total, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&errors, &allerr, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("hybrid: %d ranks x %d threads, checksum %ld, wrong values %d\n",
		       size, nth, all, allerr);
	MPI_Finalize();
	return allerr != 0;
}
