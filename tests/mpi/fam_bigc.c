/* fam_bigc.c - MPI-4's large-count procedures (the _c versions) with
 * counts that fit in an int: point-to-point (blocking, nonblocking,
 * persistent, Sendrecv), probe and Get_count_c/Get_elements_c, Bcast,
 * Allreduce, Reduce, Gatherv/Scatterv/Allgatherv/Alltoallv (MPI_Count
 * arrays, MPI_Aint displacements), a nonblocking Ialltoallv, datatype
 * queries and constructors (Type_size_c, Type_get_extent_c,
 * Type_contiguous_c, Type_vector_c, Type_create_hindexed_c), Pack_c and
 * Unpack_c with an MPI_Count position, MPI-IO (File_write_at_c,
 * File_read_at_c, File_read_c, File_get_type_extent_c) in fam_bigc.d/, and
 * one-sided Put_c/Get_c/Accumulate_c on a window made by Win_create_c.
 *
 * The module calls the _c procedures.  Natively, an MPI-4 library (MPICH
 * 4) is called through its own _c procedures too; Open MPI 4.1 has none,
 * so there the same program calls the int ones (C_ below), and its output
 * must equal the module's.  tests/mpi/run.sh creates fam_bigc.d/ and
 * grants it to the module. */
#include "tmpi.h"
#include <stdint.h>

#if defined(__wasm__) || MPI_VERSION >= 4
#define C_(f) f##_c
typedef MPI_Count cnt_t;
typedef MPI_Aint disp_t;
typedef MPI_Count ext_t;
#define LARGE 1
#else
#define C_(f) f
typedef int cnt_t;
typedef int disp_t;
typedef MPI_Aint ext_t;
#define LARGE 0
#endif

static int rank, size, left, right;

static void p2p(void)
{
	int out[5], in[5] = {0}, out2[3], in2[3] = {0}, pin[4] = {0}, pout[4];
	MPI_Status st;
	MPI_Request rq[2];
	cnt_t c = -1, e = -1;
	for (int i = 0; i < 5; i++)
		out[i] = rank * 10 + i;
	/* Blocking ring, even ranks send first; alone, the receive is posted
	 * first (a blocking send to oneself may wait for it: MPICH's does). */
	if (size == 1) {
		OK(C_(MPI_Irecv)(in, 5, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[0]));
		OK(C_(MPI_Send)(out, 5, MPI_INT, right, 1, MPI_COMM_WORLD));
		OK(MPI_Wait(&rq[0], &st));
	} else if (rank % 2 == 0) {
		OK(C_(MPI_Send)(out, 5, MPI_INT, right, 1, MPI_COMM_WORLD));
		OK(C_(MPI_Recv)(in, 5, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
	} else {
		OK(C_(MPI_Recv)(in, 5, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
		OK(C_(MPI_Send)(out, 5, MPI_INT, right, 1, MPI_COMM_WORLD));
	}
	OK(C_(MPI_Get_count)(&st, MPI_INT, &c));
	OK(C_(MPI_Get_elements)(&st, MPI_SHORT, &e));
	CHECK(c == 5 && e == 10);
	CHECK(in[0] == left * 10 && in[4] == left * 10 + 4);
	tm_out("p2p: got %d..%d from %d, count %lld, %lld shorts", in[0], in[4], left,
	       (long long)c, (long long)e);
	/* A byte count that is not a whole number of ints. */
	OK(C_(MPI_Get_count)(&st, MPI_DOUBLE, &c));
	CHECK(c == MPI_UNDEFINED);

	/* Nonblocking. */
	for (int i = 0; i < 3; i++)
		out2[i] = 100 * rank + i;
	OK(C_(MPI_Irecv)(in2, 3, MPI_INT, right, 2, MPI_COMM_WORLD, &rq[0]));
	OK(C_(MPI_Isend)(out2, 3, MPI_INT, left, 2, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	CHECK(in2[2] == 100 * right + 2);
	tm_out("isend: %d %d %d from %d", in2[0], in2[1], in2[2], right);

	/* Persistent, twice. */
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 4; i++)
			pout[i] = 1000 * k + 10 * rank + i;
		OK(C_(MPI_Recv_init)(pin, 4, MPI_INT, left, 3, MPI_COMM_WORLD, &rq[0]));
		OK(C_(MPI_Send_init)(pout, 4, MPI_INT, right, 3, MPI_COMM_WORLD, &rq[1]));
		OK(MPI_Startall(2, rq));
		OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		OK(MPI_Request_free(&rq[0]));
		OK(MPI_Request_free(&rq[1]));
		CHECK(pin[3] == 1000 * k + 10 * left + 3);
	}
	tm_out("persistent: last %d %d", pin[0], pin[3]);

	/* Sendrecv and probe. */
	double d[2] = { rank + 0.5, rank + 0.25 }, r[2] = {0};
	OK(C_(MPI_Sendrecv)(d, 2, MPI_DOUBLE, right, 4, r, 2, MPI_DOUBLE, left, 4,
	                    MPI_COMM_WORLD, &st));
	CHECK(r[0] == left + 0.5 && r[1] == left + 0.25);
	OK(C_(MPI_Isend)(d, 2, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Probe(left, 5, MPI_COMM_WORLD, &st));
	OK(C_(MPI_Get_count)(&st, MPI_DOUBLE, &c));
	OK(C_(MPI_Recv)(r, (cnt_t)c, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
	tm_out("sendrecv: %.2f %.2f; probed count %lld", r[0], r[1], (long long)c);
}

static void coll(void)
{
	double b[7];
	int v[3], sum[3], red[3] = {0};
	for (int i = 0; i < 7; i++)
		b[i] = rank == 1 % size ? 1.5 * i : -1;
	OK(C_(MPI_Bcast)(b, 7, MPI_DOUBLE, 1 % size, MPI_COMM_WORLD));
	CHECK(b[6] == 9.0);
	for (int i = 0; i < 3; i++)
		v[i] = rank + i;
	OK(C_(MPI_Allreduce)(v, sum, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	OK(C_(MPI_Reduce)(v, red, 3, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
	CHECK(sum[0] == size * (size - 1) / 2);
	tm_out("bcast %.1f; allreduce %d %d %d", b[6], sum[0], sum[1], sum[2]);
	if (rank == 0)
		tm_out("reduce max %d %d %d", red[0], red[1], red[2]);

	/* v-collectives: rank r contributes r+1 ints, laid out with a gap of
	 * one between blocks. */
	cnt_t counts[8], scounts[8], rcounts[8];
	disp_t displs[8], sd[8], rd[8];
	int mine[8], all[64], tot = 0;
	for (int i = 0; i <= rank; i++)
		mine[i] = 100 * rank + i;
	for (int p = 0; p < size; p++) {
		counts[p] = p + 1;
		displs[p] = tot;
		tot += p + 2;
	}
	for (int i = 0; i < 64; i++)
		all[i] = -1;
	OK(C_(MPI_Allgatherv)(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT,
	                      MPI_COMM_WORLD));
	int good = 1;
	for (int p = 0; p < size; p++)
		for (int i = 0; i <= p; i++)
			good &= all[displs[p] + i] == 100 * p + i;
	CHECK(good);
	tm_out("allgatherv: last block %d..%d, gap %d", all[displs[size - 1]],
	       all[displs[size - 1] + size - 1], all[tot - 1]);

	for (int i = 0; i < 64; i++)
		all[i] = -1;
	OK(C_(MPI_Gatherv)(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0,
	                   MPI_COMM_WORLD));
	if (rank == 0) {
		good = 1;
		for (int p = 0; p < size; p++)
			good &= all[displs[p] + p] == 100 * p + p;
		CHECK(good);
		tm_out("gatherv: root has %d", all[displs[size - 1] + size - 1]);
	}
	int part[8] = {0};
	OK(C_(MPI_Scatterv)(all, counts, displs, MPI_INT, part, rank + 1, MPI_INT, 0,
	                    MPI_COMM_WORLD));
	CHECK(part[rank] == 100 * rank + rank);
	tm_out("scatterv: %d", part[rank]);

	/* Alltoallv: to peer p, p+1 ints of value 1000*rank+p. */
	int sb[64], rb[64];
	int so = 0, ro = 0;
	for (int p = 0; p < size; p++) {
		scounts[p] = p + 1;
		sd[p] = so;
		for (int i = 0; i <= p; i++)
			sb[so + i] = 1000 * rank + p;
		so += p + 1;
		rcounts[p] = rank + 1;
		rd[p] = ro;
		ro += rank + 1;
	}
	OK(C_(MPI_Alltoallv)(sb, scounts, sd, MPI_INT, rb, rcounts, rd, MPI_INT,
	                     MPI_COMM_WORLD));
	good = 1;
	for (int p = 0; p < size; p++)
		for (int i = 0; i <= rank; i++)
			good &= rb[rd[p] + i] == 1000 * p + rank;
	CHECK(good);
	for (int i = 0; i < 64; i++)
		rb[i] = -1;
	MPI_Request rq;
	OK(C_(MPI_Ialltoallv)(sb, scounts, sd, MPI_INT, rb, rcounts, rd, MPI_INT,
	                      MPI_COMM_WORLD, &rq));
	OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK(rb[rd[size - 1]] == 1000 * (size - 1) + rank);
	tm_out("alltoallv: from last %d, nonblocking %d", rb[rd[size - 1]], rb[ro - 1]);
}

static void types(void)
{
	cnt_t sz = -1, psize = -1;
	ext_t lb = -1, ext = -1;
	MPI_Datatype t3, vec, hix;
	OK(C_(MPI_Type_size)(MPI_DOUBLE, &sz));
	CHECK(sz == 8);
	OK(C_(MPI_Type_contiguous)(3, MPI_INT, &t3));
	OK(MPI_Type_commit(&t3));
	OK(C_(MPI_Type_size)(t3, &sz));
	OK(C_(MPI_Type_get_extent)(t3, &lb, &ext));
	CHECK(sz == 12 && lb == 0 && ext == 12);
	tm_out("contiguous(3, int): size %lld lb %lld extent %lld", (long long)sz,
	       (long long)lb, (long long)ext);
	OK(C_(MPI_Type_vector)(3, 2, 4, MPI_SHORT, &vec));
	OK(MPI_Type_commit(&vec));
	OK(C_(MPI_Type_size)(vec, &sz));
	OK(C_(MPI_Type_get_true_extent)(vec, &lb, &ext));
	CHECK(sz == 12 && ext == 20);
	tm_out("vector(3, 2, 4, short): size %lld true extent %lld", (long long)sz,
	       (long long)ext);
	cnt_t bl[2] = { 1, 2 };
#if LARGE
	MPI_Count hd[2] = { 4, 16 };
#else
	MPI_Aint hd[2] = { 4, 16 };
#endif
	OK(C_(MPI_Type_create_hindexed)(2, bl, hd, MPI_INT, &hix));
	OK(MPI_Type_commit(&hix));
	OK(C_(MPI_Type_get_extent)(hix, &lb, &ext));
	OK(C_(MPI_Type_size)(hix, &sz));
	CHECK(lb == 4 && ext == 20 && sz == 12);
	tm_out("hindexed: lb %lld extent %lld size %lld", (long long)lb, (long long)ext,
	       (long long)sz);

	/* Pack and unpack with an MPI_Count position. */
	char pk[64];
	int src[12], dst[12] = {0};
	for (int i = 0; i < 12; i++)
		src[i] = i * i;
#if LARGE
	MPI_Count pos = 0;
#else
	int pos = 0;
#endif
	OK(C_(MPI_Pack_size)(2, vec, MPI_COMM_WORLD, &psize));
	CHECK(psize >= 24);
	OK(C_(MPI_Pack)(src, 1, vec, pk, (cnt_t)sizeof pk, &pos, MPI_COMM_WORLD));
	OK(C_(MPI_Pack)(src, 2, MPI_INT, pk, (cnt_t)sizeof pk, &pos, MPI_COMM_WORLD));
	CHECK(pos == 20);
	pos = 0;
	OK(C_(MPI_Unpack)(pk, (cnt_t)sizeof pk, &pos, dst, 1, vec, MPI_COMM_WORLD));
	CHECK(pos == 12);
	short *s = (short *)src, *d = (short *)dst;
	CHECK(d[0] == s[0] && d[9] == s[9] && d[2] == 0);
	tm_out("pack: position 20, unpacked vector %d %d", d[8], d[9]);
	MPI_Type_free(&t3);
	MPI_Type_free(&vec);
	MPI_Type_free(&hix);
}

static void io(void)
{
	MPI_File fh;
	MPI_Status st;
	cnt_t c = -1;
	int w[4], r[8] = {0};
	for (int i = 0; i < 4; i++)
		w[i] = 10 * rank + i;
	OK(MPI_File_open(MPI_COMM_WORLD, "fam_bigc.d/data", MPI_MODE_CREATE | MPI_MODE_RDWR,
	                 MPI_INFO_NULL, &fh));
	OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
	OK(C_(MPI_File_write_at)(fh, (MPI_Offset)(16 * rank), w, 4, MPI_INT, &st));
	OK(C_(MPI_Get_count)(&st, MPI_INT, &c));
	CHECK(c == 4);
	OK(MPI_File_sync(fh));
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_sync(fh));
	OK(C_(MPI_File_read_at)(fh, (MPI_Offset)(16 * left), r, 4, MPI_INT, &st));
	CHECK(r[3] == 10 * left + 3);
	OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
	OK(C_(MPI_File_read)(fh, r + 4, 2, MPI_INT, &st));
	OK(C_(MPI_Get_count)(&st, MPI_INT, &c));
	CHECK(r[4] == 0 && r[5] == 1 && c == 2);
	ext_t fe = -1;
#if LARGE
	MPI_Count fext = -1;
#else
	MPI_Aint fext = -1;
#endif
	OK(C_(MPI_File_get_type_extent)(fh, MPI_DOUBLE, &fext));
	fe = fext;
	CHECK(fe == 8);
	tm_out("io: read %d..%d from %d's block; first two %d %d; count %lld",
	       r[0], r[3], left, r[4], r[5], (long long)c);
	OK(MPI_File_close(&fh));
}

static void rma(void)
{
	int wb[8], got = -1, one = 1;
	MPI_Win win;
	/* Open MPI 4.1 makes no window on a 1-process communicator (its osc
	 * components need a peer); fam_rma covers that case. */
	if (size == 1) {
		tm_out("rma: not on 1 process");
		return;
	}
	for (int i = 0; i < 8; i++)
		wb[i] = rank * 100 + i;
	OK(C_(MPI_Win_create)(wb, (MPI_Aint)sizeof wb, (disp_t)sizeof(int), MPI_INFO_NULL,
	                      MPI_COMM_WORLD, &win));
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	int mine[2] = { rank, -rank };
	OK(MPI_Win_fence(0, win));
	OK(C_(MPI_Put)(mine, 2, MPI_INT, right, 0, 2, MPI_INT, win));
	OK(C_(MPI_Get)(&got, 1, MPI_INT, left, 5, 1, MPI_INT, win));
	OK(C_(MPI_Accumulate)(&one, 1, MPI_INT, 0, 7, 1, MPI_INT, MPI_SUM, win));
	OK(MPI_Win_fence(0, win));
	CHECK(wb[0] == left && wb[1] == -left && got == left * 100 + 5);
	if (rank == 0)
		CHECK(wb[7] == 7 + size);
	tm_out("rma: put %d %d, get %d, accumulate %d", wb[0], wb[1], got,
	       rank == 0 ? wb[7] : -1);
	OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	p2p();
	coll();
	types();
	io();
	rma();
	int rc = tm_finish("fam_bigc");
	MPI_Finalize();
	return rc;
}
