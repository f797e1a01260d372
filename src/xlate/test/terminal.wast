;; terminal.wast - loop copies under terminal traps (xlate_options.terminal_traps,
;; what `mpiwasm run` translates with; run.sh runs this file both ways, with and
;; without spec_run -t).  With terminal traps a fast loop copy over a memory that
;; is not shared checks only that no address wraps around 2^32 and leaves an
;; access past the memory's end to the reservation's guard pages, so a loop that
;; runs past the end may trap at another iteration than WebAssembly's: the
;; first module's assertions therefore never read memory a trapping loop wrote.
;; What they do check, in both modes:
;;  - in-bounds loops give WebAssembly's results (copy taken);
;;  - a loop past the end traps (an out-of-bounds access, not a crash), also
;;    with the largest memarg offset, whose effective address lies in
;;    [2^32, 2^33): inside the 8 GiB reservation;
;;  - addresses that wrap: an iv whose address jumps by exactly 2^32 each
;;    iteration (i << 19, i stepping by 0x2000: WebAssembly writes address 0
;;    every time, a 64-bit address would be 2^32, 2^33, ... : a trap, then an
;;    access beyond the reservation), with an i32 and an i64 iv; an address
;;    going below 0; an i64 iv with a trip count of 2^44;
;; and for a shared memory (second module), whose loops are always checked
;; exactly, that the stores before the trap are all there.
;; Expected values follow from the WebAssembly semantics by hand: fill(p, n)
;; stores i + 1 at p + 8i for i < n; jump(k) stores i + 7 at (i << 19) mod 2^32
;; = 0 for i = 0, 0x2000, ... below k and returns the word at 0.

(module
  (memory 1)

  (func (export "fill") (param $p i32) (param $n i32) (local $i i32)
    (loop $l
      (i64.store (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 3)))
                 (i64.extend_i32_u (i32.add (local.get $i) (i32.const 1))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))

  ;; the same with the largest memarg offset
  (func (export "filloff") (param $p i32) (param $n i32) (local $i i32)
    (loop $l
      (i64.store offset=0xffffffff (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 3)))
                 (i64.extend_i32_u (i32.add (local.get $i) (i32.const 1))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))

  ;; p - 8i: below 0 for i > p / 8
  (func (export "down") (param $p i32) (param $n i32) (local $i i32)
    (loop $l
      (i64.store (i32.sub (local.get $p) (i32.shl (local.get $i) (i32.const 3)))
                 (i64.extend_i32_u (local.get $i)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))

  (func (export "jump") (param $k i32) (result i32) (local $i i32)
    (loop $l
      (i32.store (i32.shl (local.get $i) (i32.const 19)) (i32.add (local.get $i) (i32.const 7)))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 0x2000))) (local.get $k))))
    (i32.load (i32.const 0)))

  (func (export "jump64") (param $k i64) (result i32) (local $i i64)
    (loop $l
      (i32.store (i32.shl (i32.wrap_i64 (local.get $i)) (i32.const 19))
                 (i32.add (i32.wrap_i64 (local.get $i)) (i32.const 7)))
      (br_if $l (i64.ne (local.tee $i (i64.add (local.get $i) (i64.const 0x2000))) (local.get $k))))
    (i32.load (i32.const 0)))

  ;; an i64 counter to n, storing at (i mod 2^32) * 8
  (func (export "big") (param $n i64) (local $i i64)
    (loop $l
      (i64.store (i32.shl (i32.wrap_i64 (local.get $i)) (i32.const 3)) (local.get $i))
      (br_if $l (i64.ne (local.tee $i (i64.add (local.get $i) (i64.const 1))) (local.get $n)))))

  (func (export "sum") (param $p i32) (param $n i32) (result i64) (local $i i32) (local $s i64)
    (loop $l
      (local.set $s (i64.add (local.get $s)
                             (i64.load (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 3))))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))

  (func (export "ld") (param $a i32) (result i64) (i64.load (local.get $a)))
  (func (export "size") (result i32) (memory.size))
)

;; in bounds: the copy's results are WebAssembly's
(assert_return (invoke "fill" (i32.const 0x100) (i32.const 100)))
(assert_return (invoke "sum" (i32.const 0x100) (i32.const 100)) (i64.const 5050))
(assert_return (invoke "ld" (i32.const 0x100)) (i64.const 1))
(assert_return (invoke "ld" (i32.const 0x418)) (i64.const 100))
(assert_return (invoke "ld" (i32.const 0x420)) (i64.const 0))
;; the last 8 bytes of the memory exactly
(assert_return (invoke "fill" (i32.const 0xfe00) (i32.const 64)))
(assert_return (invoke "sum" (i32.const 0xfe00) (i32.const 64)) (i64.const 2080))
(assert_return (invoke "ld" (i32.const 0xfff8)) (i64.const 64))

;; past the end: a trap, whichever iteration takes it
(assert_trap (invoke "fill" (i32.const 0xff00) (i32.const 64)) "out of bounds memory access")
(assert_trap (invoke "fill" (i32.const 0xfff8) (i32.const 2)) "out of bounds memory access")
(assert_trap (invoke "fill" (i32.const 0x10000) (i32.const 1000)) "out of bounds memory access")
(assert_trap (invoke "fill" (i32.const 0xfffffff0) (i32.const 2)) "out of bounds memory access")
(assert_trap (invoke "sum" (i32.const 0xff00) (i32.const 64)) "out of bounds memory access")
(assert_trap (invoke "filloff" (i32.const 0) (i32.const 16)) "out of bounds memory access")
(assert_trap (invoke "filloff" (i32.const 0xfffffff0) (i32.const 2)) "out of bounds memory access")
(assert_trap (invoke "down" (i32.const 16) (i32.const 4)) "out of bounds memory access")
(assert_trap (invoke "down" (i32.const 0) (i32.const 1000)) "out of bounds memory access")
(assert_trap (invoke "big" (i64.const 0x100000000000)) "out of bounds memory access")
(assert_trap (invoke "big" (i64.const 0x8000000000)) "out of bounds memory access")
(assert_return (invoke "size") (i32.const 1))

;; wrapping addresses: WebAssembly writes address 0 every iteration
(assert_return (invoke "jump" (i32.const 0x2000)) (i32.const 7))
(assert_return (invoke "jump" (i32.const 0x8000)) (i32.const 0x6007))
(assert_return (invoke "jump" (i32.const 0x100000)) (i32.const 0xfe007))
(assert_return (invoke "jump64" (i64.const 0xa000)) (i32.const 0x8007))
(assert_return (invoke "jump64" (i64.const 0x2000)) (i32.const 7))
;; in bounds after all of the above
(assert_return (invoke "down" (i32.const 0x200) (i32.const 65)))
(assert_return (invoke "ld" (i32.const 0x200)) (i64.const 0))
(assert_return (invoke "ld" (i32.const 0)) (i64.const 64))
(assert_return (invoke "big" (i64.const 100)))
(assert_return (invoke "ld" (i32.const 0x318)) (i64.const 99))
(assert_return (invoke "size") (i32.const 1))

;; a shared memory: exact trap positions whatever the mode
(module
  (memory 1 1 shared)

  (func (export "fill") (param $p i32) (param $n i32) (local $i i32)
    (loop $l
      (i64.store (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 3)))
                 (i64.extend_i32_u (i32.add (local.get $i) (i32.const 1))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))

  (func (export "ld") (param $a i32) (result i64) (i64.load (local.get $a)))
)

(assert_return (invoke "fill" (i32.const 0x100) (i32.const 100)))
(assert_return (invoke "ld" (i32.const 0x418)) (i64.const 100))
;; 63 stores in bounds, an odd count: a vectorized loop's last vector
;; would straddle the end and fault as a whole
(assert_trap (invoke "fill" (i32.const 0xfe08) (i32.const 100)) "out of bounds memory access")
(assert_return (invoke "ld" (i32.const 0xfe08)) (i64.const 1))
(assert_return (invoke "ld" (i32.const 0xffe0)) (i64.const 60))
(assert_return (invoke "ld" (i32.const 0xffe8)) (i64.const 61))
(assert_return (invoke "ld" (i32.const 0xfff0)) (i64.const 62))
(assert_return (invoke "ld" (i32.const 0xfff8)) (i64.const 63))
