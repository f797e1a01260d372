/* bigc_only.c - wasm only: large-count procedures with counts above
 * INT_MAX.  A contiguous type of 3e9 bytes and of 5e9+3 ints (the bridge's
 * type of n elements: MPI_Type_contiguous_c on MPICH, chunks on Open MPI
 * 4.1) has the sizes and extents MPI defines; buffers of such counts that
 * run off linear memory are refused (MPI_ERR_BUFFER), never read; counts
 * the host cannot take through an int (an array of counts, a pack
 * position) fail with MPI_ERR_COUNT or MPI_ERR_ARG; MPI_Reduce_local_c of
 * 2^31 + 24 elements of a type of extent 0 gives a counting user op all
 * of them, at most INT_MAX at a time; and with 2 ranks, 2^31 + 24 bytes
 * really go from rank 0 to rank 1 with one MPI_Send_c, then an in-place
 * MPI_Allreduce_c with MPI_BOR over them on both ranks combines them
 * (MPICH: its own MPI_Allreduce_c; Open MPI: two chunks through
 * MPI_Allreduce), and MPI_Reduce_c, MPI_Scan_c, MPI_Exscan_c,
 * MPI_Reduce_scatter_block_c, MPI_Reduce_scatter_c and MPI_Iallreduce_c
 * (waited for, or freed) and MPI_Ireduce_scatter_c take the same count on
 * MPI_COMM_SELF in place.  tests/mpi/fam_bigr.c
 * checks the results of those paths on small counts. */
#include "tmpi.h"
#include <limits.h>
#include <stdint.h>

static int host_mpich;   /* the host library has MPI-4's large-count procedures */

static int cls(int rc)
{
	int c = -1;
	MPI_Error_class(rc, &c);
	return c;
}

static void types(void)
{
	MPI_Datatype big, ints;
	MPI_Count sz = -1, lb = -1, ext = -1, tlb = -1, text = -1;
	int isz = 0;
	OK(MPI_Type_contiguous_c(3000000000LL, MPI_BYTE, &big));
	OK(MPI_Type_commit(&big));
	OK(MPI_Type_size_c(big, &sz));
	OK(MPI_Type_get_extent_c(big, &lb, &ext));
	OK(MPI_Type_get_true_extent_c(big, &tlb, &text));
	CHECK(sz == 3000000000LL && lb == 0 && ext == 3000000000LL);
	CHECK(tlb == 0 && text == 3000000000LL);
	OK(MPI_Type_size(big, &isz));
	CHECK(isz == MPI_UNDEFINED);
	OK(MPI_Type_contiguous_c(5000000003LL, MPI_INT, &ints));
	OK(MPI_Type_commit(&ints));
	OK(MPI_Type_size_c(ints, &sz));
	OK(MPI_Type_get_extent_c(ints, &lb, &ext));
	CHECK(sz == 20000000012LL && lb == 0 && ext == 20000000012LL);
	tm_out("contiguous_c: 3e9 bytes size %lld, 5e9+3 ints extent %lld",
	       (long long)3000000000LL, (long long)ext);
	/* A message of them does not fit in linear memory: refused. */
	char small[16];
	CHECK(cls(MPI_Send(small, 1, big, 0, 0, MPI_COMM_SELF)) == MPI_ERR_BUFFER);
	MPI_Type_free(&big);
	MPI_Type_free(&ints);
}

static void refused(void)
{
	char small[64];
	int rc;
	MPI_Request rq;
	/* Counts above INT_MAX with a datatype: the buffer they span lies
	 * outside linear memory. */
	rc = MPI_Send_c(small, 3000000000LL, MPI_BYTE, 0, 0, MPI_COMM_SELF);
	CHECK(cls(rc) == MPI_ERR_BUFFER);
	/* A message of more than 4 GiB: the bridge's refusal of the int
	 * versions (MPI_ERR_COUNT), whatever the buffer. */
	rc = MPI_Irecv_c(small, 5000000000LL, MPI_INT, 0, 0, MPI_COMM_SELF, &rq);
	CHECK(cls(rc) == MPI_ERR_COUNT);
	rc = MPI_Bcast_c(small, (MPI_Count)1 << 40, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	CHECK(cls(rc) == MPI_ERR_COUNT);
	rc = MPI_Send_c(small, -3000000000LL, MPI_BYTE, 0, 0, MPI_COMM_SELF);
	CHECK(cls(rc) == MPI_ERR_COUNT);
	/* Reductions: their buffers are checked as any other (MPICH's own
	 * MPI_Allreduce_c, or the first chunk's int version on Open MPI). */
	rc = MPI_Allreduce_c(MPI_IN_PLACE, small, 3000000000LL, MPI_BYTE, MPI_BOR,
	                     MPI_COMM_WORLD);
	CHECK(cls(rc) == MPI_ERR_BUFFER);
	rc = MPI_Reduce_c(small, NULL, 3000000000LL, MPI_BYTE, MPI_BOR, 0, MPI_COMM_SELF);
	CHECK(cls(rc) == MPI_ERR_BUFFER);
	rc = MPI_Iallreduce_c(MPI_IN_PLACE, small, 3000000000LL, MPI_BYTE, MPI_BOR,
	                      MPI_COMM_SELF, &rq);
	CHECK(cls(rc) == MPI_ERR_BUFFER);
	rc = MPI_Reduce_scatter_block_c(MPI_IN_PLACE, small, 3000000000LL, MPI_INT, MPI_SUM,
	                                MPI_COMM_SELF);
	CHECK(cls(rc) == MPI_ERR_COUNT);   /* 12 GB: more than 4 GiB */
	rc = MPI_Reduce_local_c(small, small + 32, -5, MPI_BYTE, MPI_BOR);
	CHECK(cls(rc) == MPI_ERR_COUNT);
	/* Arrays of counts: each must fit in an int. */
	MPI_Count sc[64], rc_[64];
	MPI_Aint sd[64], rd[64];
	int n = tm_size();
	for (int i = 0; i < n; i++) {
		sc[i] = rc_[i] = 0;
		sd[i] = rd[i] = 0;
	}
	sc[n - 1] = (MPI_Count)INT_MAX + 1;
	rc = MPI_Alltoallv_c(small, sc, sd, MPI_BYTE, small + 32, rc_, rd, MPI_BYTE,
	                     MPI_COMM_WORLD);
	CHECK(cls(rc) == MPI_ERR_COUNT);
	/* An in/out position beyond an int. */
	MPI_Count pos = (MPI_Count)1 << 33;
	int one = 1;
	rc = MPI_Pack_c(&one, 1, MPI_INT, small, 64, &pos, MPI_COMM_WORLD);
	CHECK(cls(rc) == MPI_ERR_ARG && pos == (MPI_Count)1 << 33);
	/* An MPI_Count out-argument off linear memory. */
	rc = MPI_Type_size_c(MPI_INT, (MPI_Count *)(uintptr_t)0xfffffffcu);
	CHECK(cls(rc) == MPI_ERR_ARG);
	tm_out("refused: buffers past memory, reduction count, count array, position");
}

/* MPI_Reduce_local_c of 2^31 + 24 elements of a type of extent 0 (one
 * byte, every element at the same address) with a user op that only
 * counts: the module's function is called with at most INT_MAX elements
 * at a time, on all of them, in two calls (no memory, no time). */
static MPI_Count op_total;
static int op_calls, op_max;
static void counting(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)in, (void)inout, (void)dt;
	op_calls++;
	op_total += *len;
	if (*len > op_max)
		op_max = *len;
}

static void local(void)
{
	const MPI_Count n = ((MPI_Count)1 << 31) + 24;
	MPI_Datatype z;
	MPI_Op op;
	unsigned char in = 1, io = 2;
	OK(MPI_Type_create_resized(MPI_BYTE, 0, 0, &z));
	OK(MPI_Type_commit(&z));
	OK(MPI_Op_create(counting, 1, &op));
	OK(MPI_Reduce_local_c(&in, &io, n, z, op));
	CHECK(op_calls == 2 && op_total == n && op_max == INT_MAX);
	tm_out("reduce_local_c: %lld elements in %d calls of the user op, at most %d",
	       (long long)op_total, op_calls, op_max);
	/* 2^40 of them: more than 4 GiB of data, refused before any call. */
	CHECK(cls(MPI_Reduce_local_c(&in, &io, (MPI_Count)1 << 40, z, op)) == MPI_ERR_COUNT);
	CHECK(op_calls == 2);
	MPI_Op_free(&op);
	MPI_Type_free(&z);
}

/* 2^31 + 24 bytes from rank 0 to rank 1 in one message. */
static void transfer(void)
{
	const MPI_Count n = ((MPI_Count)1 << 31) + 24;
	int rank = tm_rank();
	if (rank > 1)
		return;
	/* wasi-libc's malloc cannot give more than 2 GiB (its sbrk takes a
	 * signed 32-bit increment): the pages are grown here, and are this
	 * function's alone (malloc never uses memory it did not grow). */
	size_t pages = (size_t)((n + 65535) >> 16);
	size_t old = __builtin_wasm_memory_grow(0, pages);
	CHECK(old != (size_t)-1);
	if (old == (size_t)-1)
		return;
	unsigned char *b = (unsigned char *)(old << 16);
	/* Every page's second byte carries its number; a few bytes around
	 * 2^31 and the last one carry markers. */
	const MPI_Count at[] = { 0, 4095, ((MPI_Count)1 << 31) - 1, (MPI_Count)1 << 31,
	                         ((MPI_Count)1 << 31) + 7, n - 1 };
	int bad = 0;
	if (rank == 0) {
		for (MPI_Count i = 0; i < n - 1; i += 4096)
			b[i + 1] = (unsigned char)(i >> 12);
		for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
			b[at[k]] = (unsigned char)(0x5a + k);
		OK(MPI_Send_c(b, n, MPI_BYTE, 1, 9, MPI_COMM_WORLD));
	} else {
		MPI_Status st;
		MPI_Count c = -1;
		int ic = 0;
		OK(MPI_Recv_c(b, n, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &st));
		OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
		OK(MPI_Get_count(&st, MPI_BYTE, &ic));
		CHECK(c == n && ic == MPI_UNDEFINED);
		for (MPI_Count i = 0; i < n - 1; i += 4096)
			bad += b[i + 1] != (unsigned char)(i >> 12);
		for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
			bad += b[at[k]] != (unsigned char)(0x5a + k);
		CHECK(bad == 0);
		tm_out("transfer: %lld bytes received, %d wrong", (long long)c, bad);
	}
	/* The same bytes on both ranks: an in-place MPI_BOR over all of them,
	 * the markers set differently on each (rank 0 the low bits, rank 1
	 * the high ones). */
	if (tm_size() != 2)
		return;
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
		b[at[k]] = rank == 0 ? (unsigned char)(k + 1) : 0xf0;
	/* MPICH: its own MPI_Allreduce_c; Open MPI: chunks of INT_MAX. */
	OK(MPI_Allreduce_c(MPI_IN_PLACE, b, n, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
	bad = 0;
	for (MPI_Count i = 0; i < n - 1; i += 4096)
		bad += b[i + 1] != (unsigned char)(i >> 12);
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
		bad += b[at[k]] != (unsigned char)(0xf0 | (k + 1));
	CHECK(bad == 0);
	if (rank == 1)
		tm_out("allreduce_c: %lld bytes combined in place, %d wrong", (long long)n, bad);
	/* The others reach the same paths (and Iallreduce_c and
	 * Reduce_scatter_block_c one element of a contiguous type of n with
	 * the bridge's op); on MPI_COMM_SELF, in place, they combine nothing,
	 * so they cost no 2 GiB pass (each one on two ranks took about 9 s of
	 * make check): the call goes through, the bytes stay. */
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
		b[at[k]] = (unsigned char)(0x10 + k);
	MPI_Request rq;
	OK(MPI_Reduce_c(MPI_IN_PLACE, b, n, MPI_BYTE, MPI_BOR, 0, MPI_COMM_SELF));
	OK(MPI_Scan_c(MPI_IN_PLACE, b, n, MPI_BYTE, MPI_BOR, MPI_COMM_SELF));
	OK(MPI_Exscan_c(MPI_IN_PLACE, b, n, MPI_BYTE, MPI_BOR, MPI_COMM_SELF));
	OK(MPI_Reduce_scatter_block_c(MPI_IN_PLACE, b, n, MPI_BYTE, MPI_BOR, MPI_COMM_SELF));
	/* Reduce_scatter_c: its one block in two chunks through MPI_Reduce;
	 * the nonblocking form one host MPI_Ireduce_scatter of one element of
	 * a contiguous type of n (Open MPI; MPICH: its own _c), one request. */
	MPI_Count rcn = n;
	OK(MPI_Reduce_scatter_c(MPI_IN_PLACE, b, &rcn, MPI_BYTE, MPI_BOR, MPI_COMM_SELF));
	rq = MPI_REQUEST_NULL;
	OK(MPI_Ireduce_scatter_c(MPI_IN_PLACE, b, &rcn, MPI_BYTE, MPI_BOR, MPI_COMM_SELF, &rq));
	OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK(rq == MPI_REQUEST_NULL);
	OK(MPI_Iallreduce_c(MPI_IN_PLACE, b, n, MPI_BYTE, MPI_BOR, MPI_COMM_SELF, &rq));
	OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK(rq == MPI_REQUEST_NULL);
	/* Freed at once (erroneous in MPI-3.1 5.12; the bridge lets it be
	 * and completes the operation itself, as for the int versions). */
	OK(MPI_Iallreduce_c(MPI_IN_PLACE, b, n, MPI_BYTE, MPI_BOR, MPI_COMM_SELF, &rq));
	OK(MPI_Request_free(&rq));
	CHECK(rq == MPI_REQUEST_NULL);
	bad = 0;
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
		bad += b[at[k]] != (unsigned char)(0x10 + k);
	CHECK(bad == 0);
	tm_out("reduce_c, scan_c, exscan_c, reduce_scatter_block_c, reduce_scatter_c, "
	       "iallreduce_c (waited, freed): %d wrong", bad);
}

/* Under MPI_ERRORS_ARE_FATAL (tests/mpi/run.sh's must_die): a count array
 * entry above INT_MAX, or a bad buffer the int version finds, ends the
 * job with a line naming the _c procedure (and the argument). */
static void fatal(const char *how)
{
	int n = tm_size(), one = 1;
	MPI_Count sc[64] = {0}, rc_[64] = {0};
	MPI_Aint sd[64] = {0}, rd[64] = {0};
	if (tm_rank() != n - 1)
		return;
	if (!strcmp(how, "counts")) {
		sc[n - 1] = (MPI_Count)INT_MAX + 1;
		MPI_Alltoallv_c(&one, sc, sd, MPI_BYTE, &one, rc_, rd, MPI_BYTE, MPI_COMM_WORLD);
	} else {
		MPI_Send_c((void *)(uintptr_t)0xFFFFFFF0u, 100, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	printf("bigc_only: rank %d survived\n", tm_rank());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc > 1) {
		fatal(argv[1]);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	char ver[MPI_MAX_LIBRARY_VERSION_STRING];
	int vlen = 0;
	MPI_Get_library_version(ver, &vlen);
	host_mpich = strstr(ver, "MPICH") != NULL;
	types();
	refused();
	local();
	if (tm_size() >= 2)
		transfer();
	int rc = tm_finish("bigc_only");
	MPI_Finalize();
	return rc;
}
