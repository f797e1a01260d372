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
  ;; throw must not land in it
  (func $thrower (throw $ei (i32.const 42)))
  (func (export "br-out") (result i32)
    (block $b
      (try (do (br $b)) (catch_all)))
    (try (result i32) (do (call $thrower) (i32.const 0)) (catch $ei)))
  (func $ret-from-try (result i32)
    (try (result i32) (do (return (i32.const 1))) (catch_all (i32.const 2))))
  (func (export "return-out") (result i32)
    (drop (call $ret-from-try))
    (try (result i32) (do (call $thrower) (i32.const 0)) (catch $ei (i32.const 1) (i32.add))))
  (func (export "br-table-out") (param i32) (result i32)
    (block $a (block $b
      (try (do (br_table $a $b (local.get 0))) (catch_all))))
    (try (result i32) (do (call $thrower) (i32.const 0)) (catch $ei)))

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
(assert_return (invoke "catch-multi" (i32.const 1) (i64.const 2) (f64.const 0.5)) (f64.const 3.5))
(assert_return (invoke "clauses" (i32.const 0)) (i32.const 11))
(assert_return (invoke "clauses" (i32.const 1)) (i32.const 22))
(assert_return (invoke "clauses" (i32.const 2)) (i32.const 3))
(assert_return (invoke "clauses" (i32.const 3)) (i32.const 99))
(assert_return (invoke "pass-through" (i32.const 0)) (i32.const 0))
(assert_return (invoke "pass-through" (i32.const 1)) (i32.const 105))
(assert_exception (invoke "uncaught"))
(assert_return (invoke "local-after-throw" (i32.const 4)) (i32.const 21))
(assert_return (invoke "br-out") (i32.const 42))
(assert_return (invoke "return-out") (i32.const 43))
(assert_return (invoke "br-table-out" (i32.const 0)) (i32.const 42))
(assert_return (invoke "br-table-out" (i32.const 1)) (i32.const 42))
(assert_return (invoke "br-table-out" (i32.const 7)) (i32.const 42))
(assert_return (invoke "try-params") (i32.const 4))
(assert_trap (invoke "trap-not-caught") "unreachable")
(assert_trap (invoke "div-not-caught" (i32.const 0)) "integer divide by zero")
(assert_return (invoke "div-not-caught" (i32.const 1)) (i32.const 1))
(assert_return (invoke "after-trap") (i32.const 42))
