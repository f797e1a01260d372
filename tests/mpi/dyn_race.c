/* dyn_race.c - wasm only: the spawned child is the module that was
 * checked.  Built twice, with WHO "inside" (beneath the grant, at
 * /g/sub/child.wasm) and "outside" (beside the grant); run.sh swaps
 * /g/sub for a symlink to the outside directory and back in a loop while
 * rank 0 spawns /g/sub/child.wasm again and again.  A spawn is either
 * refused (the check saw the symlink) or starts a child that prints its
 * identity: it must always be "inside".
 *   parent: dyn_race.wasm COUNT   child: prints "dyn_race child: WHO" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef WHO
#define WHO "inside"
#endif

int main(int argc, char **argv)
{
	MPI_Comm parent = MPI_COMM_NULL;
	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (parent != MPI_COMM_NULL) {
		printf("dyn_race child: %s\n", WHO);
		fflush(stdout);
		MPI_Comm_disconnect(&parent);
		MPI_Finalize();
		return 0;
	}
	int count = argc > 1 ? atoi(argv[1]) : 10, spawned = 0, refused = 0;
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	for (int i = 0; i < count; i++) {
		MPI_Comm inter = MPI_COMM_NULL;
		int rc = MPI_Comm_spawn("/g/sub/child.wasm", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
		                        MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
		if (rc == MPI_SUCCESS) {
			spawned++;
			MPI_Comm_disconnect(&inter);
		} else {
			/* A refusal takes microseconds: wait, or every try would
			 * fall into the same phase of the swapping loop. */
			refused++;
			double t0 = MPI_Wtime();
			while (MPI_Wtime() - t0 < 0.07 + 0.01 * (i % 7))
				;
		}
	}
	printf("dyn_race: %d spawned, %d refused\n", spawned, refused);
	MPI_Finalize();
	return 0;
}
