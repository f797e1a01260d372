/* coll_args.h - the argument rules of the collective operations, shared
 * by their blocking (hand_coll.c) and nonblocking (hand_nbc.c) forms: see
 * coll_args.c. */
#ifndef MPIWASM_COLL_ARGS_H
#define MPIWASM_COLL_ARGS_H

#include "mpib_int.h"

/* One collective call's arguments as checked: what the host library gets.
 * Filled by mw_coll_begin and one mw_coll_<shape> function. */
typedef struct mw_coll {
	rt_instance *inst;
	MPI_Comm c;
	int n;               /* peers: blocks at the root or in an all-to-all buffer */
	int inter;           /* c is an intercommunicator */
	int root;            /* rooted: host root (a rank, MPI_ROOT or MPI_PROC_NULL) */
	int all;             /* rooted: the root-only arguments are significant here */
	int own;             /* rooted: this process's own block is significant here */
	int in_place;        /* MPI_IN_PLACE where it is allowed */
	mw_dtype *sd, *rd;   /* never NULL: a stand-in for MPI_BYTE where not significant */
	void *sp, *rp;       /* host buffers (the module address unchecked where not significant) */
	int *scounts, *sdispls, *rcounts, *rdispls;   /* snapshots (v and w forms) */
	MPI_Datatype *stypes, *rtypes;   /* w form: per-peer host types (malloc'd) */
	MPI_Aint *sadispls, *radispls;   /* neighborhood w form: host MPI_Aint copies */
	int indeg, outdeg;   /* neighborhood: degrees of c's topology */
	int cap;             /* snapshots padded with zeros to this many entries */
	mw_snap *snap;       /* where snapshots go (the caller's, or malloc'd: heap) */
	int nsnap, maxsnap;
	int heap;            /* snap is malloc'd here (a request may take it) */
	const char *arg;     /* the argument refused, for mw_coll_fail */
	char detail[160];    /* why, if more than the class says */
} mw_coll;

/* Snapshots a call may take (counts, displacements, types; both sides). */
#define MW_COLL_SNAPS 6

/* Starts a call on module communicator comm (must be live): 0 or the
 * class.  snap: room for maxsnap snapshots (NULL, 0 for a shape without
 * arrays; NULL, maxsnap for room malloc'd when the first is taken, which
 * a request can own: mw_coll_take), which mw_coll_end or the request
 * owning them releases. */
int mw_coll_begin(mw_coll *a, rt_instance *inst, uint32_t comm, mw_snap *snap,
                  int maxsnap);
/* Releases the snapshots (a blocking call's) and the w form's arrays not
 * taken (set to NULL) by the caller. */
void mw_coll_end(mw_coll *a);
/* The malloc'd snapshots (NULL if none), *n of them, for a request to
 * own (it releases each with mw_snap_free, then the array); a keeps none. */
mw_snap *mw_coll_take(mw_coll *a, int *n);

/* mw_op_arg looks up a reduction's module op opv (class op): 0, or
 * MW_ERR_OP if it is no op or MPI_OP_NULL (which no reduction takes; the
 * host libraries' own checks of it differ). */
int mw_op_arg(uint32_t opv, MPI_Op *h);
/* The refusal of proc with class rc: one line naming the argument. */
uint32_t mw_coll_fail(mw_coll *a, int rc, uint32_t comm, const char *proc);

/* The shapes.  Each: 0, or the class with a->arg naming the argument.
 * gather: scatter 0 for (I)gather, 1 for (I)scatter; allgather: alltoall 1
 * for (I)alltoall (n blocks sent), 0 for (I)allgather (one). */
int mw_coll_bcast(mw_coll *a, uint32_t buf, uint32_t count, uint32_t dt,
                  uint32_t root);
int mw_coll_gather(mw_coll *a, int scatter, uint32_t sb, uint32_t sc, uint32_t sdt,
                   uint32_t rb, uint32_t rcn, uint32_t rdt, uint32_t root);
int mw_coll_gatherv(mw_coll *a, uint32_t sb, uint32_t sc, uint32_t sdt, uint32_t rb,
                    uint32_t rcounts, uint32_t displs, uint32_t rdt, uint32_t root);
int mw_coll_scatterv(mw_coll *a, uint32_t sb, uint32_t scounts, uint32_t displs,
                     uint32_t sdt, uint32_t rb, uint32_t rcn, uint32_t rdt,
                     uint32_t root);
int mw_coll_allgather(mw_coll *a, int alltoall, uint32_t sb, uint32_t sc,
                      uint32_t sdt, uint32_t rb, uint32_t rcn, uint32_t rdt);
int mw_coll_allgatherv(mw_coll *a, uint32_t sb, uint32_t sc, uint32_t sdt,
                       uint32_t rb, uint32_t rcounts, uint32_t rdispls, uint32_t rdt);
int mw_coll_alltoallv(mw_coll *a, uint32_t sb, uint32_t scounts, uint32_t sdispls,
                      uint32_t sdt, uint32_t rb, uint32_t rcounts, uint32_t rdispls,
                      uint32_t rdt);
int mw_coll_alltoallw(mw_coll *a, uint32_t sb, uint32_t scounts, uint32_t sdispls,
                      uint32_t stypes, uint32_t rb, uint32_t rcounts,
                      uint32_t rdispls, uint32_t rtypes);
/* Reductions: the datatype is a->sd (and a->rd); opv is only checked
 * (the caller makes the host op). */
int mw_coll_reduce(mw_coll *a, uint32_t sb, uint32_t rb, uint32_t count,
                   uint32_t dt, uint32_t opv, uint32_t root);
int mw_coll_allreduce(mw_coll *a, uint32_t sb, uint32_t rb, uint32_t count,
                      uint32_t dt, uint32_t opv);
/* The same with a count beyond an int (the host's large-count reductions). */
int mw_coll_reduce64(mw_coll *a, uint32_t sb, uint32_t rb, int64_t count,
                     uint32_t dt, uint32_t opv, uint32_t root);
int mw_coll_allreduce64(mw_coll *a, uint32_t sb, uint32_t rb, int64_t count,
                        uint32_t dt, uint32_t opv);
int mw_coll_reduce_scatter_block(mw_coll *a, uint32_t sb, uint32_t rb,
                                 uint32_t count, uint32_t dt, uint32_t opv);
int mw_coll_reduce_scatter(mw_coll *a, uint32_t sb, uint32_t rb, uint32_t rcounts,
                           uint32_t dt, uint32_t opv);
int mw_coll_reduce_scatter64(mw_coll *a, uint32_t sb, uint32_t rb, const int64_t *counts,
                             uint32_t dt, uint32_t opv);

/* Neighborhood collectives (blocks per neighbour of c's topology):
 * mw_coll_neighbors first (the degrees; the snapshots are padded to the
 * larger, mw_snap_pad says why), then one shape.  nb_allgather: alltoall
 * as in mw_coll_allgather, by degree. */
int mw_coll_neighbors(mw_coll *a);
int mw_coll_nb_allgather(mw_coll *a, int alltoall, uint32_t sb, uint32_t sc,
                         uint32_t sdt, uint32_t rb, uint32_t rcn, uint32_t rdt);
int mw_coll_nb_allgatherv(mw_coll *a, uint32_t sb, uint32_t sc, uint32_t sdt,
                          uint32_t rb, uint32_t rcounts, uint32_t displs,
                          uint32_t rdt);
int mw_coll_nb_alltoallv(mw_coll *a, uint32_t sb, uint32_t scounts,
                         uint32_t sdispls, uint32_t sdt, uint32_t rb,
                         uint32_t rcounts, uint32_t rdispls, uint32_t rdt);
int mw_coll_nb_alltoallw(mw_coll *a, uint32_t sb, uint32_t scounts,
                         uint32_t sdispls, uint32_t stypes, uint32_t rb,
                         uint32_t rcounts, uint32_t rdispls, uint32_t rtypes);
#endif
