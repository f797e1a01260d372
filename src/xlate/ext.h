/* ext.h - private to src/xlate: the SIMD (simd.c) and atomic (atomic.c)
 * instructions, called by xlate.c for every 0xFD and 0xFE opcode. */
#ifndef MPIWASM_XLATE_EXT_H
#define MPIWASM_XLATE_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../wasm/wasm.h"

/* The C text a unit of this module needs after prelude.h's (SIMD types
 * and helpers, atomic helpers): malloc'd, NULL when out of memory. */
char *xlate_ext_prelude(bool simd, bool threads);

/* Writes the C statement of one 0xFD or 0xFE instruction into buf.
 * a: operand slot names, deepest first (as many as the signature pops);
 * r: the result slot, NULL when it pushes nothing; fi: function index
 * for traps; dropped: the next instruction drops the result (a load must
 * still trap).  Returns 0, or -1 with a message in buf. */
int xlate_simd_emit(const wasm_instr *in, const char *const *a, const char *r,
                    uint32_t fi, bool dropped, char *buf, size_t len);
int xlate_atomic_emit(const wasm_instr *in, const char *const *a, const char *r,
                      uint32_t fi, char *buf, size_t len);

#endif
