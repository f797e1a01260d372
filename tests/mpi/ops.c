/* Reduction operations: user-defined ops on derived types (commutative and
 * not), the datatype handle passed to the callback, MINLOC/MAXLOC on the
 * pair types (MPI_DOUBLE_INT, MPI_2INT), Op_commutative, Op_free. */
#include "tmpi.h"

static int rank, size;
static MPI_Datatype cplx, mat, strided;
static int calls_seen_wrong_type;

typedef struct { double re, im; } cplx_t;

static void cmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	cplx_t *a = in, *b = inout;
	if (*dt != cplx) calls_seen_wrong_type++;
	for (int i = 0; i < *len; i++) {
		cplx_t r = {a[i].re * b[i].re - a[i].im * b[i].im, a[i].re * b[i].im + a[i].im * b[i].re};
		b[i] = r;
	}
}

/* 2x2 integer matrix product, inout = in x inout (not commutative) */
static void mmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout;
	if (*dt != mat) calls_seen_wrong_type++;
	for (int i = 0; i < *len; i++, a += 4, b += 4) {
		int r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
		            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
		memcpy(b, r, sizeof r);
	}
}

/* max on every other int (the type is a stride-2 vector of 3 ints) */
static void smax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout;
	if (*dt != strided) calls_seen_wrong_type++;
	for (int i = 0; i < *len; i++, a += 6, b += 6)
		for (int k = 0; k < 6; k += 2)
			if (a[k] > b[k]) b[k] = a[k];
}

static void matpow(int *m, int n)  /* product of M(0)..M(n-1), M(r) = [[1,r],[0,1]] x [[1,0],[1,1]] */
{
	int acc[4] = {1, 0, 0, 1};
	for (int r = 0; r < n; r++) {
		int mr[4] = {1 + r, r, 1, 1};
		int t[4] = {acc[0] * mr[0] + acc[1] * mr[2], acc[0] * mr[1] + acc[1] * mr[3],
		            acc[2] * mr[0] + acc[3] * mr[2], acc[2] * mr[1] + acc[3] * mr[3]};
		memcpy(acc, t, sizeof t);
	}
	memcpy(m, acc, sizeof acc);
}

int main(int argc, char **argv)
{
	MPI_Op op_c, op_m, op_s;
	int commute, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();

	/* commutative op on a contiguous pair of doubles */
	OK(MPI_Type_contiguous(2, MPI_DOUBLE, &cplx));
	OK(MPI_Type_commit(&cplx));
	OK(MPI_Op_create(cmul, 1, &op_c));
	OK(MPI_Op_commutative(op_c, &commute));
	CHECK(commute == 1);
	cplx_t z[2] = {{0, 1}, {1, 1}}, zr[2];   /* i^size and (1+i)^size */
	OK(MPI_Allreduce(z, zr, 2, cplx, op_c, MPI_COMM_WORLD));
	double re = 1, im = 0;
	for (i = 0; i < size; i++) { double t = re - im; im = re + im; re = t; }
	CHECK(zr[1].re == re && zr[1].im == im);
	tm_out("cplx (1+i)^%d = %g%+gi, i^%d = %g%+gi", size, zr[1].re + 0.0, zr[1].im + 0.0,
	       size, zr[0].re + 0.0, zr[0].im + 0.0);  /* + 0.0: no "-0" */

	/* non-commutative op: rank order must be respected */
	OK(MPI_Type_contiguous(4, MPI_INT, &mat));
	OK(MPI_Type_commit(&mat));
	OK(MPI_Op_create(mmul, 0, &op_m));
	OK(MPI_Op_commutative(op_m, &commute));
	CHECK(commute == 0);
	int m[4] = {1 + rank, rank, 1, 1}, mr[4] = {0}, want[4];
	OK(MPI_Reduce(m, mr, 1, mat, op_m, 0, MPI_COMM_WORLD));
	if (rank == 0) {
		matpow(want, size);
		CHECK(memcmp(mr, want, sizeof want) == 0);
		tm_out("matrix product [%d %d; %d %d]", mr[0], mr[1], mr[2], mr[3]);
	}
	OK(MPI_Scan(m, mr, 1, mat, op_m, MPI_COMM_WORLD));
	matpow(want, rank + 1);
	CHECK(memcmp(mr, want, sizeof want) == 0);
	OK(MPI_Allreduce(MPI_IN_PLACE, m, 1, mat, op_m, MPI_COMM_WORLD));
	matpow(want, size);
	CHECK(memcmp(m, want, sizeof want) == 0);

	/* an op on a non-contiguous type: gaps keep the receiver's values */
	MPI_Datatype vec;
	OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
	OK(MPI_Type_create_resized(vec, 0, 6 * sizeof(int), &strided));
	MPI_Type_free(&vec);
	OK(MPI_Type_commit(&strided));
	OK(MPI_Op_create(smax, 1, &op_s));
	int sv[12], sr[12];
	for (i = 0; i < 12; i++) { sv[i] = (i % 2) ? -1 : rank * 100 + i; sr[i] = -7; }
	OK(MPI_Allreduce(sv, sr, 2, strided, op_s, MPI_COMM_WORLD));
	CHECK(sr[0] == (size - 1) * 100 && sr[10] == (size - 1) * 100 + 10 && sr[1] == -7);
	OK(MPI_Reduce_local(sv, sr, 2, strided, op_s));
	CHECK(sr[4] == (size - 1) * 100 + 4);

	/* MAXLOC / MINLOC on MPI_DOUBLE_INT and MPI_2INT */
	struct { double v; int loc; } dv = {(rank % 3) * 1.5, rank}, dmax, dmin;
	OK(MPI_Allreduce(&dv, &dmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
	OK(MPI_Allreduce(&dv, &dmin, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
	/* ties take the lowest index */
	CHECK(dmax.v == (size >= 3 ? 3.0 : (size - 1) * 1.5) && dmax.loc == (size >= 3 ? 2 : size - 1));
	CHECK(dmin.v == 0.0 && dmin.loc == 0);
	tm_out("maxloc %.1f@%d minloc %.1f@%d", dmax.v, dmax.loc, dmin.v, dmin.loc);
	struct { int v, loc; } iv[2] = {{-rank, rank}, {rank / 2, rank}}, ir[2];
	OK(MPI_Reduce(iv, ir, 2, MPI_2INT, MPI_MINLOC, size - 1, MPI_COMM_WORLD));
	if (rank == size - 1)
		CHECK(ir[0].v == -(size - 1) && ir[0].loc == size - 1 && ir[1].v == 0 && ir[1].loc == 0);
	struct { float v; int loc; } fv = {(float)rank, rank}, fr;
	OK(MPI_Allreduce(&fv, &fr, 1, MPI_FLOAT_INT, MPI_MAXLOC, MPI_COMM_WORLD));
	CHECK(fr.v == (float)(size - 1) && fr.loc == size - 1);

	CHECK(calls_seen_wrong_type == 0);
	OK(MPI_Op_free(&op_c));
	OK(MPI_Op_free(&op_m));
	OK(MPI_Op_free(&op_s));
	CHECK(op_c == MPI_OP_NULL);
	MPI_Type_free(&cplx);
	MPI_Type_free(&mat);
	MPI_Type_free(&strided);
	int rc = tm_finish("ops");
	MPI_Finalize();
	return rc;
}
