/* Conformance details the bridge must translate, each seen the same way
 * natively and as wasm: statuses (single-completion calls leave MPI_ERROR
 * alone; empty statuses), keyvals freed while attributes still use them,
 * and the constants procedures return (printed by name). */
#include "tmpi.h"

static int rank, size;

#define MARK 4321   /* no MPI error code: what MPI_ERROR holds before a call */

static const char *src_name(int s)
{
	if (s == MPI_PROC_NULL) return "MPI_PROC_NULL";
	if (s == MPI_ANY_SOURCE) return "MPI_ANY_SOURCE";
	return s == rank ? "self" : s >= 0 && s < size ? "a rank" : "bad";
}

static const char *tag_name(int t)
{
	return t == MPI_ANY_TAG ? "MPI_ANY_TAG" : t >= 0 ? "a tag" : "bad";
}

/* An empty or MPI_PROC_NULL status: what it says, error aside (the
 * libraries differ there and the standard leaves it open). */
static void empty(const char *what, MPI_Status *s)
{
	int n = -1, c = -1;
	MPI_Get_count(s, MPI_INT, &n);
	MPI_Test_cancelled(s, &c);
	tm_out("%s: source %s, tag %s, count %d, cancelled %d", what,
	       src_name(s->MPI_SOURCE), tag_name(s->MPI_TAG), n, c);
}

#define KEPT(call, s) do { (s).MPI_ERROR = MARK; OK(call); \
	if ((s).MPI_ERROR != MARK) tm_out("%s: MPI_ERROR set to %d", #call, (s).MPI_ERROR); \
	CHECK((s).MPI_ERROR == MARK); } while (0)

static void statuses(void)
{
	MPI_Status s, sa[2];
	MPI_Request r, ra[2];
	MPI_Message m;
	int x = 5, y = 0, z = 0, f = 0, i = -1, n;
	MPI_Comm c = MPI_COMM_SELF;

	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	/* single completion: a real message each time, MPI_ERROR untouched */
	OK(MPI_Isend(&x, 1, MPI_INT, 0, 1, c, &r));
	KEPT(MPI_Recv(&y, 1, MPI_INT, 0, 1, c, &s), s);
	CHECK(y == 5 && s.MPI_SOURCE == 0 && s.MPI_TAG == 1);
	KEPT(MPI_Wait(&r, &s), s);
	OK(MPI_Isend(&x, 1, MPI_INT, 0, 2, c, &r));
	KEPT(MPI_Probe(0, 2, c, &s), s);
	KEPT(MPI_Mprobe(0, 2, c, &m, &s), s);
	MPI_Get_count(&s, MPI_INT, &n);
	CHECK(n == 1 && s.MPI_TAG == 2);
	KEPT(MPI_Mrecv(&y, 1, MPI_INT, &m, &s), s);
	KEPT(MPI_Wait(&r, &s), s);
	OK(MPI_Irecv(&y, 1, MPI_INT, 0, 3, c, &r));
	KEPT(MPI_Sendrecv(&x, 1, MPI_INT, 0, 4, &z, 1, MPI_INT, 0, 4, c, &s), s);
	OK(MPI_Send(&x, 1, MPI_INT, 0, 3, c));
	do {
		s.MPI_ERROR = MARK;
		OK(MPI_Request_get_status(r, &f, &s));
		CHECK(s.MPI_ERROR == MARK);
	} while (!f);
	KEPT(MPI_Test(&r, &f, &s), s);
	CHECK(f);
	OK(MPI_Isend(&x, 1, MPI_INT, 0, 5, c, &ra[0]));
	OK(MPI_Irecv(&y, 1, MPI_INT, 0, 5, c, &ra[1]));
	KEPT(MPI_Waitany(2, ra, &i, &s), s);
	KEPT(MPI_Waitany(2, ra, &i, &s), s);
	sa[0].MPI_ERROR = sa[1].MPI_ERROR = MARK;
	OK(MPI_Isend(&x, 1, MPI_INT, 0, 6, c, &ra[0]));
	OK(MPI_Irecv(&y, 1, MPI_INT, 0, 6, c, &ra[1]));
	OK(MPI_Waitall(2, ra, sa));   /* MPI_ERROR unspecified on success */
	tm_out("statuses: single-completion calls leave MPI_ERROR alone");

	/* empty statuses */
	r = MPI_REQUEST_NULL;
	OK(MPI_Wait(&r, &s));
	empty("Wait(MPI_REQUEST_NULL)", &s);
	OK(MPI_Test(&r, &f, &s));
	CHECK(f);
	empty("Test(MPI_REQUEST_NULL)", &s);
	OK(MPI_Waitany(1, &r, &i, &s));
	CHECK(i == MPI_UNDEFINED);
	empty("Waitany(MPI_REQUEST_NULL)", &s);
	OK(MPI_Testany(1, &r, &i, &f, &s));
	CHECK(i == MPI_UNDEFINED && f);
	empty("Testany(MPI_REQUEST_NULL)", &s);
	OK(MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s));
	empty("Recv(MPI_PROC_NULL)", &s);
	OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s));
	empty("Probe(MPI_PROC_NULL)", &s);
	OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &s));
	CHECK(m == MPI_MESSAGE_NO_PROC);
	empty("Mprobe(MPI_PROC_NULL)", &s);
	OK(MPI_Mrecv(&y, 1, MPI_INT, &m, &s));
	CHECK(m == MPI_MESSAGE_NULL);
	empty("Mrecv(MPI_MESSAGE_NO_PROC)", &s);
	OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT,
	                MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s));
	empty("Sendrecv(MPI_PROC_NULL)", &s);
}

/* ---- keyvals freed while attributes use them ---- */

static int deleted[3];   /* by value: which delete callback ran */

static int del_a(MPI_Comm c, int key, void *val, void *extra)
{
	(void)c; (void)key; (void)extra;
	deleted[0] = *(int *)val;
	return MPI_SUCCESS;
}

static int del_b(MPI_Comm c, int key, void *val, void *extra)
{
	(void)c; (void)key; (void)extra;
	deleted[1] = *(int *)val;
	return MPI_SUCCESS;
}

static int tdel(MPI_Datatype t, int key, void *val, void *extra)
{
	(void)t; (void)key; (void)extra;
	deleted[2] = *(int *)val;
	return MPI_SUCCESS;
}

static void keyvals(void)
{
	static int va = 11, vb = 22, vt = 33;
	MPI_Comm dup;
	MPI_Datatype t;
	int ka, kb, saved, kt, kt2, tsaved, flag = -1;
	void *got;

	OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_a, &ka, NULL));
	OK(MPI_Comm_set_attr(dup, ka, &va));
	saved = ka;
	OK(MPI_Comm_free_keyval(&ka));
	CHECK(ka == MPI_KEYVAL_INVALID);
	/* the attribute still there keeps the freed keyval valid */
	OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_b, &kb, NULL));
	CHECK(kb != saved);
	OK(MPI_Comm_set_attr(dup, kb, &vb));
	OK(MPI_Comm_get_attr(dup, saved, &got, &flag));
	CHECK(flag && got == &va);
	OK(MPI_Comm_delete_attr(dup, saved));
	tm_out("comm keyval freed with an attribute: new keyval %s, delete ran %s",
	       kb != saved ? "distinct" : "REUSED",
	       deleted[0] == 11 ? "the freed keyval's callback" :
	       deleted[1] == 22 ? "the new keyval's callback" : "nothing");
	OK(MPI_Comm_free_keyval(&kb));
	OK(MPI_Comm_free(&dup));
	CHECK(deleted[1] == 22);

	/* with nothing set any more, freeing and creating again still works */
	OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_a, &ka, NULL));
	OK(MPI_Comm_free_keyval(&ka));

	OK(MPI_Type_dup(MPI_INT, &t));
	OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, tdel, &kt, NULL));
	OK(MPI_Type_set_attr(t, kt, &vt));
	tsaved = kt;
	OK(MPI_Type_free_keyval(&kt));
	OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kt2, NULL));
	CHECK(kt2 != tsaved);
	OK(MPI_Type_delete_attr(t, tsaved));
	tm_out("type keyval freed with an attribute: delete %s",
	       deleted[2] == 33 ? "ran its callback" : "did not run");
	OK(MPI_Type_free_keyval(&kt2));
	OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	statuses();
	keyvals();
	int r = tm_finish("fam_conf");
	MPI_Finalize();
	return r;
}
