# examples: the example programs as a user builds and runs them -- compiled
# with $(B)/mpiwasm-cc / mpiwasm-c++, run under mpirun on 2 and 3 ranks
# (2 under MPICH, whose busy-polling ranks crawl when oversubscribed), and,
# where the native MPI compilers exist, compared line by line with the same
# program built natively.  `make check-examples`.
ifeq ($(MPI),mpich)
EXAMPLES_NP     ?= 2
EXAMPLES_MPICC  ?= mpicc.mpich
EXAMPLES_MPICXX ?= mpicxx.mpich
EXAMPLES_MPIRUN ?= mpiexec.mpich
else
EXAMPLES_NP     ?= 2 3
EXAMPLES_MPICC  ?= mpicc.openmpi
EXAMPLES_MPICXX ?= mpicxx.openmpi
EXAMPLES_MPIRUN ?= env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi --oversubscribe
endif

check-examples: $(B)/mpiwasm toolchain
	@B=$(B) NP="$(EXAMPLES_NP)" MPICC="$(EXAMPLES_MPICC)" MPICXX="$(EXAMPLES_MPICXX)" \
	  MPIRUN="$(EXAMPLES_MPIRUN)" \
	  timeout 900 sh examples/run-examples.sh

CHECKS += check-examples
.PHONY: check-examples
