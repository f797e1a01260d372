/* Error handling and attributes: predefined and user error handlers, error
 * classes/codes/strings (predefined and added), Comm_call_errhandler;
 * keyvals on communicators and datatypes with copy/delete callbacks,
 * predefined copy functions, attribute propagation through dup. */
#include "tmpi.h"

static int rank, size;
static int handler_calls, handler_last_code;
static MPI_Comm handler_comm;

static void on_error(MPI_Comm *comm, int *code, ...)
{
	handler_calls++;
	handler_last_code = *code;
	handler_comm = *comm;
}

static void errors(void)
{
	MPI_Errhandler eh, got;
	MPI_Comm dup;
	int rc, x = 0, cls, cls2, code, len, buf[2];
	char msg[MPI_MAX_ERROR_STRING];

	OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
	CHECK(got == MPI_ERRORS_ARE_FATAL);
	OK(MPI_Errhandler_free(&got));
	OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
	CHECK(got == MPI_ERRORS_RETURN);
	OK(MPI_Errhandler_free(&got));

	/* errors returned with their classes */
	rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
	tm_out("bad rank: %s", tm_class(rc));
	CHECK(rc != MPI_SUCCESS);
	rc = MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
	tm_out("bad tag: %s", tm_class(rc));
	rc = MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	tm_out("bad count: %s", tm_class(rc));
	rc = MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD);
	tm_out("bad root: %s", tm_class(rc));
	rc = MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
	tm_out("null type: %s", tm_class(rc));
	rc = MPI_Allreduce(&x, buf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
	tm_out("null op: %s", tm_class(rc));
	rc = MPI_Barrier(MPI_COMM_NULL);
	tm_out("null comm: %s", tm_class(rc));

	OK(MPI_Error_class(MPI_ERR_RANK, &cls));
	CHECK(cls == MPI_ERR_RANK);
	OK(MPI_Error_string(MPI_ERR_TAG, msg, &len));
	CHECK(len > 0 && (int)strlen(msg) == len);
	OK(MPI_Error_string(MPI_SUCCESS, msg, &len));
	CHECK(len > 0);

	/* added classes, codes and strings */
	OK(MPI_Add_error_class(&cls));
	OK(MPI_Add_error_code(cls, &code));
	OK(MPI_Add_error_string(code, "mpiwasm test: custom failure"));
	OK(MPI_Add_error_string(cls, "mpiwasm test: custom class"));
	OK(MPI_Error_class(code, &cls2));
	CHECK(cls2 == cls && code != cls);
	OK(MPI_Error_string(code, msg, &len));
	CHECK(strcmp(msg, "mpiwasm test: custom failure") == 0);
	OK(MPI_Error_string(cls, msg, &len));
	tm_out("added class string: %s", msg);
	void *lastused;
	int flag;
	OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
	CHECK(flag);  /* MPICH encodes added codes: no ordering check */

	/* a user error handler sees the communicator and the code */
	OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	OK(MPI_Comm_create_errhandler(on_error, &eh));
	OK(MPI_Comm_set_errhandler(dup, eh));
	rc = MPI_Send(&x, 1, MPI_INT, size + 1, 0, dup);
	CHECK(rc != MPI_SUCCESS && handler_calls == 1 && handler_comm == dup);
	CHECK(strcmp(tm_class(handler_last_code), "MPI_ERR_RANK") == 0);
	OK(MPI_Comm_call_errhandler(dup, code));
	CHECK(handler_calls == 2 && handler_last_code == code);
	OK(MPI_Comm_get_errhandler(dup, &got));
	CHECK(got == eh);
	OK(MPI_Errhandler_free(&got));
	OK(MPI_Errhandler_free(&eh));
	CHECK(eh == MPI_ERRHANDLER_NULL);
	/* the handler stays attached to dup after the free */
	rc = MPI_Send(&x, 1, MPI_INT, 0, -3, dup);
	CHECK(handler_calls == 3);
	OK(MPI_Comm_free(&dup));
	tm_out("handler calls %d", handler_calls);
}

static int copies, deletes;

static int copy_fn(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
	(void)old; (void)key;
	copies++;
	CHECK(*(int *)extra == 1234);
	*(void **)out = (char *)in + 1;   /* a visibly different value */
	*flag = 1;
	return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
	(void)c; (void)key; (void)val;
	deletes++;
	CHECK(*(int *)extra == 1234);
	return MPI_SUCCESS;
}

static int type_copies, type_deletes;

static int tcopy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
	(void)t; (void)key; (void)extra;
	type_copies++;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

static int tdelete(MPI_Datatype t, int key, void *val, void *extra)
{
	(void)t; (void)key; (void)val; (void)extra;
	type_deletes++;
	return MPI_SUCCESS;
}

static void attributes(void)
{
	static int extra = 1234;
	static char base[8];
	int key, key_none, key_dup, flag;
	void *val;
	MPI_Comm c1, c2;

	OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra));
	OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key_none, NULL));
	OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key_dup, NULL));
	OK(MPI_Comm_dup(MPI_COMM_WORLD, &c1));
	OK(MPI_Comm_set_attr(c1, key, base));
	OK(MPI_Comm_set_attr(c1, key_none, base + 5));
	OK(MPI_Comm_set_attr(c1, key_dup, base + 6));
	OK(MPI_Comm_get_attr(c1, key, &val, &flag));
	CHECK(flag && val == base);
	OK(MPI_Comm_dup(c1, &c2));
	CHECK(copies == 1);
	OK(MPI_Comm_get_attr(c2, key, &val, &flag));
	CHECK(flag && val == base + 1);
	OK(MPI_Comm_get_attr(c2, key_none, &val, &flag));
	CHECK(flag == 0);
	OK(MPI_Comm_get_attr(c2, key_dup, &val, &flag));
	CHECK(flag && val == base + 6);
	OK(MPI_Comm_set_attr(c1, key, base + 2));  /* replacing deletes the old */
	CHECK(deletes == 1);
	OK(MPI_Comm_delete_attr(c1, key));
	CHECK(deletes == 2);
	OK(MPI_Comm_get_attr(c1, key, &val, &flag));
	CHECK(flag == 0);
	OK(MPI_Comm_free(&c2));                    /* deletes c2's copy */
	CHECK(deletes == 3);
	OK(MPI_Comm_free(&c1));
	CHECK(deletes == 3);
	OK(MPI_Comm_free_keyval(&key));
	CHECK(key == MPI_KEYVAL_INVALID);
	OK(MPI_Comm_free_keyval(&key_none));
	OK(MPI_Comm_free_keyval(&key_dup));
	tm_out("comm attr copies %d deletes %d", copies, deletes);

	/* datatype attributes */
	MPI_Datatype t, t2;
	OK(MPI_Type_contiguous(2, MPI_INT, &t));
	OK(MPI_Type_create_keyval(tcopy, tdelete, &key, NULL));
	OK(MPI_Type_set_attr(t, key, base + 3));
	OK(MPI_Type_dup(t, &t2));
	OK(MPI_Type_get_attr(t2, key, &val, &flag));
	CHECK(flag && val == base + 3 && type_copies == 1);
	OK(MPI_Type_delete_attr(t, key));
	CHECK(type_deletes == 1);
	MPI_Type_free(&t2);
	CHECK(type_deletes == 2);
	MPI_Type_free(&t);
	OK(MPI_Type_free_keyval(&key));
	tm_out("type attr copies %d deletes %d", type_copies, type_deletes);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	errors();
	attributes();
	int rc = tm_finish("errs");
	MPI_Finalize();
	return rc;
}
