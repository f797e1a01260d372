/* tune.c - `mpirun -np N mpiwasm tune`: the measurement and verification
 * (done by the MPI bridge, handed in as a function so that src/coll stays
 * MPI-free), the decisions, the rules file and its .model companion in
 * the cache directory, and the report rank 0 prints. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coll/coll.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* mkdir -p with the cache's modes: directories 0700 (src/cache). */
static int make_dirs(const char *path)
{
	char buf[4096];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || !*p) {
			char ch = *p;
			*p = 0;
			if (mkdir(buf, 0700) && errno != EEXIST)
				return -1;
			*p = ch;
			if (!ch)
				return 0;
		}
	}
}

/* The model's prediction of every algorithm at a few sizes, beside the
 * rules file (PATH.model): "coll alg name fanout segsize p bytes
 * predicted_seconds". */
static void write_model(FILE *f, int np, const coll_net *net, bool mpich)
{
	if (mpich) {
		/* MPICH's algorithms by name, costed as their model equivalents */
		fprintf(f, "# MPICH: each algorithm as the model costs it: "
		        "coll name model_alg p bytes predicted_seconds\n");
		for (int i = 0; i < coll_mpich_nalgs; i++) {
			const coll_mpich_alg *a = &coll_mpich_algs[i];
			for (int n = 8; n <= 4 << 20; n *= 8) {
				double t = coll_cost(a->model_coll, a->model_alg, np, n, 0, 0, net);
				if (t >= 0)
					fprintf(f, "mpich %s %s %s %d %d %.6g\n", coll_name(a->coll_id),
					        a->name, coll_alg_name(a->model_coll, a->model_alg), np, n,
					        t);
				if (a->coll_id == COLL_ID_BARRIER)
					break;
			}
		}
	}
	fprintf(f, "# network: alpha %.6g beta %.6g; shared memory: alpha %.6g beta %.6g; "
	        "gamma %.6g; %d ranks per host\n", net->alpha, net->beta, net->alpha_shm,
	        net->beta_shm, net->gamma, net->ppn);
	for (int k = 0; k < COLL_NCOLLS; k++) {
		int id = coll_ids[k];
		for (int alg = 1; coll_alg_name(id, alg); alg++)
			for (int n = 8; n <= 4 << 20; n *= 8) {
				/* each segmented algorithm at a segment size its rules
				 * would use; Open MPI's defaults otherwise */
				int seg = 0, fan = 0;
				if (id == COLL_ID_BCAST && alg >= COLL_BC_CHAIN && alg <= COLL_BC_BINARY)
					seg = 32768, fan = alg == COLL_BC_CHAIN ? 2 : alg == COLL_BC_PIPELINE;
				if (id == COLL_ID_REDUCE && alg >= COLL_RED_CHAIN && alg <= COLL_RED_BINARY)
					seg = 32768, fan = alg == COLL_RED_PIPELINE;
				if (id == COLL_ID_ALLREDUCE && alg == COLL_AR_SEGRING)
					seg = 65536;
				double t = coll_cost(id, alg, np, n, fan, seg, net);
				if (t >= 0)
					fprintf(f, "%s %d %s %d %d %d %d %.6g\n", coll_name(id), alg,
					        coll_alg_name(id, alg), fan, seg, np, n, t);
				if (id == COLL_ID_BARRIER)
					break;
			}
	}
}

/* The rules file and the .model file, each written aside and renamed, so
 * that a job starting now sees the old file or the new one. */
static int write_files(const char *path, int np, const coll_net *net, const coll_plan *plans,
                       int nplans, const char *why, const char *lib, const char *host,
                       char *err, size_t errlen)
{
	for (int k = 0; k < 2; k++) {
		char final[4200], tmp[4300];
		snprintf(final, sizeof final, "%s%s", path, k ? ".model" : "");
		snprintf(tmp, sizeof tmp, "%s.tmp%ld", final, (long)getpid());
		FILE *f = fopen(tmp, "w");
		if (!f)
			return fail(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		int bad = 0;
		if (k) {
			write_model(f, np, net, coll_library_mpich(lib));
			if (!nplans)
				fprintf(f, "# not verified: %s\n", why);
			coll_plans_record(f, plans, nplans);
		} else if (coll_library_mpich(lib))
			bad = coll_mpich_rules_write(f, np, net->local, net, plans, nplans, lib, host);
		else
			bad = coll_rules_write_plans(f, np, net, plans, nplans, lib, host);
		bad |= ferror(f);
		if (fclose(f) || bad || rename(tmp, final)) {
			int e = errno;
			unlink(tmp);
			return fail(err, errlen, "cannot write %s: %s", final, strerror(e));
		}
	}
	return 0;
}

static void report(int np, const char *host, const char *lib, const coll_net *net,
                   const coll_plan *plans, int nplans, const char *why, const char *path)
{
	const char *own = coll_library_mpich(lib) ? "MPICH's auto" : "Open MPI's own";
	printf("mpiwasm: tune: %d ranks on %s, %s\n"
	       "mpiwasm: tune: alpha %.3f us, beta %.4f ns/B (%.2f GB/s), gamma %.4f ns/B "
	       "(MPI_SUM of doubles)\n", np, host, lib, net->alpha * 1e6, net->beta * 1e9,
	       1e-9 / net->beta, net->gamma * 1e9);
	if (net->ppn > 1 && net->ppn < np)
		printf("mpiwasm: tune: two levels: %d ranks per host; the alpha and beta above are "
		       "the network's, inside a host alpha %.3f us, beta %.4f ns/B (%.2f GB/s)\n",
		       net->ppn, net->alpha_shm * 1e6, net->beta_shm * 1e9, 1e-9 / net->beta_shm);
	if (!nplans)
		printf("mpiwasm: tune: not verified (%s): every rule is %s selection\n", why, own);
	for (int k = 0; k < nplans; k++) {
		const coll_plan *pl = &plans[k];
		int wins = 0, last = -1;
		printf("mpiwasm: tune: %s on %d ranks:", coll_title(pl->coll_id), pl->p);
		for (int j = 0; j < pl->nr; j++) {
			const coll_range *r = &pl->r[j];
			int key = r->win ? r->model.alg * 100000000 + r->model.segsize : 0;
			if (key != last) {
				printf(" %s%d B %s", last < 0 ? "" : "| ", r->lo,
				       !r->win ? own : r->model.name ? r->model.name
				                      : coll_alg_name(pl->coll_id, r->model.alg));
				if (r->win && r->model.segsize)
					printf(" (%d KiB segments)", r->model.segsize / 1024);
			}
			last = key;
			wins += r->win;
		}
		printf("\n");
		printf("mpiwasm: tune: %s: %d of %d size ranges verified faster than %s "
		       "(the model's choice kept), %d left to %s\n", coll_title(pl->coll_id), wins,
		       pl->nr, own, pl->nr - wins, coll_library_mpich(lib) ? "MPICH" : "Open MPI");
		if (getenv("MPIWASM_COLL_LOG"))
			for (int j = 0; j < pl->nr; j++) {
				const coll_range *r = &pl->r[j];
				printf("mpiwasm: tune:   %8d B model %s %.3g us; measured %.3g us vs "
				       "%s %.3g us, at %d B %.3g vs %.3g (noise %.1f%%): %s\n",
				       r->probe, r->model.name ? r->model.name
				                               : coll_alg_name(pl->coll_id, r->model.alg),
				       r->model.t * 1e6, r->t_cand * 1e6, own, r->t_def * 1e6, r->probe2,
				       r->t_cand2 * 1e6, r->t_def2 * 1e6, r->noise * 100,
				       r->win ? "rule" : "algorithm 0");
			}
	}
	printf("mpiwasm: tune: wrote %s (used by later mpiwasm runs of %d ranks, %d on this "
	       "host)\n", path, np, net->local);
}

int coll_tune(const char *cache_dir, const char *lib, coll_tune_fn measure, bool quiet,
              char *err, size_t errlen)
{
	if (!coll_library_supported(lib))
		return fail(err, errlen, "collective tuning supports Open MPI and MPICH; this "
		            "mpiwasm's bridge is built for %s: nothing measured or written", lib);
	bool mpich = coll_library_mpich(lib);
	coll_net net = { 0 };
	int np, rank, writer, nplans = 0;
	static coll_plan plans[COLL_NCOLLS];
	char why[512] = "", host[256], path[4096];
	err[0] = 0;
	/* The model proposes, measurement decides: every rule is timed against
	 * the library's own selection in this job (verify.c). */
	if (measure(&net, &np, &rank, &writer, plans, COLL_NCOLLS, &nplans,
	            mpich ? coll_plan_propose_mpich : coll_plan_propose, why, sizeof why, err,
	            errlen)) {
		if (!*err)
			fail(err, errlen, "the measurement failed without a message");
		return -1;
	}
	coll_plans_decide(plans, nplans);
	if (gethostname(host, sizeof host))
		snprintf(host, sizeof host, "unknown-host");
	host[sizeof host - 1] = 0;
	if (coll_rules_path(cache_dir, host, np, net.local, lib, path, sizeof path))
		return fail(err, errlen, "the rules file's path under %s is too long", cache_dir);
	if (writer) {
		char cdir[4096];
		snprintf(cdir, sizeof cdir, "%s/coll", cache_dir);
		if (make_dirs(cdir))
			return fail(err, errlen, "cannot create %s: %s", cdir, strerror(errno));
		if (write_files(path, np, &net, plans, nplans, why, lib, host, err, errlen))
			return -1;
	}
	if (rank == 0 && !quiet)
		report(np, host, lib, &net, plans, nplans, why, path);
	return 0;
}
