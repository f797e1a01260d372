/* fam_rma_ld.c - one-sided accumulates on long double types (MPI_LONG_DOUBLE,
 * MPI_C_LONG_DOUBLE_COMPLEX, MPI_LONG_DOUBLE_INT): every accumulating
 * procedure in every synchronization mode (fence, PSCW, lock, lock_all),
 * on windows of each creation flavor, and the atomicity MPI promises
 * accumulates of one type on one location (contended counters); a window
 * whose ranks are the world's in reverse order, made first and last.  The
 * values are exact in both the x87 80-bit format (native) and binary128
 * (wasm32), so both builds print the same lines; they are printed through
 * double. */
#include "tmpi.h"

static int rank, size;

#define N 8   /* long doubles per rank's window */

/* Every rank adds, multiplies, maxes and mins into every rank's slots
 * 0..3 in a fence epoch; then slot 4 gets a strided derived type. */
static void fence_test(MPI_Win win, long double *buf, const char *what)
{
	long double add = rank + 1.5L, mul = 2.0L, val = 10.0L * rank - 7.0L;
	long double pair[2] = { 0.25L, 0.5L };
	for (int i = 0; i < N; i++)
		buf[i] = i == 1 ? 1.0L : 0.0L;
	MPI_Datatype two;
	MPI_Type_contiguous(2, MPI_LONG_DOUBLE, &two);
	MPI_Type_commit(&two);
	OK(MPI_Win_fence(0, win));
	for (int t = 0; t < size; t++) {
		OK(MPI_Accumulate(&add, 1, MPI_LONG_DOUBLE, t, 0, 1, MPI_LONG_DOUBLE, MPI_SUM, win));
		OK(MPI_Accumulate(&mul, 1, MPI_LONG_DOUBLE, t, 1, 1, MPI_LONG_DOUBLE, MPI_PROD, win));
		OK(MPI_Accumulate(&val, 1, MPI_LONG_DOUBLE, t, 2, 1, MPI_LONG_DOUBLE, MPI_MAX, win));
		OK(MPI_Accumulate(&val, 1, MPI_LONG_DOUBLE, t, 3, 1, MPI_LONG_DOUBLE, MPI_MIN, win));
		/* origin two longs doubles, target a derived type of them */
		OK(MPI_Accumulate(pair, 2, MPI_LONG_DOUBLE, t, 4, 1, two, MPI_SUM, win));
	}
	OK(MPI_Win_fence(0, win));
	long double sum = 0, prod = 1;
	for (int r = 0; r < size; r++) {
		sum += r + 1.5L;
		prod *= 2.0L;
	}
	CHECK(buf[0] == sum);
	CHECK(buf[1] == prod);
	CHECK(buf[2] == (size - 1) * 10.0L - 7.0L || size == 1);
	CHECK(buf[2] == 0.0L || size > 1);   /* max(0, -7) with one rank */
	CHECK(buf[3] == -7.0L);
	CHECK(buf[4] == 0.25L * size && buf[5] == 0.5L * size);
	MPI_Type_free(&two);
	tm_out("%s fence: sum %.3f prod %.1f max %.1f min %.1f pair %.2f %.2f", what,
	       (double)buf[0], (double)buf[1], (double)buf[2], (double)buf[3],
	       (double)buf[4], (double)buf[5]);
}

/* A counter on rank 0 (slot 6) incremented k times by every rank with
 * MPI_Fetch_and_op under lock_all: the fetched values are all different
 * and the final value counts them all. */
static void counter_test(MPI_Win win, long double *buf, const char *what)
{
	enum { K = 20 };
	long double one = 1.0L, got[K];
	buf[6] = 0.0L;
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_Win_lock_all(0, win));
	for (int i = 0; i < K; i++) {
		OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG_DOUBLE, 0, 6, MPI_SUM, win));
		OK(MPI_Win_flush(0, win));
	}
	OK(MPI_Win_unlock_all(win));
	int mine[K], *all = malloc(sizeof(int) * K * (size_t)size);
	for (int i = 0; i < K; i++)
		mine[i] = (int)got[i];
	MPI_Gather(mine, K, MPI_INT, all, K, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		char *seen = calloc((size_t)(K * size), 1);
		int dup = 0;
		for (int i = 0; i < K * size; i++) {
			if (all[i] < 0 || all[i] >= K * size || seen[all[i]])
				dup++;
			else
				seen[all[i]] = 1;
		}
		OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
		long double v = buf[6];
		OK(MPI_Win_unlock(0, win));
		CHECK(dup == 0);
		CHECK(v == (long double)(K * size));
		tm_out("%s fetch_and_op counter: %.1f, %d repeated", what, (double)v, dup);
		free(seen);
	}
	free(all);
}

/* Accumulate (no fetch) into rank 0 from everyone under a shared lock:
 * lost updates would show in the total. */
static void shared_lock_test(MPI_Win win, long double *buf, const char *what)
{
	enum { K = 25 };
	long double h = 0.5L;
	buf[7] = 0.0L;
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < K; i++) {
		OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
		OK(MPI_Accumulate(&h, 1, MPI_LONG_DOUBLE, 0, 7, 1, MPI_LONG_DOUBLE, MPI_SUM, win));
		OK(MPI_Win_unlock(0, win));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
		long double v = buf[7];
		OK(MPI_Win_unlock(0, win));
		CHECK(v == 0.5L * K * size);
		tm_out("%s shared lock accumulate: %.1f", what, (double)v);
	}
}

/* Get_accumulate with NO_OP and REPLACE, request forms, PSCW. */
static void pscw_test(MPI_Win win, long double *buf, const char *what)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Group wg, to, from;
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_incl(wg, 1, &right, &to);
	MPI_Group_incl(wg, 1, &left, &from);
	for (int i = 0; i < N; i++)
		buf[i] = 100.0L * rank + i;
	MPI_Barrier(MPI_COMM_WORLD);
	long double seen = -1, old = -1, rep = 1000.0L + rank, old2 = -1, three = 3.0L;
	MPI_Request q[2];
	OK(MPI_Win_post(from, 0, win));
	OK(MPI_Win_start(to, 0, win));
	OK(MPI_Get_accumulate(NULL, 0, MPI_LONG_DOUBLE, &seen, 1, MPI_LONG_DOUBLE, right, 2,
	                      1, MPI_LONG_DOUBLE, MPI_NO_OP, win));
	OK(MPI_Get_accumulate(&rep, 1, MPI_LONG_DOUBLE, &old, 1, MPI_LONG_DOUBLE, right, 3,
	                      1, MPI_LONG_DOUBLE, MPI_REPLACE, win));
	OK(MPI_Rget_accumulate(&three, 1, MPI_LONG_DOUBLE, &old2, 1, MPI_LONG_DOUBLE, right,
	                       4, 1, MPI_LONG_DOUBLE, MPI_PROD, win, &q[0]));
	OK(MPI_Raccumulate(&three, 1, MPI_LONG_DOUBLE, right, 5, 1, MPI_LONG_DOUBLE,
	                   MPI_SUM, win, &q[1]));
	OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
	OK(MPI_Win_complete(win));
	OK(MPI_Win_wait(win));
	CHECK(seen == 100.0L * right + 2);
	CHECK(old == 100.0L * right + 3);
	CHECK(old2 == 100.0L * right + 4);
	CHECK(buf[3] == 1000.0L + left);
	CHECK(buf[4] == 3.0L * (100.0L * rank + 4));
	CHECK(buf[5] == 100.0L * rank + 5 + 3.0L);
	tm_out("%s pscw: noop %.1f replace old %.1f new %.1f prod %.1f sum %.1f", what,
	       (double)seen, (double)old, (double)buf[3], (double)buf[4], (double)buf[5]);
	MPI_Group_free(&to);
	MPI_Group_free(&from);
	MPI_Group_free(&wg);
}

/* Complex long double (sum, prod) and {long double; int} (maxloc,
 * minloc) under an exclusive lock. */
typedef struct { long double v; int i; } ldi;

static void other_types_test(void)
{
	long double _Complex *cx;
	ldi *li;
	MPI_Win wc, wl;
	OK(MPI_Alloc_mem(2 * sizeof *cx, MPI_INFO_NULL, &cx));
	OK(MPI_Alloc_mem(2 * sizeof *li, MPI_INFO_NULL, &li));
	cx[0] = 0;
	cx[1] = 1;
	li[0].v = -1000.0L;
	li[0].i = -1;
	li[1].v = 1000.0L;
	li[1].i = -1;
	OK(MPI_Win_create(cx, 2 * sizeof *cx, sizeof *cx, MPI_INFO_NULL, MPI_COMM_WORLD, &wc));
	OK(MPI_Win_create(li, 2 * sizeof *li, sizeof *li, MPI_INFO_NULL, MPI_COMM_WORLD, &wl));
	MPI_Win_set_errhandler(wc, MPI_ERRORS_RETURN);
	MPI_Win_set_errhandler(wl, MPI_ERRORS_RETURN);
	MPI_Barrier(MPI_COMM_WORLD);
	long double _Complex a = (rank + 1) + 1.0iL * rank, m = 1.0iL;
	ldi x = { (long double)(rank % 2 ? 5 : rank), rank };
	OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wc));
	OK(MPI_Accumulate(&a, 1, MPI_C_LONG_DOUBLE_COMPLEX, 0, 0, 1,
	                  MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, wc));
	OK(MPI_Accumulate(&m, 1, MPI_C_LONG_DOUBLE_COMPLEX, 0, 1, 1,
	                  MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD, wc));
	OK(MPI_Win_unlock(0, wc));
	OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wl));
	OK(MPI_Accumulate(&x, 1, MPI_LONG_DOUBLE_INT, 0, 0, 1, MPI_LONG_DOUBLE_INT,
	                  MPI_MAXLOC, wl));
	OK(MPI_Accumulate(&x, 1, MPI_LONG_DOUBLE_INT, 0, 1, 1, MPI_LONG_DOUBLE_INT,
	                  MPI_MINLOC, wl));
	OK(MPI_Win_unlock(0, wl));
	/* Not defined on long double: refused by both. */
	long double one = 1.0L;
	int rc = MPI_Accumulate(&one, 1, MPI_LONG_DOUBLE, 0, 0, 1, MPI_LONG_DOUBLE, MPI_BAND, wc);
	int cls = -1;
	MPI_Error_class(rc, &cls);
	CHECK(rc != MPI_SUCCESS);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		long double sr = 0, si = 0;
		for (int r = 0; r < size; r++) {
			sr += r + 1;
			si += r;
		}
		/* i^size: 1, i, -1, -i */
		static const int re[4] = { 1, 0, -1, 0 }, im[4] = { 0, 1, 0, -1 };
		CHECK(__real__ cx[0] == sr && __imag__ cx[0] == si);
		CHECK(__real__ cx[1] == re[size % 4] && __imag__ cx[1] == im[size % 4]);
		tm_out("complex: sum %.1f%+.1fi prod %.1f%+.1fi", (double)__real__ cx[0],
		       (double)__imag__ cx[0], (double)__real__ cx[1], (double)__imag__ cx[1]);
		tm_out("long double int: maxloc %.1f at %d minloc %.1f at %d", (double)li[0].v,
		       li[0].i, (double)li[1].v, li[1].i);
		CHECK(li[1].v == 0.0L && li[1].i == 0);
		CHECK(li[0].v == (size > 1 ? 5.0L : 0.0L) && li[0].i == (size > 1 ? 1 : 0));
	}
	MPI_Win_free(&wc);
	MPI_Win_free(&wl);
	MPI_Free_mem(cx);
	MPI_Free_mem(li);
}

/* A dynamic window: every rank adds into rank 0's attached cell, found by
 * its address. */
static void dynamic_test(void)
{
	static long double cell[2];
	MPI_Win win;
	MPI_Aint at = 0;
	OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	cell[0] = 0.0L;
	cell[1] = 0.0L;
	OK(MPI_Win_attach(win, cell, sizeof cell));
	MPI_Get_address(&cell[1], &at);
	MPI_Bcast(&at, 1, MPI_AINT, 0, MPI_COMM_WORLD);
	long double q = 0.25L, old = -1;
	OK(MPI_Win_lock_all(0, win));
	for (int i = 0; i < 8; i++) {
		OK(MPI_Fetch_and_op(&q, &old, MPI_LONG_DOUBLE, 0, at, MPI_SUM, win));
		OK(MPI_Win_flush(0, win));
		CHECK(old >= 0.0L && old < 2.0L * size);
	}
	OK(MPI_Win_unlock_all(win));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
		long double v = cell[1];
		OK(MPI_Win_unlock(0, win));
		CHECK(v == 2.0L * size && cell[0] == 0.0L);
		tm_out("dynamic fetch_and_op: %.2f", (double)v);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_Win_detach(win, cell));
	OK(MPI_Win_free(&win));
}

/* A window whose ranks are MPI_COMM_WORLD's in reverse order (size > 1):
 * accumulates in a fence epoch, a Fetch_and_op counter under lock_all and
 * a PSCW Get_accumulate, in the window's rank numbers.  Run before any
 * window on MPI_COMM_WORLD exists (wasm: the bridge then gives the window
 * a second host window of its own) and after (wasm: its ranks are found
 * among the world's, for the bridge-wide lock). */
static void reversed_test(const char *what)
{
	enum { K = 5 };
	MPI_Comm rev;
	int me, n;
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	MPI_Comm_rank(rev, &me);
	MPI_Comm_size(rev, &n);
	static long double b[N];
	for (int i = 0; i < N; i++)
		b[i] = 0.0L;
	MPI_Win win;
	OK(MPI_Win_create(b, sizeof b, sizeof(long double), MPI_INFO_NULL, rev, &win));
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	long double add = me + 0.5L, one = 1.0L, got[K], sum = 0.0L;
	OK(MPI_Win_fence(0, win));
	for (int t = 0; t < n; t++)
		OK(MPI_Accumulate(&add, 1, MPI_LONG_DOUBLE, t, 0, 1, MPI_LONG_DOUBLE, MPI_SUM, win));
	OK(MPI_Win_fence(0, win));
	for (int r = 0; r < n; r++)
		sum += r + 0.5L;
	CHECK(b[0] == sum);
	OK(MPI_Win_lock_all(0, win));
	for (int i = 0; i < K; i++) {
		OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG_DOUBLE, 0, 1, MPI_SUM, win));
		OK(MPI_Win_flush(0, win));
	}
	OK(MPI_Win_unlock_all(win));
	for (int i = 1; i < K; i++)
		CHECK(got[i] > got[i - 1]);
	MPI_Barrier(rev);
	int right = (me + 1) % n, left = (me + n - 1) % n;
	MPI_Group g, to, from;
	MPI_Comm_group(rev, &g);
	MPI_Group_incl(g, 1, &right, &to);
	MPI_Group_incl(g, 1, &left, &from);
	long double mine = 10.0L * me + 1.0L, old = -1.0L;
	OK(MPI_Win_post(from, 0, win));
	OK(MPI_Win_start(to, 0, win));
	OK(MPI_Get_accumulate(&mine, 1, MPI_LONG_DOUBLE, &old, 1, MPI_LONG_DOUBLE, right, 2,
	                      1, MPI_LONG_DOUBLE, MPI_SUM, win));
	OK(MPI_Win_complete(win));
	OK(MPI_Win_wait(win));
	CHECK(old == 0.0L);
	CHECK(b[2] == 10.0L * left + 1.0L);
	MPI_Barrier(rev);
	long double count = -1.0L;
	if (me == 0) {
		OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
		count = b[1];
		OK(MPI_Win_unlock(0, win));
		CHECK(count == (long double)(K * n));
	}
	tm_out("%s reversed ranks (window rank %d): fence sum %.1f, pscw %.1f, counter %.1f",
	       what, me, (double)b[0], (double)b[2], (double)count);
	OK(MPI_Win_free(&win));
	MPI_Group_free(&to);
	MPI_Group_free(&from);
	MPI_Group_free(&g);
	MPI_Comm_free(&rev);
}

static void run_all(MPI_Win win, long double *buf, const char *what)
{
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	fence_test(win, buf, what);
	counter_test(win, buf, what);
	shared_lock_test(win, buf, what);
	pscw_test(win, buf, what);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Win win;
	long double *buf;

	if (size > 1)
		reversed_test("first");
	/* Open MPI 4.1 makes no MPI_Win_create window on a 1-process
	 * communicator (open-mpi/ompi#10726); MPICH does. */
	int probe = 0, rc = MPI_Win_create(&probe, sizeof probe, 1, MPI_INFO_NULL,
	                                   MPI_COMM_WORLD, &win);
	if (rc != MPI_SUCCESS && size == 1) {
		tm_out("no window on a 1-process communicator in this MPI library: skipped");
		return tm_finish("fam_rma_ld") | MPI_Finalize();
	}
	MPI_Win_free(&win);

	static long double cbuf[N];
	OK(MPI_Win_create(cbuf, sizeof cbuf, sizeof(long double), MPI_INFO_NULL,
	                  MPI_COMM_WORLD, &win));
	run_all(win, cbuf, "create");
	MPI_Win_free(&win);

	OK(MPI_Win_allocate(N * sizeof(long double), sizeof(long double), MPI_INFO_NULL,
	                    MPI_COMM_WORLD, &buf, &win));
	run_all(win, buf, "allocate");
	MPI_Win_free(&win);

	OK(MPI_Win_allocate_shared(N * sizeof(long double), sizeof(long double),
	                           MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
	run_all(win, buf, "shared");
	MPI_Win_free(&win);

	other_types_test();
	dynamic_test();
	if (size > 1)
		reversed_test("last");
	return tm_finish("fam_rma_ld") | MPI_Finalize();
}
