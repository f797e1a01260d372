/* omp_constructs - the OpenMP constructs libmpiwasm-omp supports, with
 * output that depends only on the team size: built with gcc -fopenmp
 * (libgomp), with clang over libmpiwasm-omp natively, and with mpiwasm-cc
 * -fopenmp, the outputs must be identical at each OMP_NUM_THREADS. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define N 1000

static int owner[N], hits[N];

static void show_owners(const char *what)
{
	/* Runs of equal owners: "0x250 1x250 ..." */
	printf("%s:", what);
	int run = 1;
	for (int i = 1; i <= N; i++) {
		if (i < N && owner[i] == owner[i - 1]) {
			run++;
			continue;
		}
		printf(" %dx%d", owner[i - 1], run);
		run = 1;
	}
	printf("\n");
}

static void check_hits(const char *what)
{
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += hits[i] != 1;
	printf("%s: every iteration once: %s\n", what, bad ? "NO" : "yes");
	memset(hits, 0, sizeof hits);
}

int main(void)
{
	int nth = 0, tsum = 0;
	printf("max threads %d, in parallel %d, level %d\n", omp_get_max_threads(),
	       omp_in_parallel(), omp_get_level());
#pragma omp parallel
	{
#pragma omp single
		nth = omp_get_num_threads();
#pragma omp atomic
		tsum += omp_get_thread_num();
	}
	printf("parallel: %d threads, thread numbers sum to %d\n", nth, tsum);

	/* Static schedules assign the same iterations in every runtime. */
#pragma omp parallel for schedule(static)
	for (int i = 0; i < N; i++)
		owner[i] = omp_get_thread_num();
	show_owners("static");
#pragma omp parallel for schedule(static, 64)
	for (int i = 0; i < N; i++)
		owner[i] = omp_get_thread_num();
	show_owners("static,64");
#pragma omp parallel for schedule(static, 1)
	for (int i = 0; i < 12; i++)
		owner[i] = omp_get_thread_num();
	printf("static,1 owners:");
	for (int i = 0; i < 12; i++)
		printf(" %d", owner[i]);
	printf("\n");

#pragma omp parallel for schedule(dynamic)
	for (int i = 0; i < N; i++)
#pragma omp atomic
		hits[i]++;
	check_hits("dynamic");
#pragma omp parallel for schedule(dynamic, 7)
	for (int i = 0; i < N; i++)
#pragma omp atomic
		hits[i]++;
	check_hits("dynamic,7");
#pragma omp parallel for schedule(guided)
	for (int i = 0; i < N; i++)
#pragma omp atomic
		hits[i]++;
	check_hits("guided");
#pragma omp parallel for schedule(guided, 5)
	for (int i = N - 1; i >= 0; i -= 2)
#pragma omp atomic
		hits[i]++;
	for (int i = 0; i < N; i += 2)
		hits[i]++;
	check_hits("guided,5 step -2");
#pragma omp parallel for schedule(runtime)
	for (unsigned i = 0; i < N; i++)
#pragma omp atomic
		hits[i]++;
	check_hits("runtime unsigned");
#pragma omp parallel for schedule(dynamic, 3)
	for (long long i = 0; i < N; i++)
#pragma omp atomic
		hits[i]++;
	check_hits("dynamic,3 long long");
#pragma omp parallel for schedule(static, 5)
	for (unsigned long long i = 0; i < N; i++)
#pragma omp atomic
		hits[i]++;
	check_hits("static,5 unsigned long long");

	/* Several loops in one region, nowait, so threads run ahead. */
#pragma omp parallel
	{
		for (int k = 0; k < 20; k++) {
#pragma omp for schedule(dynamic, 11) nowait
			for (int i = 0; i < N; i++)
				if (i % 20 == k)
#pragma omp atomic
					hits[i]++;
		}
	}
	check_hits("20 dynamic loops nowait");

	/* Reductions. */
	long sum = 0;
	long long prod = 1;
	int mx = -1, mn = 1 << 30, all = 1, any = 0;
	double dsum = 0;
#pragma omp parallel for reduction(+:sum) reduction(max:mx) reduction(min:mn) \
	reduction(&&:all) reduction(||:any) reduction(+:dsum)
	for (int i = 0; i < N; i++) {
		sum += i;
		mx = i * 7 % 1001 > mx ? i * 7 % 1001 : mx;
		mn = (i + 500) % N < mn ? (i + 500) % N : mn;
		all = all && i < N;
		any = any || i == 777;
		dsum += 0.5 * i;
	}
#pragma omp parallel for reduction(*:prod)
	for (int i = 1; i <= 20; i++)
		prod *= i;
	printf("reduce: sum %ld max %d min %d and %d or %d dsum %.1f prod %lld\n",
	       sum, mx, mn, all, any, dsum, prod);

	/* critical, named critical, atomic. */
	int c1 = 0, c2 = 0;
	double at = 0;
#pragma omp parallel
	{
		for (int k = 0; k < 1000; k++) {
#pragma omp critical
			c1++;
#pragma omp critical(second)
			c2 += 2;
#pragma omp atomic
			at += 0.25;
		}
	}
	printf("critical %d named %d atomic %.2f (per thread 1000, 2000, 250)\n",
	       c1 / nth, c2 / nth, at / nth);

	/* single, master, masked, barrier, copyprivate. */
	int singles = 0, masters = 0, maskeds = 0, phase_ok = 1, cp = -1, cp_ok = 1;
	int seen[64] = {0};
#pragma omp parallel
	{
		for (int k = 0; k < 50; k++) {
#pragma omp single
			singles++;
		}
#pragma omp master
		masters += 1 + omp_get_thread_num();
#pragma omp masked filter(0)
		maskeds++;
		seen[omp_get_thread_num()] = 1;
#pragma omp barrier
		for (int i = 0; i < omp_get_num_threads(); i++)
			if (!seen[i])
#pragma omp atomic write
				phase_ok = 0;
		int mine;
#pragma omp single copyprivate(mine)
		mine = 42;
		if (mine != 42)
#pragma omp atomic write
			cp_ok = 0;
	}
	(void)cp;
	printf("single %d master %d masked %d barrier %d copyprivate %d\n",
	       singles, masters, maskeds, phase_ok, cp_ok);

	/* ordered: the ordered part runs in iteration order. */
	int order[40], pos = 0;
#pragma omp parallel for ordered schedule(dynamic, 2)
	for (int i = 0; i < 40; i++) {
#pragma omp ordered
		order[pos++] = i;
	}
	int inorder = 1;
	for (int i = 0; i < 40; i++)
		inorder &= order[i] == i;
	printf("ordered: in order %d\n", inorder);

	/* Nested regions run with one thread; num_threads and if clauses. */
	int inner = 0, lvl = 0, inpar = 0, nt3 = 0, if0 = 0;
#pragma omp parallel
	{
#pragma omp master
		{
#pragma omp parallel
			{
				inner = omp_get_num_threads();
				lvl = omp_get_level();
				inpar = omp_in_parallel();
			}
		}
	}
#pragma omp parallel num_threads(3)
	{
#pragma omp single
		nt3 = omp_get_num_threads();
	}
#pragma omp parallel if (0)
	if0 = omp_get_num_threads();
	printf("nested %d threads at level %d in parallel %d; num_threads(3) %d; if(0) %d\n",
	       inner, lvl, inpar, nt3 < 3 ? nt3 : 3, if0);

	/* sections */
	int sec[3] = {0};
#pragma omp parallel sections
	{
#pragma omp section
		sec[0] = 1;
#pragma omp section
		sec[1] = 2;
#pragma omp section
		sec[2] = 3;
	}
	printf("sections %d %d %d\n", sec[0], sec[1], sec[2]);

	/* Locks. */
	omp_lock_t lk;
	omp_nest_lock_t nl;
	omp_init_lock(&lk);
	omp_init_nest_lock(&nl);
	int lsum = 0, nsum = 0;
#pragma omp parallel
	{
		for (int k = 0; k < 500; k++) {
			omp_set_lock(&lk);
			lsum++;
			omp_unset_lock(&lk);
			omp_set_nest_lock(&nl);
			omp_set_nest_lock(&nl);
			nsum++;
			omp_unset_nest_lock(&nl);
			omp_unset_nest_lock(&nl);
		}
	}
	omp_destroy_lock(&lk);
	omp_destroy_nest_lock(&nl);
	printf("locks: %d and %d per thread\n", lsum / nth, nsum / nth);

	double t0 = omp_get_wtime();
	printf("wtime positive %d\n", t0 > 0);
	return 0;
}
