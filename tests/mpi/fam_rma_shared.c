/* fam_rma_shared.c - windows made by MPI_Win_allocate_shared: every rank
 * stores into its own segment, and after MPI_Win_sync and a barrier loads
 * every other rank's through the addresses MPI_Win_shared_query gives
 * (contiguous in rank order by default, anywhere with
 * alloc_shared_noncontig); MPI's Put and Get reach the same bytes as those
 * loads and stores; accumulate-based reads of MPI_DOUBLE_INT never see
 * half of one write; a 1-process communicator; a displacement unit that is
 * not the element size and a strided target type; an empty segment on one
 * rank; windows freed and made again.  Built for wasm it also checks that
 * an empty segment's base is NULL, that accesses past a segment are
 * refused, and that a node total that cannot fit a wasm32 memory fails
 * with MPI_ERR_NO_MEM. */
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

static MPI_Comm node_comm(void)
{
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
	return node;
}

/* Rank r's segment holds r + 2 + extra ints, v(r, i) = r * 1000 + i. */
static void neighbours(MPI_Comm c, int extra, int noncontig, const char *what)
{
	int nr, ns;
	MPI_Comm_rank(c, &nr);
	MPI_Comm_size(c, &ns);
	MPI_Info in = MPI_INFO_NULL;
	if (noncontig) {
		MPI_Info_create(&in);
		MPI_Info_set(in, "alloc_shared_noncontig", "true");
	}
	int cnt = nr + 2 + extra, *mine = NULL;
	MPI_Win win;
	OK(MPI_Win_allocate_shared((MPI_Aint)cnt * (MPI_Aint)sizeof(int), sizeof(int), in, c,
	                           &mine, &win));
	if (in != MPI_INFO_NULL)
		MPI_Info_free(&in);
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	OK(MPI_Win_lock_all(0, win));
	for (int i = 0; i < cnt; i++)
		mine[i] = nr * 1000 + i;
	OK(MPI_Win_sync(win));
	MPI_Barrier(c);
	OK(MPI_Win_sync(win));
	long sum = 0;
	int good = 1, order = 1;
	char *prev_end = NULL;
	for (int r = 0; r < ns; r++) {
		MPI_Aint sz = -1;
		int du = -1, *p = NULL, rc = r + 2 + extra;
		OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
		/* Open MPI 4.1 natively reports a noncontiguous segment's size
		 * rounded up to whole pages */
		CHECK((noncontig ? sz >= (MPI_Aint)rc * (MPI_Aint)sizeof(int)
		                 : sz == (MPI_Aint)rc * (MPI_Aint)sizeof(int)) &&
		      du == (int)sizeof(int));
		if (r == nr)
			CHECK(p == mine);
		if (prev_end)
			order &= noncontig ? (char *)p >= prev_end : (char *)p == prev_end;
		for (int i = 0; i < rc && p; i++) {
			good &= p[i] == r * 1000 + i;
			sum += p[i];
		}
		prev_end = (char *)p + rc * (MPI_Aint)sizeof(int);
	}
	CHECK(good && order);
	/* Stores into the right neighbour's last int, by pointer; a Put into
	 * its first; a Get of the left neighbour's last. */
	MPI_Barrier(c);
	int right = (nr + 1) % ns, left = (nr + ns - 1) % ns;
	{
		MPI_Aint sz;
		int du, *p;
		OK(MPI_Win_shared_query(win, right, &sz, &du, &p));
		p[right + 1 + extra] = -1 - nr;
	}
	int v = 50000 + nr;
	OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
	OK(MPI_Win_flush_all(win));
	OK(MPI_Win_sync(win));
	MPI_Barrier(c);
	OK(MPI_Win_sync(win));
	int got = -7;
	OK(MPI_Get(&got, 1, MPI_INT, left, left + 1 + extra, 1, MPI_INT, win));
	OK(MPI_Win_flush(left, win));
	CHECK(mine[0] == 50000 + left && mine[cnt - 1] == -1 - left);
	CHECK(got == -1 - (left + ns - 1) % ns);
#ifdef __wasm__
	int x = 1;
	CHECK(cls(MPI_Put(&x, 1, MPI_INT, right, right + 2 + extra, 1, MPI_INT, win)) ==
	      MPI_ERR_RMA_RANGE);
#endif
	OK(MPI_Win_unlock_all(win));
	int flag = 0;
	void *a;
	OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &a, &flag));
	CHECK(flag && *(int *)a == MPI_WIN_FLAVOR_SHARED);
	OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &a, &flag));
	CHECK(flag && a == mine);
	MPI_Barrier(c);
	OK(MPI_Win_free(&win));
	if (nr == 0)
		tm_out("%s: %d segments loaded (sum %ld), neighbours' stores and puts seen", what,
		       ns, sum);
}

/* Writers replace a (v, i) pair with v == i in rank 0's segment; readers
 * fetch it with Get_accumulate(MPI_NO_OP): never a torn pair. */
typedef struct { double v; int i; } dint;

static void atomic_pairs(MPI_Comm c)
{
	int nr, ns;
	MPI_Comm_rank(c, &nr);
	MPI_Comm_size(c, &ns);
	dint *d = NULL;
	MPI_Win win;
	enum { K = 200 };
	OK(MPI_Win_allocate_shared(nr == 0 ? sizeof(dint) : 0, sizeof(dint), MPI_INFO_NULL, c,
	                           &d, &win));
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	if (nr == 0) {
		d->v = 0;
		d->i = 0;
	}
	MPI_Barrier(c);
	int torn = 0;
	OK(MPI_Win_lock_all(0, win));
	OK(MPI_Win_sync(win));
	for (int k = 1; k <= K; k++) {
		if (nr % 2 == 0 || ns == 1) {
			dint w = { (double)(k * ns + nr), k * ns + nr };
			OK(MPI_Accumulate(&w, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_REPLACE,
			                  win));
		}
		if (nr % 2 == 1 || ns == 1) {
			dint g = { -1, -2 };
			OK(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE_INT, &g, 1, MPI_DOUBLE_INT, 0, 0, 1,
			                      MPI_DOUBLE_INT, MPI_NO_OP, win));
			OK(MPI_Win_flush(0, win));
			torn += g.v != (double)g.i;
		}
		OK(MPI_Win_flush(0, win));
	}
	OK(MPI_Win_unlock_all(win));
	int all = 0;
	MPI_Reduce(&torn, &all, 1, MPI_INT, MPI_SUM, 0, c);
	MPI_Barrier(c);
	if (nr == 0) {
		CHECK(all == 0 && d->v == (double)d->i && d->i > 0);
		tm_out("shared double_int accumulate reads: %d torn", all);
	}
	OK(MPI_Win_free(&win));
}

/* Displacement unit 12 over an int array: displacement k is int 3k.  A
 * strided target type (every other int) through Put and Get. */
static void disp_units(MPI_Comm c)
{
	int nr, ns;
	MPI_Comm_rank(c, &nr);
	MPI_Comm_size(c, &ns);
	int *mine = NULL;
	MPI_Win win;
	enum { N = 24 };
	OK(MPI_Win_allocate_shared(N * sizeof(int), 12, MPI_INFO_NULL, c, &mine, &win));
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	for (int i = 0; i < N; i++)
		mine[i] = 0;
	MPI_Datatype every2;
	MPI_Type_vector(4, 1, 2, MPI_INT, &every2);
	MPI_Type_commit(&every2);
	int right = (nr + 1) % ns, left = (nr + ns - 1) % ns;
	OK(MPI_Win_fence(0, win));
	int v = 100 + nr, four[4] = { 1 + nr, 2 + nr, 3 + nr, 4 + nr };
	OK(MPI_Put(&v, 1, MPI_INT, right, 2, 1, MPI_INT, win));        /* int 6 */
	OK(MPI_Put(four, 4, MPI_INT, right, 4, 1, every2, win));       /* ints 12, 14, 16, 18 */
	OK(MPI_Win_fence(0, win));
	CHECK(mine[6] == 100 + left);
	CHECK(mine[12] == 1 + left && mine[14] == 2 + left && mine[16] == 3 + left &&
	      mine[18] == 4 + left && mine[13] == 0 && mine[15] == 0);
	/* the same bytes as the left neighbour loads them */
	MPI_Aint sz;
	int du, *lp;
	OK(MPI_Win_shared_query(win, left, &sz, &du, &lp));
	CHECK(du == 12 && sz == N * (MPI_Aint)sizeof(int));
	int back[4] = { 0, 0, 0, 0 };
	OK(MPI_Get(back, 4, MPI_INT, left, 4, 1, every2, win));
	OK(MPI_Win_fence(0, win));
	int left2 = (left + ns - 1) % ns;
	CHECK(back[0] == 1 + left2 && back[3] == 4 + left2 && lp[12] == 1 + left2 &&
	      lp[18] == 4 + left2);
#ifdef __wasm__
	/* displacement 8 is byte 96, the segment's end */
	CHECK(cls(MPI_Put(&v, 1, MPI_INT, right, 8, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
#endif
	OK(MPI_Win_fence(0, win));
	MPI_Type_free(&every2);
	OK(MPI_Win_free(&win));
	if (nr == 0)
		tm_out("disp_unit 12 and a strided target: puts and gets land where loads see them");
}

/* One rank (the middle one, or the only one) gives no memory. */
static void one_empty(MPI_Comm c)
{
	int nr, ns;
	MPI_Comm_rank(c, &nr);
	MPI_Comm_size(c, &ns);
	int empty = ns / 2, *mine = NULL;
	MPI_Win win;
	OK(MPI_Win_allocate_shared(nr == empty ? 0 : 2 * sizeof(int), sizeof(int), MPI_INFO_NULL,
	                           c, &mine, &win));
	if (nr != empty) {
		mine[0] = nr;
		mine[1] = -nr;
	}
	OK(MPI_Win_lock_all(0, win));
	OK(MPI_Win_sync(win));
	MPI_Barrier(c);
	OK(MPI_Win_sync(win));
	int good = 1;
	char *prev_end = NULL;
	for (int r = 0; r < ns; r++) {
		MPI_Aint sz = -1;
		int du = -1, *p = NULL;
		OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
		if (r == empty) {
			good &= sz == 0;
#ifdef __wasm__
			good &= p == NULL;   /* as MPICH; Open MPI natively gives an address */
#endif
			continue;
		}
		good &= sz == 2 * (MPI_Aint)sizeof(int) && p[0] == r && p[1] == -r;
		if (prev_end)
			good &= (char *)p == prev_end;
		prev_end = (char *)p + sz;
	}
	CHECK(good);
	{
		MPI_Aint sz = -1;
		int du = -1, *p = NULL;
		OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
		if (ns == 1)   /* every segment empty */
			CHECK(sz == 0);
		else           /* the lowest rank with memory: 0 */
			CHECK(sz == 2 * (MPI_Aint)sizeof(int) && p && p[0] == 0);
	}
	OK(MPI_Win_unlock_all(win));
	OK(MPI_Win_free(&win));
	if (nr == 0)
		tm_out("rank %d of %d with an empty segment", empty, ns);
}

/* Windows made and freed; the module's other memory keeps its contents. */
static void churn(MPI_Comm c)
{
	int *keep = malloc(64 * sizeof *keep), good = 1;
	for (int i = 0; i < 64; i++)
		keep[i] = i * 5;
	for (int round = 0; round < 8; round++) {
		char *b;
		MPI_Win win;
		OK(MPI_Win_allocate_shared(100 + round * 3000, 1, MPI_INFO_NULL, c, &b, &win));
		memset(b, round, 100);
		MPI_Barrier(c);
		MPI_Aint sz;
		int du;
		char *p0;
		OK(MPI_Win_shared_query(win, 0, &sz, &du, &p0));
		good &= p0[99] == round;
		MPI_Barrier(c);
		OK(MPI_Win_free(&win));
		int *tmp = malloc(16000);
		for (int i = 0; i < 4000; i++)
			tmp[i] = round;
		free(tmp);
	}
	for (int i = 0; i < 64; i++)
		good &= keep[i] == i * 5;
	CHECK(good);
	free(keep);
	if (rank == 0)
		tm_out("8 shared windows made and freed");
}

#ifdef __wasm__
/* Every rank's segment appears in each rank's memory: a node total past
 * 4 GiB is refused on every rank, and the window stays usable after. */
static void too_big(MPI_Comm c)
{
	int ns;
	MPI_Comm_size(c, &ns);
	if (ns < 2)
		return;
	char *b = NULL;
	MPI_Win win = MPI_WIN_NULL;
	int rc = MPI_Win_allocate_shared(0x7ffff000, 1, MPI_INFO_NULL, c, &b, &win);
	CHECK(cls(rc) == MPI_ERR_NO_MEM && win == MPI_WIN_NULL);
}
#endif

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	MPI_Comm node = node_comm();
	neighbours(node, 0, 0, "node");
	neighbours(node, 1000, 0, "node, 4000 bytes more");
	neighbours(node, 3, 1, "node, alloc_shared_noncontig");
	neighbours(MPI_COMM_SELF, 5, 0, "self");
	atomic_pairs(node);
	atomic_pairs(MPI_COMM_SELF);
	disp_units(node);
	one_empty(node);
	churn(node);
#ifdef __wasm__
	too_big(node);
#endif
	MPI_Comm_free(&node);
	return tm_finish("fam_rma_shared") | MPI_Finalize();
}
