/* mpibench.c - ping-pong latency/bandwidth and a collective sweep, built
 * both natively (mpicc) and to wasm (mpiwasm-cc) by bench/mpi/run.sh.
 *   mpibench pingpong      ranks 0 and 1, 0 B .. 4 MiB
 *   mpibench coll          Bcast, Allreduce (doubles), Alltoall (bytes per
 *                          peer), 8 B .. 1 MiB, every rank
 *   mpibench calls         the cost of one call with no communication, on
 *                          rank 0 (MPI_PROC_NULL peers, MPI_COMM_SELF):
 *                          what the bridge's entry (checks, conversions,
 *                          snapshots) adds shows as wasm minus native
 * Each size: a warm-up, then REPS timed loops; the best loop counts (the
 * machine is shared, the minimum is the least disturbed).  Output lines:
 *   <test> <bytes> <microseconds per operation>
 * (calls: <test> <case> <microseconds per call>, case 1..8 below, timed by
 * the calling thread's CPU time: the machine is shared). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 5

static int iters_for(long bytes)
{
	if (bytes <= 4096) return 2000;
	if (bytes <= 65536) return 500;
	if (bytes <= 1048576) return 60;
	return 20;
}

static void pingpong(int rank)
{
	long max = 4L << 20;
	char *buf = malloc((size_t)max);
	memset(buf, 1, (size_t)max);
	for (long n = 0; n <= max; n = n ? n * 2 : 1) {
		int it = iters_for(n);
		double best = 1e30;
		for (int r = -1; r < REPS; r++) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			for (int i = 0; i < it; i++) {
				if (rank == 0) {
					MPI_Send(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
					MPI_Recv(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				} else if (rank == 1) {
					MPI_Recv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
				}
			}
			double t = (MPI_Wtime() - t0) / it / 2 * 1e6;   /* one way */
			if (r >= 0 && t < best)
				best = t;
		}
		if (rank == 0)
			printf("pingpong %ld %.4f\n", n, best);
	}
	free(buf);
}

static void coll(int rank, int size)
{
	long max = 1L << 20;
	char *a = malloc((size_t)max * (size_t)size), *b = malloc((size_t)max * (size_t)size);
	memset(a, 1, (size_t)max * (size_t)size);
	memset(b, 0, (size_t)max * (size_t)size);
	const char *names[3] = { "bcast", "allreduce", "alltoall" };
	for (int k = 0; k < 3; k++)
		for (long n = 8; n <= max; n *= 4) {
			int it = iters_for(n * (k == 2 ? size : 1));
			double best = 1e30;
			for (int r = -1; r < REPS; r++) {
				MPI_Barrier(MPI_COMM_WORLD);
				double t0 = MPI_Wtime();
				for (int i = 0; i < it; i++) {
					if (k == 0)
						MPI_Bcast(a, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
					else if (k == 1)
						MPI_Allreduce(a, b, (int)(n / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
					else
						MPI_Alltoall(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, MPI_COMM_WORLD);
				}
				double t = (MPI_Wtime() - t0) / it * 1e6, tmax;
				MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
				if (r >= 0 && tmax < best)
					best = tmax;
			}
			if (rank == 0)
				printf("%s %ld %.4f\n", names[k], n, best);
		}
	free(a);
	free(b);
}

/* The calling thread's CPU time in seconds. */
static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One call of each case, n times; the best of REPS * 4 loops. */
static double per_call(int c, int n)
{
	static int a[4] = { 1, 2, 3, 4 }, b[4], cnt[1] = { 1 }, dsp[1] = { 0 };
	MPI_Request rq[4] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
	                      MPI_REQUEST_NULL };
	int rank, num;
	double best = 1e30;
	for (int rep = 0; rep < REPS * 4; rep++) {
		double t0 = cpu_now();
		for (int i = 0; i < n; i++)
			switch (c) {
			case 1: MPI_Comm_rank(MPI_COMM_WORLD, &rank); break;
			case 2: MPI_Send(a, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD); break;
			case 3: MPI_Recv(b, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
			                 MPI_STATUS_IGNORE); break;
			case 4: MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_SELF); break;
			case 5: MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT,
			                      MPI_COMM_SELF); break;
			case 6: MPI_Waitall(4, rq, MPI_STATUSES_IGNORE); break;
			case 7: MPI_T_cvar_get_num(&num); break;
			case 8: MPI_T_cvar_get_info(0, NULL, NULL, &num, NULL, NULL, NULL, NULL,
			                            NULL, NULL); break;
			}
		double t = (cpu_now() - t0) / n;
		if (t < best)
			best = t;
	}
	return best * 1e6;
}

/* calls: Comm_rank (no buffer), Send and Recv to MPI_PROC_NULL (a buffer
 * triple, a status), Allreduce and Alltoallv on MPI_COMM_SELF (the
 * collective rule; Alltoallv's four arrays snapshotted), Waitall of four
 * MPI_REQUEST_NULL (the request array snapshotted), MPI_T_cvar_get_num (an
 * out pointer, under the bridge's lock) and MPI_T_cvar_get_info of
 * variable 0 (its index checked against the host's count, one out). */
static void calls(int rank)
{
	static const char *name[] = { "", "comm_rank", "send_procnull", "recv_procnull",
	                              "allreduce_self", "alltoallv_self", "waitall_null4",
	                              "t_cvar_get_num", "t_cvar_get_info0" };
	int provided;
	if (rank != 0)
		return;
	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	for (int c = 1; c <= 8; c++) {
		int n = c >= 4 && c <= 5 ? 20000 : 100000;
		per_call(c, n / 10);   /* warm-up */
		printf("calls %d %.4f %s\n", c, per_call(c, n), name[c]);
	}
	MPI_T_finalize();
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1 && strcmp(argv[1], "pingpong") == 0 && size >= 2)
		pingpong(rank);
	else if (argc > 1 && strcmp(argv[1], "coll") == 0)
		coll(rank, size);
	else if (argc > 1 && strcmp(argv[1], "calls") == 0)
		calls(rank);
	else if (rank == 0)
		fprintf(stderr, "mpibench: usage: mpibench pingpong|coll|calls (pingpong needs 2 ranks)\n");
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
