# tests/coll: `mpiwasm tune` end to end (writes the rules file; later runs
# apply it, and Open MPI honours it).  A few seconds; Open MPI only (under
# MPICH it checks that `mpiwasm tune` refuses, saying why).
check-coll: $(B)/mpiwasm $(B)/mpiwasm-cc
	@MPIWASM=$(B)/mpiwasm MPI=$(MPI) timeout 300 sh tests/coll/run.sh

CHECKS += check-coll
.PHONY: check-coll
