/* rules.c - Open MPI's coll/tuned dynamic-rules file: writing it from the
 * model, finding it in the cache directory, and pointing Open MPI at it
 * (MCA parameters in the environment, before MPI_Init).
 *
 * The file (Open MPI 4.x "classic" format) is a sequence of integers;
 * '#' starts a comment to the end of the line:
 *     number of collectives
 *     then per collective: its COLLTYPE id, the number of communicator
 *       sizes, then per communicator size: the size, the number of
 *       message sizes, then per message size one line
 *       "msg_size algorithm fanout segsize".
 * Open MPI uses, for a communicator of size c, the section with the
 * largest size <= c, and in it the line with the largest msg_size <= the
 * call's bytes (count x datatype size); the first message size must be
 * 0.  Algorithm 0 means Open MPI's fixed (compiled-in) decision. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coll/coll.h"

/* The message sizes the model is evaluated at: 0, then 1 B .. 64 MiB in
 * powers of two; a rule line covers [size, next size). */
#define GRID_MAX_LOG2 26

bool coll_library_mpich(const char *library)
{
	return library && !strncmp(library, "MPICH", 5);
}

bool coll_library_supported(const char *library)
{
	return library && (!strncmp(library, "Open MPI", 8) || coll_library_mpich(library));
}

/* One collective's section: a communicator size p per block. */
static int write_coll(FILE *f, int coll_id, int np, const coll_net *net)
{
	fprintf(f, "%d  # collective id: %s\n", coll_id, coll_title(coll_id));
	/* Sizes 2..np, and np+1: larger communicators get the fixed rules. */
	fprintf(f, "%d  # communicator sizes\n", np);
	for (int p = 2; p <= np + 1; p++) {
		coll_choice line[GRID_MAX_LOG2 + 2];
		int lo[GRID_MAX_LOG2 + 2], nl = 0;
		if (p == np + 1) {
			line[0] = (coll_choice){ 0, 0, 0, 0, NULL };
			lo[0] = 0;
			nl = 1;
		} else {
			for (int i = -1; i <= GRID_MAX_LOG2; i++) {
				int n = i < 0 ? 0 : 1 << i;
				coll_choice c = coll_choose(coll_id, p, n ? n : 1, net);
				if (nl && c.alg == line[nl - 1].alg && c.fanout == line[nl - 1].fanout &&
				    c.segsize == line[nl - 1].segsize)
					continue;
				line[nl] = c;
				lo[nl++] = n;
			}
		}
		fprintf(f, "%d  # communicator size\n%d  # message sizes\n", p, nl);
		for (int i = 0; i < nl; i++) {
			fprintf(f, "%d %d %d %d", lo[i], line[i].alg, line[i].fanout, line[i].segsize);
			if (line[i].alg)
				fprintf(f, "  # %s, model %.3g us at %d B\n",
				        coll_alg_name(coll_id, line[i].alg), line[i].t * 1e6,
				        lo[i] ? lo[i] : 1);
			else
				fprintf(f, "  # Open MPI's fixed rules\n");
		}
	}
	return 0;
}

int coll_rules_write(FILE *f, int np, const coll_net *net, const char *library,
                     const char *host)
{
	fprintf(f, "# Open MPI coll/tuned dynamic rules written by `mpiwasm tune`\n"
	        "# host %s, %d ranks, %s\n"
	        "# measured: alpha %.6g s, beta %.6g s/B, gamma %.6g s/B\n"
	        "# (Hockney model: a message of n bytes costs alpha + n*beta)\n",
	        host, np, library, net->alpha, net->beta, net->gamma);
	fprintf(f, "%d  # collectives\n", COLL_NCOLLS);
	for (int k = 0; k < COLL_NCOLLS; k++)
		write_coll(f, coll_ids[k], np, net);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

/* Lower-case letters, digits, '.' and '-' (the rest becomes '-', runs of
 * it one '-'). */
static void clean(char *out, size_t size, const char *in)
{
	size_t o = 0;
	for (; *in && o + 1 < size; in++) {
		unsigned char ch = (unsigned char)*in;
		if (isalnum(ch) || ch == '.')
			out[o++] = (char)tolower(ch);
		else if (o && out[o - 1] != '-')
			out[o++] = '-';
	}
	while (o && out[o - 1] == '-')
		o--;
	out[o] = 0;
}

int coll_rules_path(const char *cache_dir, const char *host, int np, int ppn,
                    const char *library, char *buf, size_t size)
{
	char h[256], l[128];
	clean(h, sizeof h, host);
	clean(l, sizeof l, library);
	int n = snprintf(buf, size, "%s/coll/%s-np%d-ppn%d-%s.rules", cache_dir, h, np, ppn, l);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The cache's trust rule (src/cache/cache.h) for what Open MPI will read:
 * the rules file, its coll/ dir and the cache dir are not symlinks, are
 * ours and are writable by nobody else, so no other user can choose the
 * algorithms of our jobs or point Open MPI at a file of theirs.  Returns
 * NULL, or why not (in why). */
static const char *not_ours(const char *path, bool dir, char *why, size_t len)
{
	struct stat st;
	if (lstat(path, &st))
		snprintf(why, len, "%s: %s", path, strerror(errno));
	else if (S_ISLNK(st.st_mode))
		snprintf(why, len, "%s is a symlink", path);
	else if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		snprintf(why, len, "%s is not a %s", path, dir ? "directory" : "regular file");
	else if (st.st_uid != geteuid())
		snprintf(why, len, "%s is owned by uid %ld", path, (long)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, len, "%s is writable by others", path);
	else
		return NULL;
	return why;
}

/* One line, written with one write(2): every rank says it at the same
 * moment, and lines written in pieces interleave on the shared stderr. */
static void say(bool log, const char *fmt, const char *a, const char *b)
{
	if (!log)
		return;
	char line[1024];
	int n = snprintf(line, sizeof line, "mpiwasm: coll tuning: ");
	n += snprintf(line + n, sizeof line - (size_t)n - 1, fmt, a, b);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	fflush(stderr);
	if (write(2, line, (size_t)n) < 0) {
		/* nothing else to say it with */
	}
}

/* Slurm's count of this step's tasks on node `node`, from its
 * SLURM_STEP_TASKS_PER_NODE: counts per node in node order, a run of equal
 * ones written COUNT(xREPEAT), e.g. "2(x3),1" for 2,2,2,1.  0 if the list
 * is malformed or shorter than node+1. */
int coll_slurm_tasks_on_node(const char *list, int node)
{
	const char *s = list;
	while (s && *s && node >= 0) {
		char *e;
		long count = strtol(s, &e, 10), repeat = 1;
		if (e == s || count < 1 || count > 1 << 20)
			return 0;
		if (!strncmp(e, "(x", 2)) {
			s = e + 2;
			repeat = strtol(s, &e, 10);
			if (e == s || *e != ')' || repeat < 1)
				return 0;
			e++;
		}
		if (node < repeat)
			return (int)count;
		node -= (int)(repeat < 1 << 30 ? repeat : 1 << 30);
		if (*e != ',')
			return 0;
		s = e + 1;
	}
	return 0;
}

/* The launcher's figures for this process: the job's size and the ranks
 * on this host (Open MPI's mpirun, MPICH's hydra); 0 when not set.  Under
 * Slurm's srun neither library's launcher variables are there before
 * MPI_Init (srun's PMI sets at most PMI_SIZE): Slurm's own step variables
 * say the same. */
static void job_layout(bool mpich, int *np, int *local)
{
	const char *sz = getenv(mpich ? "PMI_SIZE" : "OMPI_COMM_WORLD_SIZE");
	const char *lc = getenv(mpich ? "MPI_LOCALNRANKS" : "OMPI_COMM_WORLD_LOCAL_SIZE");
	const char *ssz = getenv("SLURM_STEP_NUM_TASKS"), *slist = getenv("SLURM_STEP_TASKS_PER_NODE");
	const char *snode = getenv("SLURM_NODEID");
	*np = sz ? atoi(sz) : ssz ? atoi(ssz) : 1;
	*local = lc ? atoi(lc) : slist && snode ? coll_slurm_tasks_on_node(slist, atoi(snode)) : 0;
}

/* The user's own algorithm settings in the environment, which win over
 * the rules: Open MPI's OMPI_MCA_coll_tuned_* (but _verbose), MPICH's
 * MPIR_CVAR_*_ALGORITHM and its selection file.  The first one's name in
 * name, or false. */
static bool user_setting(bool mpich, char *name, size_t len)
{
	extern char **environ;
	for (char **e = environ; *e; e++) {
		size_t n = strcspn(*e, "=");
		bool mine;
		if (mpich)
			mine = !strncmp(*e, "MPIR_CVAR_", 10) &&
			       ((n > 10 && !memcmp(*e + n - 10, "_ALGORITHM", 10)) ||
			        (n >= 26 && !memcmp(*e + n - 26, "SELECTION_TUNING_JSON_FILE", 26)));
		else
			mine = !strncmp(*e, "OMPI_MCA_coll_tuned_", 20) &&
			       strncmp(*e, "OMPI_MCA_coll_tuned_verbose=", 28);
		if (mine) {
			snprintf(name, len, "%.*s", (int)n, *e);
			return true;
		}
	}
	return false;
}

int coll_apply(const char *cache_dir, const char *library, bool log)
{
	const char *lv = getenv("MPIWASM_COLL_LOG");
	log |= lv && *lv && strcmp(lv, "0");
	bool mpich = coll_library_mpich(library);
	/* a stale hand-over (mpiwasm started by mpiwasm) is never trusted */
	unsetenv("MPIWASM_COLL_MPICH_RULES");
	if (!coll_library_supported(library)) {
		say(log, "not applied: %s%s has no rules-file support in mpiwasm (Open MPI and "
		    "MPICH only)", library ? library : "?", "");
		return 0;
	}
	int np, local;
	job_layout(mpich, &np, &local);
	if (np < 2) {
		say(log, "not applied: not an %s job of 2 or more ranks%s",
		    mpich ? "MPICH" : "Open MPI", "");
		return 0;
	}
	if (local < 1) {
		say(log, "not applied: the launcher did not say how many ranks are on this host "
		    "(%s, or Slurm's SLURM_STEP_TASKS_PER_NODE)%s",
		    mpich ? "MPI_LOCALNRANKS" : "OMPI_COMM_WORLD_LOCAL_SIZE", "");
		return 0;
	}
	/* The user's own settings win: a rules file would override even a
	 * forced algorithm (coll_tuned_<coll>_algorithm), and MPICH's
	 * variables would be rewritten per call. */
	char name[128];
	if (user_setting(mpich, name, sizeof name)) {
		say(log, "not applied: %s is set (the user's algorithm settings win)%s", name, "");
		return 0;
	}
	char host[256], path[4096];
	if (gethostname(host, sizeof host))
		snprintf(host, sizeof host, "unknown-host");
	host[sizeof host - 1] = 0;
	if (coll_rules_path(cache_dir, host, np, local, library, path, sizeof path)) {
		say(log, "not applied: the rules file's path under %s is too long%s", cache_dir, "");
		return 0;
	}
	if (access(path, R_OK)) {
		say(log, "not applied: no rules file %s (%s; run `mpirun -np N mpiwasm tune`)",
		    path, strerror(errno));
		return 0;
	}
	char why[4200], cdir[4200];
	snprintf(cdir, sizeof cdir, "%s/coll", cache_dir);
	if (not_ours(cache_dir, true, why, sizeof why) || not_ours(cdir, true, why, sizeof why) ||
	    not_ours(path, false, why, sizeof why)) {
		/* Said even without the log: someone else's file is in the way. */
		fprintf(stderr, "mpiwasm: warning: collective rules not applied: %s\n", why);
		return 0;
	}
	/* `mpiwasm tune` found nothing faster than the library's own
	 * selection: no rules at all (Open MPI's dynamic-rules lookup is not
	 * free; under MPICH no variable is touched). */
	FILE *rf = fopen(path, "r");
	if (!rf) {
		say(log, "not applied: %s: %s", path, strerror(errno));
		return 0;
	}
	char line[256];
	bool none = false;
	while (fgets(line, sizeof line, rf) && line[0] == '#')
		if (!strncmp(line, COLL_NO_RULE_MARK, strlen(COLL_NO_RULE_MARK)))
			none = true;
	if (none) {
		fclose(rf);
		say(log, "not applied: %s has no verified rule (`mpiwasm tune` measured nothing "
		    "faster than the library's own selection)%s", path, "");
		return 0;
	}
	if (mpich) {
		/* The bridge sets MPICH's variables per call from these rules
		 * (coll_measure.c): read here, once, from the file just checked. */
		static char rules[8192], value[8300];
		rewind(rf);
		int n = coll_mpich_rules_read(rf, rules, sizeof rules);
		fclose(rf);
		if (n <= 0) {
			fprintf(stderr, "mpiwasm: warning: collective rules not applied: %s: %s\n",
			        path, n < 0 ? rules : "no rule in it");
			return 0;
		}
		/* for this process only: the bridge takes rules with its own pid
		 * (a child's environment, or the user's, is not a checked file) */
		snprintf(value, sizeof value, "%ld;%s", (long)getpid(), rules);
		if (setenv("MPIWASM_COLL_MPICH_RULES", value, 1)) {
			say(log, "not applied: setenv failed: %s%s", strerror(errno), "");
			return 0;
		}
		say(log, "applied rules file %s%s", path, "");
		return 1;
	}
	fclose(rf);
	if (setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1) ||
	    setenv("OMPI_MCA_coll_tuned_dynamic_rules_filename", path, 1)) {
		say(log, "not applied: setenv failed: %s%s", strerror(errno), "");
		return 0;
	}
	say(log, "applied rules file %s%s", path, "");
	return 1;
}
