#!/usr/bin/env python3
"""carried_model.py - expected values for carried.wast (the assertions
after its module: python3 carried_model.py), computed from the
WebAssembly semantics of each test function written out by hand (wrapping
i32/i64 arithmetic, lane-wise SIMD, out-of-bounds traps with the earlier
stores kept), not by running any engine.  Prints the assertions."""
import struct

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
mem = bytearray(65536)


class Trap(Exception):
    pass


def chk(a, w):
    if a + w > len(mem):
        raise Trap()


def ld(a, w):
    chk(a, w)
    return int.from_bytes(mem[a:a + w], 'little')


def st(a, w, v):
    chk(a, w)
    mem[a:a + w] = (v & ((1 << (8 * w)) - 1)).to_bytes(w, 'little')


def lanes(v, n):          # v128 as n unsigned lanes
    w = 128 // n
    return [(v >> (w * k)) & ((1 << w) - 1) for k in range(n)]


def join(ls):
    w = 128 // len(ls)
    return sum((x & ((1 << w) - 1)) << (w * k) for k, x in enumerate(ls))


def sgn(x, bits):
    return x - (1 << bits) if x >> (bits - 1) else x


def reset():
    mem[:] = bytes(65536)


def st64(a, v):
    st(a, 8, v)


def cks(lo, hi):
    h = 0xcbf29ce484222325
    while True:
        h = ((h ^ ld(lo, 8)) * 0x100000001b3) & M64
        lo = (lo + 8) & M32
        if not lo < hi:
            return h


def lcg(x):
    return (x * 6364136223846793005 + 1442695040888963407) & M64


def fill32(d, n):
    i, x = 0, 0x9e3779b97f4a7c15
    while True:
        x = lcg(x)
        st((d + i) & M32, 4, ((x >> 61) - 4) & M32)
        i = (i + 4) & M32
        if i == n:
            return


def fill64(d, n):
    i, x = 0, 0x2545f4914f6cdd1d
    while True:
        x = lcg(x)
        st((d + i) & M32, 8, ((x >> 61) - 4) & M64)
        i = (i + 8) & M32
        if i == n:
            return


def fillpat(p, n, seed):
    i = 0
    while True:
        st((p + i) & M32, 8, seed ^ (i + 0x1f40))
        i = (i + 8) & M32
        if i == n:
            return


def verify64(p, i0, n, seed):
    acc, idx = [0, 0], [0, 1]
    i = i0
    while True:
        a = (p + i) & M32
        w0 = lanes(ld(a, 16), 2)
        w1 = lanes(ld(a + 16, 16), 2)
        for k in range(2):
            t = (idx[k] << 3) & M64
            m0 = M64 if w0[k] != ((t + 0x1f40) & M64) ^ seed else 0
            m1 = M64 if w1[k] != ((t + 0x1f50) & M64) ^ seed else 0
            acc[k] = (acc[k] - m0 - m1) & M64
        idx = [(x + 4) & M64 for x in idx]
        i = (i + 32) & M32
        if i == n:
            break
    return (acc[0] + acc[1] * 1000 + idx[0] * 1000000 + idx[1] * 1000000000) & M64


CMP = {
    'eq': lambda a, b, s: a == b, 'ne': lambda a, b, s: a != b,
    'lt_s': lambda a, b, s: sgn(a, s) < sgn(b, s), 'lt_u': lambda a, b, s: a < b,
    'gt_s': lambda a, b, s: sgn(a, s) > sgn(b, s), 'gt_u': lambda a, b, s: a > b,
    'le_s': lambda a, b, s: sgn(a, s) <= sgn(b, s), 'le_u': lambda a, b, s: a <= b,
    'ge_s': lambda a, b, s: sgn(a, s) >= sgn(b, s), 'ge_u': lambda a, b, s: a >= b,
}


def shift(op, x, c, bits):
    c %= bits
    m = (1 << bits) - 1
    if op == 'shl':
        return (x << c) & m
    if op == 'shr_u':
        return x >> c
    return (sgn(x, bits) >> c) & m


def cmpN(n, ops, cop, d, a, b, cnt, s):
    bits = 128 // n
    ones = (1 << bits) - 1
    i = 0
    c = [0] * n
    while True:
        va = lanes(ld((a + i) & M32, 16), n)
        vb = lanes(ld((b + i) & M32, 16), n)
        for k, op in enumerate(ops):
            if op in CMP:
                r = [ones if CMP[op](x, y, bits) else 0 for x, y in zip(va, vb)]
            else:
                r = [shift(op, x, s, bits) for x in va]
            st(((d + i) & M32) + 0x400 * k, 16, join(r))
        c = [(c[k] - (ones if CMP[cop](va[k], vb[k], bits) else 0)) & ones for k in range(n)]
        i = (i + 16) & M32
        if i == cnt:
            break
    return c


def cmp32(d, a, b, n, s):
    c = cmpN(4, ['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'gt_u', 'le_s', 'le_u', 'ge_s', 'ge_u',
                 'shl', 'shr_s', 'shr_u'], 'lt_s', d, a, b, n, s)
    return (c[0] + c[1] * 10000 + c[2] * 100000000 + c[3] * 1000000000000) & M64


def cmp64(d, a, b, n, s):
    c = cmpN(2, ['eq', 'ne', 'lt_s', 'gt_s', 'le_s', 'ge_s', 'shl', 'shr_s', 'shr_u'],
             'ge_s', d, a, b, n, s)
    return (c[0] + c[1] * 100000) & M64


def iota32(d, n):
    v = [0, 1, 2, 3]
    i = 0
    while True:
        st((d + i) & M32, 16, join(v))
        v = [(x + 4) & M32 for x in v]
        i = (i + 16) & M32
        if i == n:
            return v[3]


def sumto0(p, n):
    acc = [0, 0]
    i = 0
    while True:
        a = (p + i) & M32
        w = lanes(ld(a, 16), 2)
        acc = [(acc[k] + w[k]) & M64 for k in range(2)]
        if ld(a, 8) == 0:
            break
        i = (i + 16) & M32
        if i == n:
            break
    return (acc[0] + acc[1] * 1000) & M64


def fillf64(d, n):
    i, x = 0, 0x6a09e667f3bcc908
    while True:
        x = lcg(x)
        st((d + i) & M32, 8, f64bits(float(sgn(x, 64) >> (x & 63))))
        i = (i + 8) & M32
        if i == n:
            return


def f64bits(f):
    return struct.unpack('<Q', struct.pack('<d', f))[0]


def f64of(b):
    return struct.unpack('<d', struct.pack('<Q', b))[0]


def dot64(a, b, n):
    acc = [0.0, 0.0]
    i = 0
    while True:
        va = lanes(ld((a + i) & M32, 16), 2)
        vb = lanes(ld((b + i) & M32, 16), 2)
        acc = [acc[k] + f64of(va[k]) * f64of(vb[k]) for k in range(2)]
        i = (i + 16) & M32
        if i == n:
            break
    return acc[0] + acc[1]


SIG = {'reset': '', 'st64': 'iI', 'cks': 'ii', 'fill32': 'ii', 'fill64': 'ii',
       'fillpat': 'iiI', 'verify64': 'iiiI', 'cmp32': 'iiiii', 'cmp64': 'iiiii',
       'iota32': 'ii', 'sumto0': 'ii', 'fillf64': 'ii', 'dot64': 'iii'}
RES = {'cks': 'I', 'verify64': 'I', 'cmp32': 'I', 'cmp64': 'I', 'iota32': 'i',
       'sumto0': 'I', 'dot64': 'D'}


def arg(t, v):
    if t == 'D':
        return '(f64.const %s)' % float(v).hex()
    return '(i32.const 0x%x)' % (v & M32) if t == 'i' else '(i64.const 0x%x)' % (v & M64)


def call(name, *a):
    s = '(invoke "%s"%s)' % (name, ''.join(' ' + arg(t, v) for t, v in zip(SIG[name], a)))
    try:
        r = globals()[name](*a)
    except Trap:
        print('(assert_trap %s "out of bounds memory access")' % s)
        return
    if name in RES:
        print('(assert_return %s %s)' % (s, arg(RES[name], r)))
    else:
        print('(assert_return %s)' % s)


SEED = 0x5a5a000000000001
print(';; verify64: no mismatch, then words changed in either lane of either half')
call('reset')
call('fillpat', 0xc000, 0x2000, SEED)
for n in (0x20, 0x40, 0x60, 0x400, 0x2000):
    call('verify64', 0xc000, 0, n, SEED)
for a, v in ((0xc000, 1), (0xc008, 2), (0xc010, 3), (0xc018, 4), (0xc1f8, 5), (0xdff8, 6),
             (0xd000, 0x5a5a000000001f40 ^ 0x1000 ^ 1)):
    call('st64', a, v)
    call('verify64', 0xc000, 0, 0x2000, SEED)
    call('verify64', 0xc000, 0, 0x1000, SEED)
call('verify64', 0xc000, 0, 0x2000, SEED ^ 0xffff)
print(';; an i that starts at i0: the pattern counts from i0 (word 0 at p + i0)')
call('reset')
call('fillpat', 0xc100, 0x1000, SEED)
call('st64', 0xc108, 9)
call('verify64', 0xc000, 0x100, 0x1100, SEED)
print(';; p + i wraps around 2^32 (the copy must not run; in bounds after the wrap)')
call('verify64', 0xfffff000, 0xd100, 0xe100, SEED)
call('verify64', 0xffffff00, 0xc200, 0xd200, SEED)
print(';; out of bounds at the end: a trap, not a count')
call('verify64', 0xc000, 0, 0x4020, SEED)
call('verify64', 0xfff0, 0, 0x40, SEED)

print(';; cmp32: all comparisons and shifts, counts 3, 35 (= 3), 31, 32 (= 0)')
for s, n in ((3, 0x400), (35, 0x400), (31, 0x10), (32, 0x3f0), (17, 0x20)):
    call('reset')
    call('fill32', 0x1000, 0x800)
    call('cmp32', 0x4000, 0x1000, 0x1400, n, s)
    call('cks', 0x4000, 0x7400)
    call('cks', 0x1000, 0x1800)
print(';; operands overlapping the results: b is the eq region')
call('reset')
call('fill32', 0x1000, 0x800)
call('cmp32', 0x4000, 0x1000, 0x4000, 0x400, 5)
call('cks', 0x4000, 0x7400)
print(';; a trap midway (the shr_u store of i = 0x100): the stores before it kept')
call('reset')
call('fill32', 0x1000, 0x800)
call('cmp32', 0xcf00, 0x1000, 0x1400, 0x400, 3)
call('cks', 0xcf00, 0x10000)

print(';; cmp64: counts 3, 67 (= 3), 63, 64 (= 0)')
for s, n in ((3, 0x400), (67, 0x400), (63, 0x10), (64, 0x3f0)):
    call('reset')
    call('fill64', 0x8000, 0x800)
    call('cmp64', 0x9000, 0x8000, 0x8400, n, s)
    call('cks', 0x9000, 0xb400)
call('reset')
call('fill64', 0x8000, 0x800)
call('cmp64', 0xd000, 0x8000, 0x8400, 0x400, 1)
call('cks', 0xd000, 0x10000)

print(';; iota32: a carried vector stored every iteration')
for n in (0x10, 0x20, 0x400, 0x1000):
    call('reset')
    call('iota32', 0x2000, n)
    call('cks', 0x2000, 0x3000)
call('reset')
call('iota32', 0xff00, 0x200)
call('cks', 0xf000, 0x10000)

print(';; sumto0: a carried sum with an early exit')
call('reset')
call('fill64', 0x8000, 0x800)
for p in (0x8000, 0x8008, 0x8100, 0x8200):
    call('sumto0', p, 0x400)
call('fill64', 0xf800, 0x800)
call('sumto0', 0xf800, 0x800)
call('st64', 0xfff0, 5)
call('st64', 0xfff8, 7)
call('sumto0', 0xffe0, 0x40)

print(';; dot64: a carried f64x2 sum, each lane in order')
call('reset')
call('fillf64', 0x1000, 0x2000)
for a, b, n in ((0x1000, 0x2000, 0x10), (0x1000, 0x2000, 0x1000), (0x1010, 0x1800, 0x800),
                (0x1008, 0x2008, 0xff0)):
    call('dot64', a, b, n)
