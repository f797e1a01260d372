/* coll.h - model-based collective tuning (DESIGN.md "Collective tuning").
 *
 * `mpirun -np N mpiwasm tune` measures the job's network parameters
 * (Hockney model: a message of n bytes costs alpha + n*beta; a reduction
 * costs gamma per byte), on two levels when the job spans hosts (the
 * network between hosts, shared memory inside one), models each algorithm
 * of the host library's collectives (MPI_Allreduce, MPI_Bcast,
 * MPI_Allgather, MPI_Alltoall, MPI_Reduce, MPI_Reduce_scatter,
 * MPI_Barrier) with them, and writes Open MPI's coll/tuned dynamic-rules
 * file choosing the fastest per (communicator size, message size).  Later
 * `mpiwasm` runs of the same rank count on the same host point Open MPI at
 * that file (MCA parameters in the environment, set before MPI_Init), so
 * the library's own algorithms run, chosen by the model.
 *
 * Everything here is MPI-free (it is part of the engine library); the
 * measurement itself runs in the bridge: mpib_coll_tune below is
 * implemented in src/mpi/coll_measure.c and handed to coll_tune by the
 * command. */
#ifndef MPIWASM_COLL_H
#define MPIWASM_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The measured machine: seconds, seconds per byte.  Two levels: ranks
 * are placed in blocks of ppn per host (ranks 0..ppn-1 on the first host,
 * and so on); a message between two hosts costs alpha + m*beta, one
 * inside a host alpha_shm + m*beta_shm.  ppn <= 1 is the one-level model
 * (every message crosses the network, as with one rank per host); ppn >= p
 * is a job on one host (every message is a shared-memory one). */
typedef struct coll_net {
	double alpha;    /* latency of one message between hosts */
	double beta;     /* transfer time per byte between hosts */
	double gamma;    /* MPI_SUM of doubles, per byte */
	int ppn;         /* ranks per host (block placement); <= 1: one level */
	double alpha_shm, beta_shm;   /* the same inside a host */
	/* One-way figures (a ping-pong's half round trip: the sender only
	 * sends, the receiver only receives), for the hops of trees, chains
	 * and linear steps; alpha, beta above are exchange rounds' (every rank
	 * sends and receives at once: rings, recursive doubling).  0: not
	 * measured, the exchange figures stand in. */
	double alpha_1, beta_1, alpha_1shm, beta_1shm;
	int local;       /* ranks on the measuring rank's host: with the rank
	                    count, the rules file's key (not part of the model) */
} coll_net;

/* Open MPI's COLLTYPE enum (ompi/mca/coll/base/coll_base_functions.h,
 * 4.1): the collective ids of the dynamic-rules file. */
enum {
	COLL_ID_ALLGATHER = 0, COLL_ID_ALLREDUCE = 2, COLL_ID_ALLTOALL = 3,
	COLL_ID_BARRIER = 6, COLL_ID_BCAST = 7, COLL_ID_REDUCE = 11,
	COLL_ID_REDUCE_SCATTER = 12
};
/* The collectives tuned, in the order of the rules file. */
#define COLL_NCOLLS 7
extern const int coll_ids[COLL_NCOLLS];
/* "allreduce" (Open MPI's MCA spelling: coll_tuned_<name>_algorithm) and
 * "MPI_Allreduce"; NULL for a collective not tuned. */
const char *coll_name(int coll_id);
const char *coll_title(int coll_id);

/* Open MPI 4.1 coll/tuned algorithm numbers (ompi_info --param coll tuned
 * --level 9: coll_tuned_<collective>_algorithm). */
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
enum {
	COLL_AG_LINEAR = 1,          /* linear gather to rank 0, then its bcast */
	COLL_AG_BRUCK = 2,           /* Bruck: ceil(log2 p) rounds of doubling block counts */
	COLL_AG_RDBL = 3,            /* recursive_doubling (power-of-two p, else bruck) */
	COLL_AG_RING = 4,            /* ring */
	COLL_AG_NEIGHBOR = 5,        /* neighbor exchange (even p, else ring) */
	COLL_AG_TWO_PROC = 6,        /* two_proc (p = 2 only) */
	COLL_AG_COUNT = 7
};
enum {
	COLL_A2A_LINEAR = 1,         /* every send and receive posted at once */
	COLL_A2A_PAIRWISE = 2,       /* p-1 steps of one send-receive */
	COLL_A2A_BRUCK = 3,          /* modified_bruck: log2 p rounds of half the data */
	COLL_A2A_LINEAR_SYNC = 4,    /* linear with a bounded number of requests */
	COLL_A2A_TWO_PROC = 5,       /* two_proc (p = 2 only) */
	COLL_A2A_COUNT = 6
};
enum {
	COLL_BAR_LINEAR = 1,         /* fan-in to rank 0, fan-out */
	COLL_BAR_DOUBLE_RING = 2,    /* a token twice around the ring */
	COLL_BAR_RDBL = 3,           /* recursive_doubling */
	COLL_BAR_BRUCK = 4,          /* bruck (dissemination) */
	COLL_BAR_TWO_PROC = 5,       /* two_proc (p = 2 only) */
	COLL_BAR_TREE = 6,           /* tree: fan-in and fan-out along a binomial tree */
	COLL_BAR_COUNT = 7
};
enum {
	COLL_RED_LINEAR = 1,         /* rank 0 receives and reduces p-1 vectors */
	COLL_RED_CHAIN = 2,          /* fanout chains, segmented */
	COLL_RED_PIPELINE = 3,       /* one chain, segmented */
	COLL_RED_BINARY = 4,         /* binary tree, segmented */
	COLL_RED_BINOMIAL = 5,       /* binomial tree, segmented */
	COLL_RED_INORDER_BINARY = 6, /* in-order_binary */
	COLL_RED_RABENSEIFNER = 7,   /* reduce-scatter + binomial gather */
	COLL_RED_COUNT = 8
};
enum {
	COLL_RS_NONOVERLAP = 1,      /* non-overlapping: reduce to rank 0, then scatterv */
	COLL_RS_HALVING = 2,         /* recursive_halving */
	COLL_RS_RING = 3,            /* ring */
	COLL_RS_BUTTERFLY = 4,       /* butterfly */
	COLL_RS_COUNT = 5
};

/* One choice: algorithm number, fanout and segment size as written in the
 * rules file (0 = the algorithm's default / no segmentation). */
typedef struct coll_choice {
	int alg, fanout, segsize;
	double t;        /* the model's time for it, seconds */
	const char *name;   /* MPICH: the algorithm's name (alg is then its
	                       place in coll_mpich_algs, from 1); NULL: Open MPI */
} coll_choice;

/* The algorithm's name as Open MPI spells it, or NULL for a bad number. */
const char *coll_alg_name(int coll_id, int alg);

/* The model's time of one call of algorithm `alg` of collective `coll_id`
 * on p ranks for n bytes (the call's size in the rules file: count x
 * datatype size; for MPI_Allgather and MPI_Alltoall the p blocks together,
 * for MPI_Reduce_scatter the sum of the counts, for MPI_Barrier 0), with
 * the given fanout and segment size (0: none).  Negative when the
 * algorithm does not apply (unknown number, or two_proc on p != 2). */
double coll_cost(int coll_id, int alg, int p, double n, int fanout, int segsize,
                 const coll_net *net);

/* The fastest algorithm (with its best fanout/segment size) for p ranks
 * and n bytes.  Ties (within 2%) go to the earlier entry of a fixed
 * preference order (the simpler, unsegmented algorithms first). */
coll_choice coll_choose(int coll_id, int p, double n, const coll_net *net);

/* alpha, beta of t = alpha + n*beta over m points minimizing the relative
 * error sum(((alpha + n_i beta) - t_i) / t_i)^2 (a plain fit would be all
 * large messages); a negative alpha is clamped to the smallest t, a
 * negative beta to 1e-12 s/B.  -1 for fewer than 2 points or equal sizes,
 * else 0. */
int coll_fit(const double *n, const double *t, int m, double *alpha, double *beta);

/* Writes an Open MPI (4.x classic format) dynamic-rules file for the
 * COLL_NCOLLS collectives, from the model alone: one communicator-size section for each
 * p in 2..np (above np: Open MPI's fixed rules, algorithm 0), and in each,
 * message-size ranges (starting at 0) with the chosen algorithm.  `net`
 * is recorded in comments.  Returns 0, or -1 on an I/O error. */
int coll_rules_write(FILE *f, int np, const coll_net *net, const char *library,
                     const char *host);

/* The rules file's path for this host name, rank count, ranks on this
 * host and library in the cache directory: DIR/coll/HOST-npN-ppnK-LIB.rules
 * (HOST and LIB reduced to [a-z0-9.-]:
 * "node1-np4-ppn2-open-mpi-4.1.4.rules").  Returns 0, or -1 if it does not fit. */
int coll_rules_path(const char *cache_dir, const char *host, int np, int ppn,
                    const char *library, char *buf, size_t size);

/* Slurm's count of this step's tasks on node `node` (SLURM_NODEID) from its
 * SLURM_STEP_TASKS_PER_NODE list ("2(x3),1": 2, 2, 2, 1); 0 if malformed
 * or out of range. */
int coll_slurm_tasks_on_node(const char *list, int node);

/* True when `library` (mpib_library()) is an Open MPI or an MPICH. */
bool coll_library_supported(const char *library);
/* True when `library` is an MPICH (its rules are applied per call by the
 * bridge, not by the library). */
bool coll_library_mpich(const char *library);

/* Before MPI_Init of a run: if this is an Open MPI job of N > 1 ranks
 * (OMPI_COMM_WORLD_SIZE), the rules file for this host and N exists in
 * `cache_dir`, and the user set no OMPI_MCA_coll_tuned_* variable (but
 * _verbose: the user's settings win), and the file has a verified rule
 * (no COLL_NO_RULE_MARK line), sets OMPI_MCA_coll_tuned_use_dynamic_rules=1 and
 * OMPI_MCA_coll_tuned_dynamic_rules_filename.  With `log` (or
 * MPIWASM_COLL_LOG=1 in the environment) says on stderr what it did and
 * why.  Returns 1 if the rules were applied, 0 if not. */
int coll_apply(const char *cache_dir, const char *library, bool log);

/* ---- MPICH (mpich.c) ---------------------------------------------------
 * MPICH has no per-size rules file short of its complete JSON selection
 * tree; what it has is MPIR_CVAR_<COLL>_INTRA_ALGORITHM, one enumeration
 * per collective ("auto", then the algorithms by name), read inside each
 * call and writable through MPI_T after MPI_Init.  So `mpiwasm tune`
 * verifies MPICH's algorithms by name exactly as Open MPI's by number, and
 * writes its own rules file ("rule COLL P LO HI NAME" lines); a run hands
 * the verified rules to the bridge (MPIWASM_COLL_MPICH_RULES, set by
 * coll_apply), which writes the variable before a call whose size range
 * has a rule (and back to auto before one that has none).  The integers
 * of the enumeration are MPICH's, taken at run time from the variable's
 * description (MPI_T gives no enumeration): coll_mpich_value. */

/* MPICH's algorithms that are modelled: the name in the variable's
 * description, and the model's equivalent (collective id and Open MPI
 * algorithm number, unsegmented).  "nb" and "smp" (composites of other
 * algorithms), MPI_Alltoall's pairwise_sendrecv_replace (MPI_IN_PLACE
 * only) and MPI_Reduce_scatter's noncommutative (asserts on a
 * communicator whose size is not a power of two) are never proposed. */
typedef struct coll_mpich_alg {
	int coll_id;
	const char *name;
	int model_coll, model_alg;
	int pof2_only;   /* MPICH falls back to auto unless p is a power of two */
} coll_mpich_alg;
extern const coll_mpich_alg coll_mpich_algs[];
extern const int coll_mpich_nalgs;

/* The integer of algorithm `name` in a control variable's description as
 * MPICH 4.0 writes it: its lines run together ("Variable to select
 * allreduce algorithmauto - Internal ...nb   - Force nonblocking
 * algorithmsmp  - Force smp algorithm..."), each item a name, blanks and
 * "- ".  The items are counted in order from 0, which must be "auto"; the
 * name must end exactly one item's word.  -1 when the description does not
 * read so (then the version at hand is not one this understands).  Inline:
 * the bridge, which links without src/coll, reads the descriptions. */
static inline int coll_ends_with_(const char *d, size_t ws, size_t we, const char *name)
{
	size_t n = strlen(name);
	return we - ws >= n && !memcmp(d + we - n, name, n);
}

static inline int coll_mpich_value(const char *d, const char *name)
{
	int item = 0, found = -1, hits = 0;
	if (!d || !name || !*name)
		return -1;
	for (size_t i = 0; d[i]; i++) {
		/* an item's separator: blanks, '-', a blank */
		if (d[i] != '-' || i == 0 || d[i - 1] != ' ' || d[i + 1] != ' ')
			continue;
		size_t we = i;
		while (we > 0 && d[we - 1] == ' ')
			we--;
		size_t ws = we;
		while (ws > 0 && d[ws - 1] != ' ')
			ws--;
		if (ws == we)
			return -1;
		if (item == 0 && !coll_ends_with_(d, ws, we, "auto"))
			return -1;   /* "auto" first is what makes 0 MPICH's own choice */
		if (item > 0 && coll_ends_with_(d, ws, we, name)) {
			found = item;
			hits++;
		}
		item++;
	}
	return hits == 1 ? found : -1;
}

/* The MPICH candidate for p ranks and n bytes: the modelled algorithm
 * with the least time (ties within 2% to the earlier of the table);
 * .alg 0 when none applies. */
coll_choice coll_choose_mpich(int coll_id, int p, double n, const coll_net *net);

/* ---- verification: the model proposes, measurement decides ------------- */

/* `mpiwasm tune` does not trust the model: for each collective and each
 * message-size range of the rules it times, in the same job, the model's
 * candidate and Open MPI's own selection (algorithm 0) alternately, and
 * writes the candidate only where it measured clearly faster
 * (coll_verify_decide); elsewhere the rule is algorithm 0. */

/* Ranges: [0, 16) probed at 8 B, then [8*2^k, 8*2^(k+1)) probed at its
 * lower end, up to [4 MiB, infinity).  Each range is measured twice, at
 * its probe and at probe2 (1.5 x its lower end: 8 B for the first), and a
 * candidate must win at both. */
#define COLL_VERIFY_NRANGES 20
/* Alternating repetitions of each measurement. */
#define COLL_VERIFY_ROUNDS 11
/* A candidate must be at least this much faster (median). */
#define COLL_VERIFY_MARGIN 0.05

typedef struct coll_range {
	int lo;              /* first byte count of the range */
	int probe, probe2;   /* the byte counts measured for it */
	coll_choice model;   /* the model's candidate (.t: predicted seconds) */
	double t_cand;       /* measured median at probe, seconds per call (slowest rank) */
	double t_def;        /* the same for Open MPI's own selection */
	double t_cand2, t_def2;  /* the same at probe2 */
	double noise;        /* relative spread of the measurements (the largest) */
	int win;             /* 1: the rule is the candidate; 0: algorithm 0 */
	int measured;        /* 0: not measured (the rule is algorithm 0) */
	int nt;              /* raw timings (seconds per call, slowest rank) */
	double td[COLL_VERIFY_ROUNDS], tc[COLL_VERIFY_ROUNDS];     /* at probe */
	double td2[COLL_VERIFY_ROUNDS], tc2[COLL_VERIFY_ROUNDS];   /* at probe2 */
} coll_range;

typedef struct coll_plan {
	int coll_id, p;      /* collective, communicator size */
	int nr;
	coll_range r[COLL_VERIFY_NRANGES];
} coll_plan;

/* Fills plan's ranges with the model's candidates for coll_id on p ranks
 * (nothing measured yet, every decision 0). */
void coll_plan_propose(coll_plan *plan, int coll_id, int p, const coll_net *net);
/* The same for MPICH: the candidates are coll_choose_mpich's (.name set). */
void coll_plan_propose_mpich(coll_plan *plan, int coll_id, int p, const coll_net *net);

/* For every measured range of the plans: the decision (sets t_def,
 * t_cand, t_def2, t_cand2, noise, win): win only when coll_verify_decide
 * is true for td/tc and for td2/tc2. */
void coll_plans_decide(coll_plan *plans, int nplans);

/* The decision rule: given n_d timings of the default and n_c of the
 * candidate (repetitions of the same measurement, seconds), true when the
 * candidate's median is at least `margin` below the default's AND beyond
 * the measured noise: the candidate's upper quartile is below the
 * default's lower quartile.  *noise (may be NULL): the larger relative
 * interquartile half-range of the two.  False with fewer than 3 of either
 * or any timing not positive.  The arrays are not modified. */
bool coll_verify_decide(const double *t_def, int n_d, const double *t_cand, int n_c,
                        double margin, double *med_def, double *med_cand, double *noise);

/* The line a rules file starts its rules with when no range of any plan
 * won: coll_apply then leaves Open MPI alone (no dynamic rules at all). */
#define COLL_NO_RULE_MARK "# mpiwasm: no verified rule"

/* Like coll_rules_write, but the rules come from verified plans: for a
 * (collective, communicator size) with a plan, each range is its
 * candidate where plan->r[i].win, else algorithm 0 (adjacent equal ranges
 * merged); sizes 2..np without a plan get algorithm 0 throughout. */
int coll_rules_write_plans(FILE *f, int np, const coll_net *net, const coll_plan *plans,
                           int nplans, const char *library, const char *host);

/* The MPICH rules file (mpich.c), from verified plans: comments, then
 * one line per run of adjacent ranges won by the same algorithm,
 * "rule COLL P LO HI NAME" (bytes in [LO, HI); HI -1: no end), with the
 * model's prediction and the measurements in a comment; COLL_NO_RULE_MARK
 * when none won.  Returns 0, or -1 on an I/O error. */
int coll_mpich_rules_write(FILE *f, int np, int local, const coll_net *net,
                           const coll_plan *plans, int nplans, const char *library,
                           const char *host);

/* The rules of an MPICH rules file as the bridge takes them (the value of
 * MPIWASM_COLL_MPICH_RULES after "PID;", the pid of the process coll_apply
 * ran in): "COLL:P:LO:HI:NAME" joined by ','.  Returns
 * the number of rules (0: none, buf ""), or -1 for a line that does not
 * read as a rule or no room, with the reason in buf. */
int coll_mpich_rules_read(FILE *f, char *buf, size_t size);

/* The .model file's record of the verification: per range one line
 * "range COLL p LO PROBE ALG NAME FANOUT SEGSIZE predicted_us cand_us
 * default_us PROBE2 cand_us default_us noise_pct decision" (decision: the algorithm written, 0 =
 * Open MPI's own). */
void coll_plans_record(FILE *f, const coll_plan *plans, int nplans);

/* ---- implemented by the MPI bridge (src/mpi/coll_measure.c) ------------ */

typedef void (*coll_propose_fn)(coll_plan *plan, int coll_id, int p, const coll_net *net);

/* The measurement and then the verification, in one job: MPI_Init,
 * exchange rounds (every rank with its partner at once) at a few sizes
 * (least-squares fit of alpha and beta over them), a timed
 * MPI_Reduce_local of doubles (gamma, the slowest rank's); then, before
 * MPI_Finalize, for every collective of coll_ids on MPI_COMM_WORLD a plan
 * proposed (propose: coll_plan_propose; a pointer so that the bridge
 * links without src/coll) and measured: the raw timings td/tc of every
 * range (the caller decides: coll_plans_decide), algorithms forced
 * through MPI_T control variables (coll_tuned_<coll>_algorithm,
 * _segmentsize, _chain_fanout / _tree_fanout) and a fresh MPI_Comm_dup
 * each.  Every rank gets the same figures and plans.  *np, *rank:
 * MPI_COMM_WORLD's; *writer: true on the lowest rank of each host
 * (MPI_COMM_TYPE_SHARED), the one that writes the host's file.  *nplans:
 * the plans filled (<= maxplans; 0 when the forcing mechanism does not
 * work here: then *why says so).  Returns 0, or -1 with one line in err. */
int mpib_coll_tune(coll_net *net, int *np, int *rank, int *writer, coll_plan *plans,
                   int maxplans, int *nplans, coll_propose_fn propose, char *why,
                   size_t whylen, char *err, size_t errlen);

/* The MPICH bridge's per-call rules (coll_measure.c; Open MPI's library
 * applies its own file).  mw_coll_rules has bit 1 << COLL_ID_x set for
 * each collective some rule names (every bit until the first call of
 * mw_coll_rule has looked for rules, MPIWASM_COLL_MPICH_RULES), so that a
 * collective handler costs one test when its collective has none:
 *     if (mw_coll_rules & 1 << COLL_ID_x) mw_coll_rule(COLL_ID_x, p, bytes);
 * mw_coll_rule sets the collective's MPIR_CVAR_<COLL>_INTRA_ALGORITHM to
 * the rule for the communicator's size p and `bytes` (the call's size as
 * tune measured it, coll_cost's n), or to auto where no rule says
 * otherwise, writing it only when that changes the value.  bytes < 0: a
 * call no rule applies to (an intercommunicator, a user-defined op). */
extern int mw_coll_rules;
void mw_coll_rule(int coll_id, int p, long long bytes);
/* The module wrote MPI_T control variable `index` (its MPI_T_cvar_write
 * succeeded): if that is the algorithm variable of a collective the rules
 * set per call, the module's own choice wins from then on, as a user's
 * MPIR_CVAR_* in the environment does (no rule of that collective is
 * applied again in this process).  Nothing under Open MPI, whose rules
 * file the library reads once. */
void mw_coll_cvar_written(int index);

typedef int (*coll_tune_fn)(coll_net *net, int *np, int *rank, int *writer,
                            coll_plan *plans, int maxplans, int *nplans,
                            coll_propose_fn propose, char *why, size_t whylen,
                            char *err, size_t errlen);

/* `mpirun -np N mpiwasm tune` (tune.c): measure (mpib_coll_tune), decide,
 * write DIR/coll/HOST-npN-LIB.rules and its .model beside it (on the
 * lowest rank of each host), and print the report on rank 0 unless quiet.
 * Returns 0, or -1 with one line in err. */
int coll_tune(const char *cache_dir, const char *library, coll_tune_fn measure, bool quiet,
              char *err, size_t errlen);

#endif
