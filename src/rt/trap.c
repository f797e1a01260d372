/* trap.c - traps, fault handling, the module stack and guarded calls.
 *
 * A top-level call into a module (rt_call_ex with no module frame active
 * on this thread) switches to a stack the runtime maps itself, with a
 * PROT_NONE guard below it, so a fault in the guard is recognised as
 * stack exhaustion whatever the thread's own stack looks like.  Calls
 * made while a module frame is active (host callbacks into the module)
 * run on the current stack.  Every guarded call has a sigjmp_buf; rt_trap
 * and the fault handler longjmp to the innermost one. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <ucontext.h>
#include <sys/mman.h>

#include "internal.h"

#define RT_STACK_SIZE ((size_t)64 << 20)
#define RT_STACK_GUARD ((size_t)1 << 20)
#define RT_ALTSTACK_SIZE ((size_t)64 << 10)

typedef struct rt_frame {
	sigjmp_buf jb;
	rt_trapinfo info;
	rt_instance *inst;
	struct rt_frame *prev;
} rt_frame;

static __thread rt_frame *rt_cur;         /* innermost guarded call */
static __thread rt_trapinfo rt_last;      /* of the last guarded call */
static __thread uint8_t *rt_stack_lo;     /* module stack mapping */
static __thread bool rt_altstack_done;
static __thread void *rt_altstack_own;    /* the one rt_altstack mapped */

static struct sigaction rt_prev[NSIG];
static const int rt_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

const char *rt_trap_name(int kind)
{
	switch (kind) {
	case RT_OK: return "no trap";
	case RT_TRAP_UNREACHABLE: return "unreachable";
	case RT_TRAP_MEM_OOB: return "out of bounds memory access";
	case RT_TRAP_TABLE_OOB: return "out of bounds table access";
	case RT_TRAP_INDIRECT_NULL: return "uninitialized element";
	case RT_TRAP_INDIRECT_TYPE: return "indirect call type mismatch";
	case RT_TRAP_INT_OVERFLOW: return "integer overflow";
	case RT_TRAP_DIV_ZERO: return "integer divide by zero";
	case RT_TRAP_INVALID_CONV: return "invalid conversion to integer";
	case RT_TRAP_STACK: return "call stack exhausted";
	case RT_TRAP_UNALIGNED: return "unaligned atomic";
	case RT_TRAP_HOST: return "host error";
	case RT_EXIT: return "exit";
	case RT_TRAP_EXCEPTION: return "uncaught wasm exception";
	default: return "unknown trap";
	}
}

void rt_trap_format(const rt_instance *inst, const rt_trapinfo *t,
                    char *buf, size_t len)
{
	const char *what = (t->kind == RT_TRAP_HOST || t->kind == RT_TRAP_EXCEPTION) &&
	                   t->msg[0] ? t->msg : rt_trap_name(t->kind);
	if (t->kind == RT_EXIT) {
		snprintf(buf, len, "exit with status %d", t->exit_status);
		return;
	}
	if (t->func == UINT32_MAX || !inst) {
		snprintf(buf, len, "trap: %s", what);
		return;
	}
	const char *name = wasm_func_name(rt_instance_module(inst), t->func);
	if (name)
		snprintf(buf, len, "trap: %s in %s (function %u)", what, name, t->func);
	else
		snprintf(buf, len, "trap: %s in function %u", what, t->func);
}

static noreturn void rt_unwind(rt_frame *fr)
{
	siglongjmp(fr->jb, 1);
}

static noreturn void rt_no_frame(const char *what)
{
	fprintf(stderr, "mpiwasm: %s raised outside of any module call\n", what);
	abort();
}

RT_ABI noreturn void rt_trap(int kind, uint32_t func)
{
	rt_frame *fr = rt_cur;
	if (!fr)
		rt_no_frame(rt_trap_name(kind));
	fr->info.kind = kind;
	fr->info.func = func;
	rt_unwind(fr);
}

noreturn void rt_exit(rt_instance *inst, int status)
{
	(void)inst;
	rt_frame *fr = rt_cur;
	if (!fr)
		rt_no_frame("rt_exit");
	fr->info.kind = RT_EXIT;
	fr->info.exit_status = status;
	rt_unwind(fr);
}

noreturn void rt_trap_host(rt_instance *inst, const char *fmt, ...)
{
	(void)inst;
	rt_frame *fr = rt_cur;
	if (!fr)
		rt_no_frame("rt_trap_host");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fr->info.msg, sizeof fr->info.msg, fmt, ap);
	va_end(ap);
	fr->info.kind = RT_TRAP_HOST;
	rt_unwind(fr);
}

noreturn void rt_trap_msg(int kind, uint32_t func, const char *fmt, ...)
{
	rt_frame *fr = rt_cur;
	if (!fr)
		rt_no_frame(rt_trap_name(kind));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fr->info.msg, sizeof fr->info.msg, fmt, ap);
	va_end(ap);
	fr->info.kind = kind;
	fr->info.func = func;
	rt_unwind(fr);
}

noreturn void rt_trap_rethrow(rt_instance *inst, int kind)
{
	(void)inst;
	rt_frame *fr = rt_cur;
	if (!fr)
		rt_no_frame("rt_trap_rethrow");
	if (rt_last.kind == kind)
		fr->info = rt_last;
	else
		fr->info.kind = kind;
	rt_unwind(fr);
}

/* ---- signals ------------------------------------------------------------ */

static void rt_forward(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *old = &rt_prev[sig];
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc);
			return;
		}
	} else if (old->sa_handler == SIG_IGN) {
		return;
	} else if (old->sa_handler != SIG_DFL && old->sa_handler) {
		old->sa_handler(sig);
		return;
	}
	/* default action: return and let the faulting instruction run again */
	signal(sig, SIG_DFL);
	if (si->si_code <= 0)
		raise(sig);
}

static uintptr_t rt_pc(void *ucv)
{
	ucontext_t *uc = ucv;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

static void rt_on_fault(int sig, siginfo_t *si, void *uc)
{
	rt_frame *fr = rt_cur;
	if (fr && (sig == SIGSEGV || sig == SIGBUS)) {
		uintptr_t a = (uintptr_t)si->si_addr;
		int kind = 0;
		if (rt_stack_lo && a >= (uintptr_t)rt_stack_lo &&
		    a < (uintptr_t)rt_stack_lo + RT_STACK_GUARD)
			kind = RT_TRAP_STACK;
		else if (rt_mem_reserved(a))
			kind = RT_TRAP_MEM_OOB;
		if (kind) {
			fr->info.kind = kind;
			fr->info.func = rt_func_at_pc(fr->inst, rt_pc(uc));
			rt_unwind(fr);
		}
	}
	rt_forward(sig, si, uc);
}

static int rt_altstack(void)
{
	if (rt_altstack_done)
		return 0;
	stack_t cur;
	if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE) &&
	    cur.ss_size >= RT_ALTSTACK_SIZE) {
		rt_altstack_done = true;
		return 0;
	}
	void *p = mmap(NULL, RT_ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	stack_t ss = {.ss_sp = p, .ss_size = RT_ALTSTACK_SIZE, .ss_flags = 0};
	if (sigaltstack(&ss, NULL)) {
		munmap(p, RT_ALTSTACK_SIZE);
		return -1;
	}
	rt_altstack_done = true;
	rt_altstack_own = p;
	return 0;
}

void rt_thread_release(void)
{
	if (rt_cur)
		return;   /* still inside a module call: nothing may go */
	if (rt_altstack_own) {
		stack_t ss = {.ss_flags = SS_DISABLE};
		if (sigaltstack(&ss, NULL) == 0) {
			munmap(rt_altstack_own, RT_ALTSTACK_SIZE);
			rt_altstack_own = NULL;
			rt_altstack_done = false;
		}
	}
	if (rt_stack_lo) {
		munmap(rt_stack_lo, RT_STACK_SIZE + RT_STACK_GUARD);
		rt_stack_lo = NULL;
	}
}

int rt_signals_install(void)
{
	if (rt_altstack())
		return -1;
	for (size_t i = 0; i < sizeof rt_sigs / sizeof rt_sigs[0]; i++) {
		int sig = rt_sigs[i];
		struct sigaction cur;
		if (sigaction(sig, NULL, &cur))
			return -1;
		if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == rt_on_fault)
			continue;
		rt_prev[sig] = cur;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = rt_on_fault;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, NULL))
			return -1;
	}
	return 0;
}

/* ---- guarded calls ---------------------------------------------------- */

typedef struct rt_callreq {
	rt_instance *inst;
	const rt_func *f;
	const rt_value *args;
	rt_value *results;
	int rc;
	rt_trapinfo info;
} rt_callreq;

static void rt_guarded(rt_callreq *rq)
{
	rt_frame fr;
	memset(&fr.info, 0, sizeof fr.info);
	fr.info.func = UINT32_MAX;
	fr.inst = rq->inst;
	fr.prev = rt_cur;
	rt_cur = &fr;
	rt_ehframe *eh = rt_eh_enter();
	if (sigsetjmp(fr.jb, 0) == 0) {
		rq->f->invoke(rq->f, rq->args, rq->results);
		rq->rc = 0;
	} else {
		rq->rc = fr.info.kind;
	}
	rt_eh_leave(eh);
	rt_cur = fr.prev;
	rq->info = fr.info;
	rt_last = fr.info;
}

static __thread rt_callreq *rt_pending;
static __thread ucontext_t rt_caller_uc, rt_module_uc;

static void rt_stack_entry(void)
{
	rt_guarded(rt_pending);
}

static int rt_stack_init(void)
{
	if (rt_stack_lo)
		return 0;
	void *p = mmap(NULL, RT_STACK_SIZE + RT_STACK_GUARD, PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	if (mprotect((uint8_t *)p + RT_STACK_GUARD, RT_STACK_SIZE, PROT_READ | PROT_WRITE)) {
		munmap(p, RT_STACK_SIZE + RT_STACK_GUARD);
		return -1;
	}
	rt_stack_lo = p;
	return 0;
}

/* A trap leaves the module stack by siglongjmp, past frames whose
 * AddressSanitizer redzones are still marked in the shadow memory; ASan
 * cannot clean them up on a stack it did not make (makecontext), and the
 * next call would report them as overflows.  Only in sanitizer builds. */
#if defined(__SANITIZE_ADDRESS__)
#define RT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RT_ASAN 1
#endif
#endif
#ifdef RT_ASAN
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
static void rt_stack_unpoison(void)
{
	if (rt_stack_lo)
		__asan_unpoison_memory_region(rt_stack_lo + RT_STACK_GUARD, RT_STACK_SIZE);
}
#else
static void rt_stack_unpoison(void) {}
#endif

int rt_call_ex(rt_instance *inst, const rt_func *f, const rt_value *args,
               rt_value *results, rt_trapinfo *trap)
{
	rt_callreq rq = {.inst = inst, .f = f, .args = args, .results = results};
	if (rt_cur) {
		rt_guarded(&rq);
	} else {
		if (rt_signals_install() || rt_stack_init()) {
			fprintf(stderr, "rt_call_ex: cannot set up the module stack or signal handlers\n");
			abort();
		}
		rt_callreq *saved = rt_pending;
		rt_pending = &rq;
		getcontext(&rt_module_uc);
		rt_module_uc.uc_stack.ss_sp = rt_stack_lo + RT_STACK_GUARD;
		rt_module_uc.uc_stack.ss_size = RT_STACK_SIZE;
		rt_module_uc.uc_link = &rt_caller_uc;
		makecontext(&rt_module_uc, rt_stack_entry, 0);
		if (swapcontext(&rt_caller_uc, &rt_module_uc)) {
			fprintf(stderr, "rt_call_ex: swapcontext failed\n");
			abort();
		}
		rt_pending = saved;
	}
	if (rq.rc)
		rt_stack_unpoison();
	if (trap)
		*trap = rq.info;
	return rq.rc;
}

int rt_call(rt_instance *inst, const rt_func *f, const rt_value *args,
            rt_value *results)
{
	/* A callback the host kept from one thread's instance (a user op,
	 * an error handler) runs in the instance of the thread calling it
	 * now: in another one it would use that thread's __stack_pointer. */
	rt_instance *cur = rt_cur ? rt_cur->inst : NULL;
	if (cur && cur != inst && cur->mod == inst->mod && f->ctx == inst &&
	    f->index < cur->mod->nfuncs) {
		f = &cur->funcs[f->index];
		inst = cur;
	}
	return rt_call_ex(inst, f, args, results, NULL);
}
