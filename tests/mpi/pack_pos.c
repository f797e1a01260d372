/* wasm only: MPI_Pack, MPI_Unpack, MPI_Pack_external and
 * MPI_Unpack_external with an in/out position that points outside the
 * buffer (negative, past its size, near INT_MAX, or leaving too little
 * room) must fail with an MPI error class under MPI_ERRORS_RETURN and
 * touch nothing; in range they work and advance the position.  Every
 * buffer here lies inside `mem`, so an unchecked position lands on the
 * guard bytes around it and the test sees it.  With argument "fatal" a
 * negative position under MPI_ERRORS_ARE_FATAL must end the job with a
 * line naming MPI_Pack and the argument.  Data and packed bytes that
 * overlap are refused (MPI_ERR_BUFFER) as well. */
#include "tmpi.h"
#include <limits.h>
#include <stdint.h>

#define GUARD 0x5A
static unsigned char mem[1024];

/* Bytes of mem outside [lo, hi) still hold the guard. */
static int guarded(int lo, int hi)
{
	for (int i = 0; i < (int)sizeof mem; i++)
		if ((i < lo || i >= hi) && mem[i] != GUARD)
			return 0;
	return 1;
}

static int refused(int rc)
{
	const char *k = tm_class(rc);
	return rc != MPI_SUCCESS && (!strcmp(k, "MPI_ERR_ARG") ||
	       !strcmp(k, "MPI_ERR_TRUNCATE") || !strcmp(k, "MPI_ERR_BUFFER"));
}

#define REFUSED(call, lo, hi) do { memset(mem, GUARD, sizeof mem); \
	int rc_ = (call); CHECK(refused(rc_)); CHECK(guarded(lo, hi)); \
	tm_out("%-44.44s -> %s", #call, tm_class(rc_)); } while (0)

#define OVERLAP(call) do { memset(mem, GUARD, sizeof mem); int rc_ = (call); \
	CHECK(!strcmp(tm_class(rc_), "MPI_ERR_BUFFER")); CHECK(guarded(0, 0)); \
	tm_out("%-44.44s -> %s", #call, tm_class(rc_)); } while (0)

int main(int argc, char **argv)
{
	int src[4] = { 11, 22, 33, 44 }, dst[4], pos;
	const int OUT = 512, SIZE = 64;   /* the buffer: mem[OUT, OUT+SIZE) */
	unsigned char *out = mem + OUT;
	MPI_Aint apos;

	MPI_Init(&argc, &argv);
	if (argc > 1 && !strcmp(argv[1], "fatal")) {
		pos = -8;
		MPI_Pack(src, 1, MPI_INT, out, SIZE, &pos, MPI_COMM_WORLD);
		printf("pack_pos: rank %d survived a negative position\n", tm_rank());
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

	/* in range: the position advances, the data round-trips */
	memset(mem, GUARD, sizeof mem);
	pos = 0;
	OK(MPI_Pack(src, 4, MPI_INT, out, SIZE, &pos, MPI_COMM_SELF));
	CHECK(pos == 16);
	pos = SIZE - 4;   /* exactly room for one more int */
	OK(MPI_Pack(src + 3, 1, MPI_INT, out, SIZE, &pos, MPI_COMM_SELF));
	CHECK(pos == SIZE);
	CHECK(guarded(OUT, OUT + SIZE));
	pos = 0;
	memset(dst, 0, sizeof dst);
	OK(MPI_Unpack(out, SIZE, &pos, dst, 4, MPI_INT, MPI_COMM_SELF));
	CHECK(pos == 16 && dst[0] == 11 && dst[3] == 44);
	pos = SIZE;   /* an empty unpack at the very end is allowed */
	OK(MPI_Unpack(out, SIZE, &pos, dst, 0, MPI_INT, MPI_COMM_SELF));
	CHECK(pos == SIZE);

	/* Pack: positions that leave [0, outsize] or the room needed */
	pos = -8;
	REFUSED(MPI_Pack(src, 1, MPI_INT, out, SIZE, &pos, MPI_COMM_SELF), OUT, OUT + SIZE);
	CHECK(pos == -8);
	pos = -OUT;
	REFUSED(MPI_Pack(src, 4, MPI_INT, out, SIZE, &pos, MPI_COMM_SELF), OUT, OUT + SIZE);
	pos = INT_MAX - 2;
	REFUSED(MPI_Pack(src, 1, MPI_INT, out, SIZE, &pos, MPI_COMM_SELF), OUT, OUT + SIZE);
	pos = SIZE + 4;
	REFUSED(MPI_Pack(src, 1, MPI_INT, out, SIZE, &pos, MPI_COMM_SELF), OUT, OUT + SIZE);
	pos = SIZE - 2;
	REFUSED(MPI_Pack(src, 1, MPI_INT, out, SIZE, &pos, MPI_COMM_SELF), OUT, OUT + SIZE);
	CHECK(pos == SIZE - 2);
	REFUSED(MPI_Pack(src, 1, MPI_INT, out, SIZE, (int *)(uintptr_t)0xFFFFFFFEu,
	                 MPI_COMM_SELF), OUT, OUT + SIZE);

	/* Unpack: the input [position, insize) must be the buffer's */
	pos = -8;
	REFUSED(MPI_Unpack(out, SIZE, &pos, dst, 1, MPI_INT, MPI_COMM_SELF), 0, 0);
	pos = -OUT;
	REFUSED(MPI_Unpack(out, SIZE, &pos, dst, 1, MPI_INT, MPI_COMM_SELF), 0, 0);
	pos = INT_MAX - 2;
	REFUSED(MPI_Unpack(out, SIZE, &pos, dst, 1, MPI_INT, MPI_COMM_SELF), 0, 0);
	pos = SIZE + 4;
	REFUSED(MPI_Unpack(out, SIZE, &pos, dst, 1, MPI_INT, MPI_COMM_SELF), 0, 0);
	/* ... and the output count x datatype must be in memory */
	pos = 0;
	REFUSED(MPI_Unpack(out, SIZE, &pos, (void *)(uintptr_t)0xFFFFFFF0u, 4, MPI_INT,
	                   MPI_COMM_SELF), 0, 0);

	/* external32: the same rules on an MPI_Aint position */
	memset(mem, GUARD, sizeof mem);
	apos = 0;
	OK(MPI_Pack_external("external32", src, 4, MPI_INT, out, SIZE, &apos));
	CHECK(apos == 16);
	CHECK(guarded(OUT, OUT + SIZE));
	apos = 0;
	memset(dst, 0, sizeof dst);
	OK(MPI_Unpack_external("external32", out, SIZE, &apos, dst, 4, MPI_INT));
	CHECK(apos == 16 && dst[1] == 22 && dst[2] == 33);
	apos = -8;
	REFUSED(MPI_Pack_external("external32", src, 1, MPI_INT, out, SIZE, &apos), OUT, OUT + SIZE);
	apos = -OUT;
	REFUSED(MPI_Pack_external("external32", src, 4, MPI_INT, out, SIZE, &apos), OUT, OUT + SIZE);
	apos = INT_MAX - 2;
	REFUSED(MPI_Pack_external("external32", src, 1, MPI_INT, out, SIZE, &apos), OUT, OUT + SIZE);
	apos = SIZE - 2;
	REFUSED(MPI_Pack_external("external32", src, 1, MPI_INT, out, SIZE, &apos), OUT, OUT + SIZE);
	apos = -8;
	REFUSED(MPI_Unpack_external("external32", out, SIZE, &apos, dst, 1, MPI_INT), 0, 0);
	apos = -OUT;
	REFUSED(MPI_Unpack_external("external32", out, SIZE, &apos, dst, 1, MPI_INT), 0, 0);
	apos = SIZE + 4;
	REFUSED(MPI_Unpack_external("external32", out, SIZE, &apos, dst, 1, MPI_INT), 0, 0);

	/* Data and packed bytes that overlap (erroneous aliasing; MPICH 4.0
	 * copied them with memcpy): MPI_ERR_BUFFER, nothing touched.  Packing
	 * right after the data works. */
	int *in = (int *)(void *)(mem + OUT);
	pos = 0;
	OVERLAP(MPI_Pack(in, 4, MPI_INT, out, SIZE, &pos, MPI_COMM_SELF));
	pos = 0;
	OVERLAP(MPI_Pack(in, 4, MPI_INT, out + 8, SIZE - 8, &pos, MPI_COMM_SELF));
	pos = 4;   /* the packed bytes [OUT+4, OUT+20) reach the output's */
	OVERLAP(MPI_Unpack(out, SIZE, &pos, in + 4, 4, MPI_INT, MPI_COMM_SELF));
	apos = 0;
	OVERLAP(MPI_Pack_external("external32", in, 4, MPI_INT, out + 12, SIZE - 12, &apos));
	apos = 0;
	OVERLAP(MPI_Unpack_external("external32", out, SIZE, &apos, in + 3, 4, MPI_INT));
	memset(mem, GUARD, sizeof mem);
	pos = 0;
	OK(MPI_Pack(in, 4, MPI_INT, out + 16, SIZE - 16, &pos, MPI_COMM_SELF));
	CHECK(pos == 16 && !memcmp(out, out + 16, 16));

	return tm_finish("pack_pos") | MPI_Finalize();
}
