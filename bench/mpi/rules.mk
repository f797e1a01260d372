# bench/mpi: native vs wasm MPI ping-pong and collective sweep.
#   make bench-mpi            Open MPI (build/), results in build/bench/mpi/openmpi/
#   make bench-mpi MPI=mpich B=build-mpich
# bench/mpi/REPORT.md and its PNGs are refreshed from those by hand
# (cp), so that a noisy run does not overwrite the committed figures.
bench-mpi: toolchain $(B)/mpiwasm
	@B=$(B) MPI=$(MPI) sh bench/mpi/run.sh

bench: bench-mpi
.PHONY: bench-mpi

# The HPCG-shaped CG miniapp on 1 and 2 ranks (bench/mpi/cg-run.sh): writes
# bench/mpi/CG-REPORT.md.
bench-cg: toolchain $(B)/mpiwasm
	@B=$(B) MPI=$(MPI) sh bench/mpi/cg-run.sh

bench: bench-cg
.PHONY: bench-cg

# One-sided latency on an MPI_Win_allocate window, native vs wasm vs the
# bridge's former MPI_Win_allocate (bench/mpi/rma-run.sh).
bench-rma: toolchain $(B)/mpiwasm
	@B=$(B) MPI=$(MPI) sh bench/mpi/rma-run.sh

# The same on an MPI_Win_allocate_shared window: loads and stores through
# MPI_Win_shared_query's pointer, Put, Get (bench/mpi/rma_shared.c).
bench-rma-shared: toolchain $(B)/mpiwasm
	@B=$(B) MPI=$(MPI) sh bench/mpi/rma-run.sh rma_shared

bench: bench-rma bench-rma-shared
.PHONY: bench-rma bench-rma-shared
