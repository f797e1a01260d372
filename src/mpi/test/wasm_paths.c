#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pass, fail, rank, size;
#define CHECK(c, what) do { if (c) pass++; else { fail++; printf("rank %d FAIL %s (line %d)\n", rank, what, __LINE__); } } while (0)

static void myop(void *in, void *io, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = io;
	for (int i = 0; i < *len; i++) b[i] = a[i] + b[i] + 1;
	(void)dt;
}

static int eh_calls, eh_code;
static void myeh(MPI_Comm *c, int *code, ...)
{
	(void)c;
	eh_calls++;
	eh_code = *code;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* user op */
	MPI_Op op;
	MPI_Op_create(myop, 1, &op);
	int v[3] = { rank + 1, rank + 2, rank + 3 }, r[3] = { 0 };
	MPI_Allreduce(v, r, 3, MPI_INT, op, MPI_COMM_WORLD);
	int e0 = 0;  /* non-commutative: ((1*10+2)*10+3)... in rank order: b = a*10+b; result = fold */
	{
		e0 = size * (size + 1) / 2 + size - 1;
	}
	CHECK(r[0] == e0, "user op allreduce");
	MPI_Reduce(v, r, 3, MPI_INT, op, 0, MPI_COMM_WORLD);
	if (rank == 0) CHECK(r[0] == e0, "user op reduce");
	MPI_Op_free(&op);
	CHECK(op == MPI_OP_NULL, "op free null");

	/* user error handler */
	MPI_Errhandler eh;
	MPI_Comm dup;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_create_errhandler(myeh, &eh);
	MPI_Comm_set_errhandler(dup, eh);
	int rc = MPI_Send(v, 1, MPI_INT, size + 5, 0, dup);
	int cls = -1;
	MPI_Error_class(rc, &cls);
	CHECK(eh_calls == 1 && cls == MPI_ERR_RANK, "user errhandler called on bad rank");
	MPI_Error_class(eh_code, &cls);
	CHECK(cls == MPI_ERR_RANK, "errhandler code class");
	MPI_Errhandler got;
	MPI_Comm_get_errhandler(dup, &got);
	CHECK(got == eh, "get_errhandler");
	MPI_Errhandler_free(&got);
	MPI_Errhandler_free(&eh);
	char s[MPI_MAX_ERROR_STRING]; int sl;
	CHECK(MPI_Error_string(rc, s, &sl) == MPI_SUCCESS && sl > 0, "error string of returned code");

	/* alltoallw */
	{
		int *sb = malloc(size * sizeof(int)), *rb = malloc(size * sizeof(int));
		int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
		MPI_Datatype *ty = malloc(size * sizeof(MPI_Datatype));
		for (int i = 0; i < size; i++) { sb[i] = rank * 100 + i; rb[i] = -1; sc[i] = 1; sd[i] = i * 4; ty[i] = MPI_INT; }
		MPI_Alltoallw(sb, sc, sd, ty, rb, sc, sd, ty, MPI_COMM_WORLD);
		int ok = 1;
		for (int i = 0; i < size; i++) if (rb[i] != i * 100 + rank) ok = 0;
		CHECK(ok, "alltoallw");
	}

	/* persistent requests */
	if (size >= 2 && rank < 2) {
		int peer = 1 - rank, sbuf = 0, rbuf = -1;
		MPI_Request rq[2];
		MPI_Send_init(&sbuf, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq[0]);
		MPI_Recv_init(&rbuf, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq[1]);
		int ok = 1;
		for (int it = 0; it < 5; it++) {
			sbuf = rank * 1000 + it;
			MPI_Startall(2, rq);
			MPI_Status st[2];
			MPI_Waitall(2, rq, st);
			if (rbuf != peer * 1000 + it || st[1].MPI_SOURCE != peer || st[1].MPI_TAG != 7) ok = 0;
		}
		CHECK(ok && rq[0] != MPI_REQUEST_NULL, "persistent");
		MPI_Start(&rq[0]); MPI_Start(&rq[1]);
		MPI_Wait(&rq[0], MPI_STATUS_IGNORE); MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
		MPI_Request_free(&rq[0]); MPI_Request_free(&rq[1]);
		CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "persistent free");
	}

	/* Mprobe / Imrecv */
	if (size >= 2 && rank < 2) {
		int peer = 1 - rank, x = rank + 40, y = -1;
		MPI_Request sr;
		MPI_Isend(&x, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &sr);
		MPI_Message m; MPI_Status st;
		MPI_Mprobe(peer, 3, MPI_COMM_WORLD, &m, &st);
		int cnt = -1; MPI_Get_count(&st, MPI_INT, &cnt);
		CHECK(cnt == 1 && st.MPI_SOURCE == peer, "mprobe status");
		MPI_Request rr;
		MPI_Imrecv(&y, 1, MPI_INT, &m, &rr);
		CHECK(m == MPI_MESSAGE_NULL, "imrecv nulls message");
		MPI_Wait(&rr, &st);
		MPI_Wait(&sr, MPI_STATUS_IGNORE);
		CHECK(y == peer + 40 && st.MPI_TAG == 3, "imrecv data");
		int flag = 0;
		MPI_Isend(&x, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &sr);
		while (!flag) MPI_Improbe(peer, 4, MPI_COMM_WORLD, &flag, &m, &st);
		MPI_Mrecv(&y, 1, MPI_INT, &m, &st);
		MPI_Wait(&sr, MPI_STATUS_IGNORE);
		CHECK(y == peer + 40 && st.MPI_TAG == 4, "improbe/mrecv");
	}

	/* Buffer attach/detach + Bsend */
	if (size >= 2 && rank < 2) {
		int bsz = 1024 + MPI_BSEND_OVERHEAD;
		char *b = malloc(bsz);
		MPI_Buffer_attach(b, bsz);
		int peer = 1 - rank, x = rank + 7, y = -1;
		MPI_Bsend(&x, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
		MPI_Recv(&y, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		void *db; int dsz;
		MPI_Buffer_detach(&db, &dsz);
		CHECK(db == b && dsz == bsz && y == peer + 7, "bsend/detach");
		free(b);
	}

	/* Alloc_mem */
	{
		int *p = NULL;
		MPI_Alloc_mem(1000 * sizeof(int), MPI_INFO_NULL, &p);
		CHECK(p != NULL, "alloc_mem");
		for (int i = 0; i < 1000; i++) p[i] = i;
		MPI_Allreduce(MPI_IN_PLACE, p, 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		CHECK(p[999] == 999 * size, "alloc_mem buffer usable");
		MPI_Free_mem(p);
		void *q = malloc(16);  /* allocator still sane */
		CHECK(q != NULL, "malloc after free_mem");
		free(q);
	}

	/* intercommunicator */
	if (size >= 2) {
		int color = rank % 2;
		MPI_Comm local, inter;
		MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
		MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 5, &inter);
		int flag = 0, rsize = 0;
		MPI_Comm_test_inter(inter, &flag);
		MPI_Comm_remote_size(inter, &rsize);
		CHECK(flag && rsize == (color ? (size + 1) / 2 : size / 2), "intercomm test_inter/remote_size");
		int lr; MPI_Comm_rank(local, &lr);
		/* bcast from group 0's rank 0 into group 1 */
		int val = -1;
		if (color == 0) { val = 77; MPI_Bcast(&val, 1, MPI_INT, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter); }
		else MPI_Bcast(&val, 1, MPI_INT, 0, inter);
		CHECK(color == 0 || val == 77, "intercomm bcast");
		int sum = 0, one = rank;
		MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
		int exp = 0;
		for (int i = 0; i < size; i++) if (i % 2 != color) exp += i;
		CHECK(sum == exp, "intercomm allreduce");
		MPI_Comm merged; int mr, ms;
		MPI_Intercomm_merge(inter, color, &merged);
		MPI_Comm_rank(merged, &mr); MPI_Comm_size(merged, &ms);
		CHECK(ms == size, "intercomm merge size");
		MPI_Comm_free(&merged); MPI_Comm_free(&inter); MPI_Comm_free(&local);
		CHECK(inter == MPI_COMM_NULL, "comm free null");
	}

	MPI_Comm_free(&dup);
	int tp, tf;
	MPI_Reduce(&pass, &tp, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&fail, &tf, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) printf("t1: %d passed, %d failed\n", tp, tf);
	MPI_Finalize();
	return 0;
}
