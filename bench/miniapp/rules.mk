# bench/miniapp: the HPCG-shaped MPI miniapp (minihpcg.c), native
# mpicc -O3 -march=native vs mpiwasm-cc -O2 and -O3 -msimd128.
#   make bench-miniapp        1 and 2 ranks, writes bench/miniapp/REPORT.md
#   make check-miniapp        a small grid on 1, 2 and 4 ranks: checksums equal
#   RUNS=7 NX=48 ITERS=50 REPS=3 NPS="1 2"   (bench-miniapp's knobs)
bench-miniapp: toolchain $(B)/mpiwasm
	@B=$(B) MPI=$(MPI) sh bench/miniapp/run.sh $(B)

check-miniapp: toolchain $(B)/mpiwasm
	@MPI=$(MPI) sh bench/miniapp/run.sh --check $(B)

bench: bench-miniapp
CHECKS += check-miniapp
.PHONY: bench-miniapp check-miniapp
