/* percall.c - for tests/coll (MPICH): MPI_Allgather of doubles with the
 * per-rank block sizes given on the command line, one call each, every
 * result checked.  With a rule for part of the sizes the test counts
 * MPICH's own report of each call that ran under it.  A first argument
 * `-own` first sets MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM to auto (0)
 * through MPI_T, as a module choosing its own algorithm would: then no
 * rule may apply. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, np, bad = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	int first = 1;
	if (argc > 1 && !strcmp(argv[1], "-own")) {
		int provided, idx, cnt, zero = 0;
		MPI_T_cvar_handle h;
		if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
		    MPI_T_cvar_get_index("MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM", &idx) != MPI_SUCCESS ||
		    MPI_T_cvar_handle_alloc(idx, NULL, &h, &cnt) != MPI_SUCCESS ||
		    MPI_T_cvar_write(h, &zero) != MPI_SUCCESS) {
			fprintf(stderr, "percall: cannot set MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM\n");
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
		MPI_T_cvar_handle_free(&h);
		first = 2;
	}
	for (int a = first; a < argc; a++) {
		int n = atoi(argv[a]);
		double *s = malloc(sizeof *s * (size_t)n), *r = malloc(sizeof *r * (size_t)(n * np));
		if (!s || !r)
			MPI_Abort(MPI_COMM_WORLD, 2);
		for (int i = 0; i < n; i++)
			s[i] = rank * 1000 + i;
		MPI_Allgather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, MPI_COMM_WORLD);
		for (int q = 0; q < np; q++)
			for (int i = 0; i < n; i++)
				bad += r[q * n + i] != q * 1000 + i;
		free(s);
		free(r);
	}
	int all;
	MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("percall np=%d: %d calls, %d wrong\n", np, argc - first, all);
	MPI_Finalize();
	return all != 0;
}
