/* Point-to-point: blocking, buffered, ready, synchronous, nonblocking and
 * persistent sends; probes and matched probes; Sendrecv(_replace); cancel;
 * request free/get_status; the Wait/Test families; statuses and the
 * MPI_PROC_NULL / MPI_STATUS(ES)_IGNORE sentinels. */
#include "tmpi.h"

static int rank, size, right, left;

static void fill(int *b, int n, int seed)
{
	for (int i = 0; i < n; i++)
		b[i] = seed * 1000 + i;
}

static int same(const int *b, int n, int seed)
{
	for (int i = 0; i < n; i++)
		if (b[i] != seed * 1000 + i)
			return 0;
	return 1;
}

/* Blocking modes and statuses between ranks 0 and 1. */
static void pair_blocking(void)
{
	int buf[16], in[32], cnt, go = 0;
	MPI_Status st;
	MPI_Datatype pair;

	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	if (rank == 0) {
		fill(buf, 10, 1);
		OK(MPI_Send(buf, 10, MPI_INT, 1, 5, MPI_COMM_WORLD));
		fill(buf, 8, 2);
		OK(MPI_Ssend(buf, 8, MPI_INT, 1, 6, MPI_COMM_WORLD));
		/* Ready mode: only once rank 1 says its receive is posted. */
		OK(MPI_Recv(&go, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		fill(buf, 4, 3);
		OK(MPI_Rsend(buf, 4, MPI_INT, 1, 8, MPI_COMM_WORLD));
		fill(buf, 6, 4);
		OK(MPI_Send(buf, 3, pair, 1, 9, MPI_COMM_WORLD));
		fill(buf, 5, 5);
		OK(MPI_Send(buf, 5, MPI_INT, 1, 10, MPI_COMM_WORLD));
		fill(buf, 10, 6);
		OK(MPI_Send(buf, 10, MPI_INT, 1, 11, MPI_COMM_WORLD));
	} else if (rank == 1) {
		MPI_Request rq;
		OK(MPI_Recv(in, 32, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
		OK(MPI_Get_count(&st, MPI_INT, &cnt));
		CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 5 && cnt == 10 && same(in, 10, 1));
		tm_out("recv from %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
		OK(MPI_Recv(in, 32, MPI_INT, 0, 6, MPI_COMM_WORLD, &st));
		OK(MPI_Get_count(&st, MPI_INT, &cnt));
		CHECK(cnt == 8 && same(in, 8, 2));
		OK(MPI_Irecv(in, 32, MPI_INT, 0, 8, MPI_COMM_WORLD, &rq));
		OK(MPI_Send(&go, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
		OK(MPI_Wait(&rq, &st));
		CHECK(rq == MPI_REQUEST_NULL);
		OK(MPI_Get_count(&st, MPI_INT, &cnt));
		CHECK(cnt == 4 && same(in, 4, 3) && st.MPI_TAG == 8);
		/* Get_count / Get_elements with a derived type. */
		OK(MPI_Recv(in, 32, MPI_INT, 0, 9, MPI_COMM_WORLD, &st));
		OK(MPI_Get_count(&st, MPI_INT, &cnt));
		CHECK(cnt == 6 && same(in, 6, 4));
		OK(MPI_Get_count(&st, pair, &cnt));
		CHECK(cnt == 3);
		OK(MPI_Recv(in, 16, pair, 0, 10, MPI_COMM_WORLD, &st));
		OK(MPI_Get_count(&st, pair, &cnt));
		CHECK(cnt == MPI_UNDEFINED);
		OK(MPI_Get_elements(&st, pair, &cnt));
		CHECK(cnt == 5 && same(in, 5, 5));
		tm_out("pair elements %d", cnt);
		/* A too-small receive: MPI_ERR_IN_STATUS and the per-request error. */
		MPI_Request rs[2];
		MPI_Status sts[2];
		int small[4], one = -1, rc;
		OK(MPI_Irecv(small, 4, MPI_INT, 0, 11, MPI_COMM_WORLD, &rs[0]));
		OK(MPI_Irecv(&one, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rs[1]));
		rc = MPI_Waitall(2, rs, sts);
		tm_out("truncated waitall %s status0 %s", tm_class(rc), tm_class(sts[0].MPI_ERROR));
		CHECK(rc != MPI_SUCCESS);
	}
	MPI_Type_free(&pair);
	CHECK(pair == MPI_DATATYPE_NULL);
}

/* Buffered mode with an attached buffer, then detach. */
static void pair_buffered(void)
{
	int psize, bsize, buf[8], in[8], dsize;
	char *mem;
	void *det;
	MPI_Request rq;

	MPI_Pack_size(8, MPI_INT, MPI_COMM_WORLD, &psize);
	bsize = 3 * (psize + MPI_BSEND_OVERHEAD);
	mem = malloc((size_t)bsize);
	OK(MPI_Buffer_attach(mem, bsize));
	if (rank == 0) {
		fill(buf, 8, 7);
		OK(MPI_Bsend(buf, 8, MPI_INT, 1, 20, MPI_COMM_WORLD));
		fill(buf, 8, 8);   /* the data was copied: reuse is safe */
		OK(MPI_Ibsend(buf, 8, MPI_INT, 1, 21, MPI_COMM_WORLD, &rq));
		OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	} else if (rank == 1) {
		OK(MPI_Recv(in, 8, MPI_INT, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK(same(in, 8, 7));
		OK(MPI_Recv(in, 8, MPI_INT, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK(same(in, 8, 8));
	}
	OK(MPI_Buffer_detach(&det, &dsize));
	CHECK(det == (void *)mem && dsize == bsize);
	free(mem);
}

/* Nonblocking ring, Wait/Test families. */
static void ring_nonblocking(void)
{
	int out[3][4], in[3][4], idx, n, flag, i, done, indices[6];
	MPI_Request rq[6];
	MPI_Status sts[6];

	for (i = 0; i < 3; i++) fill(out[i], 4, rank * 10 + i);
	OK(MPI_Irecv(in[0], 4, MPI_INT, left, 30, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Irecv(in[1], 4, MPI_INT, left, 31, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Irecv(in[2], 4, MPI_INT, left, 32, MPI_COMM_WORLD, &rq[2]));
	OK(MPI_Isend(out[0], 4, MPI_INT, right, 30, MPI_COMM_WORLD, &rq[3]));
	OK(MPI_Issend(out[1], 4, MPI_INT, right, 31, MPI_COMM_WORLD, &rq[4]));
	OK(MPI_Isend(out[2], 4, MPI_INT, right, 32, MPI_COMM_WORLD, &rq[5]));
	/* Waitany until all three receives are done. */
	for (done = 0; done < 3; done++) {
		OK(MPI_Waitany(3, rq, &idx, &sts[0]));
		CHECK(idx >= 0 && idx < 3 && sts[0].MPI_TAG == 30 + idx && sts[0].MPI_SOURCE == left);
	}
	OK(MPI_Waitany(3, rq, &idx, MPI_STATUS_IGNORE));
	CHECK(idx == MPI_UNDEFINED);
	OK(MPI_Testany(3, rq, &idx, &flag, MPI_STATUS_IGNORE));
	CHECK(flag && idx == MPI_UNDEFINED);
	OK(MPI_Waitall(3, rq + 3, MPI_STATUSES_IGNORE));
	for (i = 0; i < 3; i++) CHECK(same(in[i], 4, left * 10 + i));
	tm_out("ring from %d: %d %d %d", left, in[0][0], in[1][0], in[2][3]);

	/* Testall / Testsome / Waitsome. */
	OK(MPI_Irecv(in[0], 4, MPI_INT, left, 33, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Irecv(in[1], 4, MPI_INT, left, 34, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Isend(out[0], 4, MPI_INT, right, 33, MPI_COMM_WORLD, &rq[2]));
	OK(MPI_Isend(out[1], 4, MPI_INT, right, 34, MPI_COMM_WORLD, &rq[3]));
	do OK(MPI_Testall(4, rq, &flag, sts)); while (!flag);
	CHECK(sts[0].MPI_TAG == 33 && sts[1].MPI_TAG == 34 && sts[1].MPI_SOURCE == left);
	CHECK(rq[0] == MPI_REQUEST_NULL && rq[3] == MPI_REQUEST_NULL);

	OK(MPI_Irecv(in[0], 4, MPI_INT, left, 35, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Irecv(in[1], 4, MPI_INT, left, 36, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Isend(out[0], 4, MPI_INT, right, 35, MPI_COMM_WORLD, &rq[2]));
	OK(MPI_Isend(out[1], 4, MPI_INT, right, 36, MPI_COMM_WORLD, &rq[3]));
	for (done = 0; done < 4; ) {
		OK(MPI_Testsome(4, rq, &n, indices, sts));
		if (n == MPI_UNDEFINED) break;
		done += n;
		if (n > 0) continue;
		OK(MPI_Waitsome(4, rq, &n, indices, MPI_STATUSES_IGNORE));
		CHECK(n >= 1);
		done += n;
	}
	CHECK(done == 4);
	OK(MPI_Waitsome(4, rq, &n, indices, sts));
	CHECK(n == MPI_UNDEFINED);
	CHECK(same(in[0], 4, left * 10) && same(in[1], 4, left * 10 + 1));
}

/* Persistent requests in every mode, started repeatedly. */
static void persistent(void)
{
	int out[4], in[4], it, go = 0;
	MPI_Request rq[2];
	MPI_Status st;

	OK(MPI_Recv_init(in, 4, MPI_INT, left, 40, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Send_init(out, 4, MPI_INT, right, 40, MPI_COMM_WORLD, &rq[1]));
	for (it = 0; it < 3; it++) {
		fill(out, 4, rank + it);
		OK(MPI_Startall(2, rq));
		OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		CHECK(rq[0] != MPI_REQUEST_NULL && same(in, 4, left + it));
	}
	OK(MPI_Request_free(&rq[0]));
	OK(MPI_Request_free(&rq[1]));
	CHECK(rq[0] == MPI_REQUEST_NULL);

	OK(MPI_Recv_init(in, 4, MPI_INT, left, 41, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Ssend_init(out, 4, MPI_INT, right, 41, MPI_COMM_WORLD, &rq[1]));
	for (it = 0; it < 2; it++) {
		fill(out, 4, 50 + rank + it);
		OK(MPI_Start(&rq[0]));
		OK(MPI_Start(&rq[1]));
		OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
		OK(MPI_Wait(&rq[0], &st));
		CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 41 && same(in, 4, 50 + left + it));
	}
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);

	if (size < 2 || rank > 1)
		return;
	if (rank == 0) {
		int psize, bsize, dsize;
		void *mem, *det;
		MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, &psize);
		bsize = psize + MPI_BSEND_OVERHEAD;
		mem = malloc((size_t)bsize);
		OK(MPI_Buffer_attach(mem, bsize));
		OK(MPI_Bsend_init(out, 4, MPI_INT, 1, 42, MPI_COMM_WORLD, &rq[0]));
		OK(MPI_Rsend_init(out, 4, MPI_INT, 1, 43, MPI_COMM_WORLD, &rq[1]));
		fill(out, 4, 60);
		OK(MPI_Start(&rq[0]));
		OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
		OK(MPI_Recv(&go, 1, MPI_INT, 1, 44, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		fill(out, 4, 61);
		OK(MPI_Start(&rq[1]));
		OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
		MPI_Request_free(&rq[0]);
		MPI_Request_free(&rq[1]);
		OK(MPI_Buffer_detach(&det, &dsize));
		free(mem);
	} else {
		OK(MPI_Recv(in, 4, MPI_INT, 0, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK(same(in, 4, 60));
		OK(MPI_Irecv(in, 4, MPI_INT, 0, 43, MPI_COMM_WORLD, &rq[0]));
		OK(MPI_Send(&go, 1, MPI_INT, 0, 44, MPI_COMM_WORLD));
		OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
		CHECK(same(in, 4, 61));
	}
}

/* Probe, Iprobe, Mprobe/Mrecv, Improbe/Imrecv. */
static void probes(void)
{
	double d[5] = {1.5, 2.5, 3.5, 4.5, 5.5}, r[5];
	int flag = 0, cnt;
	MPI_Status st;
	MPI_Message msg;
	MPI_Request rq;

	if (size >= 2 && rank == 0) {
		OK(MPI_Send(d, 4, MPI_DOUBLE, 1, 50, MPI_COMM_WORLD));
		OK(MPI_Send(d, 5, MPI_DOUBLE, 1, 51, MPI_COMM_WORLD));
		OK(MPI_Send(d, 3, MPI_DOUBLE, 1, 52, MPI_COMM_WORLD));
		OK(MPI_Send(d, 2, MPI_DOUBLE, 1, 53, MPI_COMM_WORLD));
	} else if (size >= 2 && rank == 1) {
		OK(MPI_Probe(0, 50, MPI_COMM_WORLD, &st));
		OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
		CHECK(cnt == 4 && st.MPI_SOURCE == 0 && st.MPI_TAG == 50);
		OK(MPI_Recv(r, cnt, MPI_DOUBLE, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK(r[3] == 4.5);
		do OK(MPI_Iprobe(MPI_ANY_SOURCE, 51, MPI_COMM_WORLD, &flag, &st)); while (!flag);
		OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
		CHECK(cnt == 5);
		OK(MPI_Recv(r, 5, MPI_DOUBLE, 0, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		OK(MPI_Mprobe(0, 52, MPI_COMM_WORLD, &msg, &st));
		OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
		CHECK(cnt == 3 && msg != MPI_MESSAGE_NULL);
		OK(MPI_Mrecv(r, cnt, MPI_DOUBLE, &msg, &st));
		CHECK(msg == MPI_MESSAGE_NULL && r[2] == 3.5 && st.MPI_TAG == 52);
		flag = 0;
		do OK(MPI_Improbe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st)); while (!flag);
		CHECK(st.MPI_TAG == 53);
		OK(MPI_Imrecv(r, 2, MPI_DOUBLE, &msg, &rq));
		OK(MPI_Wait(&rq, &st));
		OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
		CHECK(cnt == 2 && r[1] == 2.5);
		tm_out("probed counts ok, last tag %d", st.MPI_TAG);
	}
	/* Matched probe of MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC. */
	OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
	CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
	OK(MPI_Mrecv(r, 1, MPI_DOUBLE, &msg, &st));
	CHECK(msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL);
}

static void sendrecv_and_null(void)
{
	int a[3], b[3], cnt;
	MPI_Status st;

	fill(a, 3, rank);
	OK(MPI_Sendrecv(a, 3, MPI_INT, right, 60, b, 3, MPI_INT, left, 60, MPI_COMM_WORLD, &st));
	CHECK(same(b, 3, left) && st.MPI_SOURCE == left && st.MPI_TAG == 60);
	OK(MPI_Sendrecv_replace(a, 3, MPI_INT, right, 61, left, 61, MPI_COMM_WORLD, &st));
	CHECK(same(a, 3, left));
	tm_out("sendrecv_replace got %d", a[0]);
	/* MPI_PROC_NULL: no-op sends, empty receives with a defined status. */
	OK(MPI_Send(a, 3, MPI_INT, MPI_PROC_NULL, 62, MPI_COMM_WORLD));
	a[0] = 77;
	OK(MPI_Recv(a, 3, MPI_INT, MPI_PROC_NULL, 62, MPI_COMM_WORLD, &st));
	OK(MPI_Get_count(&st, MPI_INT, &cnt));
	CHECK(a[0] == 77 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0);
	OK(MPI_Sendrecv(a, 3, MPI_INT, MPI_PROC_NULL, 63, b, 3, MPI_INT, MPI_PROC_NULL, 63,
	                MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* Cancel, Test_cancelled, Request_get_status, Request_free. */
static void cancel_and_status(void)
{
	int x = -1, flag = 0, v = rank;
	MPI_Request rq;
	MPI_Status st;

	OK(MPI_Irecv(&x, 1, MPI_INT, left, 999, MPI_COMM_WORLD, &rq));
	OK(MPI_Cancel(&rq));
	OK(MPI_Wait(&rq, &st));
	OK(MPI_Test_cancelled(&st, &flag));
	CHECK(flag == 1 && x == -1);

	OK(MPI_Irecv(&x, 1, MPI_INT, left, 70, MPI_COMM_WORLD, &rq));
	OK(MPI_Send(&v, 1, MPI_INT, right, 70, MPI_COMM_WORLD));
	do OK(MPI_Request_get_status(rq, &flag, &st)); while (!flag);
	CHECK(rq != MPI_REQUEST_NULL && st.MPI_SOURCE == left);
	OK(MPI_Test_cancelled(&st, &flag));
	CHECK(flag == 0);
	OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK(x == left);

	/* A freed active send still completes. */
	OK(MPI_Isend(&v, 1, MPI_INT, right, 71, MPI_COMM_WORLD, &rq));
	OK(MPI_Request_free(&rq));
	CHECK(rq == MPI_REQUEST_NULL);
	OK(MPI_Recv(&x, 1, MPI_INT, left, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(x == left);
	rq = MPI_REQUEST_NULL;
	OK(MPI_Test(&rq, &flag, &st));
	CHECK(flag == 1);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	if (size >= 2)
		pair_blocking();
	if (size >= 2)
		pair_buffered();
	ring_nonblocking();
	persistent();
	probes();
	sendrecv_and_null();
	cancel_and_status();
	int rc = tm_finish("p2p");
	MPI_Finalize();
	return rc;
}
