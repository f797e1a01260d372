/* internal.h - shared between the files of src/rt only. */
#ifndef MPIWASM_RT_INTERNAL_H
#define MPIWASM_RT_INTERNAL_H

#include "rt.h"

/* 'i' 'I' 'f' 'F' 'V' 'r' 'e' for a value type. */
char rt_type_char(uint8_t t);

/* Fault-handler queries (async-signal-safe). */
bool rt_mem_reserved(uintptr_t addr);

/* Function index whose code contains pc, or UINT32_MAX. */
uint32_t rt_func_at_pc(const rt_instance *inst, uintptr_t pc);

/* eh.c: a guarded call starts with an empty handler chain (rt_eh_enter
 * returns the caller's, which rt_eh_leave puts back, also after a trap). */
rt_ehframe *rt_eh_enter(void);
void rt_eh_leave(rt_ehframe *saved);

/* trap.c: a trap of `kind` with a message (RT_TRAP_EXCEPTION). */
noreturn void rt_trap_msg(int kind, uint32_t func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
