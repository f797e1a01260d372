;; down.wast - loops whose counter steps down (translator version 10
;; versions them when the exit is `!=` K, br_if on the counter included):
;;  - do { s += *p++; } while (--n) for n = 1, 3, 64, and n = 0 (2^32
;;    iterations: runs off the end of memory, a trap);
;;  - a copy with two pointers stepping up, the counter down, running off
;;    the end at iteration 5: stores 0-4 kept, none after;
;;  - an i64 counter stepping by -2 with a pointer stepping 16;
;;  - y[i-1] = 2*x[i-1] for i = n..1 (addresses falling with the counter),
;;    with y placed so the address wraps below 0 at the 5th iteration;
;;  - counters crossing 0 as signed numbers (5 down to -5) and crossing
;;    2^31 as unsigned ones (0x80000002 down to 0x7ffffffe).
;; Expected values: computed by a separate model (Python) and confirmed
;; with wabt's spectest-interp, not by running the engine.

(module
  (memory 1)
  (func (export "init") (local $k i32)
    (memory.fill (i32.const 0) (i32.const 0) (i32.const 0x10000))
    (loop $l
      (f64.store offset=0x1000 (i32.shl (local.get $k) (i32.const 3))
        (f64.convert_i32_s (i32.sub (i32.mul (local.get $k) (i32.const 3)) (i32.const 50))))
      (br_if $l (i32.ne (local.tee $k (i32.add (local.get $k) (i32.const 1))) (i32.const 64)))))
  (func (export "ld64") (param i32) (result i64) (i64.load (local.get 0)))
  (func (export "ldf") (param i32) (result f64) (f64.load (local.get 0)))
  (func (export "sum") (param $p i32) (param $n i32) (result f64) (local $s f64)
    (loop $l
      (local.set $s (f64.add (local.get $s) (f64.load (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $s))
  (func (export "copy") (param $d i32) (param $s i32) (param $n i32)
    (loop $l
      (i64.store (local.get $d) (i64.load (local.get $s)))
      (local.set $d (i32.add (local.get $d) (i32.const 8)))
      (local.set $s (i32.add (local.get $s) (i32.const 8)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
  ;; count words p[k] != seed, k = 0..; the counter c goes from 2n down to 0 by 2
  (func (export "cnt64") (param $p i32) (param $c i64) (param $seed i64) (result i64) (local $e i64)
    (loop $l
      (local.set $e (i64.add (local.get $e) (i64.extend_i32_u (i64.ne (i64.load (local.get $p)) (local.get $seed)))))
      (local.set $e (i64.add (local.get $e) (i64.extend_i32_u (i64.ne (i64.load offset=8 (local.get $p)) (local.get $seed)))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br_if $l (i64.ne (local.tee $c (i64.sub (local.get $c) (i64.const 2))) (i64.const 0))))
    (local.get $e))
  ;; for (i = n; i != 0; i--) y[i-1] = 2 * x[i-1]
  (func (export "rev2") (param $y i32) (param $x i32) (param $i i32)
    (loop $l
      (f64.store offset=0 (i32.add (local.get $y) (i32.sub (i32.shl (local.get $i) (i32.const 3)) (i32.const 8)))
        (f64.mul (f64.const 2)
          (f64.load (i32.add (local.get $x) (i32.sub (i32.shl (local.get $i) (i32.const 3)) (i32.const 8))))))
      (br_if $l (local.tee $i (i32.sub (local.get $i) (i32.const 1))))))
  ;; p[k] = i for i = from, from-1, ... while i-1 != to
  (func (export "down") (param $p i32) (param $i i32) (param $to i32)
    (loop $l
      (i32.store (local.get $p) (local.get $i))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br_if $l (i32.ne (local.tee $i (i32.sub (local.get $i) (i32.const 1))) (local.get $to)))))
)

(invoke "init")
(assert_return (invoke "sum" (i32.const 0x1000) (i32.const 1)) (f64.const -50))
(assert_return (invoke "sum" (i32.const 0x1000) (i32.const 3)) (f64.const -141.0))
(assert_return (invoke "sum" (i32.const 0x1000) (i32.const 64)) (f64.const 2848.0))
(assert_return (invoke "sum" (i32.const 0x1008) (i32.const 63)) (f64.const 2898.0))
(assert_trap (invoke "sum" (i32.const 0x1000) (i32.const 0)) "out of bounds memory access")

;; d runs off the end at its 5th word
(assert_trap (invoke "copy" (i32.const 0xffd8) (i32.const 0x1000) (i32.const 10)) "out of bounds memory access")
(assert_return (invoke "ldf" (i32.const 0xffd8)) (f64.const -50))
(assert_return (invoke "ldf" (i32.const 0xfff8)) (f64.const -38))
(invoke "copy" (i32.const 0x3000) (i32.const 0x1000) (i32.const 64))
(assert_return (invoke "sum" (i32.const 0x3000) (i32.const 64)) (f64.const 2848.0))

(invoke "init")
(assert_return (invoke "cnt64" (i32.const 0x1000) (i64.const 32) (i64.const 0)) (i64.const 32))
(assert_return (invoke "cnt64" (i32.const 0x1000) (i64.const 2) (i64.const 0)) (i64.const 2))
(assert_return (invoke "cnt64" (i32.const 0x4000) (i64.const 64) (i64.const 0)) (i64.const 0))
(assert_return (invoke "cnt64" (i32.const 0x1000) (i64.const 64) (i64.const 0xc049000000000000)) (i64.const 63))
(assert_trap (invoke "cnt64" (i32.const 0xff00) (i64.const 64) (i64.const 0)) "out of bounds memory access")

(invoke "rev2" (i32.const 0x5000) (i32.const 0x1000) (i32.const 64))
(assert_return (invoke "ldf" (i32.const 0x5000)) (f64.const -100))
(assert_return (invoke "ldf" (i32.const 0x51f8)) (f64.const 278))
(assert_return (invoke "sum" (i32.const 0x5000) (i32.const 64)) (f64.const 5696.0))
;; y = -16: i = 6..3 store at 0x18, 0x10, 0x8, 0x0; i = 2 wraps to 0xfffffff8
(assert_trap (invoke "rev2" (i32.const 0xfffffff0) (i32.const 0x1000) (i32.const 6)) "out of bounds memory access")
(assert_return (invoke "ldf" (i32.const 0x18)) (f64.const -70))
(assert_return (invoke "ldf" (i32.const 0x0)) (f64.const -88))
(assert_return (invoke "sum" (i32.const 0x0) (i32.const 4)) (f64.const -316))

(invoke "down" (i32.const 0x6000) (i32.const 5) (i32.const -5))
(assert_return (invoke "ld64" (i32.const 0x6000)) (i64.const 0x0000000400000005))
(assert_return (invoke "ld64" (i32.const 0x6020)) (i64.const 0xfffffffcfffffffd))
(assert_return (invoke "ld64" (i32.const 0x6028)) (i64.const 0))
(invoke "down" (i32.const 0x6100) (i32.const 0x80000002) (i32.const 0x7ffffffe))
(assert_return (invoke "ld64" (i32.const 0x6100)) (i64.const 0x8000000180000002))
(assert_return (invoke "ld64" (i32.const 0x6108)) (i64.const 0x7fffffff80000000))
(assert_return (invoke "ld64" (i32.const 0x6110)) (i64.const 0))
(invoke "down" (i32.const 0x6200) (i32.const 2) (i32.const -2))
(assert_return (invoke "ld64" (i32.const 0x6208)) (i64.const 0xffffffff00000000))
(assert_return (invoke "ld64" (i32.const 0x6210)) (i64.const 0))
