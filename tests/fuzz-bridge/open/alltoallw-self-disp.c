/* Open MPI 4.1.4 (Debian 12): MPI_Alltoallw on a communicator of one
 * process (MPI_COMM_SELF, or a singleton's MPI_COMM_WORLD) takes the byte
 * displacements sdispls/rdispls as counts of extents: it reads
 * sendbuf + sdispls[0] * extent(sendtype) and writes
 * recvbuf + rdispls[0] * extent(recvtype) (the one-process collective
 * component).  A correct call reads and writes outside the buffers: under
 * the bridge, outside linear memory (fuzz-bridge seed 10 batch 15: a read
 * 1 MiB past the end of a 1 MiB memory, MPI_DOUBLE at byte displacement
 * 0x40000).  The bridge now hands a one-process communicator's call with
 * the displacements folded into the buffer addresses and zero
 * displacements (src/mpi/coll_args.c).  Native, no bridge:
 *   mpicc alltoallw-self-disp.c && ./a.out
 * prints "recv[1] = 0, expected 42 (wrong)" and "recv[8] = 7": the block
 * was read from send[8] and written to recv[8] (byte displacement 8 taken
 * as 8 extents of MPI_DOUBLE). */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
	double send[16] = { 0 }, recv[16] = { 0 };
	int one = 1, sd = 8, rd = 8;   /* bytes: the second double of each */
	MPI_Datatype t = MPI_DOUBLE;
	MPI_Init(NULL, NULL);
	send[1] = 42;
	send[8] = 7;
	MPI_Alltoallw(send, &one, &sd, &t, recv, &one, &rd, &t, MPI_COMM_SELF);
	printf("recv[1] = %g, expected 42%s\n", recv[1], recv[1] == 42 ? "" : " (wrong)");
	for (int i = 0; i < 16; i++)
		if (recv[i] != 0 && i != 1)
			printf("recv[%d] = %g\n", i, recv[i]);
	MPI_Finalize();
	return 0;
}
