;; branches.wast - loops with blocks, ifs and forward branches in the body,
;; versioned since translator version 10 (loop.c walks them; a local
;; written in a block is unknown after it):
;;  - a struct-of-arrays update with two ifs (the soa kernel's shape),
;;    a store inside an if only, an if with a result, an if/else;
;;  - an early exit (br_if out of the loop; a linear search) at the first,
;;    a middle and no iteration, and through br_table;
;;  - a `continue` from the middle of the body (br to the loop): not
;;    versioned, still right;
;;  - the induction variable stepped inside an if (not versioned);
;;  - an access inside an if that runs out of bounds at iteration 8: a
;;    trap, the stores of iterations 0-8 before it kept, none after; one
;;    that would be out of bounds but whose if is never taken: no trap.
;; Expected values: computed by a separate model (Python over the same
;; data) and confirmed with wabt's spectest-interp, not by running the
;; engine.

(module
  (memory 1)
  (func (export "init") (local $k i32)
    (memory.fill (i32.const 0) (i32.const 0) (i32.const 0x10000))
    ;; a[k] = k*37 mod 101 - 50 (i32) at 0x1000, b[k] = k at 0x2000
    (loop $l
      (i32.store offset=0x1000 (i32.shl (local.get $k) (i32.const 2))
        (i32.sub (i32.rem_u (i32.mul (local.get $k) (i32.const 37)) (i32.const 101)) (i32.const 50)))
      (i32.store offset=0x2000 (i32.shl (local.get $k) (i32.const 2)) (local.get $k))
      (br_if $l (i32.ne (local.tee $k (i32.add (local.get $k) (i32.const 1))) (i32.const 256)))))
  (func (export "ld32") (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "st32") (param i32 i32) (i32.store (local.get 0) (local.get 1)))
  (func (export "cks") (param $p i32) (param $n i32) (result i32) (local $h i32)
    (loop $l
      (local.set $h (i32.add (i32.mul (local.get $h) (i32.const 31)) (i32.load (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $h))

  ;; x[i] += v[i]; reflect at 0 and 100: v[i] = -v[i], hits[i]++
  (func (export "soa") (param $x i32) (param $v i32) (param $h i32) (param $n i32)
    (local $i i32) (local $t i32)
    (loop $l
      (local.set $t (i32.add (i32.load (i32.add (local.get $x) (local.get $i)))
                             (i32.load (i32.add (local.get $v) (local.get $i)))))
      (if (i32.lt_s (local.get $t) (i32.const 0))
        (then
          (local.set $t (i32.sub (i32.const 0) (local.get $t)))
          (i32.store (i32.add (local.get $v) (local.get $i))
            (i32.sub (i32.const 0) (i32.load (i32.add (local.get $v) (local.get $i)))))
          (i32.store (i32.add (local.get $h) (local.get $i))
            (i32.add (i32.load (i32.add (local.get $h) (local.get $i))) (i32.const 1)))))
      (if (i32.gt_s (local.get $t) (i32.const 100))
        (then
          (local.set $t (i32.sub (i32.const 200) (local.get $t)))
          (i32.store (i32.add (local.get $v) (local.get $i))
            (i32.sub (i32.const 0) (i32.load (i32.add (local.get $v) (local.get $i)))))
          (i32.store (i32.add (local.get $h) (local.get $i))
            (i32.add (i32.load (i32.add (local.get $h) (local.get $i))) (i32.const 1)))))
      (i32.store (i32.add (local.get $x) (local.get $i)) (local.get $t))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 4))) (local.get $n)))))
  ;; y[i] = a[i] > 0 ? a[i] : -2*a[i] (if with a result), z[i] by if/else
  (func (export "absy") (param $a i32) (param $y i32) (param $z i32) (param $n i32) (local $i i32) (local $t i32)
    (loop $l
      (local.set $t (i32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2)))))
      (i32.store (i32.add (local.get $y) (i32.shl (local.get $i) (i32.const 2)))
        (if (result i32) (i32.gt_s (local.get $t) (i32.const 0))
          (then (local.get $t))
          (else (i32.mul (local.get $t) (i32.const -2)))))
      (if (i32.and (local.get $t) (i32.const 1))
        (then (i32.store (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 2))) (i32.const 7)))
        (else (i32.store (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 2))) (local.get $i))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))
  ;; the first k < n with a[k] >= v, else n (clang's shape of a while loop)
  (func (export "search") (param $a i32) (param $n i32) (param $v i32) (result i32) (local $i i32)
    (block $out
      (loop $l
        (br_if $out (i32.ge_s (i32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))))
                              (local.get $v)))
        (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))
    (local.get $i))
  ;; the same through a br_table in a block: 0 continues, 1 leaves, 2 leaves
  (func (export "search_bt") (param $a i32) (param $n i32) (param $v i32) (result i32) (local $i i32)
    (block $out
      (loop $l
        (block $next
          (br_table $next $out $out
            (i32.add (i32.ge_s (i32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))))
                               (local.get $v))
                     (i32.eq (local.get $i) (i32.const 1000)))))
        (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))
    (local.get $i))
  ;; continue from the middle: negative elements are skipped (not summed
  ;; and not counted), c[i] = running sum
  (func (export "skipneg") (param $a i32) (param $c i32) (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.and (i32.lt_s (i32.load (i32.add (i32.add (local.get $a) (i32.const -4)) (i32.shl (local.get $i) (i32.const 2))))
                                   (i32.const 0))
                         (i32.lt_u (local.get $i) (local.get $n))))
      (local.set $s (i32.add (local.get $s) (i32.load (i32.add (i32.add (local.get $a) (i32.const -4)) (i32.shl (local.get $i) (i32.const 2))))))
      (i32.store (i32.add (i32.add (local.get $c) (i32.const -4)) (i32.shl (local.get $i) (i32.const 2))) (local.get $s))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $s))
  ;; the iv stepped in an if: +1, or +2 where a[i] is odd
  (func (export "condstep") (param $a i32) (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (i32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))))))
      (if (i32.and (i32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2)))) (i32.const 1))
        (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
      (br_if $l (i32.lt_s (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  ;; y[i] = i; where b[i] >= t, also touch q + 0x1000*i: out of bounds
  ;; from some i on, but only reached where b[i] >= t
  (func (export "condoob") (param $y i32) (param $q i32) (param $t i32) (param $n i32) (local $i i32)
    (loop $l
      (i32.store (i32.add (local.get $y) (i32.shl (local.get $i) (i32.const 2))) (local.get $i))
      (if (i32.ge_s (i32.load offset=0x2000 (i32.shl (local.get $i) (i32.const 2))) (local.get $t))
        (then (i32.store (i32.add (local.get $q) (i32.shl (local.get $i) (i32.const 12))) (i32.const 1))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))
)

(invoke "init")
(assert_return (invoke "ld32" (i32.const 0x1004)) (i32.const -13))
;; soa over x = a (0x1000), v = b (0x2000), hits at 0x3000, 64 elements
(invoke "soa" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 256))
(assert_return (invoke "cks" (i32.const 0x1000) (i32.const 64)) (i32.const -1692417945))
(assert_return (invoke "cks" (i32.const 0x2000) (i32.const 64)) (i32.const -600395948))
(assert_return (invoke "cks" (i32.const 0x3000) (i32.const 64)) (i32.const 109516067))
(assert_return (invoke "cks" (i32.const 0x1100) (i32.const 16)) (i32.const -1334836487))
(invoke "soa" (i32.const 0x1000) (i32.const 0x2000) (i32.const 0x3000) (i32.const 256))
(assert_return (invoke "cks" (i32.const 0x1000) (i32.const 64)) (i32.const -489842167))
(assert_return (invoke "cks" (i32.const 0x3000) (i32.const 64)) (i32.const -1734366521))

(invoke "init")
(invoke "absy" (i32.const 0x1000) (i32.const 0x4000) (i32.const 0x5000) (i32.const 100))
(assert_return (invoke "cks" (i32.const 0x4000) (i32.const 100)) (i32.const -828622343))
(assert_return (invoke "cks" (i32.const 0x5000) (i32.const 100)) (i32.const 1657284340))
(assert_return (invoke "ld32" (i32.const 0x4190)) (i32.const 0))

(assert_return (invoke "search" (i32.const 0x2000) (i32.const 256) (i32.const 0)) (i32.const 0))
(assert_return (invoke "search" (i32.const 0x2000) (i32.const 256) (i32.const 77)) (i32.const 77))
(assert_return (invoke "search" (i32.const 0x2000) (i32.const 256) (i32.const 1000)) (i32.const 256))
(assert_return (invoke "search" (i32.const 0x2000) (i32.const 100) (i32.const 1000)) (i32.const 100))
(assert_return (invoke "search" (i32.const 0x1000) (i32.const 256) (i32.const 40)) (i32.const 8))
(assert_return (invoke "search_bt" (i32.const 0x2000) (i32.const 256) (i32.const 77)) (i32.const 77))
(assert_return (invoke "search_bt" (i32.const 0x2000) (i32.const 256) (i32.const 1000)) (i32.const 256))
;; the search stops before it runs off the end of memory
(assert_return (invoke "search" (i32.const 0xff00) (i32.const 1000) (i32.const 0)) (i32.const 0))
(assert_trap (invoke "search" (i32.const 0xff00) (i32.const 1000) (i32.const 1)) "out of bounds memory access")

(assert_return (invoke "skipneg" (i32.const 0x1000) (i32.const 0x6000) (i32.const 100)) (i32.const 1238))
(assert_return (invoke "cks" (i32.const 0x6000) (i32.const 100)) (i32.const -421577445))
(assert_return (invoke "condstep" (i32.const 0x1000) (i32.const 200)) (i32.const 102))

;; b[i] = i.  First: the if would store out of bounds from i = 4 on but is
;; never taken (b[i] < 8).  Second: taken from i = 2, out of bounds at
;; i = 8, after that iteration's store to y
(invoke "init")
(invoke "condoob" (i32.const 0x7000) (i32.const 0xc000) (i32.const 8) (i32.const 6))
(assert_return (invoke "ld32" (i32.const 0x7014)) (i32.const 5))
(assert_trap (invoke "condoob" (i32.const 0x7100) (i32.const 0x8000) (i32.const 2) (i32.const 20)) "out of bounds memory access")
(assert_return (invoke "ld32" (i32.const 0x7120)) (i32.const 8))
(assert_return (invoke "ld32" (i32.const 0x7124)) (i32.const 0))
(assert_return (invoke "ld32" (i32.const 0xf000)) (i32.const 1))
(assert_return (invoke "ld32" (i32.const 0xa000)) (i32.const 1))
(assert_return (invoke "ld32" (i32.const 0x9000)) (i32.const 0))
