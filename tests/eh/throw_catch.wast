;; Exception handling (the legacy proposal clang -fwasm-exceptions emits):
;; throw and catch of every value type, catch_all, several catch clauses,
;; branches out of try bodies, traps that catch clauses must not see.
(module
  (tag $e0)
  (tag $ei (param i32))
  (tag $eI (param i64))
  (tag $ef (param f32))
  (tag $eF (param f64))
  (tag $er (param externref))
  (tag $emulti (param i32 i64 f64))
  (tag $ev (param v128))
  (tag $efr (param funcref))
  (tag $eother (param i32))

  (func (export "no-throw") (result i32)
    (try (result i32) (do (i32.const 1)) (catch $e0 (i32.const 2))))

  (func (export "catch-empty") (result i32)
    (try (result i32) (do (throw $e0)) (catch $e0 (i32.const 7))))

  (func (export "catch-i32") (param i32) (result i32)
    (try (result i32) (do (throw $ei (local.get 0))) (catch $ei)))
  (func (export "catch-i64") (param i64) (result i64)
    (try (result i64) (do (throw $eI (local.get 0))) (catch $eI)))
  (func (export "catch-f32") (param f32) (result f32)
    (try (result f32) (do (throw $ef (local.get 0))) (catch $ef)))
  (func (export "catch-f64") (param f64) (result f64)
    (try (result f64) (do (throw $eF (local.get 0))) (catch $eF)))
  (func (export "catch-externref") (param externref) (result externref)
    (try (result externref) (do (throw $er (local.get 0))) (catch $er)))
  (func (export "catch-v128") (param i64 i64) (result i64)
    (try (result v128)
      (do (throw $ev (i64x2.replace_lane 1 (i64x2.splat (local.get 0)) (local.get 1))))
      (catch $ev))
    (i64x2.extract_lane 1))
  (func $seven (result i32) (i32.const 7))
  (elem declare func $seven)
  (type $ri (func (result i32)))
  (table $ft 1 funcref)
  (func (export "catch-funcref") (result i32)
    (table.set $ft (i32.const 0)
      (try (result funcref) (do (throw $efr (ref.func $seven))) (catch $efr)))
    (call_indirect $ft (type $ri) (i32.const 0)))
  (func (export "catch-multi") (param i32 i64 f64) (result f64)
    (try (result i32 i64 f64)
      (do (throw $emulti (local.get 0) (local.get 1) (local.get 2)))
      (catch $emulti))
    (local.set 2)
    (f64.convert_i64_s) (local.get 2) (f64.add) (local.set 2)
    (f64.convert_i32_s) (local.get 2) (f64.add))

  ;; the first clause that names the tag wins; catch_all takes the rest
  (func (export "clauses") (param i32) (result i32)
    (try (result i32)
      (do
        (if (i32.eq (local.get 0) (i32.const 0)) (then (throw $ei (i32.const 10))))
        (if (i32.eq (local.get 0) (i32.const 1)) (then (throw $eother (i32.const 20))))
        (if (i32.eq (local.get 0) (i32.const 2)) (then (throw $e0)))
        (i32.const 99))
      (catch $ei (i32.add (i32.const 1)))
      (catch $eother (i32.add (i32.const 2)))
      (catch_all (i32.const 3))))

  ;; no matching clause: the exception goes on to the caller
  (func $only-ei (param i32) (result i32)
    (try (result i32)
      (do (if (local.get 0) (then (throw $eother (i32.const 5)))) (i32.const 0))
      (catch $ei)))
  (func (export "pass-through") (param i32) (result i32)
    (try (result i32) (do (call $only-ei (local.get 0))) (catch $eother (i32.const 100) (i32.add))))
  (func (export "uncaught") (result i32) (call $only-ei (i32.const 1)))

  ;; a local written in the try body is seen by the catch clause
  (func (export "local-after-throw") (param i32) (result i32) (local i32)
    (try
      (do (local.set 1 (i32.const 5))
          (local.set 1 (i32.mul (local.get 1) (local.get 0)))
          (throw $e0))
      (catch $e0 (local.set 1 (i32.add (local.get 1) (i32.const 1)))))
    (local.get 1))

  ;; branches and return out of a try body pop its handler: a later
  ;; throw, inside a try body entered before, must land in that try, not
  ;; in the frame of a function that has returned
  (func $thrower (throw $ei (i32.const 42)))
  (func $br-out
    (block $b
      (try (do (br $b)) (catch_all))))
  (func $ret-from-try (result i32)
    (try (result i32) (do (return (i32.const 1))) (catch_all (i32.const 2))))
  (func $br-table-out (param i32)
    (block $a (block $b
      (try (do (br_table $a $b (local.get 0))) (catch_all)))))
  (func $br-if-out (param i32)
    (block $a
      (try (do (br_if $a (local.get 0))) (catch_all))))
  ;; leaving an outer try body from an inner catch clause pops the outer
  ;; frame too
  (func $br-from-catch
    (block $out
      (try
        (do (try (do (throw $e0)) (catch $e0 (br $out))))
        (catch_all))))
  (func $ret-from-catch (result i32)
    (try (result i32)
      (do (try (result i32) (do (throw $e0)) (catch $e0 (return (i32.const 5)))))
      (catch_all (i32.const 6))))
  (func (export "leave") (param i32) (result i32)
    (try (result i32)
      (do
        (block $done
          (block $5 (block $4 (block $3 (block $2 (block $1 (block $0
            (br_table $0 $1 $2 $3 $4 $5 (local.get 0)))
            (call $br-out) (br $done))
            (drop (call $ret-from-try)) (br $done))
            (call $br-table-out (i32.const 1)) (br $done))
            (call $br-if-out (i32.const 1)) (br $done))
            (call $br-from-catch) (br $done))
            (drop (call $ret-from-catch)))
        (call $thrower)
        (i32.const 0))
      (catch $ei (local.get 0) (i32.add))))

  ;; a try with block parameters
  (func (export "try-params") (result i32)
    (i32.const 3)
    (try (param i32) (result i32)
      (do (throw $ei))
      (catch $ei (i32.const 1) (i32.add))))

  ;; traps are not exceptions
  (func (export "trap-not-caught") (result i32)
    (try (result i32) (do (unreachable)) (catch_all (i32.const 1))))
  (func (export "div-not-caught") (param i32) (result i32)
    (try (result i32) (do (i32.div_u (i32.const 1) (local.get 0))) (catch_all (i32.const 1))))

  (memory 1)
  (func (export "oob-not-caught") (param i32) (result i32)
    (try (result i32) (do (i32.load (local.get 0))) (catch_all (i32.const 1))))
  (func $recurse (param i32) (result i32)
    (try (result i32)
      (do (i32.add (call $recurse (i32.add (local.get 0) (i32.const 1))) (i32.const 1)))
      (catch_all (i32.const 1))))
  (func (export "exhaustion-not-caught") (result i32) (call $recurse (i32.const 0)))

  ;; the module still works after a trap inside a try
  (func (export "after-trap") (result i32)
    (try (result i32) (do (call $thrower) (i32.const 0)) (catch $ei)))
)

(assert_return (invoke "no-throw") (i32.const 1))
(assert_return (invoke "catch-empty") (i32.const 7))
(assert_return (invoke "catch-i32" (i32.const -3)) (i32.const -3))
(assert_return (invoke "catch-i64" (i64.const 0x123456789abc)) (i64.const 0x123456789abc))
(assert_return (invoke "catch-f32" (f32.const 1.5)) (f32.const 1.5))
(assert_return (invoke "catch-f32" (f32.const nan:0x200000)) (f32.const nan:0x200000))
(assert_return (invoke "catch-f64" (f64.const -2.25)) (f64.const -2.25))
(assert_return (invoke "catch-externref" (ref.extern 3)) (ref.extern 3))
(assert_return (invoke "catch-externref" (ref.null extern)) (ref.null extern))
(assert_return (invoke "catch-v128" (i64.const 1) (i64.const 0x7fff00000000ffff)) (i64.const 0x7fff00000000ffff))
(assert_return (invoke "catch-funcref") (i32.const 7))
(assert_return (invoke "catch-multi" (i32.const 1) (i64.const 2) (f64.const 0.5)) (f64.const 3.5))
(assert_return (invoke "clauses" (i32.const 0)) (i32.const 11))
(assert_return (invoke "clauses" (i32.const 1)) (i32.const 22))
(assert_return (invoke "clauses" (i32.const 2)) (i32.const 3))
(assert_return (invoke "clauses" (i32.const 3)) (i32.const 99))
(assert_return (invoke "pass-through" (i32.const 0)) (i32.const 0))
(assert_return (invoke "pass-through" (i32.const 1)) (i32.const 105))
(assert_exception (invoke "uncaught"))
(assert_return (invoke "local-after-throw" (i32.const 4)) (i32.const 21))
(assert_return (invoke "leave" (i32.const 0)) (i32.const 42))
(assert_return (invoke "leave" (i32.const 1)) (i32.const 43))
(assert_return (invoke "leave" (i32.const 2)) (i32.const 44))
(assert_return (invoke "leave" (i32.const 3)) (i32.const 45))
(assert_return (invoke "leave" (i32.const 4)) (i32.const 46))
(assert_return (invoke "leave" (i32.const 5)) (i32.const 47))
(assert_return (invoke "try-params") (i32.const 4))
(assert_trap (invoke "trap-not-caught") "unreachable")
(assert_trap (invoke "div-not-caught" (i32.const 0)) "integer divide by zero")
(assert_return (invoke "div-not-caught" (i32.const 1)) (i32.const 1))
(assert_trap (invoke "oob-not-caught" (i32.const 65536)) "out of bounds memory access")
(assert_return (invoke "oob-not-caught" (i32.const 0)) (i32.const 0))
(assert_exhaustion (invoke "exhaustion-not-caught") "call stack exhausted")
(assert_return (invoke "after-trap") (i32.const 42))
;; across modules: an exception of another instance's tag passes through
;; its import call, is caught by catch_all and rethrown, but no catch of
;; this instance's own tag (same index, other identity) takes it
(module $A
  (tag $a (param i32))
  (func (export "throw") (param i32) (throw $a (local.get 0)))
  (func (export "catch") (param i32) (result i32)
    (try (result i32) (do (call 0 (local.get 0)) (i32.const 0)) (catch $a))))
(register "A" $A)
(module
  (import "A" "throw" (func $athrow (param i32)))
  (import "A" "catch" (func $acatch (param i32) (result i32)))
  (tag $b (param i32))
  (func $rethrower (param i32)
    (try (do (call $athrow (local.get 0))) (catch_all (rethrow 0))))
  (func (export "catch-all-import") (result i32)
    (try (result i32) (do (call $athrow (i32.const 1)) (i32.const 0)) (catch_all (i32.const 1))))
  (func (export "own-tag-does-not-match") (result i32)
    (try (result i32)
      (do (call $athrow (i32.const 1)) (i32.const 0))
      (catch $b (drop) (i32.const 2))
      (catch_all (i32.const 3))))
  (func (export "uncaught-import") (call $rethrower (i32.const 4)))
  (func (export "caught-in-other") (result i32) (call $acatch (i32.const 9))))
(assert_return (invoke "catch-all-import") (i32.const 1))
(assert_return (invoke "own-tag-does-not-match") (i32.const 3))
(assert_exception (invoke "uncaught-import"))
(assert_return (invoke "caught-in-other") (i32.const 9))
