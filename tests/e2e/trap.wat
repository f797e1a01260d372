;; Divides by zero in a named function: the trap message names it.
(module
  (memory (export "memory") 1)
  (global $zero (mut i32) (i32.const 0))
  (func $divide (param i32 i32) (result i32)
    (i32.div_s (local.get 0) (local.get 1)))
  (func $start (export "_start")
    (drop (call $divide (i32.const 7) (global.get $zero)))))
