# The emulated cluster (tests/cluster/run.sh): network namespaces as
# hosts, MPI jobs across them under Open MPI and MPICH (so the MPICH
# engine is built into build-mpich/ too), Slurm.  Needs root; where
# namespaces cannot be made it reports itself skipped.
#   make check-cluster
check-cluster: toolchain $(B)/mpiwasm
	$(MPICH_BUILD)
	@B=$(B) BM=build-mpich timeout 900 sh tests/cluster/run.sh

CHECKS += check-cluster
.PHONY: check-cluster
