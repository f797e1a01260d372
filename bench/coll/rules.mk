# bench/coll: model-based collective tuning measured (Open MPI):
# `mpiwasm tune` on 2 and 4 ranks, then MPI_Allreduce / MPI_Bcast with the
# library's default selection vs the tuned rules vs native, and the
# model's predictions beside every algorithm forced.  Writes
# bench/coll/REPORT.md (see bench/coll/run.sh; PASSES=3 NPS="2 4").
bench-coll: toolchain $(B)/mpiwasm
	@B=$(B) MPI=$(MPI) sh bench/coll/run.sh

bench: bench-coll
.PHONY: bench-coll

# The same collectives on the emulated cluster (root: network namespaces),
# every coll_tuned algorithm forced natively per link profile: where the
# default misselects.  Writes bench/coll/CLUSTER.md and cluster-*.png
# (bench/coll/cluster.sh; PROFILES="1g none" NHOSTS=4 PPN=1).
bench-coll-cluster: $(B)/mpiwasm
	@B=$(B) sh bench/coll/cluster.sh
.PHONY: bench-coll-cluster
