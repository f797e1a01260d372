;; ctables.wast - call_indirect through constant tables (xlate.c, "Constant
;; tables"): a funcref table defined here, not exported and written by no
;; instruction is called through arrays the translator fills from the
;; element segments, and (xlate.c, "spec") an index loaded from memory that
;; a data segment initialized is looked up in a dispatch array built from
;; the segment, checked against the index actually loaded.  Each case has the expected value worked out by hand
;; from the segments as the WebAssembly spec applies them (in order, later
;; segments overwriting earlier ones), and the tables the analysis must NOT
;; treat as constant (exported, set, filled, copied into, initialized from
;; a passive segment, offset from a global) are checked to see their
;; changes.

;; A module whose functions another one puts in its table.
(module $lib
  (func (export "add100") (param i32) (result i32)
    (i32.add (local.get 0) (i32.const 100)))
  (func (export "neg") (param i32) (result i32)
    (i32.sub (i32.const 0) (local.get 0)))
)
(register "lib" $lib)

(module
  (type $ii (func (param i32) (result i32)))
  (type $ii2 (func (param i32) (result i32)))       ;; the same type again
  (type $il (func (param i32) (result i64)))
  (type $pair (func (param i32) (result i32 i32)))
  (type $v (func))
  (import "lib" "add100" (func $add100 (type $ii)))
  (global $g (mut i32) (i32.const 0))

  ;; $c: 8 slots, max 8; two overlapping segments and a null expression
  (table $c 8 8 funcref)
  (elem (table $c) (i32.const 0) func $inc $dbl $wide $split $tick)
  ;; overwrites slots 1 and 2: slot 1 = $sq, slot 2 = $add100 (imported)
  (elem (table $c) (i32.const 1) funcref (ref.func $sq) (ref.func $add100))
  ;; slot 6 = null by expression, slot 7 = $inc2 (declared with $ii2)
  (elem (table $c) (i32.const 6) funcref (ref.null func) (ref.func $inc2))
  ;; slot 5 never set: null

  ;; $m: min 3, max 10, never grown: constant, but its size is read from
  ;; the table (not a fixed one)
  (table $m 3 10 funcref)
  (elem (table $m) (i32.const 1) func $dbl $inc)

  (func $inc (type $ii) (i32.add (local.get 0) (i32.const 1)))
  (func $inc2 (type $ii2) (i32.add (local.get 0) (i32.const 2)))
  (func $dbl (type $ii) (i32.mul (local.get 0) (i32.const 2)))
  (func $sq (type $ii) (i32.mul (local.get 0) (local.get 0)))
  (func $wide (type $il) (i64.mul (i64.extend_i32_u (local.get 0)) (i64.const 4294967296)))
  (func $split (type $pair) (i32.shr_u (local.get 0) (i32.const 16))
    (i32.and (local.get 0) (i32.const 0xffff)))
  (func $tick (type $v) (global.set $g (i32.add (global.get $g) (i32.const 1))))

  (func (export "c_ii") (param i32 i32) (result i32)
    (call_indirect $c (type $ii) (local.get 1) (local.get 0)))
  (func (export "c_ii2") (param i32 i32) (result i32)
    (call_indirect $c (type $ii2) (local.get 1) (local.get 0)))
  (func (export "c_il") (param i32 i32) (result i64)
    (call_indirect $c (type $il) (local.get 1) (local.get 0)))
  (func (export "c_pair") (param i32 i32) (result i32)
    (call_indirect $c (type $pair) (local.get 1) (local.get 0))
    (i32.sub))
  (func (export "c_tick") (param i32) (result i32)
    (call_indirect $c (type $v) (local.get 0))
    (global.get $g))
  (func (export "m_ii") (param i32 i32) (result i32)
    (call_indirect $m (type $ii) (local.get 1) (local.get 0)))
  ;; the index from memory, as clang's dispatch through a static array
  (memory 1)
  (data (i32.const 64) "\00\00\00\00\01\00\00\00\03\00\00\00\07\00\00\00")
  (func (export "sum4") (param i32) (result i32)
    (local $k i32) (local $acc i32)
    (local.set $acc (local.get 0))
    (loop $l
      (local.set $acc
        (call_indirect $c (type $ii) (local.get $acc)
          (i32.load offset=64 (i32.shl (local.get $k) (i32.const 2)))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $k) (i32.const 4))))
    (local.get $acc))
  (func (export "poke") (param i32 i32) (i32.store offset=64 (local.get 0) (local.get 1)))
  ;; one call, the index from address a + 64: the memarg offset, then an
  ;; i32.add of a constant (as clang emits it), for the dispatch arrays
  (func (export "at") (param i32 i32) (result i32)
    (call_indirect $c (type $ii) (local.get 1) (i32.load offset=64 (local.get 0))))
  (func (export "at2") (param i32 i32) (result i32)
    (call_indirect $c (type $ii) (local.get 1)
      (i32.load (i32.add (local.get 0) (i32.const 64)))))
)
;; slot 0 $inc, 1 $sq, 2 $add100 (import), 3 $split, 4 $tick, 5 null,
;; 6 null, 7 $inc2
(assert_return (invoke "c_ii" (i32.const 0) (i32.const 41)) (i32.const 42))
(assert_return (invoke "c_ii" (i32.const 1) (i32.const 12)) (i32.const 144))
(assert_return (invoke "c_ii" (i32.const 2) (i32.const 5)) (i32.const 105))
(assert_return (invoke "c_ii" (i32.const 7) (i32.const 5)) (i32.const 7))
(assert_return (invoke "c_ii2" (i32.const 0) (i32.const 5)) (i32.const 6))
(assert_return (invoke "c_ii2" (i32.const 1) (i32.const -3)) (i32.const 9))
(assert_return (invoke "c_ii2" (i32.const 2) (i32.const -3)) (i32.const 97))
(assert_return (invoke "c_ii2" (i32.const 7) (i32.const -3)) (i32.const -1))
(assert_trap (invoke "c_ii" (i32.const 3) (i32.const 1)) "indirect call type mismatch")
(assert_trap (invoke "c_ii" (i32.const 4) (i32.const 1)) "indirect call type mismatch")
(assert_trap (invoke "c_ii" (i32.const 5) (i32.const 1)) "uninitialized element")
(assert_trap (invoke "c_ii" (i32.const 6) (i32.const 1)) "uninitialized element")
(assert_trap (invoke "c_ii" (i32.const 8) (i32.const 1)) "undefined element")
(assert_trap (invoke "c_ii" (i32.const -1) (i32.const 1)) "undefined element")
(assert_trap (invoke "c_ii" (i32.const 0x80000000) (i32.const 1)) "undefined element")
;; slot 2 was $wide before the second segment overwrote it
(assert_trap (invoke "c_il" (i32.const 2) (i32.const 3)) "indirect call type mismatch")
(assert_trap (invoke "c_il" (i32.const 0) (i32.const 3)) "indirect call type mismatch")
(assert_trap (invoke "c_il" (i32.const 5) (i32.const 3)) "uninitialized element")
;; 0x00050003: 5 - 3
(assert_return (invoke "c_pair" (i32.const 3) (i32.const 0x00050003)) (i32.const 2))
(assert_trap (invoke "c_pair" (i32.const 0) (i32.const 1)) "indirect call type mismatch")
(assert_return (invoke "c_tick" (i32.const 4)) (i32.const 1))
(assert_return (invoke "c_tick" (i32.const 4)) (i32.const 2))
(assert_trap (invoke "c_tick" (i32.const 7)) "indirect call type mismatch")
(assert_trap (invoke "c_tick" (i32.const 8)) "undefined element")
;; $m: slot 0 null, 1 $dbl, 2 $inc
(assert_trap (invoke "m_ii" (i32.const 0) (i32.const 1)) "uninitialized element")
(assert_return (invoke "m_ii" (i32.const 1) (i32.const 21)) (i32.const 42))
(assert_return (invoke "m_ii" (i32.const 2) (i32.const 21)) (i32.const 22))
(assert_trap (invoke "m_ii" (i32.const 3) (i32.const 21)) "undefined element")
;; slots 0, 1, 3, 7 from memory: ((((2 + 1)^2) ...: 3 -> 9 -> trap at $split
(assert_trap (invoke "sum4" (i32.const 2)) "indirect call type mismatch")
;; slots 0, 1, 2, 7: 2+1 = 3, 9, 109, 111
(invoke "poke" (i32.const 8) (i32.const 2))
(assert_return (invoke "sum4" (i32.const 2)) (i32.const 111))
;; slots 0, 1, 2, 5: the null slot
(invoke "poke" (i32.const 12) (i32.const 5))
(assert_trap (invoke "sum4" (i32.const 2)) "uninitialized element")
;; slots 0, 1, 2, 0x10000 (out of range)
(invoke "poke" (i32.const 12) (i32.const 0x10000))
(assert_trap (invoke "sum4" (i32.const 2)) "undefined element")
(invoke "poke" (i32.const 12) (i32.const 7))
(assert_return (invoke "sum4" (i32.const 2)) (i32.const 111))
;; words 0 and 1 are the ones the data segment set to valid indices (the
;; dispatch array's range): change them under it.
;; slots 7, 1, 2, 7: 2+2 = 4, 16, 116, 118
(invoke "poke" (i32.const 0) (i32.const 7))
(assert_return (invoke "sum4" (i32.const 2)) (i32.const 118))
(invoke "poke" (i32.const 4) (i32.const 3))
(assert_trap (invoke "sum4" (i32.const 2)) "indirect call type mismatch")
(invoke "poke" (i32.const 4) (i32.const 0x10000))
(assert_trap (invoke "sum4" (i32.const 2)) "undefined element")
(invoke "poke" (i32.const 4) (i32.const 5))
(assert_trap (invoke "sum4" (i32.const 2)) "uninitialized element")
(invoke "poke" (i32.const 0) (i32.const 0))
(invoke "poke" (i32.const 4) (i32.const 1))
(assert_return (invoke "sum4" (i32.const 2)) (i32.const 111))
;; memory from 64: words 0, 1, 2, 7
(assert_return (invoke "at" (i32.const 0) (i32.const 5)) (i32.const 6))
(assert_return (invoke "at" (i32.const 4) (i32.const 5)) (i32.const 25))
(assert_return (invoke "at" (i32.const 8) (i32.const 5)) (i32.const 105))
(assert_return (invoke "at" (i32.const 12) (i32.const 5)) (i32.const 7))
;; unaligned: bytes 66-69 are 00 00 01 00, index 0x10000
(assert_trap (invoke "at" (i32.const 2) (i32.const 5)) "undefined element")
;; 0xffffffc0 + offset 64 is 2^32: past the memory, no wrap
(assert_trap (invoke "at" (i32.const 0xffffffc0) (i32.const 5)) "out of bounds memory access")
(assert_return (invoke "at2" (i32.const 0) (i32.const 5)) (i32.const 6))
(assert_return (invoke "at2" (i32.const 4) (i32.const 5)) (i32.const 25))
(assert_trap (invoke "at2" (i32.const 2) (i32.const 5)) "undefined element")
;; the i32.add wraps: address 0, which holds 0 (slot 0, $inc)
(assert_return (invoke "at2" (i32.const 0xffffffc0) (i32.const 5)) (i32.const 6))
;; address 60: bytes 60-63 are 0, slot 0
(assert_return (invoke "at2" (i32.const -4) (i32.const 5)) (i32.const 6))

;; Tables that are not constant: each is changed at run time, and the
;; calls must see the change.
(module $nc
  (type $ii (func (param i32) (result i32)))
  (import "spectest" "global_i32" (global $base i32))   ;; 666
  (table $exp (export "tab") 2 2 funcref)          ;; exported
  (table $set 2 2 funcref)                         ;; table.set
  (table $fill 2 2 funcref)                        ;; table.fill
  (table $copy 2 2 funcref)                        ;; table.copy into it
  (table $init 2 2 funcref)                        ;; table.init into it
  (table $glob 670 670 funcref)                    ;; offset from a global
  (elem (table $exp) (i32.const 0) func $one)
  (elem (table $set) (i32.const 0) func $one)
  (elem (table $fill) (i32.const 0) func $one)
  (elem (table $copy) (i32.const 0) func $one $two)
  (elem (table $init) (i32.const 0) func $one)
  (elem (table $glob) (global.get $base) func $one $two)
  (elem $pass func $two $one)
  (func $one (type $ii) (i32.add (local.get 0) (i32.const 1)))
  (func $two (type $ii) (i32.add (local.get 0) (i32.const 2)))
  (func (export "exp") (param i32) (result i32)
    (call_indirect $exp (type $ii) (i32.const 10) (local.get 0)))
  (func (export "set") (param i32) (result i32)
    (call_indirect $set (type $ii) (i32.const 10) (local.get 0)))
  (func (export "fill") (param i32) (result i32)
    (call_indirect $fill (type $ii) (i32.const 10) (local.get 0)))
  (func (export "copy") (param i32) (result i32)
    (call_indirect $copy (type $ii) (i32.const 10) (local.get 0)))
  (func (export "init") (param i32) (result i32)
    (call_indirect $init (type $ii) (i32.const 10) (local.get 0)))
  (func (export "glob") (param i32) (result i32)
    (call_indirect $glob (type $ii) (i32.const 10) (local.get 0)))
  (func (export "do_set") (table.set $set (i32.const 1) (ref.func $two)))
  (func (export "do_fill") (table.fill $fill (i32.const 0) (ref.func $two) (i32.const 2)))
  (func (export "do_copy") (table.copy $copy $copy (i32.const 0) (i32.const 1) (i32.const 1)))
  (func (export "do_init") (table.init $init $pass (i32.const 0) (i32.const 0) (i32.const 2)))
)
(assert_return (invoke "exp" (i32.const 0)) (i32.const 11))
(assert_trap (invoke "exp" (i32.const 1)) "uninitialized element")
(assert_return (invoke "set" (i32.const 0)) (i32.const 11))
(assert_trap (invoke "set" (i32.const 1)) "uninitialized element")
(invoke "do_set")
(assert_return (invoke "set" (i32.const 1)) (i32.const 12))
(assert_return (invoke "fill" (i32.const 0)) (i32.const 11))
(invoke "do_fill")
(assert_return (invoke "fill" (i32.const 0)) (i32.const 12))
(assert_return (invoke "fill" (i32.const 1)) (i32.const 12))
(assert_return (invoke "copy" (i32.const 0)) (i32.const 11))
(invoke "do_copy")
(assert_return (invoke "copy" (i32.const 0)) (i32.const 12))
(assert_return (invoke "init" (i32.const 0)) (i32.const 11))
(assert_trap (invoke "init" (i32.const 1)) "uninitialized element")
(invoke "do_init")
(assert_return (invoke "init" (i32.const 0)) (i32.const 12))
(assert_return (invoke "init" (i32.const 1)) (i32.const 11))
(assert_trap (invoke "glob" (i32.const 665)) "uninitialized element")
(assert_return (invoke "glob" (i32.const 666)) (i32.const 11))
(assert_return (invoke "glob" (i32.const 667)) (i32.const 12))
(assert_trap (invoke "glob" (i32.const 670)) "undefined element")

;; The exported table, changed from outside: another module imports it
;; and writes it.
(register "nc" $nc)
(module
  (type $ii (func (param i32) (result i32)))
  (import "nc" "tab" (table $t 2 2 funcref))
  (func $three (type $ii) (i32.add (local.get 0) (i32.const 3)))
  (elem declare func $three)
  (func (export "put") (table.set $t (i32.const 1) (ref.func $three)))
)
(invoke "put")
(assert_return (invoke $nc "exp" (i32.const 1)) (i32.const 13))
(assert_return (invoke $nc "exp" (i32.const 0)) (i32.const 11))
