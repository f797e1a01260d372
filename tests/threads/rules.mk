# tests/threads: `make check-threads` (see tests/threads/run.sh).  The
# t_*.c programs are built with gcc -pthread and with mpiwasm-cc -pthread
# from the same source; h_mpi.c with the native MPI wrapper too.
THR_T     := $(B)/tests/threads
THR_PROGS := t_mutex t_cond t_sync t_tsd t_detach t_libc t_exit t_mainexit
THR_WAT   := w_spawn n_unshared n_nostart
ifeq ($(MPI),mpich)
THR_MPICC ?= mpicc.mpich
else
THR_MPICC ?= mpicc.openmpi
endif

$(THR_T)/%.wasm: tests/threads/progs/%.c tests/threads/progs/common.h \
		$(B)/share/mpiwasm/lib/libmpiwasm-pthread.a $(B)/mpiwasm-cc
	@mkdir -p $(@D)
	$(B)/mpiwasm-cc -pthread -O2 -Wall -Wextra -o $@ $<

$(THR_T)/%: tests/threads/progs/%.c tests/threads/progs/common.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -pthread -O2 -Wall -Wextra -o $@ $<

$(THR_T)/h_mpi: tests/threads/progs/h_mpi.c
	@mkdir -p $(@D)
	if command -v $(THR_MPICC) >/dev/null; then $(THR_MPICC) -O2 -Wall -o $@ $<; fi

$(THR_T)/%.wasm: tests/threads/wat/%.wat
	@mkdir -p $(@D)
	wat2wasm --enable-threads --debug-names $< -o $@

check-threads: toolchain $(B)/mpiwasm $(THR_PROGS:%=$(THR_T)/%) $(THR_PROGS:%=$(THR_T)/%.wasm) \
		$(THR_T)/t_trap.wasm $(THR_WAT:%=$(THR_T)/%.wasm) $(THR_T)/h_mpi $(THR_T)/h_mpi.wasm \
		$(THR_T)/h_trap.wasm
	@B=$(B) MPI=$(MPI) timeout 1200 sh tests/threads/run.sh

CHECKS += check-threads
.PHONY: check-threads
