;; thread-spawn from a module that exports no wasi_thread_start: refused
;; with a message naming it, with status 134.
(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (memory 1 1 shared)
  (func (export "_start") (drop (call $spawn (i32.const 0)))))
