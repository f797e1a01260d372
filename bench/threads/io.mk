# bench/threads/io.mk: `make bench-threads-io`, file I/O from a worker
# thread against the main thread, native and wasm (io_run.sh), into the
# "File I/O from threads" section of bench/threads/REPORT.md.
BT_T := $(B)/bench/threads

$(BT_T)/io: bench/threads/io.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -pthread -Wall -Wextra -o $@ $<

$(BT_T)/io.wasm: bench/threads/io.c $(B)/mpiwasm-cc $(B)/share/mpiwasm/lib/libmpiwasm-pthread.a
	@mkdir -p $(@D)
	$(B)/mpiwasm-cc -O2 -pthread -Wall -Wextra -o $@ $<

bench-threads-io: toolchain $(B)/mpiwasm $(BT_T)/io $(BT_T)/io.wasm
	@sh bench/threads/io_run.sh $(B)

bench: bench-threads-io
.PHONY: bench-threads-io
