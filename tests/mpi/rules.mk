# The MPI test suite (tests/mpi/run.sh): programs built with mpiwasm-cc and
# natively, run under mpirun with 1-4 ranks natively and under mpiwasm.
#   make check-mpi              Open MPI (default PML)
#   make check-mpi-ob1          Open MPI with --mca pml ob1 (2 and 4 ranks)
#   make check-mpi-mpich        MPICH: builds the engine into build-mpich/
MPI_TEST_ENV = B=$(B) MPI=$(MPI)

check-mpi: toolchain $(B)/mpiwasm
	@$(MPI_TEST_ENV) timeout 1800 sh tests/mpi/run.sh

# ob1 runs the native-vs-wasm programs on 2 and 4 ranks (a pair, and
# more peers than cores); 1 and 3 ranks are covered by check-mpi.  It runs
# only that part: the driver and the CMake project are the same toolchain
# check-mpi tries, and the wasm-only tests try the bridge's own checks and
# the job's teardown, which come before (or after) anything the PML does;
# check-mpi runs them under the default PML, check-mpi-mpich under MPICH.
# (They cost about 60 CPU seconds here, 45 of them bigc_only's 2 GiB
# transfer.)  Both Open MPI suites keep their builds in one place, and
# MPICH's reuses the wasm modules (run.sh, "builds kept between runs").
check-mpi-ob1: toolchain $(B)/mpiwasm
	@$(MPI_TEST_ENV) MCA="--mca pml ob1" NPS="2 4" PARTS=compare timeout 1800 sh tests/mpi/run.sh

# MPICH runs the comparison on 1, 2 and 4 ranks (one, a pair, more peers
# than cores); 3 ranks are check-mpi's (about 35 CPU seconds less).
check-mpi-mpich:
	$(MPICH_BUILD)
	@B=build-mpich MPI=mpich NPS="1 2 4" KEEP=$(abspath $(B))/tests/mpi/keep timeout 1800 sh tests/mpi/run.sh

CHECKS += check-mpi check-mpi-ob1 check-mpi-mpich
.PHONY: check-mpi check-mpi-ob1 check-mpi-mpich
