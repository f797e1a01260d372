/* verify.c - the model proposes, measurement decides (src/coll/coll.h):
 * the message-size ranges a verified rules file is made of, the decision
 * rule between a measured candidate and the library's own selection, and the
 * rules file / .model record written from the decisions.  MPI-free: the
 * timings come from the bridge (src/mpi/coll_verify.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

void coll_plan_propose(coll_plan *plan, int coll_id, int p, const coll_net *net)
{
	memset(plan, 0, sizeof *plan);
	plan->coll_id = coll_id;
	plan->p = p;
	/* MPI_Barrier has no message: one range, its rule for every call */
	plan->nr = coll_id == COLL_ID_BARRIER ? 1 : COLL_VERIFY_NRANGES;
	for (int i = 0; i < plan->nr; i++) {
		coll_range *r = &plan->r[i];
		r->lo = i ? 8 << i : 0;
		r->probe = i ? r->lo : coll_id == COLL_ID_BARRIER ? 0 : 8;
		r->probe2 = i ? r->lo + r->lo / 2 : r->probe;
		r->model = coll_choose(coll_id, p, r->probe, net);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Quantile q of sorted v[0..n) (linear interpolation). */
static double quantile(const double *v, int n, double q)
{
	double x = q * (n - 1);
	int i = (int)x;
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (x - i) * (v[i + 1] - v[i]);
}

#define MAXT 256

bool coll_verify_decide(const double *t_def, int n_d, const double *t_cand, int n_c,
                        double margin, double *med_def, double *med_cand, double *noise)
{
	double d[MAXT], c[MAXT];
	if (med_def)
		*med_def = 0;
	if (med_cand)
		*med_cand = 0;
	if (noise)
		*noise = 0;
	if (n_d < 3 || n_c < 3 || n_d > MAXT || n_c > MAXT)
		return false;
	for (int i = 0; i < n_d; i++)
		if (!((d[i] = t_def[i]) > 0))
			return false;
	for (int i = 0; i < n_c; i++)
		if (!((c[i] = t_cand[i]) > 0))
			return false;
	qsort(d, (size_t)n_d, sizeof *d, cmp_double);
	qsort(c, (size_t)n_c, sizeof *c, cmp_double);
	double md = quantile(d, n_d, 0.5), mc = quantile(c, n_c, 0.5);
	double d1 = quantile(d, n_d, 0.25), c3 = quantile(c, n_c, 0.75);
	double nd = (quantile(d, n_d, 0.75) - d1) / 2 / md;
	double nc = (c3 - quantile(c, n_c, 0.25)) / 2 / mc;
	if (med_def)
		*med_def = md;
	if (med_cand)
		*med_cand = mc;
	if (noise)
		*noise = nd > nc ? nd : nc;
	return mc <= (1 - margin) * md && c3 < d1;
}

void coll_plans_decide(coll_plan *plans, int nplans)
{
	for (int k = 0; k < nplans; k++)
		for (int i = 0; i < plans[k].nr; i++) {
			coll_range *r = &plans[k].r[i];
			double n2 = 0;
			r->win = 0;
			if (!r->measured)
				continue;
			bool w1 = coll_verify_decide(r->td, r->nt, r->tc, r->nt, COLL_VERIFY_MARGIN,
			                             &r->t_def, &r->t_cand, &r->noise);
			bool w2 = coll_verify_decide(r->td2, r->nt, r->tc2, r->nt, COLL_VERIFY_MARGIN,
			                             &r->t_def2, &r->t_cand2, &n2);
			if (n2 > r->noise)
				r->noise = n2;
			r->win = w1 && w2;
		}
}

static const coll_plan *find_plan(const coll_plan *plans, int nplans, int coll_id, int p)
{
	for (int i = 0; i < nplans; i++)
		if (plans[i].coll_id == coll_id && plans[i].p == p)
			return &plans[i];
	return NULL;
}

static void write_coll(FILE *f, int coll_id, int np, const coll_plan *plans, int nplans)
{
	fprintf(f, "%d  # collective id: %s\n", coll_id, coll_title(coll_id));
	fprintf(f, "%d  # communicator sizes\n", np);
	for (int p = 2; p <= np + 1; p++) {
		const coll_plan *pl = p <= np ? find_plan(plans, nplans, coll_id, p) : NULL;
		const coll_range *use[COLL_VERIFY_NRANGES];
		int nl = 0;
		for (int i = 0; pl && i < pl->nr; i++) {
			const coll_range *r = &pl->r[i];
			const coll_range *prev = nl ? use[nl - 1] : NULL;
			int a = r->win ? r->model.alg : 0;
			if (prev) {
				int pa = prev->win ? prev->model.alg : 0;
				if (pa == a && (!a || (prev->model.fanout == r->model.fanout &&
				                       prev->model.segsize == r->model.segsize)))
					continue;
			}
			use[nl++] = r;
		}
		fprintf(f, "%d  # communicator size%s\n%d  # message sizes\n", p,
		        pl ? ", verified" : p <= np ? ", not measured: Open MPI's fixed rules"
		                                    : ": Open MPI's fixed rules", nl ? nl : 1);
		if (!nl) {
			fprintf(f, "0 0 0 0  # Open MPI's fixed rules\n");
			continue;
		}
		for (int i = 0; i < nl; i++) {
			const coll_range *r = use[i];
			if (r->win)
				fprintf(f, "%d %d %d %d  # %s: model %.3g us, measured %.3g us vs Open MPI's "
				        "%.3g us at %d B, %.3g vs %.3g at %d B\n",
				        r->lo, r->model.alg, r->model.fanout, r->model.segsize,
				        coll_alg_name(coll_id, r->model.alg), r->model.t * 1e6, r->t_cand * 1e6,
				        r->t_def * 1e6, r->probe, r->t_cand2 * 1e6, r->t_def2 * 1e6, r->probe2);
			else
				fprintf(f, "%d 0 0 0  # Open MPI's fixed rules (no candidate measured faster)\n",
				        r->lo);
		}
	}
}

int coll_rules_write_plans(FILE *f, int np, const coll_net *net, const coll_plan *plans,
                           int nplans, const char *library, const char *host)
{
	fprintf(f, "# Open MPI coll/tuned dynamic rules written by `mpiwasm tune`\n"
	        "# host %s, %d ranks, %s\n"
	        "# measured: alpha %.6g s, beta %.6g s/B, gamma %.6g s/B\n"
	        "# the Hockney model proposed, measurement decided: a rule is an algorithm\n"
	        "# only where it measured at least %.0f%% faster than Open MPI's own\n"
	        "# selection, beyond the noise (the .model file beside this one has the figures)\n",
	        host, np, library, net->alpha, net->beta, net->gamma, COLL_VERIFY_MARGIN * 100);
	int wins = 0;
	for (int k = 0; k < nplans; k++)
		for (int i = 0; i < plans[k].nr; i++)
			wins += plans[k].r[i].win;
	if (!wins)
		fprintf(f, "%s\n# (every rule below is algorithm 0; coll_apply does not point Open MPI\n"
		        "# at this file, so that runs do not pay for the dynamic-rules lookup)\n",
		        COLL_NO_RULE_MARK);
	fprintf(f, "%d  # collectives\n", COLL_NCOLLS);
	for (int k = 0; k < COLL_NCOLLS; k++)
		write_coll(f, coll_ids[k], np, plans, nplans);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

void coll_plans_record(FILE *f, const coll_plan *plans, int nplans)
{
	fprintf(f, "# verification, per range: range COLL p LO PROBE ALG NAME FANOUT SEGSIZE "
	        "predicted_us candidate_us default_us PROBE2 candidate_us default_us noise_pct "
	        "decision\n");
	for (int k = 0; k < nplans; k++) {
		const coll_plan *pl = &plans[k];
		for (int i = 0; i < pl->nr; i++) {
			const coll_range *r = &pl->r[i];
			fprintf(f, "range %s %d %d %d %d %s %d %d %.4g ", coll_name(pl->coll_id), pl->p,
			        r->lo, r->probe, r->model.alg,
			        r->model.name ? r->model.name : coll_alg_name(pl->coll_id, r->model.alg),
			        r->model.fanout, r->model.segsize, r->model.t * 1e6);
			if (r->measured)
				fprintf(f, "%.4g %.4g %d %.4g %.4g %.1f %d\n", r->t_cand * 1e6,
				        r->t_def * 1e6, r->probe2, r->t_cand2 * 1e6, r->t_def2 * 1e6,
				        r->noise * 100, r->win ? r->model.alg : 0);
			else
				fprintf(f, "- - %d - - - 0\n", r->probe2);
		}
	}
}
