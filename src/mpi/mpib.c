/* mpib.c - the bridge's core: handle tables, datatype layouts, wildcards,
 * bounds-checked buffers, statuses, error handlers, job abort. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpib.h"
#include "mpib_int.h"
#include "rt/rt.h"

rt_instance *mw_inst;

/* Module threads call MPI concurrently (MPI_THREAD_MULTIPLE): the handle
 * tables and the other shared state of the bridge change under this one
 * lock, held only around table operations, never across a call into
 * MPI that may block.  Recursive: a request's release function, run
 * with it held, may delete other handles. */
static pthread_mutex_t mw_mx = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
/* Only a module that can start threads takes it (mpib_set_threads, set
 * before the module runs and never changed after, so every unlock
 * matches its lock): a single-threaded module's MPI calls, ping-pong's
 * included, pay no atomic instruction for it. */
static int mw_mx_on;

void mpib_set_threads(int on)
{
	mw_mx_on = on;
}

void mw_lock(void)
{
	if (mw_mx_on)
		pthread_mutex_lock(&mw_mx);
}

void mw_unlock(void)
{
	if (mw_mx_on)
		pthread_mutex_unlock(&mw_mx);
}
int mw_is_active, mw_world_rank = -1;
__thread int mw_pending_trap;

/* ---- handle tables ------------------------------------------------------
 * One growable array per kind; slot i holds the host handle of module
 * handle i (the host's null handle marks a free slot).  Slots below
 * `first` are the predefined handles and are never freed or reused. */

#define MW_TABLE(K, T, HNULL, MNULL, ERRCLS, HELD)                            \
	static struct { T *v; uint32_t n, cap, first; } K##_t;                \
	static void K##_set(uint32_t i, T x)                                  \
	{                                                                     \
		if (i >= K##_t.cap) {                                         \
			uint32_t cap = K##_t.cap ? K##_t.cap : 64;            \
			while (cap <= i)                                      \
				cap *= 2;                                     \
			T *v = realloc(K##_t.v, cap * sizeof *v);             \
			if (!v) {                                             \
				fprintf(stderr, "mpiwasm: mpib: out of memory "\
				        "for " #K " handles\n");              \
				abort();                                      \
			}                                                     \
			for (uint32_t j = K##_t.cap; j < cap; j++)            \
				v[j] = HNULL;                                 \
			K##_t.v = v;                                          \
			K##_t.cap = cap;                                      \
		}                                                             \
		K##_t.v[i] = x;                                               \
		if (i >= K##_t.n)                                             \
			K##_t.n = i + 1;                                      \
	}                                                                     \
	int mw_##K##_get(uint32_t h, T *out)                                  \
	{                                                                     \
		if (h == (uint32_t)(MNULL)) {                                 \
			*out = HNULL;                                         \
			return 0;                                             \
		}                                                             \
		int rc = 0;                                                   \
		mw_lock();                                                    \
		if (h >= K##_t.n || K##_t.v[h] == HNULL || HELD(h, K##_t.v[h])) \
			rc = ERRCLS;                                          \
		else                                                          \
			*out = K##_t.v[h];                                    \
		mw_unlock();                                                  \
		return rc;                                                    \
	}                                                                     \
	static uint32_t K##_put_(T x)                                            \
	{                                                                     \
		if (x == HNULL)                                               \
			return (uint32_t)(MNULL);                             \
		for (uint32_t i = 0; i < K##_t.first && i < K##_t.n; i++)     \
			if (K##_t.v[i] == x)                                  \
				return i;                                     \
		for (uint32_t i = K##_t.first; i < K##_t.n; i++)              \
			if (K##_t.v[i] == HNULL) {                            \
				K##_t.v[i] = x;                               \
				return i;                                     \
			}                                                     \
		uint32_t i = K##_t.n > K##_t.first ? K##_t.n : K##_t.first;   \
		K##_set(i, x);                                                \
		return i;                                                     \
	}                                                                     \
	static uint32_t K##_find_(T x)                                           \
	{                                                                     \
		for (uint32_t i = 0; i < K##_t.n; i++)                        \
			if (K##_t.v[i] == x && x != HNULL)                    \
				return i;                                     \
		return (uint32_t)(MNULL);                                     \
	}                                                                     \
	static uint32_t K##_new_(T x)                                            \
	{                                                                     \
		for (uint32_t i = K##_t.first; i < K##_t.n; i++)              \
			if (K##_t.v[i] == HNULL) {                            \
				K##_t.v[i] = x;                               \
				return i;                                     \
			}                                                     \
		uint32_t i = K##_t.n > K##_t.first ? K##_t.n : K##_t.first;   \
		K##_set(i, x);                                                \
		return i;                                                     \
	}                                                                     \
	void mw_##K##_del(uint32_t h)                                         \
	{                                                                     \
		mw_lock();                                                    \
		if (h >= K##_t.first && h < K##_t.n)                          \
			K##_t.v[h] = HNULL;                                   \
		mw_unlock();                                                  \
	}                                                                     \
	uint32_t mw_##K##_put(T x)                                            \
	{                                                                     \
		mw_lock();                                                    \
		uint32_t i = K##_put_(x);                                     \
		mw_unlock();                                                  \
		return i;                                                     \
	}                                                                     \
	uint32_t mw_##K##_find(T x)                                           \
	{                                                                     \
		mw_lock();                                                    \
		uint32_t i = K##_find_(x);                                    \
		mw_unlock();                                                  \
		return i;                                                     \
	}                                                                     \
	uint32_t mw_##K##_new(T x)                                            \
	{                                                                     \
		mw_lock();                                                    \
		uint32_t i = K##_new_(x);                                     \
		mw_unlock();                                                  \
		return i;                                                     \
	}

/* A slot held for a pending MPI_Comm_idup (mw_comm_reserve) is no
 * communicator yet: using the new handle before the request completes is
 * erroneous, and Open MPI 4.1 crashes on it (MPI_Comm_free of it: SIGSEGV;
 * tests/fuzz-bridge/open/idup-free.c), so every use is MPI_ERR_COMM. */
#define COMM_HELD(i, c) ((i) >= comm_t.first && (c) == MPI_COMM_SELF)
#define NOT_HELD(i, x) 0
MW_TABLE(comm, MPI_Comm, MPI_COMM_NULL, MW_COMM_NULL, MW_ERR_COMM, COMM_HELD)
int mw_comm_live(uint32_t h, MPI_Comm *out)
{
	int rc = mw_comm_get(h, out);
	return rc ? rc : *out == MPI_COMM_NULL ? MW_ERR_COMM : 0;
}
void mw_comm_set(uint32_t h, MPI_Comm c)
{
	mw_lock();
	if (h >= comm_t.first)
		comm_set(h, c);
	mw_unlock();
}

/* A placeholder that is never MPI_COMM_NULL, never found by a reverse
 * lookup before the predefined slot that really holds it, and refused by
 * mw_comm_get (COMM_HELD) until mw_comm_set fills the slot. */
uint32_t mw_comm_reserve(void)
{
	return mw_comm_new(MPI_COMM_SELF);
}

MW_TABLE(group, MPI_Group, MPI_GROUP_NULL, MW_GROUP_NULL, MW_ERR_GROUP, NOT_HELD)
MW_TABLE(op, MPI_Op, MPI_OP_NULL, MW_OP_NULL, MW_ERR_OP, NOT_HELD)
MW_TABLE(info, MPI_Info, MPI_INFO_NULL, MW_INFO_NULL, MW_ERR_INFO, NOT_HELD)
MW_TABLE(errh, MPI_Errhandler, MPI_ERRHANDLER_NULL, MW_ERRHANDLER_NULL, MW_ERR_ARG, NOT_HELD)
MW_TABLE(msg, MPI_Message, MPI_MESSAGE_NULL, MW_MESSAGE_NULL, MW_ERR_REQUEST, NOT_HELD)
MW_TABLE(keyval, int, MPI_KEYVAL_INVALID, MW_KEYVAL_INVALID, MW_ERR_KEYVAL, NOT_HELD)

/* Requests are the hot table: a free list instead of a scan. */
static struct { MPI_Request *v; uint32_t n, cap, *free, nfree, freecap; } req_t;

/* What a request owns besides its host handle (mw_req_attach): one
 * release function per slot, run once when the slot is deleted; and a
 * nonblocking collective's hold on its host communicator (mw_req_comm),
 * given back after the release. */
static struct req_own { mw_req_fini *fn; void *arg; MPI_Comm comm; int held; } *req_own;

/* Per slot, what MPI_Cancel may do with the request: RK_GREQ a
 * generalized request the module started (mw_req_greq_set; its cancel
 * must reach its cancel_fn), RK_GREQ_DONE once MPI_Grequest_complete was
 * called for it, RK_P2P a point-to-point one (mw_req_p2p_set), RK_OTHER
 * any other. */
enum { RK_OTHER, RK_GREQ, RK_GREQ_DONE, RK_P2P };
static unsigned char *req_greq;

/* Requests freed by MPI_Request_free while they still own something: the
 * host request is kept and completed here, then the release runs. */
static struct { MPI_Request h; struct req_own own; } *orphans;
static uint32_t n_orphans, orphans_cap;

static int req_get_(uint32_t h, MPI_Request *out)
{
	if (h == MW_REQUEST_NULL) {
		*out = MPI_REQUEST_NULL;
		return 0;
	}
	if (h >= req_t.n || req_t.v[h] == MPI_REQUEST_NULL)
		return MW_ERR_REQUEST;
	*out = req_t.v[h];
	return 0;
}

static uint32_t req_put_(MPI_Request r)
{
	if (r == MPI_REQUEST_NULL)
		return MW_REQUEST_NULL;
	if (req_t.nfree) {
		uint32_t i = req_t.free[--req_t.nfree];
		req_t.v[i] = r;
		req_own[i] = (struct req_own){ 0 };
		req_greq[i] = 0;
		return i;
	}
	if (req_t.n == req_t.cap) {
		uint32_t cap = req_t.cap ? req_t.cap * 2 : 256;
		MPI_Request *v = realloc(req_t.v, cap * sizeof *v);
		uint32_t *f = v ? realloc(req_t.free, cap * sizeof *f) : NULL;
		if (f)
			req_t.free = f;
		struct req_own *o = f ? realloc(req_own, cap * sizeof *o) : NULL;
		if (o)
			req_own = o;
		unsigned char *g = o ? realloc(req_greq, cap) : NULL;
		if (g)
			req_greq = g;
		if (!v || !f || !o || !g) {
			fprintf(stderr, "mpiwasm: mpib: out of memory for request handles\n");
			abort();
		}
		req_t.v = v;
		req_t.cap = cap;
		if (req_t.n == 0)
			req_t.v[req_t.n++] = MPI_REQUEST_NULL;   /* MPI_REQUEST_NULL */
	}
	req_own[req_t.n] = (struct req_own){ 0 };
	req_greq[req_t.n] = 0;
	req_t.v[req_t.n] = r;
	return req_t.n++;
}

static int req_watching;

void mw_req_watch(int on)
{
	req_watching = on;
}

/* Frees slot h; gives back what it owned without releasing it. */
static struct req_own req_slot_free(uint32_t h)
{
	struct req_own o = req_own[h];
	req_own[h] = (struct req_own){ 0 };
	req_t.v[h] = MPI_REQUEST_NULL;
	req_t.free[req_t.nfree++] = h;
	if (req_watching)
		mw_req_done(h);
	return o;
}

/* ---- communicators held by pending nonblocking collectives ----------------
 * Open MPI 4.1 never completes a collective it has not progressed once
 * its communicator is freed (tests/fuzz-bridge/open/nbc-comm-free-hang.c;
 * natively too), though MPI_Comm_free lets pending operations complete
 * (MPI-3.1 6.4.3).  So each such request holds its host communicator
 * (mw_req_comm), and MPI_Comm_free or MPI_Comm_disconnect of a held one
 * (mw_comm_host_free) only marks it: the host free comes when the last
 * collective on it completes, waited for by the module or, freed with
 * MPI_Request_free, completed by the bridge (req_reap). */
static struct held { MPI_Comm c; uint32_t pending; int freed; } *held;
static uint32_t n_held, held_cap;

static uint32_t held_find(MPI_Comm c)
{
	uint32_t i = 0;
	while (i < n_held && held[i].c != c)
		i++;
	return i;
}

static void comm_hold(MPI_Comm c)
{
	uint32_t i = held_find(c);
	if (i == n_held) {
		if (n_held == held_cap) {
			uint32_t cap = held_cap ? held_cap * 2 : 8;
			void *v = realloc(held, cap * sizeof *held);
			if (!v) {
				fprintf(stderr, "mpiwasm: mpib: out of memory for held communicators\n");
				abort();
			}
			held = v;
			held_cap = cap;
		}
		held[n_held++] = (struct held){ c, 0, 0 };
	}
	held[i].pending++;
}

static void comm_unhold(MPI_Comm c)
{
	uint32_t i = held_find(c);
	if (i == n_held || --held[i].pending)
		return;
	int freed = held[i].freed;
	held[i] = held[--n_held];
	if (freed)
		MPI_Comm_free(&c);
}

/* Gives back what a freed slot owned: the release, then the hold. */
static void req_release(struct req_own o)
{
	if (o.fn)
		o.fn(o.arg);
	if (o.held)
		comm_unhold(o.comm);
}

static void req_hold_(uint32_t h, MPI_Comm c)
{
	if (h == MW_REQUEST_NULL || h >= req_t.n || req_t.v[h] == MPI_REQUEST_NULL ||
	    req_own[h].held || c == MPI_COMM_NULL)
		return;
	comm_hold(c);
	req_own[h].comm = c;
	req_own[h].held = 1;
}

static void req_comm_(uint32_t h, uint32_t comm)
{
	MPI_Comm c;
	if (!mw_comm_get(comm, &c))
		req_hold_(h, c);
}

int mw_comm_host_free(MPI_Comm *c, int disconnect)
{
	mw_lock();
	uint32_t i = held_find(*c);
	int later = i < n_held;
	if (later) {
		held[i].freed = 1;
		*c = MPI_COMM_NULL;
	}
	mw_unlock();
	if (later)
		return MPI_SUCCESS;
	return disconnect ? MPI_Comm_disconnect(c) : MPI_Comm_free(c);
}

static void req_del_(uint32_t h)
{
	if (h == MW_REQUEST_NULL || h >= req_t.n || req_t.v[h] == MPI_REQUEST_NULL)
		return;
	req_release(req_slot_free(h));
}

/* Completes the orphans that are done (all of them, waiting, if wait). */
static void req_reap(int wait)
{
	for (uint32_t i = 0; i < n_orphans;) {
		int done = 1;
		if (wait)
			MPI_Wait(&orphans[i].h, MPI_STATUS_IGNORE);
		else if (MPI_Test(&orphans[i].h, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			done = 1;   /* failed: the host request is gone either way */
		if (!done) {
			i++;
			continue;
		}
		struct req_own o = orphans[i].own;
		orphans[i] = orphans[--n_orphans];
		req_release(o);
	}
}

static void req_attach_(uint32_t h, mw_req_fini *fn, void *arg)
{
	req_reap(0);
	if (h != MW_REQUEST_NULL && h < req_t.n && req_t.v[h] != MPI_REQUEST_NULL) {
		req_own[h].fn = fn;
		req_own[h].arg = arg;
	}
	else if (fn)
		fn(arg);
}

static int req_orphan_(uint32_t h)
{
	if (h == MW_REQUEST_NULL || h >= req_t.n || req_t.v[h] == MPI_REQUEST_NULL ||
	    !req_own[h].fn)
		return 0;
	if (n_orphans == orphans_cap) {
		uint32_t cap = orphans_cap ? orphans_cap * 2 : 16;
		void *v = realloc(orphans, cap * sizeof *orphans);
		if (!v) {
			fprintf(stderr, "mpiwasm: mpib: out of memory for freed requests\n");
			abort();
		}
		orphans = v;
		orphans_cap = cap;
	}
	MPI_Request r = req_t.v[h];
	orphans[n_orphans].h = r;
	orphans[n_orphans++].own = req_slot_free(h);
	return 1;
}

static int req_live(uint32_t h)
{
	return h != MW_REQUEST_NULL && h < req_t.n && req_t.v[h] != MPI_REQUEST_NULL;
}

static void req_greq_set_(uint32_t h)
{
	if (req_live(h))
		req_greq[h] = RK_GREQ;
}

static void req_p2p_set_(uint32_t h)
{
	if (req_live(h))
		req_greq[h] = RK_P2P;
}

static int req_is_greq_(uint32_t h)
{
	return req_live(h) && (req_greq[h] == RK_GREQ || req_greq[h] == RK_GREQ_DONE);
}

static int req_is_p2p_(uint32_t h)
{
	return req_live(h) && req_greq[h] == RK_P2P;
}

static int req_greq_complete_(uint32_t h)
{
	if (!req_live(h) || req_greq[h] != RK_GREQ)
		return MW_ERR_REQUEST;
	req_greq[h] = RK_GREQ_DONE;
	return 0;
}

static void req_set_(uint32_t h, MPI_Request r)
{
	if (r == MPI_REQUEST_NULL)
		mw_req_del(h);
	else if (h < req_t.n)
		req_t.v[h] = r;
}

/* ---- datatypes ------------------------------------------------------------
 * Module handle -1 is MPI_DATATYPE_NULL; 0..MW_DT_FIRST-1 predefined. */

#define MW_DT_FIRST 128
static struct { mw_dtype *v; uint32_t n, cap; } dt_t;

static int dt_committed(MPI_Datatype h);

static void dt_fill(mw_dtype *d, MPI_Datatype h)
{
	memset(d, 0, sizeof *d);
	d->h = h;
	if (h == MPI_DATATYPE_NULL)
		return;
	MPI_Type_get_extent(h, &d->lb, &d->extent);
	MPI_Type_get_true_extent(h, &d->tlb, &d->textent);
	MPI_Type_size_x(h, &d->size);
	d->committed = dt_committed(h);
}

static void dt_set(uint32_t i, MPI_Datatype h)
{
	if (i >= dt_t.cap) {
		uint32_t cap = dt_t.cap ? dt_t.cap : 256;
		while (cap <= i)
			cap *= 2;
		/* The old array is kept, not freed: mw_dtype_get hands out
		 * pointers into it that another thread may still be reading. */
		mw_dtype *v = malloc(cap * sizeof *v);
		if (!v) {
			fprintf(stderr, "mpiwasm: mpib: out of memory for datatype handles\n");
			abort();
		}
		if (dt_t.cap)
			memcpy(v, dt_t.v, dt_t.cap * sizeof *v);
		for (uint32_t j = dt_t.cap; j < cap; j++)
			v[j].h = MPI_DATATYPE_NULL;
		dt_t.v = v;
		dt_t.cap = cap;
	}
	dt_fill(&dt_t.v[i], h);
	if (i < MW_DT_FIRST)   /* predefined, some made (and committed) here */
		dt_t.v[i].committed = 1;
	if (i >= dt_t.n)
		dt_t.n = i + 1;
}

static int dtype_get_(uint32_t h, mw_dtype **out)
{
	static mw_dtype null_dt = { .h = MPI_DATATYPE_NULL };
	if (h == (uint32_t)MW_DATATYPE_NULL) {
		*out = &null_dt;
		return 0;
	}
	if (h >= dt_t.n || dt_t.v[h].h == MPI_DATATYPE_NULL)
		return MW_ERR_TYPE;
	*out = &dt_t.v[h];
	return 0;
}

int mw_dtype_hget(uint32_t h, MPI_Datatype *out)
{
	mw_dtype *d;
	int rc = mw_dtype_get(h, &d);
	if (rc == 0)
		*out = d->h;
	return rc;
}

int mw_dtype_cget(uint32_t h, MPI_Datatype *out)
{
	mw_dtype *d;
	int rc = mw_dtype_get(h, &d);
	if (rc == 0 && !d->committed)
		rc = MW_ERR_TYPE;
	if (rc == 0)
		*out = d->h;
	return rc;
}

static uint32_t dtype_put_(MPI_Datatype x)
{
	if (x == MPI_DATATYPE_NULL)
		return (uint32_t)MW_DATATYPE_NULL;
	for (uint32_t i = 0; i < MW_DT_FIRST && i < dt_t.n; i++)
		if (dt_t.v[i].h == x)
			return i;
	for (uint32_t i = MW_DT_FIRST; i < dt_t.n; i++)
		if (dt_t.v[i].h == MPI_DATATYPE_NULL) {
			dt_set(i, x);
			return i;
		}
	uint32_t i = dt_t.n > MW_DT_FIRST ? dt_t.n : MW_DT_FIRST;
	dt_set(i, x);
	return i;
}

static int dtype_predefined_(uint32_t h)
{
	return h < MW_DT_FIRST && h < dt_t.n && dt_t.v[h].h != MPI_DATATYPE_NULL;
}

static void dtype_del_(uint32_t h)
{
	if (h >= MW_DT_FIRST && h < dt_t.n)
		dt_t.v[h].h = MPI_DATATYPE_NULL;
}

static int dtype_refresh_(uint32_t h)
{
	if (h >= dt_t.n || dt_t.v[h].h == MPI_DATATYPE_NULL)
		return MW_ERR_TYPE;
	dt_fill(&dt_t.v[h], dt_t.v[h].h);
	dt_t.v[h].committed = 1;
	return 0;
}

/* Predefined (named, Fortran 90 parameterized) types are committed, a dup
 * is as its original is; every other new type is not. */
static int dt_committed(MPI_Datatype h)
{
	int ni, na, nd, comb, c = 0;
	if (MPI_Type_get_envelope(h, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		return 0;
	if (comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
	    comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER)
		return 1;
	if (comb != MPI_COMBINER_DUP || nd != 1)
		return 0;
	MPI_Datatype old;
	if (MPI_Type_get_contents(h, 0, 0, 1, NULL, NULL, &old) != MPI_SUCCESS)
		return 0;
	uint32_t m = mw_dtype_find(old);
	if (m < dt_t.n && dt_t.v[m].h != MPI_DATATYPE_NULL)
		c = dt_t.v[m].committed;
	if (MPI_Type_get_envelope(old, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
	    comb != MPI_COMBINER_NAMED)
		MPI_Type_free(&old);   /* get_contents gave a new reference */
	return c;
}

/* Host types the bridge made for itself (freed before MPI_Finalize, so
 * MPICH reports no leaked handles the program did not leak). */
static MPI_Datatype own_types[16];
static int own_n;

static MPI_Datatype own_type(MPI_Datatype t)
{
	if (own_n == (int)(sizeof own_types / sizeof own_types[0])) {
		fprintf(stderr, "mpiwasm: mpib: own_type: more bridge types than slots\n");
		abort();
	}
	MPI_Type_commit(&t);
	own_types[own_n++] = t;
	return t;
}

/* The host types of the module's long double, long double complex and
 * {long double; int}. */
static MPI_Datatype ld_type = MPI_DATATYPE_NULL, ldc_type = MPI_DATATYPE_NULL,
                    ldi_type = MPI_DATATYPE_NULL;

/* Module types are mapped by their wasm32 representation. */
static MPI_Datatype contig_bytes(int n)
{
	MPI_Datatype t;
	MPI_Type_contiguous(n, MPI_BYTE, &t);
	return own_type(t);
}

static void dt_init(void)
{
	struct { int m; MPI_Datatype h; } map[] = {
		{ MW_INT8_T, MPI_INT8_T }, { MW_INT16_T, MPI_INT16_T },
		{ MW_INT32_T, MPI_INT32_T }, { MW_INT, MPI_INT },
		{ MW_INT64_T, MPI_INT64_T }, { MW_UINT8_T, MPI_UINT8_T },
		{ MW_UINT16_T, MPI_UINT16_T }, { MW_UINT32_T, MPI_UINT32_T },
		{ MW_UINT_T, MPI_UNSIGNED }, { MW_UINT64_T, MPI_UINT64_T },
		{ MW_LONG, MPI_INT32_T },                 /* wasm32 long: 4 bytes */
		{ MW_LONG_LONG, MPI_LONG_LONG }, { MW_LONG_LONG_INT, MPI_LONG_LONG_INT },
		{ MW_FLOAT, MPI_FLOAT }, { MW_DOUBLE, MPI_DOUBLE },
		{ MW_DOUBLE_INT, MPI_DOUBLE_INT },        /* {double; int}: 16 both */
		{ MW_CHAR, MPI_CHAR }, { MW_C_BOOL, MPI_C_BOOL }, { MW_BYTE, MPI_BYTE },
		{ MW_SHORT, MPI_SHORT }, { MW_SIGNED_CHAR, MPI_SIGNED_CHAR },
		{ MW_UNSIGNED_CHAR, MPI_UNSIGNED_CHAR },
		{ MW_UNSIGNED_SHORT, MPI_UNSIGNED_SHORT }, { MW_UNSIGNED, MPI_UNSIGNED },
		{ MW_UNSIGNED_LONG, MPI_UINT32_T },
		{ MW_UNSIGNED_LONG_LONG, MPI_UNSIGNED_LONG_LONG },
		{ MW_WCHAR, MPI_INT32_T },                /* wasm32 wchar_t: int */
		{ MW_PACKED, MPI_PACKED }, { MW_AINT, MPI_INT32_T },
		{ MW_OFFSET, MPI_INT64_T }, { MW_COUNT, MPI_INT64_T },
		{ MW_C_COMPLEX, MPI_C_FLOAT_COMPLEX },
		{ MW_C_FLOAT_COMPLEX, MPI_C_FLOAT_COMPLEX },
		{ MW_C_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX },
		{ MW_FLOAT_INT, MPI_FLOAT_INT },
		{ MW_LONG_INT, MPI_2INT },                /* {long; int}: 8 bytes */
		{ MW_2INT, MPI_2INT }, { MW_SHORT_INT, MPI_SHORT_INT },
		{ MW_CXX_BOOL, MPI_C_BOOL },              /* wasm32 bool: 1 byte */
		{ MW_CXX_FLOAT_COMPLEX, MPI_C_FLOAT_COMPLEX },
		{ MW_CXX_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX },
		{ MW_CHARACTER, MPI_CHAR }, { MW_LOGICAL, MPI_INT32_T },
		{ MW_INTEGER, MPI_INT32_T }, { MW_REAL, MPI_FLOAT },
		{ MW_DOUBLE_PRECISION, MPI_DOUBLE },
		{ MW_COMPLEX, MPI_C_FLOAT_COMPLEX },
		{ MW_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX },
		{ MW_INTEGER1, MPI_INT8_T }, { MW_INTEGER2, MPI_INT16_T },
		{ MW_INTEGER4, MPI_INT32_T }, { MW_INTEGER8, MPI_INT64_T },
		{ MW_REAL4, MPI_FLOAT }, { MW_REAL8, MPI_DOUBLE },
		{ MW_COMPLEX8, MPI_C_FLOAT_COMPLEX },
		{ MW_COMPLEX16, MPI_C_DOUBLE_COMPLEX },
		{ MW_2INTEGER, MPI_2INT },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		dt_set((uint32_t)map[i].m, map[i].h);
	/* No host type has these representations (wasm32 long double is IEEE
	 * binary128): bytes to the host; the bridge's own ops reduce them
	 * (mw_ld_op).  {long double; int} is 20 bytes of data in 32. */
	dt_set(MW_LONG_DOUBLE, ld_type = contig_bytes(16));
	dt_set(MW_C_LONG_DOUBLE_COMPLEX, ldc_type = contig_bytes(32));
	dt_set(MW_CXX_LONG_DOUBLE_COMPLEX, ldc_type);
	{
		MPI_Datatype t, r;
		MPI_Type_contiguous(20, MPI_BYTE, &t);
		MPI_Type_create_resized(t, 0, 32, &r);
		MPI_Type_free(&t);
		dt_set(MW_LONG_DOUBLE_INT, ldi_type = own_type(r));
	}
	dt_set(MW_INTEGER16, contig_bytes(16));
	dt_set(MW_REAL2, contig_bytes(2));
	dt_set(MW_REAL16, contig_bytes(16));
	dt_set(MW_COMPLEX4, contig_bytes(4));
	dt_set(MW_COMPLEX32, contig_bytes(32));
	{
		MPI_Datatype t;   /* {float; float}, {double; double} pairs */
		MPI_Type_contiguous(2, MPI_FLOAT, &t);
		dt_set(MW_2REAL, own_type(t));
		MPI_Type_contiguous(2, MPI_DOUBLE, &t);
		dt_set(MW_2DOUBLE_PRECISION, own_type(t));
	}
}

/* ---- long double reductions ------------------------------------------------
 * wasm32 long double is IEEE binary128, which is gcc's __float128 on the
 * host (same bytes, little-endian): the predefined ops the module may use
 * on it are host user ops running here.  Buffers may be unaligned. */

typedef __float128 mw_f128;
enum { LD_MAX, LD_MIN, LD_SUM, LD_PROD, LD_MAXLOC, LD_MINLOC, LD_NOPS };
static MPI_Op ld_ops[LD_NOPS];
static int ld_made[LD_NOPS];

static mw_f128 ld_get(const unsigned char *p)
{
	mw_f128 v;
	memcpy(&v, p, sizeof v);
	return v;
}

static void ld_put(unsigned char *p, mw_f128 v)
{
	memcpy(p, &v, sizeof v);
}

static void ld_apply(int k, void *in, void *inout, int *len, MPI_Datatype *dt)
{
	unsigned char *a = in, *b = inout;
	for (int i = 0; i < *len; i++) {
		if (*dt == ld_type && k <= LD_PROD) {
			mw_f128 x = ld_get(a + 16 * i), y = ld_get(b + 16 * i);
			y = k == LD_MAX ? (x > y ? x : y) : k == LD_MIN ? (x < y ? x : y)
			  : k == LD_SUM ? x + y : x * y;
			ld_put(b + 16 * i, y);
		} else if (*dt == ldc_type && (k == LD_SUM || k == LD_PROD)) {
			unsigned char *pa = a + 32 * i, *pb = b + 32 * i;
			mw_f128 xr = ld_get(pa), xi = ld_get(pa + 16);
			mw_f128 yr = ld_get(pb), yi = ld_get(pb + 16);
			if (k == LD_SUM) {
				yr += xr;
				yi += xi;
			} else {
				mw_f128 r = xr * yr - xi * yi;
				yi = xr * yi + xi * yr;
				yr = r;
			}
			ld_put(pb, yr);
			ld_put(pb + 16, yi);
		} else if (*dt == ldi_type && (k == LD_MAXLOC || k == LD_MINLOC)) {
			unsigned char *pa = a + 32 * i, *pb = b + 32 * i;
			mw_f128 x = ld_get(pa), y = ld_get(pb);
			int32_t xi, yi;
			memcpy(&xi, pa + 16, 4);
			memcpy(&yi, pb + 16, 4);
			/* MPI: the larger (smaller) value, ties to the lower index */
			if ((k == LD_MAXLOC ? x > y : x < y) || (x == y && xi < yi)) {
				ld_put(pb, x);
				memcpy(pb + 16, &xi, 4);
			}
		} else {
			return;   /* mw_ld_op gives these ops no other type */
		}
	}
}

#define LD_FN(n, k) static void n(void *a, void *b, int *l, MPI_Datatype *t) \
	{ ld_apply(k, a, b, l, t); }
LD_FN(ld_max, LD_MAX) LD_FN(ld_min, LD_MIN) LD_FN(ld_sum, LD_SUM)
LD_FN(ld_prod, LD_PROD) LD_FN(ld_maxloc, LD_MAXLOC) LD_FN(ld_minloc, LD_MINLOC)

int mw_dtype_ld(const mw_dtype *d)
{
	return d && (d->h == ld_type || d->h == ldc_type || d->h == ldi_type);
}

void mw_ld_op(uint32_t opv, const mw_dtype *d, MPI_Op *op)
{
	static MPI_User_function *const fns[LD_NOPS] = { ld_max, ld_min, ld_sum,
		ld_prod, ld_maxloc, ld_minloc };
	int k;
	if (!d || (d->h != ld_type && d->h != ldc_type && d->h != ldi_type))
		return;
	switch (opv) {
	case MW_MAX: k = LD_MAX; break;
	case MW_MIN: k = LD_MIN; break;
	case MW_SUM: k = LD_SUM; break;
	case MW_PROD: k = LD_PROD; break;
	case MW_MAXLOC: k = LD_MAXLOC; break;
	case MW_MINLOC: k = LD_MINLOC; break;
	default: return;
	}
	if ((d->h == ld_type && k > LD_PROD) || (d->h == ldi_type && k < LD_MAXLOC) ||
	    (d->h == ldc_type && k != LD_SUM && k != LD_PROD))
		return;   /* not defined by MPI: the host refuses it (MPI_ERR_OP) */
	if (!ld_made[k])
		ld_made[k] = MPI_Op_create(fns[k], 1, &ld_ops[k]) == MPI_SUCCESS;
	if (ld_made[k])
		*op = ld_ops[k];
}

/* ---- wildcards ---------------------------------------------------------- */

int mw_rank_in(uint32_t r)
{
	int v = (int)r;
	if (v >= 0)
		return v;
	switch (v) {
	case MW_ANY_SOURCE: return MPI_ANY_SOURCE;
	case MW_PROC_NULL: return MPI_PROC_NULL;
	case MW_ROOT: return MPI_ROOT;
	case MW_UNDEFINED: return MPI_UNDEFINED;
	default: return -1000000;   /* invalid on every host: MPI_ERR_RANK */
	}
}

uint32_t mw_rank_out(int r)
{
	if (r >= 0)
		return (uint32_t)r;
	if (r == MPI_ANY_SOURCE)
		return (uint32_t)MW_ANY_SOURCE;
	if (r == MPI_PROC_NULL)
		return (uint32_t)MW_PROC_NULL;
	if (r == MPI_ROOT)
		return (uint32_t)MW_ROOT;
	if (r == MPI_UNDEFINED)
		return (uint32_t)MW_UNDEFINED;
	return (uint32_t)r;
}

int mw_tag_in(uint32_t t)
{
	return (int)t == MW_ANY_TAG ? MPI_ANY_TAG : (int)t;
}

uint32_t mw_tag_out(int t)
{
	return t == MPI_ANY_TAG ? (uint32_t)MW_ANY_TAG : (uint32_t)t;
}

/* ---- memory ------------------------------------------------------------- */

void *mw_ptr(rt_instance *inst, uint32_t addr, uint64_t len)
{
	return rt_mem(inst, addr, len);
}

void *mw_arr(rt_instance *inst, uint32_t addr, uint64_t n, uint64_t sz)
{
	return rt_mem_array(inst, addr, n, sz);
}

uint32_t mw_addr(rt_instance *inst, const void *p)
{
	const char *base = rt_mem(inst, 0, 0);
	return (uint32_t)((const char *)p - base);
}

const char *mw_str(rt_instance *inst, uint32_t addr)
{
	uint64_t size = rt_mem_size(inst);
	if (addr >= size)
		return NULL;
	const char *s = rt_mem(inst, addr, 1);
	if (!s || !memchr(s, 0, size - addr))
		return NULL;
	return s;
}

int mw_str_out(rt_instance *inst, uint32_t addr, uint32_t cap,
               uint32_t lenp, const char *s)
{
	size_t n = strlen(s);
	if (cap == 0)
		return MW_ERR_ARG;
	if (n > cap - 1)
		n = cap - 1;
	char *d = mw_ptr(inst, addr, n + 1);
	int32_t *l = lenp ? mw_ptr(inst, lenp, 4) : NULL;
	if (!d || (lenp && !l))
		return MW_ERR_BUFFER;
	memcpy(d, s, n);
	d[n] = 0;
	if (l)
		*l = (int32_t)n;
	return 0;
}

int mw_buf_at64(rt_instance *inst, uint32_t addr, int64_t disp, int64_t count,
                const mw_dtype *dt, void **out)
{
	uint8_t *base = rt_mem(inst, 0, 0);
	if (count < 0)
		return MW_ERR_COUNT;
	if (dt->h != MPI_DATATYPE_NULL && !dt->committed)
		return MW_ERR_TYPE;
	if (!base)
		return MW_ERR_BUFFER;
	int64_t start;
	if (__builtin_add_overflow((int64_t)addr, disp, &start))
		return MW_ERR_BUFFER;
	*out = base + start;
	if (count == 0 || dt->size == 0)
		return 0;
	/* No buffer of more than 2^33 elements fits a 4 GiB memory, and
	 * below that (count-1)*extent cannot overflow. */
	if (count > ((int64_t)1 << 33))
		return MW_ERR_BUFFER;
	/* No message of more than 4 GiB fits a receive buffer in a wasm32
	 * memory (receive types must not overlap), but a send type may read
	 * the same bytes many times (a stride-0 vector).  Refused: Open MPI's
	 * self transport copies a message to oneself in full whatever the
	 * receive buffer's size, and a message this long would run past the
	 * memory's 8 GiB reservation. */
	if (dt->size > ((int64_t)1 << 32) / count)
		return MW_ERR_COUNT;
	/* Bytes touched: [start + tlb + min(0, (count-1)*extent),
	 *                 start + tlb + max(0, (count-1)*extent) + textent).
	 * Nested derived types reach extents near 2^63 (fuzz-bridge: 1.1e15
	 * bytes), so every step is checked for overflow: a wrapped sum would
	 * pass for a buffer inside memory while the library walks far out. */
	int64_t span, lo, hi;
	if (__builtin_mul_overflow(count - 1, (int64_t)dt->extent, &span) ||
	    __builtin_add_overflow(start, (int64_t)dt->tlb, &lo) ||
	    __builtin_add_overflow(lo, span > 0 ? span : 0, &hi) ||
	    __builtin_add_overflow(hi, (int64_t)dt->textent, &hi) ||
	    __builtin_add_overflow(lo, span < 0 ? span : 0, &lo))
		return MW_ERR_BUFFER;
	if (lo < 0 || hi < lo || (uint64_t)hi > rt_mem_size(inst))
		return MW_ERR_BUFFER;
	return 0;
}

int mw_peers(MPI_Comm c)
{
	int inter = 0, n = 0;
	MPI_Comm_test_inter(c, &inter);
	if (inter)
		MPI_Comm_remote_size(c, &n);
	else
		MPI_Comm_size(c, &n);
	return n;
}

void *mw_raw(rt_instance *inst, uint32_t addr)
{
	return (uint8_t *)rt_mem(inst, 0, 0) + addr;
}

int mw_buf_at(rt_instance *inst, uint32_t addr, int64_t disp, int count,
              const mw_dtype *dt, void **out)
{
	return mw_buf_at64(inst, addr, disp, count, dt, out);
}

int mw_buf(rt_instance *inst, uint32_t addr, int count, const mw_dtype *dt,
           void **out)
{
	return mw_buf_at(inst, addr, 0, count, dt, out);
}

int mw_pos_in(rt_instance *inst, uint32_t addr, int64_t limit, int32_t **p,
              int32_t *val)
{
	if (!(*p = mw_ptr(inst, addr, 4)))
		return MW_ERR_ARG;
	int32_t v = *(volatile int32_t *)*p;   /* once: what is checked is used */
	*val = v;
	return v < 0 || v > limit ? MW_ERR_ARG : 0;
}

int mw_pos_arg(const mw_call *k, uint32_t addr, int32_t size, mw_pos *p, uint32_t *ret)
{
	int rc = mw_pos_in(k->inst, addr, size, &p->slot, &p->v);
	if (rc == 0)
		return 0;
	if (!p->slot)
		*ret = mw_fail_arg(k->inst, rc, k->obj, k->proc, "argument position: pointer "
		                   "outside linear memory");
	else
		*ret = mw_fail_arg(k->inst, rc, k->obj, k->proc, "argument position = %d is "
		                   "outside [0, %d]", (int)p->v, (int)size);
	return 1;
}

int mw_pos_room(const mw_call *k, const mw_pos *p, int32_t size, int64_t need,
                uint32_t *ret)
{
	if (need <= (int64_t)size - p->v)
		return 0;
	*ret = mw_fail_arg(k->inst, MW_ERR_TRUNCATE, k->obj, k->proc, "argument position "
	                   "= %d leaves %d bytes, %lld needed", (int)p->v,
	                   (int)(size - p->v), (long long)need);
	return 1;
}

int mw_snap_pad(rt_instance *inst, mw_snap *s, uint32_t addr, int64_t n, int64_t cap)
{
	s->v = s->small;
	if (n < 0)
		return MW_ERR_ARG;
	if (cap < n)
		cap = n;
	const int32_t *m = n ? mw_arr(inst, addr, (uint64_t)n, 4) : NULL;
	if (n && !m)
		return MW_ERR_ARG;
	if (cap > MW_SNAP_SMALL && !(s->v = malloc((size_t)cap * sizeof *s->v))) {
		s->v = s->small;
		return MW_ERR_NO_MEM;
	}
	if (n)
		memcpy(s->v, m, (size_t)n * sizeof *s->v);
	if (cap > n)
		memset(s->v + n, 0, (size_t)(cap - n) * sizeof *s->v);
	return 0;
}

int mw_snap_in(rt_instance *inst, mw_snap *s, uint32_t addr, int64_t n)
{
	return mw_snap_pad(inst, s, addr, n, n);
}

void mw_snap_free(mw_snap *s)
{
	if (s->v && s->v != s->small)
		free(s->v);
	s->v = NULL;
}

/* ---- enumerated constants ----------------------------------------------------
 * The host's numbers differ from the module's and between libraries
 * (Open MPI's MPI_CART is 1, MPICH's and the module's 2). */

static const struct { uint8_t kind; int host, mod; } mw_enums[] = {
#define E(k, n) { MW_E_##k, MPI_##n, MW_##n },
	E(TOPOLOGY_TYPE, GRAPH) E(TOPOLOGY_TYPE, CART) E(TOPOLOGY_TYPE, DIST_GRAPH)
	E(TOPOLOGY_TYPE, UNDEFINED)
	E(COMPARISON, IDENT) E(COMPARISON, CONGRUENT) E(COMPARISON, SIMILAR)
	E(COMPARISON, UNEQUAL)
	E(TYPECLASS, TYPECLASS_INTEGER) E(TYPECLASS, TYPECLASS_REAL)
	E(TYPECLASS, TYPECLASS_COMPLEX)
	E(THREAD_LEVEL, THREAD_SINGLE) E(THREAD_LEVEL, THREAD_FUNNELED)
	E(THREAD_LEVEL, THREAD_SERIALIZED) E(THREAD_LEVEL, THREAD_MULTIPLE)
	E(COMBINER, COMBINER_NAMED) E(COMBINER, COMBINER_DUP)
	E(COMBINER, COMBINER_CONTIGUOUS) E(COMBINER, COMBINER_VECTOR)
	E(COMBINER, COMBINER_HVECTOR) E(COMBINER, COMBINER_INDEXED)
	E(COMBINER, COMBINER_HINDEXED) E(COMBINER, COMBINER_INDEXED_BLOCK)
	E(COMBINER, COMBINER_HINDEXED_BLOCK) E(COMBINER, COMBINER_STRUCT)
	E(COMBINER, COMBINER_SUBARRAY) E(COMBINER, COMBINER_DARRAY)
	E(COMBINER, COMBINER_F90_REAL) E(COMBINER, COMBINER_F90_COMPLEX)
	E(COMBINER, COMBINER_F90_INTEGER) E(COMBINER, COMBINER_RESIZED)
	E(ORDER, ORDER_C) E(ORDER, ORDER_FORTRAN)
	E(DISTRIB, DISTRIBUTE_BLOCK) E(DISTRIB, DISTRIBUTE_CYCLIC)
	E(DISTRIB, DISTRIBUTE_NONE) E(DISTRIB, DISTRIBUTE_DFLT_DARG)
	E(LOCK_TYPE, LOCK_EXCLUSIVE) E(LOCK_TYPE, LOCK_SHARED)
#undef E
};

int mw_enum_out(enum mw_enum kind, int host)
{
	for (size_t i = 0; i < sizeof mw_enums / sizeof mw_enums[0]; i++)
		if (mw_enums[i].kind == kind && mw_enums[i].host == host)
			return mw_enums[i].mod;
	return host;
}

int mw_enum_in(enum mw_enum kind, int32_t mod)
{
	for (size_t i = 0; i < sizeof mw_enums / sizeof mw_enums[0]; i++)
		if (mw_enums[i].kind == kind && mw_enums[i].mod == mod)
			return mw_enums[i].host;
	return mod;
}

/* ---- statuses ------------------------------------------------------------- */

/* MPI_ERROR is the module's own unless err: only a multiple-completion
 * call that returns MPI_ERR_IN_STATUS sets it (MPI 3.2.5); the host
 * leaves it unset otherwise, so it is not read then. */
void mw_status_put(mw_status *m, const MPI_Status *s, int err)
{
	if (!m)
		return;
	MPI_Count n = 0;
	int c = 0;
	MPI_Get_elements_x(s, MPI_BYTE, &n);
	MPI_Test_cancelled(s, &c);
	m->source = (int32_t)mw_rank_out(s->MPI_SOURCE);
	m->tag = (int32_t)mw_tag_out(s->MPI_TAG);
	if (err)
		m->error = s->MPI_ERROR == MPI_SUCCESS ? 0 : mw_code_out(s->MPI_ERROR);
	m->cancelled = c;
	m->ucount = n == MPI_UNDEFINED ? 0 : n;
}

static void status_out(rt_instance *inst, uint32_t addr, const MPI_Status *s,
                       int err)
{
	if (addr == 0)
		return;
	/* NULL: checked by the caller before the call */
	mw_status_put(mw_ptr(inst, addr, sizeof(mw_status)), s, err);
}

void mw_status_out(rt_instance *inst, uint32_t addr, const MPI_Status *s)
{
	status_out(inst, addr, s, 0);
}

void mw_status_out_err(rt_instance *inst, uint32_t addr, const MPI_Status *s)
{
	status_out(inst, addr, s, 1);
}

int mw_status_in(rt_instance *inst, uint32_t addr, MPI_Status *s)
{
	mw_status *m = mw_ptr(inst, addr, sizeof *m);
	if (!m)
		return MW_ERR_ARG;
	mw_status_get(m, s);
	return 0;
}

void mw_status_get(const mw_status *m, MPI_Status *s)
{
	memset(s, 0, sizeof *s);
	MPI_Status_set_elements_x(s, MPI_BYTE, m->ucount);
	MPI_Status_set_cancelled(s, m->cancelled);
	s->MPI_SOURCE = mw_rank_in((uint32_t)m->source);
	s->MPI_TAG = mw_tag_in((uint32_t)m->tag);
	s->MPI_ERROR = MPI_SUCCESS;
}

/* ---- errors ---------------------------------------------------------------- */

#define MW_ERRCLASSES(X) X(BUFFER) X(COUNT) X(TYPE) X(TAG) X(COMM) X(RANK) \
	X(REQUEST) X(ROOT) X(GROUP) X(OP) X(TOPOLOGY) X(DIMS) X(ARG)       \
	X(UNKNOWN) X(TRUNCATE) X(OTHER) X(INTERN) X(PENDING) X(IN_STATUS)  \
	X(ACCESS) X(AMODE) X(ASSERT) X(BAD_FILE) X(BASE) X(CONVERSION)     \
	X(DISP) X(DUP_DATAREP) X(FILE_EXISTS) X(FILE_IN_USE) X(FILE)       \
	X(INFO_KEY) X(INFO_NOKEY) X(INFO_VALUE) X(INFO) X(IO) X(KEYVAL)    \
	X(LOCKTYPE) X(NAME) X(NO_MEM) X(NOT_SAME) X(NO_SPACE)              \
	X(NO_SUCH_FILE) X(PORT) X(QUOTA) X(READ_ONLY) X(RMA_ATTACH)        \
	X(RMA_CONFLICT) X(RMA_RANGE) X(RMA_SHARED) X(RMA_SYNC)             \
	X(RMA_FLAVOR) X(SERVICE) X(SIZE) X(SPAWN) X(UNSUPPORTED_DATAREP)   \
	X(UNSUPPORTED_OPERATION) X(WIN)

int mw_class_out(int code)
{
	int cls = code;
	if (code == MPI_SUCCESS)
		return MW_SUCCESS;
	if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
		return MW_ERR_UNKNOWN;
#define X(n) if (cls == MPI_ERR_##n) return MW_ERR_##n;
	MW_ERRCLASSES(X)
#undef X
	return MW_ERR_OTHER;
}

int mw_class_in(int cls)
{
#define X(n) if (cls == MW_ERR_##n) return MPI_ERR_##n;
	MW_ERRCLASSES(X)
#undef X
	return cls == MW_SUCCESS ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static const char *mw_class_name(int cls)
{
#define X(n) if (cls == MW_ERR_##n) return "MPI_ERR_" #n;
	MW_ERRCLASSES(X)
#undef X
	return "MPI error";
}

/* Per-communicator module error handler, indexed by module comm handle. */
static uint32_t *comm_eh;
static uint32_t comm_eh_cap;

uint32_t mw_comm_errh(uint32_t comm);
void mw_comm_set_errh(uint32_t comm, uint32_t eh);

uint32_t mw_comm_errh(uint32_t comm)
{
	mw_lock();
	uint32_t eh = comm < comm_eh_cap && comm_eh[comm] ? comm_eh[comm]
	                                                  : MW_ERRORS_ARE_FATAL;
	mw_unlock();
	return eh;
}

static void comm_set_errh(uint32_t comm, uint32_t eh);

void mw_comm_set_errh(uint32_t comm, uint32_t eh)
{
	mw_lock();
	comm_set_errh(comm, eh);
	mw_unlock();
}

static void comm_set_errh(uint32_t comm, uint32_t eh)
{
	if (comm >= comm_eh_cap) {
		uint32_t cap = comm_eh_cap ? comm_eh_cap * 2 : 64;
		while (cap <= comm)
			cap *= 2;
		uint32_t *v = realloc(comm_eh, cap * sizeof *v);
		if (!v)
			abort();
		memset(v + comm_eh_cap, 0, (cap - comm_eh_cap) * sizeof *v);
		comm_eh = v;
		comm_eh_cap = cap;
	}
	/* A communicator holds a reference to its user handler, so the
	 * module may free its own handle while the handler stays in use. */
	uint32_t old = comm_eh[comm];
	mw_errh_retain(eh);
	comm_eh[comm] = eh;
	mw_errh_release(old);
}

void mw_comm_inherit(uint32_t comm, uint32_t parent)
{
	if (comm != MW_COMM_NULL && parent != MW_NOCOMM)
		mw_comm_set_errh(comm, mw_comm_errh(parent));
}

/* User error handlers live in the module; see hand_err.c. */
int mw_errh_call(rt_instance *inst, uint32_t eh, uint32_t comm, int cls);

int mw_finalized;

/* Procedures MPI allows outside MPI_Init..MPI_Finalize: their errors are
 * their own, every other error there is the program's wrong moment. */
static int callable_outside(const char *proc)
{
	static const char *const ok[] = {
		"MPI_Init", "MPI_Initialized", "MPI_Finalized", "MPI_Get_version",
		"MPI_Get_library_version", "MPI_Info_", "MPI_Session_", "MPI_T_",
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (!strncmp(proc, ok[i], strlen(ok[i])))
			return 1;
	return 0;
}

/* The launcher's rank for this process, for messages before MPI_Init. */
static int env_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return atoi(v);
	}
	return -1;
}

/* A fatal message is built whole and written with one write(2), so the
 * lines of ranks failing at the same moment do not interleave. */
static __thread char say_buf[1024];
static __thread size_t say_len;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(say_buf + say_len, sizeof say_buf - say_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		say_len += (size_t)n < sizeof say_buf - say_len ? (size_t)n
		           : sizeof say_buf - say_len - 1;
}

/* Starts a line: "mpiwasm: rank N: " or, with no rank known, "mpiwasm: ". */
static void say_start(void)
{
	int r = mw_world_rank >= 0 ? mw_world_rank : env_rank();
	fflush(stdout);
	say_len = 0;
	if (r >= 0)
		say("mpiwasm: rank %d: ", r);
	else
		say("mpiwasm: ");
}

/* Ends the line (keeping its newline even if truncated) and writes it. */
static void say_end(void)
{
	if (say_len > sizeof say_buf - 2)
		say_len = sizeof say_buf - 2;
	say_buf[say_len++] = '\n';
	fflush(stderr);
	for (size_t off = 0; off < say_len;) {
		ssize_t w = write(2, say_buf + off, say_len - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	say_len = 0;
}

/* MPI_Abort on `c`, after giving the launcher a moment to forward what
 * this process wrote to stderr last: MPICH's launcher tears the job down
 * as soon as it hears of the abort and then loses, now and then, the very
 * line that says why (2 of 12 runs of tests/e2e's trap test). */
_Noreturn void mw_abort_job(MPI_Comm c, int code)
{
	fflush(stdout);
	fflush(stderr);
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	MPI_Abort(c, code);
	_exit(code ? code : 1);
}

/* Ends the job after the line being said: MPI_Abort if MPI is active
 * (its banner names `code`, so the line says who calls it), else exit. */
static _Noreturn void end_job(int code)
{
	if (mw_is_active) {
		say("; ending the job (mpiwasm calls MPI_Abort with errorcode %d)", code);
		say_end();
		mw_abort_job(MPI_COMM_WORLD, code);
	}
	say("; ending this process");
	say_end();
	exit(1);
}

/* One line out of a host error string: Open MPI's "MPI_ERR_RANK: invalid
 * rank" loses the class prefix (the class is printed after it); MPICH's
 * "Invalid rank, error stack:\n...\nfn(78).: Invalid rank has value 99
 * ..." keeps its last, most specific, line without the "fn(78).: ". */
static void host_detail(const char *msg, char *out, size_t cap)
{
	const char *s = msg, *e;
	if (strstr(msg, "error stack:\n")) {
		const char *last = msg;
		for (const char *q = msg; *q; q++)
			if (*q == '\n' && q[1])
				last = q + 1;
		const char *c = strstr(last, ": ");
		const char *sp = strchr(last, ' ');
		s = c && (!sp || sp > c) ? c + 2 : last;
	} else if (!strncmp(msg, "MPI_ERR_", 8)) {
		const char *c = strstr(msg, ": ");
		const char *sp = strchr(msg, ' ');
		if (c && (!sp || sp > c))
			s = c + 2;
	}
	e = strchr(s, '\n');
	size_t n = e ? (size_t)(e - s) : strlen(s);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = 0;
	if (!*out)
		snprintf(out, cap, "%s", "error");
}

/* Applies error handler eh (a module handle) of object obj (the handle a
 * user handler receives). */
__thread const char *mw_proc_as;

static uint32_t raise_eh(rt_instance *inst, int cls, const char *detail,
                         uint32_t eh, uint32_t obj, const char *proc)
{
	if (mw_proc_as) {   /* a large-count version's name */
		proc = mw_proc_as;
		mw_proc_as = NULL;
	}
	/* Outside Init..Finalize no handler can run: always fatal, named as
	 * what it is rather than as the invalid handle it shows up as. */
	if (!mw_is_active && !callable_outside(proc)) {
		say_start();
		say("%s: %s", proc, mw_finalized ? "MPI has been finalized"
		    : "MPI is not initialized (call MPI_Init first)");
		end_job(1);
	}
	if (eh == MW_ERRORS_RETURN)
		return (uint32_t)cls;
	if (eh != MW_ERRORS_ARE_FATAL && eh != MW_ERRHANDLER_NULL &&
	    mw_errh_call(inst, eh, obj, cls) == 0)
		return (uint32_t)cls;
	say_start();
	say("%s: %s (%s)", proc, detail, mw_class_name(cls));
	end_job(cls);
}

static uint32_t mw_raise(rt_instance *inst, int cls, const char *detail,
                         uint32_t comm, const char *proc)
{
	MPI_Comm hc;
	/* No (valid) communicator: MPI_COMM_WORLD's handler, as MPI says. */
	if (comm == MW_NOCOMM || mw_comm_get(comm, &hc) || hc == MPI_COMM_NULL)
		comm = MW_COMM_WORLD;
	return raise_eh(inst, cls, detail, mw_comm_errh(comm), comm, proc);
}

/* The host library's message for error code rc, as one detail line.
 * One byte more than the library may fill: MPICH 4.0 fills all
 * MPI_MAX_ERROR_STRING bytes of a long error stack without a NUL and
 * then takes its strlen (found by fuzz-bridge: ASan, reading past the
 * buffer on the host stack). */
static void rc_detail(int rc, char *detail, size_t len)
{
	char msg[MPI_MAX_ERROR_STRING + 1] = "";
	int n = 0;
	MPI_Error_string(rc, msg, &n);
	host_detail(msg, detail, len);
}

uint32_t mw_ret(rt_instance *inst, int rc, uint32_t comm, const char *proc)
{
	if (rc == MPI_SUCCESS)
		return mw_after(inst, MW_SUCCESS);
	mw_after(inst, 0);
	char detail[256];
	rc_detail(rc, detail, sizeof detail);
	return mw_raise(inst, mw_code_out(rc), detail, comm, proc);
}

/* The bytes n elements of d at p touch: [*lo, *hi) (empty if none). */
static void span(const char *p, int64_t n, const mw_dtype *d, const char **lo, const char **hi)
{
	*lo = *hi = p;
	if (n <= 0 || d->size == 0)
		return;
	int64_t step = (n - 1) * (int64_t)d->extent;
	*lo = p + d->tlb + (step < 0 ? step : 0);
	*hi = p + d->tlb + d->textent + (step > 0 ? step : 0);
}

int mw_disjoint(const void *sp, int64_t sn, const void *rp, int64_t rn, const mw_dtype *d)
{
	/* Only a type without holes touches every byte of its span: two
	 * buffers of a strided type may interleave without sharing a byte
	 * (and the libraries copy those through pack/unpack, not memcpy). */
	if (d->size != d->textent || d->extent != d->textent)
		return 0;
	const char *slo, *shi, *rlo, *rhi;
	span(sp, sn, d, &slo, &shi);
	span(rp, rn, d, &rlo, &rhi);
	return slo < shi && rlo < rhi && slo < rhi && rlo < shi ? MW_ERR_BUFFER : 0;
}

int mw_pack_disjoint(const mw_call *k, const void *buf, int64_t n, const mw_dtype *d,
                     const void *packed, int64_t pos, int64_t bytes, const char *arg,
                     uint32_t *ret)
{
	const char *lo, *hi;
	if (bytes <= 0)
		return 0;
	const char *p = (const char *)packed + pos;
	span(buf, n, d, &lo, &hi);
	if (lo == hi || hi <= p || p + bytes <= lo)
		return 0;
	*ret = mw_fail_arg(k->inst, MW_ERR_BUFFER, k->obj, k->proc, "argument %s: the "
	                   "packed bytes overlap the data (inbuf and outbuf alias)", arg);
	return 1;
}

int mw_dims_ok(int nnodes, int n, const int32_t *d)
{
	int64_t prod = 1;
	for (int i = 0; i < n; i++) {
		if (d[i] < 0)
			return MW_ERR_DIMS;
		if (d[i] > 0 && (prod *= d[i]) > nnodes)
			return MW_ERR_DIMS;
	}
	return nnodes % prod ? MW_ERR_DIMS : 0;
}

int mw_comm_cart(MPI_Comm c)
{
	int topo = MPI_UNDEFINED;
	return MPI_Topo_test(c, &topo) == MPI_SUCCESS && topo == MPI_CART ? 0 : MW_ERR_TOPOLOGY;
}

int mw_own_block(MPI_Comm c, int64_t sent, int64_t room)
{
	int inter = 0;
	MPI_Comm_test_inter(c, &inter);
	return !inter && sent != room ? MW_ERR_TRUNCATE : 0;
}

static const char *fail_why(int cls)
{
	const char *why;
	switch (cls) {
	case MW_ERR_BUFFER: why = "buffer lies outside linear memory"; break;
	case MW_ERR_COMM: why = "invalid communicator handle"; break;
	case MW_ERR_TYPE: why = "invalid datatype handle"; break;
	case MW_ERR_GROUP: why = "invalid group handle"; break;
	case MW_ERR_OP: why = "invalid op handle"; break;
	case MW_ERR_REQUEST: why = "invalid request handle"; break;
	case MW_ERR_INFO: why = "invalid info handle"; break;
	case MW_ERR_KEYVAL: why = "invalid keyval"; break;
	case MW_ERR_COUNT: why = "invalid count"; break;
	case MW_ERR_TRUNCATE: why = "the block this process sends itself and its receive block differ in size"; break;
	case MW_ERR_ARG: why = "invalid argument (pointer outside linear memory?)"; break;
	case MW_ERR_WIN: why = "invalid window handle"; break;
	case MW_ERR_RMA_RANGE: why = "target range lies outside the target's window"; break;
	case MW_ERR_RMA_SHARED: why = "memory cannot be shared between these ranks"; break;
	case MW_ERR_NO_MEM: why = "no usable memory from the module's malloc"; break;
	default: why = "invalid argument"; break;
	}
	return why;
}

const char *mw_class_why(int cls)
{
	return fail_why(cls);
}

uint32_t mw_fail(rt_instance *inst, int cls, uint32_t comm, const char *proc)
{
	return mw_raise(inst, cls, fail_why(cls), comm, proc);
}

uint32_t mw_fail_arg(rt_instance *inst, int cls, uint32_t comm, const char *proc,
                     const char *fmt, ...)
{
	char detail[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	return mw_raise(inst, cls, detail, comm, proc);
}

uint32_t mw_ret_eh(rt_instance *inst, int rc, uint32_t eh, uint32_t obj,
                   const char *proc)
{
	if (rc == MPI_SUCCESS)
		return mw_after(inst, MW_SUCCESS);
	mw_after(inst, 0);
	char detail[256];
	rc_detail(rc, detail, sizeof detail);
	return raise_eh(inst, mw_code_out(rc), detail, eh, obj, proc);
}

uint32_t mw_fail_eh_arg(rt_instance *inst, int cls, uint32_t eh, uint32_t obj,
                        const char *proc, const char *detail)
{
	return raise_eh(inst, cls, detail, eh, obj, proc);
}

uint32_t mw_fail_eh(rt_instance *inst, int cls, uint32_t eh, uint32_t obj,
                    const char *proc)
{
	return raise_eh(inst, cls, fail_why(cls), eh, obj, proc);
}

void mw_call_errh_eh(rt_instance *inst, int code, uint32_t eh, uint32_t obj,
                     const char *proc)
{
	char why[64];
	snprintf(why, sizeof why, "error code %d raised by the program", code);
	raise_eh(inst, code, why, eh, obj, proc);
}

void mw_call_errh(rt_instance *inst, int code, uint32_t comm, const char *proc)
{
	char why[64];
	snprintf(why, sizeof why, "error code %d raised by the program", code);
	mw_raise(inst, code, why, comm, proc);
}

uint32_t mw_after(rt_instance *inst, uint32_t r)
{
	if (mw_pending_trap) {
		int k = mw_pending_trap;
		mw_pending_trap = 0;
		rt_trap_rethrow(inst, k);
	}
	return r;
}

/* ---- module memory allocation ------------------------------------------- */

const char *mw_block_bad(rt_instance *inst, uint32_t addr, uint64_t len, uint32_t align)
{
	uint64_t size = rt_mem_size(inst);
	if (addr == 0)
		return "null";
	if ((uint64_t)addr + len > UINT32_MAX + (uint64_t)1)
		return "wraps past 4 GiB";
	if ((uint64_t)addr + len > size)
		return "outside linear memory";
	if (align > 1 && addr % align)
		return "misaligned";
	return NULL;
}

uint32_t mw_malloc(rt_instance *inst, uint32_t size, const char *proc)
{
	const rt_func *f = rt_export_func(inst, "malloc", "i:i");
	if (!f)
		return 0;
	rt_value a = { .i32 = size }, r = { .i32 = 0 };
	int k = rt_call(inst, f, &a, &r);
	if (k) {
		mw_pending_trap = k;
		return 0;
	}
	/* 0 is malloc's own "no memory"; anything else must be a block the
	 * host can use as it is (C's malloc alignment covers every use). */
	const char *why = r.i32 ? mw_block_bad(inst, r.i32, size, MW_MALLOC_ALIGN) : NULL;
	if (why) {
		say_start();
		say("%s: the module's malloc returned a bad address 0x%08x for %u bytes "
		    "(%s; memory is %llu bytes)", proc, r.i32, size, why,
		    (unsigned long long)rt_mem_size(inst));
		say_end();
		return 0;
	}
	return r.i32;
}

void mw_free(rt_instance *inst, uint32_t addr)
{
	const rt_func *f = rt_export_func(inst, "free", "i:");
	if (!f || !addr)
		return;
	rt_value a = { .i32 = addr };
	int k = rt_call(inst, f, &a, NULL);
	if (k)
		mw_pending_trap = k;
}

/* ---- start-up, the CLI's entry points --------------------------------- */

/* ---- MPI_INFO_ENV as the module sees it ----------------------------------
 * The host's names mpiwasm's command line (its path, the grants), the
 * host working directory, the host names the launcher used (or their
 * addresses) and Open MPI's session directory.  The module gets its own
 * command and arguments instead, and of the host's keys only those that
 * describe the job's shape.  wdir is left out: the module's working
 * directory is wasi-libc's, inside the module. */
static int guest_argc;
static char *const *guest_argv;
static MPI_Info env_view = MPI_INFO_NULL;

void mpib_set_guest_args(int argc, char *const *argv)
{
	guest_argc = argc;
	guest_argv = argv;
}

static MPI_Info env_info(void)
{
	static const char *const keep[] = { "maxprocs", "soft", "arch", "thread_level",
		"ompi_num_apps", "ompi_first_rank", "ompi_np" };
	MPI_Info in;
	if (MPI_Info_create(&in) != MPI_SUCCESS)
		return MPI_INFO_NULL;
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		char v[MPI_MAX_INFO_VAL + 1];
		int len = 0, flag = 0;
		if (MPI_Info_get_valuelen(MPI_INFO_ENV, keep[i], &len, &flag) || !flag ||
		    len > MPI_MAX_INFO_VAL)
			continue;
		if (MPI_Info_get(MPI_INFO_ENV, keep[i], len, v, &flag) == MPI_SUCCESS && flag)
			MPI_Info_set(in, keep[i], v);
	}
	if (guest_argc > 0 && guest_argv[0]) {
		MPI_Info_set(in, "command", guest_argv[0]);
		char v[MPI_MAX_INFO_VAL + 1];
		size_t n = 0;
		v[0] = 0;
		/* Open MPI's form: the arguments after the command, space-separated
		 * (cut at the value limit). */
		for (int i = 1; i < guest_argc && guest_argv[i]; i++) {
			int w = snprintf(v + n, sizeof v - n, "%s%s", i > 1 ? " " : "", guest_argv[i]);
			if (w < 0 || (size_t)w >= sizeof v - n)
				break;
			n += (size_t)w;
		}
		if (n)
			MPI_Info_set(in, "argv", v);
	}
	return in;
}

static void check_launcher(void);

void mw_tables_init(void)
{
	comm_t.first = 3;
	comm_set(MW_COMM_WORLD, MPI_COMM_WORLD);
	comm_set(MW_COMM_SELF, MPI_COMM_SELF);
	group_t.first = 2;
	group_set(MW_GROUP_EMPTY, MPI_GROUP_EMPTY);
	op_t.first = 32;
	MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR,
	                 MPI_BAND, MPI_BOR, MPI_MAXLOC, MPI_MINLOC, MPI_OP_NULL,
	                 MPI_BXOR, MPI_LXOR, MPI_REPLACE, MPI_NO_OP };
	for (uint32_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (i != MW_OP_NULL)
			op_set(i, ops[i]);
	info_t.first = 2;
	env_view = env_info();
	info_set(MW_INFO_ENV, env_view != MPI_INFO_NULL ? env_view : MPI_INFO_ENV);
	errh_t.first = 4;
	errh_set(MW_ERRORS_ARE_FATAL, MPI_ERRORS_ARE_FATAL);
	errh_set(MW_ERRORS_RETURN, MPI_ERRORS_RETURN);
	msg_t.first = 2;
	msg_set(MW_MESSAGE_NO_PROC, MPI_MESSAGE_NO_PROC);
	keyval_t.first = 13;
	int keys[] = { 0, MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
	               MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE,
	               MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
	               MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL };
	for (uint32_t i = 1; i < sizeof keys / sizeof keys[0]; i++)
		keyval_set(i, keys[i]);
	dt_init();
	/* The bridge applies the module's handlers; the host always returns. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &mw_world_rank);
	mw_is_active = 1;
	rt_signals_install();
	check_launcher();
}

void mw_orphans_wait(void)
{
	req_reap(1);
}

void mw_orphans_test(void)
{
	mw_lock();
	req_reap(0);
	mw_unlock();
}

void mw_orphans_complete(void)
{
	for (;;) {
		mw_lock();
		req_reap(0);
		uint32_t left = n_orphans;
		mw_unlock();
		if (!left)
			return;
	}
}

void mw_tables_fini(void)
{
	req_reap(1);
	for (int i = 0; i < own_n; i++)
		MPI_Type_free(&own_types[i]);
	own_n = 0;
	for (int k = 0; k < LD_NOPS; k++)
		if (ld_made[k]) {
			MPI_Op_free(&ld_ops[k]);
			ld_made[k] = 0;
		}
	if (env_view != MPI_INFO_NULL)
		MPI_Info_free(&env_view);
}

/* After the host MPI_Finalize: every handle is gone, so a later call
 * fails its handle lookup and reports "MPI has been finalized". */
void mw_tables_clear(void)
{
	comm_t.n = group_t.n = op_t.n = info_t.n = errh_t.n = 0;
	msg_t.n = keyval_t.n = 0;
	req_t.n = req_t.nfree = 0;
	n_held = 0;
	dt_t.n = 0;
	mw_is_active = 0;
	mw_finalized = 1;
}

int mpib_active(void)
{
	return mw_is_active;
}

int mpib_rank(void)
{
	return mw_world_rank;
}

void mpib_abort(int status)
{
	if (!mw_is_active)
		return;
	fflush(stdout);
	/* The host's MPI_Abort banner that follows reads as if the program had
	 * called MPI_Abort; this line, printed before it, says otherwise. */
	say_start();
	say("ending the job after the error above (mpiwasm calls MPI_Abort "
	    "with errorcode %d; the program did not call MPI_Abort)", status ? status : 1);
	say_end();
	mw_abort_job(MPI_COMM_WORLD, status ? status : 1);
}

const char *mpib_library(void)
{
#if defined(OPEN_MPI) && defined(OMPI_MAJOR_VERSION)
#define MW_STR_(x) #x
#define MW_STR(x) MW_STR_(x)
	return "Open MPI " MW_STR(OMPI_MAJOR_VERSION) "." MW_STR(OMPI_MINOR_VERSION)
	       "." MW_STR(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
	return "MPICH " MPICH_VERSION;
#else
#error "mpib_library: neither Open MPI's nor MPICH's mpi.h"
#endif
}

/* What each launcher puts in a process's environment: the job's size. */
static const struct { const char *var, *who; int mpich; } launchers[] = {
	{ "OMPI_COMM_WORLD_SIZE", "Open MPI's launcher", 0 },
	{ "PMI_SIZE", "MPICH's launcher or another PMI launcher", 1 },
	{ "MPI_LOCALNRANKS", "MPICH's launcher", 1 },
};

/* A launcher of the other MPI library starts N processes that each see a
 * 1-process MPI_COMM_WORLD: N copies of the program, each "succeeding".
 * After the host MPI_Init; ends the process with a message if so. */
static void check_launcher(void)
{
	int size = 0;
#ifdef OPEN_MPI
	const int built_mpich = 0;
#else
	const int built_mpich = 1;
#endif
	if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size != 1)
		return;
	for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
		const char *v = getenv(launchers[i].var);
		if (!v || atol(v) <= 1)
			continue;
		say_len = 0;
		if (launchers[i].mpich != built_mpich)
			say("mpiwasm: this mpiwasm is built for %s but was started by "
			    "%s (%s=%s), so every process runs alone; use %s, or the "
			    "mpiwasm built for %s", mpib_library(), launchers[i].who,
			    launchers[i].var, v,
			    built_mpich ? "mpiexec.mpich" : "mpirun.openmpi",
			    built_mpich ? "Open MPI" : "MPICH");
		else
			say("mpiwasm: the launcher started a job of %s processes "
			    "(%s=%s) but MPI_COMM_WORLD of %s has 1: the launcher does "
			    "not belong to the MPI library this mpiwasm is built for",
			    v, launchers[i].var, v, mpib_library());
		say_end();
		mw_tables_fini();
		MPI_Finalize();
		exit(1);
	}
}

static uint32_t dtype_find_(MPI_Datatype x)
{
	for (uint32_t i = 0; i < dt_t.n; i++)
		if (dt_t.v[i].h == x && x != MPI_DATATYPE_NULL)
			return i;
	return (uint32_t)MW_DATATYPE_NULL;
}

/* ---- the locked entry points of the request and datatype tables ---- */

/* T mw_NAME(PARAMS): NAME_(ARGS) under the bridge lock. */
#define LOCKED(T, name, params, args)                                         \
	T mw_##name params                                                    \
	{                                                                     \
		mw_lock();                                                    \
		T r_ = name##_ args;                                          \
		mw_unlock();                                                  \
		return r_;                                                    \
	}
#define LOCKED_VOID(name, params, args)                                       \
	void mw_##name params                                                 \
	{                                                                     \
		mw_lock();                                                    \
		name##_ args;                                                 \
		mw_unlock();                                                  \
	}

LOCKED(int, req_get, (uint32_t h, MPI_Request *out), (h, out))
LOCKED(uint32_t, req_put, (MPI_Request r), (r))
LOCKED_VOID(req_del, (uint32_t h), (h))
LOCKED_VOID(req_attach, (uint32_t h, mw_req_fini *fn, void *arg), (h, fn, arg))
LOCKED(int, req_orphan, (uint32_t h), (h))
LOCKED_VOID(req_comm, (uint32_t h, uint32_t comm), (h, comm))
LOCKED_VOID(req_hold, (uint32_t h, MPI_Comm c), (h, c))
LOCKED_VOID(req_set, (uint32_t h, MPI_Request r), (h, r))
LOCKED_VOID(req_greq_set, (uint32_t h), (h))
LOCKED(int, req_is_greq, (uint32_t h), (h))
LOCKED(int, req_greq_complete, (uint32_t h), (h))
LOCKED_VOID(req_p2p_set, (uint32_t h), (h))
LOCKED(int, req_is_p2p, (uint32_t h), (h))
LOCKED(int, dtype_get, (uint32_t h, mw_dtype **out), (h, out))
LOCKED(uint32_t, dtype_put, (MPI_Datatype x), (x))
LOCKED(int, dtype_predefined, (uint32_t h), (h))
LOCKED_VOID(dtype_del, (uint32_t h), (h))
LOCKED(int, dtype_refresh, (uint32_t h), (h))
LOCKED(uint32_t, dtype_find, (MPI_Datatype x), (x))
