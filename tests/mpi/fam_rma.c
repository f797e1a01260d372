/* fam_rma.c - one-sided communication: fence epochs with Put/Get/
 * Accumulate/Get_accumulate (MPI_SUM, MPI_REPLACE, MPI_NO_OP, a strided
 * target type), PSCW with Win_wait and Win_test, passive target counters
 * (Fetch_and_op, Compare_and_swap, exclusive read-modify-write, lock_all
 * with every flush and Win_sync), request-based operations, a dynamic
 * window addressed with MPI_Get_address, a shared window whose segments
 * are loaded and stored directly, the predefined and user
 * attributes, names, info, error handlers, Fortran handles.  Built for
 * wasm it also checks that the bridge refuses buffers outside linear
 * memory and accesses outside the target's window (nothing printed, so
 * the output stays the native one). */
#include "tmpi.h"
#include <stdint.h>

static int rank, size, left, right;

/* Sorted copy of n ints equals lo, lo+1, ..., lo+n-1. */
static int is_perm(const int *v, int n, int lo)
{
	int seen[64] = {0};
	for (int i = 0; i < n; i++) {
		int k = v[i] - lo;
		if (k < 0 || k >= n || k >= 64 || seen[k])
			return 0;
		seen[k] = 1;
	}
	return 1;
}

/* ---- fence epochs on a window made by MPI_Win_create ----------------------- */

static int fbuf[16];

static void fence_test(MPI_Win *wout)
{
	MPI_Win win;
	MPI_Datatype vec;
	int one = 1, got_left = -1, noop = -1, old = -1, vals[2], olds[64];
	int tri = size * (size + 1) / 2;
	for (int i = 0; i < 16; i++)
		fbuf[i] = rank * 100 + i;
	OK(MPI_Win_create(fbuf, sizeof fbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	vals[0] = rank * 10 + 1;
	vals[1] = rank * 10 + 2;
	int mine = rank, plus = rank + 1, repl = 300 + rank;

	OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
	OK(MPI_Put(&mine, 1, MPI_INT, right, rank, 1, MPI_INT, win));       /* [0..3] */
	OK(MPI_Get(&got_left, 1, MPI_INT, left, 4, 1, MPI_INT, win));       /* [4] read */
	OK(MPI_Accumulate(&repl, 1, MPI_INT, right, 5, 1, MPI_INT, MPI_REPLACE, win));
	OK(MPI_Accumulate(&plus, 1, MPI_INT, 0, 6, 1, MPI_INT, MPI_SUM, win));
	OK(MPI_Get_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, 0, 7, 1, MPI_INT,
	                      MPI_SUM, win));
	OK(MPI_Put(vals, 2, MPI_INT, right, 8, 1, vec, win));               /* [8], [10] */
	OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &noop, 1, MPI_INT, right, 12, 1,
	                      MPI_INT, MPI_NO_OP, win));
	OK(MPI_Win_fence(0, win));

	CHECK(fbuf[left] == left);
	CHECK(got_left == left * 100 + 4);
	CHECK(fbuf[5] == 300 + left);
	CHECK(noop == right * 100 + 12);
	CHECK(fbuf[8] == left * 10 + 1 && fbuf[10] == left * 10 + 2);
	CHECK(fbuf[9] == rank * 100 + 9 && fbuf[11] == rank * 100 + 11);
	if (rank == 0) {
		CHECK(fbuf[6] == 6 + tri);
		CHECK(fbuf[7] == 7 + size);
	}
	MPI_Allgather(&old, 1, MPI_INT, olds, 1, MPI_INT, MPI_COMM_WORLD);
	CHECK(is_perm(olds, size, 7));
	tm_out("fence: put from %d, get %d, replace %d, noop %d, vector %d %d",
	       fbuf[left], got_left, fbuf[5], noop, fbuf[8], fbuf[10]);
	if (rank == 0)
		tm_out("fence: sum %d, get_accumulate counter %d", fbuf[6], fbuf[7]);

	/* A second epoch that ends without a successor: PSCW follows. */
	int back = -1;
	OK(MPI_Get(&back, 1, MPI_INT, right, rank, 1, MPI_INT, win));
	OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
	CHECK(back == rank);
	MPI_Type_free(&vec);
	*wout = win;
}

/* ---- PSCW ------------------------------------------------------------------------- */

static void pscw_test(MPI_Win win)
{
	MPI_Group wg, gl, gr;
	int v = 500 + rank, w = 600 + rank, flag = 0;
	OK(MPI_Win_get_group(win, &wg));
	int gs = -1;
	MPI_Group_size(wg, &gs);
	CHECK(gs == size);
	MPI_Group_incl(wg, 1, &left, &gl);
	MPI_Group_incl(wg, 1, &right, &gr);
	OK(MPI_Win_post(gl, 0, win));
	OK(MPI_Win_start(gr, 0, win));
	OK(MPI_Put(&v, 1, MPI_INT, right, 13, 1, MPI_INT, win));
	OK(MPI_Win_complete(win));
	OK(MPI_Win_wait(win));
	CHECK(fbuf[13] == 500 + left);

	OK(MPI_Win_post(gl, 0, win));
	OK(MPI_Win_start(gr, 0, win));
	OK(MPI_Put(&w, 1, MPI_INT, right, 14, 1, MPI_INT, win));
	OK(MPI_Win_complete(win));
	for (int i = 0; !flag && i < 100000000; i++)
		OK(MPI_Win_test(win, &flag));
	CHECK(flag == 1);
	CHECK(fbuf[14] == 600 + left);
	tm_out("pscw: wait got %d, test got %d", fbuf[13], fbuf[14]);
	MPI_Group_free(&gl);
	MPI_Group_free(&gr);
	MPI_Group_free(&wg);
}

/* ---- passive target on a window made by MPI_Win_allocate ------------------------ */

static int del_calls, del_extra;
static void *del_val;
static MPI_Win del_win;

static int del_fn(MPI_Win win, int key, void *val, void *extra)
{
	(void)key;
	del_calls++;
	del_val = val;
	(*(int *)extra)++;
	if (win != del_win)
		del_calls += 1000;
	return MPI_SUCCESS;
}

static void passive_test(void)
{
	MPI_Win win;
	int *base = NULL, one = 1, old = -1, cur, nv, res, ticket = -1, tmp;
	int olds[64], tickets[64], v[8];
	OK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
	                    &base, &win));
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	CHECK(base != NULL);
	OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
	for (int i = 0; i < 8; i++)
		base[i] = 0;
	base[5] = rank * 7 + 5;
	OK(MPI_Win_unlock(rank, win));
	MPI_Barrier(MPI_COMM_WORLD);

	/* Counters at rank 0: fetch-and-add, compare-and-swap, exclusive RMW. */
	OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
	OK(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win));
	OK(MPI_Win_unlock(0, win));

	OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
	for (int tries = 0; tries < 1000000; tries++) {
		OK(MPI_Fetch_and_op(NULL, &cur, MPI_INT, 0, 1, MPI_NO_OP, win));
		OK(MPI_Win_flush(0, win));
		nv = cur + 1;
		OK(MPI_Compare_and_swap(&nv, &cur, &res, MPI_INT, 0, 1, win));
		OK(MPI_Win_flush(0, win));
		if (res == cur) {
			ticket = cur;
			break;
		}
	}
	OK(MPI_Win_unlock(0, win));

	OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
	OK(MPI_Get(&tmp, 1, MPI_INT, 0, 2, 1, MPI_INT, win));
	OK(MPI_Win_flush(0, win));
	tmp += rank + 1;
	OK(MPI_Put(&tmp, 1, MPI_INT, 0, 2, 1, MPI_INT, win));
	OK(MPI_Win_unlock(0, win));

	/* lock_all, every flush, Win_sync. */
	int put3 = rank + 1;
	OK(MPI_Win_lock_all(0, win));
	OK(MPI_Put(&put3, 1, MPI_INT, right, 3, 1, MPI_INT, win));
	OK(MPI_Win_flush_local(right, win));
	OK(MPI_Win_flush(right, win));
	OK(MPI_Win_flush_local_all(win));
	OK(MPI_Win_flush_all(win));
	OK(MPI_Win_sync(win));
	OK(MPI_Win_unlock_all(win));
	MPI_Barrier(MPI_COMM_WORLD);

	/* Request-based operations in a lock_all epoch. */
	MPI_Request rq[4];
	int rput = rank + 100, rget = -1, racc = rank + 1, rgold = -1;
	OK(MPI_Win_lock_all(0, win));
	OK(MPI_Rput(&rput, 1, MPI_INT, right, 4, 1, MPI_INT, win, &rq[0]));
	OK(MPI_Rget(&rget, 1, MPI_INT, left, 5, 1, MPI_INT, win, &rq[1]));
	OK(MPI_Raccumulate(&racc, 1, MPI_INT, 0, 6, 1, MPI_INT, MPI_SUM, win, &rq[2]));
	OK(MPI_Rget_accumulate(&one, 1, MPI_INT, &rgold, 1, MPI_INT, 0, 7, 1, MPI_INT,
	                       MPI_SUM, win, &rq[3]));
	OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
	CHECK(rq[0] == MPI_REQUEST_NULL && rq[3] == MPI_REQUEST_NULL);
	OK(MPI_Win_unlock_all(win));
	MPI_Barrier(MPI_COMM_WORLD);

	OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
	OK(MPI_Get(v, 8, MPI_INT, 0, 0, 8, MPI_INT, win));
	OK(MPI_Win_unlock(0, win));
	int tri = size * (size + 1) / 2;
	CHECK(v[0] == size && v[1] == size && v[2] == tri && v[6] == tri && v[7] == size);
	OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
	OK(MPI_Win_sync(win));
	int mine3 = base[3], mine4 = base[4];
	OK(MPI_Win_unlock(rank, win));
	CHECK(mine3 == left + 1);
	CHECK(mine4 == left + 100);
	CHECK(rget == left * 7 + 5);
	MPI_Allgather(&old, 1, MPI_INT, olds, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Allgather(&ticket, 1, MPI_INT, tickets, 1, MPI_INT, MPI_COMM_WORLD);
	CHECK(is_perm(olds, size, 0));
	CHECK(is_perm(tickets, size, 0));
	MPI_Allgather(&rgold, 1, MPI_INT, olds, 1, MPI_INT, MPI_COMM_WORLD);
	CHECK(is_perm(olds, size, 0));
	if (rank == 0)
		tm_out("passive: fetch_and_op %d, cas %d, exclusive %d, raccumulate %d, "
		       "rget_accumulate %d", v[0], v[1], v[2], v[6], v[7]);
	tm_out("passive: lock_all put %d, rput %d, rget %d", mine3, mine4, rget);

	/* Predefined attributes of an allocated window. */
	void *a;
	int flag = 0;
	OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &a, &flag));
	CHECK(flag && a == base);
	OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &a, &flag));
	CHECK(flag && *(MPI_Aint *)a == 8 * (MPI_Aint)sizeof(int));
	OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &a, &flag));
	CHECK(flag && *(int *)a == (int)sizeof(int));
	OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &a, &flag));
	CHECK(flag && *(int *)a == MPI_WIN_FLAVOR_ALLOCATE);
	OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &a, &flag));
	CHECK(flag && (*(int *)a == MPI_WIN_UNIFIED || *(int *)a == MPI_WIN_SEPARATE));

	/* A user attribute: its delete callback runs at delete and free. */
	int key, extra = 0, val1 = 11, val2 = 22;
	OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, &extra));
	OK(MPI_Win_set_attr(win, key, &val1));
	OK(MPI_Win_get_attr(win, key, &a, &flag));
	CHECK(flag && a == &val1 && *(int *)a == 11);
	del_win = win;
	OK(MPI_Win_delete_attr(win, key));
	CHECK(del_calls == 1 && del_val == &val1 && extra == 1);
	OK(MPI_Win_get_attr(win, key, &a, &flag));
	CHECK(flag == 0);
	OK(MPI_Win_set_attr(win, key, &val2));
	int key2;
	OK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &key2, NULL));
	OK(MPI_Win_set_attr(win, key2, &val1));
	OK(MPI_Win_free_keyval(&key2));
	CHECK(key2 == MPI_KEYVAL_INVALID);
	OK(MPI_Win_free(&win));
	CHECK(win == MPI_WIN_NULL);
	CHECK(del_calls == 2 && del_val == &val2 && extra == 2);
	OK(MPI_Win_free_keyval(&key));
	tm_out("attributes: delete callback ran %d times", del_calls);
}

/* ---- a dynamic window ------------------------------------------------------------ */

static void dynamic_test(void)
{
	MPI_Win win;
	MPI_Aint addr, addrs[64];
	int *region = (int *)malloc(4 * sizeof(int)), got = -1, put = rank + 2000;
	for (int i = 0; i < 4; i++)
		region[i] = rank * 1000 + i;
	OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	OK(MPI_Win_attach(win, region, 4 * sizeof(int)));
	OK(MPI_Get_address(region, &addr));
	MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
	OK(MPI_Win_fence(0, win));
	OK(MPI_Get(&got, 1, MPI_INT, right, MPI_Aint_add(addrs[right], 2 * sizeof(int)),
	           1, MPI_INT, win));
	OK(MPI_Put(&put, 1, MPI_INT, left, MPI_Aint_add(addrs[left], 3 * sizeof(int)),
	           1, MPI_INT, win));
	OK(MPI_Win_fence(0, win));
	CHECK(got == right * 1000 + 2);
	CHECK(region[3] == right + 2000);
	CHECK(region[0] == rank * 1000 && region[2] == rank * 1000 + 2);
	tm_out("dynamic: get %d, put %d", got, region[3]);

	void *a;
	int flag = 0;
	OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &a, &flag));
	CHECK(flag && *(int *)a == MPI_WIN_FLAVOR_DYNAMIC);
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_Win_detach(win, region));
	OK(MPI_Win_free(&win));
	free(region);
}

/* ---- a shared window: every segment loaded and stored directly ----------------- */

/* Odd ranks give no memory: their segments are empty, with no base (the
 * bridge answers NULL, as MPICH; Open MPI natively gives an address). */
static void shared_empty(void)
{
	MPI_Comm node;
	MPI_Win win;
	int nr, ns, *mine = NULL, bad = 0;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &nr);
	MPI_Comm_size(node, &ns);
	OK(MPI_Win_allocate_shared(nr % 2 ? 0 : (MPI_Aint)sizeof(int), sizeof(int),
	                           MPI_INFO_NULL, node, &mine, &win));
	for (int r = 0; r < ns; r++) {
		MPI_Aint sz = -1;
		int du = -1, *p = NULL;
		OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
		bad += sz != (r % 2 ? 0 : (MPI_Aint)sizeof(int));
#ifdef __wasm__
		bad += (p == NULL) != (r % 2 == 1);
#endif
	}
	CHECK(bad == 0);
	OK(MPI_Win_free(&win));
	MPI_Comm_free(&node);
}

static void shared_test(void)
{
	MPI_Comm node;
	MPI_Win win;
	int nr, ns, *mine = NULL, total = 0, good = 1, flag = 0;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &nr);
	MPI_Comm_size(node, &ns);
	int nl = (nr + ns - 1) % ns, nright = (nr + 1) % ns;
	OK(MPI_Win_allocate_shared((nr + 1) * (MPI_Aint)sizeof(int), sizeof(int),
	                           MPI_INFO_NULL, node, &mine, &win));
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	OK(MPI_Win_lock_all(0, win));
	for (int i = 0; i <= nr; i++)
		mine[i] = nr * 10 + i;
	OK(MPI_Win_sync(win));
	MPI_Barrier(node);
	OK(MPI_Win_sync(win));
	int *prev = NULL;
	MPI_Aint prevsz = 0;
	for (int r = 0; r < ns; r++) {
		MPI_Aint sz = -1;
		int du = -1, *p = NULL;
		OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
		CHECK(sz == (r + 1) * (MPI_Aint)sizeof(int) && du == (int)sizeof(int));
		if (r == nr)
			CHECK(p == mine);
		if (prev)   /* MPI's default: segments contiguous in rank order */
			CHECK((char *)p == (char *)prev + prevsz);
		for (int i = 0; i <= r && p; i++) {
			good &= p[i] == r * 10 + i;
			total += p[i];
		}
		prev = p;
		prevsz = sz;
	}
	CHECK(good);
	{
		MPI_Aint sz = -1;
		int du = -1, *p = NULL;
		OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
		CHECK(sz == (MPI_Aint)sizeof(int) && p != NULL && p[0] == 0);
	}
	/* A Put through MPI lands in the memory the target loads from. */
	MPI_Barrier(node);
	int v = 7000 + nr;
	OK(MPI_Put(&v, 1, MPI_INT, nright, 0, 1, MPI_INT, win));
	OK(MPI_Win_flush(nright, win));
	OK(MPI_Win_sync(win));
	MPI_Barrier(node);
	OK(MPI_Win_sync(win));
	int got = mine[0];
	CHECK(got == 7000 + nl);
	OK(MPI_Win_unlock_all(win));
	void *a;
	OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &a, &flag));
	CHECK(flag && *(int *)a == MPI_WIN_FLAVOR_SHARED);
	OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &a, &flag));
	CHECK(flag && a == mine);
	tm_out("shared: %d segments loaded, sum %d, put from left %d", ns, total, got);
	OK(MPI_Win_free(&win));
	MPI_Comm_free(&node);
}

/* ---- names, info, error handlers, Fortran handles ---------------------------------- */

static int eh_calls, eh_code;
static MPI_Win eh_win;

static void eh_fn(MPI_Win *win, int *code, ...)
{
	eh_calls++;
	eh_code = *code;
	eh_win = *win;
}

static void misc_test(MPI_Win win)
{
	char name[MPI_MAX_OBJECT_NAME];
	int len = -1, flag = 0;
	OK(MPI_Win_set_name(win, "rma-fence"));
	OK(MPI_Win_get_name(win, name, &len));
	CHECK(len == 9 && !strcmp(name, "rma-fence"));

	MPI_Info info, got;
	MPI_Info_create(&info);
	MPI_Info_set(info, "mpiwasm_unknown_key", "1");
	OK(MPI_Win_set_info(win, info));
	OK(MPI_Win_get_info(win, &got));
	CHECK(got != MPI_INFO_NULL);
	MPI_Info_free(&got);
	MPI_Info_free(&info);

	void *a;
	OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &a, &flag));
	CHECK(flag && a == fbuf);
	OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &a, &flag));
	CHECK(flag && *(MPI_Aint *)a == (MPI_Aint)sizeof fbuf);
	OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &a, &flag));
	CHECK(flag && *(int *)a == (int)sizeof(int));
	OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &a, &flag));
	CHECK(flag && *(int *)a == MPI_WIN_FLAVOR_CREATE);

	MPI_Fint f = MPI_Win_c2f(win);
	CHECK(MPI_Win_f2c(f) == win);

	MPI_Errhandler eh, eh2;
	OK(MPI_Win_create_errhandler(eh_fn, &eh));
	OK(MPI_Win_set_errhandler(win, eh));
	OK(MPI_Win_get_errhandler(win, &eh2));
	CHECK(eh2 == eh);
	OK(MPI_Errhandler_free(&eh2));
	OK(MPI_Errhandler_free(&eh));
	OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
	CHECK(eh_calls == 1 && eh_code == MPI_ERR_OTHER && eh_win == win);
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
	CHECK(eh_calls == 1);
	tm_out("misc: name %s, error handler called %d time(s)", name, eh_calls);
}

/* ---- wasm only: the bridge's own checks ----------------------------------------- */

#ifdef __wasm__
#define FAR ((void *)(uintptr_t)0xFFFFFFF0u)

static int cls(int rc)
{
	int c = -1;
	MPI_Error_class(rc, &c);
	return c;
}

static int sum_fn_dummy;
static void user_op(void *in, void *io, int *len, MPI_Datatype *dt)
{
	(void)in; (void)io; (void)len; (void)dt;
	sum_fn_dummy++;
}

static void bridge_checks(MPI_Win win)
{
	int x = 1, y = 0;
	MPI_Win w2;
	MPI_Op uop;
	/* win: 16 ints, disp_unit 4, errors return */
	CHECK(cls(MPI_Put(FAR, 100, MPI_INT, rank, 0, 1, MPI_INT, win)) == MPI_ERR_BUFFER);
	CHECK(cls(MPI_Get(FAR, 100, MPI_INT, rank, 0, 1, MPI_INT, win)) == MPI_ERR_BUFFER);
	CHECK(cls(MPI_Put(&x, 1, MPI_INT, rank, 16, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
	CHECK(cls(MPI_Get(&x, 2, MPI_INT, rank, 15, 2, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
	CHECK(cls(MPI_Put(&x, 1, MPI_INT, rank, -1, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
	CHECK(cls(MPI_Accumulate(&x, 1, MPI_INT, rank, 0x40000000, 1, MPI_INT, MPI_SUM,
	                         win)) == MPI_ERR_RMA_RANGE);
	CHECK(cls(MPI_Fetch_and_op(&x, FAR, MPI_INT, rank, 0, MPI_SUM, win)) == MPI_ERR_BUFFER);
	CHECK(cls(MPI_Compare_and_swap(&x, FAR, &y, MPI_INT, rank, 0, win)) == MPI_ERR_BUFFER);
	CHECK(cls(MPI_Compare_and_swap(&x, &y, &y, MPI_INT, rank, 16, win)) == MPI_ERR_RMA_RANGE);
	MPI_Op_create(user_op, 1, &uop);
	CHECK(cls(MPI_Accumulate(&x, 1, MPI_INT, rank, 0, 1, MPI_INT, uop, win)) == MPI_ERR_OP);
	MPI_Op_free(&uop);
	CHECK(cls(MPI_Win_lock(99, rank, 0, win)) == MPI_ERR_LOCKTYPE);
	CHECK(cls(MPI_Win_fence(1, win)) == MPI_ERR_ASSERT);
	{
		MPI_Aint sz;
		int du, *p;
		CHECK(cls(MPI_Win_shared_query(win, rank, &sz, &du, &p)) == MPI_ERR_RMA_FLAVOR);
		CHECK(cls(MPI_Win_shared_query(win, rank, FAR, &du, &p)) != MPI_SUCCESS);
	}
	/* handles that name no window: MPI_COMM_WORLD's handler */
	CHECK(cls(MPI_Win_fence(0, (MPI_Win)12345)) == MPI_ERR_WIN);
	CHECK(cls(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL)) == MPI_ERR_WIN);
	/* window memory outside linear memory */
	CHECK(cls(MPI_Win_create(FAR, 100, 1, MPI_INFO_NULL, MPI_COMM_SELF, &w2)) == MPI_ERR_BUFFER);
	OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w2));
	OK(MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN));
	CHECK(cls(MPI_Win_attach(w2, FAR, 100)) == MPI_ERR_BUFFER);
	/* a dynamic target address past the 4 GiB module address space */
	CHECK(cls(MPI_Put(&x, 2, MPI_INT, rank, (MPI_Aint)0xFFFFFFFCu, 2, MPI_INT, w2)) ==
	      MPI_ERR_RMA_RANGE);
	OK(MPI_Win_free(&w2));
}
#endif

/* long double arithmetic through a window is the host's, on its own long
 * double, which is not a module's binary128: wasm refuses it with
 * MPI_ERR_OP rather than give wrong values. */
static void ld_rma(void)
{
	long double cell = 1.5L, v = 2.25L, old = 0;
	MPI_Win win;
	int rank = tm_rank(), rc;
	OK(MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
	rc = MPI_Fetch_and_op(&v, &old, MPI_LONG_DOUBLE, rank, 0, MPI_SUM, win);
	CHECK(rc == MPI_SUCCESS);
	OK(MPI_Win_unlock(rank, win));
	CHECK(cell == 3.75L && old == 1.5L);
	OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;

	/* Open MPI 4.1 makes no window on a 1-process communicator (its osc
	 * components need a peer: open-mpi/ompi#10726); MPICH does. */
	int probe_mem = 0, rc = MPI_Win_create(&probe_mem, sizeof probe_mem, 1,
	                                       MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	if (rc != MPI_SUCCESS && size == 1) {
		tm_out("no window on a 1-process communicator in this MPI library: skipped");
		return tm_finish("fam_rma") | MPI_Finalize();
	}
	CHECK(rc == MPI_SUCCESS);
	if (rc == MPI_SUCCESS)
		OK(MPI_Win_free(&win));

	fence_test(&win);
	pscw_test(win);
	misc_test(win);
#ifdef __wasm__
	bridge_checks(win);
#endif
	OK(MPI_Win_free(&win));
	CHECK(win == MPI_WIN_NULL);
	passive_test();
	dynamic_test();
	shared_test();
	shared_empty();
	ld_rma();
	return tm_finish("fam_rma") | MPI_Finalize();
}
