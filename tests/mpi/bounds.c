/* wasm only: arguments that reach outside linear memory, and handle
 * numbers that name nothing, must fail with an MPI error class under
 * MPI_ERRORS_RETURN and never crash or touch memory. */
#include "tmpi.h"
#include <stdint.h>

#define FAR ((void *)(uintptr_t)0xFFFFFFF0u)

static int rank, size;

/* the class a call returned is one of the acceptable ones */
static int one_of(int rc, const char *a, const char *b, const char *c)
{
	const char *k = tm_class(rc);
	return rc != MPI_SUCCESS && (!strcmp(k, a) || (b && !strcmp(k, b)) || (c && !strcmp(k, c)));
}

#define BAD_BUF(call) do { int rc_ = (call); CHECK(one_of(rc_, "MPI_ERR_BUFFER", "MPI_ERR_ARG", "MPI_ERR_COUNT")); \
	tm_out("%-40.40s -> %s", #call, tm_class(rc_)); } while (0)
#define BAD_HANDLE(call, cls) do { int rc_ = (call); CHECK(one_of(rc_, cls, NULL, NULL)); \
	tm_out("%-40.40s -> %s", #call, tm_class(rc_)); } while (0)

/* A reduction that leaves the receive buffer as it is. */
static void keep_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)in; (void)inout; (void)len; (void)t;
}

int main(int argc, char **argv)
{
	int x = 5, y = -1, counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3}, flag;
	int *buf;
	MPI_Status st;
	MPI_Request rq;
	MPI_Datatype wide;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	buf = calloc(64, sizeof(int));

	/* buffers past the end of memory */
	BAD_BUF(MPI_Send(FAR, 100, MPI_INT, rank, 1, MPI_COMM_WORLD));
	BAD_BUF(MPI_Isend(FAR, 100, MPI_INT, rank, 1, MPI_COMM_WORLD, &rq));
	/* collectives on MPI_COMM_SELF: a failure at one rank of a larger
	 * communicator would leave the others' contributions in flight */
	BAD_BUF(MPI_Bcast(FAR, 100, MPI_INT, 0, MPI_COMM_SELF));
	BAD_BUF(MPI_Allreduce(&x, FAR, 100, MPI_INT, MPI_SUM, MPI_COMM_SELF));
	BAD_BUF(MPI_Send((void *)(uintptr_t)0x100, 0x7FFFFFFF, MPI_INT, rank, 1, MPI_COMM_WORLD));
	/* a derived type whose extent leaves memory from a valid base */
	MPI_Type_vector(2, 1, 0x20000000, MPI_INT, &wide);
	MPI_Type_commit(&wide);
	BAD_BUF(MPI_Send(buf, 1, wide, rank, 1, MPI_COMM_WORLD));
	MPI_Type_free(&wide);
	/* a type that reads one 4 KiB block 2^21 times (stride 0: legal for a
	 * send): an 8 GiB message from a 4 KiB buffer, more than any wasm32
	 * receive buffer holds.  Open MPI's self transport copies a message in
	 * full whatever the receive buffer's size, so such a send would write
	 * 8 GiB past a receive buffer of the same rank. */
	MPI_Type_vector(1 << 21, 1024, 0, MPI_INT, &wide);
	MPI_Type_commit(&wide);
	BAD_BUF(MPI_Send(buf, 1, wide, rank, 1, MPI_COMM_WORLD));
	BAD_BUF(MPI_Isend(buf, 1, wide, rank, 1, MPI_COMM_WORLD, &rq));
	BAD_BUF(MPI_Bcast(buf, 1, wide, 0, MPI_COMM_SELF));
	MPI_Type_free(&wide);

	/* a receive into bad memory fails before it consumes the message */
	OK(MPI_Isend(&x, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &rq));
	BAD_BUF(MPI_Recv(FAR, 100, MPI_INT, rank, 2, MPI_COMM_WORLD, &st));
	OK(MPI_Recv(&y, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(y == 5);
	OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));

	/* status and count arrays outside memory */
	OK(MPI_Isend(&x, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &rq));
	BAD_BUF(MPI_Recv(&y, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, (MPI_Status *)FAR));
	OK(MPI_Recv(&y, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	BAD_BUF(MPI_Gatherv(&x, 1, MPI_INT, buf, (int *)FAR, displs, MPI_INT, 0, MPI_COMM_SELF));
	BAD_BUF(MPI_Allgatherv(&x, 1, MPI_INT, buf, counts, (int *)FAR, MPI_INT, MPI_COMM_SELF));
	BAD_BUF(MPI_Comm_rank(MPI_COMM_WORLD, (int *)FAR));
	BAD_BUF(MPI_Waitall(1, (MPI_Request *)FAR, MPI_STATUSES_IGNORE));

	/* per-peer counts whose total (count x ranks) passes 2^32 elements: the
	 * total must be checked whole, not wrapped to a small number (with 3
	 * ranks 0x55555556 x 3 = 2^32 + 2; with 4, 2^30 x 4 = 2^32); every rank
	 * fails the same way, so none is left waiting in the collective */
	if (size >= 3) {
		int big = (int)((0x100000000ull + (unsigned)size - 1) / (unsigned)size);
		BAD_BUF(MPI_Allgather(&x, 1, MPI_INT, buf, big, MPI_INT, MPI_COMM_WORLD));
		BAD_BUF(MPI_Alltoall(buf, big, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD));
		BAD_BUF(MPI_Reduce_scatter_block(buf, &y, big, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	}

	/* handle numbers that name nothing */
	BAD_HANDLE(MPI_Send(&x, 1, MPI_INT, 0, 1, (MPI_Comm)12345), "MPI_ERR_COMM");
	BAD_HANDLE(MPI_Barrier((MPI_Comm)-77), "MPI_ERR_COMM");
	BAD_HANDLE(MPI_Send(&x, 1, (MPI_Datatype)9999, rank, 1, MPI_COMM_WORLD), "MPI_ERR_TYPE");
	BAD_HANDLE(MPI_Allreduce(&x, &y, 1, MPI_INT, (MPI_Op)777, MPI_COMM_SELF), "MPI_ERR_OP");
	rq = (MPI_Request)4444;
	BAD_HANDLE(MPI_Wait(&rq, MPI_STATUS_IGNORE), "MPI_ERR_REQUEST");
	rq = (MPI_Request)4444;
	BAD_HANDLE(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE), "MPI_ERR_REQUEST");
	BAD_HANDLE(MPI_Group_size((MPI_Group)555, &x), "MPI_ERR_GROUP");
	BAD_HANDLE(MPI_Info_set((MPI_Info)31337, "k", "v"), "MPI_ERR_INFO");
	BAD_HANDLE(MPI_Type_commit(&(MPI_Datatype){(MPI_Datatype)-999}), "MPI_ERR_TYPE");

	/* this process's own block of a collective longer than its receive
	 * block: refused before the host library sees it (MPICH 4.0 copied it
	 * whole past the receive block); equal sizes of other types are fine */
	{
		MPI_Request cr;
		int one = 1, two = 2, zero = 0;
		BAD_HANDLE(MPI_Allgather(buf, 2, MPI_INT, &y, 1, MPI_INT, MPI_COMM_SELF), "MPI_ERR_TRUNCATE");
		BAD_HANDLE(MPI_Gather(buf, 3, MPI_INT, buf + 8, 2, MPI_INT, 0, MPI_COMM_SELF), "MPI_ERR_TRUNCATE");
		BAD_HANDLE(MPI_Scatterv(buf, &two, &zero, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_SELF),
		           "MPI_ERR_TRUNCATE");
		BAD_HANDLE(MPI_Alltoallv(buf, &two, &zero, MPI_INT, buf + 8, &one, &zero, MPI_INT,
		                         MPI_COMM_SELF), "MPI_ERR_TRUNCATE");
		BAD_HANDLE(MPI_Iallgatherv(buf, 2, MPI_INT, buf + 8, &one, &zero, MPI_INT,
		                           MPI_COMM_SELF, &cr), "MPI_ERR_TRUNCATE");
		BAD_HANDLE(MPI_Ialltoall(buf, 2, MPI_INT, buf + 8, 1, MPI_INT, MPI_COMM_SELF, &cr),
		           "MPI_ERR_TRUNCATE");
		OK(MPI_Allgather(buf, 8, MPI_BYTE, buf + 8, 2, MPI_INT, MPI_COMM_SELF));
		OK(MPI_Gather(MPI_IN_PLACE, 3, MPI_INT, buf + 8, 2, MPI_INT, 0, MPI_COMM_SELF));
		OK(MPI_Ialltoall(buf, 2, MPI_INT, buf + 8, 8, MPI_BYTE, MPI_COMM_SELF, &cr));
		OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
	}

	/* displacements in extents of a nested type near 2^51 bytes: their byte
	 * offsets pass 2^63 and must be refused, not wrapped into memory */
	{
		MPI_Datatype big, huge;
		int one = 1, far = 0x7fffffff, zero = 0;
		OK(MPI_Type_create_resized(MPI_INT, 0, 0x40000000, &big));
		OK(MPI_Type_create_hvector(1 << 21, 1, 0x40000000, big, &huge));
		OK(MPI_Type_commit(&huge));
		BAD_BUF(MPI_Alltoallv(buf, &one, &far, huge, buf + 8, &one, &zero, huge, MPI_COMM_SELF));
		BAD_BUF(MPI_Gatherv(buf, 1, huge, buf + 8, &one, &far, huge, 0, MPI_COMM_SELF));
		MPI_Type_free(&huge);
		MPI_Type_free(&big);
	}

	/* a reduction whose send and receive buffers overlap (erroneous: MPI
	 * forbids aliasing them; MPICH 4.0 asserts): refused; adjacent is fine */
	{
		MPI_Request ar;
		BAD_BUF(MPI_Allreduce(buf, buf + 1, 4, MPI_INT, MPI_SUM, MPI_COMM_SELF));
		BAD_BUF(MPI_Reduce_local(buf + 2, buf, 4, MPI_INT, MPI_SUM));
		BAD_BUF(MPI_Iscan(buf, buf + 3, 4, MPI_INT, MPI_SUM, MPI_COMM_SELF, &ar));
		OK(MPI_Allreduce(buf, buf + 4, 4, MPI_INT, MPI_SUM, MPI_COMM_SELF));
		/* every other int: the two buffers interleave, no byte shared
		 * (a user op: the bridge takes predefined ones on basic types) */
		MPI_Datatype odd;
		MPI_Op keep;
		MPI_Type_vector(4, 1, 2, MPI_INT, &odd);
		MPI_Type_commit(&odd);
		MPI_Op_create(keep_fn, 1, &keep);
		OK(MPI_Allreduce(buf, buf + 1, 1, odd, keep, MPI_COMM_SELF));
		MPI_Op_free(&keep);
		MPI_Type_free(&odd);
	}

	/* a neighborhood collective sending this process more than its own
	 * receive block holds (a self loop; a periodic dimension of size 1):
	 * refused before the host library sees it, which (Open MPI 4.1's self
	 * transport) would copy it whole past the block or hang */
	{
		MPI_Comm g, cart;
		int me = rank, big = 64, one = 1, zero = 0, dims = 1, periods = 1;
		OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &me, MPI_UNWEIGHTED, 1, &me,
		                                  MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
		MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
		BAD_HANDLE(MPI_Neighbor_alltoallv(buf, &big, &zero, MPI_INT, &y, &one, &zero, MPI_INT, g),
		           "MPI_ERR_TRUNCATE");
		BAD_HANDLE(MPI_Neighbor_allgather(buf, 2, MPI_INT, &y, 1, MPI_INT, g), "MPI_ERR_TRUNCATE");
		MPI_Request nr;
		BAD_HANDLE(MPI_Ineighbor_alltoall(buf, 2, MPI_INT, &y, 1, MPI_INT, g, &nr), "MPI_ERR_TRUNCATE");
		/* equal sizes, other types: fine */
		OK(MPI_Neighbor_allgather(buf, 8, MPI_BYTE, buf + 8, 2, MPI_INT, g));
		MPI_Comm_free(&g);
		OK(MPI_Cart_create(MPI_COMM_SELF, 1, &dims, &periods, 0, &cart));
		MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
		BAD_HANDLE(MPI_Neighbor_alltoall(buf, 3, MPI_INT, buf + 16, 2, MPI_INT, cart),
		           "MPI_ERR_TRUNCATE");
		OK(MPI_Neighbor_alltoall(buf, 2, MPI_INT, buf + 16, 2, MPI_INT, cart));
		MPI_Comm_free(&cart);
	}

	/* topology queries with arrays shorter than the topology needs: MPICH
	 * 4.0 writes past them (MPI_Cart_get, MPI_Graph_neighbors), so they are
	 * refused; MPI_Cart_get on a communicator without a topology too */
	{
		int dims[2] = { 1, 1 }, per[2] = { 1, 1 }, d[2], p[2], co[2], nb[2];
		int index[1] = { 2 }, edges[2] = { 0, 0 };
		MPI_Comm cart, gr;
		OK(MPI_Cart_create(MPI_COMM_SELF, 2, dims, per, 0, &cart));
		MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
		BAD_HANDLE(MPI_Cart_get(cart, 1, d, p, co), "MPI_ERR_ARG");
		OK(MPI_Cart_get(cart, 2, d, p, co));
		CHECK(d[0] == 1 && d[1] == 1 && co[0] == 0);
		BAD_HANDLE(MPI_Cart_get(MPI_COMM_SELF, 2, d, p, co), "MPI_ERR_TOPOLOGY");
		MPI_Comm_free(&cart);
		OK(MPI_Graph_create(MPI_COMM_SELF, 1, index, edges, 0, &gr));
		MPI_Comm_set_errhandler(gr, MPI_ERRORS_RETURN);
		BAD_HANDLE(MPI_Graph_neighbors(gr, 0, 1, nb), "MPI_ERR_ARG");
		OK(MPI_Graph_neighbors(gr, 0, 2, nb));
		CHECK(nb[0] == 0 && nb[1] == 0);
		MPI_Comm_free(&gr);
	}

	/* only a port this process opened closes (MPICH 4.0 crashes closing
	 * another name), and only once */
	{
		char port[MPI_MAX_PORT_NAME];
		BAD_HANDLE(MPI_Close_port(""), "MPI_ERR_PORT");
		/* MPICH under its launcher may have no port service */
		if (MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS) {
			OK(MPI_Close_port(port));
			BAD_HANDLE(MPI_Close_port(port), "MPI_ERR_PORT");
		}
	}

	/* MPI_Comm_idup: the new handle is refused until the request completes
	 * (erroneous, and Open MPI 4.1 crashes freeing it); the parent may be
	 * freed meanwhile (legal; Open MPI 4.1 crashes progressing the idup if
	 * the host communicator goes at once) */
	{
		MPI_Comm parent, nc;
		MPI_Request ir;
		OK(MPI_Comm_dup(MPI_COMM_SELF, &parent));
		OK(MPI_Comm_idup(parent, &nc, &ir));
		BAD_HANDLE(MPI_Comm_free(&nc), "MPI_ERR_COMM");
		OK(MPI_Comm_free(&parent));
		CHECK(parent == MPI_COMM_NULL);
		OK(MPI_Wait(&ir, MPI_STATUS_IGNORE));
		OK(MPI_Comm_size(nc, &x));
		CHECK(x == 1);
		OK(MPI_Comm_free(&nc));
	}

	/* MPI_Comm_disconnect of a communicator with an MPI_Comm_idup of it
	 * pending: as MPI_Comm_free above (Open MPI 4.1 crashed in the next
	 * MPI_Comm_dup's context id agreement) */
	{
		MPI_Comm parent, nc, d;
		MPI_Request ir;
		OK(MPI_Comm_dup(MPI_COMM_SELF, &parent));
		OK(MPI_Comm_idup(parent, &nc, &ir));
		OK(MPI_Comm_disconnect(&parent));
		CHECK(parent == MPI_COMM_NULL);
		OK(MPI_Comm_dup(MPI_COMM_SELF, &d));
		OK(MPI_Wait(&ir, MPI_STATUS_IGNORE));
		OK(MPI_Comm_size(nc, &x));
		CHECK(x == 1);
		OK(MPI_Comm_free(&nc));
		OK(MPI_Comm_free(&d));
	}

	/* MPI_Alltoallw on one process: byte displacements (Open MPI 4.1 took
	 * them as extents, reading and writing past the buffers: outside
	 * linear memory, tests/fuzz-bridge/open/alltoallw-self-disp.c) */
	{
		double sd[16] = { 0 }, rv[16] = { 0 };
		int one = 1, sdisp = 8, rdisp = 16;
		MPI_Datatype t = MPI_DOUBLE;
		sd[1] = 42;
		sd[8] = 7;
		OK(MPI_Alltoallw(sd, &one, &sdisp, &t, rv, &one, &rdisp, &t, MPI_COMM_SELF));
		CHECK(rv[2] == 42);
		CHECK(rv[16 - 1] == 0 && rv[8] == 0);
		MPI_Request ar;
		memset(rv, 0, sizeof rv);
		OK(MPI_Ialltoallw(sd, &one, &sdisp, &t, rv, &one, &rdisp, &t, MPI_COMM_SELF, &ar));
		OK(MPI_Wait(&ar, MPI_STATUS_IGNORE));
		CHECK(rv[2] == 42 && rv[8] == 0);
	}

	/* still healthy afterwards */
	x = rank;
	OK(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(x == size * (size - 1) / 2);
	free(buf);
	int rc = tm_finish("bounds");
	MPI_Finalize();
	return rc;
}
