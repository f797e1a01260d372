/* hand_op.c - user-defined reduction operations (MPI-3.1 5.9.5): the
 * procedures, typed (src/mpi/gen/family-op.txt: the entries in glue.c
 * check and convert the arguments).  The table of user ops and the
 * trampoline the host calls them through are hand_coll.c's, with the
 * reductions that apply them. */
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

uint32_t mwh_Op_create(const mw_call *k, uint32_t user_fn, int commute, uint32_t *op)
{
	int hrc, rc;
	if (!rt_table_func(k->inst, 0, user_fn, "iiii:"))
		return mw_call_fail(k, MW_ERR_OP);
	if ((rc = mw_uop_create(user_fn, commute, op, &hrc)))
		return mw_call_fail(k, rc);
	return mw_call_ret(k, hrc);
}

uint32_t mwh_Op_free(const mw_call *k, mw_op_io *op)
{
	int rc = MPI_Op_free(&op->h);
	if (rc == MPI_SUCCESS) {
		mw_uop_forget(op->mod);
		mw_op_del(op->mod);
		*op->slot = MW_OP_NULL;
	}
	return mw_call_ret(k, rc);
}

/* op: any op, MPI_OP_NULL passed on (class op, flag null). */
uint32_t mwh_Op_commutative(const mw_call *k, const mw_op_ref *op, int32_t *commute)
{
	return mw_call_ret(k, MPI_Op_commutative(op->h, commute));
}
