/* hand.c - host functions that need more than the generic rules of
 * gen.py: buffers paired with counts and datatypes, request and status
 * arrays, collectives' root-only and per-peer arguments, callbacks into
 * the module, strings whose maximum differs between module and host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "coll_args.h"
#include "rt/rt.h"

typedef uint32_t u32;

#define TRY(x) do { if ((rc = (x))) goto fail; } while (0)
#define COMM(c, a) TRY(mw_comm_live((a), &(c)))
#define DTYPE(d, a) TRY(mw_dtype_get((a), &(d)))
#define OUT(p, a, n) do { if (!((p) = mw_ptr(inst, (a), (n)))) { rc = MW_ERR_ARG; goto fail; } } while (0)
#define BUF(p, a, n, d) TRY(mw_buf(inst, (a), (int)(n), (d), &(p)))
#define STATUS_OK(a) do { if ((a) && !mw_ptr(inst, (a), 24)) { rc = MW_ERR_ARG; goto fail; } } while (0)
#define IN_PLACE(a) ((a) == 1)

/* ---- environment ----------------------------------------------------------- */

static u32 init_done(rt_instance *inst, int rc, const char *proc)
{
	mw_inst = inst;
	if (rc == MPI_SUCCESS)
		mw_tables_init();
	return mw_ret(inst, rc, MW_NOCOMM, proc);
}

u32 mwh_Init(rt_instance *inst, u32 argc, u32 argv)
{
	return init_done(inst, MPI_Init(NULL, NULL), "MPI_Init");
}

u32 mwh_Init_thread(rt_instance *inst, u32 argc, u32 argv, u32 req, u32 prov)
{
	int *p = mw_ptr(inst, prov, 4), rc;
	if (!p)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Init_thread");
	rc = MPI_Init_thread(NULL, NULL, mw_enum_in(MW_E_THREAD_LEVEL, (int32_t)req), p);
	if (rc == MPI_SUCCESS)
		*p = mw_enum_out(MW_E_THREAD_LEVEL, *p);
	return init_done(inst, rc, "MPI_Init_thread");
}

u32 mwh_Initialized(rt_instance *inst, u32 flag)
{
	int *p = mw_ptr(inst, flag, 4);
	if (!p)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Initialized");
	return mw_ret(inst, MPI_Initialized(p), MW_NOCOMM, "MPI_Initialized");
}

u32 mwh_Finalized(rt_instance *inst, u32 flag)
{
	int *p = mw_ptr(inst, flag, 4);
	if (!p)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Finalized");
	return mw_ret(inst, MPI_Finalized(p), MW_NOCOMM, "MPI_Finalized");
}

u32 mwh_Finalize(rt_instance *inst)
{
	if (!mw_is_active)   /* not initialized, or a second MPI_Finalize */
		return mw_fail(inst, MW_ERR_OTHER, MW_NOCOMM, "MPI_Finalize");
	mw_orphans_wait();
	int n = mw_io_pending();
	if (n)
		return mw_fail_arg(inst, MW_ERR_PENDING, MW_NOCOMM, "MPI_Finalize", "%d nonblocking "
		                   "file request%s not completed", n, n == 1 ? "" : "s");
	mw_tables_fini();
	int rc = MPI_Finalize();
	if (rc == MPI_SUCCESS)
		mw_tables_clear();
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Finalize");
}

u32 mwh_Abort(rt_instance *inst, u32 comm, u32 code)
{
	MPI_Comm c;
	if (mw_comm_get(comm, &c) || c == MPI_COMM_NULL)
		c = MPI_COMM_WORLD;
	fflush(stdout);
	fprintf(stderr, "mpiwasm: rank %d: MPI_Abort(%d) called by the module\n",
	        mw_world_rank, (int)code);
	mw_abort_job(c, (int)code);
}

double mwh_Wtime(rt_instance *inst)
{
	return MPI_Wtime();
}

double mwh_Wtick(rt_instance *inst)
{
	return MPI_Wtick();
}

u32 mwh_Query_thread(rt_instance *inst, u32 prov)
{
	int *p = mw_ptr(inst, prov, 4);
	if (!p)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Query_thread");
	int rc = MPI_Query_thread(p);
	if (rc == MPI_SUCCESS)
		*p = mw_enum_out(MW_E_THREAD_LEVEL, *p);
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Query_thread");
}

u32 mwh_Is_thread_main(rt_instance *inst, u32 flag)
{
	int *p = mw_ptr(inst, flag, 4);
	if (!p)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Is_thread_main");
	return mw_ret(inst, MPI_Is_thread_main(p), MW_NOCOMM, "MPI_Is_thread_main");
}

u32 mwh_Get_version(rt_instance *inst, u32 v, u32 sv)
{
	int32_t *a = mw_ptr(inst, v, 4), *b = mw_ptr(inst, sv, 4);
	if (!a || !b)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Get_version");
	/* The module's mpi.h is MPI-3.1, whatever the host implements. */
	*a = MW_VERSION;
	*b = MW_SUBVERSION;
	return 0;
}

u32 mwh_Get_library_version(rt_instance *inst, u32 s, u32 len)
{
	char buf[MPI_MAX_LIBRARY_VERSION_STRING + 64];
	int n = 0, rc = MPI_Get_library_version(buf, &n);
	if (rc)
		return mw_ret(inst, rc, MW_NOCOMM, "MPI_Get_library_version");
	char out[MW_MAX_LIBRARY_VERSION_STRING];
	snprintf(out, sizeof out, "mpiwasm (MPIWASM_ABI 1) on %.200s", buf);
	if ((rc = mw_str_out(inst, s, MW_MAX_LIBRARY_VERSION_STRING, len, out)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Get_library_version");
	return 0;
}

u32 mwh_Get_processor_name(rt_instance *inst, u32 s, u32 len)
{
	char buf[MPI_MAX_PROCESSOR_NAME + 1];
	int n = 0, rc = MPI_Get_processor_name(buf, &n);
	if (rc)
		return mw_ret(inst, rc, MW_NOCOMM, "MPI_Get_processor_name");
	if ((rc = mw_str_out(inst, s, MW_MAX_PROCESSOR_NAME, len, buf)))
		return mw_fail(inst, rc, MW_NOCOMM, "MPI_Get_processor_name");
	return 0;
}

u32 mwh_Alloc_mem(rt_instance *inst, u32 size, u32 info, u32 baseptr)
{
	uint32_t *out = mw_ptr(inst, baseptr, 4);
	MPI_Info in;
	if (!out)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Alloc_mem");
	if (mw_info_get(info, &in))
		return mw_fail(inst, MW_ERR_INFO, MW_NOCOMM, "MPI_Alloc_mem");
	uint32_t a = mw_malloc(inst, size ? size : 1, "MPI_Alloc_mem");
	mw_after(inst, 0);
	if (!a)
		return mw_fail(inst, MW_ERR_NO_MEM, MW_NOCOMM, "MPI_Alloc_mem");
	out = mw_ptr(inst, baseptr, 4);   /* malloc may have grown memory */
	*out = a;
	return 0;
}

u32 mwh_Free_mem(rt_instance *inst, u32 base)
{
	mw_free(inst, base);
	return mw_after(inst, 0);
}

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

/* ---- user-defined operations --------------------------------------------------
 * The host calls op_tramp with no user data, so the op being applied is
 * remembered around each reduction (calls are not reentrant), per thread,
 * as is the module scratch the op's arguments are staged in.  The table
 * of ops changes under mw_lock. */

static struct { u32 fn; int used; } *uop;
static uint32_t uop_cap;
static __thread u32 cur_op = (u32)-1;
static __thread uint32_t scratch, scratch_len;

static uint32_t module_scratch(rt_instance *inst, uint32_t len)
{
	if (len <= scratch_len)
		return scratch;
	if (scratch)
		mw_free(inst, scratch);
	scratch = mw_malloc(inst, len, "user-defined op");
	scratch_len = scratch ? len : 0;
	return scratch;
}

/* Whether host bytes [p, p + n) lie in linear memory [base, base + size). */
static int in_linear(const uint8_t *base, uint64_t size, uintptr_t p, uint64_t n)
{
	uintptr_t b = (uintptr_t)base;
	return p >= b && p - b <= size && n <= size - (p - b);
}

/* The op sees in and inout through module addresses: a buffer already in
 * linear memory as it is, any other (the library's temporary buffers) as
 * a copy in the module's scratch of exactly the bytes the datatype spans,
 * [lo, hi) from the buffer address by its true lower bound and extent;
 * only those bytes of inout are copied back. */
void mw_uop_apply(u32 fn, void *in, void *inout, int *len, MPI_Datatype *dt)
{
	rt_instance *inst = mw_inst;
	if (mw_pending_trap || *len <= 0)
		return;
	MPI_Aint lb, ext, tlb, text;
	MPI_Type_get_extent(*dt, &lb, &ext);
	MPI_Type_get_true_extent(*dt, &tlb, &text);
	int64_t span = (int64_t)(*len - 1) * ext;
	int64_t lo = tlb + (span < 0 ? span : 0), hi = tlb + (span > 0 ? span : 0) + text;
	uint64_t bytes = hi > lo ? (uint64_t)(hi - lo) : 0;
	uint8_t *base = rt_mem(inst, 0, 0);
	uint64_t size = rt_mem_size(inst);
	uintptr_t pin = (uintptr_t)in + (uintptr_t)lo, pio = (uintptr_t)inout + (uintptr_t)lo;
	int in_lin = in_linear(base, size, pin, bytes);
	int io_lin = in_linear(base, size, pio, bytes);
	/* len, datatype, then the staged copies, 16-aligned; a copy starts at
	 * a module address >= lo, so that its buffer address (copy - lo)
	 * does not wrap below 0. */
	uint64_t room = (bytes + 15) & ~(uint64_t)15;
	uint64_t staged = (in_lin ? 0 : room) + (io_lin ? 0 : room);
	uint64_t skip = 0;
	uint32_t s = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (16 + skip + staged > UINT32_MAX / 2) {
			s = 0;
			break;
		}
		s = module_scratch(inst, (uint32_t)(16 + skip + staged));
		if (!s || mw_pending_trap || staged == 0 || lo <= 0 || (int64_t)s + 16 >= lo)
			break;
		skip = ((uint64_t)lo - 16 + 15) & ~(uint64_t)15;   /* s + 16 + skip >= lo */
	}
	if (!s || mw_pending_trap) {
		if (!mw_pending_trap)
			fprintf(stderr, "mpiwasm: rank %d: user op: no module memory for staging "
			        "%llu bytes\n", mw_world_rank, (unsigned long long)staged);
		return;
	}
	base = rt_mem(inst, 0, 0);   /* malloc may have grown memory */
	uint32_t c_in = s + 16 + (uint32_t)skip;
	uint32_t c_io = c_in + (in_lin ? 0 : (uint32_t)room);
	uint32_t a_in = in_lin ? (uint32_t)(pin - (uintptr_t)base - (uintptr_t)lo)
	                       : c_in - (uint32_t)lo;
	uint32_t a_io = io_lin ? (uint32_t)(pio - (uintptr_t)base - (uintptr_t)lo)
	                       : c_io - (uint32_t)lo;
	if (!in_lin)
		memcpy(base + c_in, (const void *)pin, bytes);
	if (!io_lin)
		memcpy(base + c_io, (const void *)pio, bytes);
	int32_t *hdr = (int32_t *)(base + s);
	hdr[0] = *len;
	hdr[1] = (int32_t)mw_dtype_find(*dt);
	const rt_func *f = rt_table_func(inst, 0, fn, "iiii:");
	if (!f) {
		fprintf(stderr, "mpiwasm: rank %d: user op: table entry %u is not a "
		        "void(void*, void*, int*, MPI_Datatype*) function\n",
		        mw_world_rank, fn);
		mw_pending_trap = RT_TRAP_INDIRECT_TYPE;
		return;
	}
	rt_value args[4] = { { .i32 = a_in }, { .i32 = a_io }, { .i32 = s }, { .i32 = s + 4 } };
	int k = rt_call(inst, f, args, NULL);
	if (k) {
		mw_pending_trap = k;
		return;
	}
	base = rt_mem(inst, 0, 0);
	if (!io_lin)
		memcpy((void *)pio, base + c_io, bytes);
}

static void op_tramp(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	mw_lock();
	int known = cur_op < uop_cap;
	u32 fn = known ? uop[cur_op].fn : 0;
	mw_unlock();
	if (known)
		mw_uop_apply(fn, in, inout, len, dt);
}

int mw_uop_fn(u32 op, u32 *fn)
{
	MPI_Op h;
	if (mw_op_get(op, &h))
		return 0;
	mw_lock();
	int ok = op >= 32 && op < uop_cap && uop[op].used;
	if (ok)
		*fn = uop[op].fn;
	mw_unlock();
	return ok;
}

u32 mwh_Op_create(rt_instance *inst, u32 fn, u32 commute, u32 opp)
{
	uint32_t *o = mw_ptr(inst, opp, 4);
	MPI_Op op;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Op_create");
	if (!rt_table_func(inst, 0, fn, "iiii:"))
		return mw_fail(inst, MW_ERR_OP, MW_NOCOMM, "MPI_Op_create");
	int rc = MPI_Op_create(op_tramp, (int)commute, &op);
	if (rc != MPI_SUCCESS)
		return mw_ret(inst, rc, MW_NOCOMM, "MPI_Op_create");
	uint32_t h = mw_op_new(op);
	mw_lock();
	if (h >= uop_cap) {
		uint32_t cap = uop_cap ? uop_cap * 2 : 64;
		while (cap <= h)
			cap *= 2;
		void *v = realloc(uop, cap * sizeof *uop);
		if (!v) {
			mw_unlock();
			return mw_fail(inst, MW_ERR_NO_MEM, MW_NOCOMM, "MPI_Op_create");
		}
		uop = v;
		uop_cap = cap;
	}
	uop[h].fn = fn;
	uop[h].used = 1;
	mw_unlock();
	*o = h;
	return 0;
}

u32 mwh_Op_free(rt_instance *inst, u32 opp)
{
	uint32_t *o = mw_ptr(inst, opp, 4);
	MPI_Op op;
	if (!o)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Op_free");
	if (*o < 32 || mw_op_get(*o, &op) || op == MPI_OP_NULL)
		return mw_fail(inst, MW_ERR_OP, MW_NOCOMM, "MPI_Op_free");
	int rc = MPI_Op_free(&op);
	if (rc == MPI_SUCCESS) {
		mw_op_del(*o);
		*o = MW_OP_NULL;
	}
	return mw_ret(inst, rc, MW_NOCOMM, "MPI_Op_free");
}

u32 mwh_Op_commutative(rt_instance *inst, u32 opv, u32 flag)
{
	int *f = mw_ptr(inst, flag, 4);
	MPI_Op op;
	if (!f)
		return mw_fail(inst, MW_ERR_ARG, MW_NOCOMM, "MPI_Op_commutative");
	if (mw_op_get(opv, &op))
		return mw_fail(inst, MW_ERR_OP, MW_NOCOMM, "MPI_Op_commutative");
	return mw_ret(inst, MPI_Op_commutative(op, f), MW_NOCOMM, "MPI_Op_commutative");
}

/* After DTYPE(d, ...): long double types get the bridge's ops. */
#define OP(o, a) do { TRY(mw_op_get((a), &(o))); mw_ld_op((a), d, &(o)); \
	cur_op = (a); } while (0)

/* ---- collectives -------------------------------------------------------------- */

/* The arguments of each are checked by coll_args.c, by the same rules as
 * its nonblocking form's (hand_nbc.c); snapshots live on this stack. */

u32 mwh_Barrier(rt_instance *inst, u32 comm)
{
	MPI_Comm c;
	int rc;
	COMM(c, comm);
	return mw_ret(inst, MPI_Barrier(c), comm, "MPI_Barrier");
fail:
	return mw_fail(inst, rc, comm, "MPI_Barrier");
}

u32 mwh_Bcast(rt_instance *inst, u32 buf, u32 count, u32 dt, u32 root, u32 comm)
{
	mw_coll a;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_bcast(&a, buf, count, dt, root));
	return mw_ret(inst, MPI_Bcast(a.sp, (int)count, a.sd->h, a.root, a.c),
	              comm, "MPI_Bcast");
fail:
	return mw_coll_fail(&a, rc, comm, "MPI_Bcast");
}

/* Gather/Scatter: per-process block on one side, n blocks at the root. */
static u32 gather_scatter(rt_instance *inst, int scatter, u32 sb, u32 sc, u32 sdt,
                          u32 rb, u32 rcn, u32 rdt, u32 root, u32 comm)
{
	const char *proc = scatter ? "MPI_Scatter" : "MPI_Gather";
	mw_coll a;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_gather(&a, scatter, sb, sc, sdt, rb, rcn, rdt, root));
	rc = scatter ? MPI_Scatter(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.root, a.c)
	             : MPI_Gather(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.root, a.c);
	return mw_ret(inst, rc, comm, proc);
fail:
	return mw_coll_fail(&a, rc, comm, proc);
}

u32 mwh_Gather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rc_,
               u32 rdt, u32 root, u32 comm)
{ return gather_scatter(inst, 0, sb, sc, sdt, rb, rc_, rdt, root, comm); }
u32 mwh_Scatter(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rc_,
                u32 rdt, u32 root, u32 comm)
{ return gather_scatter(inst, 1, sb, sc, sdt, rb, rc_, rdt, root, comm); }

u32 mwh_Gatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcounts,
                u32 displs, u32 rdt, u32 root, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_gatherv(&a, sb, sc, sdt, rb, rcounts, displs, rdt, root));
	rc = MPI_Gatherv(a.sp, (int)sc, a.sd->h, a.rp, a.rcounts, a.rdispls, a.rd->h,
	                 a.root, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Gatherv");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Gatherv");
}

u32 mwh_Scatterv(rt_instance *inst, u32 sb, u32 scounts, u32 displs, u32 sdt,
                 u32 rb, u32 rcn, u32 rdt, u32 root, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_scatterv(&a, sb, scounts, displs, sdt, rb, rcn, rdt, root));
	rc = MPI_Scatterv(a.sp, a.scounts, a.sdispls, a.sd->h, a.rp, (int)rcn, a.rd->h,
	                  a.root, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Scatterv");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Scatterv");
}

/* Allgather and Alltoall: one block or n blocks sent, n received. */
static u32 all_blocks(rt_instance *inst, int alltoall, u32 sb, u32 sc, u32 sdt,
                      u32 rb, u32 rcn, u32 rdt, u32 comm)
{
	const char *proc = alltoall ? "MPI_Alltoall" : "MPI_Allgather";
	mw_coll a;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_allgather(&a, alltoall, sb, sc, sdt, rb, rcn, rdt));
	rc = alltoall ? MPI_Alltoall(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.c)
	              : MPI_Allgather(a.sp, (int)sc, a.sd->h, a.rp, (int)rcn, a.rd->h, a.c);
	return mw_ret(inst, rc, comm, proc);
fail:
	return mw_coll_fail(&a, rc, comm, proc);
}

u32 mwh_Allgather(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcn,
                  u32 rdt, u32 comm)
{ return all_blocks(inst, 0, sb, sc, sdt, rb, rcn, rdt, comm); }
u32 mwh_Alltoall(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb, u32 rcn,
                 u32 rdt, u32 comm)
{ return all_blocks(inst, 1, sb, sc, sdt, rb, rcn, rdt, comm); }

u32 mwh_Allgatherv(rt_instance *inst, u32 sb, u32 sc, u32 sdt, u32 rb,
                   u32 rcounts, u32 rdispls, u32 rdt, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_allgatherv(&a, sb, sc, sdt, rb, rcounts, rdispls, rdt));
	rc = MPI_Allgatherv(a.sp, (int)sc, a.sd->h, a.rp, a.rcounts, a.rdispls,
	                    a.rd->h, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Allgatherv");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Allgatherv");
}

u32 mwh_Alltoallv(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls, u32 sdt,
                  u32 rb, u32 rcounts, u32 rdispls, u32 rdt, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_alltoallv(&a, sb, scounts, sdispls, sdt, rb, rcounts, rdispls, rdt));
	rc = MPI_Alltoallv(a.sp, a.scounts, a.sdispls, a.sd->h, a.rp, a.rcounts,
	                   a.rdispls, a.rd->h, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Alltoallv");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Alltoallv");
}

u32 mwh_Alltoallw(rt_instance *inst, u32 sb, u32 scounts, u32 sdispls, u32 stypes,
                  u32 rb, u32 rcounts, u32 rdispls, u32 rtypes, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_alltoallw(&a, sb, scounts, sdispls, stypes, rb, rcounts, rdispls,
	                      rtypes));
	rc = MPI_Alltoallw(a.sp, a.scounts, a.sdispls, a.stypes, a.rp, a.rcounts,
	                   a.rdispls, a.rtypes, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Alltoallw");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Alltoallw");
}

u32 mwh_Reduce(rt_instance *inst, u32 sb, u32 rb, u32 count, u32 dt, u32 opv,
               u32 root, u32 comm)
{
	mw_coll a;
	MPI_Op op;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_reduce(&a, sb, rb, count, dt, opv, root));
	mw_dtype *d = a.sd;
	OP(op, opv);
	rc = MPI_Reduce(a.sp, a.rp, (int)count, d->h, op, a.root, a.c);
	return mw_ret(inst, rc, comm, "MPI_Reduce");
fail:
	return mw_coll_fail(&a, rc, comm, "MPI_Reduce");
}

#define ALLRED_LIKE(NAME)                                                       \
u32 mwh_##NAME(rt_instance *inst, u32 sb, u32 rb, u32 count, u32 dt, u32 opv,  \
               u32 comm)                                                      \
{                                                                             \
	mw_coll a;                                                            \
	MPI_Op op;                                                            \
	int rc;                                                               \
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));                          \
	TRY(mw_coll_allreduce(&a, sb, rb, count, dt, opv));                   \
	mw_dtype *d = a.sd;                                                   \
	OP(op, opv);                                                          \
	return mw_ret(inst, MPI_##NAME(a.sp, a.rp, (int)count, d->h, op, a.c), \
	              comm, "MPI_" #NAME);                                    \
fail:                                                                         \
	return mw_coll_fail(&a, rc, comm, "MPI_" #NAME);                      \
}
ALLRED_LIKE(Allreduce)
ALLRED_LIKE(Scan)
ALLRED_LIKE(Exscan)

u32 mwh_Reduce_local(rt_instance *inst, u32 ib, u32 iob, u32 count, u32 dt, u32 opv)
{
	mw_dtype *d;
	MPI_Op op;
	void *ip, *iop;
	int rc;
	DTYPE(d, dt);
	OP(op, opv);
	BUF(ip, ib, count, d);
	BUF(iop, iob, count, d);
	TRY(mw_disjoint(ip, (int32_t)count, iop, (int32_t)count, d));
	return mw_ret(inst, MPI_Reduce_local(ip, iop, (int)count, d->h, op),
	              MW_NOCOMM, "MPI_Reduce_local");
fail:
	return mw_fail(inst, rc, MW_NOCOMM, "MPI_Reduce_local");
}

u32 mwh_Reduce_scatter_block(rt_instance *inst, u32 sb, u32 rb, u32 count,
                             u32 dt, u32 opv, u32 comm)
{
	mw_coll a;
	MPI_Op op;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, NULL, 0));
	TRY(mw_coll_reduce_scatter_block(&a, sb, rb, count, dt, opv));
	mw_dtype *d = a.sd;
	OP(op, opv);
	return mw_ret(inst, MPI_Reduce_scatter_block(a.sp, a.rp, (int)count, d->h, op, a.c),
	              comm, "MPI_Reduce_scatter_block");
fail:
	return mw_coll_fail(&a, rc, comm, "MPI_Reduce_scatter_block");
}

u32 mwh_Reduce_scatter(rt_instance *inst, u32 sb, u32 rb, u32 rcounts, u32 dt,
                       u32 opv, u32 comm)
{
	mw_coll a;
	mw_snap snaps[MW_COLL_SNAPS];
	MPI_Op op;
	int rc;
	TRY(mw_coll_begin(&a, inst, comm, snaps, MW_COLL_SNAPS));
	TRY(mw_coll_reduce_scatter(&a, sb, rb, rcounts, dt, opv));
	mw_dtype *d = a.sd;
	OP(op, opv);
	rc = MPI_Reduce_scatter(a.sp, a.rp, a.rcounts, d->h, op, a.c);
	mw_coll_end(&a);
	return mw_ret(inst, rc, comm, "MPI_Reduce_scatter");
fail:
	mw_coll_end(&a);
	return mw_coll_fail(&a, rc, comm, "MPI_Reduce_scatter");
}

/* ---- env imports the published binaries need ----------------------------------- */

static u32 env_gethostname(rt_instance *inst, u32 name, u32 len)
{
	char buf[256];
	if (gethostname(buf, sizeof buf) != 0)
		return (u32)-1;
	buf[sizeof buf - 1] = 0;
	size_t n = strlen(buf) + 1;
	if ((int32_t)len <= 0)
		return (u32)-1;
	if (n > len)
		n = len;   /* POSIX: truncated, unspecified termination */
	char *d = mw_ptr(inst, name, n);
	if (!d)
		return (u32)-1;
	memcpy(d, buf, n);
	return 0;
}

static u32 env_cxa_allocate_exception(rt_instance *inst, u32 size)
{
	/* The throw that follows reports it; the object itself is unused. */
	u32 a = mw_malloc(inst, size ? size : 1, "__cxa_allocate_exception");
	return mw_after(inst, a);
}

static void env_cxa_throw(rt_instance *inst, u32 obj, u32 tinfo, u32 dtor)
{
	fflush(stdout);
	if (mw_is_active) {
		fprintf(stderr, "mpiwasm: rank %d: C++ exception thrown (exceptions are "
		        "not supported); ending the job (mpiwasm calls MPI_Abort with "
		        "errorcode 1)\n", mw_world_rank);
		mw_abort_job(MPI_COMM_WORLD, 1);
	}
	/* (MPIWasm's published binaries throw through this import, IMB's
	 * `-help` before MPI_Init) */
	if (mw_world_rank < 0)
		rt_trap_host(inst, "C++ exception thrown before MPI was initialized "
		             "(the module throws through env.__cxa_throw, which cannot "
		             "be caught; mpiwasm-c++ builds modules whose exceptions work)");
	rt_trap_host(inst, "C++ exception thrown in rank %d (through env.__cxa_throw, "
	             "which cannot be caught; mpiwasm-c++ builds modules whose "
	             "exceptions work)", mw_world_rank);
}

extern const rt_hostfn mw_glue[];
extern const unsigned mw_glue_n;

static const rt_hostfn env_fns[] = {
	{ "env", "gethostname", "ii:i", (void *)env_gethostname },
	{ "env", "__cxa_allocate_exception", "i:i", (void *)env_cxa_allocate_exception },
	{ "env", "__cxa_throw", "iii:", (void *)env_cxa_throw },
};

void mpib_register(void)
{
	rt_host_register(mw_glue, mw_glue_n);
	rt_host_register(env_fns, sizeof env_fns / sizeof env_fns[0]);
}
