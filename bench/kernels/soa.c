/* soa - a struct-of-arrays particle update with a branch per element:
 * move, reflect at the walls of a box, count the reflections. */
#include "bench.h"

#define N (1 << 18)
#define STEPS 40

typedef struct parts {
	float *x, *y, *vx, *vy;
	int *hits;
} parts;

BENCH_HOT static void step(parts *p, int n, float dt)
{
	for (int i = 0; i < n; i++) {
		float x = p->x[i] + p->vx[i] * dt;
		float y = p->y[i] + p->vy[i] * dt;
		if (x < 0.0f || x > 1.0f) {
			p->vx[i] = -p->vx[i];
			x = x < 0.0f ? -x : 2.0f - x;
			p->hits[i]++;
		}
		if (y < 0.0f || y > 1.0f) {
			p->vy[i] = -p->vy[i];
			y = y < 0.0f ? -y : 2.0f - y;
			p->hits[i]++;
		}
		p->x[i] = x;
		p->y[i] = y;
	}
}

int main(int argc, char **argv)
{
	int reps = bench_reps(argc, argv, 8);
	parts p;
	p.x = bench_alloc(N * sizeof(float), "x");
	p.y = bench_alloc(N * sizeof(float), "y");
	p.vx = bench_alloc(N * sizeof(float), "vx");
	p.vy = bench_alloc(N * sizeof(float), "vy");
	p.hits = bench_alloc(N * sizeof(int), "hits");
	bench_timer tm = BENCH_TIMER_INIT;
	uint64_t h = 0;
	for (int r = 0; r < reps; r++) {
		uint64_t s = 4242;
		for (int i = 0; i < N; i++) {
			p.x[i] = (float)(bench_rand(&s) % 1000) / 1000.0f;
			p.y[i] = (float)(bench_rand(&s) % 1000) / 1000.0f;
			p.vx[i] = ((float)(bench_rand(&s) % 2001) - 1000.0f) / 8000.0f;
			p.vy[i] = ((float)(bench_rand(&s) % 2001) - 1000.0f) / 8000.0f;
			p.hits[i] = 0;
		}
		bench_start(&tm);
		for (int t = 0; t < STEPS; t++)
			step(&p, N, 1.0f);
		bench_stop(&tm);
		h = BENCH_HASH_INIT;
		for (int i = 0; i < N; i++)
			h = bench_hash(h, (uint64_t)p.hits[i] << 32 | (uint32_t)bench_bits(p.x[i]));
	}
	bench_report("soa", &tm, h, (double)p.hits[N / 2]);
	free(p.x); free(p.y); free(p.vx); free(p.vy); free(p.hits);
	return 0;
}
