/* Every blocking collective on MPI_COMM_WORLD, each also with MPI_IN_PLACE
 * where the standard allows it, plus MPI_Reduce_local. */
#include "tmpi.h"

#define MAXP 16
static int rank, size;

static long sum_to(int n) { return (long)n * (n - 1) / 2; }  /* 0+1+..+n-1 */

static void rooted(void)
{
	int root = size - 1, i, v[4] = {0}, all[MAXP * 2], counts[MAXP], displs[MAXP], ok;

	/* Bcast */
	if (rank == root) for (i = 0; i < 4; i++) v[i] = 100 + i;
	OK(MPI_Bcast(v, 4, MPI_INT, root, MPI_COMM_WORLD));
	CHECK(v[0] == 100 && v[3] == 103);
	OK(MPI_Barrier(MPI_COMM_WORLD));

	/* Gather, and in place at the root. */
	int mine[2] = {rank, rank * rank};
	OK(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD));
	if (rank == root) {
		for (ok = 1, i = 0; i < size; i++) ok &= all[2 * i] == i && all[2 * i + 1] == i * i;
		CHECK(ok);
		for (i = 0; i < 2 * size; i++) all[i] = -1;
		all[2 * root] = root; all[2 * root + 1] = root * root;
		OK(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD));
		for (ok = 1, i = 0; i < size; i++) ok &= all[2 * i] == i && all[2 * i + 1] == i * i;
		CHECK(ok);
		tm_out("gather in place: last pair %d %d", all[2 * size - 2], all[2 * size - 1]);
	} else {
		OK(MPI_Gather(mine, 2, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD));
	}

	/* Gatherv: rank i sends i+1 ints; root receives reversed order. */
	int send[MAXP], tot = 0;
	for (i = 0; i <= rank; i++) send[i] = rank * 10 + i;
	for (i = size - 1; i >= 0; i--) { counts[i] = i + 1; displs[i] = tot; tot += i + 1; }
	int gv[MAXP * MAXP];
	OK(MPI_Gatherv(send, rank + 1, MPI_INT, gv, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
	if (rank == root) {
		for (ok = 1, i = 0; i < size; i++) ok &= gv[displs[i]] == i * 10 && gv[displs[i] + i] == i * 11;
		CHECK(ok);
		for (i = 0; i < tot; i++) gv[i] = -1;
		for (i = 0; i <= root; i++) gv[displs[root] + i] = root * 10 + i;
		OK(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, gv, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
		for (ok = 1, i = 0; i < size; i++) ok &= gv[displs[i]] == i * 10 && gv[displs[i] + i] == i * 11;
		CHECK(ok);
	} else {
		OK(MPI_Gatherv(send, rank + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD));
	}

	/* Scatter and Scatterv (root keeps its part in place the second time). */
	int sc[MAXP * 2], got[MAXP] = {0};
	if (rank == root) for (i = 0; i < 2 * size; i++) sc[i] = 500 + i;
	OK(MPI_Scatter(sc, 2, MPI_INT, got, 2, MPI_INT, root, MPI_COMM_WORLD));
	CHECK(got[0] == 500 + 2 * rank && got[1] == 501 + 2 * rank);
	if (rank == root) {
		OK(MPI_Scatter(sc, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, root, MPI_COMM_WORLD));
		CHECK(sc[2 * root] == 500 + 2 * root);
	} else {
		got[0] = -1;
		OK(MPI_Scatter(NULL, 0, MPI_INT, got, 2, MPI_INT, root, MPI_COMM_WORLD));
		CHECK(got[0] == 500 + 2 * rank);
	}
	if (rank == root) for (i = 0; i < tot; i++) gv[i] = 700 + i;
	for (i = 0; i < MAXP; i++) got[i] = -1;
	OK(MPI_Scatterv(gv, counts, displs, MPI_INT, got, rank + 1, MPI_INT, root, MPI_COMM_WORLD));
	CHECK(got[0] == 700 + displs[rank] && got[rank] == 700 + displs[rank] + rank && got[rank + 1] == -1);
	if (rank == root)
		OK(MPI_Scatterv(gv, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root, MPI_COMM_WORLD));
	else
		OK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, got, rank + 1, MPI_INT, root, MPI_COMM_WORLD));
	CHECK(got[0] == 700 + displs[rank]);
	tm_out("scatterv first %d", got[0]);

	/* Reduce, in place at the root. */
	long lv = rank + 1, lr = 0;
	OK(MPI_Reduce(&lv, &lr, 1, MPI_LONG, MPI_PROD, root, MPI_COMM_WORLD));
	if (rank == root) {
		long f = 1;
		for (i = 2; i <= size; i++) f *= i;
		CHECK(lr == f);
		tm_out("reduce prod %ld", lr);
	}
	double dv[2] = {rank * 0.5, -rank}, dr[2];
	if (rank == root) {
		dr[0] = dv[0]; dr[1] = dv[1];
		OK(MPI_Reduce(MPI_IN_PLACE, dr, 2, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
		CHECK(dr[0] == (size - 1) * 0.5 && dr[1] == 0.0);
	} else {
		OK(MPI_Reduce(dv, NULL, 2, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
	}
}

static void symmetric(void)
{
	int i, j, ok, counts[MAXP], displs[MAXP], tot;
	int ag[MAXP * 3], mine[3] = {rank, -rank, rank * 7};

	/* Allgather and in place */
	OK(MPI_Allgather(mine, 3, MPI_INT, ag, 3, MPI_INT, MPI_COMM_WORLD));
	for (ok = 1, i = 0; i < size; i++) ok &= ag[3 * i] == i && ag[3 * i + 2] == 7 * i;
	CHECK(ok);
	for (i = 0; i < 3 * size; i++) ag[i] = (i / 3 == rank) ? ag[i] : -5;
	OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 3, MPI_INT, MPI_COMM_WORLD));
	for (ok = 1, i = 0; i < size; i++) ok &= ag[3 * i + 1] == -i;
	CHECK(ok);

	/* Allgatherv: rank i contributes i+1 chars. */
	char cs[MAXP], cr[MAXP * MAXP + 1];
	for (tot = 0, i = 0; i < size; i++) { counts[i] = i + 1; displs[i] = tot; tot += i + 1; }
	for (i = 0; i <= rank; i++) cs[i] = (char)('a' + rank);
	OK(MPI_Allgatherv(cs, rank + 1, MPI_CHAR, cr, counts, displs, MPI_CHAR, MPI_COMM_WORLD));
	cr[tot] = 0;
	if (rank == 0) tm_out("allgatherv %s", cr);
	for (i = 0; i < tot; i++) if (i < displs[rank] || i >= displs[rank] + rank + 1) cr[i] = '?';
	OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_CHAR, cr, counts, displs, MPI_CHAR, MPI_COMM_WORLD));
	CHECK(cr[tot - 1] == 'a' + size - 1 && cr[0] == 'a');

	/* Alltoall and in place: element (to j) = 100*rank + j. */
	int a2s[MAXP], a2r[MAXP];
	for (j = 0; j < size; j++) a2s[j] = 100 * rank + j;
	OK(MPI_Alltoall(a2s, 1, MPI_INT, a2r, 1, MPI_INT, MPI_COMM_WORLD));
	for (ok = 1, j = 0; j < size; j++) ok &= a2r[j] == 100 * j + rank;
	CHECK(ok);
	OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, a2s, 1, MPI_INT, MPI_COMM_WORLD));
	for (ok = 1, j = 0; j < size; j++) ok &= a2s[j] == 100 * j + rank;
	CHECK(ok);

	/* Alltoallv: rank r sends j+1 copies of r to rank j. */
	int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], vs[MAXP * MAXP], vr[MAXP * MAXP], n;
	for (n = 0, j = 0; j < size; j++) { sc[j] = rank + 1; sd[j] = n; n += sc[j]; }
	for (i = 0; i < n; i++) vs[i] = rank;
	for (n = 0, j = 0; j < size; j++) { rc[j] = j + 1; rd[j] = n; n += rc[j]; }
	OK(MPI_Alltoallv(vs, sc, sd, MPI_INT, vr, rc, rd, MPI_INT, MPI_COMM_WORLD));
	for (ok = 1, j = 0; j < size; j++) ok &= vr[rd[j]] == j && vr[rd[j] + j] == j;
	CHECK(ok);
	for (i = 0; i < n; i++) vr[i] = 1000 + rank;
	/* in place: counts must be symmetric, so use rc for both directions */
	for (j = 0; j < size; j++) { rc[j] = 2; rd[j] = 2 * j; vr[2 * j] = rank * 10 + j; vr[2 * j + 1] = -1; }
	OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, vr, rc, rd, MPI_INT, MPI_COMM_WORLD));
	for (ok = 1, j = 0; j < size; j++) ok &= vr[2 * j] == j * 10 + rank && vr[2 * j + 1] == -1;
	CHECK(ok);

	/* Alltoallw: to rank j an int then (separately) a double, byte displs. */
	struct { int i[MAXP]; double d[MAXP]; } ws, wr;
	int wc[MAXP], wsd[MAXP], wrd[MAXP];
	MPI_Datatype wt[MAXP];
	for (j = 0; j < size; j++) {
		ws.i[j] = rank * 1000 + j;
		wc[j] = 1;
		wt[j] = MPI_INT;
		wsd[j] = wrd[j] = (int)(j * sizeof(int));
	}
	OK(MPI_Alltoallw(ws.i, wc, wsd, wt, wr.i, wc, wrd, wt, MPI_COMM_WORLD));
	for (ok = 1, j = 0; j < size; j++) ok &= wr.i[j] == j * 1000 + rank;
	CHECK(ok);
	for (j = 0; j < size; j++) {
		wr.d[j] = rank + j / 10.0;
		wt[j] = MPI_DOUBLE;
		wrd[j] = (int)(j * sizeof(double));
	}
	OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, wr.d, wc, wrd, wt, MPI_COMM_WORLD));
	for (ok = 1, j = 0; j < size; j++) ok &= wr.d[j] == j + rank / 10.0;
	CHECK(ok);
	tm_out("alltoallw %d %.1f", wr.i[size - 1], wr.d[size - 1]);
}

static void reductions(void)
{
	int i, ok, v[3], r[3], blk[MAXP * 2], out[2], counts[MAXP];

	/* Allreduce and in place */
	v[0] = rank; v[1] = rank * 2; v[2] = 1;
	OK(MPI_Allreduce(v, r, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(r[0] == sum_to(size) && r[1] == 2 * sum_to(size) && r[2] == size);
	OK(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
	CHECK(v[0] == 0 && v[2] == 1);
	unsigned char bits = (unsigned char)(1u << rank), bor;
	OK(MPI_Allreduce(&bits, &bor, 1, MPI_UNSIGNED_CHAR, MPI_BOR, MPI_COMM_WORLD));
	CHECK(bor == (1u << size) - 1);
	int lg = rank > 0, land, lor;
	OK(MPI_Allreduce(&lg, &land, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
	OK(MPI_Allreduce(&lg, &lor, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
	CHECK(land == (size == 1 ? 0 : 0) && lor == (size > 1));
	tm_out("allreduce sum %d bor %u", r[0], bor);

	/* Reduce_scatter_block: each rank gets a block of 2, sum over ranks. */
	for (i = 0; i < 2 * size; i++) blk[i] = rank + i;
	OK(MPI_Reduce_scatter_block(blk, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(out[0] == sum_to(size) + size * 2 * rank && out[1] == out[0] + size);
	OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, blk, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(blk[0] == out[0] && blk[1] == out[1]);

	/* Reduce_scatter: rank i gets i+1 elements. */
	int tot = 0, rs[MAXP * MAXP], rr[MAXP];
	for (i = 0; i < size; i++) { counts[i] = i + 1; tot += i + 1; }
	for (i = 0; i < tot; i++) rs[i] = i;
	OK(MPI_Reduce_scatter(rs, rr, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	int base = rank * (rank + 1) / 2;
	for (ok = 1, i = 0; i <= rank; i++) ok &= rr[i] == size * (base + i);
	CHECK(ok);
	OK(MPI_Reduce_scatter(MPI_IN_PLACE, rs, counts, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	for (ok = 1, i = 0; i <= rank; i++) ok &= rs[i] == base + i;
	CHECK(ok);

	/* Scan / Exscan, and in place */
	double d = rank + 1.0, s;
	OK(MPI_Scan(&d, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	CHECK(s == (rank + 1) * (rank + 2) / 2.0);
	OK(MPI_Scan(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	CHECK(d == s);
	int e = rank + 1, ex = -99;
	OK(MPI_Exscan(&e, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	if (rank > 0) CHECK(ex == rank * (rank + 1) / 2);
	OK(MPI_Exscan(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
	if (rank > 0) { int f = 1; for (i = 1; i <= rank; i++) f *= i; CHECK(e == f); }
	tm_out("scan %.1f exscan %d", s, rank > 0 ? ex : 0);

	/* Reduce_local: inout = in op inout, no communication. */
	float a[3] = {1, 5, 3}, b[3] = {4, 2, 6};
	OK(MPI_Reduce_local(a, b, 3, MPI_FLOAT, MPI_MAX));
	CHECK(b[0] == 4 && b[1] == 5 && b[2] == 6);
	long long x[2] = {3, 4}, y[2] = {5, 6};
	OK(MPI_Reduce_local(x, y, 2, MPI_LONG_LONG, MPI_PROD));
	CHECK(y[0] == 15 && y[1] == 24);
	unsigned short m1 = 0xF0F0, m2 = 0x0FF0;
	OK(MPI_Reduce_local(&m1, &m2, 1, MPI_UNSIGNED_SHORT, MPI_BAND));
	CHECK(m2 == 0x00F0);
	OK(MPI_Reduce_local(&m1, &m2, 1, MPI_UNSIGNED_SHORT, MPI_BXOR));
	CHECK(m2 == 0xF000);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	if (size > MAXP) {
		if (rank == 0) fprintf(stderr, "coll: at most %d ranks\n", MAXP);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	rooted();
	symmetric();
	reductions();
	int rc = tm_finish("coll");
	MPI_Finalize();
	return rc;
}
