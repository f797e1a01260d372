/* libmpiwasm-omp - the OpenMP runtime entry points clang emits (the
 * __kmpc_* interface of LLVM's libomp) for the subset in README.md
 * ("Threads: OpenMP"), written for this project over POSIX threads and
 * C11 atomics.  What is not here is not defined: a program using it fails
 * to link, naming the entry point.
 *
 * One pool of worker threads, created on first use and kept between
 * regions, serves the outermost parallel region of one root thread at a
 * time; nested regions (and a second root thread's region while the pool
 * is busy) run serialized with one thread, which OpenMP allows.  Threads
 * wait by spinning a little, then sleeping on a futex (memory.atomic.wait32
 * in wasm). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../libmpiwasm-malloc/futex.h"
#include "omp.h"

#define MAX_THREADS 256    /* team size limit; OMP_NUM_THREADS above is cut */
#define MAX_ARGS    32     /* shared variables one region may capture */
#define NDISP       8      /* dynamic loops one thread may run ahead by */
/* Polls before sleeping, some tens of microseconds: long enough that a
 * worker is still awake for the next region of a loop of regions.  wasm
 * has no pause instruction, so a poll there is much shorter. */
#if defined(__wasm__)
#define SPIN        50000
#else
#define SPIN        4000
#endif

typedef struct ident {
	int32_t reserved_1, flags, reserved_2, reserved_3;
	const char *psource;   /* ";file;function;line;column;;" */
} ident_t;

typedef void (*microtask_t)(int32_t *gtid, int32_t *btid, ...);
typedef void (*reduce_fn)(void *lhs, void *rhs);
typedef void (*copy_fn)(void *dst, void *src);

/* libomp's schedule numbers (kmp.h's enum sched_type). */
enum {
	SCH_STATIC_CHUNKED = 33, SCH_STATIC = 34, SCH_DYNAMIC = 35,
	SCH_GUIDED = 36, SCH_RUNTIME = 37, SCH_AUTO = 38,
	SCH_ORD_LOWER = 64, SCH_ORD_UPPER = 72,
	SCH_MONOTONIC = 1 << 29, SCH_NONMONOTONIC = 1 << 30,
};

/* A dynamic loop's shared state; loop number n of a region uses
 * disp[n % NDISP] once epoch says every thread is done with loop n-NDISP. */
struct disp {
	_Atomic uint64_t next;     /* first iteration not handed out */
	_Atomic uint64_t ord_next; /* ordered: iteration whose turn it is */
	atomic_int finished;       /* threads that saw the loop end */
	atomic_int epoch;
};

struct bar {
	atomic_int arrived, gen, sleepers;
};

struct team {
	int nth;
	microtask_t fn;
	int argc;
	void **args;
	struct bar bar;
	atomic_int single;         /* single constructs claimed so far */
	void *cpy;                 /* copyprivate source */
	struct disp disp[NDISP];
	void *red[MAX_THREADS];    /* reduction data of each thread */
};

/* A thread's loop in progress, in iteration numbers 0..trip-1. */
struct loop {
	int kind;                  /* SCH_STATIC, SCH_STATIC_CHUNKED, ... */
	int ordered, done;
	uint64_t lb, trip, chunk, next, ord_iter;
	int64_t st;
	struct disp *buf;
};

struct thr {
	int gtid, tid, level, active_level, push_nth;
	int singles;               /* single constructs met in this team */
	unsigned loops;            /* dynamic loops met in this team */
	struct team *team;
	struct loop loop;
	struct serial *serial;     /* __kmpc_serialized_parallel stack */
};

struct serial {
	struct serial *up;
	struct team *team;
	int tid, level, singles;
	unsigned loops;
	struct loop loop;
	struct team own;
};

static _Thread_local struct thr tl;
static _Thread_local int tl_ready;

/* ICVs, set once from the environment, then by omp_set_*. */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static atomic_int g_nthreads;
static int g_sched = SCH_STATIC, g_sched_chunk;
#if defined(__wasm__)
/* Worker stacks have no guard page in wasm: as large as the main thread's
 * default (mpiwasm-cc's 8 MiB), not libmpiwasm-pthread's 1 MiB. */
static size_t g_stacksize = (size_t)8 << 20;
#else
static size_t g_stacksize;    /* 0: the system's default */
#endif
static atomic_int g_roots = 0;     /* gtids of threads outside the pool */

/* The pool: worker i (1..g_nworkers) takes part in a region when the
 * published word says the team has more than i threads.  The word packs
 * a generation with the team size so that one load tells a worker both. */
static struct team g_team;
static atomic_int g_pool_word, g_pool_sleepers;
static atomic_int g_joined, g_join_sleepers;
static atomic_int g_pool_busy;
static int g_nworkers;
static int g_start_word[MAX_THREADS];
static flock_t g_pool_lock = FLOCK_INIT;
#define NTH_BITS 9
#define NTH_MASK ((1 << NTH_BITS) - 1)

static void die(const ident_t *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("libmpiwasm-omp: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* ";file;function;line;column;;", all unknown without -g. */
	if (loc && loc->psource && strncmp(loc->psource, ";unknown;", 9) != 0)
		fprintf(stderr, " (at %s)", loc->psource);
	fputc('\n', stderr);
	abort();
}

static long env_number(const char *name, const char *s, char **end)
{
	errno = 0;
	long v = strtol(s, end, 10);
	if (*end == s || errno || v < 1)
		die(NULL, "%s=%s: expected a positive number", name, getenv(name));
	return v;
}

static int num_procs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n >= 1 ? (int)(n > MAX_THREADS ? MAX_THREADS : n) : 1;
}

static void icv_init(void)
{
	const char *s = getenv("OMP_NUM_THREADS");
	char *end;
	int n = num_procs();
	if (s && *s) {
		/* A list ("4,2") sets the outer level; inner ones are serial. */
		long v = env_number("OMP_NUM_THREADS", s, &end);
		if (*end && *end != ',')
			die(NULL, "OMP_NUM_THREADS=%s: expected a positive number", s);
		n = v > MAX_THREADS ? MAX_THREADS : (int)v;
	}
	atomic_store(&g_nthreads, n);
	s = getenv("OMP_SCHEDULE");
	if (s && *s) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		const char *k = s;
		if (len > 10 && !strncmp(k, "monotonic:", 10))
			k += 10, len -= 10;
		else if (len > 13 && !strncmp(k, "nonmonotonic:", 13))
			k += 13, len -= 13;
		if (len == 6 && !strncmp(k, "static", 6))
			g_sched = SCH_STATIC;
		else if (len == 7 && !strncmp(k, "dynamic", 7))
			g_sched = SCH_DYNAMIC;
		else if (len == 6 && !strncmp(k, "guided", 6))
			g_sched = SCH_GUIDED;
		else if (len == 4 && !strncmp(k, "auto", 4))
			g_sched = SCH_STATIC;
		else
			die(NULL, "OMP_SCHEDULE=%s: expected static, dynamic, guided or auto[,chunk]", s);
		if (c) {
			g_sched_chunk = (int)env_number("OMP_SCHEDULE", c + 1, &end);
			if (*end)
				die(NULL, "OMP_SCHEDULE=%s: expected a positive chunk", s);
			if (g_sched == SCH_STATIC)
				g_sched = SCH_STATIC_CHUNKED;
		}
	}
	s = getenv("OMP_STACKSIZE");
	if (s && *s) {
		long v = env_number("OMP_STACKSIZE", s, &end);
		size_t unit = 1024;    /* the default unit is KiB */
		switch (*end) {
		case 'B': case 'b': unit = 1; end++; break;
		case 'K': case 'k': end++; break;
		case 'M': case 'm': unit = 1024 * 1024; end++; break;
		case 'G': case 'g': unit = 1024 * 1024 * 1024; end++; break;
		}
		if (*end)
			die(NULL, "OMP_STACKSIZE=%s: expected a size (number[B|K|M|G])", s);
		g_stacksize = (size_t)v * unit;
	}
}

static struct thr *thr(void)
{
	if (!tl_ready) {
		pthread_once(&g_once, icv_init);
		int r = atomic_fetch_add(&g_roots, 1);
		tl.gtid = r == 0 ? 0 : MAX_THREADS + r;
		tl_ready = 1;
	}
	return &tl;
}

/* ---- waiting ---- */

/* Returns once *w != v.  sleepers tells the waker a futex_wake is due. */
static void wait_change(atomic_int *w, int v, atomic_int *sleepers)
{
	for (int i = 0; i < SPIN; i++) {
		if (atomic_load_explicit(w, memory_order_acquire) != v)
			return;
		cpu_relax();
	}
	atomic_fetch_add(sleepers, 1);
	while (atomic_load(w) == v)
		futex_wait(w, v);
	atomic_fetch_sub(sleepers, 1);
}

static void wake_all(atomic_int *w, atomic_int *sleepers)
{
	if (atomic_load(sleepers))
		futex_wake(w, INT_MAX);
}

/* A barrier in two halves: gather (the master waits for the others, who
 * then wait for the release) and release.  Reductions run between them. */
static void bar_gather(struct bar *b, int nth, int tid)
{
	if (tid != 0) {
		int g = atomic_load(&b->gen);
		atomic_fetch_add(&b->arrived, 1);
		wake_all(&b->arrived, &b->sleepers);
		wait_change(&b->gen, g, &b->sleepers);
		return;
	}
	for (int a; (a = atomic_load(&b->arrived)) != nth - 1;)
		wait_change(&b->arrived, a, &b->sleepers);
}

static void bar_release(struct bar *b)
{
	atomic_store(&b->arrived, 0);
	atomic_fetch_add(&b->gen, 1);
	wake_all(&b->gen, &b->sleepers);
}

static void team_reset(struct team *t, int nth)
{
	t->nth = nth;
	atomic_store(&t->single, 0);
	for (int i = 0; i < NDISP; i++) {
		atomic_store(&t->disp[i].next, 0);
		atomic_store(&t->disp[i].ord_next, 0);
		atomic_store(&t->disp[i].finished, 0);
		atomic_store(&t->disp[i].epoch, i);
	}
}

/* ---- parallel regions ---- */

/* The microtask gets the addresses of the region's shared variables as
 * separate arguments: call it through a pointer of exactly that type (in
 * wasm, call_indirect traps on any other).  Tn is n pointer types, An the
 * first n arguments. */
#define T1 void *
#define A1 a[0]
#define T2 T1, void *
#define A2 A1, a[1]
#define T3 T2, void *
#define A3 A2, a[2]
#define T4 T3, void *
#define A4 A3, a[3]
#define T5 T4, void *
#define A5 A4, a[4]
#define T6 T5, void *
#define A6 A5, a[5]
#define T7 T6, void *
#define A7 A6, a[6]
#define T8 T7, void *
#define A8 A7, a[7]
#define T9 T8, void *
#define A9 A8, a[8]
#define T10 T9, void *
#define A10 A9, a[9]
#define T11 T10, void *
#define A11 A10, a[10]
#define T12 T11, void *
#define A12 A11, a[11]
#define T13 T12, void *
#define A13 A12, a[12]
#define T14 T13, void *
#define A14 A13, a[13]
#define T15 T14, void *
#define A15 A14, a[14]
#define T16 T15, void *
#define A16 A15, a[15]
#define T17 T16, void *
#define A17 A16, a[16]
#define T18 T17, void *
#define A18 A17, a[17]
#define T19 T18, void *
#define A19 A18, a[18]
#define T20 T19, void *
#define A20 A19, a[19]
#define T21 T20, void *
#define A21 A20, a[20]
#define T22 T21, void *
#define A22 A21, a[21]
#define T23 T22, void *
#define A23 A22, a[22]
#define T24 T23, void *
#define A24 A23, a[23]
#define T25 T24, void *
#define A25 A24, a[24]
#define T26 T25, void *
#define A26 A25, a[25]
#define T27 T26, void *
#define A27 A26, a[26]
#define T28 T27, void *
#define A28 A27, a[27]
#define T29 T28, void *
#define A29 A28, a[28]
#define T30 T29, void *
#define A30 A29, a[29]
#define T31 T30, void *
#define A31 A30, a[30]
#define T32 T31, void *
#define A32 A31, a[31]
#define CALL(n) case n: ((void (*)(int32_t *, int32_t *, T##n))fn)(gtid, btid, A##n); break

static void invoke(const ident_t *loc, microtask_t fn, int32_t *gtid, int32_t *btid,
		   int argc, void **a)
{
	switch (argc) {
	case 0: ((void (*)(int32_t *, int32_t *))fn)(gtid, btid); break;
	CALL(1); CALL(2); CALL(3); CALL(4);
	CALL(5); CALL(6); CALL(7); CALL(8);
	CALL(9); CALL(10); CALL(11); CALL(12);
	CALL(13); CALL(14); CALL(15); CALL(16);
	CALL(17); CALL(18); CALL(19); CALL(20);
	CALL(21); CALL(22); CALL(23); CALL(24);
	CALL(25); CALL(26); CALL(27); CALL(28);
	CALL(29); CALL(30); CALL(31); CALL(32);
	default:
		die(loc, "a parallel region capturing %d variables (at most %d are supported;"
		    " gather them in a struct)", argc, MAX_ARGS);
	}
}
#undef CALL

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct thr *t = &tl;
	t->gtid = me;
	tl_ready = 1;
	/* The word as it was before the region that started this thread. */
	int word = g_start_word[me];
	for (;;) {
		wait_change(&g_pool_word, word, &g_pool_sleepers);
		word = atomic_load(&g_pool_word);
		if ((word & NTH_MASK) <= me)
			continue;
		struct team *tm = &g_team;
		t->team = tm;
		t->tid = me;
		t->level = t->active_level = 1;
		t->singles = 0;
		t->loops = 0;
		int32_t btid = me;
		invoke(NULL, tm->fn, &t->gtid, &btid, tm->argc, tm->args);
		t->team = NULL;
		t->level = t->active_level = 0;
		atomic_fetch_add(&g_joined, 1);
		wake_all(&g_joined, &g_join_sleepers);
	}
	return NULL;
}

/* Called with g_pool_lock held; returns how many workers there are. */
static int pool_grow(int want)
{
	while (g_nworkers < want && g_nworkers < MAX_THREADS - 1) {
		pthread_attr_t at;
		pthread_attr_init(&at);
		if (g_stacksize)
			pthread_attr_setstacksize(&at, g_stacksize);
		pthread_t id;
		g_start_word[g_nworkers + 1] = atomic_load(&g_pool_word);
		int rc = pthread_create(&id, &at, worker, (void *)(intptr_t)(g_nworkers + 1));
		pthread_attr_destroy(&at);
		if (rc != 0) {
			fprintf(stderr, "libmpiwasm-omp: cannot start thread %d (%s); teams get %d threads\n",
				g_nworkers + 1, strerror(rc), g_nworkers + 1);
			break;
		}
		pthread_detach(id);
		g_nworkers++;
	}
	return g_nworkers;
}

/* A team of one on the caller's own thread: nested regions, if(0), a busy
 * pool, num_threads(1). */
static void serial_enter(struct thr *t, struct serial *s)
{
	s->up = t->serial;
	s->team = t->team;
	s->tid = t->tid;
	s->level = t->level;
	s->singles = t->singles;
	s->loops = t->loops;
	s->loop = t->loop;
	team_reset(&s->own, 1);
	t->serial = s;
	t->team = &s->own;
	t->tid = 0;
	t->level++;
	t->singles = 0;
	t->loops = 0;
}

static void serial_leave(struct thr *t)
{
	struct serial *s = t->serial;
	t->serial = s->up;
	t->team = s->team;
	t->tid = s->tid;
	t->level = s->level;
	t->singles = s->singles;
	t->loops = s->loops;
	t->loop = s->loop;
}

void __kmpc_fork_call(ident_t *loc, int32_t argc, microtask_t fn, ...)
{
	struct thr *t = thr();
	if (argc < 0 || argc > MAX_ARGS)
		die(loc, "a parallel region capturing %d variables (at most %d are supported;"
		    " gather them in a struct)", argc, MAX_ARGS);
	void *args[MAX_ARGS];
	va_list ap;
	va_start(ap, fn);
	for (int i = 0; i < argc; i++)
		args[i] = va_arg(ap, void *);
	va_end(ap);

	int nth = t->push_nth ? t->push_nth : atomic_load(&g_nthreads);
	t->push_nth = 0;
	int expect = 0;
	if (nth > 1 && t->level == 0 &&
	    atomic_compare_exchange_strong(&g_pool_busy, &expect, 1)) {
		flock_lock(&g_pool_lock);
		int have = pool_grow(nth - 1);
		flock_unlock(&g_pool_lock);
		if (nth > have + 1)
			nth = have + 1;
		if (nth == 1)
			atomic_store(&g_pool_busy, 0);
	} else {
		nth = 1;
	}
	if (nth == 1) {
		struct serial s;
		serial_enter(t, &s);
		int32_t btid = 0;
		invoke(loc, fn, &t->gtid, &btid, argc, args);
		serial_leave(t);
		return;
	}

	struct team *tm = &g_team;
	team_reset(tm, nth);
	tm->fn = fn;
	tm->argc = argc;
	tm->args = args;
	atomic_store(&g_joined, 0);
	int word = atomic_load(&g_pool_word);
	int gen = (int)(((unsigned)word >> NTH_BITS) + 1u) & (INT_MAX >> NTH_BITS);
	atomic_store(&g_pool_word, (gen << NTH_BITS) | nth);
	wake_all(&g_pool_word, &g_pool_sleepers);

	t->team = tm;
	t->tid = 0;
	t->level = t->active_level = 1;
	t->singles = 0;
	t->loops = 0;
	int32_t btid = 0;
	invoke(loc, fn, &t->gtid, &btid, argc, args);
	for (int j; (j = atomic_load(&g_joined)) != nth - 1;)
		wait_change(&g_joined, j, &g_join_sleepers);
	t->team = NULL;
	t->level = t->active_level = 0;
	atomic_store(&g_pool_busy, 0);
}

void __kmpc_push_num_threads(ident_t *loc, int32_t gtid, int32_t n)
{
	(void)gtid;
	if (n < 1)
		die(loc, "num_threads(%d): expected a positive number", n);
	thr()->push_nth = n > MAX_THREADS ? MAX_THREADS : n;
}

/* if(0): the caller runs the region itself between these two. */
void __kmpc_serialized_parallel(ident_t *loc, int32_t gtid)
{
	(void)gtid;
	struct thr *t = thr();
	struct serial *s = malloc(sizeof *s);
	if (!s)
		die(loc, "out of memory for a serialized parallel region");
	serial_enter(t, s);
	t->push_nth = 0;
}

void __kmpc_end_serialized_parallel(ident_t *loc, int32_t gtid)
{
	(void)gtid;
	struct thr *t = thr();
	struct serial *s = t->serial;
	if (!s)
		die(loc, "__kmpc_end_serialized_parallel without a serialized region");
	serial_leave(t);
	free(s);
}

int32_t __kmpc_global_thread_num(ident_t *loc)
{
	(void)loc;
	return thr()->gtid;
}

int32_t __kmpc_bound_thread_num(ident_t *loc)
{
	(void)loc;
	return thr()->tid;
}

int32_t __kmpc_in_parallel(ident_t *loc)
{
	(void)loc;
	return thr()->active_level > 0;
}

/* ---- synchronization ---- */

static int team_nth(const struct thr *t)
{
	return t->team ? t->team->nth : 1;
}

void __kmpc_barrier(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
	struct thr *t = thr();
	if (team_nth(t) == 1)
		return;
	bar_gather(&t->team->bar, t->team->nth, t->tid);
	if (t->tid == 0)
		bar_release(&t->team->bar);
}

void __kmpc_flush(ident_t *loc)
{
	(void)loc;
	atomic_thread_fence(memory_order_seq_cst);
}

/* kmp_critical_name is 32 zeroed bytes per name; the first word is ours. */
void __kmpc_critical(ident_t *loc, int32_t gtid, int32_t *crit)
{
	(void)loc, (void)gtid;
	flock_lock((flock_t *)crit);
}

void __kmpc_end_critical(ident_t *loc, int32_t gtid, int32_t *crit)
{
	(void)loc, (void)gtid;
	flock_unlock((flock_t *)crit);
}

int32_t __kmpc_master(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
	return thr()->tid == 0;
}

void __kmpc_end_master(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
}

int32_t __kmpc_masked(ident_t *loc, int32_t gtid, int32_t filter)
{
	(void)loc, (void)gtid;
	return thr()->tid == filter;
}

void __kmpc_end_masked(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
}

/* The k-th single of a team goes to whoever moves the count from k-1 to
 * k; the count only grows, so a late thread never claims an old one. */
int32_t __kmpc_single(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
	struct thr *t = thr();
	int k = ++t->singles;
	if (team_nth(t) == 1)
		return 1;
	int expect = k - 1;
	return atomic_compare_exchange_strong(&t->team->single, &expect, k);
}

void __kmpc_end_single(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
}

void __kmpc_copyprivate(ident_t *loc, int32_t gtid, size_t size, void *data,
			copy_fn cpy, int32_t didit)
{
	(void)size;
	struct thr *t = thr();
	if (team_nth(t) == 1)
		return;
	if (didit)
		t->team->cpy = data;
	__kmpc_barrier(loc, gtid);
	if (!didit)
		cpy(data, t->team->cpy);
	__kmpc_barrier(loc, gtid);
}

/* Reductions: every thread leaves its private copies' addresses, the
 * master combines them in thread order (the same answer on every run for
 * a given team size), returns 1 to store into the shared variables, and
 * lets the others go in __kmpc_end_reduce.  The others return 0. */
static int32_t reduce(struct thr *t, void *data, reduce_fn fn)
{
	struct team *tm = t->team;
	if (team_nth(t) == 1)
		return 1;
	tm->red[t->tid] = data;
	bar_gather(&tm->bar, tm->nth, t->tid);
	if (t->tid != 0)
		return 0;
	for (int i = 1; i < tm->nth; i++)
		fn(data, tm->red[i]);
	return 1;
}

static void end_reduce(struct thr *t)
{
	if (team_nth(t) > 1)
		bar_release(&t->team->bar);
}

int32_t __kmpc_reduce_nowait(ident_t *loc, int32_t gtid, int32_t nvars, size_t size,
			     void *data, reduce_fn fn, int32_t *lck)
{
	(void)loc, (void)gtid, (void)nvars, (void)size, (void)lck;
	return reduce(thr(), data, fn);
}

void __kmpc_end_reduce_nowait(ident_t *loc, int32_t gtid, int32_t *lck)
{
	(void)loc, (void)gtid, (void)lck;
	end_reduce(thr());
}

int32_t __kmpc_reduce(ident_t *loc, int32_t gtid, int32_t nvars, size_t size,
		      void *data, reduce_fn fn, int32_t *lck)
{
	(void)loc, (void)gtid, (void)nvars, (void)size, (void)lck;
	return reduce(thr(), data, fn);
}

void __kmpc_end_reduce(ident_t *loc, int32_t gtid, int32_t *lck)
{
	(void)loc, (void)gtid, (void)lck;
	end_reduce(thr());
}

/* ---- worksharing loops ---- */

/* Thread tid's share of trip iterations, the way libgomp and libomp
 * split an unchunked static loop: the first trip % nth threads get one
 * more. */
static void static_share(uint64_t trip, int nth, int tid, uint64_t *first, uint64_t *count)
{
	uint64_t q = trip / (uint64_t)nth, r = trip % (uint64_t)nth;
	*count = q + ((uint64_t)tid < r);
	*first = q * (uint64_t)tid + ((uint64_t)tid < r ? (uint64_t)tid : r);
}

/* lb..ub inclusive with step st, in the loop variable's own type; the
 * bounds are first widened to 64 bits, signed or not. */
#define TRIP(T, UT, lb, ub, st)                                               \
	((st) > 0 ? ((ub) < (lb) ? 0 : (uint64_t)((UT)((UT)(ub) - (UT)(lb)) / (UT)(st)) + 1) \
		  : ((lb) < (ub) ? 0 : (uint64_t)((UT)((UT)(lb) - (UT)(ub)) / (UT)(0 - (UT)(st))) + 1))

#define STATIC_INIT(NAME, T, UT, ST)                                          \
void NAME(ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,          \
	  T *plower, T *pupper, ST *pstride, ST incr, ST chunk)               \
{                                                                             \
	(void)gtid;                                                           \
	struct thr *t = thr();                                                \
	int nth = team_nth(t), tid = t->tid;                                  \
	T lb = *plower, ub = *pupper;                                         \
	if (incr == 0)                                                        \
		die(loc, "a worksharing loop with step 0");                    \
	uint64_t trip = TRIP(T, UT, lb, ub, incr);                            \
	*pstride = incr;                                                      \
	*plast = 0;                                                           \
	if (trip == 0)                                                        \
		return;                                                       \
	switch (sched) {                                                      \
	case SCH_STATIC: {                                                    \
		uint64_t first, count;                                        \
		static_share(trip, nth, tid, &first, &count);                 \
		if (count == 0) {                                             \
			*plower = (T)((UT)ub + (UT)incr);                             \
			*pupper = ub;                                         \
			return;                                               \
		}                                                             \
		*plower = (T)((UT)lb + (UT)first * (UT)incr);                 \
		*pupper = (T)((UT)lb + (UT)(first + count - 1) * (UT)incr);   \
		*plast = first + count == trip;                               \
		*pstride = (ST)((UT)trip * (UT)incr);                         \
		return;                                                       \
	}                                                                     \
	case SCH_STATIC_CHUNKED: {                                            \
		uint64_t c = chunk < 1 ? 1 : (uint64_t)chunk;                 \
		*plower = (T)((UT)lb + (UT)((uint64_t)tid * c) * (UT)incr);   \
		*pupper = (T)((UT)*plower + (UT)(c - 1) * (UT)incr);          \
		*pstride = (ST)((UT)((uint64_t)nth * c) * (UT)incr);          \
		*plast = (int32_t)(((trip - 1) / c) % (uint64_t)nth) == tid;  \
		return;                                                       \
	}                                                                     \
	default:                                                              \
		die(loc, "static loop schedule %d is not supported "            \
		    "(distribute and teams are not)", (int)sched);            \
	}                                                                     \
}

STATIC_INIT(__kmpc_for_static_init_4, int32_t, uint32_t, int32_t)
STATIC_INIT(__kmpc_for_static_init_4u, uint32_t, uint32_t, int32_t)
STATIC_INIT(__kmpc_for_static_init_8, int64_t, uint64_t, int64_t)
STATIC_INIT(__kmpc_for_static_init_8u, uint64_t, uint64_t, int64_t)

void __kmpc_for_static_fini(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
}

static void disp_init(ident_t *loc, struct thr *t, int sched, uint64_t lb, int64_t st,
		      uint64_t trip, int64_t chunk)
{
	struct loop *l = &t->loop;
	sched &= ~(SCH_MONOTONIC | SCH_NONMONOTONIC);
	l->ordered = sched > SCH_ORD_LOWER && sched < SCH_ORD_UPPER;
	if (l->ordered)
		sched -= SCH_ORD_LOWER - SCH_STATIC_CHUNKED + 1;
	if (sched == SCH_RUNTIME) {
		sched = g_sched;
		chunk = g_sched_chunk;
	}
	if (sched == SCH_AUTO)
		sched = SCH_STATIC;
	if (sched < SCH_STATIC_CHUNKED || sched > SCH_GUIDED)
		die(loc, "loop schedule %d is not supported", sched);
	l->kind = sched;
	l->lb = lb;
	l->st = st;
	l->trip = trip;
	l->chunk = chunk < 1 ? 1 : (uint64_t)chunk;
	l->done = 0;
	l->next = 0;
	struct team *tm = t->team;
	unsigned n = t->loops++;
	l->buf = &tm->disp[n % NDISP];
	/* The buffer is free once every thread has finished loop n - NDISP. */
	while (atomic_load(&l->buf->epoch) != (int)n)
		sched_yield();
}

/* The next chunk as iteration numbers [*k0, *k1]; 0 when none is left. */
static int disp_next(struct thr *t, uint64_t *k0, uint64_t *k1, int *last)
{
	struct loop *l = &t->loop;
	int nth = team_nth(t), tid = t->tid;
	uint64_t a = 0, n = 0;
	if (l->done)
		return 0;
	switch (l->kind) {
	case SCH_STATIC:
		if (l->next == 0)
			static_share(l->trip, nth, tid, &a, &n);
		l->next = 1;
		break;
	case SCH_STATIC_CHUNKED:
		a = (l->next * (uint64_t)nth + (uint64_t)tid) * l->chunk;
		n = a < l->trip ? l->chunk : 0;
		l->next++;
		break;
	case SCH_DYNAMIC:
		a = atomic_fetch_add(&l->buf->next, l->chunk);
		n = a < l->trip ? l->chunk : 0;
		break;
	case SCH_GUIDED:
		a = atomic_load(&l->buf->next);
		do {
			if (a >= l->trip) {
				n = 0;
				break;
			}
			/* Half of an even share of what is left, at least chunk. */
			n = (l->trip - a + 2 * (uint64_t)nth - 1) / (2 * (uint64_t)nth);
			if (n < l->chunk)
				n = l->chunk;
		} while (!atomic_compare_exchange_weak(&l->buf->next, &a, a + n));
		break;
	}
	if (n == 0 || a >= l->trip) {
		l->done = 1;
		if (atomic_fetch_add(&l->buf->finished, 1) + 1 == nth) {
			atomic_store(&l->buf->next, 0);
			atomic_store(&l->buf->ord_next, 0);
			atomic_store(&l->buf->finished, 0);
			atomic_fetch_add(&l->buf->epoch, NDISP);
		}
		return 0;
	}
	if (n > l->trip - a)
		n = l->trip - a;
	*k0 = a;
	*k1 = a + n - 1;
	*last = *k1 == l->trip - 1;
	l->ord_iter = a;
	return 1;
}

#define DISPATCH(SUF, T, UT, ST)                                              \
void __kmpc_dispatch_init_##SUF(ident_t *loc, int32_t gtid, int32_t sched,   \
				T lb, T ub, ST st, ST chunk)                  \
{                                                                             \
	(void)gtid;                                                           \
	if (st == 0)                                                          \
		die(loc, "a worksharing loop with step 0");                    \
	disp_init(loc, thr(), sched, (uint64_t)(UT)lb, (int64_t)st,          \
		  TRIP(T, UT, lb, ub, st), (int64_t)chunk);                    \
}                                                                             \
int32_t __kmpc_dispatch_next_##SUF(ident_t *loc, int32_t gtid, int32_t *plast, \
				   T *plb, T *pub, ST *pst)                   \
{                                                                             \
	(void)loc, (void)gtid;                                                \
	struct thr *t = thr();                                                \
	uint64_t k0, k1;                                                      \
	int last;                                                             \
	if (!disp_next(t, &k0, &k1, &last))                                   \
		return 0;                                                     \
	UT b = (UT)t->loop.lb, s = (UT)t->loop.st;                            \
	*plb = (T)(b + (UT)k0 * s);                                           \
	*pub = (T)(b + (UT)k1 * s);                                           \
	*pst = (ST)t->loop.st;                                                \
	if (plast)                                                            \
		*plast = last;                                                \
	return 1;                                                             \
}                                                                             \
void __kmpc_dispatch_fini_##SUF(ident_t *loc, int32_t gtid)                  \
{                                                                             \
	(void)loc, (void)gtid;                                                \
	ordered_step(thr());                                                  \
}

static void ordered_wait(struct thr *t)
{
	struct loop *l = &t->loop;
	if (!l->ordered || team_nth(t) == 1)
		return;
	while (atomic_load(&l->buf->ord_next) != l->ord_iter)
		sched_yield();
}

/* The end of an iteration of an ordered loop: the next one's turn. */
static void ordered_step(struct thr *t)
{
	struct loop *l = &t->loop;
	if (!l->ordered)
		return;
	ordered_wait(t);
	atomic_store(&l->buf->ord_next, l->ord_iter + 1);
	l->ord_iter++;
}

DISPATCH(4, int32_t, uint32_t, int32_t)
DISPATCH(4u, uint32_t, uint32_t, int32_t)
DISPATCH(8, int64_t, uint64_t, int64_t)
DISPATCH(8u, uint64_t, uint64_t, int64_t)

/* LLVM 19 calls this after every dynamically scheduled loop; the buffer
 * was already given back when the thread saw the loop end. */
void __kmpc_dispatch_deinit(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
}

void __kmpc_ordered(ident_t *loc, int32_t gtid)
{
	struct thr *t = thr();
	if (!t->loop.ordered)
		die(loc, "an ordered construct outside a loop with the ordered clause");
	(void)gtid;
	ordered_wait(t);
}

void __kmpc_end_ordered(ident_t *loc, int32_t gtid)
{
	(void)loc, (void)gtid;
}

/* ---- the omp_* API ---- */

int omp_get_thread_num(void) { return thr()->tid; }
int omp_get_num_threads(void) { return team_nth(thr()); }
int omp_get_max_threads(void) { thr(); return atomic_load(&g_nthreads); }
int omp_in_parallel(void) { return thr()->active_level > 0; }
int omp_get_level(void) { return thr()->level; }
int omp_get_active_level(void) { return thr()->active_level; }
int omp_get_num_procs(void) { return num_procs(); }
int omp_get_thread_limit(void) { return MAX_THREADS; }
int omp_get_dynamic(void) { return 0; }
int omp_get_max_active_levels(void) { return 1; }
int omp_get_nested(void) { return 0; }

/* Team sizes are never adjusted, and only one level is active, as these
 * functions are allowed to make it. */
void omp_set_dynamic(int on) { (void)on; }
void omp_set_nested(int on) { (void)on; }
void omp_set_max_active_levels(int n) { (void)n; }

void omp_set_num_threads(int n)
{
	thr();
	if (n < 1)
		die(NULL, "omp_set_num_threads(%d): expected a positive number", n);
	atomic_store(&g_nthreads, n > MAX_THREADS ? MAX_THREADS : n);
}

void omp_set_schedule(omp_sched_t kind, int chunk)
{
	thr();
	switch ((int)kind & ~(int)omp_sched_monotonic) {
	case omp_sched_static: g_sched = chunk > 0 ? SCH_STATIC_CHUNKED : SCH_STATIC; break;
	case omp_sched_dynamic: g_sched = SCH_DYNAMIC; break;
	case omp_sched_guided: g_sched = SCH_GUIDED; break;
	case omp_sched_auto: g_sched = SCH_STATIC; break;
	default: die(NULL, "omp_set_schedule(%d): unknown schedule kind", (int)kind);
	}
	g_sched_chunk = chunk > 0 ? chunk : 0;
}

void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
	thr();
	switch (g_sched) {
	case SCH_DYNAMIC: *kind = omp_sched_dynamic; break;
	case SCH_GUIDED: *kind = omp_sched_guided; break;
	default: *kind = omp_sched_static; break;
	}
	*chunk = g_sched_chunk;
}

double omp_get_wtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double omp_get_wtick(void)
{
	struct timespec ts;
	clock_getres(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Locks: the flock word, and for nestable ones an owner and a depth. */
_Static_assert(sizeof(omp_lock_t) >= sizeof(flock_t), "omp_lock_t too small");

void omp_init_lock(omp_lock_t *l) { memset(l, 0, sizeof *l); }
void omp_destroy_lock(omp_lock_t *l) { (void)l; }
void omp_set_lock(omp_lock_t *l) { flock_lock((flock_t *)l); }
void omp_unset_lock(omp_lock_t *l) { flock_unlock((flock_t *)l); }

int omp_test_lock(omp_lock_t *l)
{
	int expect = 0;
	return atomic_compare_exchange_strong(&((flock_t *)l)->state, &expect, 1);
}

static int owner_id(void)
{
	return thr()->gtid + 1;
}

void omp_init_nest_lock(omp_nest_lock_t *l) { memset(l, 0, sizeof *l); }
void omp_destroy_nest_lock(omp_nest_lock_t *l) { (void)l; }

void omp_set_nest_lock(omp_nest_lock_t *l)
{
	int me = owner_id();
	if (atomic_load((atomic_int *)&l->_owner) != me) {
		flock_lock((flock_t *)&l->_lock);
		atomic_store((atomic_int *)&l->_owner, me);
	}
	l->_depth++;
}

void omp_unset_nest_lock(omp_nest_lock_t *l)
{
	if (--l->_depth == 0) {
		atomic_store((atomic_int *)&l->_owner, 0);
		flock_unlock((flock_t *)&l->_lock);
	}
}

int omp_test_nest_lock(omp_nest_lock_t *l)
{
	int me = owner_id();
	if (atomic_load((atomic_int *)&l->_owner) != me) {
		int expect = 0;
		if (!atomic_compare_exchange_strong(&((flock_t *)&l->_lock)->state, &expect, 1))
			return 0;
		atomic_store((atomic_int *)&l->_owner, me);
	}
	return ++l->_depth;
}
