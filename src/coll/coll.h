/* coll.h - model-based collective tuning (DESIGN.md "Collective tuning").
 *
 * `mpirun -np N mpiwasm tune` measures the job's network parameters
 * (Hockney model: a message of n bytes costs alpha + n*beta; a reduction
 * costs gamma per byte), models each algorithm of the host library's
 * collectives with them, and writes Open MPI's coll/tuned dynamic-rules
 * file choosing the fastest per (communicator size, message size).  Later
 * `mpiwasm` runs of the same rank count on the same host point Open MPI at
 * that file (MCA parameters in the environment, set before MPI_Init), so
 * the library's own algorithms run, chosen by the model.
 *
 * Everything here is MPI-free (it is part of the engine library); the
 * measurement itself runs in the bridge: mpib_coll_measure below is
 * implemented in src/mpi/coll_measure.c. */
#ifndef MPIWASM_COLL_H
#define MPIWASM_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The measured machine: seconds, seconds per byte. */
typedef struct coll_net {
	double alpha;    /* latency of one message */
	double beta;     /* transfer time per byte */
	double gamma;    /* MPI_SUM of doubles, per byte */
} coll_net;

/* Open MPI's COLLTYPE enum (ompi/mca/coll/base/coll_base_functions.h,
 * 4.1): the collective ids of the dynamic-rules file. */
enum { COLL_ID_ALLREDUCE = 2, COLL_ID_BCAST = 7 };

/* Open MPI 4.1 coll/tuned algorithm numbers (ompi_info --param coll tuned
 * --level 9: coll_tuned_allreduce_algorithm, coll_tuned_bcast_algorithm). */
enum {
	COLL_AR_LINEAR = 1,          /* basic_linear: linear reduce + linear bcast */
	COLL_AR_NONOVERLAP = 2,      /* nonoverlapping: tuned reduce, then tuned bcast */
	COLL_AR_RDBL = 3,            /* recursive_doubling */
	COLL_AR_RING = 4,            /* ring */
	COLL_AR_SEGRING = 5,         /* segmented_ring */
	COLL_AR_RABENSEIFNER = 6,    /* rabenseifner: reduce-scatter + allgather */
	COLL_AR_COUNT = 7
};
enum {
	COLL_BC_LINEAR = 1,          /* basic_linear */
	COLL_BC_CHAIN = 2,           /* chain (fanout chains), segmented */
	COLL_BC_PIPELINE = 3,        /* pipeline: one chain, segmented */
	COLL_BC_SPLIT_BINARY = 4,    /* split_binary_tree */
	COLL_BC_BINARY = 5,          /* binary_tree, segmented */
	COLL_BC_BINOMIAL = 6,        /* binomial tree, segmented */
	COLL_BC_KNOMIAL = 7,         /* knomial tree (radix 4, the MCA default) */
	COLL_BC_SCATTER_ALLGATHER = 8,       /* binomial scatter + recursive-doubling allgather */
	COLL_BC_SCATTER_ALLGATHER_RING = 9,  /* binomial scatter + ring allgather */
	COLL_BC_COUNT = 10
};

/* One choice: algorithm number, fanout and segment size as written in the
 * rules file (0 = the algorithm's default / no segmentation). */
typedef struct coll_choice {
	int alg, fanout, segsize;
	double t;        /* the model's time for it, seconds */
} coll_choice;

/* The algorithm's name as Open MPI spells it, or NULL for a bad number. */
const char *coll_alg_name(int coll_id, int alg);

/* The model's time of one call of algorithm `alg` of collective `coll_id`
 * on p ranks for n bytes (count x datatype size), with the given fanout
 * and segment size (0: none).  Negative when the algorithm does not apply
 * (unknown number). */
double coll_cost(int coll_id, int alg, int p, double n, int fanout, int segsize,
                 const coll_net *net);

/* The fastest algorithm (with its best fanout/segment size) for p ranks
 * and n bytes.  Ties (within 2%) go to the earlier entry of a fixed
 * preference order (the simpler, unsegmented algorithms first). */
coll_choice coll_choose(int coll_id, int p, double n, const coll_net *net);

/* Writes an Open MPI (4.x classic format) dynamic-rules file for
 * MPI_Allreduce and MPI_Bcast: one communicator-size section for each
 * p in 2..np (above np: Open MPI's fixed rules, algorithm 0), and in each,
 * message-size ranges (starting at 0) with the chosen algorithm.  `net`
 * is recorded in comments.  Returns 0, or -1 on an I/O error. */
int coll_rules_write(FILE *f, int np, const coll_net *net, const char *library,
                     const char *host);

/* The rules file's path for this host name, rank count and library in
 * the cache directory: DIR/coll/HOST-npN-LIB.rules (HOST and LIB reduced
 * to [a-z0-9.-]: "node1-np4-open-mpi-4.1.4.rules").  Returns 0, or -1 if it does not fit. */
int coll_rules_path(const char *cache_dir, const char *host, int np,
                    const char *library, char *buf, size_t size);

/* True when `library` (mpib_library()) is an Open MPI. */
bool coll_library_supported(const char *library);

/* Before MPI_Init of a run: if this is an Open MPI job of N > 1 ranks
 * (OMPI_COMM_WORLD_SIZE), the rules file for this host and N exists in
 * `cache_dir`, and the user set no OMPI_MCA_coll_tuned_* variable (but
 * _verbose: the user's settings win), sets OMPI_MCA_coll_tuned_use_dynamic_rules=1 and
 * OMPI_MCA_coll_tuned_dynamic_rules_filename.  With `log` (or
 * MPIWASM_COLL_LOG=1 in the environment) says on stderr what it did and
 * why.  Returns 1 if the rules were applied, 0 if not. */
int coll_apply(const char *cache_dir, const char *library, bool log);

/* ---- implemented by the MPI bridge (src/mpi/coll_measure.c) ------------ */

/* The measurement, inside a job: MPI_Init, ping-pong between rank 0 and
 * every other rank at a few sizes (least-squares fit of alpha and beta
 * over them), a timed MPI_Reduce_local of doubles (gamma, the slowest
 * rank's), MPI_Finalize.  Every rank gets the same figures.  *np, *rank:
 * MPI_COMM_WORLD's; *writer: true on the lowest rank of each host
 * (MPI_COMM_TYPE_SHARED), the one that writes the host's file.  Returns 0,
 * or -1 with one line in err. */
int mpib_coll_measure(coll_net *net, int *np, int *rank, int *writer,
                      char *err, size_t errlen);

#endif
