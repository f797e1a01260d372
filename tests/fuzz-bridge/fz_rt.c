/* fz_rt.c - the runtime as the bridge fuzzer gives it (src/rt/host.h):
 * one linear memory with inaccessible pages below and above it, far
 * enough that any base + 32-bit offset (or base - 32-bit offset) the
 * bridge could compute lands in them, and module functions (the malloc
 * export, functions in table 0) whose behaviour the fuzzer chooses. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rt/host.h"
#include "rt/rt.h"
#include "fz.h"

uint8_t *fz_mem;
static uint8_t *resv;
static size_t resv_len;
fz_shared *fz_sh;
int fz_malloc_mode, fz_hostile_val;
static uint32_t bump;
jmp_buf *fz_trap_jmp;
static struct sigaction old_segv, old_bus;

/* Guard: 4 GiB below (base + int32 displacement), 8 GiB above (base +
 * uint32 address + uint32 length).  Reserved, never committed. */
#define GUARD_LO (4ull << 30)
#define GUARD_HI (8ull << 30)

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	uint8_t *a = si->si_addr;
	if (fz_sh && a >= resv && a < resv + resv_len &&
	    (a < fz_mem || a >= fz_mem + FZ_MEM)) {
		fz_sh->oob = 1;
		fz_sh->oob_off = (int64_t)(a - fz_mem);
	}
	/* Let ASan (whose handler this was) report it with a stack. */
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	(void)sig; (void)uc;
}

void fz_mem_init(void)
{
	resv_len = GUARD_LO + FZ_MEM + GUARD_HI;
	resv = mmap(NULL, resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (resv == MAP_FAILED) {
		perror("fuzz-bridge: reserving guarded memory");
		_exit(FZ_EXIT_SETUP);
	}
	fz_mem = resv + GUARD_LO;
	if (mprotect(fz_mem, FZ_MEM, PROT_READ | PROT_WRITE)) {
		perror("fuzz-bridge: mprotect");
		_exit(FZ_EXIT_SETUP);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	bump = FZ_HEAP;
}

/* ---- host.h ------------------------------------------------------------- */

static const rt_hostfn *tabs[8];
static size_t ns[8];
static int nt;

void rt_host_register(const rt_hostfn *f, size_t n)
{
	tabs[nt] = f;
	ns[nt++] = n;
}

const rt_hostfn *rt_host_find(const char *m, const char *n)
{
	for (int t = 0; t < nt; t++)
		for (size_t i = 0; i < ns[t]; i++)
			if (!strcmp(tabs[t][i].module, m) && !strcmp(tabs[t][i].name, n))
				return &tabs[t][i];
	return NULL;
}

void *rt_mem(rt_instance *inst, uint64_t addr, uint64_t len)
{
	(void)inst;
	if (addr > FZ_MEM || len > FZ_MEM - addr)
		return NULL;
	return fz_mem + addr;
}

void *rt_mem_array(rt_instance *inst, uint64_t addr, uint64_t n, uint64_t sz)
{
	if (sz && n > UINT64_MAX / sz)
		return NULL;
	return rt_mem(inst, addr, n * sz);
}

uint64_t rt_mem_size(rt_instance *inst)
{
	(void)inst;
	return FZ_MEM;
}

/* A trap unwinds to the fuzzer's call site, as the real runtime unwinds
 * to its entry point; the batch ends there (the real job would too). */
static noreturn void unwind(int kind)
{
	if (fz_sh)
		fz_sh->trapped = kind;
	if (!fz_trap_jmp) {
		fprintf(stderr, "fuzz-bridge: trap %d outside a host call\n", kind);
		abort();
	}
	longjmp(*fz_trap_jmp, 1);
}

noreturn void rt_trap_rethrow(rt_instance *inst, int kind)
{
	(void)inst;
	unwind(kind);
}

noreturn void rt_trap_host(rt_instance *inst, const char *fmt, ...)
{
	(void)inst; (void)fmt;
	unwind(RT_TRAP_HOST);
}

noreturn void rt_exit(rt_instance *inst, int status)
{
	(void)inst; (void)status;
	unwind(RT_EXIT);
}

int rt_signals_install(void)
{
	return 0;
}

/* Module functions: table 0 holds FZ_FN_GOOD (returns 0), FZ_FN_TRAP
 * (traps), FZ_FN_HOSTILE (writes a hostile value through every argument
 * that is an address in memory, returns it); FZ_FN_BADSIG is there with
 * another type (so NULL here), the rest is empty. */
static rt_func fns[FZ_FN_N][16];   /* by number of parameters (in ctx) */
static rt_func fn_malloc = { .index = 100 }, fn_free = { .index = 101 };

const rt_func *rt_table_func(rt_instance *inst, uint32_t tableidx, uint32_t idx,
                             const char *sig)
{
	(void)inst;
	if (tableidx != 0 || idx == 0 || idx >= FZ_FN_BADSIG)
		return NULL;
	size_t np = strcspn(sig, ":");
	if (np >= 16)
		return NULL;
	rt_func *f = &fns[idx][np];
	f->index = idx;
	f->ctx = (void *)(uintptr_t)np;
	return f;
}

const rt_func *rt_export_func(rt_instance *inst, const char *name, const char *sig)
{
	(void)inst;
	if (!strcmp(name, "malloc") && !strcmp(sig, "i:i"))
		return &fn_malloc;
	if (!strcmp(name, "free") && !strcmp(sig, "i:"))
		return &fn_free;
	return NULL;
}

static uint32_t do_malloc(uint32_t size)
{
	uint32_t good;
	if (size > FZ_MEM - FZ_HEAP - 16)
		return 0;
	if (bump + size + 16 > FZ_MEM)
		bump = FZ_HEAP;
	good = bump;
	bump = (bump + size + 15) & ~15u;
	switch (fz_malloc_mode) {
	case FZ_M_GOOD: return good;
	case FZ_M_NULL: return 0;
	case FZ_M_END: return FZ_MEM - 8;
	case FZ_M_PAST: return FZ_MEM;
	case FZ_M_WRAP: return 0xFFFFFFF0u;
	case FZ_M_MISALIGNED: return good + 1;
	case FZ_M_LOW: return 8;   /* overlaps whatever the module keeps there */
	}
	return good;
}

int rt_call(rt_instance *inst, const rt_func *f, const rt_value *args, rt_value *results)
{
	(void)inst;
	if (fz_sh)
		fz_sh->callbacks++;
	if (f == &fn_malloc) {
		if (fz_malloc_mode == FZ_M_TRAP)
			return RT_TRAP_UNREACHABLE;
		results[0].i32 = do_malloc(args[0].i32);
		return 0;
	}
	if (f == &fn_free)
		return 0;
	switch (f->index) {
	case FZ_FN_GOOD:
		if (results)
			results[0].i32 = 0;
		return 0;
	case FZ_FN_TRAP:
		return RT_TRAP_UNREACHABLE;
	case FZ_FN_HOSTILE:
		/* Module code reaches memory only through bounds-checked loads
		 * and stores; args are i32 (none of the callbacks take i64). */
		for (int i = 0; i < (int)(uintptr_t)f->ctx; i++) {
			uint32_t a = args[i].i32;
			if (a >= 16 && (uint64_t)a + 4 <= FZ_MEM)
				memcpy(fz_mem + a, &fz_hostile_val, 4);
		}
		fz_scribble();
		if (results)
			results[0].i32 = (uint32_t)fz_hostile_val;
		return 0;
	}
	return RT_TRAP_INDIRECT_NULL;
}

/* ---- the WASI sandbox: one granted directory, per process -------------- */

static char sandbox[64];

static int granted(const char *p)
{
	return p && (!strcmp(p, "f0") || !strcmp(p, "f1") || !strcmp(p, "./f0"));
}

static void sandbox_dir(void)
{
	if (!sandbox[0]) {
		snprintf(sandbox, sizeof sandbox, "/tmp/fuzz-bridge.%d", (int)getpid());
		mkdir(sandbox, 0700);
	}
}

char *wasi_sandbox_path(const char *p, bool w)
{
	(void)w;
	if (!granted(p)) {
		errno = EACCES;
		return NULL;
	}
	sandbox_dir();
	char *s = malloc(strlen(sandbox) + strlen(p) + 2);
	if (s)
		sprintf(s, "%s/%s", sandbox, p);
	return s;
}

int wasi_sandbox_open(const char *p, int f, mode_t m, char *o, size_t n)
{
	char path[128];
	if (!p || !strcmp(p, ".")) {
		sandbox_dir();
		snprintf(path, sizeof path, "%s", sandbox);
	} else if (!granted(p)) {
		errno = EACCES;
		return -1;
	} else {
		sandbox_dir();
		snprintf(path, sizeof path, "%s/%s", sandbox, p);
	}
	int fd = open(path, f | O_CLOEXEC, m);
	if (fd >= 0)
		snprintf(o, n, "/proc/self/fd/%d", fd);
	return fd;
}

void fz_sandbox_cleanup(void)
{
	if (sandbox[0]) {
		char p[128];
		snprintf(p, sizeof p, "%s/f0", sandbox); unlink(p);
		snprintf(p, sizeof p, "%s/f1", sandbox); unlink(p);
		rmdir(sandbox);
	}
}
