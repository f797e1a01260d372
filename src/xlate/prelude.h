/* prelude.h - the C text emitted at the top of every generated unit.
 *
 * Private to src/xlate.  It mirrors the generated-code ABI of src/rt/rt.h
 * (rt_value, rt_func, rt_memory, rt_table, rt_global, the head of
 * rt_instance, rt_code) and defines the small inline helpers the
 * translated instructions use.  Trap kinds are substituted by xlate.c from
 * enum rt_trapkind so the two cannot drift. */
#ifndef MPIWASM_XLATE_PRELUDE_H
#define MPIWASM_XLATE_PRELUDE_H

static const char xlate_prelude[] =
"#include <stdint.h>\n"
"#include <string.h>\n"
"typedef union mw_value { uint32_t i32; uint64_t i64; float f32; double f64;"
" void *ref; uint8_t v128[16]; } mw_value;\n"
"struct mw_func;\n"
"typedef void (*mw_invoke_fn)(const struct mw_func *, const mw_value *, mw_value *);\n"
"struct mw_func { const void *type; void *fn; void *ctx; mw_invoke_fn invoke; uint32_t index; };\n"
"struct mw_memory { uint8_t *base; uint64_t pages, max_pages; _Bool shared; };\n"
"struct mw_tabent { uint64_t key; void *fn; void *ctx; void *ref; };\n"
"struct mw_table { struct mw_tabent *elems; uint32_t size, max; uint8_t type; };\n"
"struct mw_global { mw_value v; uint8_t type; _Bool mut; };\n"
"struct mw_inst { struct mw_memory **mems; struct mw_table **tables;"
" struct mw_global **globals; struct mw_func *funcs; const void **types; };\n"
"struct mw_code { uint32_t abi, ntypes, nfuncs, nfunc_imports; const char *version;"
" const mw_invoke_fn *invokes; void *const *funcs; };\n"
"#define MW_HIDDEN __attribute__((visibility(\"hidden\")))\n"
"#define MW_UNLIKELY(x) __builtin_expect(!!(x), 0)\n"
"#define MW_LIKELY(x) __builtin_expect(!!(x), 1)\n"
/* a dispatch array's entry (xlate.c, "spec") */
"struct mw_spe { void *fn; uint32_t i; };\n"
/* Makes the compiler forget a float value (see float_source in xlate.c):
 * an empty asm, no instruction; not needed by gcc. */
"#if defined(__GNUC__) && !defined(__clang__)\n"
"#define MW_OPAQUE(v) ((void)0)\n"
"#elif defined(__x86_64__) || defined(__i386__)\n"
"#define MW_OPAQUE(v) __asm__(\"\" : \"+x\"(v))\n"
"#elif defined(__aarch64__)\n"
"#define MW_OPAQUE(v) __asm__(\"\" : \"+w\"(v))\n"
"#else\n"
"#define MW_OPAQUE(v) __asm__(\"\" : \"+m\"(v))\n"
"#endif\n"
/* Vectorizing a loop runs several iterations' accesses at once, so when
 * one of them traps, stores of earlier iterations may be missing (or later
 * ones present): WebAssembly requires exactly the stores before the trap.
 * So no loop as the module wrote it is vectorized: MW_NOVEC, an empty asm
 * at its head, stops both gcc's and clang's loop vectorizers (and emits no
 * instruction), and XLATE_CFLAGS turn straight-line (SLP) vectorization off.
 * Only a versioned loop's fast copy (loop.c), which runs when no access
 * can trap, is left to the vectorizer: on the function that holds one,
 * MW_VEC lets gcc vectorize with runtime alias checks, as -O3 would (clang
 * does at -O2). */
"#define MW_NOVEC __asm__(\"\")\n"
"#if defined(__GNUC__) && !defined(__clang__)\n"
"#define MW_VEC __attribute__((optimize(\"tree-loop-vectorize\", \"vect-cost-model=dynamic\")))\n"
"#else\n"
"#define MW_VEC\n"
"#endif\n"
/* src/cache compiles with vectors of at most 256 bits on x86 (512-bit ones
 * slow down streaming loops on AVX-512 hosts); a function whose fast copy
 * reads one array at offsets further apart than a step (a stencil: the
 * lines it loads are read again) gets the full width back with MW_WIDE
 * (xlate.c, plan_rereads). */
"#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)\n"
"#define MW_WIDE __attribute__((target(\"prefer-vector-width=512\")))\n"
"#else\n"
"#define MW_WIDE\n"
"#endif\n"
"extern _Noreturn void rt_trap(int kind, uint32_t func);\n"
"extern uint32_t rt_memory_grow(struct mw_memory *, uint32_t);\n"
"extern void rt_memory_init(struct mw_inst *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);\n"
"extern void rt_data_drop(struct mw_inst *, uint32_t);\n"
"extern void rt_table_init(struct mw_inst *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);\n"
"extern void rt_elem_drop(struct mw_inst *, uint32_t);\n"
"extern void rt_table_copy(struct mw_inst *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);\n"
"extern void rt_table_fill(struct mw_inst *, uint32_t, uint32_t, void *, uint32_t, uint32_t);\n"
"extern uint32_t rt_table_grow(struct mw_table *, void *, uint32_t);\n"
"extern void rt_table_set(struct mw_table *, uint32_t, void *);\n"
/* memory; MW_MEMI is always_inline in tier 0 (xlate.c, tier0), where -O0
 * would otherwise call the helper and a fault's address would name it */
"#ifndef MW_MEMI\n"
"#define MW_MEMI\n"
"#endif\n"
"#define MW_LD(name, T) static inline MW_MEMI T name(const uint8_t *m, uint64_t a)"
" { T v; __builtin_memcpy(&v, m + a, sizeof v); return v; }\n"
"#define MW_ST(name, T) static inline MW_MEMI void name(uint8_t *m, uint64_t a, T v)"
" { __builtin_memcpy(m + a, &v, sizeof v); }\n"
"MW_LD(mw_ld_u8, uint8_t) MW_LD(mw_ld_u16, uint16_t) MW_LD(mw_ld_u32, uint32_t)\n"
"MW_LD(mw_ld_u64, uint64_t) MW_LD(mw_ld_f32, float) MW_LD(mw_ld_f64, double)\n"
"MW_ST(mw_st_u8, uint8_t) MW_ST(mw_st_u16, uint16_t) MW_ST(mw_st_u32, uint32_t)\n"
"MW_ST(mw_st_u64, uint64_t) MW_ST(mw_st_f32, float) MW_ST(mw_st_f64, double)\n"
/* A load whose value is dropped must still trap: touch its last byte
 * (memory is accessible exactly below its size, so that is enough). */
"static inline MW_MEMI void mw_touch(const uint8_t *m, uint64_t a) { (void)*(volatile const uint8_t *)(m + a); }\n"
"static inline void mw_memory_fill(struct mw_memory *mm, uint32_t d, uint32_t v, uint32_t n, uint32_t f) {\n"
"  if (MW_UNLIKELY((uint64_t)d + n > mm->pages * 65536u)) rt_trap(@MEM_OOB@, f);\n"
"  __builtin_memset(mm->base + d, (int)(v & 0xff), n);\n"
"}\n"
"static inline void mw_memory_copy(struct mw_memory *md, struct mw_memory *ms, uint32_t d, uint32_t s, uint32_t n, uint32_t f) {\n"
"  if (MW_UNLIKELY((uint64_t)d + n > md->pages * 65536u || (uint64_t)s + n > ms->pages * 65536u)) rt_trap(@MEM_OOB@, f);\n"
"  __builtin_memmove(md->base + d, ms->base + s, n);\n"
"}\n"
/* A fast copy's range check (loop.c): end against the memory's size as
 * this function last read it, *mz, read again only when end is past it.
 * A memory never shrinks, so a stale size can only send a loop to its
 * exact copy, never let one run past the end; and the size stays in a
 * register across the loop's stores, which gcc must otherwise assume may
 * write mm->pages (they store through uint8_t). */
"static inline _Bool mw_fits(uint64_t *mz, const struct mw_memory *mm, int64_t end) {\n"
"  if (MW_LIKELY(end <= (int64_t)*mz)) return 1;\n"
"  *mz = mm->pages << 16;\n"
"  return end <= (int64_t)*mz;\n"
"}\n"
/* tables */
/* call_indirect: el/n are the table's elems and size (constants for a
 * table that cannot grow), key the expected type's key (rt.h, "Tables"):
 * one compare covers null (key 0) and type mismatch. */
"static inline const struct mw_tabent *mw_callee(const struct mw_tabent *el, uint32_t n, uint64_t key, uint32_t i, uint32_t f) {\n"
"  if (MW_UNLIKELY(i >= n)) rt_trap(@TABLE_OOB@, f);\n"
"  const struct mw_tabent *e = &el[i];\n"
"  if (MW_UNLIKELY(e->key != key)) rt_trap(e->key ? @INDIRECT_TYPE@ : @INDIRECT_NULL@, f);\n"
"  return e;\n"
"}\n"
"static inline void *mw_table_get(struct mw_table *tb, uint32_t i, uint32_t f) {\n"
"  if (MW_UNLIKELY(i >= tb->size)) rt_trap(@TABLE_OOB@, f);\n"
"  return tb->elems[i].ref;\n"
"}\n"
"static inline void mw_table_set(struct mw_table *tb, uint32_t i, void *v, uint32_t f) {\n"
"  if (MW_UNLIKELY(i >= tb->size)) rt_trap(@TABLE_OOB@, f);\n"
"  rt_table_set(tb, i, v);\n"
"}\n"
/* integers */
"static inline uint32_t mw_clz32(uint32_t a) { return a ? (uint32_t)__builtin_clz(a) : 32u; }\n"
"static inline uint32_t mw_ctz32(uint32_t a) { return a ? (uint32_t)__builtin_ctz(a) : 32u; }\n"
"static inline uint64_t mw_clz64(uint64_t a) { return a ? (uint64_t)__builtin_clzll(a) : 64u; }\n"
"static inline uint64_t mw_ctz64(uint64_t a) { return a ? (uint64_t)__builtin_ctzll(a) : 64u; }\n"
"static inline uint32_t mw_rotl32(uint32_t a, uint32_t b) { b &= 31; return (a << b) | (a >> ((32 - b) & 31)); }\n"
"static inline uint32_t mw_rotr32(uint32_t a, uint32_t b) { b &= 31; return (a >> b) | (a << ((32 - b) & 31)); }\n"
"static inline uint64_t mw_rotl64(uint64_t a, uint64_t b) { b &= 63; return (a << b) | (a >> ((64 - b) & 63)); }\n"
"static inline uint64_t mw_rotr64(uint64_t a, uint64_t b) { b &= 63; return (a >> b) | (a << ((64 - b) & 63)); }\n"
"static inline uint32_t mw_div_s32(uint32_t a, uint32_t b, uint32_t f) {\n"
"  if (MW_UNLIKELY(b == 0)) rt_trap(@DIV_ZERO@, f);\n"
"  if (MW_UNLIKELY(a == 0x80000000u && b == 0xffffffffu)) rt_trap(@INT_OVERFLOW@, f);\n"
"  return (uint32_t)((int32_t)a / (int32_t)b);\n"
"}\n"
"static inline uint32_t mw_rem_s32(uint32_t a, uint32_t b, uint32_t f) {\n"
"  if (MW_UNLIKELY(b == 0)) rt_trap(@DIV_ZERO@, f);\n"
"  if (b == 0xffffffffu) return 0;\n"
"  return (uint32_t)((int32_t)a % (int32_t)b);\n"
"}\n"
"static inline uint32_t mw_div_u32(uint32_t a, uint32_t b, uint32_t f) {\n"
"  if (MW_UNLIKELY(b == 0)) rt_trap(@DIV_ZERO@, f);\n"
"  return a / b;\n"
"}\n"
"static inline uint32_t mw_rem_u32(uint32_t a, uint32_t b, uint32_t f) {\n"
"  if (MW_UNLIKELY(b == 0)) rt_trap(@DIV_ZERO@, f);\n"
"  return a % b;\n"
"}\n"
"static inline uint64_t mw_div_s64(uint64_t a, uint64_t b, uint32_t f) {\n"
"  if (MW_UNLIKELY(b == 0)) rt_trap(@DIV_ZERO@, f);\n"
"  if (MW_UNLIKELY(a == 0x8000000000000000ull && b == ~0ull)) rt_trap(@INT_OVERFLOW@, f);\n"
"  return (uint64_t)((int64_t)a / (int64_t)b);\n"
"}\n"
"static inline uint64_t mw_rem_s64(uint64_t a, uint64_t b, uint32_t f) {\n"
"  if (MW_UNLIKELY(b == 0)) rt_trap(@DIV_ZERO@, f);\n"
"  if (b == ~0ull) return 0;\n"
"  return (uint64_t)((int64_t)a % (int64_t)b);\n"
"}\n"
"static inline uint64_t mw_div_u64(uint64_t a, uint64_t b, uint32_t f) {\n"
"  if (MW_UNLIKELY(b == 0)) rt_trap(@DIV_ZERO@, f);\n"
"  return a / b;\n"
"}\n"
"static inline uint64_t mw_rem_u64(uint64_t a, uint64_t b, uint32_t f) {\n"
"  if (MW_UNLIKELY(b == 0)) rt_trap(@DIV_ZERO@, f);\n"
"  return a % b;\n"
"}\n"
/* floats: bit-exact WebAssembly semantics */
"static inline uint32_t mw_f32_bits(float x) { uint32_t u; __builtin_memcpy(&u, &x, 4); return u; }\n"
"static inline uint64_t mw_f64_bits(double x) { uint64_t u; __builtin_memcpy(&u, &x, 8); return u; }\n"
"static inline float mw_f32_of(uint32_t u) { float x; __builtin_memcpy(&x, &u, 4); return x; }\n"
"static inline double mw_f64_of(uint64_t u) { double x; __builtin_memcpy(&x, &u, 8); return x; }\n"
"static inline float mw_f32_abs(float x) { return mw_f32_of(mw_f32_bits(x) & 0x7fffffffu); }\n"
"static inline float mw_f32_neg(float x) { return mw_f32_of(mw_f32_bits(x) ^ 0x80000000u); }\n"
"static inline float mw_f32_copysign(float a, float b) {\n"
"  return mw_f32_of((mw_f32_bits(a) & 0x7fffffffu) | (mw_f32_bits(b) & 0x80000000u));\n"
"}\n"
"static inline double mw_f64_abs(double x) { return mw_f64_of(mw_f64_bits(x) & 0x7fffffffffffffffull); }\n"
"static inline double mw_f64_neg(double x) { return mw_f64_of(mw_f64_bits(x) ^ 0x8000000000000000ull); }\n"
"static inline double mw_f64_copysign(double a, double b) {\n"
"  return mw_f64_of((mw_f64_bits(a) & 0x7fffffffffffffffull) | (mw_f64_bits(b) & 0x8000000000000000ull));\n"
"}\n"
/* gcc folds demote(promote(x)) to x even with -fsignaling-nans: quiet
 * the NaN explicitly (one compare, off the fast path). */
"static inline float mw_demote(double d) {\n"
"  float f = (float)d;\n"
"  if (MW_UNLIKELY(f != f)) f = mw_f32_of(mw_f32_bits(f) | 0x00400000u);\n"
"  return f;\n"
"}\n"
"static inline double mw_promote(float f) {\n"
"  double d = (double)f;\n"
"  if (MW_UNLIKELY(d != d)) d = mw_f64_of(mw_f64_bits(d) | 0x0008000000000000ull);\n"
"  return d;\n"
"}\n"
"static inline float mw_f32_min(float a, float b) {\n"
"  if (a != a || b != b) return a + b;\n"
"  if (a == b) return mw_f32_of(mw_f32_bits(a) | mw_f32_bits(b));\n"
"  return a < b ? a : b;\n"
"}\n"
"static inline float mw_f32_max(float a, float b) {\n"
"  if (a != a || b != b) return a + b;\n"
"  if (a == b) return mw_f32_of(mw_f32_bits(a) & mw_f32_bits(b));\n"
"  return a > b ? a : b;\n"
"}\n"
"static inline double mw_f64_min(double a, double b) {\n"
"  if (a != a || b != b) return a + b;\n"
"  if (a == b) return mw_f64_of(mw_f64_bits(a) | mw_f64_bits(b));\n"
"  return a < b ? a : b;\n"
"}\n"
"static inline double mw_f64_max(double a, double b) {\n"
"  if (a != a || b != b) return a + b;\n"
"  if (a == b) return mw_f64_of(mw_f64_bits(a) & mw_f64_bits(b));\n"
"  return a > b ? a : b;\n"
"}\n"
/* float -> int: NaN is an invalid conversion, out of range an overflow */
"#define MW_TRUNC(name, FT, IT, ST, LO, HI) \\\n"
"static inline IT name(FT x, uint32_t f) { \\\n"
"  if (MW_UNLIKELY(x != x)) rt_trap(@INVALID_CONV@, f); \\\n"
"  if (MW_UNLIKELY(!(LO && x < HI))) rt_trap(@INT_OVERFLOW@, f); \\\n"
"  return (IT)(ST)x; }\n"
"#define MW_TRUNC_SAT(name, FT, IT, ST, LO, HI, MINV, MAXV) \\\n"
"static inline IT name(FT x) { \\\n"
"  if (x != x) return 0; \\\n"
"  if (!(LO)) return MINV; \\\n"
"  if (!(x < HI)) return MAXV; \\\n"
"  return (IT)(ST)x; }\n"
"MW_TRUNC(mw_i32_trunc_f32_s, float, uint32_t, int32_t, x >= -2147483648.0f, 2147483648.0f)\n"
"MW_TRUNC(mw_i32_trunc_f32_u, float, uint32_t, uint32_t, x > -1.0f, 4294967296.0f)\n"
"MW_TRUNC(mw_i32_trunc_f64_s, double, uint32_t, int32_t, x > -2147483649.0, 2147483648.0)\n"
"MW_TRUNC(mw_i32_trunc_f64_u, double, uint32_t, uint32_t, x > -1.0, 4294967296.0)\n"
"MW_TRUNC(mw_i64_trunc_f32_s, float, uint64_t, int64_t, x >= -9223372036854775808.0f, 9223372036854775808.0f)\n"
"MW_TRUNC(mw_i64_trunc_f32_u, float, uint64_t, uint64_t, x > -1.0f, 18446744073709551616.0f)\n"
"MW_TRUNC(mw_i64_trunc_f64_s, double, uint64_t, int64_t, x >= -9223372036854775808.0, 9223372036854775808.0)\n"
"MW_TRUNC(mw_i64_trunc_f64_u, double, uint64_t, uint64_t, x > -1.0, 18446744073709551616.0)\n"
"MW_TRUNC_SAT(mw_i32_trunc_sat_f32_s, float, uint32_t, int32_t, x >= -2147483648.0f, 2147483648.0f, 0x80000000u, 0x7fffffffu)\n"
"MW_TRUNC_SAT(mw_i32_trunc_sat_f32_u, float, uint32_t, uint32_t, x > -1.0f, 4294967296.0f, 0u, 0xffffffffu)\n"
"MW_TRUNC_SAT(mw_i32_trunc_sat_f64_s, double, uint32_t, int32_t, x > -2147483649.0, 2147483648.0, 0x80000000u, 0x7fffffffu)\n"
"MW_TRUNC_SAT(mw_i32_trunc_sat_f64_u, double, uint32_t, uint32_t, x > -1.0, 4294967296.0, 0u, 0xffffffffu)\n"
"MW_TRUNC_SAT(mw_i64_trunc_sat_f32_s, float, uint64_t, int64_t, x >= -9223372036854775808.0f, 9223372036854775808.0f, 0x8000000000000000ull, 0x7fffffffffffffffull)\n"
"MW_TRUNC_SAT(mw_i64_trunc_sat_f32_u, float, uint64_t, uint64_t, x > -1.0f, 18446744073709551616.0f, 0ull, ~0ull)\n"
"MW_TRUNC_SAT(mw_i64_trunc_sat_f64_s, double, uint64_t, int64_t, x >= -9223372036854775808.0, 9223372036854775808.0, 0x8000000000000000ull, 0x7fffffffffffffffull)\n"
"MW_TRUNC_SAT(mw_i64_trunc_sat_f64_u, double, uint64_t, uint64_t, x > -1.0, 18446744073709551616.0, 0ull, ~0ull)\n";

/* Exception handling (rt.h: rt_exn, rt_ehframe, rt_eh), only in the units
 * of a module that uses it, after a #define of MW_EH_MAXVALS.
 * mw_eh_throw may not be inlined: __builtin_longjmp must not be in the
 * function that holds the __builtin_setjmp. */
static const char xlate_eh_prelude[] =
"struct mw_exn { const void *inst; uint32_t tag, func; mw_value vals[MW_EH_MAXVALS]; };\n"
"struct mw_ehframe { struct mw_ehframe *prev; void *jb[5]; };\n"
"struct mw_eh { struct mw_ehframe *top; struct mw_exn exn; };\n"
"extern __thread struct mw_eh rt_eh_tls __attribute__((tls_model(\"initial-exec\")));\n"
"extern _Noreturn void rt_eh_uncaught(struct mw_eh *);\n"
"__attribute__((noinline)) static _Noreturn void mw_eh_throw(struct mw_eh *eh) {\n"
"  if (MW_UNLIKELY(!eh->top)) rt_eh_uncaught(eh);\n"
"  __builtin_longjmp(eh->top->jb, 1);\n"
"}\n";

#endif
