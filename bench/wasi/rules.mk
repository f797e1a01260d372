# bench/wasi: `make bench-wasi` runs the I/O benchmarks native and wasm
# side by side and writes bench/wasi/REPORT.md (see bench/wasi/run.sh).
ifndef BW_T
BW_T := $(B)/bench/wasi
BW_WASM_CC ?= clang-19 --target=wasm32-wasi --sysroot=/usr

$(BW_T)/%.wasm: bench/wasi/%.c
	@mkdir -p $(@D)
	$(BW_WASM_CC) -O2 -o $@ $<

$(BW_T)/%: bench/wasi/%.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -o $@ $<

bench-wasi: $(B)/mpiwasm $(BW_T)/ior $(BW_T)/ior.wasm $(BW_T)/smallops $(BW_T)/smallops.wasm
	@sh bench/wasi/run.sh $(B)

bench: bench-wasi
.PHONY: bench-wasi
endif
