/* fam_rma_alloc.c - windows made by MPI_Win_allocate: the memory the call
 * returns is the memory remote ranks reach (stores seen by remote Get,
 * remote Put seen by loads, in fence and passive epochs), on
 * MPI_COMM_WORLD, MPI_COMM_SELF and a split communicator, sizes 0 to
 * 200000 bytes, attributes; accumulate-based reads of MPI_DOUBLE_INT and
 * MPI_SHORT_INT pairs never see half of one write (MPI: accumulates of one
 * type on one location are atomic); a Fetch_and_op counter; windows
 * freed and made again.  Built for wasm it also checks that accesses past
 * a rank's size are refused, though the host's window is larger. */
#include "tmpi.h"
#include <stdint.h>

static int rank, size;

#ifdef __wasm__
static int cls(int rc)
{
	int c = rc;
	MPI_Error_class(rc, &c);
	return c;
}
#endif

/* Each rank fills its window, remote ranks read and write it. */
static void basic(MPI_Comm c, int bytes, const char *what)
{
	int r, n;
	MPI_Comm_rank(c, &r);
	MPI_Comm_size(c, &n);
	int cnt = bytes / (int)sizeof(int);
	int *b = NULL;
	MPI_Win win;
	OK(MPI_Win_allocate((MPI_Aint)cnt * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, c,
	                    &b, &win));
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	void *attr = NULL;
	MPI_Aint *asz = NULL;
	int *flav = NULL, flag = 0;
	MPI_Win_get_attr(win, MPI_WIN_BASE, &attr, &flag);
	CHECK(flag && attr == b);
	MPI_Win_get_attr(win, MPI_WIN_SIZE, &asz, &flag);
	CHECK(flag && *asz == (MPI_Aint)cnt * (MPI_Aint)sizeof(int));
	MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flav, &flag);
	CHECK(flag && *flav == MPI_WIN_FLAVOR_ALLOCATE);
	for (int i = 0; i < cnt; i++)
		b[i] = r * 1000000 + i;
	int right = (r + 1) % n, left = (r + n - 1) % n;
	int last = cnt ? cnt - 1 : 0, got[2] = { -1, -1 }, mark = -r - 1;
	OK(MPI_Win_fence(0, win));
	if (cnt) {
		OK(MPI_Get(&got[0], 1, MPI_INT, right, 0, 1, MPI_INT, win));
		OK(MPI_Get(&got[1], 1, MPI_INT, right, last, 1, MPI_INT, win));
	}
	OK(MPI_Win_fence(0, win));
	if (cnt) {
		CHECK(got[0] == right * 1000000 && got[1] == right * 1000000 + last);
		OK(MPI_Put(&mark, 1, MPI_INT, right, last, 1, MPI_INT, win));
	}
	OK(MPI_Win_fence(0, win));
	if (cnt)
		CHECK(b[last] == -left - 1);
	/* passive: a store under the rank's own lock, then a remote read */
	OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win));
	if (cnt)
		b[0] = 7 + r;
	OK(MPI_Win_unlock(r, win));
	MPI_Barrier(c);
	int seen = -1;
	if (cnt) {
		OK(MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win));
		OK(MPI_Get(&seen, 1, MPI_INT, left, 0, 1, MPI_INT, win));
		OK(MPI_Win_unlock(left, win));
		CHECK(seen == 7 + left);
	}
#ifdef __wasm__
	/* one element past the end: refused by the bridge (the host's window
	 * is larger), nothing reaches the target */
	int x = 5;
	OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
	CHECK(cls(MPI_Put(&x, 1, MPI_INT, right, cnt, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
	CHECK(cls(MPI_Get(&x, 1, MPI_INT, right, -1, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
	OK(MPI_Win_unlock(right, win));
#endif
	MPI_Barrier(c);
	OK(MPI_Win_free(&win));
	CHECK(win == MPI_WIN_NULL);
	if (r == 0)
		tm_out("%s %d bytes on %d ranks: %s", what, bytes, n,
		       cnt ? "stores seen remotely, remote puts seen locally" : "empty");
}

/* Writers replace a pair (v, i) with v == i; readers fetch it with
 * Get_accumulate(MPI_NO_OP) and Fetch_and_op(MPI_NO_OP): never a torn pair. */
typedef struct { double v; int i; } dint;
typedef struct { short v; int i; } sint;

static void atomic_pairs(void)
{
	dint *d;
	MPI_Win win;
	enum { K = 100 };
	OK(MPI_Win_allocate(2 * sizeof(dint), sizeof(dint), MPI_INFO_NULL, MPI_COMM_WORLD, &d,
	                    &win));
	sint *s = (sint *)(d + 1);
	OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
	d->v = 0;
	d->i = 0;
	s->v = 0;
	s->i = 0;
	OK(MPI_Win_unlock(rank, win));
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Barrier(MPI_COMM_WORLD);
	int torn = 0;
	OK(MPI_Win_lock_all(0, win));
	for (int k = 1; k <= K; k++) {
		if (rank % 2 == 0 || size == 1) {
			dint w = { (double)(k * size + rank), k * size + rank };
			sint ws = { (short)(k % 30000), k % 30000 };
			OK(MPI_Accumulate(&w, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_REPLACE,
			                  win));
			/* the short pair: the window's second 16 bytes */
			OK(MPI_Accumulate(&ws, 1, MPI_SHORT_INT, 0, 1, 1, MPI_SHORT_INT, MPI_REPLACE,
			                  win));
		}
		if (rank % 2 == 1 || size == 1) {
			dint g = { -1, -2 };
			sint gs = { -1, -2 };
			OK(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE_INT, &g, 1, MPI_DOUBLE_INT, 0, 0, 1,
			                      MPI_DOUBLE_INT, MPI_NO_OP, win));
			OK(MPI_Fetch_and_op(NULL, &gs, MPI_SHORT_INT, 0, 1, MPI_NO_OP, win));
			OK(MPI_Win_flush(0, win));
			torn += g.v != (double)g.i;
			torn += gs.v != gs.i;
		}
		OK(MPI_Win_flush(0, win));
	}
	OK(MPI_Win_unlock_all(win));
	int all = 0;
	MPI_Reduce(&torn, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	CHECK(all == 0);
	if (rank == 0)
		tm_out("double_int and short_int accumulate reads: %d torn", all);
	OK(MPI_Win_free(&win));
}

static void counter(void)
{
	long long *b;
	MPI_Win win;
	enum { K = 50 };
	OK(MPI_Win_allocate(sizeof *b, sizeof *b, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &win));
	OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
	*b = 0;
	OK(MPI_Win_unlock(rank, win));
	MPI_Barrier(MPI_COMM_WORLD);
	long long one = 1, got, sum = 0;
	OK(MPI_Win_lock_all(0, win));
	for (int k = 0; k < K; k++) {
		OK(MPI_Fetch_and_op(&one, &got, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
		OK(MPI_Win_flush(0, win));
		sum += got;
	}
	OK(MPI_Win_unlock_all(win));
	long long tot = 0, n = (long long)K * size;
	MPI_Reduce(&sum, &tot, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
		long long v = *b;
		OK(MPI_Win_unlock(0, win));
		CHECK(v == n && tot == n * (n - 1) / 2);
		tm_out("counter %lld, fetched values sum to %lld", v, tot);
	}
	OK(MPI_Win_free(&win));
}

/* Windows made and freed repeatedly; memory the module allocated in
 * between keeps its contents. */
static void churn(void)
{
	int *keep = malloc(64 * sizeof *keep);
	for (int i = 0; i < 64; i++)
		keep[i] = i * 3;
	for (int round = 0; round < 10; round++) {
		char *b;
		MPI_Win win;
		OK(MPI_Win_allocate(1000 + round * 500, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &win));
		memset(b, round, 1000);
		OK(MPI_Win_free(&win));
		int *tmp = malloc(4000);
		for (int i = 0; i < 1000; i++)
			tmp[i] = round;
		free(tmp);
	}
	int good = 1;
	for (int i = 0; i < 64; i++)
		good &= keep[i] == i * 3;
	CHECK(good);
	free(keep);
	if (rank == 0)
		tm_out("10 windows made and freed");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	/* Multiples of 16 bytes: MPICH 4.0's shared-memory MPI_Win_allocate
	 * puts a rank's data elsewhere than the base it returns when an
	 * earlier rank's size is not one (natively: 4, 8, 12 or 100 bytes on
	 * 2 ranks fail). */
	int sizes[] = { 0, 16, 400, 4096, 200000 };
	for (int i = 0; i < 5; i++)
		basic(MPI_COMM_WORLD, sizes[i], "world");
	basic(MPI_COMM_SELF, 4096, "self");
	/* One half after the other: Open MPI 4.1's osc/rdma names its shared
	 * segment by the communicator's id, which the two halves share, so
	 * windows made at once on both may meet in one segment (natively
	 * too: "unlink(2) /dev/shm/osc_rdma... No such file"). */
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	for (int h = 0; h < 2; h++) {
		if (rank % 2 == h)
			basic(half, 1008, h ? "odd" : "even");
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Comm_free(&half);
	atomic_pairs();
	counter();
	churn();
	return tm_finish("fam_rma_alloc") | MPI_Finalize();
}
