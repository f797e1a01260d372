;; rethrow, delegate, nested try in loops, exceptions across
;; call_indirect and many frames.
(module
  (tag $e (param i32))
  (tag $f (param i32))
  (type $t (func (param i32) (result i32)))
  (table funcref (elem $deep $thrower-i $plain))

  (func $thrower-i (param i32) (result i32) (throw $e (local.get 0)))
  (func $plain (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  ;; recursion: depth frames, then a throw at the bottom
  (func $deep (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0))
      (then (throw $e (i32.const 1000)))
      (else (i32.add (i32.const 1)
              (call_indirect (type $t) (i32.sub (local.get 0) (i32.const 1)) (i32.const 0))))))

  (func (export "indirect") (param i32 i32) (result i32)
    (try (result i32)
      (do (call_indirect (type $t) (local.get 1) (local.get 0)))
      (catch $e (i32.const 1) (i32.add))))
  (func (export "deep") (param i32) (result i32)
    (try (result i32) (do (call $deep (local.get 0))) (catch $e)))

  ;; rethrow from catch and catch_all, to the caller's handler
  (func $rethrow-catch (try (do (throw $e (i32.const 5))) (catch $e (drop) (rethrow 0))))
  (func $rethrow-all (try (do (throw $e (i32.const 6))) (catch_all (rethrow 0))))
  (func (export "rethrow-catch") (result i32)
    (try (result i32) (do (call $rethrow-catch) (i32.const 0)) (catch $e)))
  (func (export "rethrow-all") (result i32)
    (try (result i32) (do (call $rethrow-all) (i32.const 0)) (catch $e)))

  ;; rethrow of the outer caught exception after an inner one was caught
  ;; (depth 1 names the outer catch from inside the inner one)
  (func $rethrow-outer
    (try
      (do (throw $e (i32.const 1)))
      (catch $e
        (drop)
        (try
          (do (throw $f (i32.const 2)))
          (catch $f (drop) (rethrow 1))))))
  (func (export "rethrow-outer") (result i32)
    (try (result i32)
      (do (call $rethrow-outer) (i32.const 0))
      (catch $e (i32.const 10) (i32.add))
      (catch $f (i32.const 20) (i32.add))))
  ;; ... and after the inner one ended
  (func $rethrow-after-inner
    (try
      (do (throw $e (i32.const 3)))
      (catch $e
        (drop)
        (try (do (throw $f (i32.const 4))) (catch $f (drop)))
        (rethrow 0))))
  (func (export "rethrow-after-inner") (result i32)
    (try (result i32) (do (call $rethrow-after-inner) (i32.const 0)) (catch $e)))

  ;; delegate to an enclosing try, skipping the one in between
  (func (export "delegate-skip") (result i32)
    (try $l3 (result i32)
      (do
        (try (result i32)
          (do
            (try (result i32)
              (do (throw $e (i32.const 0)))
              (delegate $l3)))
          (catch $e (drop) (i32.const 2))))
      (catch $e (drop) (i32.const 3))))
  ;; delegate to a block label: the next try outside it handles
  (func (export "delegate-block") (result i32)
    (try (result i32)
      (do
        (block $b (result i32)
          (try (result i32)
            (do
              (try (result i32) (do (throw $e (i32.const 7))) (delegate $b)))
            (catch $e (drop) (i32.const 1)))))
      (catch $e (i32.const 100) (i32.add))))
  ;; delegate to the caller (the function's own label)
  (func $delegate-out (param i32) (result i32)
    (try (result i32)
      (do
        (try (result i32) (do (throw $e (local.get 0))) (delegate 1)))
      (catch $e (drop) (i32.const -1))))
  (func (export "delegate-caller") (result i32)
    (try (result i32) (do (call $delegate-out (i32.const 8))) (catch $e)))
  ;; delegate without an exception: the value passes through
  (func (export "delegate-value") (result i32)
    (try $l (result i32) (do (try (result i32) (do (i32.const 12)) (delegate $l))) (catch_all (i32.const 0))))

  ;; nested try in a loop: each iteration throws and catches, the count
  ;; lives in a local written in the body and read after the catch
  (func (export "loop-try") (param i32) (result i32) (local i32 i32)
    (loop $again
      (try
        (do
          (local.set 1 (i32.add (local.get 1) (i32.const 1)))
          (try
            (do (throw $e (local.get 1)))
            (catch $e (local.set 2 (i32.add (local.get 2)))))
          (if (i32.and (local.get 1) (i32.const 1)) (then (throw $f (i32.const 0)))))
        (catch $f (drop) (local.set 2 (i32.add (local.get 2) (i32.const 1000)))))
      (br_if $again (i32.lt_u (local.get 1) (local.get 0))))
    (local.get 2))

  ;; a try without catch clauses lets the exception through
  (func (export "try-no-catch") (result i32)
    (try (result i32)
      (do (try (do (throw $e (i32.const 9)))) (i32.const 0))
      (catch $e)))

  ;; a throw inside a catch clause goes outward, not to the same try
  (func (export "throw-in-catch") (result i32)
    (try (result i32)
      (do
        (try (result i32)
          (do (throw $e (i32.const 1)))
          (catch $e (throw $f (i32.const 2)))
          (catch $f (drop) (i32.const -1))))
      (catch $f (i32.const 40) (i32.add))))
)

(assert_return (invoke "indirect" (i32.const 1) (i32.const 4)) (i32.const 5))
(assert_return (invoke "indirect" (i32.const 2) (i32.const 4)) (i32.const 5))
(assert_return (invoke "indirect" (i32.const 0) (i32.const 3)) (i32.const 1001))
(assert_trap (invoke "indirect" (i32.const 7) (i32.const 0)) "undefined element")
(assert_return (invoke "deep" (i32.const 0)) (i32.const 1000))
(assert_return (invoke "deep" (i32.const 200)) (i32.const 1000))
(assert_return (invoke "rethrow-catch") (i32.const 5))
(assert_return (invoke "rethrow-all") (i32.const 6))
(assert_return (invoke "rethrow-outer") (i32.const 11))
(assert_return (invoke "rethrow-after-inner") (i32.const 3))
(assert_return (invoke "delegate-skip") (i32.const 3))
(assert_return (invoke "delegate-block") (i32.const 107))
(assert_return (invoke "delegate-caller") (i32.const 8))
(assert_return (invoke "delegate-value") (i32.const 12))
(assert_return (invoke "loop-try" (i32.const 4)) (i32.const 2010))
(assert_return (invoke "try-no-catch") (i32.const 9))
(assert_return (invoke "throw-in-catch") (i32.const 42))
