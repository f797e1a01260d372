# bench/threads: `make bench-threads` - the threaded allocator and the
# OpenMP runtime, native vs wasm in the same run (bench/threads/run.sh);
# results in $(B)/bench/threads/, the table in bench/threads/REPORT.md and
# bench/threads/threads.png.
# (toolchain/threads.mk adds the wasm one-lock allocator when it can be built.)
bench-threads: toolchain-threads-native toolchain $(B)/mpiwasm
	@B=$(B) sh bench/threads/run.sh

bench: bench-threads
.PHONY: bench-threads
