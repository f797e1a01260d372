/* libc from several threads at once: malloc/realloc/free with blocks
 * freed by another thread, fprintf to one FILE, and a file written and
 * read by each thread on its own FILE.  Run in a scratch directory. */
#include "common.h"

#define NT 4
#define N 20000

static void *allocs(void *arg)
{
	long me = (long)arg;
	long bad = 0;
	void *keep[64] = { 0 };
	for (int i = 0; i < N; i++) {
		size_t n = (size_t)(16 + (i * 37 + me * 11) % 2000);
		unsigned char *p = malloc(n);
		if (!p)
			return (void *)-1L;
		memset(p, (int)(me + 1), n);
		int k = i % 64;
		if (keep[k]) {
			unsigned char *q = keep[k];
			if (q[0] != (unsigned char)(me + 1))
				bad++;
			free(q);
		}
		keep[k] = (i % 3 == 0) ? realloc(p, n * 2) : p;
	}
	for (int k = 0; k < 64; k++)
		free(keep[k]);
	return (void *)bad;
}

/* Blocks made by one thread, freed by another. */
static void *handoff[NT][256];
static void *freer(void *arg)
{
	long me = (long)arg;
	for (int i = 0; i < 256; i++)
		free(handoff[(me + 1) % NT][i]);
	return NULL;
}

static FILE *shared;
static void *printer(void *arg)
{
	long me = (long)arg;
	for (int i = 0; i < 2000; i++)
		fprintf(shared, "thread %ld line %d %s\n", me, i, "abcdefghijklmnopqrstuvwxyz");
	return NULL;
}

static void *own_file(void *arg)
{
	long me = (long)arg;
	char name[32];
	snprintf(name, sizeof name, "own%ld.txt", me);
	FILE *f = fopen(name, "w");
	if (!f)
		return (void *)1L;
	for (int i = 0; i < 5000; i++)
		fprintf(f, "%ld %d\n", me, i);
	fclose(f);
	f = fopen(name, "r");
	if (!f)
		return (void *)2L;
	long a, want = 0;
	int b, n = 0;
	while (fscanf(f, "%ld %d", &a, &b) == 2) {
		if (a != me || b != n)
			want = 3;
		n++;
	}
	fclose(f);
	remove(name);
	/* A failing call from a thread fails cleanly; errno is not read here:
	 * it is one variable for all threads (toolchain/README.md), and the
	 * other threads' stdio sets it too (a new FILE's isatty check leaves
	 * ENOTTY), so reading it here raced (a clean-clone run failed so). */
	if (fopen("missing.txt", "r") != NULL)
		want = 5;
	return (void *)(want ? want : n == 5000 ? 0L : 4L);
}

int main(void)
{
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, allocs, (void *)i);
	long bad = 0;
	for (int i = 0; i < NT; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	CHECK("malloc from threads", bad == 0, "%ld corrupt blocks", bad);

	for (int i = 0; i < NT; i++)
		for (int k = 0; k < 256; k++)
			handoff[i][k] = malloc((size_t)(k + 1) * 8);
	for (long i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, freer, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	void *big = malloc(1 << 20);
	CHECK("free by another thread", big != NULL, "malloc failed after");
	free(big);

	shared = fopen("shared.txt", "w");
	for (long i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, printer, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	fclose(shared);
	FILE *f = fopen("shared.txt", "r");
	char line[256];
	int next[NT] = { 0 }, lines = 0, broken = 0;
	while (fgets(line, sizeof line, f)) {
		long th;
		int i;
		char word[64];
		if (sscanf(line, "thread %ld line %d %63s", &th, &i, word) != 3 || th < 0 ||
		    th >= NT || i != next[th] || strcmp(word, "abcdefghijklmnopqrstuvwxyz"))
			broken++;
		else
			next[th]++;
		lines++;
	}
	fclose(f);
	remove("shared.txt");
	CHECK("fprintf to one FILE", lines == NT * 2000 && broken == 0, "%d lines, %d broken",
	      lines, broken);

	for (long i = 0; i < NT; i++)
		SPAWN(&t[i], NULL, own_file, (void *)i);
	long ferr = 0;
	for (int i = 0; i < NT; i++) {
		void *r;
		pthread_join(t[i], &r);
		ferr += (long)r;
	}
	CHECK("a FILE per thread", ferr == 0, "error %ld", ferr);
	/* errno after the threads: the failing call's own */
	errno = 0;
	CHECK("errno of a failed fopen", fopen("missing.txt", "r") == NULL && errno == ENOENT,
	      "errno %d", errno);
	return finish();
}
