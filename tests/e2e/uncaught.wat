;; A wasm exception (exception handling proposal) that no handler catches:
;; the command ends with a trap that names the tag and the thrower.
(module
  (tag $e (param i32))
  (func $thrower (param i32)
    (try (do (throw $e (local.get 0))) (catch_all (rethrow 0))))
  (func $start (export "_start")
    (try (do (call $thrower (i32.const 5))) (delegate 0))))
