;; A valid module without _start: not a command, nothing to run.
(module
  (memory (export "memory") 1)
  (func (export "main") (result i32) (i32.const 0)))
