# tests/coll: `mpiwasm tune` end to end (writes the rules file; later runs
# apply it, and the library honours it), under Open MPI and MPICH.  The
# default (Open MPI) build runs both parts, building build-mpich first
# (MPICH_BUILD, under its lock): the Open MPI part about 50 s on 2 idle
# cores (its tune alone 207 s at load average 9-10), the MPICH part 38-70 s
# at load average 10-16 (not measured idle);
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
