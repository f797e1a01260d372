// A C++ exception no one catches, in one rank: it calls
// __cxa_allocate_exception / __cxa_throw as a `throw` does.  Built with
// -fno-exceptions these are the engine's env imports (what modules built
// elsewhere call); with exceptions, libmpiwasm-cxxabi's.  The job must end,
// naming the rank.  Usage: throw RANK
#include <mpi.h>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <cstddef>

extern "C" void *__cxa_allocate_exception(std::size_t);
extern "C" void __cxa_throw(void *, void *, void (*)(void *));

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int victim = argc > 1 ? std::atoi(argv[1]) : 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == victim) {
		int *e = static_cast<int *>(__cxa_allocate_exception(sizeof(int)));
		*e = 42;
		__cxa_throw(e, nullptr, nullptr);
		std::fprintf(stderr, "throw: __cxa_throw returned\n");
	}
	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
