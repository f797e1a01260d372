;; Imports a function no host provides: refused before anything compiles.
(module
  (import "env" "nonexistent" (func $f (param i32) (result i32)))
  (import "env" "also_missing" (func $g))
  (memory (export "memory") 1)
  (func (export "_start")
    (drop (call $f (i32.const 1)))
    (call $g)))
