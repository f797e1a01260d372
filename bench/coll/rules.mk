# bench/coll: model-based collective tuning measured (Open MPI):
# `mpiwasm tune` on 2 and 4 ranks, then MPI_Allreduce / MPI_Bcast with the
# library's default selection vs the tuned rules vs native, and the
# model's predictions beside every algorithm forced.  Writes
# bench/coll/REPORT.md (see bench/coll/run.sh; PASSES=3 NPS="2 4").
bench-coll: toolchain $(B)/mpiwasm
	@B=$(B) MPI=$(MPI) sh bench/coll/run.sh

bench: bench-coll
.PHONY: bench-coll

# The emulated cluster (root: network namespaces), per link profile:
# `mpiwasm tune` across the hosts, then the seven tuned collectives with
# Open MPI's default, every coll_tuned algorithm forced, and the tuned
# rules, the model's predictions beside them, and an application kernel.
# Writes bench/coll/CLUSTER.md and cluster-PROFILE.png (bench/coll/cluster.sh;
# PROFILES="none 10g 1g" NHOSTS=4 PPN=1 REPEATS=2; about 12 minutes).
bench-coll-cluster: $(B)/mpiwasm
	@B=$(B) sh bench/coll/cluster.sh
.PHONY: bench-coll-cluster
