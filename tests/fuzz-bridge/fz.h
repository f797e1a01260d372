/* fz.h - what the bridge fuzzer's runtime stub (fz_rt.c) and driver
 * (fuzz_bridge.c) share. */
#ifndef FZ_H
#define FZ_H
#include <setjmp.h>
#include <stdint.h>

#define FZ_MEM   (1u << 20)           /* linear memory: 16 wasm pages */
#define FZ_HEAP  (FZ_MEM - (192u << 10)) /* the module malloc's arena */

/* Child exit statuses the parent tells apart from a report's status. */
#define FZ_EXIT_SETUP 70              /* could not set up: not a finding */
#define FZ_EXIT_ABORT 73              /* the bridge called MPI_Abort */
#define FZ_EXIT_EXPECT 74             /* a regression's call gave another result */

/* Module functions in table 0. */
enum { FZ_FN_GOOD = 1, FZ_FN_TRAP, FZ_FN_HOSTILE, FZ_FN_BADSIG, FZ_FN_N };
/* What the module's malloc returns. */
enum { FZ_M_GOOD, FZ_M_NULL, FZ_M_END, FZ_M_PAST, FZ_M_WRAP, FZ_M_MISALIGNED,
       FZ_M_LOW, FZ_M_TRAP, FZ_M_N };

#define FZ_MAXPROC 1024
/* Shared between the parent and the child running a batch. */
typedef struct fz_shared {
	volatile int in_call;         /* 1 while a bridge call runs */
	volatile int trapped;         /* trap kind of the last unwinding */
	volatile int oob;             /* a fault in the guard pages */
	volatile int abort_malloc;    /* malloc mode (+1) when the bridge aborted */
	volatile int64_t oob_off;     /* its offset from the memory base */
	volatile uint64_t callbacks;  /* module functions called */
	volatile int cur_proc;
	volatile double call_t0;      /* when the running call started */
	volatile uint64_t executions;
	volatile uint64_t traps;
	char cur_desc[8192];          /* the running call, as a reproducer */
	volatile uint32_t exec[FZ_MAXPROC];
} fz_shared;

extern uint8_t *fz_mem;
extern fz_shared *fz_sh;
extern int fz_malloc_mode, fz_hostile_val;
extern jmp_buf *fz_trap_jmp;
void fz_mem_init(void);
void fz_scribble(void);
void fz_sandbox_cleanup(void);
#endif
