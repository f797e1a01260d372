/* A trap in a worker thread of rank 1 while every main thread waits in
 * MPI_Barrier: the whole job must end promptly, with a message naming
 * the rank and the thread (wasm only). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static volatile int zero;

static void *worker(void *arg)
{
	return (void *)(long)(100 / (zero + (int)(long)arg));
}

int main(int argc, char **argv)
{
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	pthread_t t;
	pthread_create(&t, NULL, worker, (void *)(long)(rank == 1 ? 0 : 1));
	if (rank != 1)
		pthread_join(t, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		pthread_join(t, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d: FAIL: the job went on\n", rank);
	MPI_Finalize();
	return 0;
}
