# bench/ - native-vs-wasm benchmarks.  `make bench` runs every suite:
# bench-kernels here, bench-wasi and bench-mpi from their own fragments
# (each adds itself as a prerequisite of `bench`).
#
#   make bench-kernels          kernels, cold compile, start-up -> REPORT.md
#   make bench-compile          compile time of the large module only, cold
#                               and rebuilt with a few changes (coldcompile.sh)
#   make bench-kernels-o3       real-code kernels, wasm -O2 vs native -O3 -march=native
#   make check-bench-kernels    each kernel once, native vs wasm checksums
#   BENCH_RUNS=7 BENCH_OPT=-O3  more runs / another -O level (both sides)

BENCH_DIR    := $(B)/bench/kernels
BENCH_KERNELS := dgemm jacobi triad isort spmv fib indirect \
                 hpcg_spmv hpcg_symgs hpcg_cg verify memloop gather search soa
BENCH_OPT    ?= -O2
BENCH_CC     ?= $(CC)
BENCH_WASMCC ?= clang-19 --target=wasm32-wasi --sysroot=/usr
BENCH_BIGN   ?= 3000
# Same source, same -O level, no FMA contraction on either side (wasm
# rounds every operation; see bench/README.md).
BENCH_COMMON := -std=gnu11 -ffp-contract=off -Wall -Wextra -Wshadow
BENCH_NATIVE_FLAGS := $(BENCH_COMMON) $(BENCH_OPT) -march=native
BENCH_WASM_FLAGS   := $(BENCH_COMMON) $(BENCH_OPT)
# The SIMD variant: auto-vectorized -O3 on both sides.
BENCH_NATIVE_SIMD  := $(BENCH_COMMON) -O3 -march=native
BENCH_WASM_SIMD    := $(BENCH_COMMON) -O3 -msimd128

BENCH_BINS := $(foreach k,$(BENCH_KERNELS),$(BENCH_DIR)/$(k) $(BENCH_DIR)/$(k).wasm \
                $(BENCH_DIR)/$(k).o3 $(BENCH_DIR)/$(k).simd.wasm) \
              $(BENCH_DIR)/hello $(BENCH_DIR)/hello.wasm $(BENCH_DIR)/big.wasm \
              $(BENCH_DIR)/big-edit.wasm

$(BENCH_DIR)/%: bench/kernels/%.c bench/kernels/bench.h bench/kernels/hpcg.h
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_NATIVE_FLAGS) -o $@ $<

$(BENCH_DIR)/%.wasm: bench/kernels/%.c bench/kernels/bench.h bench/kernels/hpcg.h
	@mkdir -p $(@D)
	$(BENCH_WASMCC) $(BENCH_WASM_FLAGS) -o $@ $<

$(BENCH_DIR)/%.o3: bench/kernels/%.c bench/kernels/bench.h bench/kernels/hpcg.h
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_NATIVE_SIMD) -o $@ $<

$(BENCH_DIR)/%.simd.wasm: bench/kernels/%.c bench/kernels/bench.h bench/kernels/hpcg.h
	@mkdir -p $(@D)
	$(BENCH_WASMCC) $(BENCH_WASM_SIMD) -o $@ $<

$(BENCH_DIR)/big.c: bench/kernels/gen-big.sh
	@mkdir -p $(@D)
	sh bench/kernels/gen-big.sh $(BENCH_BIGN) > $@.tmp && mv $@.tmp $@

$(BENCH_DIR)/big.wasm: $(BENCH_DIR)/big.c
	nice $(BENCH_WASMCC) $(BENCH_WASM_FLAGS) -o $@ $<

# The same program with a few functions changed: the rebuilt application of
# the compile-time measurement (bench/kernels/coldcompile.sh).
BENCH_BIG_EDITS ?= 3
$(BENCH_DIR)/big-edit.c: $(BENCH_DIR)/big.c bench/kernels/edit-big.sh
	sh bench/kernels/edit-big.sh $< $(BENCH_BIG_EDITS) > $@.tmp && mv $@.tmp $@
	echo $(BENCH_BIG_EDITS) > $(BENCH_DIR)/big-edit.n

$(BENCH_DIR)/big-edit.wasm: $(BENCH_DIR)/big-edit.c
	nice $(BENCH_WASMCC) $(BENCH_WASM_FLAGS) -o $@ $<

bench-kernels-build: $(BENCH_BINS)

bench-kernels: all bench-kernels-build
	BENCH_NATIVE_FLAGS="$(BENCH_NATIVE_FLAGS)" BENCH_WASM_FLAGS="$(BENCH_WASM_FLAGS)" \
	  BENCH_CC="$(BENCH_CC)" sh bench/kernels/run.sh $(B)

# The scalar wasm build (-O2) of the real-code kernels against native -O3
# -march=native, issue 14's goal: writes $(BENCH_DIR)/REPORT-O3.md.
bench-kernels-o3: all bench-kernels-build
	BENCH_VS_O3=1 BENCH_WASM_FLAGS="$(BENCH_WASM_FLAGS)" \
	  BENCH_NATIVE_SIMD_FLAGS="$(BENCH_NATIVE_SIMD)" BENCH_CC="$(BENCH_CC)" sh bench/kernels/run.sh $(B)

# The check runs every kernel once; the 3,000-function modules of the
# compile-time measurement (big.wasm and big-edit.wasm, 15 s of clang each)
# are left to the full run.
check-bench-kernels: all $(filter-out $(BENCH_DIR)/big.wasm $(BENCH_DIR)/big-edit.wasm,$(BENCH_BINS))
	sh bench/kernels/run.sh --check $(B)

# The tiered start's measurement: the same functions, main calling them in
# rounds (gen-big.sh N loop).
$(BENCH_DIR)/big-loop.c: bench/kernels/gen-big.sh
	@mkdir -p $(@D)
	sh bench/kernels/gen-big.sh $(BENCH_BIGN) loop > $@.tmp && mv $@.tmp $@

$(BENCH_DIR)/big-loop.wasm: $(BENCH_DIR)/big-loop.c
	nice $(BENCH_WASMCC) $(BENCH_WASM_FLAGS) -o $@ $<

bench-compile: all $(BENCH_DIR)/big.wasm $(BENCH_DIR)/big-edit.wasm $(BENCH_DIR)/big-loop.wasm
	sh bench/kernels/coldcompile.sh $(B)

bench: bench-kernels

CHECKS += check-bench-kernels
.PHONY: bench bench-kernels bench-kernels-o3 bench-kernels-build bench-compile check-bench-kernels
.SECONDARY: $(BENCH_DIR)/big.c $(BENCH_DIR)/big-edit.c $(BENCH_DIR)/big-loop.c

-include bench/wasi/rules.mk bench/mpi/rules.mk bench/coll/rules.mk bench/threads/rules.mk \
  bench/threads/io.mk bench/miniapp/rules.mk
