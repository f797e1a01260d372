/* minihpcg - an MPI miniapp in HPCG's shape: preconditioned conjugate
 * gradients on a 27-point stencil matrix over a 3D grid split across a 3D
 * process grid (MPI_Dims_create), one NX^3 box of points per rank (weak
 * scaling).  Each rank builds its rows in CSR; a column is a local point
 * (0..n-1) or a ghost point of one of its up to 26 neighbours (n..), the
 * ghosts of one neighbour contiguous, so a halo exchange receives straight
 * into the vector.  Every SpMV is preceded by a halo exchange (MPI_Irecv,
 * MPI_Isend, MPI_Waitall), the preconditioner is one symmetric
 * Gauss-Seidel sweep (forward then backward over the local rows, ghost
 * values as last exchanged), every dot product ends in MPI_Allreduce.
 *
 * Deterministic: each rank sums its rows in order, and MPI_SUM of one
 * double over the same host MPI library and rank count gives the same bits
 * whichever engine calls it, so native and wasm builds of this file (both
 * -ffp-contract=off, only + - * /) print the same checksum.
 *
 *   minihpcg [REPS [NX [ITERS]]]     defaults 3, 48, 50
 *
 * Rank 0 prints (times: the slowest rank's best solve):
 *
 *   BENCH kernel=minihpcg_npN best_s=... cpu_s=... reps=R checksum=<hex> value=<r.r>
 *   MINIHPCG np=N grid=PXxPYxPZ local=NX iters=I per_iter_s=... spmv_s=...
 *            symgs_s=... halo_s=... dot_s=... vec_s=...   (phases: rank 0, best solve)
 */
#include <mpi.h>
#include "../kernels/bench.h"

typedef struct csr {
	int n;         /* local rows */
	int ncols;     /* n + ghost points */
	int *start;    /* n + 1 row starts */
	int *col;
	double *val;
	int *diag;     /* position of the diagonal entry of each row */
} csr;

/* Up to 26 neighbours, each with the local points it needs (packed) and
 * the range of this rank's ghost columns it fills. */
typedef struct halo {
	int nn;
	int rank[26], stag[26], rtag[26];
	int soff[27], roff[27];        /* prefix sums of send/receive counts */
	int *sidx;                     /* local indices to pack, soff[nn] of them */
	double *sbuf;
} halo;

typedef struct phases {
	double spmv, symgs, halo, dot, vec;
} phases;

static int nx, ny, nz;          /* local box */
static int px, py, pz;          /* process grid */
static int cx, cy, cz;          /* this rank's place in it */
static phases ph;

static int owner(int x, int y, int z) { return (z * py + y) * px + x; }

/* Index of local box point (x, y, z), each in -1..n, in the ghosted map. */
static int gpos(int x, int y, int z) { return ((z + 1) * (ny + 2) + y + 1) * (nx + 2) + x + 1; }

/* The box of points for direction d (-1, 0, 1) along a dimension of n
 * points: ghost (recv) or own boundary (send). */
static void range(int d, int n, int ghost, int *lo, int *hi)
{
	if (d == 0) { *lo = 0; *hi = n - 1; }
	else if (d < 0) *lo = *hi = ghost ? -1 : 0;
	else *lo = *hi = ghost ? n : n - 1;
}

/* Numbers local points 0..n-1 and the ghosts per neighbour, then the rows:
 * 26 on the diagonal, -1 for every stencil neighbour inside the grid. */
static void build(csr *A, halo *h)
{
	int n = nx * ny * nz;
	size_t gsz = (size_t)(nx + 2) * (ny + 2) * (nz + 2);
	int *map = bench_alloc(gsz * sizeof(int), "map");
	for (size_t i = 0; i < gsz; i++)
		map[i] = -1;
	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++)
				map[gpos(x, y, z)] = (z * ny + y) * nx + x;
	int nc = n, ns = 0;
	h->nn = 0;
	/* at most 6 faces, 12 edges, 8 corners */
	h->sidx = bench_alloc(((size_t)2 * (nx * ny + ny * nz + nx * nz) + 4 * (size_t)(nx + ny + nz) + 8) * sizeof(int), "sidx");
	h->soff[0] = h->roff[0] = 0;
	for (int dz = -1; dz <= 1; dz++)
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++) {
				if (!dx && !dy && !dz)
					continue;
				int qx = cx + dx, qy = cy + dy, qz = cz + dz;
				if (qx < 0 || qx >= px || qy < 0 || qy >= py || qz < 0 || qz >= pz)
					continue;
				int k = h->nn++, code = (dz + 1) * 9 + (dy + 1) * 3 + dx + 1;
				int xl, xh, yl, yh, zl, zh;
				h->rank[k] = owner(qx, qy, qz);
				h->stag[k] = code;          /* the direction from sender to receiver */
				h->rtag[k] = 26 - code;
				range(dx, nx, 1, &xl, &xh); range(dy, ny, 1, &yl, &yh); range(dz, nz, 1, &zl, &zh);
				for (int z = zl; z <= zh; z++)
					for (int y = yl; y <= yh; y++)
						for (int x = xl; x <= xh; x++)
							map[gpos(x, y, z)] = nc++;
				h->roff[k + 1] = nc - n;
				range(dx, nx, 0, &xl, &xh); range(dy, ny, 0, &yl, &yh); range(dz, nz, 0, &zl, &zh);
				for (int z = zl; z <= zh; z++)
					for (int y = yl; y <= yh; y++)
						for (int x = xl; x <= xh; x++)
							h->sidx[ns++] = map[gpos(x, y, z)];
				h->soff[k + 1] = ns;
			}
	h->sbuf = bench_alloc((size_t)(ns ? ns : 1) * sizeof(double), "sbuf");
	A->n = n;
	A->ncols = nc;
	A->start = bench_alloc((size_t)(n + 1) * sizeof(int), "start");
	A->col = bench_alloc((size_t)n * 27 * sizeof(int), "col");
	A->val = bench_alloc((size_t)n * 27 * sizeof(double), "val");
	A->diag = bench_alloc((size_t)n * sizeof(int), "diag");
	int gnx = nx * px, gny = ny * py, gnz = nz * pz, e = 0;
	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++) {
				int row = (z * ny + y) * nx + x;
				A->start[row] = e;
				for (int sz = -1; sz <= 1; sz++)
					for (int sy = -1; sy <= 1; sy++)
						for (int sx = -1; sx <= 1; sx++) {
							int gx = cx * nx + x + sx, gy = cy * ny + y + sy, gz = cz * nz + z + sz;
							if (gx < 0 || gx >= gnx || gy < 0 || gy >= gny || gz < 0 || gz >= gnz)
								continue;
							int c = map[gpos(x + sx, y + sy, z + sz)];
							if (c < 0) {
								fprintf(stderr, "minihpcg: no column for a neighbour of row %d\n", row);
								exit(2);
							}
							if (c == row)
								A->diag[row] = e;
							A->col[e] = c;
							A->val[e++] = c == row ? 26.0 : -1.0;
						}
			}
	A->start[n] = e;
	free(map);
}

/* Fills the ghost part of x (x[n..ncols-1]) from the neighbours. */
static void exchange(const halo *h, int n, double *x)
{
	MPI_Request rq[52];
	double t0 = bench_now();
	for (int k = 0; k < h->nn; k++)
		MPI_Irecv(x + n + h->roff[k], h->roff[k + 1] - h->roff[k], MPI_DOUBLE, h->rank[k],
		          h->rtag[k], MPI_COMM_WORLD, &rq[k]);
	for (int i = 0; i < h->soff[h->nn]; i++)
		h->sbuf[i] = x[h->sidx[i]];
	for (int k = 0; k < h->nn; k++)
		MPI_Isend(h->sbuf + h->soff[k], h->soff[k + 1] - h->soff[k], MPI_DOUBLE, h->rank[k],
		          h->stag[k], MPI_COMM_WORLD, &rq[h->nn + k]);
	MPI_Waitall(2 * h->nn, rq, MPI_STATUSES_IGNORE);
	ph.halo += bench_now() - t0;
}

static BENCH_HOT void spmv(const csr *A, const double *x, double *y)
{
	double t0 = bench_now();
	for (int i = 0; i < A->n; i++) {
		double s = 0.0;
		for (int j = A->start[i]; j < A->start[i + 1]; j++)
			s += A->val[j] * x[A->col[j]];
		y[i] = s;
	}
	ph.spmv += bench_now() - t0;
}

/* One symmetric Gauss-Seidel sweep for A x = r, in place on x. */
static BENCH_HOT void symgs(const csr *A, const double *r, double *x)
{
	double t0 = bench_now();
	for (int i = 0; i < A->n; i++) {
		double s = r[i], d = A->val[A->diag[i]];
		for (int j = A->start[i]; j < A->start[i + 1]; j++)
			s -= A->val[j] * x[A->col[j]];
		x[i] = (s + d * x[i]) / d;
	}
	for (int i = A->n - 1; i >= 0; i--) {
		double s = r[i], d = A->val[A->diag[i]];
		for (int j = A->start[i]; j < A->start[i + 1]; j++)
			s -= A->val[j] * x[A->col[j]];
		x[i] = (s + d * x[i]) / d;
	}
	ph.symgs += bench_now() - t0;
}

static BENCH_HOT double dot(int n, const double *a, const double *b)
{
	double t0 = bench_now(), s = 0.0, g;
	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	ph.dot += bench_now() - t0;
	return g;
}

/* w = a*x + b*y */
static BENCH_HOT void axpby(int n, double a, const double *x, double b, const double *y, double *w)
{
	double t0 = bench_now();
	for (int i = 0; i < n; i++)
		w[i] = a * x[i] + b * y[i];
	ph.vec += bench_now() - t0;
}

typedef struct vecs {
	double *b, *x, *r, *z, *p, *Ap;   /* z and p have room for the ghosts */
} vecs;

/* ITERS iterations of preconditioned CG from x = 0; returns r.r. */
static double cg(const csr *A, const halo *h, const vecs *v, int iters)
{
	int n = A->n;
	double rtz = 0.0, rr;
	memset(v->x, 0, (size_t)n * sizeof(double));
	memset(v->p, 0, (size_t)A->ncols * sizeof(double));
	exchange(h, n, v->p);
	spmv(A, v->p, v->Ap);                       /* A x0, x0 = 0 */
	axpby(n, 1.0, v->b, -1.0, v->Ap, v->r);
	rr = dot(n, v->r, v->r);
	for (int k = 1; k <= iters; k++) {
		memset(v->z, 0, (size_t)A->ncols * sizeof(double));
		exchange(h, n, v->z);
		symgs(A, v->r, v->z);
		double old = rtz;
		rtz = dot(n, v->r, v->z);
		if (k == 1)
			axpby(n, 1.0, v->z, 0.0, v->z, v->p);
		else
			axpby(n, 1.0, v->z, rtz / old, v->p, v->p);
		exchange(h, n, v->p);
		spmv(A, v->p, v->Ap);
		double alpha = rtz / dot(n, v->p, v->Ap);
		axpby(n, 1.0, v->x, alpha, v->p, v->x);
		axpby(n, 1.0, v->r, -alpha, v->Ap, v->r);
		rr = dot(n, v->r, v->r);
	}
	return rr;
}

/* Global number of local box point (x, y, z), each in -1..n. */
static long gnum(int x, int y, int z)
{
	return (((long)cz * nz + z) * ny * py + (long)cy * ny + y) * nx * px + (long)cx * nx + x;
}

/* Once before timing: A applied to x = the global point numbers (exact in
 * a double) through a halo exchange must give 26 g minus the numbers of
 * g's stencil neighbours inside the grid, on every row; a ghost column
 * mapped to the wrong point fails this. */
static int selfcheck(const csr *A, const halo *h, double *xg, double *y)
{
	int bad = 0, all;
	long gnx = (long)nx * px, gny = (long)ny * py, gnz = (long)nz * pz;
	for (int z = 0; z < nz; z++)
		for (int yy = 0; yy < ny; yy++)
			for (int x = 0; x < nx; x++)
				xg[(z * ny + yy) * nx + x] = (double)gnum(x, yy, z);
	exchange(h, A->n, xg);
	spmv(A, xg, y);
	for (int z = 0; z < nz; z++)
		for (int yy = 0; yy < ny; yy++)
			for (int x = 0; x < nx; x++) {
				long g = gnum(x, yy, z), want = 26 * g;
				long gx = (long)cx * nx + x, gy = (long)cy * ny + yy, gz = (long)cz * nz + z;
				for (int sz = -1; sz <= 1; sz++)
					for (int sy = -1; sy <= 1; sy++)
						for (int sx = -1; sx <= 1; sx++)
							if ((sx || sy || sz) && gx + sx >= 0 && gx + sx < gnx &&
							    gy + sy >= 0 && gy + sy < gny && gz + sz >= 0 && gz + sz < gnz)
								want -= gnum(x + sx, yy + sy, z + sz);
				if (y[(z * ny + yy) * nx + x] != (double)want)
					bad++;
			}
	MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	return all;
}

static int arg(int argc, char **argv, int i, int dflt, const char *what)
{
	if (argc <= i)
		return dflt;
	int v = atoi(argv[i]);
	if (v < 1) {
		fprintf(stderr, "minihpcg: bad %s '%s'\n", what, argv[i]);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, dims[3] = { 0, 0, 0 };
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int reps = arg(argc, argv, 1, 3, "repetition count");
	nx = ny = nz = arg(argc, argv, 2, 48, "box size");
	int iters = arg(argc, argv, 3, 50, "iteration count");
	MPI_Dims_create(size, 3, dims);
	pz = dims[0]; py = dims[1]; px = dims[2];   /* two ranks: split along z */
	cx = rank % px; cy = rank / px % py; cz = rank / (px * py);

	csr A;
	halo h;
	build(&A, &h);
	int n = A.n;
	vecs v;
	v.b = bench_alloc((size_t)n * sizeof(double), "b");
	v.x = bench_alloc((size_t)n * sizeof(double), "x");
	v.r = bench_alloc((size_t)n * sizeof(double), "r");
	v.Ap = bench_alloc((size_t)n * sizeof(double), "Ap");
	v.z = bench_alloc((size_t)A.ncols * sizeof(double), "z");
	v.p = bench_alloc((size_t)A.ncols * sizeof(double), "p");
	/* b = A * ones: the exact solution is all ones. */
	for (int i = 0; i < n; i++)
		v.b[i] = 27.0 - (double)(A.start[i + 1] - A.start[i]);

	int bad = selfcheck(&A, &h, v.p, v.Ap);
	if (bad) {
		if (rank == 0)
			fprintf(stderr, "minihpcg: A*x wrong on %d rows after the halo exchange\n", bad);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}

	bench_timer tm = BENCH_TIMER_INIT;
	phases best = { 0, 0, 0, 0, 0 };
	double rr = 0.0, bestw = 1e30;
	for (int k = 0; k < reps; k++) {
		MPI_Barrier(MPI_COMM_WORLD);
		memset(&ph, 0, sizeof ph);
		bench_start(&tm);
		rr = cg(&A, &h, &v, iters);
		bench_stop(&tm);
		if (tm.best < bestw) { bestw = tm.best; best = ph; }
	}
	/* The checksum: r.r and the sum of the solution weighted by global
	 * point number mod 7, each rank's part summed in rank order. */
	double part = 0.0;
	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++) {
				long g = gnum(x, y, z);
				part += v.x[(z * ny + y) * nx + x] * (double)(g % 7 + 1);
			}
	double *parts = bench_alloc((size_t)size * sizeof(double), "parts");
	MPI_Gather(&part, 1, MPI_DOUBLE, parts, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	double t[2] = { tm.best, tm.best_cpu }, tmax[2];
	MPI_Reduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		double xs = 0.0;
		for (int i = 0; i < size; i++)
			xs += parts[i];
		char name[32];
		snprintf(name, sizeof name, "minihpcg_np%d", size);
		bench_timer all = tm;
		all.best = tmax[0];
		all.best_cpu = tmax[1];
		bench_report(name, &all, bench_hash(bench_hash(BENCH_HASH_INIT, bench_bits(rr)),
		                                    bench_bits(xs)), rr);
		printf("MINIHPCG np=%d grid=%dx%dx%d local=%d iters=%d xsum=%.17g per_iter_s=%.6f "
		       "per_iter_cpu_s=%.6f spmv_s=%.6f symgs_s=%.6f halo_s=%.6f dot_s=%.6f vec_s=%.6f\n",
		       size, px, py, pz, nx, iters, xs, tmax[0] / iters, tmax[1] / iters,
		       best.spmv, best.symgs, best.halo, best.dot, best.vec);
	}
	free(parts);
	free(v.b); free(v.x); free(v.r); free(v.Ap); free(v.z); free(v.p);
	free(A.start); free(A.col); free(A.val); free(A.diag);
	free(h.sidx); free(h.sbuf);
	MPI_Finalize();
	return 0;
}
