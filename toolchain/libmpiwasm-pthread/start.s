# start.s - wasi_thread_start, the export the engine runs on a new thread
# (wasi-threads).  It must set the thread's stack pointer before any C
# code runs, which C cannot express; start_arg is the thread's descriptor
# (thread.c: the first stack pointer at offset 0, `gone` at offset 4).
# After the C part returned, nothing uses the thread's stack any more: it
# sets `gone` and wakes a joiner, which may then free the stack.

	.globaltype __stack_pointer, i32
	.functype __mpiwasm_thread_main (i32, i32) -> ()

	.text
	.globl wasi_thread_start
	.export_name wasi_thread_start, wasi_thread_start
	.type wasi_thread_start,@function
wasi_thread_start:
	.functype wasi_thread_start (i32, i32) -> ()
	local.get 1
	i32.load 0
	global.set __stack_pointer
	local.get 0
	local.get 1
	call __mpiwasm_thread_main
	local.get 1
	i32.const 1
	i32.atomic.store 4
	local.get 1
	i32.const 4
	i32.add
	i32.const -1
	memory.atomic.notify 0
	drop
	end_function
