# src/cli: the mpiwasm command.  `make demo-run` compiles the examples to
# wasm32-wasi and runs them: hello.c (WASI) alone, mpi_ring.c on 2 ranks.
WASM_CC ?= clang-19 --target=wasm32-wasi --sysroot=/usr
EX_OUT  := $(B)/examples
ifeq ($(MPI),mpich)
MPIRUN  ?= mpiexec.mpich
else
MPIRUN  ?= env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi --oversubscribe
endif

$(EX_OUT)/hello.wasm: examples/hello.c
	@mkdir -p $(@D)
	$(WASM_CC) -O2 $< -o $@

$(EX_OUT)/mpi_ring.wasm: examples/mpi_ring.c $(B)/mpiwasm-cc
	@mkdir -p $(@D)
	$(B)/mpiwasm-cc -O2 $< -o $@

demo-run: $(B)/mpiwasm $(EX_OUT)/hello.wasm $(EX_OUT)/mpi_ring.wasm
	@mkdir -p $(EX_OUT)/data
	$(B)/mpiwasm --dir $(EX_OUT)/data:/data --env GREETING=hi --env HELLO_DIR=/data \
	  $(EX_OUT)/hello.wasm one two
	$(MPIRUN) -np 2 $(B)/mpiwasm $(EX_OUT)/mpi_ring.wasm

.PHONY: demo-run
