;; Exception handling typing rules (assert_invalid) and what is malformed.
(assert_invalid
  (module (tag $e (param i32)) (func (throw $e (i64.const 0))))
  "type mismatch")
(assert_invalid
  (module (tag $e (param i32)) (func (throw $e)))
  "type mismatch")
(assert_invalid
  (module (func (throw 0)))
  "unknown tag")
(assert_invalid
  (module (tag $e (param i64)) (func (result i32)
    (try (result i32) (do (i32.const 0)) (catch $e))))
  "type mismatch")
(assert_invalid
  (module (tag $e) (func (result i32)
    (try (result i32) (do (i32.const 0)) (catch $e))))
  "type mismatch")
(assert_invalid
  (module (func (result i32)
    (try (result i32) (do (i64.const 0)) (catch_all (i32.const 0)))))
  "type mismatch")
(assert_invalid
  (module (func (rethrow 0)))
  "invalid rethrow label")
(assert_invalid
  (module (func (try (do (rethrow 0)) (catch_all))))
  "invalid rethrow label")
(assert_invalid
  (module (tag $e) (func (try (do) (catch $e (block (rethrow 0))))))
  "invalid rethrow label")
(assert_invalid
  (module (func (try (do) (catch_all (rethrow 2)))))
  "unknown label")
(assert_invalid
  (module (func (try (do) (delegate 1))))
  "unknown label")
(assert_invalid
  (module (type (func (result i32))) (tag (type 0)))
  "non-empty tag result type")
(module
  (tag $e (param i32))
  (func (try (do) (catch $e (drop) (rethrow 0))))
  (func (try (do) (catch_all (block (rethrow 1)))))
  (func (try (do) (delegate 0)))
  (export "e" (tag $e)))
;; tags are not imported (an exception's identity is its instance and
;; tag index); the link fails with a message instead
(module $T (tag (export "t") (param i32)))
(register "T" $T)
(assert_unlinkable
  (module (import "T" "t" (tag (param i32))))
  "incompatible import type")
