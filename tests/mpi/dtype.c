/* Derived datatypes: every constructor (contiguous, vector, hvector,
 * indexed, hindexed, indexed_block, hindexed_block, struct, subarray,
 * darray, resized, dup), extents and sizes, envelopes, names, Get_elements,
 * Get_address with MPI_BOTTOM, Pack/Unpack and Pack_external. */
#include "tmpi.h"
#include <stddef.h>

static int rank, size, right, left;
static int arr[64], got[64];

static void reset(void)
{
	for (int i = 0; i < 64; i++) { arr[i] = i; got[i] = -1; }
}

/* Sends one `t` from arr around the ring, receives contiguous ints;
 * returns how many ints arrived and checks them against `want`. */
static int through(MPI_Datatype t, const int *want, int n, const char *what)
{
	MPI_Status st;
	int cnt, ok = 1, i;
	reset();
	OK(MPI_Sendrecv(arr, 1, t, right, 1, got, 64, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
	OK(MPI_Get_count(&st, MPI_INT, &cnt));
	for (i = 0; i < n; i++) ok &= got[i] == want[i];
	CHECK(cnt == n && ok);
	if (rank == 0) {
		char line[256];
		int p = snprintf(line, sizeof line, "%s:", what);
		for (i = 0; i < cnt && i < 20 && p < 200; i++) p += snprintf(line + p, sizeof line - (size_t)p, " %d", got[i]);
		tm_out("%s", line);
	}
	return cnt;
}

static void constructors(void)
{
	MPI_Datatype t, t2, t3;
	MPI_Aint lb, ext, tlb, text;
	int sz;

	OK(MPI_Type_contiguous(3, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){0, 1, 2}, 3, "contiguous");
	MPI_Type_free(&t);

	OK(MPI_Type_vector(3, 2, 5, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){0, 1, 5, 6, 10, 11}, 6, "vector");
	OK(MPI_Type_get_extent(t, &lb, &ext));
	OK(MPI_Type_size(t, &sz));
	CHECK(lb == 0 && ext == 12 * (MPI_Aint)sizeof(int) && sz == 6 * (int)sizeof(int));
	MPI_Type_free(&t);

	OK(MPI_Type_create_hvector(2, 3, 7 * sizeof(int), MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){0, 1, 2, 7, 8, 9}, 6, "hvector");
	MPI_Type_free(&t);

	int bl[3] = {2, 1, 3}, dsp[3] = {10, 1, 20};
	OK(MPI_Type_indexed(3, bl, dsp, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){10, 11, 1, 20, 21, 22}, 6, "indexed");
	OK(MPI_Type_get_true_extent(t, &tlb, &text));
	CHECK(tlb == 1 * (MPI_Aint)sizeof(int) && text == 22 * (MPI_Aint)sizeof(int));
	MPI_Type_free(&t);

	MPI_Aint hd[2] = {4 * sizeof(int), 0};
	int hbl[2] = {2, 1};
	OK(MPI_Type_create_hindexed(2, hbl, hd, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){4, 5, 0}, 3, "hindexed");
	MPI_Type_free(&t);

	int bd[3] = {30, 3, 40};
	OK(MPI_Type_create_indexed_block(3, 2, bd, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){30, 31, 3, 4, 40, 41}, 6, "indexed_block");
	MPI_Type_free(&t);

	MPI_Aint hbd[2] = {8 * sizeof(int), 2 * sizeof(int)};
	OK(MPI_Type_create_hindexed_block(2, 3, hbd, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){8, 9, 10, 2, 3, 4}, 6, "hindexed_block");
	MPI_Type_free(&t);

	/* resized: a vector of 1 int with extent 3 ints, repeated 4 times */
	OK(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &t2));
	OK(MPI_Type_contiguous(4, t2, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){0, 3, 6, 9}, 4, "resized");
	OK(MPI_Type_get_extent(t2, &lb, &ext));
	CHECK(lb == 0 && ext == 3 * (MPI_Aint)sizeof(int));
	OK(MPI_Type_dup(t, &t3));
	OK(MPI_Type_commit(&t3));
	through(t3, (int[]){0, 3, 6, 9}, 4, "dup");
	MPI_Type_free(&t);
	MPI_Type_free(&t2);
	MPI_Type_free(&t3);

	/* subarray: 2x3 block at (1,2) of a 4x6 C-order array */
	int gs[2] = {4, 6}, ss[2] = {2, 3}, st[2] = {1, 2};
	OK(MPI_Type_create_subarray(2, gs, ss, st, MPI_ORDER_C, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){8, 9, 10, 14, 15, 16}, 6, "subarray");
	OK(MPI_Type_get_extent(t, &lb, &ext));
	CHECK(lb == 0 && ext == 24 * (MPI_Aint)sizeof(int));
	MPI_Type_free(&t);
	OK(MPI_Type_create_subarray(2, gs, ss, st, MPI_ORDER_FORTRAN, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	through(t, (int[]){9, 10, 13, 14, 17, 18}, 6, "subarray_f");
	MPI_Type_free(&t);

	/* darray: a 4 x (2*size) array, columns block-distributed; arrive
	 * from the left neighbour, so its block columns */
	int dg[2] = {4, 2 * size}, dd[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
	int da[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, dp[2] = {1, size};
	OK(MPI_Type_create_darray(size, rank, 2, dg, dd, da, dp, MPI_ORDER_C, MPI_INT, &t));
	OK(MPI_Type_commit(&t));
	int want[8], row, k = 0;
	for (row = 0; row < 4; row++) {
		want[k++] = row * 2 * size + 2 * rank;
		want[k++] = row * 2 * size + 2 * rank + 1;
	}
	/* sent by this rank's type, so compare on the receiver with the sender's view */
	reset();
	OK(MPI_Sendrecv(arr, 1, t, rank, 2, got, 64, MPI_INT, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	int ok = 1;
	for (k = 0; k < 8; k++) ok &= got[k] == want[k];
	CHECK(ok);
	OK(MPI_Type_size(t, &sz));
	OK(MPI_Type_get_extent(t, &lb, &ext));
	CHECK(sz == 8 * (int)sizeof(int) && ext == 8 * size * (MPI_Aint)sizeof(int));
	tm_out("darray first %d last %d", got[0], got[7]);
	MPI_Type_free(&t);
}

struct part { char tag; double x; int n[3]; };

static void structs(void)
{
	struct part p[2], q[2];
	int bl[3] = {1, 1, 3}, cnt, i;
	MPI_Aint d[3] = {offsetof(struct part, tag), offsetof(struct part, x), offsetof(struct part, n)};
	MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t, tr;
	MPI_Aint lb, ext;
	MPI_Status st;

	OK(MPI_Type_create_struct(3, bl, d, ty, &t));
	OK(MPI_Type_create_resized(t, 0, sizeof(struct part), &tr));
	OK(MPI_Type_commit(&tr));
	OK(MPI_Type_get_extent(tr, &lb, &ext));
	CHECK(ext == (MPI_Aint)sizeof(struct part));
	for (i = 0; i < 2; i++) {
		p[i].tag = (char)('A' + rank + i);
		p[i].x = rank + i / 4.0;
		p[i].n[0] = rank; p[i].n[1] = i; p[i].n[2] = rank * i;
	}
	memset(q, 0, sizeof q);
	OK(MPI_Sendrecv(p, 2, tr, right, 3, q, 2, tr, left, 3, MPI_COMM_WORLD, &st));
	CHECK(q[1].tag == 'A' + left + 1 && q[1].x == left + 0.25 && q[1].n[2] == left);
	OK(MPI_Get_count(&st, tr, &cnt));
	CHECK(cnt == 2);
	OK(MPI_Get_elements(&st, tr, &cnt));
	CHECK(cnt == 10);  /* 2 x (1 char + 1 double + 3 ints) */
	tm_out("struct from %d: %c %.2f %d", left, q[1].tag, q[1].x, q[1].n[2]);

	/* envelope and contents of the struct */
	int ni, na, nd, comb;
	OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
	CHECK(comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nd == 3);
	int ci[4];
	MPI_Aint ca[3];
	MPI_Datatype cd[3];
	OK(MPI_Type_get_contents(t, 4, 3, 3, ci, ca, cd));
	CHECK(ci[0] == 3 && ci[3] == 3 && ca[1] == d[1] && cd[2] == MPI_INT);
	OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
	CHECK(comb == MPI_COMBINER_NAMED);

	char name[MPI_MAX_OBJECT_NAME];
	int len;
	OK(MPI_Type_set_name(tr, "part_t"));
	OK(MPI_Type_get_name(tr, name, &len));
	CHECK(strcmp(name, "part_t") == 0 && len == 6);
	OK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
	CHECK(strcmp(name, "MPI_DOUBLE") == 0);

	/* MPI_BOTTOM with a struct of absolute addresses */
	static int ga[2];
	static double gb;
	MPI_Aint aa[2];
	MPI_Datatype at[2] = {MPI_INT, MPI_DOUBLE}, abs;
	int abl[2] = {2, 1};
	ga[0] = rank; ga[1] = rank * 3; gb = rank + 0.5;
	OK(MPI_Get_address(ga, &aa[0]));
	OK(MPI_Get_address(&gb, &aa[1]));
	CHECK(MPI_Aint_diff(aa[1], aa[0]) == (char *)&gb - (char *)ga);
	CHECK(MPI_Aint_add(aa[0], sizeof(int)) == aa[0] + (MPI_Aint)sizeof(int));
	OK(MPI_Type_create_struct(2, abl, aa, at, &abs));
	OK(MPI_Type_commit(&abs));
	int ri[2];
	double rd;
	MPI_Request rq[2];
	/* the receive overwrites ga/gb, so send copies made before it */
	int mine[2] = {ga[0], ga[1]};
	double md = gb;
	OK(MPI_Irecv(MPI_BOTTOM, 1, abs, left, 4, MPI_COMM_WORLD, &rq[0]));
	MPI_Aint ma[2];
	MPI_Datatype mt;
	MPI_Get_address(mine, &ma[0]);
	MPI_Get_address(&md, &ma[1]);
	OK(MPI_Type_create_struct(2, abl, ma, at, &mt));
	OK(MPI_Type_commit(&mt));
	OK(MPI_Isend(MPI_BOTTOM, 1, mt, right, 4, MPI_COMM_WORLD, &rq[1]));
	OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	ri[0] = ga[0]; ri[1] = ga[1]; rd = gb;
	CHECK(ri[0] == left && ri[1] == 3 * left && rd == left + 0.5);
	tm_out("bottom from %d: %d %d %.1f", left, ri[0], ri[1], rd);
	MPI_Type_free(&mt);
	MPI_Type_free(&abs);
	MPI_Type_free(&t);
	MPI_Type_free(&tr);
}

static void packing(void)
{
	char buf[256], ebuf[64];
	int pos = 0, psz, a[3] = {1, 2, 0x01020304}, b[3] = {0}, i;
	double x = 2.5, y = 0;
	MPI_Aint esz, epos = 0;

	OK(MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &psz));
	CHECK(psz >= 3 * (int)sizeof(int));
	OK(MPI_Pack(a, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
	OK(MPI_Pack(&x, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD));
	/* ship the packed bytes around the ring */
	char rbuf[256];
	MPI_Status st;
	int cnt;
	OK(MPI_Sendrecv(buf, pos, MPI_PACKED, right, 5, rbuf, sizeof rbuf, MPI_PACKED, left, 5, MPI_COMM_WORLD, &st));
	OK(MPI_Get_count(&st, MPI_PACKED, &cnt));
	CHECK(cnt == pos);
	pos = 0;
	OK(MPI_Unpack(rbuf, cnt, &pos, b, 3, MPI_INT, MPI_COMM_WORLD));
	OK(MPI_Unpack(rbuf, cnt, &pos, &y, 1, MPI_DOUBLE, MPI_COMM_WORLD));
	CHECK(b[0] == 1 && b[2] == 0x01020304 && y == 2.5 && pos == cnt);

	/* external32 is big-endian and fixed-size */
	OK(MPI_Pack_external_size("external32", 3, MPI_INT, &esz));
	CHECK(esz == 12);
	OK(MPI_Pack_external("external32", a, 3, MPI_INT, ebuf, sizeof ebuf, &epos));
	CHECK(epos == 12);
	CHECK(ebuf[8] == 1 && ebuf[9] == 2 && ebuf[10] == 3 && ebuf[11] == 4 && ebuf[3] == 1);
	memset(b, 0, sizeof b);
	epos = 0;
	OK(MPI_Unpack_external("external32", ebuf, 12, &epos, b, 3, MPI_INT));
	CHECK(b[0] == 1 && b[1] == 2 && b[2] == 0x01020304);
	if (rank == 0) {
		char line[64];
		int p = 0;
		for (i = 0; i < 12; i++) p += snprintf(line + p, sizeof line - (size_t)p, "%02x", (unsigned char)ebuf[i]);
		tm_out("external32 %s", line);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	constructors();
	structs();
	packing();
	int rc = tm_finish("dtype");
	MPI_Finalize();
	return rc;
}
