/* fam_nbc.c - nonblocking collectives and neighborhood collectives.
 * Several operations in flight at once with point-to-point traffic and a
 * blocking reduction in between; completion through Wait, Waitall,
 * Waitsome, Test, Testany, Testall, Request_get_status and Request_free;
 * user-defined ops (one of them not commutative) in the nonblocking
 * reductions; neighborhood collectives, blocking and not, on periodic
 * cartesian, graph and distributed-graph communicators.  Under mpiwasm
 * only, bad buffers and arrays must be refused with an error class. */
#include "tmpi.h"
#include <stdint.h>

static int rank, size;

#define P 1009   /* values of the affine op stay below P */

/* x -> a*x + b (mod P); u op v applies u, then v: not commutative. */
static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const int *u = (const int *)in;
	int *v = (int *)inout;
	(void)dt;
	for (int i = 0; i < *len; i++) {
		int a = (v[2 * i] * u[2 * i]) % P;
		int b = (v[2 * i] * u[2 * i + 1] + v[2 * i + 1]) % P;
		v[2 * i] = a;
		v[2 * i + 1] = b;
	}
}

static void sum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((const int *)in)[i];
}

static void max_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	for (int i = 0; i < *len; i++)
		if (((const int *)in)[i] > ((int *)inout)[i])
			((int *)inout)[i] = ((const int *)in)[i];
}

/* The affine pair rank r contributes in element i. */
static void aff_of(int r, int i, int *a, int *b)
{
	*a = (r + 2 + i) % P;
	*b = (3 * r + 1 + i) % P;
}

static MPI_Datatype t_pair;   /* two ints */
static MPI_Op op_aff, op_sum, op_max;

/* ---- several collectives in flight, completed by Waitall ------------------ */
static void overlap_waitall(void)
{
	MPI_Request rq[6];
	int bc[8], aff[6], red[4], redr[4] = {0, 0, 0, 0};
	int *w_s = malloc(sizeof(int) * 2 * (size_t)size), *w_r = malloc(sizeof(int) * 2 * (size_t)size);
	int *cnt_s = malloc(sizeof(int) * (size_t)size), *dis_s = malloc(sizeof(int) * (size_t)size);
	int *cnt_r = malloc(sizeof(int) * (size_t)size), *dis_r = malloc(sizeof(int) * (size_t)size);
	MPI_Datatype *ty_s = malloc(sizeof(MPI_Datatype) * (size_t)size);
	MPI_Datatype *ty_r = malloc(sizeof(MPI_Datatype) * (size_t)size);
	int root = size - 1;
	for (int i = 0; i < 8; i++)
		bc[i] = rank == root ? 40 + i : -1;
	for (int i = 0; i < 3; i++)
		aff_of(rank, i, &aff[2 * i], &aff[2 * i + 1]);
	for (int i = 0; i < 4; i++)
		red[i] = rank * 10 + i;
	/* alltoallw: to peer j two ints, as 2 x MPI_INT or 1 x pair, at
	 * byte displacement 8*j; received the other way round. */
	for (int j = 0; j < size; j++) {
		w_s[2 * j] = rank * 100 + j;
		w_s[2 * j + 1] = -(rank * 100 + j);
		w_r[2 * j] = w_r[2 * j + 1] = 0;
		cnt_s[j] = j % 2 ? 1 : 2;
		ty_s[j] = j % 2 ? t_pair : MPI_INT;
		cnt_r[j] = j % 2 ? 2 : 1;
		ty_r[j] = j % 2 ? MPI_INT : t_pair;
		dis_s[j] = dis_r[j] = 8 * j;
	}

	OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Ibcast(bc, 8, MPI_INT, root, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Iallreduce(MPI_IN_PLACE, aff, 3, t_pair, op_aff, MPI_COMM_WORLD, &rq[2]));
	OK(MPI_Ireduce(red, redr, 4, MPI_INT, op_sum, 0, MPI_COMM_WORLD, &rq[3]));
	OK(MPI_Ialltoallw(w_s, cnt_s, dis_s, ty_s, w_r, cnt_r, dis_r, ty_r, MPI_COMM_WORLD, &rq[4]));
	int rsum = -1;
	OK(MPI_Iallreduce(&rank, &rsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[5]));

	/* point-to-point around a ring while they are in flight */
	int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1, tok = rank * 3;
	MPI_Request pp[2];
	OK(MPI_Irecv(&got, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &pp[0]));
	OK(MPI_Isend(&tok, 1, MPI_INT, right, 77, MPI_COMM_WORLD, &pp[1]));
	OK(MPI_Waitall(2, pp, MPI_STATUSES_IGNORE));
	CHECK(got == left * 3);
	/* a blocking reduction with another user op in between */
	int mx = rank * 7 % 5, mxr = -1;
	OK(MPI_Allreduce(&mx, &mxr, 1, MPI_INT, op_max, MPI_COMM_WORLD));
	int want_mx = 0;
	for (int r = 0; r < size; r++)
		if (r * 7 % 5 > want_mx)
			want_mx = r * 7 % 5;
	CHECK(mxr == want_mx);

	MPI_Status st[6];
	OK(MPI_Waitall(6, rq, st));
	for (int i = 0; i < 6; i++)
		CHECK(rq[i] == MPI_REQUEST_NULL);
	int bc_ok = 1;
	for (int i = 0; i < 8; i++)
		bc_ok &= bc[i] == 40 + i;
	CHECK(bc_ok);
	CHECK(rsum == size * (size - 1) / 2);
	for (int i = 0; i < 3; i++) {
		int a = 1, b = 0;   /* identity, then ranks 0..size-1 in order */
		for (int r = 0; r < size; r++) {
			int ua, ub;
			aff_of(r, i, &ua, &ub);
			b = (ua * b + ub) % P;
			a = (ua * a) % P;
		}
		CHECK(aff[2 * i] == a && aff[2 * i + 1] == b);
	}
	if (rank == 0)
		for (int i = 0; i < 4; i++)
			CHECK(redr[i] == 10 * size * (size - 1) / 2 + i * size);
	int w_ok = 1;
	for (int j = 0; j < size; j++)
		w_ok &= w_r[2 * j] == j * 100 + rank && w_r[2 * j + 1] == -(j * 100 + rank);
	CHECK(w_ok);
	tm_out("waitall: bcast %d..%d, affine %d,%d %d,%d %d,%d, reduce %d, alltoallw %s",
	       bc[0], bc[7], aff[0], aff[1], aff[2], aff[3], aff[4], aff[5],
	       rank == 0 ? redr[3] : -1, w_ok ? "ok" : "WRONG");
	free(w_s); free(w_r); free(cnt_s); free(dis_s); free(cnt_r); free(dis_r);
	free(ty_s); free(ty_r);
}

/* ---- completed by Test, Testany, Testall, Request_get_status --------------- */
static void overlap_tests(void)
{
	enum { N = 8 };
	MPI_Request rq[N];
	int n = size;
	int *ag = malloc(sizeof(int) * (size_t)n * 2), *agv = malloc(sizeof(int) * (size_t)n * (size_t)n);
	int *cnts = malloc(sizeof(int) * (size_t)n), *dis = malloc(sizeof(int) * (size_t)n);
	int *a2a_s = malloc(sizeof(int) * (size_t)n), *a2a_r = malloc(sizeof(int) * (size_t)n);
	int *v_s = malloc(sizeof(int) * (size_t)n * (size_t)n), *v_r = malloc(sizeof(int) * (size_t)n * (size_t)n);
	int *vsc = malloc(sizeof(int) * (size_t)n), *vsd = malloc(sizeof(int) * (size_t)n);
	int *vrc = malloc(sizeof(int) * (size_t)n), *vrd = malloc(sizeof(int) * (size_t)n);
	int *rsb = malloc(sizeof(int) * 2 * (size_t)n), rsb_r[2];
	int *rs = malloc(sizeof(int) * (size_t)n * (size_t)(n + 1)), *rsc = malloc(sizeof(int) * (size_t)n);
	int rs_r[8];
	int mine[2] = {rank * 2, rank * 2 + 1}, scan[2] = {rank + 1, 2 * rank + 1}, scan_r[2] = {0, 0};
	int ex = rank + 1, ex_r = -5;

	/* allgatherv in place: rank r owns r+1 ints at displacement r*n */
	for (int r = 0, at = 0; r < n; r++, at += n) {
		cnts[r] = r + 1;
		dis[r] = at;
		for (int i = 0; i < n; i++)
			agv[at + i] = r == rank ? 1000 * r + i : -1;
	}
	for (int j = 0; j < n; j++) {
		a2a_s[j] = rank * 1000 + j;
		vsc[j] = (rank + j) % 3;       /* to j: (rank+j)%3 ints */
		vsd[j] = j * n;
		vrc[j] = (j + rank) % 3;       /* from j: (j+rank)%3 ints */
		vrd[j] = j * n;
		for (int i = 0; i < n; i++) {
			v_s[j * n + i] = rank * 100 + j * 10 + i;
			v_r[j * n + i] = -1;
		}
	}
	for (int i = 0; i < 2 * n; i++)
		rsb[i] = rank + i;
	int tot = 0;
	for (int r = 0; r < n; r++) {
		rsc[r] = r % 3 + 1;
		tot += rsc[r];
	}
	for (int i = 0; i < tot; i++)
		rs[i] = rank * i;

	OK(MPI_Iallgather(mine, 2, MPI_INT, ag, 2, MPI_INT, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, agv, cnts, dis, MPI_INT, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD, &rq[2]));
	OK(MPI_Ialltoallv(v_s, vsc, vsd, MPI_INT, v_r, vrc, vrd, MPI_INT, MPI_COMM_WORLD, &rq[3]));
	OK(MPI_Iscan(scan, scan_r, 2, MPI_INT, op_sum, MPI_COMM_WORLD, &rq[4]));
	OK(MPI_Iexscan(&ex, &ex_r, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD, &rq[5]));
	OK(MPI_Ireduce_scatter_block(rsb, rsb_r, 2, MPI_INT, op_sum, MPI_COMM_WORLD, &rq[6]));
	OK(MPI_Ireduce_scatter(rs, rs_r, rsc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[7]));

	/* Test on the first, Request_get_status then Wait on the second,
	 * Testall on the next two, Testany on the rest. */
	int flag = 0, idx, polls = 0;
	MPI_Status st;
	while (!flag && polls++ < 10000000)
		OK(MPI_Test(&rq[0], &flag, &st));
	CHECK(flag && rq[0] == MPI_REQUEST_NULL);
	flag = 0;
	while (!flag && polls++ < 10000000)
		OK(MPI_Request_get_status(rq[1], &flag, &st));
	CHECK(flag && rq[1] != MPI_REQUEST_NULL);
	OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
	CHECK(rq[1] == MPI_REQUEST_NULL);
	flag = 0;
	while (!flag && polls++ < 10000000)
		OK(MPI_Testall(2, &rq[2], &flag, MPI_STATUSES_IGNORE));
	CHECK(rq[2] == MPI_REQUEST_NULL && rq[3] == MPI_REQUEST_NULL);
	int done = 0;
	while (polls++ < 10000000) {
		OK(MPI_Testany(4, &rq[4], &idx, &flag, &st));
		if (flag && idx == MPI_UNDEFINED)
			break;
		if (flag)
			done++;
	}
	CHECK(done == 4);
	for (int i = 0; i < N; i++)
		CHECK(rq[i] == MPI_REQUEST_NULL);

	int ok = 1;
	for (int r = 0; r < n; r++)
		ok &= ag[2 * r] == 2 * r && ag[2 * r + 1] == 2 * r + 1;
	CHECK(ok);
	int okv = 1;
	for (int r = 0; r < n; r++)
		for (int i = 0; i <= r; i++)
			okv &= agv[r * n + i] == 1000 * r + i;
	CHECK(okv);
	int oka = 1;
	for (int j = 0; j < n; j++)
		oka &= a2a_r[j] == j * 1000 + rank;
	CHECK(oka);
	int okav = 1;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			okav &= v_r[j * n + i] == (i < vrc[j] ? j * 100 + rank * 10 + i : -1);
	CHECK(okav);
	CHECK(scan_r[0] == (rank + 1) * (rank + 2) / 2 && scan_r[1] == (rank + 1) * (rank + 1));
	int fact = 1;
	for (int r = 1; r <= rank; r++)
		fact *= r;
	if (rank > 0)
		CHECK(ex_r == fact);
	for (int i = 0; i < 2; i++)
		CHECK(rsb_r[i] == n * (2 * rank + i) + n * (n - 1) / 2);
	int off = 0;
	for (int r = 0; r < rank; r++)
		off += rsc[r];
	int okrs = 1;
	for (int i = 0; i < rsc[rank]; i++)
		okrs &= rs_r[i] == (off + i) * (n * (n - 1) / 2);
	CHECK(okrs);
	tm_out("tests: allgather %s, allgatherv %s, alltoall %s, alltoallv %s, scan %d %d, "
	       "exscan %d, rsb %d %d, rs %s", ok ? "ok" : "WRONG", okv ? "ok" : "WRONG",
	       oka ? "ok" : "WRONG", okav ? "ok" : "WRONG", scan_r[0], scan_r[1],
	       rank > 0 ? ex_r : 0, rsb_r[0], rsb_r[1], okrs ? "ok" : "WRONG");
	free(ag); free(agv); free(cnts); free(dis); free(a2a_s); free(a2a_r);
	free(v_s); free(v_r); free(vsc); free(vsd); free(vrc); free(vrd);
	free(rsb); free(rs); free(rsc);
}

/* ---- completed by Waitany and Testsome ------------------------------------ */
static void any_some(void)
{
	MPI_Request rq[3];
	int v = rank == 0 ? 99 : -1, mx = -1, idx, outc, idxs[3], done = 0, polls = 0;
	OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Iallreduce(&rank, &mx, 1, MPI_INT, op_max, MPI_COMM_WORLD, &rq[2]));
	for (int i = 0; i < 2; i++) {
		OK(MPI_Waitany(3, rq, &idx, MPI_STATUS_IGNORE));
		CHECK(idx >= 0 && idx < 3);
	}
	while (done < 1 && polls++ < 10000000) {
		OK(MPI_Testsome(3, rq, &outc, idxs, MPI_STATUSES_IGNORE));
		if (outc == MPI_UNDEFINED)
			break;
		done += outc;
	}
	CHECK(done == 1);
	OK(MPI_Waitany(3, rq, &idx, MPI_STATUS_IGNORE));
	CHECK(idx == MPI_UNDEFINED);
	CHECK(v == 99 && mx == size - 1);
	tm_out("any/some: bcast %d, max %d", v, mx);
}

/* ---- MPI_IN_PLACE --------------------------------------------------------- */
static void in_place(void)
{
	int n = size, a[4], v[4], w[4], c[4], d[4], wd[4], rsb[8], red[2], sc[2];
	MPI_Datatype t[4];
	if (n > 4)   /* the arrays are sized for run.sh's 1..4 ranks */
		return;
	for (int j = 0; j < n; j++) {
		a[j] = v[j] = w[j] = rank * 10 + j;
		c[j] = 1;
		d[j] = j;
		wd[j] = 4 * j;
		t[j] = j % 2 ? MPI_INT : MPI_INT32_T;
	}
	for (int i = 0; i < 2 * n; i++)
		rsb[i] = rank + i;
	red[0] = rank;
	red[1] = -rank;
	sc[0] = rank + 1;
	sc[1] = 1;
	MPI_Request rq[6];
	OK(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_INT, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, v, c, d, MPI_INT, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, w, c, wd, t, MPI_COMM_WORLD, &rq[2]));
	OK(MPI_Ireduce(rank == 0 ? MPI_IN_PLACE : red, red, 2, MPI_INT, op_sum, 0, MPI_COMM_WORLD, &rq[3]));
	OK(MPI_Ireduce_scatter_block(MPI_IN_PLACE, rsb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[4]));
	OK(MPI_Iscan(MPI_IN_PLACE, sc, 2, MPI_INT, op_sum, MPI_COMM_WORLD, &rq[5]));
	OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
	int ok = 1;
	for (int j = 0; j < n; j++)
		ok &= a[j] == j * 10 + rank && v[j] == j * 10 + rank && w[j] == j * 10 + rank;
	CHECK(ok);
	if (rank == 0)
		CHECK(red[0] == n * (n - 1) / 2 && red[1] == -n * (n - 1) / 2);
	CHECK(rsb[0] == n * 2 * rank + n * (n - 1) / 2 && rsb[1] == n * (2 * rank + 1) + n * (n - 1) / 2);
	CHECK(sc[0] == (rank + 1) * (rank + 2) / 2 && sc[1] == rank + 1);
	tm_out("in place: alltoall(v,w) %s, reduce %d, rsb %d %d, scan %d %d", ok ? "ok" : "WRONG",
	       rank == 0 ? red[0] : 0, rsb[0], rsb[1], sc[0], sc[1]);
}

/* ---- rooted collectives, in place at the root, completed by Waitsome ------- */
static void rooted(void)
{
	int n = size, root = n > 1 ? 1 : 0;
	int *g = malloc(sizeof(int) * (size_t)n * 2), *gv = malloc(sizeof(int) * (size_t)n * 3);
	int *sc = malloc(sizeof(int) * (size_t)n * 2), *scv = malloc(sizeof(int) * (size_t)n * 3);
	int *cnt = malloc(sizeof(int) * (size_t)n), *dis = malloc(sizeof(int) * (size_t)n);
	int mine[2] = {rank * 5, rank * 5 + 1}, part[2] = {-1, -1}, partv[2] = {-1, -1};
	for (int r = 0; r < n; r++) {
		cnt[r] = r % 2 + 1;
		dis[r] = 3 * (n - 1 - r);    /* blocks in reverse order */
	}
	for (int i = 0; i < 2 * n; i++) {
		g[i] = -1;
		sc[i] = 7 * i;
	}
	for (int i = 0; i < 3 * n; i++) {
		gv[i] = -1;
		scv[i] = 11 * i;
	}
	if (rank == root) {
		g[2 * rank] = mine[0];
		g[2 * rank + 1] = mine[1];
	}
	MPI_Request rq[4];
	OK(MPI_Igather(rank == root ? MPI_IN_PLACE : mine, 2, MPI_INT, g, 2, MPI_INT, root, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Igatherv(mine, cnt[rank], MPI_INT, gv, cnt, dis, MPI_INT, root, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Iscatter(sc, 2, MPI_INT, rank == root ? MPI_IN_PLACE : part, 2, MPI_INT, root, MPI_COMM_WORLD, &rq[2]));
	OK(MPI_Iscatterv(scv, cnt, dis, MPI_INT, partv, cnt[rank], MPI_INT, root, MPI_COMM_WORLD, &rq[3]));
	int left = 4, outc, idx[4], guard = 0;
	while (left > 0 && guard++ < 1000) {
		OK(MPI_Waitsome(4, rq, &outc, idx, MPI_STATUSES_IGNORE));
		if (outc == MPI_UNDEFINED)
			break;
		left -= outc;
	}
	CHECK(left == 0);
	if (rank == root) {
		int ok = 1, okv = 1;
		for (int r = 0; r < n; r++) {
			ok &= g[2 * r] == r * 5 && g[2 * r + 1] == r * 5 + 1;
			for (int i = 0; i < cnt[r]; i++)
				okv &= gv[dis[r] + i] == r * 5 + i;
		}
		CHECK(ok);
		CHECK(okv);
		tm_out("rooted: gather %s, gatherv %s", ok ? "ok" : "WRONG", okv ? "ok" : "WRONG");
	} else {
		CHECK(part[0] == 7 * 2 * rank && part[1] == 7 * (2 * rank + 1));
	}
	int okp = 1;
	for (int i = 0; i < cnt[rank]; i++)
		okp &= partv[i] == 11 * (dis[rank] + i);
	CHECK(okp);
	tm_out("rooted: scatter %d %d, scatterv %d", rank == root ? -1 : part[0],
	       rank == root ? -1 : part[1], partv[0]);
	free(g); free(gv); free(sc); free(scv); free(cnt); free(dis);
}

static int under_mpiwasm(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	MPI_Get_library_version(v, &len);
	return strstr(v, "mpiwasm") != NULL;
}

static int is_mpich(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	MPI_Get_library_version(v, &len);
	return strstr(v, "MPICH") != NULL;
}

/* ---- on an intercommunicator: even ranks against odd ones ---------------- */
static void inter(void)
{
	if (size < 2)
		return;
	MPI_Comm half, ic;
	int even = rank % 2 == 0, lrank, rsize;
	OK(MPI_Comm_split(MPI_COMM_WORLD, !even, rank, &half));
	OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, even ? 1 : 0, 5, &ic));
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	MPI_Comm_rank(half, &lrank);
	MPI_Comm_remote_size(ic, &rsize);
	MPI_Request rq[3];
	/* broadcast from the evens' first; gather at the odds' first */
	int b = even && lrank == 0 ? 555 : -1;
	int broot = even ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
	int groot = even ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
	int *g = malloc(sizeof(int) * (size_t)rsize), sum = -1;
	for (int i = 0; i < rsize; i++)
		g[i] = -1;
	OK(MPI_Ibcast(&b, 1, MPI_INT, broot, ic, &rq[0]));
	OK(MPI_Igather(&rank, 1, MPI_INT, g, 1, MPI_INT, groot, ic, &rq[1]));
	OK(MPI_Iallreduce(&rank, &sum, 1, MPI_INT, op_sum, ic, &rq[2]));
	OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
	int want = 0;
	for (int r = 0; r < size; r++)
		if ((r % 2 == 0) != even)
			want += r;
	CHECK(sum == want);
	if (!even)
		CHECK(b == 555);
	int okg = 1;
	if (!even && lrank == 0)
		for (int i = 0; i < rsize; i++)
			okg &= g[i] == 2 * i;
	CHECK(okg);
	tm_out("inter: bcast %d, gather %s, allreduce %d", b,
	       !even && lrank == 0 ? (okg ? "ok" : "WRONG") : "-", sum);
	free(g);
	MPI_Comm_free(&ic);
	MPI_Comm_free(&half);
}

/* ---- requests completed, then freed ---------------------------------------- */
static void freed(void)
{
	int n = size;
	int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n);
	int *c = malloc(sizeof(int) * (size_t)n), *d = malloc(sizeof(int) * (size_t)n);
	MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * (size_t)n);
	int aff[2], flag = 0, polls = 0;
	for (int j = 0; j < n; j++) {
		s[j] = rank * 10 + j;
		r[j] = -1;
		c[j] = 1;
		d[j] = 4 * j;
		t[j] = MPI_INT;
	}
	aff_of(rank, 0, &aff[0], &aff[1]);
	MPI_Request rq[2];
	OK(MPI_Ialltoallw(s, c, d, t, r, c, d, t, MPI_COMM_WORLD, &rq[0]));
	OK(MPI_Iallreduce(MPI_IN_PLACE, aff, 1, t_pair, op_aff, MPI_COMM_WORLD, &rq[1]));
	/* MPI-3.1 5.12 makes MPI_Request_free of these erroneous (MPICH
	 * refuses it, Open MPI accepts it); mpiwasm accepts it on both and
	 * completes the operation itself */
	for (int i = 0; i < 2; i++) {
		flag = 0;
		while (!flag && polls++ < 10000000)
			OK(MPI_Request_get_status(rq[i], &flag, MPI_STATUS_IGNORE));
		CHECK(flag);
		if (under_mpiwasm()) {
			OK(MPI_Request_free(&rq[i]));
			CHECK(rq[i] == MPI_REQUEST_NULL);
		} else
			OK(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
	}
	int ok = 1;
	for (int j = 0; j < n; j++)
		ok &= r[j] == j * 10 + rank;
	CHECK(ok);
	int a = 1, b = 0;
	for (int q = 0; q < n; q++) {
		int ua, ub;
		aff_of(q, 0, &ua, &ub);
		b = (ua * b + ub) % P;
		a = (ua * a) % P;
	}
	CHECK(aff[0] == a && aff[1] == b);
	tm_out("freed: alltoallw %s, affine %d,%d", ok ? "ok" : "WRONG", aff[0], aff[1]);
	free(s); free(r); free(c); free(d); free(t);
}

/* ---- neighborhood collectives ----------------------------------------------
 * The same five exchanges on each communicator: every process knows its
 * sources and destinations in the topology's order; values name sender,
 * receiver and position so that any misplaced block shows. */
typedef struct { int in, out, src[8], dst[8]; } nbrs;

/* check_w 0: MPICH 4.0 loses MPI_Neighbor_alltoallw's data on distributed
 * graphs whose in- and out-degrees differ (pmodels/mpich issue 6233, natively
 * too: it reads the count arrays by the other degree, past their end, so
 * the outcome depends on what follows them in memory - under mpiwasm, zero
 * counts); the call must still succeed. */
static void run_neighbors(MPI_Comm c, const nbrs *nb, const char *name, int check_w)
{
	int me, in = nb->in, out = nb->out;
	MPI_Comm_rank(c, &me);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	int ag_r[8], agv_r[64], a2a_s[8], a2a_r[8], v_s[64], v_r[64], w_s[16], w_r[16];
	int agv_c[8], agv_d[8], v_sc[8], v_sd[8], v_rc[8], v_rd[8], w_sc[8], w_rc[8];
	MPI_Aint w_sd[8], w_rd[8];
	MPI_Datatype w_st[8], w_rt[8];
	int mine[3] = {me * 7 + 1, me * 7 + 2, me * 7 + 3};
	for (int pass = 0; pass < 3; pass++) {
		/* pass 0 blocking; 1 nonblocking + Waitall; 2 nonblocking + Testall */
		for (int i = 0; i < 64; i++)
			agv_r[i] = v_r[i] = v_s[i] = -1;
		for (int i = 0; i < 16; i++)
			w_r[i] = w_s[i] = -1;
		for (int k = 0; k < 8; k++) {
			int s = k < in ? nb->src[k] : MPI_PROC_NULL;
			int d = k < out ? nb->dst[k] : MPI_PROC_NULL;
			ag_r[k] = a2a_r[k] = -1;
			/* every value names its sender and its receiver */
			a2a_s[k] = me * 100 + d;
			agv_c[k] = s >= 0 ? s % 3 + 1 : 1;
			agv_d[k] = 4 * k;
			v_sc[k] = d >= 0 ? (me + d) % 2 + 1 : 1;
			v_sd[k] = 8 * k;
			v_rc[k] = s >= 0 ? (s + me) % 2 + 1 : 1;
			v_rd[k] = 8 * k;
			for (int i = 0; i < 2; i++)
				v_s[8 * k + i] = me * 1000 + d * 10 + i;
			/* alltoallw: blocks stored in reverse order, sent as
			 * 2 x int or 1 x pair, received as 2 x int */
			if (k < out) {
				w_sd[k] = (MPI_Aint)(8 * (out - 1 - k));
				w_s[2 * (out - 1 - k)] = me * 10000 + d * 10;
				w_s[2 * (out - 1 - k) + 1] = me * 10000 + d * 10 + 1;
			} else
				w_sd[k] = 0;
			w_sc[k] = k % 2 ? 1 : 2;
			w_st[k] = k % 2 ? t_pair : MPI_INT;
			w_rc[k] = 2;
			w_rt[k] = MPI_INT;
			w_rd[k] = (MPI_Aint)(8 * k);
		}
		if (pass == 0) {
			OK(MPI_Neighbor_allgather(mine, 1, MPI_INT, ag_r, 1, MPI_INT, c));
			OK(MPI_Neighbor_allgatherv(mine, me % 3 + 1, MPI_INT, agv_r, agv_c, agv_d, MPI_INT, c));
			OK(MPI_Neighbor_alltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, c));
			OK(MPI_Neighbor_alltoallv(v_s, v_sc, v_sd, MPI_INT, v_r, v_rc, v_rd, MPI_INT, c));
			OK(MPI_Neighbor_alltoallw(w_s, w_sc, w_sd, w_st, w_r, w_rc, w_rd, w_rt, c));
		} else {
			MPI_Request rq[5];
			OK(MPI_Ineighbor_allgather(mine, 1, MPI_INT, ag_r, 1, MPI_INT, c, &rq[0]));
			OK(MPI_Ineighbor_allgatherv(mine, me % 3 + 1, MPI_INT, agv_r, agv_c, agv_d, MPI_INT, c, &rq[1]));
			OK(MPI_Ineighbor_alltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, c, &rq[2]));
			OK(MPI_Ineighbor_alltoallv(v_s, v_sc, v_sd, MPI_INT, v_r, v_rc, v_rd, MPI_INT, c, &rq[3]));
			OK(MPI_Ineighbor_alltoallw(w_s, w_sc, w_sd, w_st, w_r, w_rc, w_rd, w_rt, c, &rq[4]));
			if (pass == 1) {
				OK(MPI_Waitall(5, rq, MPI_STATUSES_IGNORE));
			} else {
				int flag = 0, polls = 0;
				while (!flag && polls++ < 10000000)
					OK(MPI_Testall(5, rq, &flag, MPI_STATUSES_IGNORE));
				CHECK(flag);
			}
		}
		int ok_ag = 1, ok_agv = 1, ok_a2a = 1, ok_v = 1, ok_w = 1;
		for (int k = 0; k < in; k++) {
			int s = nb->src[k];
			if (s == MPI_PROC_NULL) {   /* nothing arrives */
				ok_ag &= ag_r[k] == -1;
				ok_agv &= agv_r[agv_d[k]] == -1;
				ok_a2a &= a2a_r[k] == -1;
				ok_v &= v_r[v_rd[k]] == -1;
				ok_w &= w_r[2 * k] == -1;
				continue;
			}
			ok_ag &= ag_r[k] == s * 7 + 1;
			for (int i = 0; i < agv_c[k]; i++)
				ok_agv &= agv_r[agv_d[k] + i] == s * 7 + 1 + i;
			ok_a2a &= a2a_r[k] == s * 100 + me;
			for (int i = 0; i < v_rc[k]; i++)
				ok_v &= v_r[v_rd[k] + i] == s * 1000 + me * 10 + i;
			ok_w &= w_r[2 * k] == s * 10000 + me * 10 && w_r[2 * k + 1] == s * 10000 + me * 10 + 1;
		}
		CHECK(ok_ag);
		CHECK(ok_agv);
		CHECK(ok_a2a);
		CHECK(ok_v);
		if (check_w)
			CHECK(ok_w);
		if (pass == 0) {
			char line[512];
			int len = snprintf(line, sizeof line, "%s: in", name);
			/* Without check_w the alltoallw block is whatever MPICH
			 * made of the memory after the count arrays: not shown. */
			for (int k = 0; k < in; k++) {
				len += snprintf(line + len, sizeof line - (size_t)len, " %d/%d/%d", ag_r[k],
				                a2a_r[k], v_r[v_rd[k]]);
				if (check_w)
					len += snprintf(line + len, sizeof line - (size_t)len, "/%d", w_r[2 * k]);
			}
			tm_out("%s", line);
		}
	}
}

/* Values name sender and receiver, not the block's position: with a
 * periodic dimension of size 1 or 2 both directions reach the same
 * process, and MPI-3.1 leaves open which block meets which there. */
static void neighbors(void)
{
	int n = size;
	nbrs nb;
	MPI_Comm cart, ring, graph, dg;

	/* 2-D periodic cartesian grid */
	int dims[2] = {0, 0}, periods[2] = {1, 1};
	MPI_Dims_create(n, 2, dims);
	OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
	nb.in = nb.out = 4;
	for (int d = 0; d < 2; d++) {
		OK(MPI_Cart_shift(cart, d, 1, &nb.src[2 * d], &nb.src[2 * d + 1]));
		nb.dst[2 * d] = nb.src[2 * d];
		nb.dst[2 * d + 1] = nb.src[2 * d + 1];
	}
	run_neighbors(cart, &nb, "cart 2-D periodic", 1);

	/* 1-D non-periodic: the ends have MPI_PROC_NULL neighbors */
	int dim1 = n, per0 = 0;
	OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &dim1, &per0, 0, &ring));
	nb.in = nb.out = 2;
	OK(MPI_Cart_shift(ring, 0, 1, &nb.src[0], &nb.src[1]));
	nb.dst[0] = nb.src[0];
	nb.dst[1] = nb.src[1];
	run_neighbors(ring, &nb, "cart 1-D open", 1);

	/* graph ring (3 or more processes: no repeated edges) */
	if (n >= 3) {
		int *index = malloc(sizeof(int) * (size_t)n), *edges = malloc(sizeof(int) * 2 * (size_t)n);
		for (int r = 0; r < n; r++) {
			index[r] = 2 * (r + 1);
			edges[2 * r] = (r + n - 1) % n;
			edges[2 * r + 1] = (r + 1) % n;
		}
		OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph));
		nb.in = nb.out = 2;
		nb.src[0] = nb.dst[0] = (rank + n - 1) % n;
		nb.src[1] = nb.dst[1] = (rank + 1) % n;
		run_neighbors(graph, &nb, "graph ring", 1);
		MPI_Comm_free(&graph);
		free(index);
		free(edges);
	}

	/* distributed graph: 0 -> everyone, j -> j+1 for j >= 1; in- and
	 * out-degrees differ, some are zero */
	nb.in = nb.out = 0;
	if (rank >= 1)
		nb.src[nb.in++] = 0;
	if (rank >= 2)
		nb.src[nb.in++] = rank - 1;
	if (rank == 0)
		for (int j = 1; j < n && nb.out < 8; j++)
			nb.dst[nb.out++] = j;
	else if (rank + 1 < n)
		nb.dst[nb.out++] = rank + 1;
	OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nb.in, nb.src, MPI_UNWEIGHTED,
	                                  nb.out, nb.dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
	run_neighbors(dg, &nb, "dist graph", !is_mpich());

	MPI_Comm_free(&cart);
	MPI_Comm_free(&ring);
	MPI_Comm_free(&dg);
}

/* ---- mpiwasm only: arguments outside linear memory ---------------------- */
#define FAR ((void *)(uintptr_t)0xFFFFFFF0u)

static int is_class(int rc, int cls)
{
	int c = -1;
	MPI_Error_class(rc, &c);
	return rc != MPI_SUCCESS && c == cls;
}

static void bounds(void)
{
	if (!under_mpiwasm())
		return;
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	int x = 1, y[4], cnt[1] = {1}, dis[1] = {0};
	MPI_Datatype ty[1] = {MPI_INT};
	MPI_Request rq = MPI_REQUEST_NULL;
	CHECK(is_class(MPI_Iallreduce(&x, FAR, 100, MPI_INT, MPI_SUM, MPI_COMM_SELF, &rq), MPI_ERR_BUFFER));
	CHECK(rq == MPI_REQUEST_NULL);
	CHECK(is_class(MPI_Iallreduce(&x, y, 1, MPI_INT, op_sum, MPI_COMM_SELF, (MPI_Request *)FAR), MPI_ERR_ARG));
	CHECK(is_class(MPI_Ibcast(FAR, 100, MPI_INT, 0, MPI_COMM_SELF, &rq), MPI_ERR_BUFFER));
	CHECK(is_class(MPI_Ialltoall(&x, 0x40000000, MPI_INT, y, 1, MPI_INT, MPI_COMM_SELF, &rq), MPI_ERR_BUFFER));
	CHECK(is_class(MPI_Igatherv(&x, 1, MPI_INT, y, (int *)FAR, dis, MPI_INT, 0, MPI_COMM_SELF, &rq), MPI_ERR_ARG));
	CHECK(is_class(MPI_Ialltoallw(&x, cnt, dis, (MPI_Datatype *)FAR, y, cnt, dis, ty, MPI_COMM_SELF, &rq), MPI_ERR_ARG));
	ty[0] = (MPI_Datatype)9999;
	CHECK(is_class(MPI_Ialltoallw(&x, cnt, dis, ty, y, cnt, dis, ty, MPI_COMM_SELF, &rq), MPI_ERR_TYPE));
	CHECK(is_class(MPI_Ireduce(&x, y, 1, MPI_INT, (MPI_Op)777, 0, MPI_COMM_SELF, &rq), MPI_ERR_OP));
	CHECK(is_class(MPI_Ineighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_SELF, &rq), MPI_ERR_TOPOLOGY));
	CHECK(rq == MPI_REQUEST_NULL);
	/* a periodic ring of one: two neighbors, so two blocks each way */
	MPI_Comm self_ring;
	int one = 1, per = 1;
	OK(MPI_Cart_create(MPI_COMM_SELF, 1, &one, &per, 0, &self_ring));
	MPI_Comm_set_errhandler(self_ring, MPI_ERRORS_RETURN);
	CHECK(is_class(MPI_Neighbor_allgather(&x, 1, MPI_INT, (char *)FAR + 8, 1, MPI_INT, self_ring), MPI_ERR_BUFFER));
	CHECK(is_class(MPI_Ineighbor_alltoall(y, 1, MPI_INT, (char *)FAR + 8, 1, MPI_INT, self_ring, &rq), MPI_ERR_BUFFER));
	MPI_Aint adis[2] = {0, 0x7FFFFFF0};
	int acnt[2] = {1, 1};
	MPI_Datatype aty[2] = {MPI_INT, MPI_INT};
	CHECK(is_class(MPI_Neighbor_alltoallw(y, acnt, adis, aty, y + 2, acnt, adis, aty, self_ring), MPI_ERR_BUFFER));
	adis[1] = 4;
	y[0] = 5;
	y[1] = 6;
	OK(MPI_Neighbor_alltoallw(y, acnt, adis, aty, y + 2, acnt, adis, aty, self_ring));
	/* which block meets which is the library's choice on a ring of one */
	CHECK((y[2] == 6 && y[3] == 5) || (y[2] == 5 && y[3] == 6));
	MPI_Comm_free(&self_ring);

	/* requests freed while active: mpiwasm completes them (by
	 * MPI_Finalize at the latest) and keeps what they need till then */
	static int w_s[4], w_r[4], w_c[4] = {1, 1, 1, 1}, w_d[4] = {0, 4, 8, 12}, aff[2];
	static MPI_Datatype w_t[4];
	MPI_Request fr[3];
	for (int j = 0; j < 4; j++)
		w_t[j] = MPI_INT;
	aff_of(rank, 0, &aff[0], &aff[1]);
	if (size <= 4) {
		OK(MPI_Ialltoallw(w_s, w_c, w_d, w_t, w_r, w_c, w_d, w_t, MPI_COMM_WORLD, &fr[0]));
		OK(MPI_Iallreduce(MPI_IN_PLACE, aff, 1, t_pair, op_aff, MPI_COMM_WORLD, &fr[1]));
		OK(MPI_Ibarrier(MPI_COMM_WORLD, &fr[2]));
		for (int i = 0; i < 3; i++) {
			OK(MPI_Request_free(&fr[i]));
			CHECK(fr[i] == MPI_REQUEST_NULL);
		}
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	MPI_Type_contiguous(2, MPI_INT, &t_pair);
	MPI_Type_commit(&t_pair);
	MPI_Op_create(aff_op, 0, &op_aff);
	MPI_Op_create(sum_op, 1, &op_sum);
	MPI_Op_create(max_op, 1, &op_max);

	overlap_waitall();
	overlap_tests();
	any_some();
	in_place();
	rooted();
	inter();
	freed();
	neighbors();
	bounds();

	MPI_Op_free(&op_aff);
	MPI_Op_free(&op_sum);
	MPI_Op_free(&op_max);
	MPI_Type_free(&t_pair);
	int rc = tm_finish("fam_nbc");
	MPI_Finalize();
	return rc;
}
