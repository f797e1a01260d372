/* mpich.c - collective tuning under MPICH (src/coll/coll.h, "MPICH"):
 * MPICH's algorithms as the model costs them, the integers of their
 * names in MPIR_CVAR_<COLL>_INTRA_ALGORITHM's description, the plans'
 * candidates, and mpiwasm's own rules file for MPICH (written by tune,
 * read by coll_apply and handed to the bridge).  MPI-free. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

/* MPICH 4.0's MPIR-level algorithms (mpir_coll.c and the CVARs'
 * descriptions) and the model's closest equivalents:
 * - MPI_Allgather brucks, recursive_doubling (power-of-two p only), ring;
 * - MPI_Allreduce recursive_doubling, reduce_scatter_allgather
 *   (Rabenseifner: reduce-scatter by halving, allgather by doubling);
 * - MPI_Alltoall brucks, pairwise, scattered (every send and receive
 *   posted, in blocks: Open MPI's linear);
 * - MPI_Barrier dissemination (Open MPI's bruck);
 * - MPI_Bcast binomial, the two scatter + allgather forms;
 * - MPI_Reduce binomial, reduce_scatter_gather (Rabenseifner);
 * - MPI_Reduce_scatter pairwise (p-1 steps of one block: the ring's
 *   cost), recursive_halving, recursive_doubling (every step exchanges
 *   the whole vector, as recursive-doubling allreduce). */
const coll_mpich_alg coll_mpich_algs[] = {
	{ COLL_ID_ALLGATHER, "brucks", COLL_ID_ALLGATHER, COLL_AG_BRUCK, 0 },
	{ COLL_ID_ALLGATHER, "recursive_doubling", COLL_ID_ALLGATHER, COLL_AG_RDBL, 1 },
	{ COLL_ID_ALLGATHER, "ring", COLL_ID_ALLGATHER, COLL_AG_RING, 0 },
	{ COLL_ID_ALLREDUCE, "recursive_doubling", COLL_ID_ALLREDUCE, COLL_AR_RDBL, 0 },
	{ COLL_ID_ALLREDUCE, "reduce_scatter_allgather", COLL_ID_ALLREDUCE,
	  COLL_AR_RABENSEIFNER, 0 },
	{ COLL_ID_ALLTOALL, "brucks", COLL_ID_ALLTOALL, COLL_A2A_BRUCK, 0 },
	{ COLL_ID_ALLTOALL, "pairwise", COLL_ID_ALLTOALL, COLL_A2A_PAIRWISE, 0 },
	{ COLL_ID_ALLTOALL, "scattered", COLL_ID_ALLTOALL, COLL_A2A_LINEAR, 0 },
	{ COLL_ID_BARRIER, "dissemination", COLL_ID_BARRIER, COLL_BAR_BRUCK, 0 },
	{ COLL_ID_BCAST, "binomial", COLL_ID_BCAST, COLL_BC_BINOMIAL, 0 },
	{ COLL_ID_BCAST, "scatter_recursive_doubling_allgather", COLL_ID_BCAST,
	  COLL_BC_SCATTER_ALLGATHER, 0 },
	{ COLL_ID_BCAST, "scatter_ring_allgather", COLL_ID_BCAST,
	  COLL_BC_SCATTER_ALLGATHER_RING, 0 },
	{ COLL_ID_REDUCE, "binomial", COLL_ID_REDUCE, COLL_RED_BINOMIAL, 0 },
	{ COLL_ID_REDUCE, "reduce_scatter_gather", COLL_ID_REDUCE, COLL_RED_RABENSEIFNER, 0 },
	{ COLL_ID_REDUCE_SCATTER, "pairwise", COLL_ID_REDUCE_SCATTER, COLL_RS_RING, 0 },
	{ COLL_ID_REDUCE_SCATTER, "recursive_halving", COLL_ID_REDUCE_SCATTER,
	  COLL_RS_HALVING, 0 },
	{ COLL_ID_REDUCE_SCATTER, "recursive_doubling", COLL_ID_ALLREDUCE, COLL_AR_RDBL, 0 },
};
const int coll_mpich_nalgs = (int)(sizeof coll_mpich_algs / sizeof *coll_mpich_algs);

static int pof2(int p)
{
	return p > 0 && !(p & (p - 1));
}

coll_choice coll_choose_mpich(int coll_id, int p, double n, const coll_net *net)
{
	coll_choice best = { 0, 0, 0, 0, NULL };
	int k = 0;
	for (int i = 0; i < coll_mpich_nalgs; i++) {
		const coll_mpich_alg *a = &coll_mpich_algs[i];
		if (a->coll_id != coll_id)
			continue;
		k++;
		if (a->pof2_only && !pof2(p))
			continue;
		double t = coll_cost(a->model_coll, a->model_alg, p, n, 0, 0, net);
		if (t < 0)
			continue;
		if (!best.alg || t < best.t * 0.98)
			best = (coll_choice){ k, 0, 0, t, a->name };
	}
	return best;
}

void coll_plan_propose_mpich(coll_plan *plan, int coll_id, int p, const coll_net *net)
{
	coll_plan_propose(plan, coll_id, p, net);
	for (int i = 0; i < plan->nr; i++)
		plan->r[i].model = coll_choose_mpich(coll_id, p, plan->r[i].probe, net);
}

int coll_mpich_rules_write(FILE *f, int np, int local, const coll_net *net,
                           const coll_plan *plans, int nplans, const char *library,
                           const char *host)
{
	int wins = 0;
	for (int k = 0; k < nplans; k++)
		for (int i = 0; i < plans[k].nr; i++)
			wins += plans[k].r[i].win && plans[k].r[i].model.name;
	fprintf(f, "# MPICH collective rules written by `mpiwasm tune`\n"
	        "# host %s, %d ranks, %d on this host, %s\n"
	        "# measured: alpha %.6g s, beta %.6g s/B, gamma %.6g s/B\n"
	        "# the Hockney model proposed, measurement decided: a rule is an algorithm\n"
	        "# only where it measured at least %.0f%% faster than MPICH's auto selection,\n"
	        "# beyond the noise (the .model file beside this one has every range).\n"
	        "# Applied by mpiwasm's MPI bridge: before a call of COLL on a communicator\n"
	        "# of P ranks with a size in [LO, HI) bytes (HI -1: no end) it sets\n"
	        "# MPIR_CVAR_<COLL>_INTRA_ALGORITHM to NAME through MPI_T, elsewhere to auto.\n"
	        "# rule COLL P LO HI NAME\n",
	        host, np, local, library, net->alpha, net->beta, net->gamma,
	        COLL_VERIFY_MARGIN * 100);
	if (!wins)
		fprintf(f, "%s\n# (every collective keeps MPICH's auto selection; runs do not "
		        "touch its variables)\n", COLL_NO_RULE_MARK);
	for (int k = 0; k < nplans; k++) {
		const coll_plan *pl = &plans[k];
		for (int i = 0; i < pl->nr; i++) {
			const coll_range *r = &pl->r[i];
			if (!r->win || !r->model.name)
				continue;
			int j = i;   /* the run of ranges the same algorithm won */
			while (j + 1 < pl->nr && pl->r[j + 1].win && pl->r[j + 1].model.name &&
			       !strcmp(pl->r[j + 1].model.name, r->model.name))
				j++;
			long hi = j + 1 < pl->nr ? pl->r[j + 1].lo : -1;
			fprintf(f, "rule %s %d %d %ld %s  # model %.3g us, measured %.3g us vs MPICH's "
			        "auto %.3g us at %d B, %.3g vs %.3g at %d B", coll_name(pl->coll_id),
			        pl->p, r->lo, hi, r->model.name, r->model.t * 1e6, r->t_cand * 1e6,
			        r->t_def * 1e6, r->probe, r->t_cand2 * 1e6, r->t_def2 * 1e6, r->probe2);
			if (j > i)
				fprintf(f, " (and %d more ranges)", j - i);
			fprintf(f, "\n");
			i = j;
		}
	}
	fflush(f);
	return ferror(f) ? -1 : 0;
}

int coll_mpich_rules_read(FILE *f, char *buf, size_t size)
{
	char line[1024];
	size_t o = 0;
	int n = 0, ln = 0;
	buf[0] = 0;
	while (fgets(line, sizeof line, f)) {
		ln++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char coll[64], name[128], extra[8];
		int p;
		long lo, hi;
		int got = sscanf(line, " rule %63s %d %ld %ld %127s %7s", coll, &p, &lo, &hi, name,
		                 extra);
		if (got == EOF || (got <= 0 && strspn(line, " \t\r\n") == strlen(line)))
			continue;
		int known = 0;
		for (int i = 0; i < coll_mpich_nalgs; i++)
			known |= !strcmp(coll_name(coll_mpich_algs[i].coll_id), coll) &&
			         !strcmp(coll_mpich_algs[i].name, name);
		if (got != 5 || p < 1 || lo < 0 || (hi != -1 && hi <= lo) || !known) {
			snprintf(buf, size, "line %d is not a rule \"rule COLL P LO HI NAME\" of a "
			         "modelled algorithm", ln);
			return -1;
		}
		int w = snprintf(buf + o, size - o, "%s%s:%d:%ld:%ld:%s", n ? "," : "", coll, p, lo,
		                 hi, name);
		if (w < 0 || (size_t)w >= size - o) {
			snprintf(buf, size, "too many rules");
			return -1;
		}
		o += (size_t)w;
		n++;
	}
	return n;
}
