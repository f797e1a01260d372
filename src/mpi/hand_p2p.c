/* hand_p2p.c - point-to-point communication (MPI-3.1 chapter 3): blocking
 * and nonblocking sends and receives, probes and matched receives, buffer
 * attach, persistent requests, the wait/test family over request arrays,
 * and statuses (MPI_Get_count, MPI_Get_elements, MPI_Status_set_*).
 * Every procedure here is typed (src/mpi/gen/family-p2p.txt): its entry in
 * glue.c checks and converts the arguments (buffers against linear memory
 * with their counts and datatypes, handles, out pointers, statuses,
 * request arrays snapshotted) and the handler gets host values; what is
 * left here is each procedure's semantics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;

/* ---- point-to-point --------------------------------------------------------- */

#define SEND_LIKE(NAME)                                                         \
u32 mwh_##NAME(const mw_call *k, const void *buf, int count, mw_dtype *d,      \
               int dest, int tag, MPI_Comm c)                                 \
{                                                                             \
	return mw_call_ret(k, MPI_##NAME(buf, count, d->h, dest, tag, c));    \
}
SEND_LIKE(Send)
SEND_LIKE(Bsend)
SEND_LIKE(Rsend)
SEND_LIKE(Ssend)

/* Nonblocking and persistent: the same with a new request. */
#define ISEND_LIKE(NAME, BUF)                                                   \
u32 mwh_##NAME(const mw_call *k, BUF *buf, int count, mw_dtype *d, int peer,   \
               int tag, MPI_Comm c, uint32_t *req)                            \
{                                                                             \
	MPI_Request hr;                                                       \
	int rc = MPI_##NAME(buf, count, d->h, peer, tag, c, &hr);             \
	if (rc == MPI_SUCCESS) {                                              \
		*req = mw_req_put(hr);                                        \
		mw_req_p2p_set(*req);                                         \
	}                                                                     \
	return mw_call_ret(k, rc);                                            \
}
ISEND_LIKE(Isend, const void)
ISEND_LIKE(Ibsend, const void)
ISEND_LIKE(Irsend, const void)
ISEND_LIKE(Issend, const void)
ISEND_LIKE(Irecv, void)
ISEND_LIKE(Send_init, const void)
ISEND_LIKE(Bsend_init, const void)
ISEND_LIKE(Rsend_init, const void)
ISEND_LIKE(Ssend_init, const void)
ISEND_LIKE(Recv_init, void)

/* A status argument: the host status the library fills, or
 * MPI_STATUS_IGNORE when the module gave none. */
#define ST(m, st) ((m) ? &(st) : MPI_STATUS_IGNORE)

u32 mwh_Recv(const mw_call *k, void *buf, int count, mw_dtype *d, int src,
             int tag, MPI_Comm c, mw_status *status)
{
	MPI_Status st;
	int rc = MPI_Recv(buf, count, d->h, src, tag, c, ST(status, st));
	if (rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE)
		mw_status_put(status, &st, 0);
	return mw_call_ret(k, rc);
}

u32 mwh_Sendrecv(const mw_call *k, const void *sbuf, int scount, mw_dtype *sd,
                 int dest, int stag, void *rbuf, int rcount, mw_dtype *rd,
                 int src, int rtag, MPI_Comm c, mw_status *status)
{
	MPI_Status st;
	int rc = MPI_Sendrecv(sbuf, scount, sd->h, dest, stag, rbuf, rcount, rd->h,
	                      src, rtag, c, ST(status, st));
	if (rc == MPI_SUCCESS)
		mw_status_put(status, &st, 0);
	return mw_call_ret(k, rc);
}

u32 mwh_Sendrecv_replace(const mw_call *k, void *buf, int count, mw_dtype *d,
                         int dest, int stag, int src, int rtag, MPI_Comm c,
                         mw_status *status)
{
	MPI_Status st;
	int rc = MPI_Sendrecv_replace(buf, count, d->h, dest, stag, src, rtag, c,
	                              ST(status, st));
	if (rc == MPI_SUCCESS)
		mw_status_put(status, &st, 0);
	return mw_call_ret(k, rc);
}

u32 mwh_Probe(const mw_call *k, int src, int tag, MPI_Comm c, mw_status *status)
{
	MPI_Status st;
	int rc = MPI_Probe(src, tag, c, &st);
	if (rc == MPI_SUCCESS)
		mw_status_put(status, &st, 0);
	return mw_call_ret(k, rc);
}

u32 mwh_Iprobe(const mw_call *k, int src, int tag, MPI_Comm c, int32_t *flag,
               mw_status *status)
{
	MPI_Status st;
	int rc = MPI_Iprobe(src, tag, c, flag, &st);
	if (rc == MPI_SUCCESS && *flag)
		mw_status_put(status, &st, 0);
	return mw_call_ret(k, rc);
}

u32 mwh_Mprobe(const mw_call *k, int src, int tag, MPI_Comm c, uint32_t *msg,
               mw_status *status)
{
	MPI_Status st;
	MPI_Message m;
	int rc = MPI_Mprobe(src, tag, c, &m, &st);
	if (rc == MPI_SUCCESS) {
		*msg = mw_msg_put(m);
		mw_status_put(status, &st, 0);
	}
	return mw_call_ret(k, rc);
}

u32 mwh_Improbe(const mw_call *k, int src, int tag, MPI_Comm c, int32_t *flag,
                uint32_t *msg, mw_status *status)
{
	MPI_Status st;
	MPI_Message m;
	int rc = MPI_Improbe(src, tag, c, flag, &m, &st);
	if (rc == MPI_SUCCESS && *flag) {
		*msg = mw_msg_put(m);
		mw_status_put(status, &st, 0);
	}
	return mw_call_ret(k, rc);
}

/* A matched message received: its slot is released and becomes
 * MPI_MESSAGE_NULL. */
static void msg_done(mw_msg_io *msg)
{
	if (msg->mod != MW_MESSAGE_NO_PROC)
		mw_msg_del(msg->mod);
	*msg->slot = MW_MESSAGE_NULL;
}

u32 mwh_Mrecv(const mw_call *k, void *buf, int count, mw_dtype *d,
              mw_msg_io *msg, mw_status *status)
{
	MPI_Status st;
	int rc;
	if (msg->h == MPI_MESSAGE_NULL)   /* as in MPI_Imrecv */
		return mw_call_fail(k, MW_ERR_REQUEST);
	if (msg->mod == MW_MESSAGE_NO_PROC)
		rc = MPI_Recv(buf, count, d->h, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_SELF,
		              ST(status, st));
	else
		rc = MPI_Mrecv(buf, count, d->h, &msg->h, ST(status, st));
	if (rc == MPI_SUCCESS) {
		msg_done(msg);
		mw_status_put(status, &st, 0);
	}
	return mw_call_ret(k, rc);
}

u32 mwh_Imrecv(const mw_call *k, void *buf, int count, mw_dtype *d,
               mw_msg_io *msg, uint32_t *req)
{
	MPI_Request hr;
	int rc;
	/* Open MPI raises an error about MPI_MESSAGE_NULL on MPI_COMM_NULL,
	 * whose handler is fatal: refused here (found by fuzz-bridge). */
	if (msg->h == MPI_MESSAGE_NULL)
		return mw_call_fail(k, MW_ERR_REQUEST);
	/* MPI_MESSAGE_NO_PROC is a receive from MPI_PROC_NULL: done as one,
	 * since Open MPI's error path for it (an uncommitted datatype, say)
	 * dereferenced its null communicator (found by fuzz-bridge). */
	if (msg->mod == MW_MESSAGE_NO_PROC)
		rc = MPI_Irecv(buf, count, d->h, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_SELF, &hr);
	else
		rc = MPI_Imrecv(buf, count, d->h, &msg->h, &hr);
	if (rc == MPI_SUCCESS) {
		msg_done(msg);
		*req = mw_req_put(hr);
		mw_req_p2p_set(*req);
	}
	return mw_call_ret(k, rc);
}

/* Buffered mode: the buffer stays in linear memory; its module address is
 * what MPI_Buffer_detach gives back. */
static uint32_t bsend_addr;

u32 mwh_Buffer_attach(const mw_call *k, void *buf, int size)
{
	int rc = MPI_Buffer_attach(buf, size);
	if (rc == MPI_SUCCESS)
		bsend_addr = mw_addr(k->inst, buf);
	return mw_call_ret(k, rc);
}

u32 mwh_Buffer_detach(const mw_call *k, int32_t *bufp, int32_t *size)
{
	void *p;
	int rc = MPI_Buffer_detach(&p, size);
	if (rc == MPI_SUCCESS) {
		*bufp = (int32_t)bsend_addr;
		bsend_addr = 0;
	}
	return mw_call_ret(k, rc);
}

/* ---- requests --------------------------------------------------------------- */

u32 mwh_Start(const mw_call *k, mw_req_io *req)
{
	return mw_call_ret(k, MPI_Start(&req->h));
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* No live request twice: the host completes and frees it at the first and
 * reads the freed one at the second (Open MPI's MPI_Waitany: a use after
 * free, found by fuzz-bridge).  MPI forbids it.  0 or MW_ERR_REQUEST. */
static int reqs_distinct(const int32_t *v, int n)
{
	int32_t small[64], *s = n <= 64 ? small : malloc((size_t)n * sizeof *s);
	int rc = 0;
	if (!s)
		return MW_ERR_NO_MEM;
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_i32);
	for (int i = 1; i < n && !rc; i++)
		if (s[i] == s[i - 1] && s[i] != MW_REQUEST_NULL)
			rc = MW_ERR_REQUEST;
	if (s != small)
		free(s);
	return rc;
}

int mw_reqs_in(rt_instance *inst, mw_reqs *r, uint32_t addr, int32_t n)
{
	int rc;
	if (n < 0)
		return MW_ERR_COUNT;
	if ((rc = mw_snap_in(inst, &r->was, addr, n)) || (rc = reqs_distinct(r->was.v, n)))
		return rc;
	r->n = n;
	r->slot = mw_arr(inst, addr, (uint64_t)n, 4);
	r->h = n <= (int)(sizeof r->small / sizeof r->small[0]) ? r->small
	       : malloc((size_t)n * sizeof *r->h);
	if (!r->h)
		return MW_ERR_NO_MEM;
	for (int i = 0; i < n; i++)
		if ((rc = mw_req_get((uint32_t)r->was.v[i], &r->h[i])))
			return rc;
	return 0;
}

void mw_reqs_free(mw_reqs *r)
{
	if (r->h != r->small)
		free(r->h);
	r->h = NULL;
	mw_snap_free(&r->was);
}

/* After completion: a request the host freed (module handle `was` when
 * the call began) loses its slot, and *m becomes MPI_REQUEST_NULL. */
static void req_back(uint32_t *m, uint32_t was, const MPI_Request *h)
{
	if (was != MW_REQUEST_NULL && *h == MPI_REQUEST_NULL) {
		mw_req_del(was);
		*m = MW_REQUEST_NULL;
	}
}

u32 mwh_Startall(const mw_call *k, int n, mw_reqs *r)
{
	/* Only persistent requests start: MPI_REQUEST_NULL is an error to
	 * both libraries, but MPICH 4.0 frees a stack address on that error
	 * path with more than 64 requests (tests/fuzz-bridge/open/startall-null.c). */
	for (int i = 0; i < n; i++)
		if (r->h[i] == MPI_REQUEST_NULL)
			return mw_fail_arg(k->inst, MW_ERR_REQUEST, k->obj, k->proc,
			                   "argument array_of_requests[%d] is MPI_REQUEST_NULL", i);
	return mw_call_ret(k, MPI_Startall(n, r->h));
}

/* req->mod, not *req->slot: a user op run by the wait may rewrite it. */
u32 mwh_Wait(const mw_call *k, mw_req_io *req, mw_status *status)
{
	MPI_Status st;
	int rc = MPI_Wait(&req->h, ST(status, st));
	req_back(req->slot, req->mod, &req->h);
	if (rc == MPI_SUCCESS)
		mw_status_put(status, &st, 0);
	return mw_call_ret(k, rc);
}

u32 mwh_Test(const mw_call *k, mw_req_io *req, int32_t *flag, mw_status *status)
{
	MPI_Status st;
	int rc = MPI_Test(&req->h, flag, ST(status, st));
	req_back(req->slot, req->mod, &req->h);
	if (rc == MPI_SUCCESS && *flag)
		mw_status_put(status, &st, 0);
	return mw_call_ret(k, rc);
}

u32 mwh_Request_get_status(const mw_call *k, MPI_Request h, int32_t *flag,
                           mw_status *status)
{
	MPI_Status st;
	int rc = MPI_Request_get_status(h, flag, &st);
	if (rc == MPI_SUCCESS && *flag)
		mw_status_put(status, &st, 0);
	return mw_call_ret(k, rc);
}

u32 mwh_Request_free(const mw_call *k, mw_req_io *req)
{
	if (mw_req_orphan(req->mod)) {   /* it owns memory the host still reads */
		*req->slot = MW_REQUEST_NULL;
		return 0;
	}
	int rc = MPI_Request_free(&req->h);
	if (rc == MPI_SUCCESS) {
		mw_req_del(req->mod);
		*req->slot = MW_REQUEST_NULL;
	}
	return mw_call_ret(k, rc);
}

/* What reaches the host's MPI_Cancel:
 * - a generalized request of the module, always (its cancel_fn is called
 *   with `complete` whatever its state; asking for its status would run
 *   its query_fn);
 * - any other request only while its operation is pending.  One that is
 *   complete (a receive already cancelled, an inactive persistent
 *   request, a file access, done at initiation) has nothing left to
 *   cancel (MPI-3.1 3.8.4), and Open MPI 4.1's ob1 takes such a receive
 *   off its matching lists again (SIGSEGV): open/cancel-inactive.c;
 * - of the pending ones, only point-to-point requests.  Cancelling a
 *   nonblocking collective (MPI_Comm_idup among them) is erroneous
 *   (MPI-3.1 5.12), and Open MPI 4.1 deadlocks on a mutex cancelling a
 *   pending MPI_Comm_idup (open/cancel-idup-deadlock.c; the known list's
 *   "self-deadlock inside PMPI_Cancel"): MPI_ERR_REQUEST. */
u32 mwh_Cancel(const mw_call *k, mw_req_io *req)
{
	if (req->h == MPI_REQUEST_NULL || mw_req_is_greq(req->mod))
		return mw_call_ret(k, MPI_Cancel(&req->h));
	int done = 0;
	int rc = MPI_Request_get_status(req->h, &done, MPI_STATUS_IGNORE);
	if (rc != MPI_SUCCESS || done)
		return mw_call_ret(k, rc);
	if (!mw_req_is_p2p(req->mod))
		return mw_fail_arg(k->inst, MW_ERR_REQUEST, k->obj, k->proc,
		                   "argument request: a pending operation that is not "
		                   "point-to-point (a collective's cannot be cancelled)");
	return mw_call_ret(k, MPI_Cancel(&req->h));
}

/* Waitall/Testall/Waitany/Testany/Waitsome/Testsome share the staging.
 * Every output was checked by the entry before anything can complete;
 * statuses (NULL: ignored) are nst = n for the all and some forms, 1 for
 * any. */
enum { W_ALL, T_ALL, W_ANY, T_ANY, W_SOME, T_SOME };

static u32 wait_many(const mw_call *k, int kind, mw_reqs *r, int32_t *pc,
                     int32_t *pi, int32_t *pf, mw_status *stat)
{
	MPI_Status ssmall[16], *st = ssmall;
	int rc, cnt = r->n;
	MPI_Request *h = r->h;
	int nst = (kind == W_ANY || kind == T_ANY) ? 1 : cnt;
	if (stat && nst > 16 && !(st = malloc((size_t)nst * sizeof *st)))
		return mw_call_fail(k, MW_ERR_NO_MEM);
	MPI_Status *sp = stat ? st : MPI_STATUSES_IGNORE;
	int idx = 0, f = 0, outn = 0;
	switch (kind) {
	case W_ALL: rc = MPI_Waitall(cnt, h, sp); break;
	case T_ALL: rc = MPI_Testall(cnt, h, &f, sp); *pf = f; break;
	case W_ANY: rc = MPI_Waitany(cnt, h, &idx, stat ? st : MPI_STATUS_IGNORE); break;
	case T_ANY: rc = MPI_Testany(cnt, h, &idx, &f, stat ? st : MPI_STATUS_IGNORE); *pf = f; break;
	default:   /* int32_t == int */
		rc = kind == W_SOME ? MPI_Waitsome(cnt, h, &outn, pi, sp)
		                    : MPI_Testsome(cnt, h, &outn, pi, sp);
		*pc = outn == MPI_UNDEFINED ? MW_UNDEFINED : outn;
		break;
	}
	if (kind == W_ANY || kind == T_ANY)
		*pc = idx == MPI_UNDEFINED ? MW_UNDEFINED : idx;
	for (int i = 0; i < cnt; i++)
		req_back(&r->slot[i], (uint32_t)r->was.v[i], &h[i]);
	if (stat && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)) {
		int err = rc == MPI_ERR_IN_STATUS;
		/* Testall's statuses are set for every request on MPI_ERR_IN_STATUS
		 * even when flag is false; Waitany/Testany with no active request
		 * (index MPI_UNDEFINED, flag true) give the empty status. */
		if (kind == W_ALL || (kind == T_ALL && (f || err))) {
			for (int i = 0; i < cnt; i++)
				mw_status_put(&stat[i], &st[i], err);
		} else if (kind == W_ANY || (kind == T_ANY && f)) {
			mw_status_put(stat, &st[0], 0);
		} else if ((kind == W_SOME || kind == T_SOME) && outn != MPI_UNDEFINED) {
			for (int i = 0; i < outn; i++)
				mw_status_put(&stat[i], &st[i], err);
		}
	}
	if (st != ssmall)
		free(st);
	return mw_call_ret(k, rc);
}

u32 mwh_Waitall(const mw_call *k, int n, mw_reqs *r, mw_status *s)
{ return wait_many(k, W_ALL, r, NULL, NULL, NULL, s); }
u32 mwh_Testall(const mw_call *k, int n, mw_reqs *r, int32_t *f, mw_status *s)
{ return wait_many(k, T_ALL, r, NULL, NULL, f, s); }
u32 mwh_Waitany(const mw_call *k, int n, mw_reqs *r, int32_t *i, mw_status *s)
{ return wait_many(k, W_ANY, r, i, NULL, NULL, s); }
u32 mwh_Testany(const mw_call *k, int n, mw_reqs *r, int32_t *i, int32_t *f, mw_status *s)
{ return wait_many(k, T_ANY, r, i, NULL, f, s); }
u32 mwh_Waitsome(const mw_call *k, int n, mw_reqs *r, int32_t *o, int32_t *i, mw_status *s)
{ return wait_many(k, W_SOME, r, o, i, NULL, s); }
u32 mwh_Testsome(const mw_call *k, int n, mw_reqs *r, int32_t *o, int32_t *i, mw_status *s)
{ return wait_many(k, T_SOME, r, o, i, NULL, s); }

/* ---- statuses ---------------------------------------------------------------- */

u32 mwh_Test_cancelled(const mw_call *k, mw_status *status, int32_t *flag)
{
	*flag = status->cancelled != 0;
	return 0;
}

u32 mwh_Get_count(const mw_call *k, const MPI_Status *status, mw_dtype *d,
                  int32_t *count)
{
	int rc = MPI_Get_count(status, d->h, count);
	if (rc == MPI_SUCCESS && *count == MPI_UNDEFINED)
		*count = MW_UNDEFINED;
	return mw_call_ret(k, rc);
}

u32 mwh_Get_elements(const mw_call *k, const MPI_Status *status, mw_dtype *d,
                     int32_t *count)
{
	int rc = MPI_Get_elements(status, d->h, count);
	if (rc == MPI_SUCCESS && *count == MPI_UNDEFINED)
		*count = MW_UNDEFINED;
	return mw_call_ret(k, rc);
}

u32 mwh_Get_elements_x(const mw_call *k, const MPI_Status *status, mw_dtype *d,
                       MPI_Count *count)
{
	int rc = MPI_Get_elements_x(status, d->h, count);
	if (rc == MPI_SUCCESS && *count == MPI_UNDEFINED)
		*count = MW_UNDEFINED;
	return mw_call_ret(k, rc);
}

static u32 set_elements(const mw_call *k, mw_status *m, mw_dtype *d, MPI_Count n)
{
	MPI_Status st;
	mw_status_get(m, &st);
	/* The byte count must fit (MPICH 4.0 asserts when it does not). */
	if (n < 0 || (d->size > 0 && n > (INT64_MAX - 1) / d->size))
		return mw_fail_arg(k->inst, MW_ERR_COUNT, k->obj, k->proc, "argument count = %lld: "
		                   "negative, or more bytes than a count holds", (long long)n);
	int rc = MPI_Status_set_elements_x(&st, d->h, n);
	if (rc == MPI_SUCCESS) {
		MPI_Count bytes = 0;
		MPI_Get_elements_x(&st, MPI_BYTE, &bytes);
		m->ucount = bytes;
	}
	return mw_call_ret(k, rc);
}

u32 mwh_Status_set_elements(const mw_call *k, mw_status *status, mw_dtype *d, int n)
{ return set_elements(k, status, d, n); }
u32 mwh_Status_set_elements_x(const mw_call *k, mw_status *status, mw_dtype *d, MPI_Count n)
{ return set_elements(k, status, d, n); }

u32 mwh_Status_set_cancelled(const mw_call *k, mw_status *status, int flag)
{
	status->cancelled = flag != 0;
	return 0;
}
