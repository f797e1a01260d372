#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pass, fail, rank, size;
#define CHECK(c, what) do { if (c) pass++; else { fail++; printf("rank %d FAIL %s (line %d)\n", rank, what, __LINE__); } } while (0)

static int copies, deletes, last_del_val;
static int my_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
	(void)old; (void)key;
	copies++;
	*(void **)out = (char *)in + *(int *)extra;
	*flag = 1;
	return MPI_SUCCESS;
}
static int my_del(MPI_Comm c, int key, void *val, void *extra)
{
	(void)c; (void)key; (void)extra;
	deletes++;
	last_del_val = (int)(long)val;
	return MPI_SUCCESS;
}
static int tdel;
static int t_del(MPI_Datatype t, int key, void *val, void *extra)
{
	(void)t; (void)key; (void)val; (void)extra;
	tdel++;
	return MPI_SUCCESS;
}
static int eh_calls, eh_code;
static void myeh(MPI_Comm *c, int *code, ...) { (void)c; eh_calls++; eh_code = *code; }

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int *v, flag;

	/* predefined attributes */
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
	CHECK(flag && *v >= 32767, "TAG_UB");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
	CHECK(!flag || *v == 0 || *v == 1, "WTIME_IS_GLOBAL");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag);
	CHECK(flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < size)), "HOST");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag);
	CHECK(flag && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < size)), "IO");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
	CHECK(!flag || *v >= 1, "UNIVERSE_SIZE");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag);
	CHECK(!flag || *v == 0, "APPNUM");
	MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
	CHECK(flag && *v >= 32767, "Attr_get TAG_UB");

	/* user keyvals */
	int key, off = 5;
	MPI_Comm_create_keyval(my_copy, my_del, &key, &off);
	CHECK(key != MPI_KEYVAL_INVALID, "create_keyval");
	static char obj[64];
	MPI_Comm dup;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_set_attr(dup, key, obj + 1);
	MPI_Comm_set_attr(dup, key, obj);
	CHECK(deletes == 1, "set_attr replaces -> delete called");
	void *got; flag = 0;
	MPI_Comm_get_attr(dup, key, &got, &flag);
	CHECK(flag && got == obj, "get_attr user value");
	MPI_Comm d2;
	MPI_Comm_dup(dup, &d2);
	CHECK(copies == 1, "copy fn on dup");
	MPI_Comm_get_attr(d2, key, &got, &flag);
	CHECK(flag && got == obj + 5, "copied value");
	MPI_Comm_free(&d2);
	CHECK(deletes == 2 && last_del_val == (int)(long)(obj + 5), "delete on free");
	MPI_Comm_delete_attr(dup, key);
	CHECK(deletes == 3, "delete_attr");
	MPI_Comm_get_attr(dup, key, &got, &flag);
	CHECK(!flag, "deleted");
	/* DUP_FN and NULL_COPY_FN */
	int k2, k3;
	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL);
	MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k3, NULL);
	MPI_Comm_set_attr(dup, k2, (void *)1234);
	MPI_Attr_put(dup, k3, (void *)99);
	MPI_Comm_dup(dup, &d2);
	MPI_Comm_get_attr(d2, k2, &got, &flag);
	CHECK(flag && got == (void *)1234, "DUP_FN");
	MPI_Attr_get(d2, k3, &got, &flag);
	CHECK(!flag, "NULL_COPY_FN");
	MPI_Attr_get(dup, k3, &got, &flag);
	CHECK(flag && got == (void *)99, "Attr_put/get");
	MPI_Attr_delete(dup, k3);
	MPI_Comm_free(&d2);
	MPI_Comm_free_keyval(&k2);
	MPI_Keyval_free(&k3);
	CHECK(k2 == MPI_KEYVAL_INVALID && k3 == MPI_KEYVAL_INVALID, "free_keyval");
	MPI_Comm_set_attr(dup, key, obj);
	MPI_Comm_free_keyval(&key);
	MPI_Comm_free(&dup);
	CHECK(deletes == 4, "delete after keyval freed");

	/* type attributes */
	MPI_Datatype t, t2;
	MPI_Type_contiguous(3, MPI_INT, &t);
	int tk;
	MPI_Type_create_keyval(MPI_TYPE_DUP_FN, t_del, &tk, NULL);
	MPI_Type_set_attr(t, tk, (void *)7);
	MPI_Type_dup(t, &t2);
	MPI_Type_get_attr(t2, tk, &got, &flag);
	CHECK(flag && got == (void *)7, "type attr dup");
	MPI_Type_delete_attr(t2, tk);
	CHECK(tdel == 1, "type delete_attr");
	MPI_Type_free(&t2);
	MPI_Type_free(&t);
	CHECK(tdel == 2, "type free deletes");
	MPI_Type_free_keyval(&tk);

	/* envelope / contents */
	int ni, na, nd, comb;
	MPI_Type_get_envelope(MPI_LONG, &ni, &na, &nd, &comb);
	CHECK(comb == MPI_COMBINER_NAMED, "named envelope");
	MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &t);
	MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
	CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope");
	int ints[3]; MPI_Aint aints[1]; MPI_Datatype tys[1];
	MPI_Type_get_contents(t, 3, 0, 1, ints, aints, tys);
	CHECK(ints[0] == 4 && ints[1] == 2 && ints[2] == 5 && tys[0] == MPI_DOUBLE, "vector contents");
	MPI_Type_free(&t);
	{
		int sizes[2] = { 10, 20 }, subs[2] = { 3, 4 }, starts[2] = { 1, 2 };
		MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
		int si[8]; MPI_Datatype st[1];
		MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
		MPI_Type_get_contents(t, 8, 0, 1, si, NULL, st);
		CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && si[7] == MPI_ORDER_FORTRAN && si[3] == 3, "subarray contents");
		MPI_Type_free(&t);
	}
	{
		int bl[2] = { 1, 2 }; MPI_Aint dis[2] = { 0, 8 }; MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
		MPI_Type_create_struct(2, bl, dis, ty, &t);
		int si[3]; MPI_Aint sa[2]; MPI_Datatype st[2];
		MPI_Type_get_contents(t, 3, 2, 2, si, sa, st);
		CHECK(si[0] == 2 && sa[1] == 8 && st[0] == MPI_INT && st[1] == MPI_DOUBLE, "struct contents");
		MPI_Type_free(&t);
	}

	/* external32 */
	{
		int x[3] = { 1, 0x01020304, -5 }, y[3] = { 0 };
		MPI_Aint sz = 0, pos = 0;
		unsigned char buf[64];
		MPI_Pack_external_size("external32", 3, MPI_INT, &sz);
		CHECK(sz == 12, "pack_external_size");
		MPI_Pack_external("external32", x, 3, MPI_INT, buf, sizeof buf, &pos);
		CHECK(pos == 12 && buf[4] == 1 && buf[7] == 4, "pack_external big-endian");
		MPI_Aint p2 = 0;
		MPI_Unpack_external("external32", buf, pos, &p2, y, 3, MPI_INT);
		CHECK(p2 == 12 && y[1] == x[1] && y[2] == -5, "unpack_external");
	}

	/* Comm_idup */
	{
		MPI_Comm nc; MPI_Request r;
		MPI_Comm_idup(MPI_COMM_WORLD, &nc, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		int s2; MPI_Comm_size(nc, &s2);
		int x = 1, sum = 0;
		MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, nc);
		CHECK(s2 == size && sum == size && r == MPI_REQUEST_NULL, "comm_idup");
		MPI_Comm_free(&nc);
	}

	/* call_errhandler, user classes, topology inheritance */
	{
		MPI_Errhandler eh;
		MPI_Comm dd;
		MPI_Comm_dup(MPI_COMM_WORLD, &dd);
		MPI_Comm_create_errhandler(myeh, &eh);
		MPI_Comm_set_errhandler(dd, eh);
		MPI_Errhandler_free(&eh);
		int ucls, ucode;
		MPI_Add_error_class(&ucls);
		MPI_Add_error_code(ucls, &ucode);
		MPI_Add_error_string(ucode, "my own error");
		int rc = MPI_Comm_call_errhandler(dd, ucode);
		CHECK(rc == MPI_SUCCESS && eh_calls == 1 && eh_code == ucode, "call_errhandler");
		int c2; MPI_Error_class(ucode, &c2);
		CHECK(c2 == ucls, "user code class");
		char s[MPI_MAX_ERROR_STRING]; int sl;
		MPI_Error_string(ucode, s, &sl);
		CHECK(strcmp(s, "my own error") == 0, "user error string");
		int *lu; MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lu, &flag);
		CHECK(flag && *lu >= ucode, "LASTUSEDCODE");
		int dims[1] = { 0 }, periods[1] = { 1 };
		MPI_Dims_create(size, 1, dims);
		MPI_Comm cart, sub;
		MPI_Cart_create(dd, 1, dims, periods, 0, &cart);
		rc = MPI_Send(&flag, 1, MPI_INT, size + 3, 0, cart);
		CHECK(eh_calls == 2, "cart inherits errhandler");
		int co[1] = { size - 1 }, cr = -1;
		MPI_Cart_rank(cart, co, &cr);
		CHECK(cr == size - 1, "cart_rank");
		int remain[1] = { 1 };
		MPI_Cart_sub(cart, remain, &sub);
		int ss; MPI_Comm_size(sub, &ss);
		CHECK(ss == size, "cart_sub");
		MPI_Send(&flag, 1, MPI_INT, size + 3, 0, sub);
		CHECK(eh_calls == 3, "cart_sub inherits errhandler");
		int src[1] = { (rank + size - 1) % size }, dst[1] = { (rank + 1) % size };
		MPI_Comm g;
		MPI_Dist_graph_create_adjacent(dd, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
		int in_, out_, w_, s1[1], d1[1];
		MPI_Dist_graph_neighbors_count(g, &in_, &out_, &w_);
		MPI_Dist_graph_neighbors(g, 1, s1, MPI_UNWEIGHTED, 1, d1, MPI_UNWEIGHTED);
		CHECK(in_ == 1 && out_ == 1 && !w_ && s1[0] == src[0] && d1[0] == dst[0], "dist_graph adjacent");
		MPI_Comm_free(&g);
		MPI_Comm_free(&sub);
		MPI_Comm_free(&cart);
		MPI_Comm_free(&dd);
		MPI_Pcontrol(1);
	}

	int tp, tf;
	MPI_Reduce(&pass, &tp, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&fail, &tf, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) printf("t2: %d passed, %d failed\n", tp, tf);
	MPI_Finalize();
	return 0;
}
