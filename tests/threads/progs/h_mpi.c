/* Hybrid MPI + threads: MPI_THREAD_MULTIPLE, two threads per rank, each
 * on its own duplicate of MPI_COMM_WORLD, calling MPI at the same time:
 * a ring of sendrecvs, nonblocking sends and receives, an allreduce with
 * a user-defined operation and a derived datatype; and the MPI_T tool
 * interface at the same time (performance-variable sessions and
 * control-variable handles made and freed: tables both threads change).
 * Rank 0 prints. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 2
#define ITERS 200

static MPI_Comm comms[NT];
static int rank, size;
static long results[NT][4];
static int cvar_unbound = -1;   /* a control variable bound to no object */

static void maxabs(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	long *a = in, *b = inout;
	for (int i = 0; i < *len; i++)
		b[i] = labs(a[i]) > labs(b[i]) ? a[i] : b[i];
}

static void *worker(void *arg)
{
	long me = (long)arg;
	MPI_Comm c = comms[me];
	MPI_Op op;
	MPI_Datatype pair;
	MPI_Op_create(maxabs, 1, &op);
	MPI_Type_contiguous(2, MPI_LONG, &pair);
	MPI_Type_commit(&pair);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	long ring = 0, nb = 0, red = 0, tool = 0;
	for (int i = 0; i < ITERS; i++) {
		long out = rank * 1000 + i + me, in = -1;
		MPI_Sendrecv(&out, 1, MPI_LONG, right, i, &in, 1, MPI_LONG, left, i, c,
		             MPI_STATUS_IGNORE);
		ring += in;
		long sbuf[2] = { out, -out }, rbuf[2];
		MPI_Request rq[2];
		MPI_Status st[2];   /* not MPI_STATUSES_IGNORE: gcc 12 warns with MPICH's */
		MPI_Irecv(rbuf, 1, pair, left, 7, c, &rq[0]);
		MPI_Isend(sbuf, 1, pair, right, 7, c, &rq[1]);
		MPI_Waitall(2, rq, st);
		nb += rbuf[0] - rbuf[1];
		long v = (rank % 2 ? -1 : 1) * (rank + i + me), r;
		MPI_Allreduce(&v, &r, 1, MPI_LONG, op, c);
		red += r;
		MPI_T_pvar_session ses;
		if (MPI_T_pvar_session_create(&ses) == MPI_SUCCESS &&
		    MPI_T_pvar_session_free(&ses) == MPI_SUCCESS)
			tool++;
		if (cvar_unbound >= 0) {
			MPI_T_cvar_handle h;
			int n = 0;
			if (MPI_T_cvar_handle_alloc(cvar_unbound, NULL, &h, &n) == MPI_SUCCESS &&
			    MPI_T_cvar_handle_free(&h) == MPI_SUCCESS)
				tool++;
		} else
			tool++;
	}
	MPI_Type_free(&pair);
	MPI_Op_free(&op);
	results[me][0] = ring;
	results[me][1] = nb;
	results[me][2] = red;
	results[me][3] = tool;
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		printf("MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int tprov, ncvar = 0;
	if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &tprov) != MPI_SUCCESS ||
	    MPI_T_cvar_get_num(&ncvar) != MPI_SUCCESS) {
		printf("MPI_T_init_thread failed\n");
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	for (int i = 0; i < ncvar && cvar_unbound < 0; i++) {
		char name[256], desc[16];
		int nl = sizeof name, dl = sizeof desc, verb, bind, scope;
		MPI_Datatype dt;
		MPI_T_enum en;
		if (MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind,
		                        &scope) == MPI_SUCCESS && bind == MPI_T_BIND_NO_OBJECT)
			cvar_unbound = i;
	}
	for (int i = 0; i < NT; i++)
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i)) {
			printf("pthread_create failed\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	long mine[NT * 4], all[NT * 4];
	for (int i = 0; i < NT; i++)
		for (int k = 0; k < 4; k++)
			mine[i * 4 + k] = results[i][k];
	MPI_Reduce(mine, all, NT * 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("ranks %d threads %d provided MPI_THREAD_MULTIPLE\n", size, NT);
		for (int i = 0; i < NT; i++)
			printf("thread %d: ring %ld nonblocking %ld allreduce %ld tool %ld\n", i,
			       all[i * 4], all[i * 4 + 1], all[i * 4 + 2], all[i * 4 + 3]);
	}
	for (int i = 0; i < NT; i++)
		MPI_Comm_free(&comms[i]);
	MPI_T_finalize();
	MPI_Finalize();
	return 0;
}
