/* collmodel.c - the model's figures for bench/coll/cluster.sh: reads the
 * .model file `mpiwasm tune` wrote (its first line: the measured network
 * and shared-memory alpha/beta, gamma, ranks per host) and the rules file
 * beside it, and prints, for p ranks and the sizes 8 B, then 16 B .. 4 MiB
 * by factors of 4 (MPI_Barrier: 0 B):
 *   model OP ALG BYTES US       every algorithm at Open MPI's default
 *                               fanout and segment size (src/coll/model.c)
 *   choice OP BYTES ALG SEG US  the model's own choice (coll_choose)
 *   rule OP BYTES ALG SEG       what the rules file says for that call
 *                               (0: Open MPI's fixed decision)
 * With a fourth argument, bench/coll/pingfit's output: each level's
 * one-way alpha and beta fitted to its ping-pong points (coll_fit), used
 * for the model's one-way hops (trees, chains, linear steps), and printed
 *   oneway shm|net ALPHA_US BETA_NS_PER_B
 * Built natively against src/coll/model.c:
 *   cc -Isrc bench/coll/collmodel.c src/coll/model.c -lm
 *   collmodel FILE.rules.model FILE.rules P [PINGPONG.txt] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

/* The rules file's integers, comments dropped. */
static int ints(FILE *f, long *v, int max)
{
	int n = 0, ch;
	while ((ch = fgetc(f)) != EOF) {
		if (ch == '#') {
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		if (ch >= '0' && ch <= '9') {
			ungetc(ch, f);
			long x;
			if (fscanf(f, "%ld", &x) != 1)
				break;
			if (n < max)
				v[n++] = x;
		}
	}
	return n;
}

/* Open MPI's lookup: the section with the largest communicator size <= p,
 * in it the last line with a message size <= bytes.  *seg: its segment
 * size.  0 when the collective has no section. */
static long lookup(const long *v, int nv, long coll, long p, long bytes, long *seg)
{
	int k = 0;
	long nc = v[k++], alg = 0, best = -1;
	*seg = 0;
	for (long c = 0; c < nc && k < nv; c++) {
		long id = v[k++], ns = v[k++];
		for (long s = 0; s < ns && k + 2 <= nv; s++) {
			long cs = v[k++], nl = v[k++];
			if (k + 4 * nl > nv)
				return 0;
			if (id == coll && cs <= p && cs > best) {
				best = cs;
				for (long l = 0; l < nl; l++)
					if (v[k + 4 * l] <= bytes) {
						alg = v[k + 4 * l + 1];
						*seg = v[k + 4 * l + 3];
					}
			}
			k += 4 * (int)nl;
		}
	}
	return alg;
}

/* The one-way figures of each level from pingfit's lines
 * "pingpong shm|net BYTES US"; a level without points keeps 0 (the
 * exchange figures stand in).  0, or 1 with a message. */
static int oneway_fit(const char *path, coll_net *net)
{
	double n[2][64], t[2][64];
	int m[2] = { 0, 0 };
	char lv[8];
	double bytes, us;
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "collmodel: cannot read %s\n", path);
		return 1;
	}
	while (fscanf(f, " pingpong %7s %lf %lf", lv, &bytes, &us) == 3) {
		int k = !strcmp(lv, "net");
		if (m[k] < 64) {
			n[k][m[k]] = bytes;
			t[k][m[k]++] = us * 1e-6;
		}
	}
	fclose(f);
	if (!m[1]) {
		fprintf(stderr, "collmodel: %s: no 'pingpong net BYTES US' line\n", path);
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		double a, b;
		if (!m[k])
			continue;
		if (coll_fit(n[k], t[k], m[k], &a, &b)) {
			fprintf(stderr, "collmodel: %s: cannot fit the %s points\n", path, k ? "net" : "shm");
			return 1;
		}
		if (k) {
			net->alpha_1 = a;
			net->beta_1 = b;
		} else {
			net->alpha_1shm = a;
			net->beta_1shm = b;
		}
		printf("oneway %s %.3f %.4f\n", k ? "net" : "shm", a * 1e6, b * 1e9);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: collmodel FILE.rules.model FILE.rules P [PINGPONG.txt]\n");
		return 2;
	}
	coll_net net = { 0 };
	int p = atoi(argv[3]);
	FILE *f = fopen(argv[1], "r");
	if (!f || fscanf(f, "# network: alpha %lf beta %lf; shared memory: alpha %lf beta %lf; "
	                 "gamma %lf; %d ranks per host", &net.alpha, &net.beta, &net.alpha_shm,
	                 &net.beta_shm, &net.gamma, &net.ppn) != 6) {
		fprintf(stderr, "collmodel: %s: no '# network: ...' first line\n", argv[1]);
		return 1;
	}
	fclose(f);
	if (argc == 5 && oneway_fit(argv[4], &net))
		return 1;
	static long v[1 << 16];
	f = fopen(argv[2], "r");
	if (!f) {
		fprintf(stderr, "collmodel: cannot read %s\n", argv[2]);
		return 1;
	}
	int nv = ints(f, v, 1 << 16);
	fclose(f);
	for (int k = 0; k < COLL_NCOLLS; k++) {
		int id = coll_ids[k];
		const char *op = coll_name(id);
		for (long n = id == COLL_ID_BARRIER ? 0 : 8; n <= 4 << 20; n = n == 8 ? 16 : n * 4) {
			for (int alg = 1; coll_alg_name(id, alg); alg++) {
				double t = coll_cost(id, alg, p, (double)n, 0, 0, &net);
				if (t >= 0)
					printf("model %s %d %ld %.3f\n", op, alg, n, t * 1e6);
			}
			coll_choice c = coll_choose(id, p, (double)n, &net);
			printf("choice %s %ld %d %d %.3f\n", op, n, c.alg, c.segsize, c.t * 1e6);
			long seg, alg = lookup(v, nv, id, p, n, &seg);
			printf("rule %s %ld %ld %ld\n", op, n, alg, seg);
			if (!n)
				break;
		}
	}
	return 0;
}
