/* uop_disp.c - user-defined ops on datatypes whose data does not start at
 * the buffer address: a displacement of 4096 bytes, a negative one, a
 * resized type with a negative lower bound and holes, a large
 * displacement.  The op finds each element at true_lb + i * extent, as a
 * program must; the results and the bytes between elements (which no one
 * may touch) are printed, and must be the same natively and under
 * mpiwasm. */
#include "tmpi.h"
#include <stdint.h>

#define FILL 0x77

/* in + inout at true_lb + i * extent, one int per element */
static void isum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	MPI_Aint lb, ext, tlb, text;
	MPI_Type_get_extent(*dt, &lb, &ext);
	MPI_Type_get_true_extent(*dt, &tlb, &text);
	for (int i = 0; i < *len; i++) {
		const int *a = (const int *)((const char *)in + tlb + (MPI_Aint)i * ext);
		int *b = (int *)((char *)inout + tlb + (MPI_Aint)i * ext);
		*b = *b * 3 + *a;   /* not commutative: the order shows too */
	}
}

struct layout {
	const char *name;
	MPI_Datatype t;
	MPI_Aint tlb, ext, span;   /* span: bytes from the first element's start */
	char *mem, *base;          /* mem: the allocation; base: buffer address */
};

static size_t alloc_size(const struct layout *l);
static char *buf_base(const struct layout *l, char *mem);

static void layout_make(struct layout *l, const char *name, MPI_Datatype t, int count)
{
	MPI_Aint lb, text;
	l->name = name;
	l->t = t;
	MPI_Type_commit(&l->t);
	MPI_Type_get_extent(l->t, &lb, &l->ext);
	MPI_Type_get_true_extent(l->t, &l->tlb, &text);
	l->span = (MPI_Aint)(count - 1) * l->ext + text;
	l->mem = (char *)malloc(alloc_size(l));
	l->base = buf_base(l, l->mem);
}

/* 256 spare bytes each side of what the type touches, which lies at
 * tlb from the buffer address (both inside the allocation). */
static size_t alloc_size(const struct layout *l)
{
	return (size_t)(l->tlb < 0 ? -l->tlb : l->tlb) + (size_t)l->span + 512;
}

static char *buf_base(const struct layout *l, char *mem)
{
	return mem + 256 + (l->tlb < 0 ? -l->tlb : 0);
}

static int *elem(struct layout *l, char *base, int i)
{
	return (int *)(base + l->tlb + (MPI_Aint)i * l->ext);
}

/* Fills the bytes around a buffer's elements with FILL, the elements
 * with seed * 10 + i. */
static void fill(struct layout *l, char *base, int count, int seed)
{
	memset(base + l->tlb - 256, FILL, (size_t)l->span + 512);
	for (int i = 0; i < count; i++)
		*elem(l, base, i) = seed * 10 + i;
}

/* Bytes around and between the elements are still FILL. */
static int untouched(struct layout *l, char *base, int count)
{
	char *lo = base + l->tlb - 256, *hi = base + l->tlb + l->span + 256;
	for (char *p = lo; p < hi; p++) {
		int in_elem = 0;
		for (int i = 0; i < count && !in_elem; i++) {
			char *e = (char *)elem(l, base, i);
			in_elem = p >= e && p < e + sizeof(int);
		}
		if (!in_elem && *(unsigned char *)p != FILL)
			return 0;
	}
	return 1;
}

static void run(struct layout *l, int count, MPI_Op op)
{
	int rank = tm_rank();
	char *sm = (char *)malloc(alloc_size(l));
	char *s = buf_base(l, sm), *r = l->base;
	MPI_Request rq;

	fill(l, s, count, rank + 1);
	fill(l, r, count, 0);
	OK(MPI_Allreduce(s, r, count, l->t, op, MPI_COMM_WORLD));
	for (int i = 0; i < count; i++)
		tm_out("%s allreduce[%d] = %d", l->name, i, *elem(l, r, i));
	CHECK(untouched(l, r, count));
	CHECK(untouched(l, s, count));

	fill(l, r, count, 0);
	OK(MPI_Reduce(s, r, count, l->t, op, 0, MPI_COMM_WORLD));
	if (rank == 0)
		for (int i = 0; i < count; i++)
			tm_out("%s reduce[%d] = %d", l->name, i, *elem(l, r, i));
	CHECK(untouched(l, r, count));

	fill(l, r, count, 0);
	OK(MPI_Scan(s, r, count, l->t, op, MPI_COMM_WORLD));
	for (int i = 0; i < count; i++)
		tm_out("%s scan[%d] = %d", l->name, i, *elem(l, r, i));
	CHECK(untouched(l, r, count));

	fill(l, r, count, 0);
	OK(MPI_Iallreduce(s, r, count, l->t, op, MPI_COMM_WORLD, &rq));
	OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	for (int i = 0; i < count; i++)
		tm_out("%s iallreduce[%d] = %d", l->name, i, *elem(l, r, i));
	CHECK(untouched(l, r, count));

	fill(l, r, count, 7);
	OK(MPI_Reduce_local(s, r, count, l->t, op));
	for (int i = 0; i < count; i++)
		tm_out("%s reduce_local[%d] = %d", l->name, i, *elem(l, r, i));
	CHECK(untouched(l, r, count));
	free(sm);
}

int main(int argc, char **argv)
{
	MPI_Op op;
	MPI_Datatype t;
	struct layout l;
	int one = 1;
	MPI_Aint d;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Op_create(isum, 0, &op);

	d = 4096;   /* data 4 KiB past the buffer address */
	MPI_Type_create_hindexed(1, &one, &d, MPI_INT, &t);
	layout_make(&l, "hindexed+4096", t, 1);
	run(&l, 1, op);
	run(&l, 1, op);   /* again, with the staging already there */
	free(l.mem);
	MPI_Type_free(&l.t);

	d = -64;    /* data before the buffer address */
	MPI_Type_create_hindexed(1, &one, &d, MPI_INT, &t);
	layout_make(&l, "hindexed-64", t, 3);
	run(&l, 3, op);
	free(l.mem);
	MPI_Type_free(&l.t);

	/* lower bound -16, extent 12: a hole of 8 bytes after each int */
	MPI_Type_create_resized(MPI_INT, -16, 12, &t);
	layout_make(&l, "resized-16x12", t, 5);
	run(&l, 5, op);
	free(l.mem);
	MPI_Type_free(&l.t);

	d = 1 << 24;   /* 16 MiB: far past anything the library allocates */
	MPI_Type_create_hindexed(1, &one, &d, MPI_INT, &t);
	layout_make(&l, "hindexed+16M", t, 2);
	run(&l, 2, op);
	free(l.mem);
	MPI_Type_free(&l.t);

	MPI_Op_free(&op);
	return tm_finish("uop_disp") | MPI_Finalize();
}
