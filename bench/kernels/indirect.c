/* indirect - a bytecode-style dispatch loop: every step calls one of
 * NOPS small functions through a table of function pointers, chosen by a
 * pseudo-random program, so the call targets are not predictable from
 * the source (in wasm: call_indirect with its table and type checks). */
#include "bench.h"

#define NOPS 16
#define PROG 4096
#define STEPS 20000000

typedef uint32_t (*op_fn)(uint32_t acc, uint32_t arg);

static uint32_t op_add(uint32_t a, uint32_t b) { return a + b; }
static uint32_t op_sub(uint32_t a, uint32_t b) { return a - b; }
static uint32_t op_xor(uint32_t a, uint32_t b) { return a ^ b; }
static uint32_t op_mul(uint32_t a, uint32_t b) { return a * (b | 1); }
static uint32_t op_rol(uint32_t a, uint32_t b) { b &= 31; return (a << b) | (a >> ((32 - b) & 31)); }
static uint32_t op_shr(uint32_t a, uint32_t b) { return a ^ (a >> (b & 15)); }
static uint32_t op_and(uint32_t a, uint32_t b) { return (a & b) + 7; }
static uint32_t op_or(uint32_t a, uint32_t b) { return (a | b) - b; }
static uint32_t op_neg(uint32_t a, uint32_t b) { return b - a; }
static uint32_t op_min(uint32_t a, uint32_t b) { return a < b ? a + 1 : b ^ a; }
static uint32_t op_div(uint32_t a, uint32_t b) { return a / (b | 1) + a; }
static uint32_t op_rem(uint32_t a, uint32_t b) { return a % (b | 3) + (a >> 1); }
static uint32_t op_sq(uint32_t a, uint32_t b) { return a * a + b; }
static uint32_t op_inc(uint32_t a, uint32_t b) { (void)b; return a + 1; }
static uint32_t op_hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32) + a; }
static uint32_t op_mix(uint32_t a, uint32_t b) { return (a ^ 0x9e3779b9u) * 0x85ebca6bu + b; }

static op_fn table[NOPS] = {
	op_add, op_sub, op_xor, op_mul, op_rol, op_shr, op_and, op_or,
	op_neg, op_min, op_div, op_rem, op_sq, op_inc, op_hi, op_mix,
};

/* Returns the sum of the accumulator over all steps, so that every step
 * counts in the checksum. */
BENCH_HOT static uint64_t run(const uint8_t *prog, const uint32_t *args, int steps)
{
	uint32_t acc = 1;
	uint64_t sum = 0;
	for (int i = 0; i < steps; i++) {
		int pc = i & (PROG - 1);
		acc = table[prog[pc]](acc, args[pc]);
		sum += acc;
	}
	return sum;
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 6);
	static uint8_t prog[PROG];
	static uint32_t args[PROG];
	uint64_t s = 42;
	for (int i = 0; i < PROG; i++) {
		prog[i] = (uint8_t)(bench_rand(&s) % NOPS);
		args[i] = bench_rand(&s);
	}
	uint64_t v = 0;
	bench_timer tm = BENCH_TIMER_INIT;
	for (int r = 0; r < reps; r++) {
		bench_start(&tm);
		v = run(prog, args, STEPS);
		bench_stop(&tm);
	}
	bench_report("indirect", &tm, bench_hash(BENCH_HASH_INIT, v), (double)v);
	return 0;
}
