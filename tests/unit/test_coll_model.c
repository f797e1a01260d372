/* test_coll_model.c - the collective model (src/coll): cost formulas on
 * known alpha/beta/gamma, the algorithm choices they give at small and
 * large sizes, the rules file parsed back, the file's path, and
 * coll_apply's environment handling. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coll/coll.h"

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { \
	fprintf(stderr, "test_coll_model:%d: ", __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b) + 1e-18;
}

/* A cluster-like network: 1 us, 1 GB/s, reductions at 10 GB/s. */
static const coll_net NET = { .alpha = 1e-6, .beta = 1e-9, .gamma = 1e-10 };

static void formulas(void)
{
	double a = NET.alpha, b = NET.beta, g = NET.gamma, n = 1 << 20;
	/* recursive doubling on 8 ranks: 3 exchanges + reductions */
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 8, n, 0, 0, &NET),
	           3 * (a + n * b + n * g)), "rdbl p=8");
	/* 6 ranks: 2 exchanges on 4, plus fold-in and result back */
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 6, n, 0, 0, &NET),
	           2 * (a + n * b + n * g) + 2 * (a + n * b) + n * g), "rdbl p=6");
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RING, 4, n, 0, 0, &NET),
	           6 * a + 1.5 * n * b + 0.75 * n * g), "ring p=4");
	/* ring needs count >= p: 16 B (2 doubles) on 4 ranks is rdbl */
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RING, 4, 16, 0, 0, &NET),
	           coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 4, 16, 0, 0, &NET)), "ring fallback");
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RABENSEIFNER, 8, n, 0, 0, &NET),
	           6 * a + 2 * 7.0 / 8 * n * b + 7.0 / 8 * n * g), "rabenseifner p=8");
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_LINEAR, 4, n, 0, 0, &NET),
	           3 * (a + n * b + n * g) + 3 * (a + n * b)), "linear allreduce");
	/* segmented ring: 4 segments of 64 KiB per block on 4 ranks */
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_SEGRING, 4, n, 0, 65536, &NET),
	           24 * a + 1.5 * n * b + 0.75 * n * g), "segmented ring");
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_BINOMIAL, 8, n, 0, 0, &NET), 3 * (a + n * b)),
	      "binomial p=8");
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_LINEAR, 8, n, 0, 0, &NET), 7 * (a + n * b)),
	      "linear bcast");
	/* pipeline: 32 segments over 7 hops: 38 steps of one segment */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_PIPELINE, 8, n, 1, 32768, &NET),
	           38 * (a + 32768 * b)), "pipeline");
	/* chain with 2 chains of 4 on 9 ranks: root stage 2 messages a segment */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_CHAIN, 9, n, 2, 32768, &NET),
	           (32 * 2 + 3) * (a + 32768 * b)), "chain");
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_SCATTER_ALLGATHER, 8, n, 0, 0, &NET),
	           6 * a + 2 * 7.0 / 8 * n * b), "scatter_allgather");
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_KNOMIAL, 16, n, 0, 0, &NET),
	           2 * 3 * (a + n * b)), "knomial radix 4, 16 ranks");
	CHECK(coll_cost(COLL_ID_BCAST, 42, 8, n, 0, 0, &NET) < 0, "unknown algorithm");
	CHECK(coll_cost(99, 1, 8, n, 0, 0, &NET) < 0, "unknown collective");
	CHECK(!strcmp(coll_alg_name(COLL_ID_ALLREDUCE, 6), "rabenseifner") &&
	      !strcmp(coll_alg_name(COLL_ID_BCAST, 6), "binomial") &&
	      !coll_alg_name(COLL_ID_BCAST, 10), "names");
}

/* The two-level model on 4 hosts x 2 ranks (block placement: ranks 0,1
 * on the first host, 2,3 on the second, ...): a network of 10 us and
 * 100 MB/s, shared memory of 1 us and 1 GB/s.  Each expected value is
 * worked out round by round from the formulas in model.c: a round inside
 * the hosts costs the shared-memory link; one that crosses costs the
 * network, beta times the number of the host's ranks that cross. */
static const coll_net TWO = { .alpha = 10e-6, .beta = 1e-8, .gamma = 1e-10, .ppn = 2,
                              .alpha_shm = 1e-6, .beta_shm = 1e-9 };

static void two_levels(void)
{
	double a = TWO.alpha, b = TWO.beta, g = TWO.gamma, as = TWO.alpha_shm, bs = TWO.beta_shm;
	double n = 1 << 20, blk = n / 8;
	/* recursive doubling: distance 1 inside the hosts, 2 and 4 across
	 * with both ranks of a host crossing */
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 8, n, 0, 0, &TWO),
	           (as + n * bs + n * g) + 2 * (a + n * 2 * b + n * g)), "two-level rdbl");
	/* ring: every step has rank 1 -> 2 crossing, one rank per host */
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RING, 8, n, 0, 0, &TWO),
	           14 * (a + blk * b) + 7.0 / 8 * n * g), "two-level ring");
	/* Rabenseifner: halving at distance 1 (n/2, inside), 2 (n/4) and 4
	 * (n/8) across, and the allgather back the same way */
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RABENSEIFNER, 8, n, 0, 0, &TWO),
	           2 * (as + n / 2 * bs) + 2 * (a + n / 4 * 2 * b) + 2 * (a + n / 8 * 2 * b) +
	           7.0 / 8 * n * g), "two-level rabenseifner");
	/* binomial bcast: 0->1 inside, 0->2 and 0->4 across, one sender a host */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_BINOMIAL, 8, n, 0, 0, &TWO),
	           (as + n * bs) + 2 * (a + n * b)), "two-level binomial");
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_LINEAR, 8, n, 0, 0, &TWO),
	           (as + n * bs) + 6 * (a + n * b)), "two-level linear bcast");
	/* a pipeline's step costs its slowest hop: the network */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_PIPELINE, 8, n, 1, 32768, &TWO),
	           38 * (a + 32768 * b)), "two-level pipeline");
	/* alltoall linear: one block to the host's other rank, six over the
	 * network that both ranks of the host share */
	CHECK(near(coll_cost(COLL_ID_ALLTOALL, COLL_A2A_LINEAR, 8, n, 0, 0, &TWO),
	           (as + blk * bs) + 6 * (a + blk * 2 * b)), "two-level alltoall linear");
	/* pairwise: step 1 and step 7 have one rank of a host crossing
	 * (1 -> 2; 0 -> 7), steps 2..6 both */
	CHECK(near(coll_cost(COLL_ID_ALLTOALL, COLL_A2A_PAIRWISE, 8, n, 0, 0, &TWO),
	           2 * (a + blk * b) + 5 * (a + blk * 2 * b)), "two-level pairwise");
	/* modified Bruck: 3 rounds of the 4 blocks with bit 0, 1, 2 set, at
	 * distances 1 (one crossing), 2 and 4 (both) */
	CHECK(near(coll_cost(COLL_ID_ALLTOALL, COLL_A2A_BRUCK, 8, n, 0, 0, &TWO),
	           (a + 4 * blk * b) + 2 * (a + 4 * blk * 2 * b)), "two-level alltoall bruck");
	CHECK(near(coll_cost(COLL_ID_ALLGATHER, COLL_AG_RING, 8, n, 0, 0, &TWO), 7 * (a + blk * b)),
	      "two-level allgather ring");
	/* allgather recursive doubling: 1 block inside, 2 and 4 across */
	CHECK(near(coll_cost(COLL_ID_ALLGATHER, COLL_AG_RDBL, 8, n, 0, 0, &TWO),
	           (as + blk * bs) + (a + 2 * blk * 2 * b) + (a + 4 * blk * 2 * b)),
	      "two-level allgather rdbl");
	CHECK(near(coll_cost(COLL_ID_BARRIER, COLL_BAR_RDBL, 8, 0, 0, 0, &TWO), as + 2 * a),
	      "two-level barrier rdbl");
	CHECK(near(coll_cost(COLL_ID_BARRIER, COLL_BAR_BRUCK, 8, 0, 0, 0, &TWO), 3 * a),
	      "two-level barrier bruck (every round crosses)");
	/* reduce_scatter recursive halving, the farthest first: distance 4
	 * carries n/2, 2 n/4 (both across), 1 n/8 (inside) */
	CHECK(near(coll_cost(COLL_ID_REDUCE_SCATTER, COLL_RS_HALVING, 8, n, 0, 0, &TWO),
	           (a + n / 2 * 2 * b) + (a + n / 4 * 2 * b) + (as + n / 8 * bs) + 7.0 / 8 * n * g),
	      "two-level reduce_scatter halving");
	CHECK(near(coll_cost(COLL_ID_REDUCE, COLL_RED_BINOMIAL, 8, n, 0, 0, &TWO),
	           (as + n * bs + n * g) + 2 * (a + n * b + n * g)), "two-level reduce binomial");
	/* one host (ppn >= p): everything is shared memory */
	coll_net one = TWO;
	one.ppn = 8;
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 8, n, 0, 0, &one),
	           3 * (as + n * bs + n * g)), "one host: shared memory only");
	/* ppn 1 is the one-level model on the network's figures */
	coll_net flat = { .alpha = a, .beta = b, .gamma = g };
	one.ppn = 1;
	for (int k = 0; k < COLL_NCOLLS; k++)
		for (int alg = 1; coll_alg_name(coll_ids[k], alg); alg++)
			CHECK(near(coll_cost(coll_ids[k], alg, 8, n, 0, 0, &one),
			           coll_cost(coll_ids[k], alg, 8, n, 0, 0, &flat)),
			      "ppn 1: %s %d differs from one level", coll_name(coll_ids[k]), alg);
	/* the choice moves with the levels: on a slow network with fast
	 * shared memory, 1 MiB allreduce on 4 x 2 keeps the full-vector
	 * exchange inside the hosts */
	coll_choice c = coll_choose(COLL_ID_ALLREDUCE, 8, n, &TWO);
	CHECK(c.t > 0 && c.t <= coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 8, n, 0, 0, &TWO),
	      "two-level choice %s", coll_alg_name(COLL_ID_ALLREDUCE, c.alg));
}

/* Every collective: names, costs that apply, a choice that is the
 * cheapest candidate. */
static void all_collectives(void)
{
	for (int k = 0; k < COLL_NCOLLS; k++) {
		int id = coll_ids[k];
		CHECK(coll_name(id) && coll_title(id) && coll_alg_name(id, 1), "names of %d", id);
		for (int p = 2; p <= 9; p++)
			for (double n = 8; n <= 1 << 22; n *= 16) {
				coll_choice c = coll_choose(id, p, n, &TWO);
				CHECK(c.alg > 0 && c.t >= 0, "%s p=%d n=%g: no choice", coll_name(id), p, n);
				for (int alg = 1; coll_alg_name(id, alg); alg++) {
					double t = coll_cost(id, alg, p, n, 0, 0, &TWO);
					bool two_proc = !strcmp(coll_alg_name(id, alg), "two_proc");
					CHECK(two_proc && p != 2 ? t < 0 : t > 0, "%s %d p=%d n=%g: %g",
					      coll_name(id), alg, p, n, t);
					CHECK(t < 0 || c.t <= 1.02 * t + 1e-15, "%s p=%d n=%g: %s beaten by %d",
					      coll_name(id), p, n, coll_alg_name(id, c.alg), alg);
				}
			}
	}
	CHECK(!coll_name(1) && !coll_alg_name(COLL_ID_BARRIER, 7), "unknown names");
	/* a barrier's cost does not depend on n */
	CHECK(near(coll_cost(COLL_ID_BARRIER, COLL_BAR_TREE, 8, 1e6, 0, 0, &NET), 6 * NET.alpha),
	      "barrier tree: 2 x 3 rounds");
}

static void choices(void)
{
	coll_choice c;
	/* small: latency-bound, log p messages */
	c = coll_choose(COLL_ID_ALLREDUCE, 8, 8, &NET);
	CHECK(c.alg == COLL_AR_RDBL, "allreduce 8 B on 8: %s", coll_alg_name(COLL_ID_ALLREDUCE, c.alg));
	c = coll_choose(COLL_ID_BCAST, 8, 8, &NET);
	CHECK(c.alg == COLL_BC_BINOMIAL, "bcast 8 B on 8: %s", coll_alg_name(COLL_ID_BCAST, c.alg));
	/* large: bandwidth-bound, (p-1)/p of the bytes */
	c = coll_choose(COLL_ID_ALLREDUCE, 8, 4 << 20, &NET);
	CHECK(c.alg == COLL_AR_RING || c.alg == COLL_AR_RABENSEIFNER,
	      "allreduce 4 MiB on 8: %s", coll_alg_name(COLL_ID_ALLREDUCE, c.alg));
	CHECK(c.t < 0.7 * coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 8, 4 << 20, 0, 0, &NET),
	      "allreduce 4 MiB: chosen %g s", c.t);
	c = coll_choose(COLL_ID_BCAST, 8, 4 << 20, &NET);
	CHECK(c.alg != COLL_BC_BINOMIAL && c.alg != COLL_BC_LINEAR &&
	      c.t < 0.7 * coll_cost(COLL_ID_BCAST, COLL_BC_BINOMIAL, 8, 4 << 20, 0, 0, &NET),
	      "bcast 4 MiB on 8: %s", coll_alg_name(COLL_ID_BCAST, c.alg));
	/* 2 ranks: every bcast is one message; the tie goes to binomial */
	c = coll_choose(COLL_ID_BCAST, 2, 1 << 20, &NET);
	CHECK(c.alg == COLL_BC_BINOMIAL, "bcast 1 MiB on 2: %s", coll_alg_name(COLL_ID_BCAST, c.alg));
	/* a slow reduction favours reducing half the vector on 2 ranks (ring
	 * and Rabenseifner are the same exchange there) */
	coll_net slowred = { .alpha = 1e-6, .beta = 1e-10, .gamma = 1e-9 };
	c = coll_choose(COLL_ID_ALLREDUCE, 2, 1 << 20, &slowred);
	CHECK(c.alg == COLL_AR_RING || c.alg == COLL_AR_RABENSEIFNER,
	      "allreduce 1 MiB on 2, slow reduction: %s",
	      coll_alg_name(COLL_ID_ALLREDUCE, c.alg));
	/* the choice is the cheapest candidate (within the 2% tie margin) */
	for (int p = 2; p <= 16; p++)
		for (double n = 1; n <= 1 << 24; n *= 4) {
			coll_choice ar = coll_choose(COLL_ID_ALLREDUCE, p, n, &NET);
			for (int alg = 1; alg <= 6; alg++)
				CHECK(ar.t <= 1.02 * coll_cost(COLL_ID_ALLREDUCE, alg, p, n, 0,
				                               alg == 5 ? 65536 : 0, &NET) + 1e-15,
				      "allreduce p=%d n=%g: %s beaten by %d", p, n,
				      coll_alg_name(COLL_ID_ALLREDUCE, ar.alg), alg);
		}
}

/* ---- the rules file, parsed back ------------------------------------------ */

typedef struct rline { long msg, alg, fan, seg; } rline;
typedef struct rsect { long comm, nl; rline l[64]; } rsect;
typedef struct rcoll { long id, ns; rsect s[64]; } rcoll;

/* Next integer, skipping whitespace and '#' comments; 0 or -1 at the end
 * or on anything else. */
static int next(FILE *f, long *v)
{
	int ch;
	for (;;) {
		ch = fgetc(f);
		if (ch == '#') {
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		if (ch == ' ' || ch == '\n' || ch == '\t')
			continue;
		break;
	}
	if (ch == EOF)
		return -1;
	ungetc(ch, f);
	return fscanf(f, "%ld", v) == 1 ? 0 : -1;
}

static int parse(FILE *f, rcoll *c, long *nc)
{
	if (next(f, nc) || *nc < 1 || *nc > COLL_NCOLLS)
		return -1;
	for (long i = 0; i < *nc; i++) {
		if (next(f, &c[i].id) || next(f, &c[i].ns) || c[i].ns < 1 || c[i].ns > 64)
			return -1;
		for (long s = 0; s < c[i].ns; s++) {
			rsect *r = &c[i].s[s];
			if (next(f, &r->comm) || next(f, &r->nl) || r->nl < 1 || r->nl > 64)
				return -1;
			for (long k = 0; k < r->nl; k++)
				if (next(f, &r->l[k].msg) || next(f, &r->l[k].alg) ||
				    next(f, &r->l[k].fan) || next(f, &r->l[k].seg))
					return -1;
		}
	}
	long extra;
	return next(f, &extra) ? 0 : -1;   /* nothing after */
}

static void rules_file(void)
{
	enum { NP = 6 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f && !coll_rules_write(f, NP, &NET, "Open MPI 4.1.4", "node1"), "write");
	fclose(f);
	CHECK(strstr(text, "alpha 1e-06 s"), "alpha recorded in a comment");
	static rcoll c[COLL_NCOLLS];
	long nc = 0;
	f = fmemopen(text, len, "r");
	CHECK(!parse(f, c, &nc), "the file parses back");
	fclose(f);
	CHECK(nc == COLL_NCOLLS, "%ld collectives", nc);
	for (int i = 0; i < nc; i++)
		CHECK(c[i].id == coll_ids[i], "collective %d: id %ld, want %d", i, c[i].id,
		      coll_ids[i]);
	for (int i = 0; i < nc; i++) {
		int id = (int)c[i].id;
		CHECK(c[i].ns == NP, "comm sections %ld", c[i].ns);
		for (long s = 0; s < c[i].ns; s++) {
			rsect *r = &c[i].s[s];
			int p = (int)r->comm;
			CHECK(p == s + 2, "section %ld is comm size %d", s, p);
			CHECK(r->l[0].msg == 0, "comm %d: first message size %ld, not 0", p, r->l[0].msg);
			for (long k = 1; k < r->nl; k++)
				CHECK(r->l[k].msg > r->l[k - 1].msg, "comm %d: sizes not increasing", p);
			if (p == NP + 1) {
				CHECK(r->nl == 1 && r->l[0].alg == 0, "above np: fixed rules");
				continue;
			}
			/* Open MPI's lookup (last line with msg <= n) gives the model's
			 * choice at every grid size. */
			for (int e = 0; e <= 26; e++) {
				long n = 1L << e, k = 0;
				while (k + 1 < r->nl && r->l[k + 1].msg <= n)
					k++;
				coll_choice ch = coll_choose(id, p, (double)n, &NET);
				CHECK(r->l[k].alg == ch.alg && r->l[k].seg == ch.segsize &&
				      r->l[k].fan == ch.fanout,
				      "coll %d comm %d %ld B: file says %ld, model %d", id, p, n,
				      r->l[k].alg, ch.alg);
				CHECK(coll_alg_name(id, (int)r->l[k].alg) && r->l[k].alg > 0, "valid alg");
			}
		}
	}
	free(text);
}

static void paths_and_env(void)
{
	char buf[512], dir[] = "/tmp/test_coll_model-XXXXXX";
	CHECK(!coll_rules_path("/c", "Node_1.cluster", 4, 2, "Open MPI 4.1.4", buf, sizeof buf) &&
	      !strcmp(buf, "/c/coll/node-1.cluster-np4-ppn2-open-mpi-4.1.4.rules"), "path: %s", buf);
	CHECK(coll_rules_path("/c", "h", 4, 2, "Open MPI 4.1.4", buf, 10) == -1, "too long");
	CHECK(coll_library_supported("Open MPI 4.1.4") && coll_library_supported("MPICH 4.0.2") &&
	      !coll_library_supported("Intel(R) MPI") && coll_library_mpich("MPICH 4.0.2") &&
	      !coll_library_mpich("Open MPI 4.1.4"), "supported libraries");

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	char cdir[600], host[256], path[1024];
	snprintf(cdir, sizeof cdir, "%s/coll", dir);
	mkdir(cdir, 0777);
	gethostname(host, sizeof host);
	host[sizeof host - 1] = 0;
	coll_rules_path(dir, host, 3, 3, "Open MPI 4.1.4", path, sizeof path);
	for (char **e = __environ; *e; ) {   /* a clean slate of coll/tuned settings */
		if (!strncmp(*e, "OMPI_MCA_coll_tuned_", 20)) {
			char name[128];
			snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
			unsetenv(name);
		} else {
			e++;
		}
	}
	setenv("MPIWASM_COLL_LOG", "0", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);
	CHECK(coll_apply(dir, "Open MPI 4.1.4", false) == 0 &&
	      !getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename"), "no file: not applied");
	FILE *f = fopen(path, "w");
	CHECK(f && !coll_rules_write(f, 3, &NET, "Open MPI 4.1.4", host), "write %s", path);
	if (f)
		fclose(f);
	/* an Open MPI file is not MPICH's (another name), and the layout is
	 * part of the key */
	unsetenv("PMI_SIZE");
	CHECK(coll_apply(dir, "MPICH 4.0.2", false) == 0, "MPICH: not applied");
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1", 1);
	CHECK(coll_apply(dir, "Open MPI 4.1.4", false) == 0 &&
	      !getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename"), "another layout: not applied");
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);
	setenv("OMPI_MCA_coll_tuned_allreduce_algorithm", "4", 1);
	CHECK(coll_apply(dir, "Open MPI 4.1.4", false) == 0 &&
	      !getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename"), "the user's setting wins");
	unsetenv("OMPI_MCA_coll_tuned_allreduce_algorithm");
	setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
	CHECK(coll_apply(dir, "Open MPI 4.1.4", false) == 0, "one rank: not applied");
	setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
	const char *fn;
	CHECK(coll_apply(dir, "Open MPI 4.1.4", false) == 1 &&
	      (fn = getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename")) && !strcmp(fn, path) &&
	      !strcmp(getenv("OMPI_MCA_coll_tuned_use_dynamic_rules"), "1"), "applied");
	/* Under srun: no launcher variables, Slurm's step layout instead (3
	 * tasks: this node the second of "2,1", then the only one of "3"). */
	unsetenv("OMPI_MCA_coll_tuned_dynamic_rules_filename");
	unsetenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	setenv("SLURM_STEP_NUM_TASKS", "3", 1);
	setenv("SLURM_STEP_TASKS_PER_NODE", "2,1", 1);
	setenv("SLURM_NODEID", "1", 1);
	CHECK(coll_apply(dir, "Open MPI 4.1.4", false) == 0 &&
	      !getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename"), "srun, 1 of 3 here: not applied");
	setenv("SLURM_STEP_TASKS_PER_NODE", "3", 1);
	setenv("SLURM_NODEID", "0", 1);
	CHECK(coll_apply(dir, "Open MPI 4.1.4", false) == 1 &&
	      (fn = getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename")) && !strcmp(fn, path),
	      "srun, 3 of 3 here: applied from Slurm's layout");
	unsetenv("SLURM_STEP_NUM_TASKS");
	unsetenv("SLURM_STEP_TASKS_PER_NODE");
	unsetenv("SLURM_NODEID");
	unlink(path);
	rmdir(cdir);
	rmdir(dir);

	static const struct { const char *list; int node, want; } sl[] = {
		{ "4", 0, 4 }, { "4", 1, 0 }, { "2(x3),1", 0, 2 }, { "2(x3),1", 2, 2 },
		{ "2(x3),1", 3, 1 }, { "2(x3),1", 4, 0 }, { "1,3,2", 1, 3 }, { "1,3,2", 2, 2 },
		{ "", 0, 0 }, { "x", 0, 0 }, { "2(x", 0, 0 }, { "2(x0)", 0, 0 }, { "0", 0, 0 },
		{ "2(x3)", -1, 0 }, { "2;1", 1, 0 },
	};
	for (size_t i = 0; i < sizeof sl / sizeof sl[0]; i++)
		CHECK(coll_slurm_tasks_on_node(sl[i].list, sl[i].node) == sl[i].want,
		      "SLURM_STEP_TASKS_PER_NODE \"%s\" node %d: %d, want %d", sl[i].list, sl[i].node,
		      coll_slurm_tasks_on_node(sl[i].list, sl[i].node), sl[i].want);
}

/* One-way figures beside the exchange rounds' (4 hosts x 2 ranks as TWO):
 * network exchange 10 us and 100 MB/s, one-way 4 us and 50 MB/s (beta
 * 2e-8); shared memory exchange 1 us and 1 GB/s, one-way 0.5 us and
 * 2 GB/s.  Trees, chains and linear steps take the one-way figures;
 * recursive doubling, rings and Bruck keep the exchange ones.  Each
 * expected value is worked out hop by hop. */
static const coll_net ONEWAY = { .alpha = 10e-6, .beta = 1e-8, .gamma = 1e-10, .ppn = 2,
                                 .alpha_shm = 1e-6, .beta_shm = 1e-9,
                                 .alpha_1 = 4e-6, .beta_1 = 2e-8,
                                 .alpha_1shm = 0.5e-6, .beta_1shm = 0.5e-9 };

static void one_way(void)
{
	double a = ONEWAY.alpha, b = ONEWAY.beta, g = ONEWAY.gamma, as = ONEWAY.alpha_shm,
	       bs = ONEWAY.beta_shm, a1 = ONEWAY.alpha_1, b1 = ONEWAY.beta_1,
	       a1s = ONEWAY.alpha_1shm, b1s = ONEWAY.beta_1shm, n = 1 << 20;
	/* binomial bcast on 8: distance 1 (0->1) inside the host, one-way;
	 * distances 2 and 4 cross with one rank of the host (rank 0): 4 us
	 * + n * 2e-8 each */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_BINOMIAL, 8, n, 0, 0, &ONEWAY),
	           (a1s + n * b1s) + 2 * (a1 + n * b1)), "one-way binomial bcast");
	/* 8 B: 0.5 + 2 * 4 us plus the bytes */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_BINOMIAL, 8, 8, 0, 0, &ONEWAY),
	           a1s + 8 * b1s + 2 * (a1 + 8 * b1)), "one-way binomial bcast 8 B");
	/* linear bcast: the root's one host mate, then 6 ranks elsewhere */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_LINEAR, 8, n, 0, 0, &ONEWAY),
	           (a1s + n * b1s) + 6 * (a1 + n * b1)), "one-way linear bcast");
	/* pipeline of 32 segments over 7 hops: 38 network one-way steps */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_PIPELINE, 8, n, 1, 32768, &ONEWAY),
	           38 * (a1 + 32768 * b1)), "one-way pipeline");
	/* binomial reduce: the bcast's hops, each segment reduced */
	CHECK(near(coll_cost(COLL_ID_REDUCE, COLL_RED_BINOMIAL, 8, n, 0, 0, &ONEWAY),
	           (a1s + n * b1s) + 2 * (a1 + n * b1) + 3 * n * g), "one-way binomial reduce");
	/* linear barrier: 1 + 6 zero-byte one-way messages, in and out */
	CHECK(near(coll_cost(COLL_ID_BARRIER, COLL_BAR_LINEAR, 8, 0, 0, 0, &ONEWAY),
	           2 * (a1s + 6 * a1)), "one-way linear barrier");
	/* exchanges keep the exchange figures: recursive doubling as in TWO */
	CHECK(near(coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 8, n, 0, 0, &ONEWAY),
	           (as + n * bs + n * g) + 2 * (a + 2 * n * b + n * g)), "exchange rdbl unchanged");
	CHECK(near(coll_cost(COLL_ID_ALLGATHER, COLL_AG_RING, 8, n, 0, 0, &ONEWAY),
	           7 * (a + n / 8 * b)), "exchange ring unchanged");
	/* without one-way figures the exchange ones stand in (TWO's binomial) */
	CHECK(near(coll_cost(COLL_ID_BCAST, COLL_BC_BINOMIAL, 8, n, 0, 0, &TWO),
	           coll_cost(COLL_ID_BCAST, COLL_BC_BINOMIAL, 8, n, 0, 0, &(coll_net){
	                     .alpha = 10e-6, .beta = 1e-8, .gamma = 1e-10, .ppn = 2,
	                     .alpha_shm = 1e-6, .beta_shm = 1e-9 })), "no one-way figures");

	/* coll_fit: points on t = 20 us + n * 1 ns/B come back exactly */
	double pn[] = { 8, 512, 32768, 1048576, 4194304 }, pt[5], fa = 0, fb = 0;
	for (int i = 0; i < 5; i++)
		pt[i] = 20e-6 + pn[i] * 1e-9;
	CHECK(coll_fit(pn, pt, 5, &fa, &fb) == 0 && near(fa, 20e-6) && near(fb, 1e-9),
	      "fit of a line: alpha %g beta %g", fa, fb);
	/* two points: the line through them, (8, 10 us) and (1008, 20 us) */
	double qn[] = { 8, 1008 }, qt[] = { 10e-6, 20e-6 };
	CHECK(coll_fit(qn, qt, 2, &fa, &fb) == 0 && near(fb, 1e-8) && near(fa, 10e-6 - 8e-8),
	      "fit of two points: alpha %g beta %g", fa, fb);
	/* falling times: beta clamped to 1e-12, alpha what the fit gives */
	double rt[] = { 30e-6, 10e-6 };
	CHECK(coll_fit(qn, rt, 2, &fa, &fb) == 0 && fb == 1e-12 && fa > 0, "negative slope");
	/* one point, equal sizes, a zero time: no fit */
	double sn[] = { 64, 64 }, st[] = { 1e-6, 2e-6 }, zt[] = { 0, 1e-6 };
	CHECK(coll_fit(pn, pt, 1, &fa, &fb) < 0, "one point");
	CHECK(coll_fit(sn, st, 2, &fa, &fb) < 0, "equal sizes");
	CHECK(coll_fit(qn, zt, 2, &fa, &fb) < 0, "zero time");
}

int main(void)
{
	two_levels();
	one_way();
	all_collectives();
	formulas();
	choices();
	rules_file();
	paths_and_env();
	if (failures)
		fprintf(stderr, "test_coll_model: %d of %d checks failed\n", failures, checks);
	return failures != 0;
}
