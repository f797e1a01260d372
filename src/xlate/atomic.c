/* atomic.c - the threads proposal's atomic instructions as C.
 *
 * Every access goes through mw_aaddr (bounds, then alignment: both trap
 * explicitly, since an unaligned access inside the memory would not
 * fault) and then a sequentially consistent __atomic builtin of the
 * access width; narrow results are zero-extended.  wait and notify call
 * the runtime (src/rt/atomic.c). */
#include <stdio.h>
#include <string.h>

#include "ext.h"

/* Width in bytes from the name: rmw8/load8/store8 -> 1, ... */
static uint32_t width(const char *name)
{
	static const char *const kw[] = { "load", "store", "rmw" };
	for (int k = 0; k < 3; k++) {
		const char *p = strstr(name, kw[k]);
		if (!p)
			continue;
		p += strlen(kw[k]);
		if (*p >= '0' && *p <= '9')
			return (uint32_t)(*p == '8' ? 1 : *p == '1' ? 2 : 4);
	}
	return name[1] == '3' ? 4 : 8;
}

int xlate_atomic_emit(const wasm_instr *in, const char *const *a, const char *r,
                      uint32_t fi, char *buf, size_t len)
{
	const wasm_opinfo *oi = wasm_opinfo_get(in->op);
	if (!oi || in->op >> 16 != 0xFE) {
		snprintf(buf, len, "xlate_atomic_emit: opcode 0x%x is not an atomic instruction", in->op);
		return -1;
	}
	const char *name = oi->name;
	if (in->op == WASM_PREFIXED(0xFE, 0x03)) {
		snprintf(buf, len, "__atomic_thread_fence(__ATOMIC_SEQ_CST);");
		return 0;
	}
	uint32_t mem = in->u.mem.mem, off = in->u.mem.offset;
	char ea[80];
	snprintf(ea, sizeof ea, "(uint64_t)%s + %uu", a[0], off);
	if (!strcmp(name, "memory.atomic.notify")) {
		snprintf(buf, len, "%s = rt_atomic_notify(inst->mems[%u], %s, %s, %uu);",
		         r, mem, ea, a[1], fi);
		return 0;
	}
	if (!strcmp(name, "memory.atomic.wait32") || !strcmp(name, "memory.atomic.wait64")) {
		snprintf(buf, len, "%s = rt_atomic_wait%s(inst->mems[%u], %s, %s, (int64_t)%s, %uu);",
		         r, name + 18, mem, ea, a[1], a[2], fi);
		return 0;
	}
	uint32_t w = width(name);
	const char *T = w == 1 ? "uint8_t" : w == 2 ? "uint16_t" : w == 4 ? "uint32_t" : "uint64_t";
	const char *R = name[1] == '3' ? "uint32_t" : "uint64_t";
	char p[160];
	snprintf(p, sizeof p, "(%s *)mw_aaddr(inst->mems[%u], %s, %u, %uu)", T, mem, ea, w, fi);
	if (strstr(name, ".atomic.load")) {
		snprintf(buf, len, "%s = (%s)__atomic_load_n(%s, __ATOMIC_SEQ_CST);", r, R, p);
		return 0;
	}
	if (strstr(name, ".atomic.store")) {
		snprintf(buf, len, "__atomic_store_n(%s, (%s)%s, __ATOMIC_SEQ_CST);", p, T, a[1]);
		return 0;
	}
	static const struct { const char *op, *fn; } rmw[] = {
		{ ".add", "__atomic_fetch_add" }, { ".sub", "__atomic_fetch_sub" },
		{ ".and", "__atomic_fetch_and" }, { ".or", "__atomic_fetch_or" },
		{ ".xor", "__atomic_fetch_xor" }, { ".xchg", "__atomic_exchange_n" },
	};
	if (strstr(name, ".cmpxchg")) {
		/* the expected value is wrapped to the access width */
		snprintf(buf, len, "{ %s e_ = (%s)%s; __atomic_compare_exchange_n(%s, &e_, (%s)%s, 0, "
		         "__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); %s = (%s)e_; }",
		         T, T, a[1], p, T, a[2], r, R);
		return 0;
	}
	for (size_t k = 0; k < sizeof rmw / sizeof rmw[0]; k++) {
		const char *q = strstr(name, rmw[k].op);
		size_t n = strlen(rmw[k].op);
		if (q && (q[n] == 0 || q[n] == '_')) {
			snprintf(buf, len, "%s = (%s)%s(%s, (%s)%s, __ATOMIC_SEQ_CST);", r, R,
			         rmw[k].fn, p, T, a[1]);
			return 0;
		}
	}
	snprintf(buf, len, "xlate_atomic_emit: %s has no translation", name);
	return -1;
}
