# tests/coll: `mpiwasm tune` end to end (writes the rules file; later runs
# apply it, and the library honours it), under Open MPI and MPICH.  The
# default (Open MPI) build runs both parts, building build-mpich first
# (MPICH_BUILD, under its lock): both parts 22 s at load average 1.3;
# the MPICH part alone 12-22 s at load 4-5 and 38-70 s at 10-16, the Open
# MPI tune alone 207 s at 9-10 (it measures seven collectives, MPICH's two);
# `make check-coll MPI=mpich B=build-mpich` runs the MPICH part alone.
ifeq ($(MPI),mpich)
check-coll: $(B)/mpiwasm $(B)/mpiwasm-cc
	@MPIWASM=$(B)/mpiwasm MPI=mpich timeout 600 sh tests/coll/run.sh
else
check-coll: $(B)/mpiwasm $(B)/mpiwasm-cc
	@$(MPICH_BUILD) >/dev/null
	@MPIWASM=$(B)/mpiwasm MPICH_MPIWASM=build-mpich/mpiwasm MPI=both timeout 900 sh tests/coll/run.sh
endif

CHECKS += check-coll
.PHONY: check-coll
