/* MPICH 4.0.2: does an MPI_T write of MPIR_CVAR_<COLL>_INTRA_ALGORITHM after
 * MPI_Init change the algorithm of the following calls?  Alternates
 * values per batch, median of 15 batches each, 1 MiB MPI_Allreduce and 4 MiB MPI_Bcast. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
static MPI_T_cvar_handle handle(const char *nm) {
	int idx, cnt; MPI_T_cvar_handle h;
	if (MPI_T_cvar_get_index(nm, &idx) || MPI_T_cvar_handle_alloc(idx, NULL, &h, &cnt)) { printf("no %s\n", nm); MPI_Abort(MPI_COMM_WORLD, 1); }
	return h;
}
int main(int argc, char **argv) {
	int prov, rank, np; MPI_T_init_thread(MPI_THREAD_SINGLE, &prov);
	MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &np);
	int n = (4 << 20) / 8; double *a = malloc(n * 8), *b = malloc(n * 8);
	for (int i = 0; i < n; i++) a[i] = i % 100;
	struct { const char *cvar, *coll; int vals[4], nv, count; } t[2] = {
		{ "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "allreduce", { 0, 1, 3, 4 }, 4, (1 << 20) / 8 },
		{ "MPIR_CVAR_BCAST_INTRA_ALGORITHM", "bcast", { 0, 1, 4, 5 }, 4, (4 << 20) / 8 } };
	for (int c = 0; c < 2; c++) {
		MPI_T_cvar_handle h = handle(t[c].cvar);
		double tm[4][15];
		for (int r = 0; r < 15; r++)
			for (int j = 0; j < t[c].nv; j++) {
				int v = t[c].vals[(j + r) % t[c].nv]; MPI_T_cvar_write(h, &v);
				MPI_Barrier(MPI_COMM_WORLD); double t0 = MPI_Wtime();
				for (int k = 0; k < 3; k++) {
					if (c == 0) MPI_Allreduce(a, b, t[c].count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
					else MPI_Bcast(rank ? b : a, t[c].count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
				}
				double e = (MPI_Wtime() - t0) / 3, mx; MPI_Allreduce(&e, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
				tm[(j + r) % t[c].nv][r] = mx;
				if (c == 0 && b[7] != np * 7.0) { printf("wrong\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
			}
		for (int j = 0; j < t[c].nv; j++) {
			qsort(tm[j], 15, sizeof(double), cmp);
			if (!rank) printf("%s value %d: median %.0f us (q1 %.0f q3 %.0f)\n", t[c].coll, t[c].vals[j], tm[j][7] * 1e6, tm[j][3] * 1e6, tm[j][11] * 1e6);
		}
		MPI_T_cvar_handle_free(&h);
	}
	MPI_Finalize(); MPI_T_finalize(); return 0;
}
