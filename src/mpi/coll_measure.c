/* coll_measure.c - the measurement of `mpiwasm tune` (src/coll/coll.h):
 * alpha and beta, of the network and of shared memory, from exchange
 * rounds (every rank with a partner at once, as the model's rounds),
 * gamma from MPI_Reduce_local of doubles.  Runs the host MPI directly (no
 * module is loaded); then (mpib_coll_tune) the model's candidates timed
 * against the library's own selection.  And, under MPICH, the rules a run
 * applies per call (mw_coll_rule).  Uses nothing of src/coll but its
 * header, so that the bridge still links on its own (src/mpi/test). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "coll/coll.h"
#include "mpib.h"
#include "mpib_int.h"

static const int pp_sizes[] = { 8, 256, 4096, 32768, 262144, 1048576 };
#define NSIZES ((int)(sizeof pp_sizes / sizeof *pp_sizes))
#define MAXREPS 200

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int reps_for(int size)
{
	int r = (int)(4e7 / (size + 4096.0));
	return r > MAXREPS ? MAXREPS : r < 11 ? 11 : r;
}

/* The time of one exchange round of `size` bytes: every rank sends to
 * and receives from rank ^ d at once (idle where that is not a rank).
 * The median of 7 batches of the slowest rank's time per exchange; the
 * same on every rank. */
static double exchange_round(int rank, int np, int d, int size, char *sbuf, char *rbuf)
{
	double t[7];
	int peer = rank ^ d, k = reps_for(size) / 7 + 1;
	for (int b = -1; b < 7; b++) {   /* one warm-up batch */
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int i = 0; i < k && peer < np; i++)
			MPI_Sendrecv(sbuf, size, MPI_BYTE, peer, 1, rbuf, size, MPI_BYTE, peer, 1,
			             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		double mine = (MPI_Wtime() - t0) / k, slowest;
		MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		if (b >= 0)
			t[b] = slowest;
	}
	return median(t, 7);
}

/* The pairs (r, r ^ d) of ranks below np: 1 when every one is inside a
 * host, 2 when every one crosses hosts, 0 when mixed or there are none. */
static int pairs_at(const int *host, int np, int d)
{
	int inside = 0, across = 0;
	for (int r = 0; r < np; r++)
		if ((r ^ d) < np) {
			inside += host[r] == host[r ^ d];
			across += host[r] != host[r ^ d];
		}
	return inside && !across ? 1 : across && !inside ? 2 : 0;
}

/* alpha, beta minimizing the relative error sum((alpha + n*beta - t) / t)^2
 * (a plain least-squares fit would be all large messages). */
static void fit(const double *n, const double *t, int m, double *alpha, double *beta)
{
	double sw = 0, swn = 0, swnn = 0, swt = 0, swnt = 0, tmin = INFINITY;
	for (int i = 0; i < m; i++) {
		double w = 1 / (t[i] * t[i]);
		sw += w;
		swn += w * n[i];
		swnn += w * n[i] * n[i];
		swt += w * t[i];
		swnt += w * n[i] * t[i];
		if (t[i] < tmin)
			tmin = t[i];
	}
	double det = sw * swnn - swn * swn;
	*alpha = (swt * swnn - swn * swnt) / det;
	*beta = (sw * swnt - swn * swt) / det;
	/* A negative intercept or slope is noise: clamp to what was seen. */
	if (!(*alpha > 0))
		*alpha = tmin;
	if (!(*beta > 0))
		*beta = 1e-12;
}

/* ---- verification: the model's candidates against Open MPI's own ------- */

/* The collectives tuned, their MCA names (coll_tuned_<name>_algorithm)
 * and MPICH's variables: src/coll's coll_ids and coll_name(), spelled out
 * here because the bridge links without src/coll (src/mpi/test). */
static const struct {
	int id;
	const char *name, *cvar;
} colls[COLL_NCOLLS] = {
	{ COLL_ID_ALLGATHER, "allgather", "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM" },
	{ COLL_ID_ALLREDUCE, "allreduce", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM" },
	{ COLL_ID_ALLTOALL, "alltoall", "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM" },
	{ COLL_ID_BARRIER, "barrier", "MPIR_CVAR_BARRIER_INTRA_ALGORITHM" },
	{ COLL_ID_BCAST, "bcast", "MPIR_CVAR_BCAST_INTRA_ALGORITHM" },
	{ COLL_ID_REDUCE, "reduce", "MPIR_CVAR_REDUCE_INTRA_ALGORITHM" },
	{ COLL_ID_REDUCE_SCATTER, "reduce_scatter", "MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM" },
};

#ifdef MPICH_VERSION
static int coll_index(int coll_id)
{
	for (int k = 0; k < COLL_NCOLLS; k++)
		if (colls[k].id == coll_id)
			return k;
	return -1;
}

/* MPICH's MPIR_CVAR_<COLL>_INTRA_ALGORITHM of collective k: a handle
 * (MPI_T initialized) and the integer of algorithm `name` in its
 * description (coll_mpich_value; 0 for NULL: auto).  0, or -1 with one
 * line in why. */
static int mpich_var(int k, const char *name, MPI_T_cvar_handle *h, int *value, char *why,
                     size_t whylen)
{
	char vname[128], desc[4096];
	int idx, cnt, nl = (int)sizeof vname, dl = (int)sizeof desc, verb, bind, scope;
	MPI_Datatype dt;
	MPI_T_enum en;
	if (MPI_T_cvar_get_index(colls[k].cvar, &idx) != MPI_SUCCESS ||
	    MPI_T_cvar_get_info(idx, vname, &nl, &verb, &dt, &en, desc, &dl, &bind,
	                        &scope) != MPI_SUCCESS || dt != MPI_INT) {
		snprintf(why, whylen, "no integer control variable %s", colls[k].cvar);
		return -1;
	}
	*value = name ? coll_mpich_value(desc, name) : 0;
	if (*value < 0) {
		snprintf(why, whylen, "cannot read the number of algorithm %s from %s's "
		         "description (\"%.60s...\")", name, colls[k].cvar, desc);
		return -1;
	}
	if (MPI_T_cvar_handle_alloc(idx, NULL, h, &cnt) != MPI_SUCCESS || cnt != 1) {
		snprintf(why, whylen, "cannot bind a handle to %s", colls[k].cvar);
		return -1;
	}
	return 0;
}
#endif

#ifndef MPICH_VERSION
/* Writes an int MPI_T control variable; 0, or -1 (MPI_T error or no such
 * variable). */
static int cvar_set(const char *name, int v)
{
	int idx, cnt;
	MPI_T_cvar_handle h;
	if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS)
		return -1;
	if (MPI_T_cvar_handle_alloc(idx, NULL, &h, &cnt) != MPI_SUCCESS)
		return -1;
	int rc = MPI_T_cvar_write(h, &v);
	MPI_T_cvar_handle_free(&h);
	return rc == MPI_SUCCESS ? 0 : -1;
}

/* A communicator on which coll/tuned runs collective `coll_id` with
 * algorithm alg (0: Open MPI's own decision): the forced-algorithm control
 * variables are written, then MPI_COMM_WORLD duplicated (coll/tuned reads
 * them when it is enabled on a new communicator; use_dynamic_rules is set
 * in the environment before MPI_Init).  The other collectives are left to
 * Open MPI.  Only coll_tuned_<coll>_algorithm must exist: the segment size
 * and fanouts are written where the collective has them (MPI_Barrier has
 * none).  MPI_COMM_NULL with *what naming the variable that failed. */
static MPI_Comm forced_comm(int coll_id, int alg, int fanout, int segsize, const char **what)
{
	static char failed[128];
	static const char *const knobs[4] = { "algorithm", "algorithm_segmentsize",
	                                      "algorithm_chain_fanout", "algorithm_tree_fanout" };
	int fan = fanout > 0 ? fanout : 4;   /* Open MPI's default fanouts */
	for (int k = 0; k < COLL_NCOLLS; k++) {
		int mine = colls[k].id == coll_id;
		int v[4] = { mine ? alg : 0, mine ? segsize : 0, mine ? fan : 4, mine ? fan : 4 };
		for (int j = 0; j < 4; j++) {
			char name[128];
			snprintf(name, sizeof name, "coll_tuned_%s_%s", colls[k].name, knobs[j]);
			if (cvar_set(name, v[j]) && j == 0) {
				snprintf(failed, sizeof failed, "%s", name);
				*what = failed;
				return MPI_COMM_NULL;
			}
		}
	}
	MPI_Comm c;
	if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS) {
		*what = "MPI_Comm_dup";
		return MPI_COMM_NULL;
	}
	return c;
}
#endif

/* One call of the collective for `bytes` (its size in the rules file,
 * coll_cost): doubles, MPI_SUM, root 0; MPI_Allgather and MPI_Alltoall
 * with blocks of bytes/p (at least one double), MPI_Reduce_scatter with
 * the counts summing to bytes/8 (the first ranks one more where it does
 * not divide).  buf and out hold VMAXBYTES each. */
static void one_call(int coll_id, MPI_Comm c, int bytes, double *buf, double *out, int *rcounts)
{
	int p, count = bytes / (int)sizeof(double);
	MPI_Comm_size(c, &p);
	int block = count / p > 0 ? count / p : 1;
	switch (coll_id) {
	case COLL_ID_ALLREDUCE:
		MPI_Allreduce(buf, out, count, MPI_DOUBLE, MPI_SUM, c);
		break;
	case COLL_ID_BCAST:
		MPI_Bcast(buf, count, MPI_DOUBLE, 0, c);
		break;
	case COLL_ID_ALLGATHER:
		MPI_Allgather(buf, block, MPI_DOUBLE, out, block, MPI_DOUBLE, c);
		break;
	case COLL_ID_ALLTOALL:
		MPI_Alltoall(buf, block, MPI_DOUBLE, out, block, MPI_DOUBLE, c);
		break;
	case COLL_ID_BARRIER:
		MPI_Barrier(c);
		break;
	case COLL_ID_REDUCE:
		MPI_Reduce(buf, out, count, MPI_DOUBLE, MPI_SUM, 0, c);
		break;
	case COLL_ID_REDUCE_SCATTER:
		for (int i = 0; i < p; i++)
			rcounts[i] = count / p + (i < count % p);
		MPI_Reduce_scatter(buf, out, rcounts, MPI_DOUBLE, MPI_SUM, c);
		break;
	}
}

/* What a measured call runs: a communicator (Open MPI: one duplicated
 * after its algorithm was forced), and under MPICH the value written to
 * the collective's variable before each batch (has_var). */
typedef struct side {
	MPI_Comm c;
	int has_var, value;
	MPI_T_cvar_handle h;
} side;

/* Seconds per call of k calls of the collective on s, the slowest rank's
 * (the same on every rank). */
static double batch(int coll_id, const side *s, double *buf, double *out, int bytes, int k)
{
	static int rcounts[4096];
	if (s->has_var)
		MPI_T_cvar_write(s->h, (void *)&s->value);
	MPI_Barrier(s->c);
	double t0 = MPI_Wtime();
	for (int i = 0; i < k; i++)
		one_call(coll_id, s->c, bytes, buf, out, rcounts);
	double t = (MPI_Wtime() - t0) / k, tmax;
	MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return tmax;
}

#define VROUNDS COLL_VERIFY_ROUNDS   /* alternating repetitions per range */
#define VBATCH 2e-3        /* seconds of calls per repetition (at least one call) */
#define VMAXBYTES (6 << 20)

/* One size: the default and the candidate, alternately, VROUNDS times. */
static void verify_size(int bytes, double *td, double *tc, int coll_id, const side *def,
                        const side *cand, double *buf, double *out)
{
	batch(coll_id, def, buf, out, bytes, 1);    /* warm up both */
	batch(coll_id, cand, buf, out, bytes, 1);
	double t1 = batch(coll_id, def, buf, out, bytes, 1);
	int k = t1 > 0 ? (int)ceil(VBATCH / t1) : 1000;
	k = k < 1 ? 1 : k > 1000 ? 1000 : k;
	for (int i = 0; i < VROUNDS; i++) {
		if (i % 2) {
			tc[i] = batch(coll_id, cand, buf, out, bytes, k);
			td[i] = batch(coll_id, def, buf, out, bytes, k);
		} else {
			td[i] = batch(coll_id, def, buf, out, bytes, k);
			tc[i] = batch(coll_id, cand, buf, out, bytes, k);
		}
	}
}

/* One range: at its two probe sizes. */
static void verify_range(coll_range *r, int coll_id, const side *def, const side *cand,
                         double *buf, double *out)
{
	verify_size(r->probe, r->td, r->tc, coll_id, def, cand, buf, out);
	verify_size(r->probe2, r->td2, r->tc2, coll_id, def, cand, buf, out);
	r->nt = VROUNDS;
	r->measured = 1;
}

#define MAXCOMMS 160

/* Whether collective k is to be measured: all of them, or those named in
 * MPIWASM_TUNE_COLLS ("allreduce,bcast": a shorter run, for tests and
 * for tuning a few collectives; the others keep the library's own
 * selection). */
static int selected(int k)
{
	const char *only = getenv("MPIWASM_TUNE_COLLS");
	size_t n = strlen(colls[k].name);
	if (!only || !*only)
		return 1;
	for (const char *e = only; (e = strstr(e, colls[k].name)); e += n)
		if ((e == only || e[-1] == ',') && (e[n] == ',' || !e[n]))
			return 1;
	return 0;
}

/* What either verify needs first: room for a plan per collective and
 * MPI_T (the algorithms are forced through it); 1 with `why` if not. */
static int verify_begin(int np, int maxplans, char *why, size_t whylen)
{
	int provided;
	if (maxplans < COLL_NCOLLS || np > 4096) {
		snprintf(why, whylen, "no room for the plans");
		return 1;
	}
	if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
		snprintf(why, whylen, "MPI_T_init_thread failed: cannot force algorithms");
		return 1;
	}
	return 0;
}

#ifndef MPICH_VERSION
/* Every tuned collective on MPI_COMM_WORLD, under Open MPI.  Returns the
 * plans filled, 0 with `why` when forcing does not work here. */
static int verify(const coll_net *net, int np, int rank, coll_plan *plans, int maxplans,
                  coll_propose_fn propose, char *why, size_t whylen, int log)
{
	struct { int coll, alg, fan, seg; MPI_Comm c; } comms[MAXCOMMS];
	int ncomms = 0, nplans = 0;
	const char *what = "?";
	if (verify_begin(np, maxplans, why, whylen))
		return 0;
	double *buf = malloc(VMAXBYTES), *out = malloc(VMAXBYTES);
	MPI_Comm def = MPI_COMM_NULL, bad = MPI_COMM_NULL;
	side sdef = { MPI_COMM_NULL, 0, 0, 0 }, sbad = sdef;
	if (!buf || !out) {
		snprintf(why, whylen, "out of memory");
		goto done;
	}
	for (int i = 0; i < VMAXBYTES / (int)sizeof(double); i++)
		buf[i] = 1.0;
	def = forced_comm(COLL_ID_BCAST, 0, 0, 0, &what);
	/* The mechanism must really switch algorithms: a deliberately bad one
	 * (MPI_Bcast of 1 MiB as a pipeline of 64-byte segments) must be far
	 * slower than Open MPI's own choice. */
	if (def != MPI_COMM_NULL)
		bad = forced_comm(COLL_ID_BCAST, COLL_BC_PIPELINE, 1, 64, &what);
	if (def == MPI_COMM_NULL || bad == MPI_COMM_NULL) {
		snprintf(why, whylen, "cannot force an algorithm: %s could not be set", what);
		goto done;
	}
	sdef.c = def;
	sbad.c = bad;
	{
		/* The best of 5 each: a rank descheduled on a loaded node slows
		 * one batch, never speeds one up, so the minima compare the two
		 * algorithms (the medians of 3 once failed the check at load 8). */
		double md = 1e30, mb = 1e30;
		for (int i = 0; i < 5; i++) {
			double t = batch(COLL_ID_BCAST, &sdef, buf, out, 1 << 20, 2);
			md = t < md ? t : md;
			t = batch(COLL_ID_BCAST, &sbad, buf, out, 1 << 20, 2);
			mb = t < mb ? t : mb;
		}
		if (log && rank == 0)
			fprintf(stderr, "mpiwasm: tune: forcing check: 1 MiB MPI_Bcast %.1f us as "
			        "Open MPI chooses, %.1f us forced to 64 B pipeline segments\n",
			        md * 1e6, mb * 1e6);
		if (!(mb > 2 * md)) {
			snprintf(why, whylen, "forcing an algorithm through MPI_T has no effect here "
			         "(1 MiB MPI_Bcast forced to 64 B pipeline segments: %.1f us, Open "
			         "MPI's own: %.1f us)", mb * 1e6, md * 1e6);
			goto done;
		}
	}
	for (int k = 0; k < COLL_NCOLLS; k++) {
		if (!selected(k))
			continue;
		coll_plan *pl = &plans[nplans++];
		propose(pl, colls[k].id, np, net);
		for (int i = 0; i < pl->nr; i++) {
			coll_range *r = &pl->r[i];
			if (r->probe > VMAXBYTES || r->probe2 > VMAXBYTES)
				continue;
			MPI_Comm cand = MPI_COMM_NULL;
			for (int j = 0; j < ncomms; j++)
				if (comms[j].coll == colls[k].id && comms[j].alg == r->model.alg &&
				    comms[j].fan == r->model.fanout && comms[j].seg == r->model.segsize)
					cand = comms[j].c;
			if (cand == MPI_COMM_NULL && ncomms < MAXCOMMS) {
				cand = forced_comm(colls[k].id, r->model.alg, r->model.fanout,
				                   r->model.segsize, &what);
				if (cand == MPI_COMM_NULL)
					continue;   /* not measured: algorithm 0 */
				comms[ncomms].coll = colls[k].id;
				comms[ncomms].alg = r->model.alg;
				comms[ncomms].fan = r->model.fanout;
				comms[ncomms].seg = r->model.segsize;
				comms[ncomms++].c = cand;
			}
			if (cand == MPI_COMM_NULL)
				continue;
			side scand = sdef;
			scand.c = cand;
			verify_range(r, colls[k].id, &sdef, &scand, buf, out);
		}
	}
done:
	for (int j = 0; j < ncomms; j++)
		MPI_Comm_free(&comms[j].c);
	if (def != MPI_COMM_NULL)
		MPI_Comm_free(&def);
	if (bad != MPI_COMM_NULL)
		MPI_Comm_free(&bad);
	free(buf);
	free(out);
	/* MPI_T_finalize before MPI_Finalize: the other order crashes in Open
	 * MPI 4.1.4 (measured: SIGSEGV in MPI_Finalize's shared-memory teardown). */
	MPI_T_finalize();
	return nplans;
}
#else
/* Every tuned collective on MPI_COMM_WORLD, under MPICH: the default and
 * the candidate on one communicator, MPIR_CVAR_<COLL>_INTRA_ALGORITHM
 * written before each batch (auto, 0, for the default).  Returns the
 * plans filled; 0 with `why` when forcing does not work here; -1 with
 * `why` when this MPICH's descriptions do not give the algorithms'
 * numbers (tune then refuses). */
static int verify(const coll_net *net, int np, int rank, coll_plan *plans, int maxplans,
                  coll_propose_fn propose, char *why, size_t whylen, int log)
{
	int nplans = 0, bad = 0;
	MPI_T_cvar_handle h[COLL_NCOLLS];
	int pk[COLL_NCOLLS];   /* collective k's plan, its variable in h[]; -1: not measured */
	if (verify_begin(np, maxplans, why, whylen))
		return 0;
	/* Every plan first, so that every candidate's number is read before
	 * anything is measured: a description that does not read refuses the
	 * whole run, on every rank alike. */
	for (int k = 0; k < COLL_NCOLLS; k++)
		pk[k] = -1;
	for (int k = 0; k < COLL_NCOLLS && !bad; k++) {
		if (!selected(k))
			continue;
		coll_plan *pl = &plans[nplans];
		int v0;
		propose(pl, colls[k].id, np, net);
		if (mpich_var(k, NULL, &h[nplans], &v0, why, whylen)) {
			bad = -1;
			break;
		}
		pk[k] = nplans++;
		for (int i = 0; i < pl->nr && !bad; i++) {
			int v;
			MPI_T_cvar_handle tmp;
			if (!pl->r[i].model.name)
				continue;
			if (mpich_var(k, pl->r[i].model.name, &tmp, &v, why, whylen))
				bad = -1;
			else
				MPI_T_cvar_handle_free(&tmp);
		}
	}
	/* The writes must hold: a value written reads back (MPICH reads the
	 * variable inside each call: bench/coll/MPICH.md measured the
	 * algorithms change per batch; tests/coll checks a rule per call). */
	for (int k = 0; k < COLL_NCOLLS && !bad; k++) {
		int v = 1, back = -1, zero = 0;
		if (pk[k] < 0)
			continue;
		MPI_T_cvar_write(h[pk[k]], &v);
		MPI_T_cvar_read(h[pk[k]], &back);
		MPI_T_cvar_write(h[pk[k]], &zero);
		if (back != 1) {
			snprintf(why, whylen, "forcing an algorithm through MPI_T has no effect here "
			         "(%s written 1, read %d)", colls[k].cvar, back);
			bad = 1;
		}
	}
	double *buf = bad ? NULL : malloc(VMAXBYTES), *out = bad ? NULL : malloc(VMAXBYTES);
	MPI_Comm c = MPI_COMM_NULL;
	if (!bad && (!buf || !out || MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS)) {
		snprintf(why, whylen, "out of memory");
		bad = 1;
	}
	for (int i = 0; !bad && i < VMAXBYTES / (int)sizeof(double); i++)
		buf[i] = 1.0;
	for (int k = 0; k < COLL_NCOLLS && !bad; k++) {
		if (pk[k] < 0)
			continue;
		coll_plan *pl = &plans[pk[k]];
		side sdef = { c, 1, 0, h[pk[k]] };
		for (int i = 0; i < pl->nr; i++) {
			coll_range *r = &pl->r[i];
			side scand = sdef;
			MPI_T_cvar_handle tmp;
			if (r->probe > VMAXBYTES || r->probe2 > VMAXBYTES || !r->model.name ||
			    mpich_var(k, r->model.name, &tmp, &scand.value, why, whylen))
				continue;   /* not measured: auto */
			MPI_T_cvar_handle_free(&tmp);
			verify_range(r, colls[k].id, &sdef, &scand, buf, out);
		}
		int zero = 0;
		MPI_T_cvar_write(h[pk[k]], &zero);
		if (log && rank == 0)
			fprintf(stderr, "mpiwasm: tune: %s measured\n", colls[k].cvar);
	}
	if (c != MPI_COMM_NULL)
		MPI_Comm_free(&c);
	for (int j = 0; j < nplans; j++)
		MPI_T_cvar_handle_free(&h[j]);
	free(buf);
	free(out);
	MPI_T_finalize();
	return bad < 0 ? -1 : bad ? 0 : nplans;
}
#endif

/* The model's ranks per host (coll_net.ppn) from each rank's host (the
 * lowest world rank on it) and this rank's host's size: ppn when every
 * host has ppn consecutive ranks (block placement, what the model's
 * rounds assume); 1 otherwise (every message counted as a network one). */
static int placement(const int *host, int np, int nodesize)
{
	/* block placement on one rank's host size holds for every rank's
	 * (all hosts are then blocks of that size): the ranks agree */
	int ppn = nodesize;
	for (int r = 0; r < np; r++)
		if (np % ppn || host[r] != r - r % ppn)
			return 1;
	return ppn;
}

int mpib_coll_tune(coll_net *net, int *np, int *rank, int *writer, coll_plan *plans,
                   int maxplans, int *nplans, coll_propose_fn propose, char *why,
                   size_t whylen, char *err, size_t errlen)
{
	*nplans = 0;
#ifndef MPICH_VERSION
	if (plans && propose) {
		/* coll/tuned must take the dynamic path on every communicator (so
		 * that forced algorithms are read), with no rules file: algorithm
		 * 0 then is Open MPI's fixed decision, the default of a run. */
		setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
		unsetenv("OMPI_MCA_coll_tuned_dynamic_rules_filename");
	}
#endif
	int rc = MPI_Init(NULL, NULL);
	if (rc != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Init failed (error %d)", rc);
		return -1;
	}
	MPI_Comm_size(MPI_COMM_WORLD, np);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	const char *lv = getenv("MPIWASM_COLL_LOG");
	int log = lv && *lv && strcmp(lv, "0");

	int maxsize = pp_sizes[NSIZES - 1];
	char *buf = calloc(1, (size_t)maxsize), *rbuf = calloc(1, (size_t)maxsize);
	double pn[NSIZES], pt[NSIZES];
	enum { GN = 131072 };   /* 1 MiB of doubles for gamma */
	double *a = malloc(GN * sizeof *a), *b = malloc(GN * sizeof *b);
	if (!buf || !rbuf || !a || !b) {
		snprintf(err, errlen, "out of memory");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return -1;
	}

	/* The hosts (MPI_COMM_TYPE_SHARED): each rank's host is named by the
	 * lowest world rank on it. */
	int *host = malloc(sizeof *host * (size_t)*np), noderank = 0, nodesize = 1, leader = *rank;
	MPI_Comm node;
	if (!host) {
		snprintf(err, errlen, "out of memory");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return -1;
	}
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
	                        &node) == MPI_SUCCESS) {
		MPI_Comm_rank(node, &noderank);
		MPI_Comm_size(node, &nodesize);
		MPI_Bcast(&leader, 1, MPI_INT, 0, node);
		MPI_Comm_free(&node);
	}
	MPI_Allgather(&leader, 1, MPI_INT, host, 1, MPI_INT, MPI_COMM_WORLD);
	int ppn = placement(host, *np, nodesize);

	/* Exchange rounds, as the model costs them: every rank at once with
	 * its partner rank ^ d.  The shared-memory round (d = 1) where every
	 * such pair is on one host; the network round at the first power of
	 * two d >= ppn, where every pair crosses, so that all ppn ranks of a
	 * host share its link: that round's beta is ppn times the link's.
	 * When one kind cannot be made (one rank per host, or one host) both
	 * levels get the other's figures. */
	int dnet = 1;
	while (dnet < ppn)
		dnet *= 2;
	int has_shm = pairs_at(host, *np, 1) == 1, has_net = pairs_at(host, *np, dnet) == 2;
	if (!has_shm && !has_net)
		has_net = 1;   /* hosts not in blocks (ppn 1): a mixed round, costed as the network */
	double ab[4] = { 0, 0, 0, 0 };   /* network alpha, beta; shared memory alpha, beta */
	for (int level = 0; level < 2; level++) {
		int d = level ? 1 : dnet;
		if (!(level ? has_shm : has_net))
			continue;
		for (int s = 0; s < NSIZES; s++) {
			pn[s] = pp_sizes[s];
			pt[s] = exchange_round(*rank, *np, d, pp_sizes[s], buf, rbuf);
			if (log && *rank == 0)
				fprintf(stderr, "mpiwasm: tune: exchange round at distance %d (%s) %d B: "
				        "%.3f us\n", d, level ? "inside the hosts" : "across hosts",
				        pp_sizes[s], pt[s] * 1e6);
		}
		fit(pn, pt, NSIZES, &ab[2 * level], &ab[2 * level + 1]);
	}
	if (has_net)
		ab[1] /= ppn;   /* the ppn ranks of a host crossed at once */
	if (!has_net)
		ab[0] = ab[2], ab[1] = ab[3];
	if (!has_shm)
		ab[2] = ab[0], ab[3] = ab[1];
	/* every rank fitted the same figures (exchange_round's are the
	 * slowest rank's); rank 0's are the ones written */
	MPI_Bcast(ab, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);

	/* gamma: every rank at once (as in a collective), the slowest counts. */
	double g[15];
	for (int i = 0; i < GN; i++) {
		a[i] = i * 0.5;
		b[i] = 1.0;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = -2; i < 15; i++) {
		double t0 = MPI_Wtime();
		MPI_Reduce_local(a, b, GN, MPI_DOUBLE, MPI_SUM);
		if (i >= 0)
			g[i] = (MPI_Wtime() - t0) / (GN * sizeof(double));
	}
	double gamma = median(g, 15), gmax;
	MPI_Allreduce(&gamma, &gmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

	*writer = noderank == 0;
	net->alpha = ab[0];
	net->beta = ab[1];
	net->gamma = gmax;
	net->ppn = ppn;
	net->alpha_shm = ab[2];
	net->beta_shm = ab[3];
	net->local = nodesize;
	free(host);
	int refused = 0;
	if (plans && propose && *np > 1) {
		*nplans = verify(net, *np, *rank, plans, maxplans, propose, why, whylen, log);
		if (*nplans < 0) {
			*nplans = 0;
			refused = 1;
		}
	}
	free(buf);
	free(rbuf);
	free(a);
	free(b);
	MPI_Finalize();
	if (refused) {
		snprintf(err, errlen, "%s: %s: nothing written", mpib_library(), why);
		return -1;
	}
	if (*np < 2) {
		snprintf(err, errlen, "one rank only: nothing to measure "
		         "(run it as mpirun -np N mpiwasm tune)");
		return -1;
	}
	return 0;
}

/* ---- MPICH: the verified rules, applied per call ------------------------- */

int mw_coll_rules = -1;   /* every bit, until mw_coll_rule first looked */

#ifdef MPICH_VERSION
#define MAXRULES (COLL_NCOLLS * COLL_VERIFY_NRANGES)
static struct { int k, p, value; long long lo, hi; } rules[MAXRULES];
static int nrules;
/* Per collective: its variable, whether a rule names it, and the value
 * last written (0: auto, what MPICH starts with). */
static struct { MPI_T_cvar_handle h; int used, cur; } vars[COLL_NCOLLS];
/* Bit 1 << k: the module set collective k's variable itself (MPI_T). */
static int module_set;

/* One line on stderr, written at once (every rank says it together). */
static void rules_say(const char *what, const char *why)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "mpiwasm: %s%s\n", what, why);
	fflush(stderr);
	if (write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0) {
		/* nothing else to say it with */
	}
}

/* The rules coll_apply handed over (MPIWASM_COLL_MPICH_RULES: this
 * process's pid, ';', then "COLL:P:LO:HI:NAME" joined by ','), each name's value read from this MPICH's
 * description.  Any rule that does not resolve drops them all, saying so
 * once: half a rule set is not what tune verified. */
static void rules_load(void)
{
	const char *env = getenv("MPIWASM_COLL_MPICH_RULES");
	const char *lv = getenv("MPIWASM_COLL_LOG");
	int log = lv && *lv && strcmp(lv, "0"), provided;
	char why[512] = "";
	char *end;
	if (!env || !*env)
		return;
	/* only what coll_apply set in this process, after checking the file */
	if (strtol(env, &end, 10) != (long)getpid() || *end != ';')
		return;
	env = end + 1;
	if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
		rules_say("warning: collective rules not applied: ", "MPI_T_init_thread failed");
		return;
	}
	for (const char *e = env; *e && !*why; ) {
		char coll[64], name[128];
		int p, used = 0, k;
		long long lo, hi;
		if (sscanf(e, "%63[a-z_]:%d:%lld:%lld:%127[a-z_]%n", coll, &p, &lo, &hi, name,
		           &used) != 5 || nrules == MAXRULES) {
			snprintf(why, sizeof why, "MPIWASM_COLL_MPICH_RULES does not read as rules");
			break;
		}
		e += used + (e[used] == ',');
		for (k = 0; k < COLL_NCOLLS && strcmp(colls[k].name, coll); k++)
			;
		if (k == COLL_NCOLLS) {
			snprintf(why, sizeof why, "no collective %s", coll);
			break;
		}
		if (module_set & 1 << k)
			continue;   /* the module's own choice (mw_coll_cvar_written) */
		if (!vars[k].used) {
			int zero;
			if (mpich_var(k, NULL, &vars[k].h, &zero, why, sizeof why))
				break;
			vars[k].used = 1;
		}
		MPI_T_cvar_handle tmp;
		int v;
		if (mpich_var(k, name, &tmp, &v, why, sizeof why))
			break;
		MPI_T_cvar_handle_free(&tmp);
		rules[nrules].k = k;
		rules[nrules].p = p;
		rules[nrules].lo = lo;
		rules[nrules].hi = hi < 0 ? -1 : hi;
		rules[nrules++].value = v;
	}
	if (*why) {
		char what[256];
		snprintf(what, sizeof what, "warning: collective rules not applied (%s): ",
		         mpib_library());
		rules_say(what, why);
		for (int k = 0; k < COLL_NCOLLS; k++)
			if (vars[k].used)
				MPI_T_cvar_handle_free(&vars[k].h);
		memset(vars, 0, sizeof vars);
		nrules = 0;
		return;
	}
	if (log) {
		char n[64];
		snprintf(n, sizeof n, "%d", nrules);
		rules_say("coll tuning: MPICH rules set per call: ", n);
	}
}
#endif

void mw_coll_rule(int coll_id, int p, long long bytes)
{
#ifdef MPICH_VERSION
	static int loaded;
	if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) {
		mw_lock();
		if (!loaded) {
			rules_load();
			int mask = 0;
			for (int k = 0; k < COLL_NCOLLS; k++)
				mask |= vars[k].used ? 1 << colls[k].id : 0;
			__atomic_store_n(&mw_coll_rules, mask, __ATOMIC_RELAXED);
			__atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
		}
		mw_unlock();
	}
	int k = coll_index(coll_id);
	if (k < 0 || !vars[k].used)
		return;
	int v = 0;
	for (int i = 0; i < nrules && bytes >= 0; i++)
		if (rules[i].k == k && rules[i].p == p && bytes >= rules[i].lo &&
		    (rules[i].hi < 0 || bytes < rules[i].hi))
			v = rules[i].value;
	/* written only when it changes; the value last written is shared by
	 * the module's threads, the write and its record under the lock */
	if (v != __atomic_load_n(&vars[k].cur, __ATOMIC_RELAXED)) {
		mw_lock();
		if (vars[k].used && v != vars[k].cur && MPI_T_cvar_write(vars[k].h, &v) == MPI_SUCCESS)
			__atomic_store_n(&vars[k].cur, v, __ATOMIC_RELAXED);
		mw_unlock();
	}
#else
	/* Open MPI applies its own rules file (coll_apply, before MPI_Init) */
	(void)coll_id, (void)p, (void)bytes;
	mw_coll_rules = 0;
#endif
}

void mw_coll_cvar_written(int index)
{
#ifdef MPICH_VERSION
	char name[128];
	int nlen = (int)sizeof name;
	if (MPI_T_cvar_get_info(index, name, &nlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL) !=
	    MPI_SUCCESS)
		return;
	for (int k = 0; k < COLL_NCOLLS; k++) {
		if (strcmp(colls[k].cvar, name) || module_set & 1 << k)
			continue;
		mw_lock();
		module_set |= 1 << k;
		/* a later collective's rule_load (if none ran yet) skips it */
		if (vars[k].used) {
			vars[k].used = 0;
			MPI_T_cvar_handle_free(&vars[k].h);
			__atomic_and_fetch(&mw_coll_rules, ~(1 << colls[k].id), __ATOMIC_RELAXED);
		}
		mw_unlock();
		const char *lv = getenv("MPIWASM_COLL_LOG");
		if (lv && *lv && strcmp(lv, "0"))
			rules_say("coll tuning: the module set its own ", name);
	}
#else
	(void)index;
#endif
}
