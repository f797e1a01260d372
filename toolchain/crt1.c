/* crt1.c - the entry point mpiwasm-cc links instead of wasi-libc's
 * crt1-command.o.
 *
 * Debian's crt1-command.o leaves constructors and destructors to wasm-ld,
 * which then wraps EVERY export of a command module in
 * "ctors; f(); __wasm_call_dtors()".  The host calls the exported malloc
 * and free (MPI_Alloc_mem, staging buffers) in the middle of the run, and
 * each such call would flush stdio and run atexit handlers and C++ static
 * destructors.  Calling __wasm_call_ctors here tells wasm-ld that the module
 * runs its own constructors, so no export is wrapped. */
extern void __wasm_call_ctors(void);
extern void __wasm_call_dtors(void);
extern int __main_void(void);
/* libmpiwasm-cxxabi's (C++ programs that throw link it): main under a
 * catch-all that names an exception leaving main.  Weak: without it,
 * main is called directly. */
extern int __mpiwasm_main(int (*main_fn)(void)) __attribute__((weak));
/* wasi-libc's own exit without atexit processing; declaring the WASI
 * import here instead would clash with wasi-libc's declaration of it. */
extern _Noreturn void _Exit(int status);

__attribute__((export_name("_start")))
void _start(void)
{
	static volatile int entered;
	int status;

	if (entered)  /* a command instance runs once */
		__builtin_trap();
	entered = 1;
	__wasm_call_ctors();
	status = __mpiwasm_main ? __mpiwasm_main(__main_void) : __main_void();
	__wasm_call_dtors();  /* atexit handlers, static destructors, stdio flush */
	if (status != 0)
		_Exit(status);
}
