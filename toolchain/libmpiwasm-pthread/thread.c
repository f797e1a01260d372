/* thread.c - thread creation, exit, join, detach; thread-specific data.
 *
 * pthread_create allocates one block: the descriptor, the TLS area
 * (__wasm_init_tls copies the module's TLS image there) and the stack,
 * and asks the engine for a thread (wasi-threads' thread-spawn), which
 * runs wasi_thread_start (start.s) on a new instance of the module.  The
 * block is freed once the thread's stack is no longer in use: start.s
 * (after the thread function returned) or the engine (after pthread_exit)
 * sets `gone` and wakes whoever waits for it; a joiner frees it, and
 * detached threads are left on a list that later creates and joins
 * reap. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define DEFAULT_STACK ((size_t)1 << 20)

__attribute__((import_module("wasi"), import_name("thread-spawn")))
int32_t mw_thread_spawn(void *start_arg);

/* Ends the calling thread; the engine sets *gone to 1 (and wakes its
 * waiters) once the thread's stack is no longer in use. */
__attribute__((import_module("mpiwasm"), import_name("thread_exit")))
_Noreturn void mw_thread_exit(int *gone);

extern void __wasm_init_tls(void *);
/* start.s; referenced here so that linking pthread_create links it. */
extern void wasi_thread_start(int tid, void *arg);
__attribute__((used)) static void (*const start_entry)(int, void *) = wasi_thread_start;

static _Thread_local struct __pthread *self_;   /* NULL on the main thread */
static struct __pthread main_thread = { .state = T_DETACHED };
static int live;                 /* threads started and not yet finished */

static volatile int keys_lock;
static struct { int used; unsigned gen; void (*dtor)(void *); } keys[PTHREAD_KEYS_MAX];

static volatile int zombies_lock;
static struct __pthread *zombies;   /* detached threads that finished */

/* pthread_attr_t as this library uses its storage. */
struct attr {
	size_t stacksize;          /* 0: default */
	int detach;
};
_Static_assert(sizeof(struct attr) <= sizeof(pthread_attr_t), "pthread_attr_t too small");

pthread_t pthread_self(void)
{
	return self_ ? self_ : &main_thread;
}

int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

/* ---- attributes --------------------------------------------------------- */

int pthread_attr_init(pthread_attr_t *a)
{
	memset(a, 0, sizeof *a);
	return 0;
}

int pthread_attr_destroy(pthread_attr_t *a)
{
	(void)a;
	return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *a, size_t n)
{
	if (n < PTHREAD_STACK_MIN || n > (size_t)1 << 30)
		return EINVAL;
	((struct attr *)a)->stacksize = n;
	return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *__restrict a, size_t *__restrict n)
{
	size_t s = ((const struct attr *)a)->stacksize;
	*n = s ? s : DEFAULT_STACK;
	return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *a, int d)
{
	if (d != PTHREAD_CREATE_JOINABLE && d != PTHREAD_CREATE_DETACHED)
		return EINVAL;
	((struct attr *)a)->detach = d;
	return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *a, int *d)
{
	*d = ((const struct attr *)a)->detach;
	return 0;
}

/* ---- thread-specific data ----------------------------------------------- */

int pthread_key_create(pthread_key_t *k, void (*dtor)(void *))
{
	mw_lock(&keys_lock);
	for (unsigned i = 0; i < PTHREAD_KEYS_MAX; i++)
		if (!keys[i].used) {
			keys[i].used = 1;
			keys[i].gen++;
			keys[i].dtor = dtor;
			mw_unlock(&keys_lock);
			*k = i;
			return 0;
		}
	mw_unlock(&keys_lock);
	return EAGAIN;
}

int pthread_key_delete(pthread_key_t k)
{
	if (k >= PTHREAD_KEYS_MAX)
		return EINVAL;
	mw_lock(&keys_lock);
	int ok = keys[k].used;
	keys[k].used = 0;
	keys[k].dtor = 0;
	mw_unlock(&keys_lock);
	return ok ? 0 : EINVAL;
}

void *pthread_getspecific(pthread_key_t k)
{
	if (k >= PTHREAD_KEYS_MAX)
		return NULL;
	struct tsd_slot *s = &pthread_self()->tsd[k];
	return s->gen == __atomic_load_n(&keys[k].gen, __ATOMIC_RELAXED) ? s->value : NULL;
}

int pthread_setspecific(pthread_key_t k, const void *v)
{
	if (k >= PTHREAD_KEYS_MAX || !__atomic_load_n(&keys[k].used, __ATOMIC_RELAXED))
		return EINVAL;
	struct tsd_slot *s = &pthread_self()->tsd[k];
	s->value = (void *)v;
	s->gen = keys[k].gen;
	return 0;
}

/* Destructors of the non-null values, in rounds while some are set again. */
static void tsd_run(struct __pthread *t)
{
	for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
		int any = 0;
		for (unsigned i = 0; i < PTHREAD_KEYS_MAX; i++) {
			mw_lock(&keys_lock);
			void (*dtor)(void *) = keys[i].used ? keys[i].dtor : 0;
			unsigned gen = keys[i].gen;
			mw_unlock(&keys_lock);
			struct tsd_slot *s = &t->tsd[i];
			if (!dtor || s->gen != gen || !s->value)
				continue;
			void *v = s->value;
			s->value = NULL;
			dtor(v);
			any = 1;
		}
		if (!any)
			break;
	}
}

/* ---- create, exit, join ------------------------------------------------- */

static void reap(void)
{
	mw_lock(&zombies_lock);
	struct __pthread **pp = &zombies, *done = NULL;
	while (*pp) {
		struct __pthread *t = *pp;
		if (__atomic_load_n(&t->gone, __ATOMIC_ACQUIRE)) {
			*pp = t->next;
			t->next = done;
			done = t;
		} else {
			pp = &t->next;
		}
	}
	mw_unlock(&zombies_lock);
	while (done) {
		struct __pthread *t = done;
		done = t->next;
		free(t);
	}
}

/* Runs when the thread function returned or pthread_exit was called. */
static void finish(struct __pthread *t, void *result)
{
	tsd_run(t);
	t->result = result;
	int want = T_JOINABLE;
	if (__atomic_compare_exchange_n(&t->state, &want, T_EXITED, 0,
	                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		mw_wake(&t->state, MW_WAKE_ALL);
	} else {
		mw_lock(&zombies_lock);
		t->next = zombies;
		zombies = t;
		mw_unlock(&zombies_lock);
	}
	if (__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL) == 0)
		mw_wake(&live, MW_WAKE_ALL);
}

/* Called by wasi_thread_start (start.s) with the stack pointer set. */
void __mpiwasm_thread_main(int tid, struct __pthread *t)
{
	__wasm_init_tls(t->tls);
	self_ = t;
	t->tid = tid;
	finish(t, t->fn(t->arg));
}

int pthread_create(pthread_t *__restrict out, const pthread_attr_t *__restrict attr,
                   void *(*fn)(void *), void *__restrict arg)
{
	reap();
	const struct attr *a = (const struct attr *)attr;
	size_t stack = a && a->stacksize ? a->stacksize : DEFAULT_STACK;
	size_t align = __builtin_wasm_tls_align();
	size_t tls = __builtin_wasm_tls_size();
	if (align < 16)
		align = 16;
	size_t head = (sizeof(struct __pthread) + align - 1) & ~(align - 1);
	size_t tls_room = (tls + 15) & ~(size_t)15;
	struct __pthread *t = aligned_alloc(align, head + tls_room + stack);
	if (!t)
		return EAGAIN;
	memset(t, 0, sizeof *t);
	t->tls = (char *)t + head;
	t->sp = (uint32_t)(uintptr_t)((char *)t + head + tls_room + stack) & ~15u;
	t->fn = fn;
	t->arg = arg;
	t->state = a && a->detach == PTHREAD_CREATE_DETACHED ? T_DETACHED : T_JOINABLE;
	__atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
	*out = t;   /* before the thread runs: it may read it through arg */
	int32_t tid = mw_thread_spawn(t);
	if (tid < 0) {
		__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL);
		free(t);
		return EAGAIN;
	}
	return 0;
}

_Noreturn void pthread_exit(void *result)
{
	struct __pthread *t = self_;
	if (!t) {
		/* The main thread: the process lives on until the last thread
		 * has finished, then exits with status 0. */
		tsd_run(&main_thread);
		int n;
		while ((n = __atomic_load_n(&live, __ATOMIC_ACQUIRE)) != 0)
			mw_wait(&live, n, -1);
		exit(0);
	}
	finish(t, result);
	mw_thread_exit(&t->gone);
}

int pthread_join(pthread_t t, void **result)
{
	if (t == pthread_self())
		return EDEADLK;
	if (t == &main_thread)
		return EINVAL;
	int s;
	while ((s = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE)) == T_JOINABLE)
		mw_wait(&t->state, T_JOINABLE, -1);
	if (s != T_EXITED)
		return EINVAL;
	while (!__atomic_load_n(&t->gone, __ATOMIC_ACQUIRE))
		mw_wait(&t->gone, 0, -1);
	if (result)
		*result = t->result;
	free(t);
	reap();
	return 0;
}

int pthread_detach(pthread_t t)
{
	if (t == &main_thread)
		return EINVAL;
	int want = T_JOINABLE;
	if (__atomic_compare_exchange_n(&t->state, &want, T_DETACHED, 0,
	                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;
	if (want != T_EXITED)
		return EINVAL;
	/* it has already finished: nobody will join it, free it here */
	while (!__atomic_load_n(&t->gone, __ATOMIC_ACQUIRE))
		mw_wait(&t->gone, 0, -1);
	free(t);
	return 0;
}
