/* threads.c - wasi-threads: the `wasi` `thread-spawn` import.
 *
 * thread-spawn(start_arg) makes an instance of the same module for the new
 * thread (rt_instantiate_thread: the shared memory, its own globals and
 * table), starts a host thread and runs the module's exported
 * wasi_thread_start(tid, start_arg) there.  The module side (the
 * toolchain's libmpiwasm-pthread) sets the thread's stack pointer and TLS
 * block from start_arg before any C code runs.
 *
 * The host thread's own stack only carries the runtime's entry frames:
 * rt_call_ex runs the module on a stack it maps itself, with a guard page
 * and an alternate signal stack, per thread, released when the thread
 * ends.  A thread that returns from wasi_thread_start ends quietly and
 * its instance is kept for the next spawn (the host may still hold
 * function values of it, e.g. a user reduction registered on that
 * thread, so it is never freed).  A trap or proc_exit in any thread ends
 * the process through the handler the command installed. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rt/rt.h"
#include "wasi.h"
#include "wasi_int.h"

/* wasi-threads gives thread ids in [1, 2^29). */
#define TID_MAX 0x1FFFFFFFu
/* Host stack of a thread: only the runtime's frames live there. */
#define HOST_STACK ((size_t)256 << 10)

typedef struct wthread {
	rt_instance *inst;
	const rt_func *start;      /* wasi_thread_start of inst */
	uint32_t tid, arg;
	struct wthread *next;      /* in the pool when idle */
} wthread;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static wthread *pool;              /* instances of ended threads */
static uint32_t next_tid = 1;      /* under pool_lock */
static int nstarted;               /* threads ever started */
static wasi_thread_end *on_end;
static __thread uint32_t my_tid;   /* 0 on the main thread */
static __thread bool my_exit;      /* the thread called thread_exit */
static __thread uint32_t my_gone;  /* its argument */

void wasi_threads_on_end(wasi_thread_end *fn)
{
	on_end = fn;
}

int wasi_threads_started(void)
{
	return __atomic_load_n(&nstarted, __ATOMIC_ACQUIRE);
}

uint32_t wasi_thread_id(void)
{
	return my_tid;
}

static void *thread_main(void *p)
{
	wthread *t = p;
	my_tid = t->tid;
	rt_value args[2] = { { .i32 = t->tid }, { .i32 = t->arg } };
	rt_trapinfo info;
	int rc = rt_call_ex(t->inst, t->start, args, NULL, &info);
	if (rc == RT_EXIT && my_exit) {
		/* pthread_exit: the module stack is left, tell the joiner */
		uint32_t *w = rt_mem(t->inst, my_gone, 4);
		__atomic_store_n(w, 1, __ATOMIC_SEQ_CST);
		rt_atomic_notify(t->inst->mems[0], my_gone, UINT32_MAX, UINT32_MAX);
		my_exit = false;
		rc = 0;
	}
	if (rc) {
		if (on_end)
			on_end(t->inst, &info, t->tid);   /* ends the process */
		fprintf(stderr, "mpiwasm: thread %u: %s\n", t->tid, rt_trap_name(rc));
		abort();
	}
	rt_thread_release();
	pthread_mutex_lock(&pool_lock);
	t->next = pool;
	pool = t;
	pthread_mutex_unlock(&pool_lock);
	return NULL;
}

/* A thread record with an instance: an idle one, else a new one.  NULL
 * when the module cannot be instantiated again (after trapping with the
 * reason, which is a module error, not a resource shortage). */
static wthread *thread_get(rt_instance *parent)
{
	pthread_mutex_lock(&pool_lock);
	wthread *t = pool;
	if (t)
		pool = t->next;
	pthread_mutex_unlock(&pool_lock);
	if (t)
		return t;
	t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	char err[512] = "";
	rt_trapinfo trap;
	int rc = rt_instantiate_thread(parent, &t->inst, &trap, err, sizeof err);
	if (rc) {
		free(t);
		if (rc > 0)
			rt_trap_rethrow(parent, rc);
		rt_trap_host(parent, "thread-spawn: %s", err[0] ? err : "cannot instantiate");
	}
	t->start = rt_export_func(t->inst, "wasi_thread_start", "ii:");
	if (!t->start) {
		rt_instance_free(t->inst);
		free(t);
		rt_trap_host(parent, "thread-spawn: the module exports no "
		             "wasi_thread_start(i32 tid, i32 start_arg)");
	}
	return t;
}

static void thread_put(wthread *t)
{
	pthread_mutex_lock(&pool_lock);
	t->next = pool;
	pool = t;
	pthread_mutex_unlock(&pool_lock);
}

/* A new thread id, or 0 when they ran out. */
static uint32_t tid_new(void)
{
	pthread_mutex_lock(&pool_lock);
	uint32_t tid = next_tid <= TID_MAX ? next_tid++ : 0;
	pthread_mutex_unlock(&pool_lock);
	return tid;
}

/* Returns the new thread's id, or a negated WASI errno. */
static uint32_t w_thread_spawn(rt_instance *inst, uint32_t start_arg)
{
	uint32_t tid = tid_new();
	if (!tid)
		return (uint32_t)-WE_AGAIN;
	wthread *t = thread_get(inst);
	if (!t)
		return (uint32_t)-WE_NOMEM;
	t->tid = tid;
	t->arg = start_arg;
	pthread_attr_t a;
	pthread_t th;
	int e = pthread_attr_init(&a);
	if (!e)
		e = pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (!e)
		e = pthread_attr_setstacksize(&a, HOST_STACK);
	if (!e) {
		__atomic_add_fetch(&nstarted, 1, __ATOMIC_RELEASE);
		e = pthread_create(&th, &a, thread_main, t);
	}
	pthread_attr_destroy(&a);
	if (e) {
		thread_put(t);
		return (uint32_t)-(e == EAGAIN ? WE_AGAIN : WE_NOMEM);
	}
	return tid;
}

/* mpiwasm.thread_exit(gone): ends the calling thread (pthread_exit: C
 * cannot unwind a wasm stack); once it is off the module stack the
 * engine stores 1 at `gone` (an aligned i32) and wakes its waiters. */
static void w_thread_exit(rt_instance *inst, uint32_t gone)
{
	if (!my_tid)
		rt_trap_host(inst, "thread_exit: called on the main thread");
	if ((gone & 3) || !rt_mem(inst, gone, 4))
		rt_trap_host(inst, "thread_exit: address %u is not an aligned i32 in memory", gone);
	my_exit = true;
	my_gone = gone;
	rt_exit(inst, 0);
}

static const rt_hostfn thread_fns[] = {
	{ "wasi", "thread-spawn", "i:i", (void *)w_thread_spawn },
	{ "mpiwasm", "thread_exit", "i:", (void *)w_thread_exit },
};

void wasi_threads_register(void)
{
	rt_host_register(thread_fns, sizeof thread_fns / sizeof *thread_fns);
}
