/* mpib_int.h - what the bridge's files share (core, hand-written and
 * generated glue).  Not an interface: everything here is hidden. */
#ifndef MPIWASM_MPIB_INT_H
#define MPIWASM_MPIB_INT_H

#include <mpi.h>
#include <stdint.h>
#include "rt/host.h"
#include "abi.h"

/* A module datatype: the host handle and its layout, cached because every
 * buffer check needs it. */
typedef struct mw_dtype {
	MPI_Datatype h;
	MPI_Aint lb, extent, tlb, textent;
	MPI_Count size;
	/* Committed (predefined, MPI_Type_commit, or a dup of a committed
	 * type): buffers of any other type are refused (mw_buf), since Open
	 * MPI's collectives do not check and its convertor crashes on one. */
	int committed;
} mw_dtype;

/* The bridge's lock (recursive): what module threads share changes
 * under it; never held across a call into MPI that may block. */
void mw_lock(void);
void mw_unlock(void);

/* Handle tables.  get: module handle -> host handle (the module's *_NULL
 * gives the host's); 0 or the module error class.  put: a new module
 * handle for a host handle (predefined handles map back to their fixed
 * numbers).  del: frees a module handle's slot. */
int mw_comm_get(uint32_t h, MPI_Comm *out);
/* mw_comm_get for an argument that must be a communicator: MW_COMM_NULL
 * is MW_ERR_COMM here, never given to the host library (Open MPI 4.1's
 * MPI_Allgather dereferences MPI_COMM_NULL, its MPI_Mprobe raises
 * MPI_ERRORS_ARE_FATAL on it). */
int mw_comm_live(uint32_t h, MPI_Comm *out);
uint32_t mw_comm_put(MPI_Comm c);
void mw_comm_del(uint32_t h);
int mw_group_get(uint32_t h, MPI_Group *out);
uint32_t mw_group_put(MPI_Group g);
void mw_group_del(uint32_t h);
int mw_dtype_get(uint32_t h, mw_dtype **out);
int mw_dtype_hget(uint32_t h, MPI_Datatype *out);
/* mw_dtype_hget for a type the host will lay data out by without a buffer
 * (MPI_Pack_size): MW_ERR_TYPE unless committed (Open MPI's convertor
 * crashes on an uncommitted one; buffers are checked by mw_buf). */
int mw_dtype_cget(uint32_t h, MPI_Datatype *out);
uint32_t mw_dtype_put(MPI_Datatype d);
void mw_dtype_del(uint32_t h);
int mw_dtype_refresh(uint32_t h);   /* after MPI_Type_commit */
int mw_op_get(uint32_t h, MPI_Op *out);
uint32_t mw_op_put(MPI_Op o);
void mw_op_del(uint32_t h);
int mw_req_get(uint32_t h, MPI_Request *out);
uint32_t mw_req_put(MPI_Request r);
void mw_req_del(uint32_t h);
void mw_req_set(uint32_t h, MPI_Request r);
/* Slot h holds a generalized request of the module (MPI_Grequest_start):
 * set once it is made; is: nonzero if so; complete: marks it completed
 * (MPI_Grequest_complete), 0, or MW_ERR_REQUEST if h is not such a
 * request or was completed already. */
void mw_req_greq_set(uint32_t h);
int mw_req_is_greq(uint32_t h);
int mw_req_greq_complete(uint32_t h);
/* Slot h holds a point-to-point request (hand_p2p.c): set once it is
 * made; is: nonzero if so. */
void mw_req_p2p_set(uint32_t h);
int mw_req_is_p2p(uint32_t h);
int mw_info_get(uint32_t h, MPI_Info *out);
uint32_t mw_info_put(MPI_Info i);
void mw_info_del(uint32_t h);
int mw_errh_get(uint32_t h, MPI_Errhandler *out);
uint32_t mw_errh_put(MPI_Errhandler e);
void mw_errh_del(uint32_t h);
int mw_msg_get(uint32_t h, MPI_Message *out);
uint32_t mw_msg_put(MPI_Message m);
void mw_msg_del(uint32_t h);
int mw_keyval_get(uint32_t h, int *out);
uint32_t mw_keyval_put(int k);
void mw_keyval_del(uint32_t h);

/* Comm slots: set one directly, or reserve one (Comm_idup fills it when
 * its request completes). */
void mw_comm_set(uint32_t h, MPI_Comm c);
uint32_t mw_comm_reserve(void);
/* MPI_Comm_free of comm while an MPI_Comm_idup of it is pending: 1 if so,
 * and the host communicator is freed when the last such idup completes
 * (Open MPI 4.1 crashes if it goes before); else 0.  hand_comm.c. */
int mw_comm_free_later(uint32_t comm);
/* Completes the MPI_Comm_idup requests still pending (MPI_Finalize, before
 * the host's: Open MPI 4.1 crashed on them).  hand_comm.c. */
void mw_idups_complete(void);
/* What a request owns that the host reads until the operation ends and
 * that is not in linear memory (a nonblocking collective's converted
 * handle and MPI_Aint arrays, a host op made for a user op): attach gives
 * live request h a release function, run exactly once when its slot is
 * deleted, i.e. when the request completes (req_back) or is freed; at
 * once if h is not a live request.  MPI_Request_free must call orphan
 * first: if h owns something, 1, and the host request is kept (not freed)
 * and completed later by the bridge (tested at each attach, waited for
 * before MPI_Finalize), then released; h's slot is free either way. */
typedef void mw_req_fini(void *arg);
void mw_req_attach(uint32_t h, mw_req_fini *fn, void *arg);
int mw_req_orphan(uint32_t h);
/* Live request h is a nonblocking collective on module communicator
 * comm: it holds the host communicator until its slot is deleted (the
 * release above).  comm_host_free is the host MPI_Comm_free (or, if
 * disconnect, MPI_Comm_disconnect) of a communicator the module frees: a
 * held one is only marked, MPI_SUCCESS and *c MPI_COMM_NULL, and freed
 * (never disconnected) when the last collective holding it completes
 * (Open MPI 4.1 never completes one it has not progressed once its
 * communicator is freed: tests/fuzz-bridge/open/nbc-comm-free-hang.c). */
void mw_req_comm(uint32_t h, uint32_t comm);
void mw_req_hold(uint32_t h, MPI_Comm c);   /* as mw_req_comm, by host handle */
int mw_comm_host_free(MPI_Comm *c, int disconnect);
/* Request completion hook: while watching, mw_req_del calls mw_req_done. */
void mw_req_watch(int on);
void mw_req_done(uint32_t req);
/* True for the predefined module datatypes (fixed handles). */
int mw_dtype_predefined(uint32_t h);

/* Reverse lookups (UINT32_MAX-ish *_NULL if absent) and fresh slots
 * that never alias a predefined handle. */
uint32_t mw_comm_find(MPI_Comm c);
uint32_t mw_dtype_find(MPI_Datatype d);
uint32_t mw_errh_new(MPI_Errhandler e);
uint32_t mw_keyval_new(int k);
uint32_t mw_op_new(MPI_Op o);
uint32_t mw_comm_errh(uint32_t comm);
void mw_comm_set_errh(uint32_t comm, uint32_t eh);
/* A new communicator made from parent gets parent's error handler. */
void mw_comm_inherit(uint32_t comm, uint32_t parent);
/* Reference counts of user error handlers (module handle; predefined
 * handlers and 0 are ignored). */
void mw_errh_retain(uint32_t eh);
void mw_errh_release(uint32_t eh);

/* Wildcards and sentinels, module <-> host. */
int mw_rank_in(uint32_t r);
uint32_t mw_rank_out(int r);
int mw_tag_in(uint32_t t);
uint32_t mw_tag_out(int t);

/* Enumerated constants that cross as plain ints (one table, mpib.c), by
 * the apis.json kind of the argument.  out: host value -> module value;
 * in: module value -> host value.  A value not in the table is passed
 * unchanged (the host then refuses it, or it was a number, not a name). */
enum mw_enum {
	MW_E_TOPOLOGY_TYPE, MW_E_COMPARISON, MW_E_TYPECLASS, MW_E_THREAD_LEVEL,
	MW_E_COMBINER, MW_E_ORDER, MW_E_DISTRIB, MW_E_LOCK_TYPE
};
int mw_enum_out(enum mw_enum kind, int host);
int mw_enum_in(enum mw_enum kind, int32_t mod);

/* A reduction with module op opv on d: if d is one of the module's long
 * double types (IEEE binary128) and opv a predefined op MPI defines on
 * it, *op becomes the bridge's host op doing it; else *op is unchanged. */
void mw_ld_op(uint32_t opv, const mw_dtype *d, MPI_Op *op);
/* Whether d is one of those types (which the host only moves as bytes). */
int mw_dtype_ld(const mw_dtype *d);

/* Memory.  mw_ptr: host pointer of [addr, addr+len) or NULL. */
void *mw_ptr(rt_instance *inst, uint32_t addr, uint64_t len);
void *mw_arr(rt_instance *inst, uint32_t addr, uint64_t n, uint64_t sz);
/* The module address of host pointer p into linear memory (a checked
 * buffer a procedure must give back later, as MPI_Buffer_detach does). */
uint32_t mw_addr(rt_instance *inst, const void *p);
/* NUL-terminated module string, or NULL if it runs off memory. */
const char *mw_str(rt_instance *inst, uint32_t addr);
/* Copies a host string into a module buffer of cap bytes (truncating,
 * always terminated); writes its length to lenp if nonzero. */
int mw_str_out(rt_instance *inst, uint32_t addr, uint32_t cap,
               uint32_t lenp, const char *s);

/* ---- typed handlers of the rest chapter (src/mpi/gen/args.py) ----------
 * A string out the handler writes when it has it (class sink): the
 * module address and the buffer's size in bytes (0: the handler's). */
typedef struct mw_sink {
	uint32_t addr, cap;
} mw_sink;
/* Info and op in/out (MPI_Info_free, MPI_Op_free): the module slot, the
 * handle it held when the call began, its host handle. */
typedef struct mw_info_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_Info h;
} mw_info_io;
typedef struct mw_op_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_Op h;
} mw_op_io;
/* A request by value with its module handle (class reqref). */
typedef struct mw_req_ref {
	uint32_t mod;
	MPI_Request h;
} mw_req_ref;
/* The host key of a datatype's keyval (hand_attr.c): 0, or MW_ERR_KEYVAL
 * if h is not one. */
int mw_type_keyval_get(uint32_t h, int *out);
/* A port name from the module (hand_dyn.c): a string of fewer than the
 * module's MPI_MAX_PORT_NAME bytes, or NULL. */
const char *mw_port_in(rt_instance *inst, uint32_t addr);
/* User-defined ops (hand_coll.c keeps their table, hand_op.c has the
 * procedures): create makes a module op applying module function fn into
 * *out: 0 with the host's code in *hrc, or MW_ERR_NO_MEM; forget: module
 * op h, which MPI_Op_free freed, no longer names a user op. */
int mw_uop_create(uint32_t fn, int commute, uint32_t *out, int *hrc);
void mw_uop_forget(uint32_t h);
/* The topology constructors (hand_comm.c).  The module's sentinel weight
 * addresses (mpi.h: ((int *)2), ((int *)3)). */
#define MW_UNWEIGHTED_ADDR 2u
#define MW_WEIGHTS_EMPTY_ADDR 3u
struct mw_snap;
/* Weights in at addr (class weights): MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY
 * (for n = 0 only), or n ints snapshotted into s; *out what the host
 * gets.  0 or MW_ERR_ARG (MW_ERR_NO_MEM). */
int mw_weights_in(rt_instance *inst, struct mw_snap *s, uint32_t addr, int64_t n, int **out);
/* MPI_Dist_graph_create's destinations (class dgedges): the sum of the n
 * positive degrees deg into *ne (MW_ERR_ARG above INT32_MAX), snapshotted
 * into d; every source (src, n) and destination a rank of c (MW_ERR_COMM
 * for MPI_COMM_NULL, else MW_ERR_RANK). */
int mw_dg_edges(rt_instance *inst, struct mw_snap *d, uint32_t addr, MPI_Comm c, int n,
                const int32_t *src, const int32_t *deg, int64_t *ne);

/* Buffer of `count` elements of dt at module address addr: checks the
 * whole extent it spans and gives the host pointer (MPI_BOTTOM is the
 * memory base, so absolute addresses in derived datatypes work).  0 or
 * MW_ERR_BUFFER. */
int mw_buf(rt_instance *inst, uint32_t addr, int count, const mw_dtype *dt,
           void **out);
/* Same for a displacement (in elements of dt's extent) from addr. */
int mw_buf_at(rt_instance *inst, uint32_t addr, int64_t disp_bytes, int count,
              const mw_dtype *dt, void **out);
/* The host address of a buffer argument that is not significant at this
 * rank (a root's send buffer on an intercommunicator, say): never
 * dereferenced, so not checked, but MPICH refuses a null one even then. */
void *mw_raw(rt_instance *inst, uint32_t addr);
/* Host window / file of a module handle (hand_rma.c, hand_io.c), for
 * MPI_T variables bound to one: 0, or MW_ERR_WIN / MW_ERR_FILE. */
int mw_win_hget(uint32_t h, MPI_Win *out);
int mw_file_hget(uint32_t h, MPI_File *out);
/* Processes on the other side of c: its size, or the remote group's size
 * for an intercommunicator (how many blocks a collective moves). */
int mw_peers(MPI_Comm c);
/* Same with a 64-bit count: the n blocks of a collective (count x peers),
 * which must not be truncated to int before they are checked. */
int mw_buf_at64(rt_instance *inst, uint32_t addr, int64_t disp_bytes, int64_t count,
                const mw_dtype *dt, void **out);

/* The block a process of an intracommunicator collective sends to itself
 * (its own block of a gather, scatter, allgather or alltoall, the root's
 * for a rooted one; none with MPI_IN_PLACE): `sent` bytes into a receive
 * block of `room` bytes.  Sizes that differ are erroneous (a collective's
 * type signatures must match, so must the amounts sent and received), and
 * the host libraries do not all catch it: MPICH 4.0 copies a longer block
 * whole past the receive block (fuzz-bridge: a host write past linear
 * memory in MPI_Allgatherv) and asserts (ends the process) on a shorter
 * one that splits an element.  MW_ERR_TRUNCATE if they differ, else 0
 * (always for an intercommunicator: no process is its own peer there). */
int mw_own_block(MPI_Comm c, int64_t sent, int64_t room);
/* Whether c is an intercommunicator, this process's rank in c, and a
 * host type's size (the collectives' argument checks ask them often). */
static inline int mw_is_inter(MPI_Comm c)
{
	int inter = 0;
	MPI_Comm_test_inter(c, &inter);
	return inter;
}

static inline int mw_my_rank(MPI_Comm c)
{
	int r = 0;
	MPI_Comm_rank(c, &r);
	return r;
}

static inline MPI_Count mw_type_size(MPI_Datatype t)
{
	MPI_Count n = 0;
	MPI_Type_size_x(t, &n);
	return n;
}

/* A reduction's send buffer (sn elements of d at host address sp) and its
 * receive buffer (rn at rp) must not overlap: MPI forbids aliasing them,
 * and MPICH 4.0's local copy asserts (ends the process) on an overlap
 * (fuzz-bridge: MPI_Scan, MPI_Ireduce_scatter).  Checked for types
 * without holes only (strided buffers may interleave without sharing a
 * byte).  0 or MW_ERR_BUFFER. */
int mw_disjoint(const void *sp, int64_t sn, const void *rp, int64_t rn, const mw_dtype *d);
struct mw_call;
/* MPI_Pack/MPI_Unpack (and their external32 forms): n elements of d at
 * host address buf (their span, holes included) and the `bytes` packed
 * bytes from position pos of host buffer packed must not overlap:
 * aliasing them is erroneous, and MPICH 4.0 copies with memcpy over the
 * overlap (fuzz-bridge, ASan memcpy-param-overlap).  0, or 1 with
 * MPI_ERR_BUFFER raised naming argument arg in *ret. */
int mw_pack_disjoint(const struct mw_call *k, const void *buf, int64_t n,
                     const mw_dtype *d, const void *packed, int64_t pos,
                     int64_t bytes, const char *arg, uint32_t *ret);
/* MPI_Dims_create's dims (n entries at d, host pointer): no negative
 * entry, and the product of the nonzero ones divides nnodes.  0 or
 * MW_ERR_DIMS. */
int mw_dims_ok(int nnodes, int n, const int32_t *d);
/* 0 if c has a cartesian topology, else MW_ERR_TOPOLOGY (the generated
 * cartesian queries check it: MPICH 4.0's MPI_Cart_get crashes without;
 * tests/fuzz-bridge/open/cart-get-no-topology.c). */
int mw_comm_cart(MPI_Comm c);

/* In/out offsets and argument arrays: what the host library reads from
 * module memory while it runs must be read once and checked as read.
 *
 * mw_pos_in: the module int at addr (an in/out offset such as MPI_Pack's
 * position), read once into *val and range-checked 0 <= *val <= limit;
 * *p gets its host pointer for writing the result back.  0, or MW_ERR_ARG
 * (addr off linear memory, or the value out of range). */
int mw_pos_in(rt_instance *inst, uint32_t addr, int64_t limit, int32_t **p,
              int32_t *val);

/* A host snapshot of a module int array (counts, displacements, datatype
 * handles, request handles) that the host reads during a call: copied before
 * it is checked, and the copy, not linear memory, is what the library gets
 * (the module, or the library writing a receive buffer, may change the
 * original meanwhile).  Up to MW_SNAP_SMALL elements live in the snapshot
 * itself (on the caller's stack, or in a request's keep record for a
 * nonblocking call); larger arrays are malloc'd.  Zero-initialize, then
 * mw_snap_in: 0, MW_ERR_ARG (off linear memory, n < 0) or MW_ERR_NO_MEM;
 * mw_snap_free releases (safe on a zeroed or failed snapshot). */
#define MW_SNAP_SMALL 16
typedef struct mw_snap {
	int32_t *v;
	int32_t small[MW_SNAP_SMALL];
} mw_snap;
int mw_snap_in(rt_instance *inst, mw_snap *s, uint32_t addr, int64_t n);
/* The same, with zeros after the n elements up to cap (>= n): for a host
 * library known to read past an array's end (MPICH 4.0's neighborhood
 * collectives on a distributed graph read the counts by the other
 * degree), what it reads there is a count of 0, not module or host data. */
int mw_snap_pad(rt_instance *inst, mw_snap *s, uint32_t addr, int64_t n, int64_t cap);
void mw_snap_free(mw_snap *s);
/* Releases all the snapshots of a call (pointers to them). */
#define MW_SNAPS_FREE(...) do { mw_snap *mw_s_[] = { __VA_ARGS__ };            \
	for (size_t mw_i_ = 0; mw_i_ < sizeof mw_s_ / sizeof mw_s_[0]; mw_i_++) \
		mw_snap_free(mw_s_[mw_i_]); } while (0)

/* A module status as it lies in linear memory (ABI.md: 24 bytes). */
typedef struct mw_status {
	int32_t source, tag, error, cancelled;
	int64_t ucount;
} mw_status;
/* mw_status_out on a checked host pointer (NULL = MPI_STATUS_IGNORE);
 * err as in mw_status_out_err.  mw_status_get: mw_status_in from one. */
void mw_status_put(mw_status *m, const MPI_Status *s, int err);
void mw_status_get(const mw_status *m, MPI_Status *s);
/* Status: host -> module (addr 0 = MPI_STATUS_IGNORE); MPI_ERROR is left
 * as the module had it.  _err also converts MPI_ERROR: for the statuses of
 * a multiple-completion call that returned MPI_ERR_IN_STATUS. */
void mw_status_out(rt_instance *inst, uint32_t addr, const MPI_Status *s);
void mw_status_out_err(rt_instance *inst, uint32_t addr, const MPI_Status *s);
/* Module status -> host status with the same byte count, source, tag. */
int mw_status_in(rt_instance *inst, uint32_t addr, MPI_Status *s);

/* ---- typed handlers (src/mpi/gen/args.py; docs/ARCHITECTURE.md) --------
 * A typed procedure's generated entry (glue.c, mwg_NAME) checks and
 * converts its arguments and calls mwh_NAME(k, <host values>): k says the
 * instance, the procedure's name and the module handle of the object
 * whose error handler a failure goes to; mw_call_ret/mw_call_fail are
 * mw_ret/mw_fail on it. */
typedef struct mw_call {
	rt_instance *inst;
	const char *proc;
	uint32_t obj;
	int win;   /* obj is a window (one-sided procedures): failures go to its
	            * error handler; 2: a file (MPI-IO), the same */
	int lc;    /* a collective whose ranks agree on the arguments (classes
	            * vcomm, rcomm): the class of this rank's first failing
	            * check, 0 if none; the handler shares it before the host
	            * call, and a value whose check failed or did not run is
	            * null */
} mw_call;
/* Class rcomm: the intracommunicator of a call with a root, and whether
 * this process is the root.  mw_root_in: MW_ERR_COMM for MPI_COMM_NULL or
 * an intercommunicator (hand_dyn.c). */
typedef struct mw_root {
	MPI_Comm h;
	int am_root;
} mw_root;
int mw_root_in(uint32_t comm, int root, mw_root *r);
/* Class spcmd: the commands of a spawn (MPI_Comm_spawn's command, argv,
 * maxprocs, info; MPI_Comm_spawn_multiple's arrays of them), checked and
 * prepared at the root only by mw_spawn_in: each command opened beneath
 * the grants and copied privately (the children run that copy, never the
 * name again), its argv read, its info filtered.  At the other ranks and
 * after a failure: n 0.  mw_spawn_free removes the copies (hand_dyn.c). */
typedef struct mw_spawn {
	int n;              /* commands prepared */
	int total;          /* the sum of their maxprocs; -1 if none */
	struct spcmd *sc;   /* n of them */
} mw_spawn;
int mw_spawn_in(rt_instance *inst, const char *proc, mw_spawn *sp, int multi, uint32_t count,
                uint32_t cmds, uint32_t argvs, uint32_t maxprocs, uint32_t infos);
void mw_spawn_free(mw_spawn *sp);
/* Class errcodes: a spawn's array_of_errcodes out, p NULL for
 * MPI_ERRCODES_IGNORE, else n elements inside linear memory: at the root
 * one per child (sp's total), elsewhere the module's own count (mine: its
 * maxprocs for MPI_Comm_spawn, if positive; none for spawn_multiple).
 * mw_errcodes_in: MW_ERR_ARG if off memory (hand_dyn.c). */
typedef struct mw_errcodes {
	int32_t *p;
	int n;
	uint32_t addr;
} mw_errcodes;
int mw_errcodes_in(rt_instance *inst, mw_errcodes *e, uint32_t addr, int am_root,
                   const mw_spawn *sp, int32_t mine);
/* The MPI tool information interface's classes (args.py; hand_t.c).  A
 * failure of an MPI_T entry is returned as its code (MPI_T invokes no
 * error handler), except one that reaches outside linear memory: the
 * bridge's usual way (mw_t_fail). */
struct t_var;
struct t_sess;
uint32_t mw_t_fail(rt_instance *inst, int cls, const char *proc);
int mw_t_live(void);                     /* MPI_T_init_thread not yet finalized */
int mw_t_index_ok(int which, int32_t index);   /* tindex: 0 cvar, 1 pvar, 2 category */
int mw_t_enum_get(uint32_t m, MPI_T_enum *h);  /* tenum */
struct t_var *mw_t_cvar(uint32_t m);           /* tcvh */
int mw_t_pvar(uint32_t m, uint32_t sess, int all_ok, struct t_var **v);   /* tpvh */
/* tname: a string the host writes, with its in/out length read once (len
 * the host's copy, written back by mw_t_str_back). */
typedef struct mw_tstr {
	char *buf;
	int32_t *mlen;
	int len;
} mw_tstr;
int mw_t_str_out(rt_instance *inst, uint32_t name, uint32_t len, mw_tstr *s);
void mw_t_str_back(const mw_tstr *s);
/* tsess (in) and tsess_io (in/out: the slot, read once): a performance
 * variable session, module handle and record. */
typedef struct mw_tsess {
	int32_t *slot;
	uint32_t mod;
	struct t_sess *s;
} mw_tsess;
int mw_t_sess_get(uint32_t m, mw_tsess *r);
/* tcvh_io, tpvh_io: a variable handle in/out (the slot, read once). */
typedef struct mw_tvar_io {
	int32_t *slot;
	uint32_t mod;
	struct t_var *v;
} mw_tvar_io;
/* tval out: a variable's value, count x size bytes (strings through a
 * host stage: mw_t_val_done after the call, whatever happened). */
typedef struct mw_tval {
	void *host;
	char *stage;
	char *mod;
	int n;
} mw_tval;
int mw_t_val_out(rt_instance *inst, const struct t_var *v, uint32_t buf, mw_tval *b);
void mw_t_val_done(mw_tval *b, int ok);
int mw_t_val_in(rt_instance *inst, const struct t_var *v, uint32_t buf, const void **out);
/* Class gpath: a file name the handler may open beneath the WASI grants
 * only, with mw_gpath_open (wasi_sandbox_open's contract: the host path
 * to give the library in hp) (hand_io.c). */
typedef struct mw_gpath {
	const char *guest;
} mw_gpath;
int mw_gpath_open(const mw_gpath *g, int flags, unsigned mode, char *hp, size_t hpsize);
/* A file (hand_io.c): its module handle looked up (NULL if it is not an
 * open file); a failure of a typed MPI-IO call (class, or host code) raised
 * on k->obj's error handler with hand_io.c's line; a file in/out
 * (MPI_File_close). */
struct mwf;
struct mwf *mw_file_of(uint32_t fh);
uint32_t mw_file_kfail(const mw_call *k, int cls);
uint32_t mw_file_kret(const mw_call *k, int rc);
typedef struct mw_file_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_File h;
} mw_file_io;
/* A window (hand_rma.c): its module handle looked up (NULL if it is not a
 * live window), and its module error handler. */
struct rma_win;
struct rma_win *mw_win_of(uint32_t win);
/* Frees the bridge's own windows (hand_rma.c), before MPI_Finalize. */
void mw_rma_fini(void);
uint32_t mw_win_eh(uint32_t win);   /* (also below, with the large-count helpers) */
/* The one-sided classes of hand_rma.c (src/mpi/gen/args.py): window
 * memory (loc: its module address, host pointer), a window in/out (MPI_Win_free: slot,
 * the handle it held, its record); whether a window is a shared-memory
 * one (swin); the host displacement of count elements of dt at the target's
 * module displacement disp, checked against what the target exposes
 * (tdisp: 0, MW_ERR_COUNT or MW_ERR_RMA_RANGE). */
typedef struct mw_loc {
	uint32_t mod;
	void *p;
} mw_loc;
/* An op (class op of the generated entries, every chapter's: reductions,
 * accumulates, MPI_Op_commutative): its module handle and host handle. */
typedef struct mw_op_ref {
	uint32_t mod;
	MPI_Op h;
} mw_op_ref;
typedef struct mw_win_io {
	uint32_t *slot;
	uint32_t mod;
	struct rma_win *w;
} mw_win_io;
int mw_win_shared(const struct rma_win *w);
int mw_win_target(const struct rma_win *w, int rank, uint32_t disp, int count,
                  const struct mw_dtype *dt, MPI_Aint *out);
/* An in/out request or message argument: the module slot (checked), the
 * module handle it held when the call began (read once) and its host
 * handle. */
typedef struct mw_req_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_Request h;
} mw_req_io;
typedef struct mw_msg_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_Message h;
} mw_msg_io;
/* An array of n module requests (hand_p2p.c): slot is the module array,
 * was a snapshot of its handles when the call began (module code may run
 * during a wait and rewrite the array; the slots released afterwards are
 * those that were waited for), h their host handles.  mw_reqs_in
 * (zero-initialized r): 0, MW_ERR_COUNT (n < 0), MW_ERR_ARG (off linear
 * memory), MW_ERR_REQUEST (a live request twice, or a bad handle),
 * MW_ERR_NO_MEM; mw_reqs_free releases it whatever mw_reqs_in gave. */
typedef struct mw_reqs {
	int n;
	uint32_t *slot;
	mw_snap was;
	MPI_Request *h;
	MPI_Request small[16];
} mw_reqs;
int mw_reqs_in(rt_instance *inst, mw_reqs *r, uint32_t addr, int32_t n);
void mw_reqs_free(mw_reqs *r);

/* ---- typed handlers of the datatypes chapter (hand_type.c) -------------
 * A packing call's in/out position (class pos): its slot, and the value it
 * held when the call began, read once and checked in [0, size]. */
typedef struct mw_pos {
	int32_t *slot;
	int32_t v;
} mw_pos;
/* The generated check of a pos argument at module address addr into a
 * buffer of size bytes: 0, or 1 with the refusal (MW_ERR_ARG, the line
 * naming the argument and its value) raised on k and its result in *ret. */
int mw_pos_arg(const mw_call *k, uint32_t addr, int32_t size, mw_pos *p, uint32_t *ret);
/* need bytes of room after position p in a buffer of size bytes (what the
 * call writes or reads there), checked before the host library touches
 * buffer + position: 0, or 1 with MW_ERR_TRUNCATE raised on k (the line
 * says how many bytes are left and needed) and its result in *ret. */
int mw_pos_room(const mw_call *k, const mw_pos *p, int32_t size, int64_t need,
                uint32_t *ret);
/* A datatype in/out (MPI_Type_commit, MPI_Type_free): the module slot, the
 * handle it held when the call began, its host handle. */
typedef struct mw_dtype_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_Datatype h;
} mw_dtype_io;
/* A communicator or group in/out (MPI_Comm_free, MPI_Group_free): the
 * same, for hand_comm.c. */
typedef struct mw_comm_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_Comm h;
} mw_comm_io;
typedef struct mw_group_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_Group h;
} mw_group_io;
/* An error handler in/out (MPI_Errhandler_free), for hand_err.c. */
typedef struct mw_errh_io {
	uint32_t *slot;
	uint32_t mod;
	MPI_Errhandler h;
} mw_errh_io;
/* A keyval: module handle and host key (class keyval), and in/out
 * (MPI_Comm_free_keyval), for hand_attr.c. */
typedef struct mw_keyval_ref {
	uint32_t mod;
	int h;
} mw_keyval_ref;
typedef struct mw_keyval_io {
	uint32_t *slot;
	uint32_t mod;
	int h;
} mw_keyval_io;
/* A datatype by its module handle and its layout (class dtref). */
typedef struct mw_dtype_ref {
	uint32_t mod;
	mw_dtype *d;
} mw_dtype_ref;
/* n module MPI_Aint words widened into a host array (class aints; n < 0 is
 * an empty array): 0, MW_ERR_ARG (off linear memory) or MW_ERR_NO_MEM.
 * mw_aints_free releases it (safe on a zeroed or failed one). */
typedef struct mw_aints {
	MPI_Aint *v;
	MPI_Aint small[MW_SNAP_SMALL];
} mw_aints;
int mw_aints_in(rt_instance *inst, mw_aints *a, uint32_t addr, int32_t n);
void mw_aints_free(mw_aints *a);
/* n module datatype handles (class dtypes): _in snapshots them (0,
 * MW_ERR_ARG or MW_ERR_NO_MEM; n < 0 is an empty array), _get looks each up
 * into h (0 or the lookup's class); _free releases. */
typedef struct mw_dtypes {
	int n;
	mw_snap s;
	MPI_Datatype *h;
	MPI_Datatype small[MW_SNAP_SMALL];
} mw_dtypes;
int mw_dtypes_in(rt_instance *inst, mw_dtypes *t, uint32_t addr, int32_t n);
int mw_dtypes_get(mw_dtypes *t);
void mw_dtypes_free(mw_dtypes *t);
/* Errors.  mw_ret: host return code of `proc` on communicator comm (a
 * module handle, or UINT32_MAX for "no communicator": MPI_COMM_WORLD's
 * handler) -> the module's return value, after the communicator's error
 * handler ran.  mw_fail: same for an error class found by the bridge. */
uint32_t mw_ret(rt_instance *inst, int rc, uint32_t comm, const char *proc);
uint32_t mw_fail(rt_instance *inst, int cls, uint32_t comm, const char *proc);
/* mw_fail for a bad argument: the line names the argument and its value
 * ("MPI_Pack: argument position = -8 is outside [0, 64]"). */
uint32_t mw_fail_arg(rt_instance *inst, int cls, uint32_t comm, const char *proc,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* What a refusal of class cls by the bridge means, in a few words ("buffer
 * lies outside linear memory"). */
const char *mw_class_why(int cls);
int mw_class_out(int hostcode);
/* Module error class -> the host's class number. */
int mw_class_in(int cls);
/* Host error code -> module code (user codes from MPI_Add_error_code/class
 * are numbered above MPI_ERR_LASTCODE); module code -> host code (-1 for
 * predefined classes) and its module class, or MW_ERR_ARG if unknown. */
int mw_code_out(int hostcode);
int mw_code_in(int32_t code, int *host, int32_t *cls);
/* How many user codes MPI_Add_error_code/class have made (hand_err.c). */
uint32_t mw_ucode_count(void);
/* Runs comm's error handler for a module code the program raises itself
 * (MPI_Comm_call_errhandler); returns only if the handler returns. */
void mw_call_errh(rt_instance *inst, int code, uint32_t comm, const char *proc);
#define MW_NOCOMM UINT32_MAX
/* The same for an object with its own error handler (a window): eh is
 * its module handler, obj the handle a user handler receives. */
uint32_t mw_ret_eh(rt_instance *inst, int rc, uint32_t eh, uint32_t obj,
                   const char *proc);
uint32_t mw_fail_eh(rt_instance *inst, int cls, uint32_t eh, uint32_t obj,
                    const char *proc);
static inline uint32_t mw_call_ret(const struct mw_call *k, int rc)
{
	if (k->win == 2)
		return mw_file_kret(k, rc);
	if (k->win)
		return mw_ret_eh(k->inst, rc, mw_win_eh(k->obj), k->obj, k->proc);
	return mw_ret(k->inst, rc, k->obj, k->proc);
}
static inline uint32_t mw_call_fail(const struct mw_call *k, int cls)
{
	if (k->win == 2)
		return mw_file_kfail(k, cls);
	if (k->win)
		return mw_fail_eh(k->inst, cls, mw_win_eh(k->obj), k->obj, k->proc);
	return mw_fail(k->inst, cls, k->obj, k->proc);
}
void mw_call_errh_eh(rt_instance *inst, int code, uint32_t eh, uint32_t obj,
                     const char *proc);

/* A module error handler function: table entry fn of type (i32, i32, i32)
 * (declared with the trailing ...) or (i32, i32) (without); NULL if
 * neither.  hand_err.c. */
const rt_func *mw_errh_fn(rt_instance *inst, uint32_t fn);
/* A module error handler of function fn (of mw_errh_fn's type, else
 * MW_ERR_ARG) into *o, a slot the caller checked: MPI_Comm_, MPI_Win_ and
 * MPI_File_create_errhandler's; failures go to k's object.  hand_err.c. */
uint32_t mw_errh_create(const struct mw_call *k, uint32_t fn, uint32_t *o);

/* Callbacks: a trap inside a module callback is kept here and raised
 * when the MPI call returns (mw_after). */
extern __thread int mw_pending_trap;
uint32_t mw_after(rt_instance *inst, uint32_t r);

/* User-defined ops (hand_coll.c): the module function of module op handle op
 * (1, or 0 if op is not a live user op), and the call of such a function
 * on host buffers, as the host's MPI_User_function (staging through module
 * memory what lies outside it; a trap is left in mw_pending_trap). */
int mw_uop_fn(uint32_t op, uint32_t *fn);
void mw_uop_apply(uint32_t fn, void *in, void *inout, int *len, MPI_Datatype *dt);

/* Every address a module function returns is checked here before the
 * host touches it.  mw_block_bad: NULL if [addr, addr+len) is nonzero,
 * inside current linear memory, does not wrap and addr is a multiple of
 * align (a power of two, 1 for none), else why not, in a few words. */
const char *mw_block_bad(rt_instance *inst, uint32_t addr, uint64_t len, uint32_t align);
#define MW_MALLOC_ALIGN 8
/* Module allocation through its exported malloc/free: a block of size
 * bytes that passed mw_block_bad, or 0 (no memory, a trap left in
 * mw_pending_trap, or a bad block: then one line on stderr naming proc
 * says so, and the caller's MPI_ERR_NO_MEM follows). */
uint32_t mw_malloc(rt_instance *inst, uint32_t size, const char *proc);
void mw_free(rt_instance *inst, uint32_t addr);

/* ---- MPI-4 large-count versions (hand_bigc.c; glue.c's mwb_*_c) ---------
 * Each forwards to the int-count host function of its procedure; mw_bigc
 * is one call's state: what it allocated (scratch in module memory for
 * MPI_Count out-arguments and arrays, contiguous types for large counts),
 * released by mw_bigc_end, which copies the out-arguments back on success.
 * Each helper: 0, or 1 with the failure raised (on the call's object,
 * naming the argument) and its result in x->r. */
enum { MW_BIGC_COMM, MW_BIGC_WIN, MW_BIGC_FILE };
#define MW_BIGC_MAX 8
typedef struct mw_bigc {
	rt_instance *inst;
	const char *proc;
	int kind;          /* what obj is: MW_BIGC_COMM/WIN/FILE */
	uint32_t obj, r;
	int n, ntype;
	struct { uint32_t scratch, dst; } m[MW_BIGC_MAX];   /* dst 0: none */
	uint32_t type[3];   /* MPI_Get_accumulate_c has three counts */
} mw_bigc;
void mw_bigc_begin(mw_bigc *x, rt_instance *inst, const char *proc, int kind,
                   uint32_t obj);
uint32_t mw_bigc_end(mw_bigc *x);
/* Raises class cls on x's object (its error handler), the detail naming
 * the argument; always 1, x->r the result. */
__attribute__((format(printf, 3, 4)))
int mw_bigc_fail(mw_bigc *x, int cls, const char *fmt, ...);
/* An MPI_Count argument the int version takes as an int. */
int mw_bigc_int(mw_bigc *x, const char *arg, uint64_t v, uint32_t *out);
/* A count with its datatype: passed through if it fits in an int, else as
 * one element of a contiguous type of v elements of dt. */
int mw_bigc_xfer(mw_bigc *x, const char *arg, uint64_t v, uint32_t dt,
                 uint32_t *count, uint32_t *type);
/* An MPI_Count out (inout: in/out) argument at addr: *out is a module int
 * the int version writes instead, copied back widened by mw_bigc_end. */
int mw_bigc_out(mw_bigc *x, const char *arg, uint32_t addr, int inout,
                uint32_t *out);
/* An array of n MPI_Counts at addr: *out is a copy as module ints (n <= 0:
 * addr itself, for arrays the procedure does not read here). */
int mw_bigc_arr(mw_bigc *x, const char *arg, uint32_t addr, int64_t n,
                uint32_t *out);
/* Array lengths: comm's size (peers: the remote group's for an
 * intercommunicator), its topology's degree (out or in); -1 if comm is
 * not a valid communicator (the int version then says so). */
int64_t mw_bigc_size(uint32_t comm, int peers);
int64_t mw_bigc_deg(uint32_t comm, int out);
/* Whether this process is the root of a rooted collective. */
int mw_bigc_root(uint32_t comm, uint32_t root);
/* The host type of n (>= 0) elements of old: MPI_Type_contiguous_c on an
 * MPI-4 host, else mw_bigc_split with chunks of 2^30.  Uncommitted. */
int mw_bigc_contig(MPI_Count n, MPI_Datatype old, MPI_Datatype *out);
/* The same from MPI-3 constructors only: q = n / chunk blocks of chunk
 * elements, then the n % chunk remaining, resized to contiguous's bounds. */
int mw_bigc_split(MPI_Count n, MPI_Count chunk, MPI_Datatype old, MPI_Datatype *out);
/* While a large-count version runs its int version, the name errors give
 * (raise_eh, hand_io.c's f_raise take it and clear it). */
extern __thread const char *mw_proc_as;
uint32_t mw_fail_eh_arg(rt_instance *inst, int cls, uint32_t eh, uint32_t obj,
                        const char *proc, const char *detail);
/* Window's error handler (UINT32_MAX if win is not a window: the int
 * versions then raise on MPI_COMM_WORLD); 
 * a failure raised on file fh's handler. */
uint32_t mw_win_eh(uint32_t win);
uint32_t mw_file_fail(rt_instance *inst, int cls, uint32_t fh, const char *proc,
                      const char *detail);
/* In- and out-degree of comm's topology (hand_nbc.c). */
int mw_degrees(MPI_Comm c, int *in, int *out);

extern rt_instance *mw_inst;
extern int mw_is_active, mw_world_rank, mw_finalized;

/* MPI_Abort(c, code) after stdio is flushed and forwarded; never returns. */
_Noreturn void mw_abort_job(MPI_Comm c, int code);

/* Start and end of the bridge's life: init after the host MPI_Init(_thread)
 * (ends the process if the launcher does not match the library); fini
 * frees the bridge's own host objects before the host MPI_Finalize; clear
 * forgets every handle after it. */
void mw_tables_init(void);
void mw_tables_fini(void);
/* Completes the requests MPI_Request_free left to the bridge (the first
 * step of mw_tables_fini, which repeats it). */
void mw_orphans_wait(void);
/* The same for any thread: tests them under the bridge's lock until none
 * is left (MPI_Comm_disconnect). */
void mw_orphans_complete(void);
/* Releases those that are complete, without waiting (MPI_File_close). */
void mw_orphans_test(void);
/* Nonblocking file requests still pending (hand_io.c): MPI_Finalize is
 * refused while any is (erroneous; MPICH 4.0 with UCX asserts at
 * MPI_Finalize on the buffer it still holds: found by fuzz-bridge). */
int mw_io_pending(void);
void mw_tables_clear(void);

#endif
