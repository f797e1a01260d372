# tests/mpich-suite: `make mpich-suite MPICH_SRC=DIR` (see
# tests/mpich-suite/README.md): MPICH 4.0.2's own test/mpi built natively
# and with mpiwasm-cc and run under Open MPI; a table in
# $(B)/mpich-suite/table.md.  Not part of `make check`: it takes about an
# hour on 2 cores, and its source comes from Debian's archive, not from
# this repository.  Resumable (results are kept in $(B)/mpich-suite/res).
mpich-suite: toolchain $(B)/mpiwasm
	@[ -n "$(MPICH_SRC)" ] || { echo "mpich-suite: set MPICH_SRC to the unpacked mpich-4.0.2 (tests/mpich-suite/README.md)"; exit 1; }
	@B=$(B) sh tests/mpich-suite/run.sh "$(MPICH_SRC)"

.PHONY: mpich-suite
