# bench/wasi: `make bench-wasi` runs the I/O benchmarks native and wasm
# interleaved and writes bench/wasi/REPORT.md (see bench/wasi/run.sh).
# The MPI variant of ior (a file per rank under mpirun -np 2) is built
# with mpicc and $(B)/mpiwasm-cc when they work; run.sh skips it, saying
# so, when they do not.
ifndef BW_T
BW_T := $(B)/bench/wasi
BW_WASM_CC ?= clang-19 --target=wasm32-wasi --sysroot=/usr
BW_MPICC ?= $(if $(filter mpich,$(MPI)),mpicc.mpich,mpicc.openmpi)

$(BW_T)/%.wasm: bench/wasi/%.c
	@mkdir -p $(@D)
	$(BW_WASM_CC) -O2 -o $@ $<

$(BW_T)/%: bench/wasi/%.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -o $@ $<

# The MPI builds may fail (no toolchain yet): run.sh checks they exist.
$(BW_T)/ior_mpi: bench/wasi/ior.c
	@mkdir -p $(@D)
	-$(BW_MPICC) -std=gnu11 -O2 -DIOR_MPI -o $@ $<

$(BW_T)/ior_mpi.wasm: bench/wasi/ior.c $(B)/mpiwasm-cc
	@mkdir -p $(@D)
	-$(B)/mpiwasm-cc -O2 -DIOR_MPI -o $@ $<

bench-wasi: $(B)/mpiwasm $(BW_T)/ior $(BW_T)/ior.wasm $(BW_T)/smallops \
		$(BW_T)/smallops.wasm $(BW_T)/ior_mpi $(BW_T)/ior_mpi.wasm
	@MPI=$(MPI) sh bench/wasi/run.sh $(B)

bench: bench-wasi
.PHONY: bench-wasi
endif
