# The MPI test suite (tests/mpi/run.sh): programs built with mpiwasm-cc and
# natively, run under mpirun with 1-4 ranks natively and under mpiwasm.
#   make check-mpi              Open MPI (default PML)
#   make check-mpi-ob1          Open MPI with --mca pml ob1 (2 and 4 ranks)
#   make check-mpi-mpich        MPICH: builds the engine into build-mpich/
MPI_TEST_ENV = B=$(B) MPI=$(MPI)

check-mpi: toolchain $(B)/mpiwasm
	@$(MPI_TEST_ENV) timeout 1800 sh tests/mpi/run.sh

# ob1 runs the native-vs-wasm programs on 2 and 4 ranks (a pair, and
# more peers than cores); 1 and 3 ranks are covered by check-mpi.
check-mpi-ob1: toolchain $(B)/mpiwasm
	@$(MPI_TEST_ENV) MCA="--mca pml ob1" NPS="2 4" timeout 1800 sh tests/mpi/run.sh

check-mpi-mpich:
	$(MPICH_BUILD)
	@B=build-mpich MPI=mpich timeout 1800 sh tests/mpi/run.sh

CHECKS += check-mpi check-mpi-ob1 check-mpi-mpich
.PHONY: check-mpi check-mpi-ob1 check-mpi-mpich
