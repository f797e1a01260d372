;; gathers.wast - loops versioned since translator version 10 (loop.c):
;; several induction variables stepping together (HPCG's row loop: a
;; counter, a pointer into the values, a pointer into the column indices),
;; an i64 counter with an i32 pointer (IOR's verification loop), a pointer
;; stepping down, and gathers/scatters x[idx[k]] whose address is loaded
;; (kept as ordinary accesses in the fast copy, where they may trap):
;;  - results of gathers, of a gather whose 32-bit address wraps, and of a
;;    scatter; a scatter that traps at iteration 5 keeps the stores of
;;    iterations 0-4 and makes none after;
;;  - an i64 counter exiting on ne / lt_s / lt_u, starting at 0, negative,
;;    at 2^64-64 and beyond 2^40 (the slow path), and running off the end
;;    of memory (a trap, the stores before it kept);
;;  - a pointer stepping down that wraps below 0 (a trap at iteration 3);
;;  - a pointer stepping half as far as the counter (not affine);
;;  - an address with a base too long for the translator's expression
;;    buffer (it must fall back, not drop the base).
;; Expected values: computed by a separate model (a few lines of Python
;; over the same data) and confirmed with wabt's spectest-interp, not by
;; running the engine.

(module
  (memory 1)
  (func (export "init") (local $k i32)
    (memory.fill (i32.const 0) (i32.const 0) (i32.const 0x10000))
    (loop $l
      (f64.store offset=0x1000 (i32.shl (local.get $k) (i32.const 3))
        (f64.convert_i32_u (i32.add (local.get $k) (i32.const 1))))
      (f64.store offset=0x3000 (i32.shl (local.get $k) (i32.const 3))
        (f64.mul (f64.convert_i32_u (local.get $k)) (f64.const 0.5)))
      (i32.store offset=0x2000 (i32.shl (local.get $k) (i32.const 2))
        (i32.and (i32.mul (local.get $k) (i32.const 7)) (i32.const 63)))
      (br_if $l (i32.ne (local.tee $k (i32.add (local.get $k) (i32.const 1))) (i32.const 64)))))
  (func (export "st32") (param i32 i32) (i32.store (local.get 0) (local.get 1)))
  (func (export "ld32") (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "ld64") (param i32) (result i64) (i64.load (local.get 0)))
  (func (export "ldf") (param i32) (result f64) (f64.load (local.get 0)))
  ;; idx[k] = (k*mul & 63) + add
  (func (export "setidx") (param $mul i32) (param $add i32) (local $k i32)
    (loop $l
      (i32.store offset=0x2000 (i32.shl (local.get $k) (i32.const 2))
        (i32.add (i32.and (i32.mul (local.get $k) (local.get $mul)) (i32.const 63)) (local.get $add)))
      (br_if $l (i32.ne (local.tee $k (i32.add (local.get $k) (i32.const 1))) (i32.const 64)))))
  (func (export "sum") (param $p i32) (param $n i32) (result f64) (local $s f64)
    (loop $l
      (local.set $s (f64.add (local.get $s) (f64.load (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $s))

  ;; HPCG's row: s += v[k] * x[ix[k]], three induction variables
  (func (export "dot") (param $v i32) (param $ix i32) (param $x i32) (param $n i32) (result f64)
    (local $i i32) (local $s f64)
    (loop $l
      (local.set $s (f64.add (local.get $s)
        (f64.mul (f64.load (local.get $v))
          (f64.load (i32.add (local.get $x) (i32.shl (i32.load (local.get $ix)) (i32.const 3)))))))
      (local.set $v (i32.add (local.get $v) (i32.const 8)))
      (local.set $ix (i32.add (local.get $ix) (i32.const 4)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  ;; clang's unrolled shape: counter steps 2, pointers 16 and 8
  (func (export "dot2") (param $v i32) (param $ix i32) (param $x i32) (param $n i32) (result f64)
    (local $i i32) (local $s f64)
    (loop $l
      (local.set $s (f64.add (f64.add (local.get $s)
        (f64.mul (f64.load (local.get $v))
          (f64.load (i32.add (local.get $x) (i32.shl (i32.load (local.get $ix)) (i32.const 3))))))
        (f64.mul (f64.load offset=8 (local.get $v))
          (f64.load (i32.add (local.get $x) (i32.shl (i32.load offset=4 (local.get $ix)) (i32.const 3)))))))
      (local.set $ix (i32.add (local.get $ix) (i32.const 8)))
      (local.set $v (i32.add (local.get $v) (i32.const 16)))
      (br_if $l (i32.ne (local.get $n) (local.tee $i (i32.add (local.get $i) (i32.const 2))))))
    (local.get $s))
  ;; y[ix[k]] = src[k]
  (func (export "scatter") (param $src i32) (param $ix i32) (param $y i32) (param $n i32)
    (local $i i32)
    (loop $l
      (f64.store (i32.add (local.get $y) (i32.shl (i32.load (local.get $ix)) (i32.const 3)))
        (f64.load (local.get $src)))
      (local.set $src (i32.add (local.get $src) (i32.const 8)))
      (local.set $ix (i32.add (local.get $ix) (i32.const 4)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))

  ;; IOR: count the words that differ from seed ^ (c << 3), c an i64
  (func (export "verify_ne") (param $p i32) (param $c i64) (param $end i64) (param $seed i64)
    (result i64) (local $e i64)
    (loop $l
      (local.set $e (i64.add (local.get $e) (i64.extend_i32_u
        (i64.ne (i64.load (local.get $p)) (i64.xor (local.get $seed) (i64.shl (local.get $c) (i64.const 3)))))))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (br_if $l (i64.ne (local.tee $c (i64.add (local.get $c) (i64.const 1))) (local.get $end))))
    (local.get $e))
  (func (export "verify_lts") (param $p i32) (param $c i64) (param $end i64) (param $seed i64)
    (result i64) (local $e i64)
    (loop $l
      (local.set $e (i64.add (local.get $e) (i64.extend_i32_u
        (i64.ne (i64.load (local.get $p)) (i64.xor (local.get $seed) (i64.shl (local.get $c) (i64.const 3)))))))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (br_if $l (i64.lt_s (local.tee $c (i64.add (local.get $c) (i64.const 1))) (local.get $end))))
    (local.get $e))
  (func (export "verify_ltu") (param $p i32) (param $c i64) (param $end i64) (param $seed i64)
    (result i64) (local $e i64)
    (loop $l
      (local.set $e (i64.add (local.get $e) (i64.extend_i32_u
        (i64.ne (i64.load (local.get $p)) (i64.xor (local.get $seed) (i64.shl (local.get $c) (i64.const 3)))))))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (br_if $l (i64.gt_u (local.get $end) (local.tee $c (i64.add (local.get $c) (i64.const 1))))))
    (local.get $e))
  ;; the pattern verify_* expect, written with an i64 counter too
  (func (export "fill") (param $p i32) (param $c i64) (param $end i64) (param $seed i64)
    (loop $l
      (i64.store (local.get $p) (i64.xor (local.get $seed) (i64.shl (local.get $c) (i64.const 3))))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (br_if $l (i64.ne (local.tee $c (i64.add (local.get $c) (i64.const 1))) (local.get $end)))))

  ;; dst up, src down: dst[i] = src[-i]
  (func (export "rev") (param $dst i32) (param $src i32) (param $n i32) (local $i i32)
    (loop $l
      (i64.store (local.get $dst) (i64.load (local.get $src)))
      (local.set $dst (i32.add (local.get $dst) (i32.const 8)))
      (local.set $src (i32.sub (local.get $src) (i32.const 8)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))
  ;; p steps 1 while i steps 2: p is not affine in i
  (func (export "half") (param $p i32) (param $n i32) (local $i i32)
    (loop $l
      (i32.store8 (local.get $p) (i32.add (local.get $i) (i32.const 1)))
      (i32.store offset=0x100 (i32.shl (local.get $i) (i32.const 1)) (local.get $p))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 2))) (local.get $n)))))
  ;; a base of twelve invariant terms: store i at base + 4*i
  (func (export "longbase")
    (param $a i32) (param $b i32) (param $c i32) (param $d i32) (param $e i32) (param $f i32)
    (param $g i32) (param $h i32) (param $j i32) (param $k i32) (param $m i32) (param $n i32)
    (local $i i32)
    (loop $l
      (i32.store
        (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add
          (i32.mul (local.get $a) (i32.const 3)) (i32.mul (local.get $b) (i32.const 5)))
          (i32.mul (local.get $c) (i32.const 7))) (i32.mul (local.get $d) (i32.const 9)))
          (i32.mul (local.get $e) (i32.const 11))) (i32.mul (local.get $f) (i32.const 13)))
          (i32.mul (local.get $g) (i32.const 15))) (i32.mul (local.get $h) (i32.const 17)))
          (i32.mul (local.get $j) (i32.const 19))) (i32.mul (local.get $k) (i32.const 21)))
          (i32.mul (local.get $m) (i32.const 23))) (i32.mul (local.get $n) (i32.const 25)))
          (i32.shl (local.get $i) (i32.const 2)))
        (local.get $i))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 16)))))
)

(invoke "init")
;; gathers
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 1)) (f64.const 0))
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 2)) (f64.const 7))
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 3)) (f64.const 28))
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 10)) (f64.const 1155))
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 63)) (f64.const 31776))
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 64)) (f64.const 33600))
(assert_return (invoke "dot2" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 2)) (f64.const 7))
(assert_return (invoke "dot2" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 10)) (f64.const 1155))
(assert_return (invoke "dot2" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 64)) (f64.const 33600))
(invoke "setidx" (i32.const 5) (i32.const 0))
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 2)) (f64.const 5))
(assert_return (invoke "dot2" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 10)) (f64.const 825))
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 64)) (f64.const 35360))
;; x + (ix[k] << 3) wraps around 2^32 onto x's real place
(invoke "setidx" (i32.const 7) (i32.const 0x800))
(assert_return (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0xfffff000) (i32.const 64)) (f64.const 33600))
(assert_return (invoke "dot2" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0xfffff000) (i32.const 10)) (f64.const 1155))
;; a gather out of bounds
(invoke "setidx" (i32.const 7) (i32.const 0x2000))
(assert_trap (invoke "dot" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 64)) "out of bounds memory access")
(assert_trap (invoke "dot2" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 64)) "out of bounds memory access")

;; a scatter trapping at iteration 5: iterations 0-4 stored, none after
(invoke "setidx" (i32.const 1) (i32.const 0))
(invoke "st32" (i32.const 0x2014) (i32.const 0x3000))
(assert_trap (invoke "scatter" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x4000) (i32.const 10)) "out of bounds memory access")
(assert_return (invoke "ldf" (i32.const 0x4000)) (f64.const 1))
(assert_return (invoke "ldf" (i32.const 0x4020)) (f64.const 5))
(assert_return (invoke "ldf" (i32.const 0x4028)) (f64.const 0))
(assert_return (invoke "ldf" (i32.const 0x4030)) (f64.const 0))
(assert_return (invoke "sum" (i32.const 0x4000) (i32.const 10)) (f64.const 15))
;; the same scatter, idx[5] = 9: y[9] written twice, y[5] never
(invoke "st32" (i32.const 0x2014) (i32.const 9))
(invoke "scatter" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x4000) (i32.const 10))
(assert_return (invoke "ldf" (i32.const 0x4028)) (f64.const 0))
(assert_return (invoke "ldf" (i32.const 0x4048)) (f64.const 10))
(assert_return (invoke "sum" (i32.const 0x4000) (i32.const 10)) (f64.const 49))

;; i64 counters
(invoke "fill" (i32.const 0x5000) (i64.const 0) (i64.const 64) (i64.const 0x5a5a))
(assert_return (invoke "verify_ne" (i32.const 0x5000) (i64.const 0) (i64.const 64) (i64.const 0x5a5a)) (i64.const 0))
(assert_return (invoke "ld64" (i32.const 0x51f8)) (i64.const 0x5ba2))
(invoke "st32" (i32.const 0x5050) (i32.const 1))
(invoke "st32" (i32.const 0x51fc) (i32.const 7))
(assert_return (invoke "verify_ne" (i32.const 0x5000) (i64.const 0) (i64.const 64) (i64.const 0x5a5a)) (i64.const 2))
(assert_return (invoke "verify_lts" (i32.const 0x5000) (i64.const 0) (i64.const 64) (i64.const 0x5a5a)) (i64.const 2))
(assert_return (invoke "verify_ltu" (i32.const 0x5000) (i64.const 0) (i64.const 64) (i64.const 0x5a5a)) (i64.const 2))
(assert_return (invoke "verify_ne" (i32.const 0x5000) (i64.const 0) (i64.const 63) (i64.const 0x5a5a)) (i64.const 1))
(assert_return (invoke "verify_ltu" (i32.const 0x5000) (i64.const 0) (i64.const 1) (i64.const 0x5a5a)) (i64.const 0))
(assert_return (invoke "verify_ltu" (i32.const 0x5000) (i64.const 0) (i64.const 0) (i64.const 0x5a5a)) (i64.const 0))
;; from -64 up to 64: signed, or from 2^64-64 (ltu: one iteration)
(invoke "fill" (i32.const 0x6000) (i64.const -64) (i64.const 64) (i64.const 0x77))
(assert_return (invoke "verify_ne" (i32.const 0x6000) (i64.const -64) (i64.const 64) (i64.const 0x77)) (i64.const 0))
(assert_return (invoke "verify_lts" (i32.const 0x6000) (i64.const -64) (i64.const 64) (i64.const 0x77)) (i64.const 0))
(assert_return (invoke "verify_ltu" (i32.const 0x6000) (i64.const -64) (i64.const 64) (i64.const 0x77)) (i64.const 0))
(assert_return (invoke "verify_ne" (i32.const 0x6000) (i64.const -64) (i64.const 64) (i64.const 0x78)) (i64.const 128))
(assert_return (invoke "verify_lts" (i32.const 0x6000) (i64.const -64) (i64.const 0) (i64.const 0x78)) (i64.const 64))
(assert_return (invoke "verify_ltu" (i32.const 0x6000) (i64.const -64) (i64.const 64) (i64.const 0x78)) (i64.const 1))
(assert_return (invoke "verify_ltu" (i32.const 0x6000) (i64.const -64) (i64.const -32) (i64.const 0x78)) (i64.const 32))
;; beyond 2^40 (the slow copy)
(invoke "fill" (i32.const 0x7000) (i64.const 0x20000000000) (i64.const 0x20000000010) (i64.const 3))
(assert_return (invoke "verify_ne" (i32.const 0x7000) (i64.const 0x20000000000) (i64.const 0x20000000010) (i64.const 3)) (i64.const 0))
(invoke "st32" (i32.const 0x7008) (i32.const 0))
(assert_return (invoke "verify_ne" (i32.const 0x7000) (i64.const 0x20000000000) (i64.const 0x20000000010) (i64.const 3)) (i64.const 1))
(assert_return (invoke "verify_lts" (i32.const 0x7000) (i64.const 0x20000000000) (i64.const 0x20000000010) (i64.const 3)) (i64.const 1))
;; running off the end of memory
(assert_trap (invoke "verify_ne" (i32.const 0xff00) (i64.const 0) (i64.const 64) (i64.const 0)) "out of bounds memory access")
(assert_trap (invoke "fill" (i32.const 0xffc0) (i64.const 0) (i64.const 16) (i64.const 0x100)) "out of bounds memory access")
(assert_return (invoke "ld64" (i32.const 0xffc0)) (i64.const 0x100))
(assert_return (invoke "ld64" (i32.const 0xfff8)) (i64.const 0x138))
(assert_return (invoke "verify_ne" (i32.const 0xffc0) (i64.const 0) (i64.const 8) (i64.const 0x100)) (i64.const 0))

;; a pointer stepping down
(invoke "init")
(invoke "rev" (i32.const 0x5000) (i32.const 0x1048) (i32.const 10))
(assert_return (invoke "ldf" (i32.const 0x5000)) (f64.const 10))
(assert_return (invoke "ldf" (i32.const 0x5048)) (f64.const 1))
(assert_return (invoke "ld64" (i32.const 0x5050)) (i64.const 0))
(invoke "st32" (i32.const 0x0) (i32.const 0x11))
(invoke "st32" (i32.const 0x8) (i32.const 0x22))
(invoke "st32" (i32.const 0x10) (i32.const 0x33))
(assert_trap (invoke "rev" (i32.const 0x5100) (i32.const 0x10) (i32.const 10)) "out of bounds memory access")
(assert_return (invoke "ld64" (i32.const 0x5100)) (i64.const 0x33))
(assert_return (invoke "ld64" (i32.const 0x5108)) (i64.const 0x22))
(assert_return (invoke "ld64" (i32.const 0x5110)) (i64.const 0x11))
(assert_return (invoke "ld64" (i32.const 0x5118)) (i64.const 0))

;; p steps half as far as i
(invoke "half" (i32.const 0x8000) (i32.const 20))
(assert_return (invoke "ld32" (i32.const 0x8000)) (i32.const 0x07050301))
(assert_return (invoke "ld32" (i32.const 0x8004)) (i32.const 0x0f0d0b09))
(assert_return (invoke "ld32" (i32.const 0x8008)) (i32.const 0x00001311))
(assert_return (invoke "ld32" (i32.const 0x124)) (i32.const 0x8009))

;; the long base: stores at 0x4b00 + 4*i, nothing at 4*i
(invoke "init")
(invoke "longbase" (i32.const 0x1000) (i32.const 0x400) (i32.const 0x100) (i32.const 0) (i32.const 0)
  (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))
(assert_return (invoke "ld32" (i32.const 0x4b0c)) (i32.const 3))
(assert_return (invoke "ld32" (i32.const 0x4b3c)) (i32.const 15))
(assert_return (invoke "ld32" (i32.const 0xc)) (i32.const 0))
(assert_return (invoke "ld32" (i32.const 0x3c)) (i32.const 0))
(invoke "longbase" (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)
  (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0x200))
(assert_return (invoke "ld32" (i32.const 0x320c)) (i32.const 3))
