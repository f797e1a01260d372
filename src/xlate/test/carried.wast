;; carried.wast - innermost SIMD loops whose v128 locals are carried from
;; one iteration to the next (a count, a running index, a vector stored
;; every iteration), with the integer lane comparisons and shifts, as
;; clang -O3 -msimd128 writes IOR's read-back check (bench/kernels/verify.c).
;; The translator computes such a loop lane by lane in its versioned copy,
;; the carried locals in one scalar per lane, stored back into their
;; vectors when the copy ends (src/xlate/loop.h).  Checked here:
;;  - verify64: a carried count and index, the count's local reused for a
;;    temporary (local.tee) mid-body; both lanes of both locals after the
;;    loop; mismatches in each lane of each half; an i from i0 != 0;
;;  - p + i wrapping around 2^32, and reads past the memory (traps);
;;  - every i32x4 and i64x2 comparison and shift (counts >= the lane width
;;    taken modulo it), each stored to its own region, a carried count;
;;    operands overlapping the results; a trap midway with the earlier
;;    stores kept;
;;  - a carried i32x4 stored every iteration (iota), near the memory's end;
;;  - a carried sum with an early exit, and an f64x2 dot product whose
;;    lanes' order matters (neither computed lane by lane).
;; Expected values from carried_model.py (a separate model of the
;; WebAssembly semantics of each function, not the engine): run it to
;; regenerate the assertions below the module.  Run with each back-end
;; compiler by src/xlate/test/run.sh (make check-xlate).

(module
  (memory 1)

  (func (export "reset") (memory.fill (i32.const 0) (i32.const 0) (i32.const 0x10000)))
  (func (export "st64") (param i32 i64) (i64.store (local.get 0) (local.get 1)))
  (func (export "cks") (param $lo i32) (param $hi i32) (result i64) (local $h i64)
    (local.set $h (i64.const 0xcbf29ce484222325))
    (loop $l
      (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load (local.get $lo)))
                             (i64.const 0x100000001b3)))
      (br_if $l (i32.lt_u (local.tee $lo (i32.add (local.get $lo) (i32.const 8))) (local.get $hi))))
    (local.get $h))

  ;; small signed values, -4..3, from a 64-bit LCG (the top 3 bits)
  (func (export "fill32") (param $dst i32) (param $n i32) (local $i i32) (local $x i64)
    (local.set $x (i64.const 0x9e3779b97f4a7c15))
    (loop $l
      (local.set $x (i64.add (i64.mul (local.get $x) (i64.const 6364136223846793005))
                             (i64.const 1442695040888963407)))
      (i32.store (i32.add (local.get $dst) (local.get $i))
        (i32.sub (i32.wrap_i64 (i64.shr_u (local.get $x) (i64.const 61))) (i32.const 4)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 4))) (local.get $n)))))
  (func (export "fill64") (param $dst i32) (param $n i32) (local $i i32) (local $x i64)
    (local.set $x (i64.const 0x2545f4914f6cdd1d))
    (loop $l
      (local.set $x (i64.add (i64.mul (local.get $x) (i64.const 6364136223846793005))
                             (i64.const 1442695040888963407)))
      (i64.store (i32.add (local.get $dst) (local.get $i))
        (i64.sub (i64.shr_u (local.get $x) (i64.const 61)) (i64.const 4)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $n)))))
  ;; IOR's pattern: word j of the buffer at p is seed ^ ((j << 3) + 0x1f40)
  (func (export "fillpat") (param $p i32) (param $n i32) (param $seed i64) (local $i i32)
    (loop $l
      (i64.store (i32.add (local.get $p) (local.get $i))
        (i64.xor (local.get $seed)
                 (i64.add (i64.shl (i64.extend_i32_u (local.get $i)) (i64.const 0))
                          (i64.const 0x1f40))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $n)))))

  ;; IOR's read-back check as clang -O3 -msimd128 writes it: the count
  ;; and the word index in v128 locals carried from one iteration to the
  ;; next, the count's local reused for a temporary (local.tee) in the
  ;; middle of the body; i from i0 to n by 32 bytes, address p + i.
  ;; Returns both lanes of both locals as they are after the loop.
  (func (export "verify64") (param $p i32) (param $i0 i32) (param $n i32) (param $seed i64)
    (result i64) (local $i i32) (local $acc v128) (local $idx v128) (local $vs v128)
    (local.set $vs (i64x2.splat (local.get $seed)))
    (local.set $idx (v128.const i64x2 0 1))
    (local.set $i (local.get $i0))
    (loop $l
      local.get $acc
      local.get $p
      local.get $i
      i32.add
      v128.load
      local.get $idx
      i32.const 3
      i64x2.shl
      local.tee $acc
      v128.const i64x2 0x1f40 0x1f40
      i64x2.add
      local.get $vs
      v128.xor
      i64x2.ne
      i64x2.sub
      local.get $p
      local.get $i
      i32.add
      v128.load offset=16
      local.get $acc
      v128.const i64x2 0x1f50 0x1f50
      i64x2.add
      local.get $vs
      v128.xor
      i64x2.ne
      i64x2.sub
      local.set $acc
      local.get $idx
      v128.const i64x2 4 4
      i64x2.add
      local.set $idx
      local.get $i
      i32.const 32
      i32.add
      local.tee $i
      local.get $n
      i32.ne
      br_if $l)
    (i64.add
      (i64.add (i64x2.extract_lane 0 (local.get $acc))
               (i64.mul (i64x2.extract_lane 1 (local.get $acc)) (i64.const 1000)))
      (i64.add (i64.mul (i64x2.extract_lane 0 (local.get $idx)) (i64.const 1000000))
               (i64.mul (i64x2.extract_lane 1 (local.get $idx)) (i64.const 1000000000)))))

  ;; every i32x4 comparison and shift, each into its own 0x400-byte region
  ;; of d, and a carried count of lt_s per lane (returned, lane k times 10^k)
  (func (export "cmp32") (param $d i32) (param $a i32) (param $b i32) (param $n i32) (param $s i32)
    (result i64) (local $i i32) (local $va v128) (local $vb v128) (local $c v128)
    (loop $l
      (local.set $va (v128.load (i32.add (local.get $a) (local.get $i))))
      (local.set $vb (v128.load (i32.add (local.get $b) (local.get $i))))
      (v128.store offset=0x0000 (i32.add (local.get $d) (local.get $i)) (i32x4.eq (local.get $va) (local.get $vb)))
      (v128.store offset=0x0400 (i32.add (local.get $d) (local.get $i)) (i32x4.ne (local.get $va) (local.get $vb)))
      (v128.store offset=0x0800 (i32.add (local.get $d) (local.get $i)) (i32x4.lt_s (local.get $va) (local.get $vb)))
      (v128.store offset=0x0c00 (i32.add (local.get $d) (local.get $i)) (i32x4.lt_u (local.get $va) (local.get $vb)))
      (v128.store offset=0x1000 (i32.add (local.get $d) (local.get $i)) (i32x4.gt_s (local.get $va) (local.get $vb)))
      (v128.store offset=0x1400 (i32.add (local.get $d) (local.get $i)) (i32x4.gt_u (local.get $va) (local.get $vb)))
      (v128.store offset=0x1800 (i32.add (local.get $d) (local.get $i)) (i32x4.le_s (local.get $va) (local.get $vb)))
      (v128.store offset=0x1c00 (i32.add (local.get $d) (local.get $i)) (i32x4.le_u (local.get $va) (local.get $vb)))
      (v128.store offset=0x2000 (i32.add (local.get $d) (local.get $i)) (i32x4.ge_s (local.get $va) (local.get $vb)))
      (v128.store offset=0x2400 (i32.add (local.get $d) (local.get $i)) (i32x4.ge_u (local.get $va) (local.get $vb)))
      (v128.store offset=0x2800 (i32.add (local.get $d) (local.get $i)) (i32x4.shl (local.get $va) (local.get $s)))
      (v128.store offset=0x2c00 (i32.add (local.get $d) (local.get $i)) (i32x4.shr_s (local.get $va) (local.get $s)))
      (v128.store offset=0x3000 (i32.add (local.get $d) (local.get $i)) (i32x4.shr_u (local.get $va) (local.get $s)))
      (local.set $c (i32x4.sub (local.get $c) (i32x4.lt_s (local.get $va) (local.get $vb))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n))))
    (i64.add
      (i64.add (i64.extend_i32_u (i32x4.extract_lane 0 (local.get $c)))
               (i64.mul (i64.extend_i32_u (i32x4.extract_lane 1 (local.get $c))) (i64.const 10000)))
      (i64.add (i64.mul (i64.extend_i32_u (i32x4.extract_lane 2 (local.get $c))) (i64.const 100000000))
               (i64.mul (i64.extend_i32_u (i32x4.extract_lane 3 (local.get $c))) (i64.const 1000000000000)))))

  ;; the same for i64x2 (which has no unsigned comparisons)
  (func (export "cmp64") (param $d i32) (param $a i32) (param $b i32) (param $n i32) (param $s i32)
    (result i64) (local $i i32) (local $va v128) (local $vb v128) (local $c v128)
    (loop $l
      (local.set $va (v128.load (i32.add (local.get $a) (local.get $i))))
      (local.set $vb (v128.load (i32.add (local.get $b) (local.get $i))))
      (v128.store offset=0x0000 (i32.add (local.get $d) (local.get $i)) (i64x2.eq (local.get $va) (local.get $vb)))
      (v128.store offset=0x0400 (i32.add (local.get $d) (local.get $i)) (i64x2.ne (local.get $va) (local.get $vb)))
      (v128.store offset=0x0800 (i32.add (local.get $d) (local.get $i)) (i64x2.lt_s (local.get $va) (local.get $vb)))
      (v128.store offset=0x0c00 (i32.add (local.get $d) (local.get $i)) (i64x2.gt_s (local.get $va) (local.get $vb)))
      (v128.store offset=0x1000 (i32.add (local.get $d) (local.get $i)) (i64x2.le_s (local.get $va) (local.get $vb)))
      (v128.store offset=0x1400 (i32.add (local.get $d) (local.get $i)) (i64x2.ge_s (local.get $va) (local.get $vb)))
      (v128.store offset=0x1800 (i32.add (local.get $d) (local.get $i)) (i64x2.shl (local.get $va) (local.get $s)))
      (v128.store offset=0x1c00 (i32.add (local.get $d) (local.get $i)) (i64x2.shr_s (local.get $va) (local.get $s)))
      (v128.store offset=0x2000 (i32.add (local.get $d) (local.get $i)) (i64x2.shr_u (local.get $va) (local.get $s)))
      (local.set $c (i64x2.sub (local.get $c) (i64x2.ge_s (local.get $va) (local.get $vb))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n))))
    (i64.add (i64x2.extract_lane 0 (local.get $c))
             (i64.mul (i64x2.extract_lane 1 (local.get $c)) (i64.const 100000))))

  ;; a carried i32x4 stored every iteration (0 1 2 3, 4 5 6 7, ...);
  ;; returns lane 3 after the loop
  (func (export "iota32") (param $d i32) (param $n i32) (result i32) (local $i i32) (local $v v128)
    (local.set $v (v128.const i32x4 0 1 2 3))
    (loop $l
      (v128.store (i32.add (local.get $d) (local.get $i)) (local.get $v))
      (local.set $v (i32x4.add (local.get $v) (v128.const i32x4 4 4 4 4)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n))))
    (i32x4.extract_lane 3 (local.get $v)))

  ;; doubles of very different magnitudes (an i64 from the LCG shifted
  ;; right by its own low 6 bits, converted), so a sum's order shows
  (func (export "fillf64") (param $dst i32) (param $n i32) (local $i i32) (local $x i64)
    (local.set $x (i64.const 0x6a09e667f3bcc908))
    (loop $l
      (local.set $x (i64.add (i64.mul (local.get $x) (i64.const 6364136223846793005))
                             (i64.const 1442695040888963407)))
      (f64.store (i32.add (local.get $dst) (local.get $i))
        (f64.convert_i64_s (i64.shr_s (local.get $x) (i64.and (local.get $x) (i64.const 63)))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $n)))))
  ;; an f64x2 dot product carried in a v128 local (each lane's sum in
  ;; order: not computed lane by lane, the result must not change);
  ;; returns lane 0 + lane 1
  (func (export "dot64") (param $a i32) (param $b i32) (param $n i32) (result f64)
    (local $i i32) (local $acc v128)
    (loop $l
      (local.set $acc (f64x2.add (local.get $acc)
        (f64x2.mul (v128.load (i32.add (local.get $a) (local.get $i)))
                   (v128.load (i32.add (local.get $b) (local.get $i))))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n))))
    (f64.add (f64x2.extract_lane 0 (local.get $acc)) (f64x2.extract_lane 1 (local.get $acc))))

  ;; a carried sum with an early exit (at the first zero word): the
  ;; lane-wise copy is refused, the result must still be right
  (func (export "sumto0") (param $p i32) (param $n i32) (result i64) (local $i i32) (local $acc v128)
    (block $out
      (loop $l
        (local.set $acc (i64x2.add (local.get $acc) (v128.load (i32.add (local.get $p) (local.get $i)))))
        (br_if $out (i64.eqz (i64.load (i32.add (local.get $p) (local.get $i)))))
        (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n)))))
    (i64.add (i64x2.extract_lane 0 (local.get $acc))
             (i64.mul (i64x2.extract_lane 1 (local.get $acc)) (i64.const 1000))))
)

;; verify64: no mismatch, then words changed in either lane of either half
(assert_return (invoke "reset"))
(assert_return (invoke "fillpat" (i32.const 0xc000) (i32.const 0x2000) (i64.const 0x5a5a000000000001)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x20) (i64.const 0x5a5a000000000001)) (i64.const 0x12a42fb00))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x40) (i64.const 0x5a5a000000000001)) (i64.const 0x218eb2c00))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x60) (i64.const 0x5a5a000000000001)) (i64.const 0x307935d00))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x400) (i64.const 0x5a5a000000000001)) (i64.const 0x1e10a0ea00))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a000000000001)) (i64.const 0xeee3cbca00))
(assert_return (invoke "st64" (i32.const 0xc000) (i64.const 0x1)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a000000000001)) (i64.const 0xeee3cbca01))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x1000) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb34a01))
(assert_return (invoke "st64" (i32.const 0xc008) (i64.const 0x2)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a000000000001)) (i64.const 0xeee3cbcde9))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x1000) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb34de9))
(assert_return (invoke "st64" (i32.const 0xc010) (i64.const 0x3)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a000000000001)) (i64.const 0xeee3cbcdea))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x1000) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb34dea))
(assert_return (invoke "st64" (i32.const 0xc018) (i64.const 0x4)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a000000000001)) (i64.const 0xeee3cbd1d2))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x1000) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb351d2))
(assert_return (invoke "st64" (i32.const 0xc1f8) (i64.const 0x5)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a000000000001)) (i64.const 0xeee3cbd5ba))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x1000) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb355ba))
(assert_return (invoke "st64" (i32.const 0xdff8) (i64.const 0x6)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a000000000001)) (i64.const 0xeee3cbd9a2))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x1000) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb355ba))
(assert_return (invoke "st64" (i32.const 0xd000) (i64.const 0x5a5a000000000f41)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a000000000001)) (i64.const 0xeee3cbd9a3))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x1000) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb355ba))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x2000) (i64.const 0x5a5a00000000fffe)) (i64.const 0xeee3d39c00))
;; an i that starts at i0: the pattern counts from i0 (word 0 at p + i0)
(assert_return (invoke "reset"))
(assert_return (invoke "fillpat" (i32.const 0xc100) (i32.const 0x1000) (i64.const 0x5a5a000000000001)))
(assert_return (invoke "st64" (i32.const 0xc108) (i64.const 0x9)))
(assert_return (invoke "verify64" (i32.const 0xc000) (i32.const 0x100) (i32.const 0x1100) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb34de8))
;; p + i wraps around 2^32 (the copy must not run; in bounds after the wrap)
(assert_return (invoke "verify64" (i32.const 0xfffff000) (i32.const 0xd100) (i32.const 0xe100) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb34de8))
(assert_return (invoke "verify64" (i32.const 0xffffff00) (i32.const 0xc200) (i32.const 0xd200) (i64.const 0x5a5a000000000001)) (i64.const 0x778fb34de8))
;; out of bounds at the end: a trap, not a count
(assert_trap (invoke "verify64" (i32.const 0xc000) (i32.const 0x0) (i32.const 0x4020) (i64.const 0x5a5a000000000001)) "out of bounds memory access")
(assert_trap (invoke "verify64" (i32.const 0xfff0) (i32.const 0x0) (i32.const 0x40) (i64.const 0x5a5a000000000001)) "out of bounds memory access")
;; cmp32: all comparisons and shifts, counts 3, 35 (= 3), 31, 32 (= 0)
(assert_return (invoke "reset"))
(assert_return (invoke "fill32" (i32.const 0x1000) (i32.const 0x800)))
(assert_return (invoke "cmp32" (i32.const 0x4000) (i32.const 0x1000) (i32.const 0x1400) (i32.const 0x400) (i32.const 0x3)) (i64.const 0x1c3237367bc2))
(assert_return (invoke "cks" (i32.const 0x4000) (i32.const 0x7400)) (i64.const 0x7054a58b5dafbcb9))
(assert_return (invoke "cks" (i32.const 0x1000) (i32.const 0x1800)) (i64.const 0xb24ef9b8a464c98a))
(assert_return (invoke "reset"))
(assert_return (invoke "fill32" (i32.const 0x1000) (i32.const 0x800)))
(assert_return (invoke "cmp32" (i32.const 0x4000) (i32.const 0x1000) (i32.const 0x1400) (i32.const 0x400) (i32.const 0x23)) (i64.const 0x1c3237367bc2))
(assert_return (invoke "cks" (i32.const 0x4000) (i32.const 0x7400)) (i64.const 0x7054a58b5dafbcb9))
(assert_return (invoke "cks" (i32.const 0x1000) (i32.const 0x1800)) (i64.const 0xb24ef9b8a464c98a))
(assert_return (invoke "reset"))
(assert_return (invoke "fill32" (i32.const 0x1000) (i32.const 0x800)))
(assert_return (invoke "cmp32" (i32.const 0x4000) (i32.const 0x1000) (i32.const 0x1400) (i32.const 0x10) (i32.const 0x1f)) (i64.const 0xe8d4a51000))
(assert_return (invoke "cks" (i32.const 0x4000) (i32.const 0x7400)) (i64.const 0x22b33d5a957ff961))
(assert_return (invoke "cks" (i32.const 0x1000) (i32.const 0x1800)) (i64.const 0xb24ef9b8a464c98a))
(assert_return (invoke "reset"))
(assert_return (invoke "fill32" (i32.const 0x1000) (i32.const 0x800)))
(assert_return (invoke "cmp32" (i32.const 0x4000) (i32.const 0x1000) (i32.const 0x1400) (i32.const 0x3f0) (i32.const 0x20)) (i64.const 0x1b49629144b1))
(assert_return (invoke "cks" (i32.const 0x4000) (i32.const 0x7400)) (i64.const 0xd207e4a1b768a873))
(assert_return (invoke "cks" (i32.const 0x1000) (i32.const 0x1800)) (i64.const 0xb24ef9b8a464c98a))
(assert_return (invoke "reset"))
(assert_return (invoke "fill32" (i32.const 0x1000) (i32.const 0x800)))
(assert_return (invoke "cmp32" (i32.const 0x4000) (i32.const 0x1000) (i32.const 0x1400) (i32.const 0x20) (i32.const 0x11)) (i64.const 0x1d1a94a4711))
(assert_return (invoke "cks" (i32.const 0x4000) (i32.const 0x7400)) (i64.const 0x2f77d58abef72f55))
(assert_return (invoke "cks" (i32.const 0x1000) (i32.const 0x1800)) (i64.const 0xb24ef9b8a464c98a))
;; operands overlapping the results: b is the eq region
(assert_return (invoke "reset"))
(assert_return (invoke "fill32" (i32.const 0x1000) (i32.const 0x800)))
(assert_return (invoke "cmp32" (i32.const 0x4000) (i32.const 0x1000) (i32.const 0x4000) (i32.const 0x400) (i32.const 0x5)) (i64.const 0x1c3255042ee3))
(assert_return (invoke "cks" (i32.const 0x4000) (i32.const 0x7400)) (i64.const 0xcc590c525d71487d))
;; a trap midway (the shr_u store of i = 0x100): the stores before it kept
(assert_return (invoke "reset"))
(assert_return (invoke "fill32" (i32.const 0x1000) (i32.const 0x800)))
(assert_trap (invoke "cmp32" (i32.const 0xcf00) (i32.const 0x1000) (i32.const 0x1400) (i32.const 0x400) (i32.const 0x3)) "out of bounds memory access")
(assert_return (invoke "cks" (i32.const 0xcf00) (i32.const 0x10000)) (i64.const 0x47d578de29bffa2d))
;; cmp64: counts 3, 67 (= 3), 63, 64 (= 0)
(assert_return (invoke "reset"))
(assert_return (invoke "fill64" (i32.const 0x8000) (i32.const 0x800)))
(assert_return (invoke "cmp64" (i32.const 0x9000) (i32.const 0x8000) (i32.const 0x8400) (i32.const 0x400) (i32.const 0x3)) (i64.const 0x39fbde))
(assert_return (invoke "cks" (i32.const 0x9000) (i32.const 0xb400)) (i64.const 0x2f3b621cd2ed8efd))
(assert_return (invoke "reset"))
(assert_return (invoke "fill64" (i32.const 0x8000) (i32.const 0x800)))
(assert_return (invoke "cmp64" (i32.const 0x9000) (i32.const 0x8000) (i32.const 0x8400) (i32.const 0x400) (i32.const 0x43)) (i64.const 0x39fbde))
(assert_return (invoke "cks" (i32.const 0x9000) (i32.const 0xb400)) (i64.const 0x2f3b621cd2ed8efd))
(assert_return (invoke "reset"))
(assert_return (invoke "fill64" (i32.const 0x8000) (i32.const 0x800)))
(assert_return (invoke "cmp64" (i32.const 0x9000) (i32.const 0x8000) (i32.const 0x8400) (i32.const 0x10) (i32.const 0x3f)) (i64.const 0x1))
(assert_return (invoke "cks" (i32.const 0x9000) (i32.const 0xb400)) (i64.const 0x458badaad32ab29f))
(assert_return (invoke "reset"))
(assert_return (invoke "fill64" (i32.const 0x8000) (i32.const 0x800)))
(assert_return (invoke "cmp64" (i32.const 0x9000) (i32.const 0x8000) (i32.const 0x8400) (i32.const 0x3f0) (i32.const 0x40)) (i64.const 0x38753e))
(assert_return (invoke "cks" (i32.const 0x9000) (i32.const 0xb400)) (i64.const 0x5ca0f52ffcffd8a9))
(assert_return (invoke "reset"))
(assert_return (invoke "fill64" (i32.const 0x8000) (i32.const 0x800)))
(assert_return (invoke "cmp64" (i32.const 0xd000) (i32.const 0x8000) (i32.const 0x8400) (i32.const 0x400) (i32.const 0x1)) (i64.const 0x39fbde))
(assert_return (invoke "cks" (i32.const 0xd000) (i32.const 0x10000)) (i64.const 0x1e86d8a57aae33e3))
;; iota32: a carried vector stored every iteration
(assert_return (invoke "reset"))
(assert_return (invoke "iota32" (i32.const 0x2000) (i32.const 0x10)) (i32.const 0x7))
(assert_return (invoke "cks" (i32.const 0x2000) (i32.const 0x3000)) (i64.const 0x7b0ee06b40d4702f))
(assert_return (invoke "reset"))
(assert_return (invoke "iota32" (i32.const 0x2000) (i32.const 0x20)) (i32.const 0xb))
(assert_return (invoke "cks" (i32.const 0x2000) (i32.const 0x3000)) (i64.const 0x9b8a8fe5efcc83dd))
(assert_return (invoke "reset"))
(assert_return (invoke "iota32" (i32.const 0x2000) (i32.const 0x400)) (i32.const 0x103))
(assert_return (invoke "cks" (i32.const 0x2000) (i32.const 0x3000)) (i64.const 0x6d87ce2e9f397225))
(assert_return (invoke "reset"))
(assert_return (invoke "iota32" (i32.const 0x2000) (i32.const 0x1000)) (i32.const 0x403))
(assert_return (invoke "cks" (i32.const 0x2000) (i32.const 0x3000)) (i64.const 0x4dff73e71a9d725))
(assert_return (invoke "reset"))
(assert_trap (invoke "iota32" (i32.const 0xff00) (i32.const 0x200)) "out of bounds memory access")
(assert_return (invoke "cks" (i32.const 0xf000) (i32.const 0x10000)) (i64.const 0x3e32a1444d8c4be5))
;; sumto0: a carried sum with an early exit
(assert_return (invoke "reset"))
(assert_return (invoke "fill64" (i32.const 0x8000) (i32.const 0x800)))
(assert_return (invoke "sumto0" (i32.const 0x8000) (i32.const 0x400)) (i64.const 0xffffffffffffcd3e))
(assert_return (invoke "sumto0" (i32.const 0x8008) (i32.const 0x400)) (i64.const 0x176d))
(assert_return (invoke "sumto0" (i32.const 0x8100) (i32.const 0x400)) (i64.const 0x7d0))
(assert_return (invoke "sumto0" (i32.const 0x8200) (i32.const 0x400)) (i64.const 0x3e4))
(assert_return (invoke "fill64" (i32.const 0xf800) (i32.const 0x800)))
(assert_return (invoke "sumto0" (i32.const 0xf800) (i32.const 0x800)) (i64.const 0xffffffffffffcd3e))
(assert_return (invoke "st64" (i32.const 0xfff0) (i64.const 0x5)))
(assert_return (invoke "st64" (i32.const 0xfff8) (i64.const 0x7)))
(assert_trap (invoke "sumto0" (i32.const 0xffe0) (i32.const 0x40)) "out of bounds memory access")
;; dot64: a carried f64x2 sum, each lane in order
(assert_return (invoke "reset"))
(assert_return (invoke "fillf64" (i32.const 0x1000) (i32.const 0x2000)))
(assert_return (invoke "dot64" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x10)) (f64.const 0x1.e7b0000000000p+14))
(assert_return (invoke "dot64" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x1000)) (f64.const 0x1.fdb48600c1ccfp+125))
(assert_return (invoke "dot64" (i32.const 0x1010) (i32.const 0x1800) (i32.const 0x800)) (f64.const -0x1.8807b2fd859f2p+118))
(assert_return (invoke "dot64" (i32.const 0x1008) (i32.const 0x2008) (i32.const 0xff0)) (f64.const 0x1.fdb431e90be63p+125))
