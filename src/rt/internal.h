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


#endif
