;; The engine side alone: _start spawns 3 threads, each adds its thread
;; id to a counter with an atomic add and notifies; _start waits with
;; memory.atomic.wait32 until all three are in, then exits with the sum
;; of the ids (1 + 2 + 3 = 6) as its status.
(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1 1 shared)
  ;; 0: threads done, 4: sum of ids
  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
    (drop (i32.atomic.rmw.add (i32.const 4) (local.get $tid)))
    (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
    (drop (memory.atomic.notify (i32.const 0) (i32.const 1))))
  (func (export "_start") (local $n i32)
    (if (i32.le_s (call $spawn (i32.const 0)) (i32.const 0)) (then unreachable))
    (if (i32.le_s (call $spawn (i32.const 0)) (i32.const 0)) (then unreachable))
    (if (i32.le_s (call $spawn (i32.const 0)) (i32.const 0)) (then unreachable))
    (block $done
      (loop $wait
        (local.set $n (i32.atomic.load (i32.const 0)))
        (br_if $done (i32.eq (local.get $n) (i32.const 3)))
        (drop (memory.atomic.wait32 (i32.const 0) (local.get $n) (i64.const -1)))
        (br $wait)))
    (call $exit (i32.atomic.load (i32.const 4)))))
