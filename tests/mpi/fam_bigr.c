/* fam_bigr.c - MPI-4's large-count reductions (MPI_Allreduce_c,
 * MPI_Reduce_c, MPI_Reduce_local_c, MPI_Scan_c, MPI_Exscan_c,
 * MPI_Reduce_scatter_block_c, MPI_Reduce_scatter_c and the nonblocking
 * MPI_Iallreduce_c, MPI_Ireduce_c, MPI_Iscan_c, MPI_Iexscan_c,
 * MPI_Ireduce_scatter_block_c, MPI_Ireduce_scatter_c)
 * on the paths the bridge takes above INT_MAX: tests/mpi/run.sh runs the
 * module with MPIWASM_BIGC_LIMIT=1000, so that counts of 1001 and 2500
 * take them (chunks through the int versions; one element of a
 * contiguous type with the bridge's op; MPICH's own _c procedures), with
 * predefined ops, a user op that is not commutative, long double, in
 * place or not, several nonblocking ones pending at once, completed by
 * MPI_Waitall, MPI_Test and MPI_Wait.  Each result is checked element by
 * element (the wrong ones counted and printed); the module's user op must
 * never see more than 1000 elements at a time.
 *
 * Natively, MPICH 4 is called through its own _c procedures; Open MPI 4.1
 * has none, so there the same program calls the int ones (C_ below), and
 * its output must equal the module's. */
#include "tmpi.h"
#include <stdint.h>

#if defined(__wasm__) || MPI_VERSION >= 4
#define C_(f) f##_c
typedef MPI_Count cnt_t;
#else
#define C_(f) f
typedef int cnt_t;
#endif

#define N 2500
static int rank, size;
static int maxlen;   /* the most elements the user op was given at once */

static long long val(int r, int i)
{
	return (long long)(r + 1) * (i % 7 + 1) + i;
}

/* The sum of val(r, i) over ranks lo..hi. */
static long long sum(int lo, int hi, int i)
{
	long long s = 0;
	for (int r = lo; r <= hi; r++)
		s += val(r, i);
	return s;
}

/* MPI_Op "first": a op b = a (associative, not commutative): the lowest
 * rank's value wins. */
static void first(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	if (*len > maxlen)
		maxlen = *len;
	memcpy(inout, in, sizeof(int) * (size_t)*len);
}

static void fill(int *b, int n, int r)
{
	for (int i = 0; i < n; i++)
		b[i] = (int)val(r, i);
}

static void blocking(MPI_Op ufirst)
{
	static int s[N], d[N], rs[4 * N];
	static double ds[N], dd[N];
	static long double ld[N];
	static const cnt_t counts[] = { 1000, 1001, N };
	for (int k = 0; k < 3; k++) {
		int n = (int)counts[k], bad = 0;
		fill(s, n, rank);
		memset(d, 0, sizeof d);
		OK(C_(MPI_Allreduce)(s, d, counts[k], MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		for (int i = 0; i < n; i++)
			bad += d[i] != sum(0, size - 1, i);
		tm_out("allreduce_c %d ints, MPI_SUM: %d wrong", n, bad);
	}
	int bad = 0;
	/* In place, long double. */
	for (int i = 0; i < N; i++)
		ld[i] = (long double)val(rank, i) / 4;
	OK(C_(MPI_Allreduce)(MPI_IN_PLACE, ld, N, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	for (int i = 0; i < N; i++)
		bad += ld[i] != (long double)sum(0, size - 1, i) / 4;
	tm_out("allreduce_c in place %d long doubles, MPI_SUM: %d wrong", N, bad);
	/* Reduce to the last rank: MPI_MAX on doubles, then in place. */
	bad = 0;
	for (int i = 0; i < N; i++) {
		ds[i] = (double)val(rank, i) * (rank % 2 ? -1 : 1);
		dd[i] = -1;
	}
	OK(C_(MPI_Reduce)(ds, dd, N, MPI_DOUBLE, MPI_MAX, size - 1, MPI_COMM_WORLD));
	if (rank == size - 1) {
		for (int i = 0; i < N; i++)
			bad += dd[i] != (double)val(size == 1 ? 0 : size - 1 - (size - 1) % 2, i);
	} else {
		for (int i = 0; i < N; i++)
			bad += dd[i] != -1;   /* not the root: untouched */
	}
	fill(d, N, rank);
	OK(C_(MPI_Reduce)(rank == 0 ? MPI_IN_PLACE : (void *)d, d, N, MPI_INT, MPI_SUM, 0,
	                  MPI_COMM_WORLD));
	if (rank == 0)
		for (int i = 0; i < N; i++)
			bad += d[i] != sum(0, size - 1, i);
	tm_out("reduce_c %d doubles MPI_MAX, ints in place MPI_SUM: %d wrong", N, bad);
	/* Scan with the user op, Exscan with MPI_SUM. */
	bad = 0;
	fill(s, N, rank);
	OK(C_(MPI_Scan)(s, d, N, MPI_INT, ufirst, MPI_COMM_WORLD));
	for (int i = 0; i < N; i++)
		bad += d[i] != val(0, i);
	memcpy(d, s, sizeof d);
	OK(C_(MPI_Exscan)(MPI_IN_PLACE, d, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	if (rank > 0)   /* rank 0's is undefined */
		for (int i = 0; i < N; i++)
			bad += d[i] != sum(0, rank - 1, i);
	tm_out("scan_c user op, exscan_c in place MPI_SUM, %d ints: %d wrong", N, bad);
	/* Reduce_local: the user op, then MPI_PROD. */
	bad = 0;
	fill(s, N, rank);
	fill(d, N, rank + 1);
	OK(C_(MPI_Reduce_local)(s, d, N, MPI_INT, ufirst));
	for (int i = 0; i < N; i++)
		bad += d[i] != val(rank, i);
	for (int i = 0; i < N; i++)
		d[i] = 3;
	OK(C_(MPI_Reduce_local)(s, d, N, MPI_INT, MPI_PROD));
	for (int i = 0; i < N; i++)
		bad += d[i] != 3 * val(rank, i);
	tm_out("reduce_local_c user op, MPI_PROD, %d ints: %d wrong", N, bad);
	/* Reduce_scatter_block: block j of rank r is val(r, i) + j. */
	if (size <= 4) {
		bad = 0;
		for (int j = 0; j < size; j++)
			for (int i = 0; i < N; i++)
				rs[j * N + i] = (int)val(rank, i) + j;
		OK(C_(MPI_Reduce_scatter_block)(rs, d, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		for (int i = 0; i < N; i++)
			bad += d[i] != sum(0, size - 1, i) + (long long)size * rank;
		OK(C_(MPI_Reduce_scatter_block)(MPI_IN_PLACE, rs, N, MPI_INT, ufirst,
		                                MPI_COMM_WORLD));
		for (int i = 0; i < N; i++)
			bad += rs[i] != val(0, i) + rank;
		tm_out("reduce_scatter_block_c MPI_SUM, in place user op, %d ints: %d wrong",
		       N, bad);
	}
	/* Reduce_scatter: rank j's block is 1001 + 700 j elements, none for
	 * rank 1; element i of the whole is val(r, i). */
	if (size <= 4) {
		static int rsv[4 * N], rout[N + 1000];
		cnt_t rcounts[4];
		int tot = 0, off = 0;
		bad = 0;
		for (int j = 0; j < size; j++) {
			rcounts[j] = j == 1 ? 0 : 1001 + 700 * j;
			tot += (int)rcounts[j];
			off += j < rank ? (int)rcounts[j] : 0;
		}
		int mine = (int)rcounts[rank];
		fill(rsv, tot, rank);
		for (int i = 0; i < N + 1000; i++)
			rout[i] = -1;
		OK(C_(MPI_Reduce_scatter)(rsv, rout, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		for (int i = 0; i < N + 1000; i++)
			bad += rout[i] != (i < mine ? sum(0, size - 1, off + i) : -1);
		OK(C_(MPI_Reduce_scatter)(MPI_IN_PLACE, rsv, rcounts, MPI_INT, ufirst,
		                          MPI_COMM_WORLD));
		for (int i = 0; i < mine; i++)
			bad += rsv[i] != val(0, off + i);
		tm_out("reduce_scatter_c MPI_SUM, in place user op, %d ints, %d here: %d wrong",
		       tot, mine, bad);
	}
}

static void nonblocking(MPI_Op ufirst)
{
	static int s[N], a[N], sc[N], ex[N], rs[4 * N], rsout[N];
	static long double ls[N], lr[N];
	MPI_Request rq[5];
	int bad = 0, nrq = 0;
	fill(s, N, rank);
	for (int i = 0; i < N; i++) {
		ls[i] = (long double)val(rank, i) + 0.5L;
		lr[i] = -1;
	}
	for (int j = 0; j < size && size <= 4; j++)
		for (int i = 0; i < N; i++)
			rs[j * N + i] = (int)val(rank, i) * (j + 1);
	/* Five pending at once, then one MPI_Waitall. */
	OK(C_(MPI_Iallreduce)(s, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[nrq++]));
	OK(C_(MPI_Iscan)(s, sc, N, MPI_INT, ufirst, MPI_COMM_WORLD, &rq[nrq++]));
	memcpy(ex, s, sizeof ex);
	OK(C_(MPI_Iexscan)(MPI_IN_PLACE, ex, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[nrq++]));
	OK(C_(MPI_Ireduce)(ls, lr, N, MPI_LONG_DOUBLE, MPI_MAX, size - 1, MPI_COMM_WORLD,
	                   &rq[nrq++]));
	if (size <= 4)
		OK(C_(MPI_Ireduce_scatter_block)(rs, rsout, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
		                                 &rq[nrq++]));
	OK(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
	for (int i = 0; i < N; i++) {
		bad += a[i] != sum(0, size - 1, i);
		bad += sc[i] != val(0, i);
		if (rank > 0)
			bad += ex[i] != sum(0, rank - 1, i);
		if (rank == size - 1)
			bad += lr[i] != (long double)val(size - 1, i) + 0.5L;
		else
			bad += lr[i] != -1;
		if (size <= 4)
			bad += rsout[i] != sum(0, size - 1, i) * (rank + 1);
	}
	tm_out("iallreduce_c, iscan_c user op, iexscan_c in place, ireduce_c long double "
	       "MPI_MAX, ireduce_scatter_block_c: %d wrong", bad);
	/* In place with the user op, completed by MPI_Test. */
	bad = 0;
	fill(a, N, rank);
	MPI_Request r1;
	int done = 0;
	OK(C_(MPI_Iallreduce)(MPI_IN_PLACE, a, N, MPI_INT, ufirst, MPI_COMM_WORLD, &r1));
	while (!done)
		OK(MPI_Test(&r1, &done, MPI_STATUS_IGNORE));
	CHECK(r1 == MPI_REQUEST_NULL);
	for (int i = 0; i < N; i++)
		bad += a[i] != val(0, i);
	/* Long double MPI_SUM in place, completed by MPI_Wait. */
	for (int i = 0; i < N; i++)
		ls[i] = (long double)val(rank, i) / 8;
	OK(C_(MPI_Iallreduce)(MPI_IN_PLACE, ls, N, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
	                      &r1));
	OK(MPI_Wait(&r1, MPI_STATUS_IGNORE));
	CHECK(r1 == MPI_REQUEST_NULL);
	for (int i = 0; i < N; i++)
		bad += ls[i] != (long double)sum(0, size - 1, i) / 8;
	tm_out("iallreduce_c in place: user op by MPI_Test, long double MPI_SUM by "
	       "MPI_Wait: %d wrong", bad);
}

/* Ireduce_scatter_c: rank j's block is 1200 (j + 1) elements, none for
 * rank 1 (wasm: one host MPI_Ireduce_scatter on a contiguous type of 1200
 * elements, their greatest common divisor, or MPICH's own _c); element i
 * of the whole is val(r, i).  Then counts 1001, 1002, ... with a user op,
 * which no common divisor brings within an int; on a type with holes the
 * module is told so (MPI_ERR_COUNT) where natively they run. */
static void ireduce_scatter(MPI_Op ufirst)
{
	enum { T = 1200 * 10 };
	static int in[T], out[T], ip[T];
	static long double lin[T], lout[T];
	cnt_t rcounts[4];
	int tot = 0, off = 0, bad = 0;
	if (size > 4)
		return;
	for (int j = 0; j < size; j++) {
		rcounts[j] = j == 1 ? 0 : 1200 * (j + 1);
		tot += (int)rcounts[j];
		off += j < rank ? (int)rcounts[j] : 0;
	}
	int mine = (int)rcounts[rank];
	fill(in, tot, rank);
	fill(ip, tot, rank);
	for (int i = 0; i < tot; i++) {
		lin[i] = (long double)val(rank, i) + 0.25L;
		out[i] = -1;
		lout[i] = -1;
	}
	MPI_Request rq[2];
	OK(C_(MPI_Ireduce_scatter)(in, out, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
	OK(C_(MPI_Ireduce_scatter)(lin, lout, rcounts, MPI_LONG_DOUBLE, MPI_SUM,
	                           MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	for (int i = 0; i < tot; i++) {
		long long want = i < mine ? sum(0, size - 1, off + i) : -1;
		bad += out[i] != want;
		bad += lout[i] != (i < mine ? (long double)want + 0.25L * size : -1.0L);
	}
	MPI_Request r1;
	OK(C_(MPI_Ireduce_scatter)(MPI_IN_PLACE, ip, rcounts, MPI_INT, ufirst, MPI_COMM_WORLD,
	                           &r1));
	OK(MPI_Wait(&r1, MPI_STATUS_IGNORE));
	CHECK(r1 == MPI_REQUEST_NULL);
	for (int i = 0; i < mine; i++)
		bad += ip[i] != val(0, off + i);
	tm_out("ireduce_scatter_c MPI_SUM ints and long doubles, in place user op, %d "
	       "elements, %d here: %d wrong", tot, mine, bad);
	/* Counts 1001, 1002, ...: no common divisor above 1 (wasm: the whole
	 * reduction in one host operation, this block copied out when it
	 * completes), the user op, not in place and in place. */
	tot = off = bad = 0;
	for (int j = 0; j < size; j++) {
		rcounts[j] = 1001 + j;
		tot += (int)rcounts[j];
		off += j < rank ? (int)rcounts[j] : 0;
	}
	mine = (int)rcounts[rank];
	fill(in, tot, rank);
	fill(ip, tot, rank);
	for (int i = 0; i < tot; i++)
		out[i] = -1;
	OK(C_(MPI_Ireduce_scatter)(in, out, rcounts, MPI_INT, ufirst, MPI_COMM_WORLD, &rq[0]));
	OK(C_(MPI_Ireduce_scatter)(MPI_IN_PLACE, ip, rcounts, MPI_INT, ufirst, MPI_COMM_WORLD,
	                           &rq[1]));
	OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	for (int i = 0; i < tot; i++)
		bad += out[i] != (i < mine ? val(0, off + i) : -1);
	for (int i = 0; i < mine; i++)
		bad += ip[i] != val(0, off + i);
	tm_out("ireduce_scatter_c counts 1001.., user op, in place or not, %d here: %d wrong",
	       mine, bad);
	if (size > 1) {
		/* The same counts on a type with holes (an int in 8 bytes). */
		MPI_Datatype holey;
		MPI_Request r2 = MPI_REQUEST_NULL;
		MPI_Type_create_resized(MPI_INT, 0, 8, &holey);
		MPI_Type_commit(&holey);
		int rc = C_(MPI_Ireduce_scatter)(in, out, rcounts, holey, ufirst,
		                                 MPI_COMM_WORLD, &r2);
#ifdef __wasm__
		int cls = MPI_SUCCESS;
		MPI_Error_class(rc, &cls);
		CHECK(cls == MPI_ERR_COUNT && r2 == MPI_REQUEST_NULL);
#else
		if (rc == MPI_SUCCESS)
			OK(MPI_Wait(&r2, MPI_STATUS_IGNORE));
#endif
		MPI_Type_free(&holey);
		tm_out("ireduce_scatter_c counts 1001.. on a type with holes: ended");
	}
}

int main(int argc, char **argv)
{
	MPI_Op ufirst;
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	OK(MPI_Op_create(first, 0, &ufirst));
	blocking(ufirst);
	nonblocking(ufirst);
	ireduce_scatter(ufirst);
	int rc, cls = -1;
#ifdef __wasm__
	/* A negative count is refused (MPICH 4.0's own MPI_Allreduce_c
	 * crashes on it, natively). */
	int x = 0, y = 0;
	rc = C_(MPI_Allreduce)(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_COUNT);
#endif
	/* An op not defined on the type is refused (MPI_ERR_OP), as by the int
	 * versions, before anything starts. */
	static double dv[4 * N];
	MPI_Request rq = MPI_REQUEST_NULL;
	rc = C_(MPI_Allreduce)(MPI_IN_PLACE, dv, N, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_OP);
	rc = C_(MPI_Iallreduce)(MPI_IN_PLACE, dv, N, MPI_DOUBLE, MPI_BOR, MPI_COMM_WORLD, &rq);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_OP && rq == MPI_REQUEST_NULL);
	if (size <= 4) {
		rc = C_(MPI_Ireduce_scatter_block)(dv, dv + size * N / 2, N / 2, MPI_DOUBLE,
		                                   MPI_BXOR, MPI_COMM_WORLD, &rq);
		MPI_Error_class(rc, &cls);
		CHECK(cls == MPI_ERR_OP);
	}
	tm_out("MPI_BAND, MPI_BOR, MPI_BXOR on doubles refused");
#ifdef __wasm__
	/* The module's user op was given the elements in pieces (natively it
	 * may get them all at once). */
	CHECK(maxlen > 0 && maxlen <= 1000);
#endif
	MPI_Op_free(&ufirst);
	rc = tm_finish("fam_bigr");
	MPI_Finalize();
	return rc;
}
