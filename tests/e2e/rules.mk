# tests/e2e: the mpiwasm command end to end (cache, errors, exit status,
# traps); modules are built from tests/e2e/*.c/.wat at test time.
check-e2e: $(B)/mpiwasm
	@MPIWASM=$(B)/mpiwasm MPI=$(MPI) timeout 1200 bash tests/e2e/run.sh

CHECKS += check-e2e
