;; thread-spawn from a module whose memory is not shared: refused, naming
;; the memory, with status 134.
(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (memory 1)
  (func (export "wasi_thread_start") (param i32 i32))
  (func (export "_start") (drop (call $spawn (i32.const 0)))))
