/* checkpoint.c - each rank writes its state to DIR/ckpt.RANK with stdio,
 * all ranks meet at a barrier, then each rank reads its right neighbour's
 * file back and checks it, and rank 0 lists the directory.
 * Build: build/mpiwasm-cc -O2 checkpoint.c -o checkpoint.wasm
 * Run:   mkdir -p ck && mpirun -np 4 build/mpiwasm --dir ck:/ckpt checkpoint.wasm /ckpt */
#include <dirent.h>
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVAL 1000

int main(int argc, char **argv)
{
	int rank, size, fails = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *dir = argc > 1 ? argv[1] : "/ckpt";

	double state[NVAL];
	for (int i = 0; i < NVAL; i++)
		state[i] = rank * 1000.0 + i * 0.5;
	char path[512];
	snprintf(path, sizeof path, "%s/ckpt.%d", dir, rank);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "rank %d: cannot create %s: %s\n", rank, path, strerror(errno));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int hdr[2] = {rank, NVAL};
	if (fwrite(hdr, sizeof hdr, 1, f) != 1 || fwrite(state, sizeof state, 1, f) != 1 ||
	    fclose(f) != 0) {
		fprintf(stderr, "rank %d: writing %s: %s\n", rank, path, strerror(errno));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	int peer = (rank + 1) % size;
	snprintf(path, sizeof path, "%s/ckpt.%d", dir, peer);
	f = fopen(path, "rb");
	double back[NVAL];
	if (!f || fread(hdr, sizeof hdr, 1, f) != 1 || fread(back, sizeof back, 1, f) != 1) {
		fprintf(stderr, "rank %d: reading %s: %s\n", rank, path, strerror(errno));
		fails++;
	} else {
		if (hdr[0] != peer || hdr[1] != NVAL)
			fails++;
		for (int i = 0; i < NVAL; i++)
			if (back[i] != peer * 1000.0 + i * 0.5)
				fails++;
		long pos = ftell(f);
		if (pos != (long)(sizeof hdr + sizeof back))
			fails++;
	}
	if (f)
		fclose(f);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		DIR *d = opendir(dir);
		int n = 0;
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, "ckpt.", 5))
				n++;
		if (d)
			closedir(d);
		if (n < size)
			fails++;
		printf("checkpoint: %d ranks wrote %d files in %s\n", size, n, dir);
	}
	int any;
	MPI_Allreduce(&fails, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("checkpoint: %s\n", any ? "FAILED" : "OK");
	MPI_Finalize();
	return any ? 1 : 0;
}
