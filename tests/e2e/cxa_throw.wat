;; Throws a C++ exception through the env.__cxa_throw import before
;; MPI_Init, as MPIWasm's published IMB binary does on -help: the message
;; must say that MPI was not initialized, not "rank -1".
(module
  (import "env" "__cxa_allocate_exception" (func $alloc (param i32) (result i32)))
  (import "env" "__cxa_throw" (func $throw (param i32 i32 i32)))
  (memory (export "memory") 1)
  (func $malloc (export "malloc") (param i32) (result i32) (i32.const 1024))
  (func (export "free") (param i32))
  (func $start (export "_start")
    (call $throw (call $alloc (i32.const 8)) (i32.const 0) (i32.const 0))))
