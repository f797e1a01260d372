/* MPICH 4.0 (Debian 12): MPI_Dist_graph_neighbors with maxindegree larger
 * than the indegree (allowed: the arrays' sizes) copies maxindegree
 * entries out of its own arrays of indegree entries.  Native, no bridge:
 *   mpicc.mpich -fsanitize=address dist-graph-neighbors-max.c && ./a.out
 * ASan: heap-buffer-overflow READ in PMPI_Dist_graph_neighbors. */
/* Found by fuzz-bridge; the bridge now asks for min(max, degree) entries. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	MPI_Comm g;
	int self = 0, src[8], dst[8], sw[8], dw[8];
	MPI_Init(NULL, NULL);
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, MPI_UNWEIGHTED, 1, &self,
	                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
	printf("rc %d\n", MPI_Dist_graph_neighbors(g, 8, src, sw, 8, dst, dw));
	MPI_Finalize();
	return 0;
}
