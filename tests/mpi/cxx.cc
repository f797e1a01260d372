// A small C++ MPI program: RAII around communicators and datatypes,
// std::vector / std::string / <algorithm> with MPI collectives.
#include "tmpi.h"
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

namespace {

class Comm {
public:
	explicit Comm(MPI_Comm parent, int color, int key) { MPI_Comm_split(parent, color, key, &c_); }
	~Comm() { if (c_ != MPI_COMM_NULL) MPI_Comm_free(&c_); }
	Comm(const Comm &) = delete;
	Comm &operator=(const Comm &) = delete;
	int rank() const { int r; MPI_Comm_rank(c_, &r); return r; }
	int size() const { int s; MPI_Comm_size(c_, &s); return s; }
	template <typename T> T sum(T v, MPI_Datatype t) const
	{
		T r{};
		MPI_Allreduce(&v, &r, 1, t, MPI_SUM, c_);
		return r;
	}
	MPI_Comm get() const { return c_; }
private:
	MPI_Comm c_ = MPI_COMM_NULL;
};

struct Particle {
	double pos[3];
	int id;
};

std::string word(int r)
{
	static const char *w[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"};
	return std::string(w[r % 6]) + std::to_string(r);
}

} // namespace

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	const int rank = tm_rank(), size = tm_size();

	{
		Comm half(MPI_COMM_WORLD, rank % 2, rank);
		long s = half.sum<long>(rank, MPI_LONG);
		long want = 0;
		for (int r = rank % 2; r < size; r += 2) want += r;
		CHECK(s == want);
		tm_out("half %d: rank %d/%d sum %ld", rank % 2, half.rank(), half.size(), s);
	}

	// variable-length strings: gather lengths then characters
	std::string mine = word(rank);
	int len = (int)mine.size();
	std::vector<int> lens(size), displs(size);
	MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
	std::exclusive_scan(lens.begin(), lens.end(), displs.begin(), 0);
	std::string all(std::accumulate(lens.begin(), lens.end(), 0), ' ');
	OK(MPI_Allgatherv(mine.data(), len, MPI_CHAR, &all[0], lens.data(), displs.data(),
	                  MPI_CHAR, MPI_COMM_WORLD));
	std::vector<std::string> words;
	for (int r = 0; r < size; r++) words.push_back(all.substr(displs[r], lens[r]));
	std::sort(words.begin(), words.end());
	if (rank == 0) {
		std::string line = "sorted:";
		for (auto &w : words) line += " " + w;
		tm_out("%s", line.c_str());
	}

	// a struct type for a C++ aggregate, then a vector of them around the ring
	MPI_Datatype ptype;
	int bl[2] = {3, 1};
	MPI_Aint d[2] = {offsetof(Particle, pos), offsetof(Particle, id)};
	MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_INT};
	MPI_Datatype tmp;
	MPI_Type_create_struct(2, bl, d, ts, &tmp);
	MPI_Type_create_resized(tmp, 0, sizeof(Particle), &ptype);
	MPI_Type_free(&tmp);
	MPI_Type_commit(&ptype);
	std::vector<Particle> out(rank + 1), in(size);
	for (int i = 0; i <= rank; i++) out[i] = Particle{{rank * 1.0, i * 0.5, -1.0}, rank * 100 + i};
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Status st;
	OK(MPI_Sendrecv(out.data(), (int)out.size(), ptype, right, 1, in.data(), (int)in.size(), ptype,
	                left, 1, MPI_COMM_WORLD, &st));
	int n = 0;
	MPI_Get_count(&st, ptype, &n);
	CHECK(n == left + 1);
	in.resize(n);
	CHECK(std::all_of(in.begin(), in.end(), [&](const Particle &p) { return p.pos[0] == left && p.id / 100 == left; }));
	double ysum = 0;
	for (auto &p : in) ysum += p.pos[1];
	tm_out("from %d: %d particles, y sum %.2f", left, n, ysum);
	MPI_Type_free(&ptype);

	int rc = tm_finish("cxx");
	MPI_Finalize();
	return rc;
}
