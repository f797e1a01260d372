/* simd.c - fixed-width SIMD (v128) instructions as C.
 *
 * Every instruction becomes a call of an always-inline function of the
 * SIMD prelude named after it (i8x16.add_sat_s -> mw_i8x16_add_sat_s), so
 * the lane semantics live in one place, written with vector extensions;
 * only constants, shuffles and memory operands are spelled out here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "../rt/rt.h"
#include "simd_prelude.h"

/* The atomic helpers, with the trap kinds of rt.h filled in. */
static const char xlate_atomic_prelude_fmt[] =
"#define MW_K_OOB %d\n"
"#define MW_K_UNALIGNED %d\n"
"extern uint32_t rt_atomic_notify(struct mw_memory *, uint64_t, uint32_t, uint32_t);\n"
"extern uint32_t rt_atomic_wait32(struct mw_memory *, uint64_t, uint32_t, int64_t, uint32_t);\n"
"extern uint32_t rt_atomic_wait64(struct mw_memory *, uint64_t, uint64_t, int64_t, uint32_t);\n"
/* bounds first, then alignment: the trap the spec names for both */
"static inline void *mw_aaddr(struct mw_memory *mm, uint64_t ea, uint32_t n, uint32_t f) {\n"
"  if (MW_UNLIKELY(ea + n > __atomic_load_n(&mm->pages, __ATOMIC_RELAXED) * 65536u)) rt_trap(MW_K_OOB, f);\n"
"  if (MW_UNLIKELY(ea & (n - 1))) rt_trap(MW_K_UNALIGNED, f);\n"
"  return mm->base + ea;\n"
"}\n";

char *xlate_ext_prelude(bool simd, bool threads)
{
	size_t n = (simd ? sizeof xlate_simd_prelude : 0) +
	           (threads ? sizeof xlate_atomic_prelude_fmt + 32 : 0) + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	size_t at = 0;
	s[0] = 0;
	if (simd) {
		memcpy(s, xlate_simd_prelude, sizeof xlate_simd_prelude);
		at = sizeof xlate_simd_prelude - 1;
	}
	if (threads)
		snprintf(s + at, n - at, xlate_atomic_prelude_fmt, RT_TRAP_MEM_OOB,
		         RT_TRAP_UNALIGNED);
	return s;
}

/* "mw_" + the instruction's name with dots as underscores. */
static void fn_name(const char *name, char *out, size_t len)
{
	snprintf(out, len, "mw_%s", name);
	for (char *p = out; *p; p++)
		if (*p == '.')
			*p = '_';
}

/* Bytes a SIMD load or store touches (its name's width; 8x8 etc. read 8). */
static uint32_t access_bytes(const char *name)
{
	const char *p = strstr(name, "load");
	if (!p)
		p = strstr(name, "store");
	p += p[0] == 'l' ? 4 : 5;
	if (*p < '0' || *p > '9')
		return 16;
	char *e;
	unsigned long n = strtoul(p, &e, 10);
	return *e == 'x' ? 8 : (uint32_t)(n / 8);
}

int xlate_simd_emit(const wasm_instr *in, const char *const *a, const char *r,
                    uint32_t fi, bool dropped, char *buf, size_t len)
{
	const wasm_opinfo *oi = wasm_opinfo_get(in->op);
	char fn[64];
	if (!oi || in->op >> 16 != 0xFD) {
		snprintf(buf, len, "xlate_simd_emit: opcode 0x%x is not a SIMD instruction", in->op);
		return -1;
	}
	fn_name(oi->name, fn, sizeof fn);
	(void)fi;
	switch (oi->imm) {
	case IMM_V128: {
		uint64_t lo, hi;
		memcpy(&lo, in->u.v128, 8);
		memcpy(&hi, in->u.v128 + 8, 8);
		snprintf(buf, len, "%s = mw_v128_of(0x%llxull, 0x%llxull);", r,
		         (unsigned long long)lo, (unsigned long long)hi);
		return 0;
	}
	case IMM_SHUFFLE: {
		int n = snprintf(buf, len, "%s = MW_SHUFFLE(%s, %s", r, a[0], a[1]);
		for (int k = 0; k < 16 && n > 0 && (size_t)n < len; k++)
			n += snprintf(buf + n, len - (size_t)n, ", %u", in->u.lanes[k]);
		if (n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, ");");
		return 0;
	}
	case IMM_LANE:
		/* A float taken out of a vector the C compiler can know (a
		 * v128.const, say) is a float source like a scalar constant:
		 * hide it (float_source in xlate.c). */
		if (oi->sig[1] == ':' && (oi->sig[2] == 'f' || oi->sig[2] == 'F'))
			snprintf(buf, len, "%s = %s(%s, %u); MW_OPAQUE(%s);", r, fn, a[0],
			         in->u.lane, r);
		else if (oi->sig[1] == ':')
			snprintf(buf, len, "%s = %s(%s, %u);", r, fn, a[0], in->u.lane);
		else
			snprintf(buf, len, "%s = %s(%s, %s, %u);", r, fn, a[0], a[1], in->u.lane);
		return 0;
	case IMM_MEM: case IMM_MEMLANE: {
		uint32_t mem = in->u.mem.mem, off = in->u.mem.offset;
		bool store = r == NULL;
		char addr[80];
		snprintf(addr, sizeof addr, "(uint64_t)%s + %uu", a[0], off);
		if (!store && dropped) {
			/* the C compiler would delete an unused load, and its trap */
			snprintf(buf, len, "mw_touch(m%u, %s + %uu);", mem, addr,
			         access_bytes(oi->name) - 1);
			return 0;
		}
		if (oi->imm == IMM_MEMLANE) {
			if (store)
				snprintf(buf, len, "%s(m%u, %s, %s, %u);", fn, mem, addr, a[1],
				         in->u.mem.lane);
			else
				snprintf(buf, len, "%s = %s(m%u, %s, %s, %u);", r, fn, mem, addr,
				         a[1], in->u.mem.lane);
		} else if (store) {
			snprintf(buf, len, "%s(m%u, %s, %s);", fn, mem, addr, a[1]);
		} else {
			snprintf(buf, len, "%s = %s(m%u, %s);", r, fn, mem, addr);
		}
		return 0;
	}
	case IMM_NONE: {
		const char *colon = strchr(oi->sig, ':');
		int npop = (int)(colon - oi->sig), n;
		n = snprintf(buf, len, "%s%s%s(", r ? r : "", r ? " = " : "", fn);
		for (int k = 0; k < npop && n > 0 && (size_t)n < len; k++)
			n += snprintf(buf + n, len - (size_t)n, "%s%s", k ? ", " : "", a[k]);
		if (n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, ");");
		return 0;
	}
	default:
		snprintf(buf, len, "xlate_simd_emit: immediate kind %u of %s", oi->imm, oi->name);
		return -1;
	}
}
