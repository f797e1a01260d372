# tests/omp: `make check-omp` (see tests/omp/run.sh): libmpiwasm-malloc
# and libmpiwasm-omp natively against glibc/libgomp and, when mpiwasm-cc
# -pthread works, in wasm.
check-omp: toolchain-threads-native toolchain $(B)/mpiwasm
	@B=$(B) MPI=$(MPI) timeout 1200 sh tests/omp/run.sh

CHECKS += check-omp
.PHONY: check-omp
