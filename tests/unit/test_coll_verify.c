/* test_coll_verify.c - `mpiwasm tune`'s verification (src/coll/verify.c):
 * the decision rule (a candidate not measured clearly faster than Open
 * MPI's own selection gives algorithm 0), the ranges proposed, the
 * decision over both probes of a range, and the rules file written from
 * the decisions, parsed back as Open MPI reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coll/coll.h"

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { \
	fprintf(stderr, "test_coll_verify:%d: ", __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static const coll_net NET = { .alpha = 1.5e-6, .beta = 9e-11, .gamma = 2e-11 };

/* n timings around t: t * (1 + spread * (i - n/2) / n), shuffled order. */
static void series(double *v, int n, double t, double spread)
{
	for (int i = 0; i < n; i++) {
		int j = (i * 7) % n;
		v[j] = t * (1 + spread * (i - n / 2) / n);
	}
}

static void decide(void)
{
	double d[COLL_VERIFY_ROUNDS], c[COLL_VERIFY_ROUNDS], md, mc, noise;
	int n = COLL_VERIFY_ROUNDS;
	/* equal: no */
	series(d, n, 10e-6, 0.02);
	series(c, n, 10e-6, 0.02);
	CHECK(!coll_verify_decide(d, n, c, n, COLL_VERIFY_MARGIN, &md, &mc, &noise),
	      "equal times: candidate kept");
	CHECK(md > 9.9e-6 && md < 10.1e-6 && mc > 9.9e-6 && mc < 10.1e-6, "medians %g %g", md, mc);
	CHECK(noise > 0 && noise < 0.02, "noise %g", noise);
	/* slower: no */
	series(c, n, 20e-6, 0.02);
	CHECK(!coll_verify_decide(d, n, c, n, COLL_VERIFY_MARGIN, NULL, NULL, NULL),
	      "slower candidate kept");
	/* faster, but by less than the margin: no */
	series(c, n, 9.7e-6, 0.002);
	series(d, n, 10e-6, 0.002);
	CHECK(!coll_verify_decide(d, n, c, n, COLL_VERIFY_MARGIN, NULL, NULL, NULL),
	      "3%% faster kept");
	/* clearly faster, tight: yes */
	series(c, n, 8e-6, 0.02);
	series(d, n, 10e-6, 0.02);
	CHECK(coll_verify_decide(d, n, c, n, COLL_VERIFY_MARGIN, &md, &mc, NULL),
	      "20%% faster, tight: not taken");
	CHECK(mc < md, "medians %g %g", mc, md);
	/* 20% faster median, but the noise is larger than the gain: no */
	series(c, n, 8e-6, 0.9);
	series(d, n, 10e-6, 0.9);
	CHECK(!coll_verify_decide(d, n, c, n, COLL_VERIFY_MARGIN, NULL, NULL, &noise),
	      "faster within the noise taken");
	CHECK(noise > 0.1, "noise %g", noise);
	/* too few timings, or a bad one: no */
	series(c, n, 5e-6, 0.01);
	CHECK(!coll_verify_decide(d, 2, c, 2, COLL_VERIFY_MARGIN, NULL, NULL, NULL), "2 timings");
	c[3] = 0;
	CHECK(!coll_verify_decide(d, n, c, n, COLL_VERIFY_MARGIN, NULL, NULL, NULL), "a zero");
	/* inputs untouched (sorted copies) */
	CHECK(c[3] == 0, "input modified");
}

static void propose(void)
{
	coll_plan pl;
	coll_plan_propose(&pl, COLL_ID_BCAST, 4, &NET);
	CHECK(pl.nr == COLL_VERIFY_NRANGES && pl.coll_id == COLL_ID_BCAST && pl.p == 4, "plan");
	CHECK(pl.r[0].lo == 0 && pl.r[0].probe == 8 && pl.r[0].probe2 == 8, "first range");
	CHECK(pl.r[1].lo == 16 && pl.r[1].probe == 16 && pl.r[1].probe2 == 24, "second range");
	CHECK(pl.r[pl.nr - 1].lo == 4 << 20, "last range starts at %d", pl.r[pl.nr - 1].lo);
	for (int i = 0; i < pl.nr; i++) {
		coll_choice ch = coll_choose(COLL_ID_BCAST, 4, pl.r[i].probe, &NET);
		CHECK(pl.r[i].model.alg == ch.alg && ch.alg > 0 && !pl.r[i].win &&
		      !pl.r[i].measured, "range %d: the model's choice, undecided", i);
		CHECK(!i || (pl.r[i].lo > pl.r[i - 1].lo && pl.r[i].probe2 < 2 * pl.r[i].lo),
		      "range %d in order, probe2 inside", i);
	}
}

/* Fills range r with timings: the candidate `fc1`/`fc2` times the
 * default's at probe / probe2. */
static void measured(coll_range *r, double fc1, double fc2)
{
	series(r->td, COLL_VERIFY_ROUNDS, 10e-6, 0.01);
	series(r->tc, COLL_VERIFY_ROUNDS, 10e-6 * fc1, 0.01);
	series(r->td2, COLL_VERIFY_ROUNDS, 12e-6, 0.01);
	series(r->tc2, COLL_VERIFY_ROUNDS, 12e-6 * fc2, 0.01);
	r->nt = COLL_VERIFY_ROUNDS;
	r->measured = 1;
}

/* The rules file: the integers, comments dropped. */
static int ints(const char *text, long *v, int max)
{
	int n = 0;
	for (const char *p = text; *p;) {
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		char *e;
		long x = strtol(p, &e, 10);
		if (e == p) {
			p++;
			continue;
		}
		if (n < max)
			v[n] = x;
		n++;
		p = e;
	}
	return n;
}

/* Open MPI's lookup in the parsed file: the algorithm for (coll, comm
 * size, bytes); -1 if the file is malformed. */
static long lookup(const long *v, int nv, long coll, long comm, long bytes)
{
	int k = 0;
	long nc = v[k++], found = 0;
	for (long c = 0; c < nc; c++) {
		long id = v[k++], ns = v[k++];
		long best_comm = -1;
		for (long s = 0; s < ns; s++) {
			long cs = v[k++], nl = v[k++];
			if (k + 4 * nl > nv)
				return -1;
			if (id == coll && cs <= comm && cs > best_comm) {
				best_comm = cs;
				found = 0;
				for (long l = 0; l < nl; l++)
					if (v[k + 4 * l] <= bytes)
						found = v[k + 4 * l + 1];
			}
			k += (int)(4 * nl);
		}
	}
	return k == nv ? found : -1;
}

/* coll_apply on a 3-rank job with `text` as this host's rules file:
 * applied (the MCA variables set) exactly when `want`. */
static void applied(const char *text, int want)
{
	char dir[] = "/tmp/test_coll_verify-XXXXXX", cdir[64], path[4096], host[256];
	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(cdir, sizeof cdir, "%s/coll", dir);
	mkdir(cdir, 0777);
	if (gethostname(host, sizeof host))
		strcpy(host, "unknown-host");
	host[sizeof host - 1] = 0;
	CHECK(!coll_rules_path(dir, host, 3, 3, "Open MPI 4.1.4", path, sizeof path), "path");
	FILE *f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0 && !fclose(f), "write %s", path);
	unsetenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
	unsetenv("OMPI_MCA_coll_tuned_dynamic_rules_filename");
	setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);
	int r = coll_apply(dir, "Open MPI 4.1.4", false);
	const char *fn = getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename");
	CHECK(r == want && (want ? fn && !strcmp(fn, path) : !fn &&
	                    !getenv("OMPI_MCA_coll_tuned_use_dynamic_rules")),
	      "coll_apply returned %d, want %d (filename %s)", r, want, fn ? fn : "unset");
	unsetenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
	unsetenv("OMPI_MCA_coll_tuned_dynamic_rules_filename");
	unlink(path);
	rmdir(cdir);
	rmdir(dir);
}

static void decisions_and_file(void)
{
	static coll_plan pl[2];
	coll_plan_propose(&pl[0], COLL_ID_ALLREDUCE, 4, &NET);
	coll_plan_propose(&pl[1], COLL_ID_BCAST, 4, &NET);
	/* allreduce: 16 KiB (range 11) wins at both probes; 32 KiB wins at
	 * one only; 64 KiB is slower; everything else equal or unmeasured */
	for (int i = 0; i < 16; i++)
		measured(&pl[0].r[i], 1.0, 1.0);
	measured(&pl[0].r[11], 0.7, 0.75);
	measured(&pl[0].r[12], 0.7, 1.0);
	measured(&pl[0].r[13], 1.5, 1.5);
	/* bcast: nothing measured faster */
	for (int i = 0; i < pl[1].nr; i++)
		measured(&pl[1].r[i], i % 2 ? 1.02 : 3.0, 0.98);
	coll_plans_decide(pl, 2);
	CHECK(pl[0].r[11].win && pl[0].r[11].lo == 16384, "16 KiB: measured faster at both, not taken");
	CHECK(!pl[0].r[12].win, "faster at one probe only: taken");
	CHECK(!pl[0].r[13].win && !pl[0].r[0].win && !pl[0].r[19].win,
	      "slower, equal or unmeasured: taken");
	CHECK(pl[0].r[12].t_cand < pl[0].r[12].t_def && pl[0].r[12].t_cand2 > 0, "medians set");
	for (int i = 0; i < pl[1].nr; i++)
		CHECK(!pl[1].r[i].win, "bcast range %d: a candidate not measured faster was taken", i);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f && !coll_rules_write_plans(f, 5, &NET, pl, 2, "Open MPI 4.1.4", "node1"), "write");
	fclose(f);
	static long v[4096];
	int nv = ints(text, v, 4096);
	CHECK(nv < 4096 && v[0] == COLL_NCOLLS, "%d integers, %ld collectives", nv, v[0]);
	int ar_alg = pl[0].r[11].model.alg;
	for (long comm = 2; comm <= 7; comm++)
		for (long b = 0; b <= 8 << 20; b = b ? b * 2 : 1) {
			long a = lookup(v, nv, COLL_ID_ALLREDUCE, comm, b);
			long want = comm == 4 && b >= 16384 && b < 32768 ? ar_alg : 0;
			CHECK(a == want, "allreduce comm %ld %ld B: algorithm %ld, want %ld", comm, b, a,
			      want);
			a = lookup(v, nv, COLL_ID_BCAST, comm, b);
			CHECK(a == 0, "bcast comm %ld %ld B: algorithm %ld, want 0", comm, b, a);
			a = lookup(v, nv, COLL_ID_ALLREDUCE, comm, b + b / 2);
			want = comm == 4 && b + b / 2 >= 16384 && b + b / 2 < 32768 ? ar_alg : 0;
			CHECK(a == want, "allreduce comm %ld %ld B: algorithm %ld", comm, b + b / 2, a);
		}
	CHECK(strstr(text, "measured") && strstr(text, "no candidate measured faster"),
	      "decisions explained in comments");
	CHECK(!strstr(text, COLL_NO_RULE_MARK), "a file with a rule marked as having none");
	applied(text, 1);
	free(text);

	/* nothing verified (forcing failed): algorithm 0 everywhere */
	text = NULL;
	f = open_memstream(&text, &len);
	CHECK(f && !coll_rules_write_plans(f, 3, &NET, NULL, 0, "Open MPI 4.1.4", "n"), "write");
	fclose(f);
	nv = ints(text, v, 4096);
	for (long comm = 2; comm <= 5; comm++)
		for (long b = 0; b <= 8 << 20; b = b ? b * 4 : 1)
			CHECK(lookup(v, nv, COLL_ID_ALLREDUCE, comm, b) == 0 &&
			      lookup(v, nv, COLL_ID_BCAST, comm, b) == 0, "unverified: not algorithm 0");
	CHECK(strstr(text, COLL_NO_RULE_MARK), "no rule, no mark");
	applied(text, 0);
	free(text);

	/* the record: one line per range with both measurements and the decision */
	text = NULL;
	f = open_memstream(&text, &len);
	coll_plans_record(f, pl, 2);
	fclose(f);
	int lines = 0;
	for (char *p = text; (p = strstr(p, "\nrange ")); p++)
		lines++;
	CHECK(lines == 2 * COLL_VERIFY_NRANGES, "%d range lines", lines);
	char want[64];
	snprintf(want, sizeof want, "range allreduce 4 16384 16384 %d ", ar_alg);
	CHECK(strstr(text, want), "16 KiB line: %s", want);
	free(text);
}

/* MPICH (src/coll/mpich.c): the numbers read from a description in the
 * shape MPICH 4.0 gives (lines run together), the candidates, the rules
 * file and what coll_apply hands the bridge. */
static void mpich(void)
{
	const char *d = "Choose the frobnicate algorithmauto - Internal choice (see "
	                "SOME_FILE)nb        - Force nonblocking algorithmring      - Force "
	                "Ring-Like thingscatter_ring - Force scatter then ringbrucks - Force brucks";
	CHECK(coll_mpich_value(d, "nb") == 1 && coll_mpich_value(d, "brucks") == 4,
	      "nb %d brucks %d", coll_mpich_value(d, "nb"), coll_mpich_value(d, "brucks"));
	CHECK(coll_mpich_value(d, "scatter_ring") == 3, "scatter_ring %d",
	      coll_mpich_value(d, "scatter_ring"));
	CHECK(coll_mpich_value(d, "ring") == -1, "ring ends two items' words: not unique");
	CHECK(coll_mpich_value(d, "binomial") == -1, "absent name");
	CHECK(coll_mpich_value("Select: default - MPICH picks, tree - a tree", "tree") == -1,
	      "no auto first: not read");
	CHECK(coll_mpich_value("", "auto") == -1 && coll_mpich_value(NULL, "x") == -1, "empty");

	static coll_plan pl[2];
	coll_plan_propose_mpich(&pl[0], COLL_ID_ALLGATHER, 3, &NET);
	coll_plan_propose_mpich(&pl[1], COLL_ID_BARRIER, 4, &NET);
	for (int i = 0; i < pl[0].nr; i++)
		CHECK(pl[0].r[i].model.name && strcmp(pl[0].r[i].model.name, "recursive_doubling"),
		      "3 ranks: recursive_doubling (power of two only) proposed at range %d", i);
	CHECK(pl[1].nr == 1 && pl[1].r[0].model.name &&
	      !strcmp(pl[1].r[0].model.name, "dissemination") && pl[1].r[0].model.t > 0,
	      "barrier: dissemination");
	coll_choice ch = coll_choose_mpich(COLL_ID_ALLREDUCE, 4, 8, &NET);
	CHECK(ch.alg > 0 && ch.name && ch.t == coll_cost(COLL_ID_ALLREDUCE, COLL_AR_RDBL, 4, 8, 0,
	                                                  0, &NET) &&
	      !strcmp(ch.name, "recursive_doubling"), "8 B allreduce: %s", ch.name ? ch.name : "-");

	/* ranges 3..5 won by one algorithm: one rule [lo3, lo6); the last
	 * range won: no end */
	for (int i = 0; i < pl[0].nr; i++) {
		measured(&pl[0].r[i], i >= 3 && i <= 5 ? 0.5 : 1.0, i >= 3 && i <= 5 ? 0.5 : 1.0);
		pl[0].r[i].model.name = "ring";
	}
	measured(&pl[0].r[pl[0].nr - 1], 0.5, 0.5);
	coll_plans_decide(pl, 1);
	char text[8192], buf[1024];
	FILE *f = fmemopen(text, sizeof text, "w");
	CHECK(f && !coll_mpich_rules_write(f, 3, 3, &NET, pl, 1, "MPICH 4.0.2", "h"), "write");
	fclose(f);
	CHECK(!strstr(text, COLL_NO_RULE_MARK), "rules: no mark");
	f = fmemopen(text, strlen(text), "r");
	int n = coll_mpich_rules_read(f, buf, sizeof buf);
	fclose(f);
	CHECK(n == 2 && !strcmp(buf, "allgather:3:64:512:ring,allgather:3:4194304:-1:ring"),
	      "read back %d: %s", n, buf);
	f = fmemopen((char *)"rule allgather 3 0 -1 nb\n", 25, "r");
	CHECK(coll_mpich_rules_read(f, buf, sizeof buf) == -1, "an algorithm not modelled read");
	fclose(f);
	f = fmemopen((char *)"rule allgather 3 64 8 ring\n", 27, "r");
	CHECK(coll_mpich_rules_read(f, buf, sizeof buf) == -1, "an empty range read");
	fclose(f);

	/* coll_apply under MPICH: the layout from hydra's variables, the
	 * user's MPIR_CVAR_*_ALGORITHM wins, the rules handed over */
	char dir[] = "/tmp/test_coll_verify-XXXXXX", cdir[64], path[4096], host[256];
	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(cdir, sizeof cdir, "%s/coll", dir);
	mkdir(cdir, 0700);
	if (gethostname(host, sizeof host))
		strcpy(host, "unknown-host");
	host[sizeof host - 1] = 0;
	CHECK(!coll_rules_path(dir, host, 3, 3, "MPICH 4.0.2", path, sizeof path), "path");
	f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0 && !fclose(f), "write %s", path);
	setenv("PMI_SIZE", "3", 1);
	setenv("MPI_LOCALNRANKS", "3", 1);
	setenv("MPIR_CVAR_BCAST_INTRA_ALGORITHM", "binomial", 1);
	CHECK(coll_apply(dir, "MPICH 4.0.2", false) == 0 && !getenv("MPIWASM_COLL_MPICH_RULES"),
	      "the user's MPIR_CVAR_BCAST_INTRA_ALGORITHM wins");
	unsetenv("MPIR_CVAR_BCAST_INTRA_ALGORITHM");
	const char *r = NULL;
	CHECK(coll_apply(dir, "MPICH 4.0.2", false) == 1 &&
	      (r = getenv("MPIWASM_COLL_MPICH_RULES")) && atol(r) == (long)getpid() &&
	      !strcmp(strchr(r, ';'), ";allgather:3:64:512:ring,allgather:3:4194304:-1:ring"),
	      "applied: %s", r ? r : "unset");
	setenv("MPI_LOCALNRANKS", "1", 1);
	CHECK(coll_apply(dir, "MPICH 4.0.2", false) == 0 && !getenv("MPIWASM_COLL_MPICH_RULES"),
	      "another layout: not applied");
	unsetenv("PMI_SIZE");
	unsetenv("MPI_LOCALNRANKS");
	unlink(path);
	rmdir(cdir);
	rmdir(dir);
}

int main(void)
{
	decide();
	propose();
	decisions_and_file();
	mpich();
	if (failures)
		fprintf(stderr, "test_coll_verify: %d of %d checks failed\n", failures, checks);
	return failures != 0;
}
