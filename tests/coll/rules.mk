# tests/coll: `mpiwasm tune` end to end (writes the rules file; later runs
# apply it, and the library honours it), under Open MPI and MPICH.  The
# default (Open MPI) build runs both parts, building build-mpich first
# (MPICH_BUILD, under its lock): about 50 s and 30 s on 2 idle cores;
# `make check-coll MPI=mpich B=build-mpich` runs the MPICH part alone.
ifeq ($(MPI),mpich)
check-coll: $(B)/mpiwasm $(B)/mpiwasm-cc
	@MPIWASM=$(B)/mpiwasm MPI=mpich timeout 300 sh tests/coll/run.sh
else
check-coll: $(B)/mpiwasm $(B)/mpiwasm-cc
	@$(MPICH_BUILD) >/dev/null
	@MPIWASM=$(B)/mpiwasm MPICH_MPIWASM=build-mpich/mpiwasm MPI=both timeout 400 sh tests/coll/run.sh
endif

CHECKS += check-coll
.PHONY: check-coll
