/* hand_p2p.c - point-to-point communication (MPI-3.1 chapter 3): blocking
 * and nonblocking sends and receives, probes and matched receives, buffer
 * attach, persistent requests, the wait/test family over request arrays,
 * and statuses (MPI_Get_count, MPI_Get_elements, MPI_Status_set_*).
 * Buffers are paired with counts and datatypes and checked against linear
 * memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;

#define TRY(x) do { if ((rc = (x))) goto fail; } while (0)
#define COMM(c, a) TRY(mw_comm_live((a), &(c)))
#define DTYPE(d, a) TRY(mw_dtype_get((a), &(d)))
#define OUT(p, a, n) do { if (!((p) = mw_ptr(inst, (a), (n)))) { rc = MW_ERR_ARG; goto fail; } } while (0)
#define BUF(p, a, n, d) TRY(mw_buf(inst, (a), (int)(n), (d), &(p)))
#define STATUS_OK(a) do { if ((a) && !mw_ptr(inst, (a), 24)) { rc = MW_ERR_ARG; goto fail; } } while (0)

/* ---- point-to-point --------------------------------------------------------- */

#define SEND_LIKE(NAME, CALL)                                                   \
u32 mwh_##NAME(rt_instance *inst, u32 buf, u32 count, u32 dt, u32 dest,        \
               u32 tag, u32 comm)                                             \
{                                                                             \
	MPI_Comm c;                                                           \
	mw_dtype *d;                                                          \
	void *p;                                                              \
	int rc;                                                               \
	COMM(c, comm);                                                        \
	DTYPE(d, dt);                                                         \
	BUF(p, buf, count, d);                                                \
	return mw_ret(inst, CALL(p, (int)count, d->h, mw_rank_in(dest),       \
	              mw_tag_in(tag), c), comm, "MPI_" #NAME);                 \
fail:                                                                         \
	return mw_fail(inst, rc, comm, "MPI_" #NAME);                         \
}
SEND_LIKE(Send, MPI_Send)
SEND_LIKE(Bsend, MPI_Bsend)
SEND_LIKE(Rsend, MPI_Rsend)
SEND_LIKE(Ssend, MPI_Ssend)

#define ISEND_LIKE(NAME, CALL)                                                  \
u32 mwh_##NAME(rt_instance *inst, u32 buf, u32 count, u32 dt, u32 dest,        \
               u32 tag, u32 comm, u32 req)                                    \
{                                                                             \
	MPI_Comm c;                                                           \
	mw_dtype *d;                                                          \
	void *p;                                                              \
	uint32_t *r;                                                          \
	MPI_Request hr;                                                       \
	int rc;                                                               \
	COMM(c, comm);                                                        \
	DTYPE(d, dt);                                                         \
	BUF(p, buf, count, d);                                                \
	OUT(r, req, 4);                                                       \
	rc = CALL(p, (int)count, d->h, mw_rank_in(dest), mw_tag_in(tag), c, &hr); \
	if (rc == MPI_SUCCESS)                                                \
		*r = mw_req_put(hr);                                          \
	return mw_ret(inst, rc, comm, "MPI_" #NAME);                          \
fail:                                                                         \
	return mw_fail(inst, rc, comm, "MPI_" #NAME);                         \
}
ISEND_LIKE(Isend, MPI_Isend)
ISEND_LIKE(Ibsend, MPI_Ibsend)
ISEND_LIKE(Irsend, MPI_Irsend)
ISEND_LIKE(Issend, MPI_Issend)
ISEND_LIKE(Irecv, MPI_Irecv)
ISEND_LIKE(Send_init, MPI_Send_init)
ISEND_LIKE(Bsend_init, MPI_Bsend_init)
ISEND_LIKE(Rsend_init, MPI_Rsend_init)
ISEND_LIKE(Ssend_init, MPI_Ssend_init)
ISEND_LIKE(Recv_init, MPI_Recv_init)

u32 mwh_Recv(rt_instance *inst, u32 buf, u32 count, u32 dt, u32 src, u32 tag,
             u32 comm, u32 status)
{
	MPI_Comm c;
	mw_dtype *d;
	void *p;
	MPI_Status st;
	int rc;
	COMM(c, comm);
	DTYPE(d, dt);
	BUF(p, buf, count, d);
	STATUS_OK(status);
	rc = MPI_Recv(p, (int)count, d->h, mw_rank_in(src), mw_tag_in(tag), c,
	              status ? &st : MPI_STATUS_IGNORE);
	if (status && (rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE))
		mw_status_out(inst, status, &st);
	return mw_ret(inst, rc, comm, "MPI_Recv");
fail:
	return mw_fail(inst, rc, comm, "MPI_Recv");
}

u32 mwh_Sendrecv(rt_instance *inst, u32 sbuf, u32 scount, u32 sdt, u32 dest,
                 u32 stag, u32 rbuf, u32 rcount, u32 rdt, u32 src, u32 rtag,
                 u32 comm, u32 status)
{
	MPI_Comm c;
	mw_dtype *sd, *rd;
	void *sp, *rp;
	MPI_Status st;
	int rc;
	COMM(c, comm);
	DTYPE(sd, sdt);
	DTYPE(rd, rdt);
	BUF(sp, sbuf, scount, sd);
	BUF(rp, rbuf, rcount, rd);
	STATUS_OK(status);
	rc = MPI_Sendrecv(sp, (int)scount, sd->h, mw_rank_in(dest), mw_tag_in(stag),
	                  rp, (int)rcount, rd->h, mw_rank_in(src), mw_tag_in(rtag),
	                  c, status ? &st : MPI_STATUS_IGNORE);
	if (status && rc == MPI_SUCCESS)
		mw_status_out(inst, status, &st);
	return mw_ret(inst, rc, comm, "MPI_Sendrecv");
fail:
	return mw_fail(inst, rc, comm, "MPI_Sendrecv");
}

u32 mwh_Sendrecv_replace(rt_instance *inst, u32 buf, u32 count, u32 dt,
                         u32 dest, u32 stag, u32 src, u32 rtag, u32 comm,
                         u32 status)
{
	MPI_Comm c;
	mw_dtype *d;
	void *p;
	MPI_Status st;
	int rc;
	COMM(c, comm);
	DTYPE(d, dt);
	BUF(p, buf, count, d);
	STATUS_OK(status);
	rc = MPI_Sendrecv_replace(p, (int)count, d->h, mw_rank_in(dest),
	                          mw_tag_in(stag), mw_rank_in(src), mw_tag_in(rtag),
	                          c, status ? &st : MPI_STATUS_IGNORE);
	if (status && rc == MPI_SUCCESS)
		mw_status_out(inst, status, &st);
	return mw_ret(inst, rc, comm, "MPI_Sendrecv_replace");
fail:
	return mw_fail(inst, rc, comm, "MPI_Sendrecv_replace");
}

u32 mwh_Probe(rt_instance *inst, u32 src, u32 tag, u32 comm, u32 status)
{
	MPI_Comm c;
	MPI_Status st;
	int rc;
	COMM(c, comm);
	STATUS_OK(status);
	rc = MPI_Probe(mw_rank_in(src), mw_tag_in(tag), c, &st);
	if (rc == MPI_SUCCESS)
		mw_status_out(inst, status, &st);
	return mw_ret(inst, rc, comm, "MPI_Probe");
fail:
	return mw_fail(inst, rc, comm, "MPI_Probe");
}

u32 mwh_Iprobe(rt_instance *inst, u32 src, u32 tag, u32 comm, u32 flag,
               u32 status)
{
	MPI_Comm c;
	MPI_Status st;
	int rc, *f;
	COMM(c, comm);
	OUT(f, flag, 4);
	STATUS_OK(status);
	rc = MPI_Iprobe(mw_rank_in(src), mw_tag_in(tag), c, f, &st);
	if (rc == MPI_SUCCESS && *f)
		mw_status_out(inst, status, &st);
	return mw_ret(inst, rc, comm, "MPI_Iprobe");
fail:
	return mw_fail(inst, rc, comm, "MPI_Iprobe");
}

u32 mwh_Mprobe(rt_instance *inst, u32 src, u32 tag, u32 comm, u32 msg,
               u32 status)
{
	MPI_Comm c;
	MPI_Status st;
	MPI_Message m;
	uint32_t *mp;
	int rc;
	COMM(c, comm);
	OUT(mp, msg, 4);
	STATUS_OK(status);
	rc = MPI_Mprobe(mw_rank_in(src), mw_tag_in(tag), c, &m, &st);
	if (rc == MPI_SUCCESS) {
		*mp = mw_msg_put(m);
		mw_status_out(inst, status, &st);
	}
	return mw_ret(inst, rc, comm, "MPI_Mprobe");
fail:
	return mw_fail(inst, rc, comm, "MPI_Mprobe");
}

u32 mwh_Improbe(rt_instance *inst, u32 src, u32 tag, u32 comm, u32 flag,
                u32 msg, u32 status)
{
	MPI_Comm c;
	MPI_Status st;
	MPI_Message m;
	uint32_t *mp;
	int rc, *f;
	COMM(c, comm);
	OUT(f, flag, 4);
	OUT(mp, msg, 4);
	STATUS_OK(status);
	rc = MPI_Improbe(mw_rank_in(src), mw_tag_in(tag), c, f, &m, &st);
	if (rc == MPI_SUCCESS && *f) {
		*mp = mw_msg_put(m);
		mw_status_out(inst, status, &st);
	}
	return mw_ret(inst, rc, comm, "MPI_Improbe");
fail:
	return mw_fail(inst, rc, comm, "MPI_Improbe");
}

u32 mwh_Mrecv(rt_instance *inst, u32 buf, u32 count, u32 dt, u32 msg,
              u32 status)
{
	mw_dtype *d;
	void *p;
	uint32_t *mp;
	MPI_Message m;
	MPI_Status st;
	int rc;
	DTYPE(d, dt);
	BUF(p, buf, count, d);
	OUT(mp, msg, 4);
	STATUS_OK(status);
	TRY(mw_msg_get(*mp, &m));
	if (m == MPI_MESSAGE_NULL)   /* as in MPI_Imrecv */
		TRY(MW_ERR_REQUEST);
	if (*mp == MW_MESSAGE_NO_PROC)
		rc = MPI_Recv(p, (int)count, d->h, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_SELF,
		              status ? &st : MPI_STATUS_IGNORE);
	else
		rc = MPI_Mrecv(p, (int)count, d->h, &m, status ? &st : MPI_STATUS_IGNORE);
	if (rc == MPI_SUCCESS) {
		if (*mp != MW_MESSAGE_NO_PROC)
			mw_msg_del(*mp);
		*mp = MW_MESSAGE_NULL;
		mw_status_out(inst, status, &st);
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Mrecv");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Mrecv");
}

u32 mwh_Imrecv(rt_instance *inst, u32 buf, u32 count, u32 dt, u32 msg,
               u32 req)
{
	mw_dtype *d;
	void *p;
	uint32_t *mp, *r;
	MPI_Message m;
	MPI_Request hr;
	int rc;
	DTYPE(d, dt);
	BUF(p, buf, count, d);
	OUT(mp, msg, 4);
	OUT(r, req, 4);
	TRY(mw_msg_get(*mp, &m));
	/* Open MPI raises an error about MPI_MESSAGE_NULL on MPI_COMM_NULL,
	 * whose handler is fatal: refused here (found by fuzz-bridge). */
	if (m == MPI_MESSAGE_NULL)
		TRY(MW_ERR_REQUEST);
	/* MPI_MESSAGE_NO_PROC is a receive from MPI_PROC_NULL: done as one,
	 * since Open MPI's error path for it (an uncommitted datatype, say)
	 * dereferenced its null communicator (found by fuzz-bridge). */
	if (*mp == MW_MESSAGE_NO_PROC)
		rc = MPI_Irecv(p, (int)count, d->h, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_SELF, &hr);
	else
		rc = MPI_Imrecv(p, (int)count, d->h, &m, &hr);
	if (rc == MPI_SUCCESS) {
		if (*mp != MW_MESSAGE_NO_PROC)
			mw_msg_del(*mp);
		*mp = MW_MESSAGE_NULL;
		*r = mw_req_put(hr);
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Imrecv");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Imrecv");
}

/* Buffered mode: the buffer stays in linear memory. */
static uint32_t bsend_addr;

u32 mwh_Buffer_attach(rt_instance *inst, u32 buf, u32 size)
{
	void *p = mw_ptr(inst, buf, size);
	if (!p || (int)size < 0)
		return mw_fail(inst, MW_ERR_BUFFER, MW_NOCOMM, "MPI_Buffer_attach");
	int rc = MPI_Buffer_attach(p, (int)size);
	if (rc == MPI_SUCCESS)
		bsend_addr = buf;
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Buffer_attach");
}

u32 mwh_Buffer_detach(rt_instance *inst, u32 bufp, u32 sizep)
{
	uint32_t *a = mw_ptr(inst, bufp, 4);
	int *s = mw_ptr(inst, sizep, 4);
	void *p;
	if (!a || !s)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Buffer_detach");
	int rc = MPI_Buffer_detach(&p, s);
	if (rc == MPI_SUCCESS) {
		*a = bsend_addr;
		bsend_addr = 0;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Buffer_detach");
}

/* ---- requests --------------------------------------------------------------- */

u32 mwh_Start(rt_instance *inst, u32 req)
{
	uint32_t *r = mw_ptr(inst, req, 4);
	MPI_Request h;
	if (!r)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Start");
	int rc = mw_req_get(*r, &h);
	if (rc)
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Start");
	return mw_ret(inst, MPI_Start(&h), MW_NOCOMM, "MPI_Start");
}

/* Stages n module requests into a host array (NULL = out of memory or
 * a bad handle, with *err set); *mod is the module array, *was a snapshot
 * of its handles: module code can run during the wait (a user op, a
 * generalized request's callbacks) and rewrite the array, and the slots
 * released afterwards must be those that were waited for. */
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

static MPI_Request *reqs_in(rt_instance *inst, u32 arr, int n, uint32_t **mod,
                            mw_snap *was, MPI_Request *small, int nsmall, int *err)
{
	*err = 0;
	if (n < 0) {
		*err = MW_ERR_COUNT;
		return NULL;
	}
	if ((*err = mw_snap_in(inst, was, arr, n)))
		return NULL;
	if ((*err = reqs_distinct(was->v, n))) {
		mw_snap_free(was);
		return NULL;
	}
	*mod = mw_arr(inst, arr, (uint64_t)n, 4);
	MPI_Request *h = n <= nsmall ? small : malloc((size_t)n * sizeof *h);
	if (!h) {
		*err = MW_ERR_NO_MEM;
		mw_snap_free(was);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		if ((*err = mw_req_get((uint32_t)was->v[i], &h[i]))) {
			if (h != small)
				free(h);
			mw_snap_free(was);
			return NULL;
		}
	return h;
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

u32 mwh_Startall(rt_instance *inst, u32 n, u32 arr)
{
	MPI_Request small[16], *h;
	uint32_t *m;
	mw_snap was = { 0 };
	int err;
	if (!(h = reqs_in(inst, arr, (int)n, &m, &was, small, 16, &err)))
		return mw_fail(inst, err, MW_NOCOMM, "MPI_Startall");
	/* Only persistent requests start: MPI_REQUEST_NULL is an error to
	 * both libraries, but MPICH 4.0 frees a stack address on that error
	 * path with more than 64 requests (tests/fuzz-bridge/open/startall-null.c). */
	for (int i = 0; i < (int)n; i++)
		if (h[i] == MPI_REQUEST_NULL) {
			if (h != small)
				free(h);
			mw_snap_free(&was);
			return mw_fail_arg(inst, MW_ERR_REQUEST, MW_NOCOMM, "MPI_Startall",
			                   "argument array_of_requests[%d] is MPI_REQUEST_NULL", i);
		}
	int rc = MPI_Startall((int)n, h);
	if (h != small)
		free(h);
	mw_snap_free(&was);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Startall");
}

u32 mwh_Wait(rt_instance *inst, u32 req, u32 status)
{
	uint32_t *r = mw_ptr(inst, req, 4);
	MPI_Request h;
	MPI_Status st;
	int rc;
	if (!r || (status && !mw_ptr(inst, status, 24)))
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Wait");
	uint32_t was = *r;   /* a user op run by the wait may rewrite *r */
	if ((rc = mw_req_get(was, &h)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Wait");
	rc = MPI_Wait(&h, status ? &st : MPI_STATUS_IGNORE);
	req_back(r, was, &h);
	if (rc == MPI_SUCCESS)
		mw_status_out(inst, status, &st);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Wait");
}

u32 mwh_Test(rt_instance *inst, u32 req, u32 flag, u32 status)
{
	uint32_t *r = mw_ptr(inst, req, 4);
	int *f = mw_ptr(inst, flag, 4);
	MPI_Request h;
	MPI_Status st;
	int rc;
	if (!r || !f || (status && !mw_ptr(inst, status, 24)))
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Test");
	uint32_t was = *r;
	if ((rc = mw_req_get(was, &h)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Test");
	rc = MPI_Test(&h, f, status ? &st : MPI_STATUS_IGNORE);
	req_back(r, was, &h);
	if (rc == MPI_SUCCESS && *f)
		mw_status_out(inst, status, &st);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Test");
}

u32 mwh_Request_get_status(rt_instance *inst, u32 req, u32 flag, u32 status)
{
	int *f = mw_ptr(inst, flag, 4);
	MPI_Request h;
	MPI_Status st;
	int rc;
	if (!f || (status && !mw_ptr(inst, status, 24)))
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Request_get_status");
	if ((rc = mw_req_get(req, &h)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Request_get_status");
	rc = MPI_Request_get_status(h, f, &st);
	if (rc == MPI_SUCCESS && *f)
		mw_status_out(inst, status, &st);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Request_get_status");
}

u32 mwh_Request_free(rt_instance *inst, u32 req)
{
	uint32_t *r = mw_ptr(inst, req, 4);
	MPI_Request h;
	int rc;
	if (!r)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Request_free");
	if ((rc = mw_req_get(*r, &h)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Request_free");
	if (mw_req_orphan(*r)) {   /* it owns memory the host still reads */
		*r = MW_REQUEST_NULL;
		return 0;
	}
	rc = MPI_Request_free(&h);
	if (rc == MPI_SUCCESS) {
		mw_req_del(*r);
		*r = MW_REQUEST_NULL;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Request_free");
}

u32 mwh_Cancel(rt_instance *inst, u32 req)
{
	uint32_t *r = mw_ptr(inst, req, 4);
	MPI_Request h;
	int rc;
	if (!r)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Cancel");
	if ((rc = mw_req_get(*r, &h)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Cancel");
	return mw_ret(inst, MPI_Cancel(&h), MW_NOCOMM, "MPI_Cancel");
}

u32 mwh_Test_cancelled(rt_instance *inst, u32 status, u32 flag)
{
	int32_t *s = mw_ptr(inst, status, 24);
	int32_t *f = mw_ptr(inst, flag, 4);
	if (!s || !f)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Test_cancelled");
	*f = s[3] != 0;
	return 0;
}

/* Waitall/Testall/Waitany/Testany/Waitsome/Testsome share the staging. */
enum { W_ALL, T_ALL, W_ANY, T_ANY, W_SOME, T_SOME };

static u32 wait_many(rt_instance *inst, int kind, const char *proc, u32 n,
                     u32 arr, u32 a2, u32 a3, u32 a4)
{
	MPI_Request small[16], *h;
	MPI_Status ssmall[16], *st = ssmall;
	uint32_t *m;
	mw_snap was = { 0 };
	int err, rc, cnt = (int)n;
	if (!(h = reqs_in(inst, arr, cnt, &m, &was, small, 16, &err)))
		return mw_fail(inst, err, MW_NOCOMM, proc);
	/* Check every output before anything can complete. */
	u32 stat = 0, outc = 0, idxs = 0, flag = 0;
	switch (kind) {
	case W_ALL: stat = a2; break;
	case T_ALL: flag = a2; stat = a3; break;
	case W_ANY: outc = a2; stat = a3; break;
	case T_ANY: outc = a2; flag = a3; stat = a4; break;
	case W_SOME: case T_SOME: outc = a2; idxs = a3; stat = a4; break;
	}
	int nst = (kind == W_ALL || kind == T_ALL || kind == W_SOME || kind == T_SOME) ? cnt : 1;
	/* Every output but the statuses is always written: address 0 is
	 * memory, not "ignore" (only a status has an IGNORE, 0). */
	int tests = kind == T_ALL || kind == T_ANY, one = kind != W_ALL && kind != T_ALL;
	int some = kind == W_SOME || kind == T_SOME;
	int32_t *pc = one ? mw_ptr(inst, outc, 4) : NULL;
	int32_t *pf = tests ? mw_ptr(inst, flag, 4) : NULL;
	int32_t *pi = some ? mw_arr(inst, idxs, (uint64_t)cnt, 4) : NULL;
	if ((one && !pc) || (tests && !pf) || (some && !pi && cnt > 0) ||
	    (stat && !mw_arr(inst, stat, (uint64_t)nst, 24) && nst > 0)) {
		rc = MW_ERR_ARG;
		goto fail;
	}
	if (stat && nst > 16 && !(st = malloc((size_t)nst * sizeof *st))) {
		rc = MW_ERR_NO_MEM;
		goto fail;
	}
	MPI_Status *sp = stat ? st : MPI_STATUSES_IGNORE;
	int idx = 0, f = 0, outn = 0, *hi = NULL;
	switch (kind) {
	case W_ALL: rc = MPI_Waitall(cnt, h, sp); break;
	case T_ALL: rc = MPI_Testall(cnt, h, &f, sp); *pf = f; break;
	case W_ANY: rc = MPI_Waitany(cnt, h, &idx, stat ? st : MPI_STATUS_IGNORE); break;
	case T_ANY: rc = MPI_Testany(cnt, h, &idx, &f, stat ? st : MPI_STATUS_IGNORE); *pf = f; break;
	default:
		hi = (int *)pi;   /* int32_t == int */
		rc = kind == W_SOME ? MPI_Waitsome(cnt, h, &outn, hi, sp)
		                    : MPI_Testsome(cnt, h, &outn, hi, sp);
		*pc = outn == MPI_UNDEFINED ? MW_UNDEFINED : outn;
		break;
	}
	if (kind == W_ANY || kind == T_ANY)
		*pc = idx == MPI_UNDEFINED ? MW_UNDEFINED : idx;
	for (int i = 0; i < cnt; i++)
		req_back(&m[i], (uint32_t)was.v[i], &h[i]);
	if (stat && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)) {
		void (*out)(rt_instance *, uint32_t, const MPI_Status *) =
			rc == MPI_ERR_IN_STATUS ? mw_status_out_err : mw_status_out;
		/* Testall's statuses are set for every request on MPI_ERR_IN_STATUS
		 * even when flag is false; Waitany/Testany with no active request
		 * (index MPI_UNDEFINED, flag true) give the empty status. */
		if (kind == W_ALL || (kind == T_ALL && (f || rc == MPI_ERR_IN_STATUS))) {
			for (int i = 0; i < cnt; i++)
				out(inst, stat + 24u * (u32)i, &st[i]);
		} else if (kind == W_ANY || (kind == T_ANY && f)) {
			mw_status_out(inst, stat, &st[0]);
		} else if ((kind == W_SOME || kind == T_SOME) && outn != MPI_UNDEFINED) {
			for (int i = 0; i < outn; i++)
				out(inst, stat + 24u * (u32)i, &st[i]);
		}
	}
	if (h != small)
		free(h);
	if (st != ssmall)
		free(st);
	mw_snap_free(&was);
	return mw_ret(inst, rc, MW_NOCOMM, proc);
fail:
	if (h != small)
		free(h);
	mw_snap_free(&was);
	return mw_fail(inst, rc, MW_NOCOMM, proc);
}

u32 mwh_Waitall(rt_instance *inst, u32 n, u32 a, u32 s)
{ return wait_many(inst, W_ALL, "MPI_Waitall", n, a, s, 0, 0); }
u32 mwh_Testall(rt_instance *inst, u32 n, u32 a, u32 f, u32 s)
{ return wait_many(inst, T_ALL, "MPI_Testall", n, a, f, s, 0); }
u32 mwh_Waitany(rt_instance *inst, u32 n, u32 a, u32 i, u32 s)
{ return wait_many(inst, W_ANY, "MPI_Waitany", n, a, i, s, 0); }
u32 mwh_Testany(rt_instance *inst, u32 n, u32 a, u32 i, u32 f, u32 s)
{ return wait_many(inst, T_ANY, "MPI_Testany", n, a, i, f, s); }
u32 mwh_Waitsome(rt_instance *inst, u32 n, u32 a, u32 o, u32 i, u32 s)
{ return wait_many(inst, W_SOME, "MPI_Waitsome", n, a, o, i, s); }
u32 mwh_Testsome(rt_instance *inst, u32 n, u32 a, u32 o, u32 i, u32 s)
{ return wait_many(inst, T_SOME, "MPI_Testsome", n, a, o, i, s); }

/* ---- statuses ---------------------------------------------------------------- */

/* Get_count and Get_elements: the same shape, one host procedure apart. */
static u32 status_count(rt_instance *inst, u32 status, u32 dt, u32 count,
                        int (*get)(const MPI_Status *, MPI_Datatype, int *),
                        const char *proc)
{
	MPI_Status st;
	mw_dtype *d;
	int *c, rc;
	DTYPE(d, dt);
	OUT(c, count, 4);
	TRY(mw_status_in(inst, status, &st));
	rc = get(&st, d->h, c);
	if (rc == MPI_SUCCESS && *c == MPI_UNDEFINED)
		*c = MW_UNDEFINED;
	return mw_ret(inst, rc, MW_NOCOMM, proc);
fail:
	return mw_fail(inst, rc, MW_NOCOMM, proc);
}

u32 mwh_Get_count(rt_instance *inst, u32 status, u32 dt, u32 count)
{
	return status_count(inst, status, dt, count, MPI_Get_count, "MPI_Get_count");
}

u32 mwh_Get_elements(rt_instance *inst, u32 status, u32 dt, u32 count)
{
	return status_count(inst, status, dt, count, MPI_Get_elements, "MPI_Get_elements");
}

u32 mwh_Get_elements_x(rt_instance *inst, u32 status, u32 dt, u32 count)
{
	MPI_Status st;
	mw_dtype *d;
	MPI_Count *c;
	int rc;
	DTYPE(d, dt);
	OUT(c, count, 8);
	TRY(mw_status_in(inst, status, &st));
	rc = MPI_Get_elements_x(&st, d->h, c);
	if (rc == MPI_SUCCESS && *c == MPI_UNDEFINED)
		*c = MW_UNDEFINED;
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Get_elements_x");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Get_elements_x");
}

static u32 set_elements(rt_instance *inst, u32 status, u32 dt, MPI_Count n,
                        const char *proc)
{
	MPI_Status st;
	mw_dtype *d;
	int rc;
	int64_t *m;
	DTYPE(d, dt);
	OUT(m, status, 24);
	TRY(mw_status_in(inst, status, &st));
	/* The byte count must fit (MPICH 4.0 asserts when it does not). */
	if (n < 0 || (d->size > 0 && n > (INT64_MAX - 1) / d->size))
		return mw_fail_arg(inst, MW_ERR_COUNT, MW_NOCOMM, proc, "argument count = %lld: "
		                   "negative, or more bytes than a count holds", (long long)n);
	rc = MPI_Status_set_elements_x(&st, d->h, n);
	if (rc == MPI_SUCCESS) {
		MPI_Count bytes = 0;
		MPI_Get_elements_x(&st, MPI_BYTE, &bytes);
		m[2] = bytes;
	}
	return mw_ret(inst, rc, MW_NOCOMM, proc);
fail:
	return mw_fail(inst, rc, MW_NOCOMM, proc);
}

u32 mwh_Status_set_elements(rt_instance *inst, u32 status, u32 dt, u32 n)
{ return set_elements(inst, status, dt, (int)n, "MPI_Status_set_elements"); }
u32 mwh_Status_set_elements_x(rt_instance *inst, u32 status, u32 dt, uint64_t n)
{ return set_elements(inst, status, dt, (MPI_Count)n, "MPI_Status_set_elements_x"); }

u32 mwh_Status_set_cancelled(rt_instance *inst, u32 status, u32 flag)
{
	int32_t *s = mw_ptr(inst, status, 24);
	if (!s)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Status_set_cancelled");
	s[3] = flag != 0;
	return 0;
}
