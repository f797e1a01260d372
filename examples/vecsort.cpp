// vecsort.cpp - a parallel sample sort in C++: each rank fills a
// std::vector with pseudo-random keys, picks splitters, exchanges buckets
// with MPI_Alltoall/MPI_Alltoallv, sorts locally, and the ranks check
// global order and the key count.
// Build: build/mpiwasm-c++ -O2 vecsort.cpp -o vecsort.wasm
// Run:   mpirun -np 4 build/mpiwasm vecsort.wasm [keys-per-rank]
#include <mpi.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

namespace {
struct Lcg {
	unsigned long long s;
	unsigned next() { s = s * 6364136223846793005ULL + 1442695040888963407ULL; return unsigned(s >> 33); }
};
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const int n = argc > 1 ? std::atoi(argv[1]) : 100000;

	Lcg g{0x1234u + 77u * unsigned(rank)};
	std::vector<unsigned> keys(n);
	for (auto &k : keys)
		k = g.next();
	unsigned long long local_sum = std::accumulate(keys.begin(), keys.end(), 0ULL);

	// regular sampling: size samples per rank
	std::vector<unsigned> sorted(keys);
	std::sort(sorted.begin(), sorted.end());
	std::vector<unsigned> samples(size), all(size * size);
	for (int i = 0; i < size; i++)
		samples[i] = sorted[size_t(i) * n / size];
	MPI_Allgather(samples.data(), size, MPI_UNSIGNED, all.data(), size, MPI_UNSIGNED, MPI_COMM_WORLD);
	std::sort(all.begin(), all.end());
	std::vector<unsigned> split;
	for (int i = 1; i < size; i++)
		split.push_back(all[size_t(i) * size]);

	std::vector<int> scount(size, 0), rcount(size), sdisp(size), rdisp(size);
	for (unsigned k : sorted)
		scount[std::upper_bound(split.begin(), split.end(), k) - split.begin()]++;
	MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
	std::exclusive_scan(scount.begin(), scount.end(), sdisp.begin(), 0);
	std::exclusive_scan(rcount.begin(), rcount.end(), rdisp.begin(), 0);
	std::vector<unsigned> mine(rdisp.back() + rcount.back());
	MPI_Alltoallv(sorted.data(), scount.data(), sdisp.data(), MPI_UNSIGNED,
		      mine.data(), rcount.data(), rdisp.data(), MPI_UNSIGNED, MPI_COMM_WORLD);
	std::sort(mine.begin(), mine.end());

	// checks: locally sorted, boundaries ordered, count and sum preserved
	int bad = !std::is_sorted(mine.begin(), mine.end());
	unsigned first = mine.empty() ? 0u : mine.front(), last = mine.empty() ? 0u : mine.back();
	std::vector<unsigned> lasts(size), firsts(size);
	std::vector<int> counts(size);
	int cnt = int(mine.size());
	MPI_Gather(&last, 1, MPI_UNSIGNED, lasts.data(), 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
	MPI_Gather(&first, 1, MPI_UNSIGNED, firsts.data(), 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
	MPI_Gather(&cnt, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
	unsigned long long got_sum = std::accumulate(mine.begin(), mine.end(), 0ULL), sums[2],
			   mysums[2] = {local_sum, got_sum};
	MPI_Reduce(mysums, sums, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	int anybad;
	MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		long total = 0;
		std::string dist;
		for (int r = 0; r < size; r++) {
			total += counts[r];
			dist += (r ? " " : "") + std::to_string(counts[r]);
			if (r && counts[r] && counts[r - 1] && lasts[r - 1] > firsts[r])
				anybad = 1;
		}
		if (total != long(n) * size || sums[0] != sums[1])
			anybad = 1;
		std::printf("vecsort: %d ranks, %ld keys, per rank [%s] %s\n", size, total,
			    dist.c_str(), anybad ? "FAILED" : "OK");
	}
	MPI_Bcast(&anybad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return anybad ? 1 : 0;
}
