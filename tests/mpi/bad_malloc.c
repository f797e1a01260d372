/* wasm only: a module whose malloc lies.  The bridge allocates in the
 * module (MPI_Alloc_mem, MPI_Win_allocate(_shared), predefined attribute
 * values, a window's attribute words, the scratch words of attribute copy
 * callbacks, error handlers and generalized request queries) and must
 * check every address the module's malloc returns before it touches it:
 * a bad one is MPI_ERR_NO_MEM (or the callback's failure), never a host
 * access, never a window with no memory behind it.
 *
 * usage: bad_malloc.wasm MODE [fatal|errh]
 *   MODE zero      malloc returns 0
 *        end       the block runs off the end of linear memory
 *        wrap      0xFFFFFFF0: address + size wraps past 4 GiB
 *        misalign  a block in memory, 4 bytes off malloc's alignment
 *   (none)  every allocating path under MPI_ERRORS_RETURN; rank 0 lies,
 *           the others too where the call is local
 *   fatal   MPI_Win_allocate under MPI_ERRORS_ARE_FATAL, rank 0 lying:
 *           the job ends with rank 0's line; a remote MPI_Put never runs
 *   errh    a user error handler must be called while malloc lies: the
 *           job ends with a line naming the error handler */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tmpi.h"

/* ---- the module's own allocator: a bump allocator, or a liar --------------- */

static int evil;            /* lie to the next malloc calls (the bridge's) */
static const char *mode = "zero";
extern unsigned char __heap_base;
static uintptr_t brk_;

static uintptr_t mem_bytes(void)
{
	return (uintptr_t)__builtin_wasm_memory_size(0) * 65536u;
}

static void *lie(size_t n)
{
	if (!strcmp(mode, "end"))   /* n bytes that cannot fit before the end */
		return (void *)(mem_bytes() - (n > 8 ? 8 : n / 2));
	if (!strcmp(mode, "wrap"))
		return (void *)(uintptr_t)0xFFFFFFF0u;
	if (!strcmp(mode, "misalign")) {
		static char spare[256] __attribute__((aligned(16)));
		return spare + 4;
	}
	return NULL;
}

void *malloc(size_t n)
{
	if (evil)
		return lie(n);
	if (!brk_)
		brk_ = ((uintptr_t)&__heap_base + 15) & ~(uintptr_t)15;
	uintptr_t p = brk_ + 16, end = p + ((n + 15) & ~(size_t)15);
	if (end < p)
		return NULL;
	if (end > mem_bytes() &&
	    __builtin_wasm_memory_grow(0, (end - mem_bytes() + 65535) / 65536) == (size_t)-1)
		return NULL;
	*(size_t *)(p - 16) = n;
	brk_ = end;
	return (void *)p;
}

void free(void *p) { (void)p; }

void *calloc(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		return NULL;
	void *p = malloc(a * b);
	if (p && !evil)
		memset(p, 0, a * b);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p = malloc(n);
	if (p && old) {
		size_t was = *(size_t *)((char *)old - 16);
		memcpy(p, old, was < n ? was : n);
	}
	return p;
}

/* ---- the checks ------------------------------------------------------------- */

static int cls(int rc)
{
	int c = rc;
	MPI_Error_class(rc, &c);
	return c;
}

#define NOMEM(call) do { evil = 1; int rc_ = (call); evil = 0; tm_checks++; \
	if (cls(rc_) != MPI_ERR_NO_MEM) { tm_fail++; tm_out("FAIL %s:%d: %s " \
	"returned %d, not MPI_ERR_NO_MEM", __FILE__, __LINE__, #call, rc_); } } while (0)
#define FAILS(call) do { evil = 1; int rc_ = (call); evil = 0; tm_checks++; \
	if (rc_ == MPI_SUCCESS) { tm_fail++; tm_out("FAIL %s:%d: %s succeeded", \
	__FILE__, __LINE__, #call); } } while (0)

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
	(void)c; (void)key; (void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

/* Values a callback gives back that the host keeps: an attribute word is
 * the module's (never dereferenced by the host), a flag is a truth value. */
static int odd_copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
	(void)c; (void)key; (void)extra; (void)in;
	*(void **)out = (void *)(uintptr_t)0xFFFFFFF0u;
	*flag = 7;
	return MPI_SUCCESS;
}

/* A status with values no library would give: the host only stores them. */
static int odd_query_fn(void *extra, MPI_Status *st)
{
	(void)extra;
	MPI_Status_set_elements(st, MPI_BYTE, 0x7fffffff);
	MPI_Status_set_cancelled(st, 5);
	st->MPI_SOURCE = 0x7fffffff;
	st->MPI_TAG = -12345;
	return MPI_SUCCESS;
}

static int query_fn(void *extra, MPI_Status *st)
{
	(void)extra;
	MPI_Status_set_elements(st, MPI_BYTE, 0);
	MPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int done) { (void)extra; (void)done; return MPI_SUCCESS; }

static void eh_fn(MPI_Comm *c, int *code, ...)
{
	(void)c; (void)code;
	printf("bad_malloc: rank %d: the error handler ran\n", tm_rank());
	fflush(stdout);
}

/* MPI_Win_allocate: every rank must fail together (the liar is rank 0),
 * and a window that did come about must hold a Put from another rank. */
static void win_allocate(int rank, int size)
{
	int *base = NULL;
	MPI_Win win = MPI_WIN_NULL;
	evil = rank == 0;
	int rc = MPI_Win_allocate(65536, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	evil = 0;
	tm_checks++;
	if (cls(rc) != MPI_ERR_NO_MEM) {
		tm_fail++;
		tm_out("FAIL MPI_Win_allocate with a lying malloc on rank 0 returned %d", rc);
	}
	if (rc == MPI_SUCCESS) {   /* the old bridge: try the window */
		int one = 1;
		MPI_Win_fence(0, win);
		if (rank == size - 1)
			MPI_Put(&one, 1, MPI_INT, 0, 16000, 1, MPI_INT, win);
		MPI_Win_fence(0, win);
		MPI_Win_free(&win);
	}
}

int main(int argc, char **argv)
{
	int rank, size;
	mode = argc > 1 ? argv[1] : "zero";
	const char *what = argc > 2 ? argv[2] : "";
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	if (!strcmp(what, "fatal")) {
		int *base = NULL;
		MPI_Win win;
		evil = rank == 0;
		MPI_Win_allocate(65536, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
		evil = 0;
		int one = 1;
		MPI_Win_fence(0, win);
		if (rank == size - 1)
			MPI_Put(&one, 1, MPI_INT, 0, 16000, 1, MPI_INT, win);
		MPI_Win_fence(0, win);
		printf("bad_malloc: rank %d survived MPI_Win_allocate with a lying malloc\n", rank);
		fflush(stdout);
		MPI_Finalize();
		return 0;
	}
	if (!strcmp(what, "errh")) {
		MPI_Errhandler eh;
		MPI_Comm_create_errhandler(eh_fn, &eh);
		MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
		int x = 0;
		evil = 1;
		MPI_Send(&x, 1, MPI_INT, 5, 0, MPI_COMM_SELF);   /* invalid rank */
		evil = 0;
		printf("bad_malloc: rank %d survived an error handler call with a lying malloc\n", rank);
		fflush(stdout);
		MPI_Finalize();
		return 0;
	}

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

	/* MPI_Alloc_mem: local. */
	void *p = NULL;
	NOMEM(MPI_Alloc_mem(4096, MPI_INFO_NULL, &p));
	NOMEM(MPI_Alloc_mem(0, MPI_INFO_NULL, &p));
	OK(MPI_Alloc_mem(4096, MPI_INFO_NULL, &p));
	if (p) {
		memset(p, 1, 4096);
		OK(MPI_Free_mem(p));
	}

	/* The first predefined attribute value is placed in module memory. */
	int *ub = NULL, flag = 0;
	NOMEM(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
	OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
	CHECK(flag && ub && *ub >= 32767);

	/* An attribute copy callback's scratch words, made at the first dup. */
	int key;
	MPI_Comm dup = MPI_COMM_NULL;
	OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
	OK(MPI_Comm_set_attr(MPI_COMM_SELF, key, (void *)(uintptr_t)42));
	FAILS(MPI_Comm_dup(MPI_COMM_SELF, &dup));
	if (dup != MPI_COMM_NULL)
		MPI_Comm_free(&dup);
	OK(MPI_Comm_dup(MPI_COMM_SELF, &dup));
	if (dup != MPI_COMM_NULL) {
		void *v = NULL;
		OK(MPI_Comm_get_attr(dup, key, &v, &flag));
		CHECK(flag && v == (void *)(uintptr_t)42);
		MPI_Comm_free(&dup);
	}

	/* A generalized request's query function gets a status in module
	 * memory at each completion. */
	MPI_Request req;
	MPI_Status st;
	OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &req));
	OK(MPI_Grequest_complete(req));
	FAILS(MPI_Wait(&req, &st));
	if (req != MPI_REQUEST_NULL)
		MPI_Request_free(&req);

	/* What callbacks return is kept as a value, never used as an address. */
	int okey;
	OK(MPI_Comm_create_keyval(odd_copy_fn, MPI_COMM_NULL_DELETE_FN, &okey, NULL));
	OK(MPI_Comm_set_attr(MPI_COMM_SELF, okey, (void *)(uintptr_t)1));
	OK(MPI_Comm_dup(MPI_COMM_SELF, &dup));
	if (dup != MPI_COMM_NULL) {
		void *v = NULL;
		OK(MPI_Comm_get_attr(dup, okey, &v, &flag));
		CHECK(flag == 1 && v == (void *)(uintptr_t)0xFFFFFFF0u);
		MPI_Comm_free(&dup);
	}
	OK(MPI_Comm_delete_attr(MPI_COMM_SELF, okey));
	OK(MPI_Grequest_start(odd_query_fn, free_fn, cancel_fn, NULL, &req));
	OK(MPI_Grequest_complete(req));
	OK(MPI_Wait(&req, &st));
	CHECK(req == MPI_REQUEST_NULL);

	/* Windows: MPI_Win_allocate, a window's attribute words, and
	 * MPI_Win_allocate_shared (collective: rank 0 lies). */
	win_allocate(rank, size);
	MPI_Win win;
	int wbuf[4];
	OK(MPI_Win_create(wbuf, sizeof wbuf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Aint *wsize = NULL;
	NOMEM(MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag));
	OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag));
	CHECK(flag && wsize && *wsize == (MPI_Aint)sizeof wbuf);
	OK(MPI_Win_free(&win));
	int *sbase = NULL;
	win = MPI_WIN_NULL;
	evil = rank == 0;
	int rc = MPI_Win_allocate_shared(4096, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &sbase, &win);
	evil = 0;
	tm_checks++;
	if (rc == MPI_SUCCESS) {
		tm_fail++;
		tm_out("FAIL MPI_Win_allocate_shared with a lying malloc on rank 0 succeeded");
		MPI_Win_free(&win);
	}

	/* Allocation works again afterwards. */
	int *base = NULL;
	OK(MPI_Win_allocate(4096, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
	if (base) {
		base[0] = rank;
		OK(MPI_Win_free(&win));
	}
	tm_out("%s: every allocating path refused the block", mode);
	int bad = tm_finish("bad_malloc");
	MPI_Finalize();
	return bad;
}
