/* hand_rma.c - one-sided communication (MPI_Win_*, Put/Get/Accumulate and
 * friends).
 *
 * Window memory is linear memory: Win_create and Win_attach check
 * [base, base+size) against it; Win_allocate's memory is the host's own
 * window memory mapped into a block of the module's malloc (alloc_alias),
 * or else a block of the module's malloc under a host Win_create.  Remote
 * ranks read and write it through the host library, so every access an
 * origin asks for is checked at the origin against what the target
 * exposes, learned when the window is created (collective): each rank's
 * window size and displacement unit.
 *
 * Dynamic windows: a target displacement is an MPI_Aint address as the
 * target's MPI_Get_address gives it, i.e. a module address (MPI_BOTTOM is
 * address 0 of linear memory).  The host library wants the target's host
 * address: the target's linear-memory base plus the module address.  The
 * bases of all ranks are exchanged when the window is created (they never
 * move: the runtime reserves the whole address range once), and the
 * origin adds the target's base to the displacement.  An origin cannot
 * see what the target has attached; it checks that the access lies inside
 * the target's 4 GiB module address space (its reservation, so a wrong
 * address can never reach host memory outside it), and the host library
 * checks it against the attached regions.
 *
 * Predefined attributes give module-side values: MPI_WIN_BASE is the
 * module address (0, MPI_BOTTOM, for a dynamic window), MPI_WIN_SIZE,
 * MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL point to
 * words in module memory owned by the window (freed with it).
 *
 * Errors on a window go to the window's module error handler (default
 * MPI_ERRORS_ARE_FATAL, as MPI says); the host window always returns.
 * Every procedure here is typed (src/mpi/gen/family-rma.txt): its
 * generated entry looks the window up (class win) and checks the other
 * arguments, the target side of an access included (class tdisp:
 * target_in), and k (its win flag) sends a failure to the window's
 * handler; a constructor's failures go to its communicator's.
 *
 * Shared windows (Win_allocate_shared, Win_shared_query): every rank's
 * segment must appear inside every rank's linear memory.  The host's own
 * MPI_Win_allocate_shared makes the window; the span of the node's
 * segments in its shared mapping is mapped again over a block of each
 * rank's malloc (shared_alias).  Where that cannot be done, the former
 * path (shared_own): a POSIX shared-memory object of the bridge's own,
 * all segments back to back in rank order, mapped over each rank's block,
 * under a host MPI_Win_create over the rank's segment.  Either way the
 * runtime never touches pages below the memory's current size
 * (memory.grow only opens pages above it, the base never moves), and the
 * module's allocator keeps its bookkeeping outside a block it handed out,
 * so the mapping stays the program's own until Win_free puts private zero
 * pages back and frees the block.  Win_shared_query answers with module
 * addresses in the caller's own memory (w->seg). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "mpib.h"
#include "mpib_int.h"
#include "hand_protos.h"
#include "rt/rt.h"

typedef uint32_t u32;

/* ---- the window table ------------------------------------------------------ */

typedef struct rma_peer {
	int64_t size;          /* bytes the rank exposes (non-dynamic) */
	int64_t disp_unit;
	uint64_t base;         /* host address of its linear memory (dynamic) */
	int64_t glob;          /* whether it can use the bridge-wide ld_glob */
	int64_t mbase;         /* module address of its window's data (its own
	                        * memory; 0 if dynamic) */
} rma_peer;

typedef struct rma_win {
	MPI_Win h;
	u32 base, size;        /* module address and size (0, 0 if dynamic) */
	int32_t disp_unit;
	int flavor;            /* MW_WIN_FLAVOR_* */
	u32 eh;                /* module error handler */
	u32 attrs;             /* module words for the predefined attributes */
	int n;                 /* ranks in the window's group */
	rma_peer *peers;
	u32 shm_blk, shm_at;   /* shared: malloc block, mapped module address */
	uint64_t shm_len;      /* shared: bytes mapped at shm_at */
	int64_t *pad;          /* shared: each segment's offset in its page */
	int glob;              /* long double accumulates use ld_glob (every rank
	                        * of the window is in MPI_COMM_WORLD); else: */
	int *wrank;            /* glob: each rank's rank in MPI_COMM_WORLD */
	int lock_all;          /* passive epochs the module has open on the host
	                        * window: MPI_Win_lock_all, and MPI_Win_lock */
	unsigned *locked;      /* per target rank */
	MPI_Win lk;            /* not glob: a second host window over the same
	                        * memory (see ld_acc) */
	int lk_seg;            /* lk's displacements count from the segment, not
	                        * from the host window's base (pad[rank] less) */
	int64_t *lk_pad;       /* shared, host-allocated: lk's displacements count
	                        * from the segment's page (pad[r] less, lk_pad[r]
	                        * more) */
	u32 *seg;              /* shared: each rank's segment, a module address */
	void *host_pages;      /* allocated, 1 process: host pages given a memfd */
} rma_win;

static rma_win **wins;     /* by module handle; 0 is MPI_WIN_NULL */
static u32 nwins;

/* wins and nwins change under mw_lock (threads may create windows at
 * once); an rma_win itself is only freed by MPI_Win_free. */
static rma_win *win_of(u32 h)
{
	if (!mw_is_active || h == MW_WIN_NULL)
		return NULL;
	mw_lock();
	rma_win *w = h < nwins ? wins[h] : NULL;
	mw_unlock();
	return w;
}

struct rma_win *mw_win_of(u32 h)
{
	return win_of(h);
}

u32 mw_win_eh(u32 h)
{
	rma_win *w = win_of(h);
	return w ? w->eh : UINT32_MAX;
}

int mw_win_hget(u32 h, MPI_Win *out)
{
	rma_win *w = win_of(h);
	if (!w)
		return MW_ERR_WIN;
	*out = w->h;
	return 0;
}

/* Module handle of a host window (for callbacks), or MPI_WIN_NULL. */
static u32 win_find(MPI_Win h)
{
	u32 found = MW_WIN_NULL;
	mw_lock();
	for (u32 i = 1; i < nwins && found == MW_WIN_NULL; i++)
		if (wins[i] && wins[i]->h == h)
			found = i;
	mw_unlock();
	return found;
}

static u32 win_add_(rma_win *w);

static u32 win_add(rma_win *w)
{
	mw_lock();
	u32 i = win_add_(w);
	mw_unlock();
	return i;
}

static u32 win_add_(rma_win *w)
{
	for (u32 i = 1; i < nwins; i++)
		if (!wins[i]) {
			wins[i] = w;
			return i;
		}
	u32 n = nwins ? nwins * 2 : 16;
	rma_win **v = realloc(wins, n * sizeof *v);
	if (!v)
		return MW_WIN_NULL;
	memset(v + nwins, 0, (n - nwins) * sizeof *v);
	u32 i = nwins ? nwins : 1;
	wins = v;
	nwins = n;
	wins[i] = w;
	return i;
}

/* ---- creation ---------------------------------------------------------------- */

/* The host's view of a window's memory, for its second host window:
 * host address, bytes and displacement unit, as the host window has them
 * (hp NULL: a dynamic window). */
typedef struct host_span {
	void *hp;
	MPI_Aint len;
	int du;
} host_span;

/* ---- the bridge-wide windows of long double accumulates ----------------------
 * Made once, in the first window creation on a communicator congruent to
 * MPI_COMM_WORLD (so every process of the world takes part, collectively),
 * and kept in a passive epoch (MPI_Win_lock_all) until MPI_Finalize:
 * - lock: one 64-bit word per world rank, 0 or 1, the lock of the long
 *   double accumulates targeting that rank (taken by an atomic swap);
 * - data: every rank's whole linear memory (module address = displacement),
 *   through which such an accumulate reaches its target in any
 *   synchronization mode of the module's window (fence, PSCW, or none).
 * A window whose ranks are all in MPI_COMM_WORLD uses them; creating it
 * costs no host window more.  Others (a communicator across worlds after
 * a spawn, a window made before any on a world-sized communicator, every
 * window on MPICH: ld_glob_make) get a second host window over their
 * memory, as before (w->lk). */
static struct {
	int tried, ok;
	MPI_Win lock, data;
	int64_t *words;
} ld_glob = { 0, 0, MPI_WIN_NULL, MPI_WIN_NULL, NULL };

static void ld_glob_make(rt_instance *inst, MPI_Comm c)
{
	int cmp = MPI_UNEQUAL;
	if (ld_glob.tried || MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp) != MPI_SUCCESS ||
	    (cmp != MPI_IDENT && cmp != MPI_CONGRUENT))
		return;
	ld_glob.tried = 1;
#ifdef MPICH_VERSION
	/* Not on MPICH 4.0.2 (ch4:ucx), where both halves failed here: a window
	 * made later over memory inside `data` loses its Puts (they complete,
	 * the memory never changes), and two ranks each spinning on the other's
	 * lock word hung in a PSCW epoch.  Every window keeps its own second
	 * window there (w->lk). */
	return;
#endif
	int ok = MPI_Win_allocate(8, 8, MPI_INFO_NULL, c, &ld_glob.words,
	                          &ld_glob.lock) == MPI_SUCCESS;
	if (ok)
		*ld_glob.words = 0;
	else
		ld_glob.lock = MPI_WIN_NULL;
	if (MPI_Win_create(rt_mem(inst, 0, 0), (MPI_Aint)1 << 32, 1, MPI_INFO_NULL, c,
	                   &ld_glob.data) != MPI_SUCCESS) {
		ld_glob.data = MPI_WIN_NULL;
		ok = 0;
	}
	/* all or none; and every word is 0 before anyone takes one */
	if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS)
		ok = 0;
	if (ok) {
		MPI_Win_set_errhandler(ld_glob.lock, MPI_ERRORS_RETURN);
		MPI_Win_set_errhandler(ld_glob.data, MPI_ERRORS_RETURN);
		ok = MPI_Win_lock_all(MPI_MODE_NOCHECK, ld_glob.lock) == MPI_SUCCESS &&
		     MPI_Win_lock_all(MPI_MODE_NOCHECK, ld_glob.data) == MPI_SUCCESS;
	}
	if (!ok) {   /* (lock_all does not fail on a window it just made) */
		if (ld_glob.lock != MPI_WIN_NULL)
			MPI_Win_free(&ld_glob.lock);
		if (ld_glob.data != MPI_WIN_NULL)
			MPI_Win_free(&ld_glob.data);
	}
	ld_glob.ok = ok;
}

/* Before the host's MPI_Finalize (collective over the world, as that is). */
void mw_rma_fini(void)
{
	if (!ld_glob.ok)
		return;
	MPI_Win_unlock_all(ld_glob.lock);
	MPI_Win_unlock_all(ld_glob.data);
	MPI_Win_free(&ld_glob.lock);
	MPI_Win_free(&ld_glob.data);
	ld_glob.ok = 0;
	ld_glob.words = NULL;
}

/* Each rank of c's rank in MPI_COMM_WORLD (malloc'd, n of them): NULL if
 * one is not in it.  Every rank of c gets the same answer: all of c in one
 * world is the world of each. */
static int *world_ranks(MPI_Comm c, int n)
{
	MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
	int *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
	int ok = in && out && MPI_Comm_group(c, &g) == MPI_SUCCESS &&
	         MPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS;
	for (int i = 0; ok && i < n; i++)
		in[i] = i;
	ok = ok && MPI_Group_translate_ranks(g, n, in, wg, out) == MPI_SUCCESS;
	for (int i = 0; ok && i < n; i++)
		ok = out[i] != MPI_UNDEFINED;
	if (g != MPI_GROUP_NULL)
		MPI_Group_free(&g);
	if (wg != MPI_GROUP_NULL)
		MPI_Group_free(&wg);
	free(in);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

/* After the host made window hw over comm c: the record, the peers'
 * layouts (collective over c), where long double accumulates go (ld_glob,
 * or a second host window over the same memory), and the module handle in
 * *out. */
static int win_new(rt_instance *inst, MPI_Win hw, MPI_Comm c, host_span hs, u32 base,
                   u32 size, int32_t disp_unit, int flavor, uint32_t *out)
{
	int n = 0, rc, glob = 1;
	MPI_Win lk = MPI_WIN_NULL;
	MPI_Comm_size(c, &n);
	rma_win *w = calloc(1, sizeof *w);
	rma_peer *p = calloc((size_t)n + 1, sizeof *p);
	unsigned *locked = calloc((size_t)n + 1, sizeof *locked);
	ld_glob_make(inst, c);
	int *wr = ld_glob.ok ? world_ranks(c, n) : NULL;
	if (!w || !p || !locked) {
		free(w);
		free(p);
		free(locked);
		free(wr);
		return MPI_ERR_NO_MEM;
	}
	rma_peer me = { size, disp_unit, (uint64_t)(uintptr_t)rt_mem(inst, 0, 0), wr != NULL,
	                flavor == MW_WIN_FLAVOR_DYNAMIC ? 0 : base };
	rc = MPI_Allgather(&me, 5, MPI_INT64_T, p, 5, MPI_INT64_T, c);
	for (int i = 0; i < n; i++)
		glob &= p[i].glob != 0;
	if (rc == MPI_SUCCESS && !glob) {
		/* Without it (Open MPI 4.1 makes no MPI_Win_create window on a
		 * 1-process communicator) the window works, but long double
		 * accumulates on it fail, saying so. */
		int ok = (hs.hp || flavor != MW_WIN_FLAVOR_DYNAMIC
		          ? MPI_Win_create(hs.hp, hs.len, hs.du, MPI_INFO_NULL, c, &lk)
		          : MPI_Win_create_dynamic(MPI_INFO_NULL, c, &lk)) == MPI_SUCCESS;
		if (!ok)
			lk = MPI_WIN_NULL;
		rc = MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, c);
		if ((rc != MPI_SUCCESS || !ok) && lk != MPI_WIN_NULL)
			MPI_Win_free(&lk);   /* all or none */
	}
	if (rc != MPI_SUCCESS) {
		free(w);
		free(p);
		free(locked);
		free(wr);
		return rc;
	}
	MPI_Win_set_errhandler(hw, MPI_ERRORS_RETURN);
	if (lk != MPI_WIN_NULL)
		MPI_Win_set_errhandler(lk, MPI_ERRORS_RETURN);
	w->glob = glob;
	w->wrank = glob ? wr : NULL;
	if (!glob)
		free(wr);
	w->locked = locked;
	w->lk = lk;
	w->h = hw;
	w->base = base;
	w->size = size;
	w->disp_unit = disp_unit;
	w->flavor = flavor;
	w->eh = MW_ERRORS_ARE_FATAL;
	w->n = n;
	w->peers = p;
	u32 h = win_add(w);
	if (h == MW_WIN_NULL) {
		if (lk != MPI_WIN_NULL)
			MPI_Win_free(&lk);
		free(w->wrank);
		free(locked);
		free(w);
		free(p);
		return MPI_ERR_NO_MEM;
	}
	*out = h;
	return MPI_SUCCESS;
}

/* A failed creation after the host made its window: undone. */
static void host_win_drop(MPI_Win *hw)
{
	if (*hw != MPI_WIN_NULL)
		MPI_Win_free(hw);
}

/* The entry checked the communicator, info, size, unit, the memory and
 * the out pointer. */
u32 mwh_Win_create(const mw_call *k, const mw_loc *base, uint32_t size, int disp_unit,
                   MPI_Info info, MPI_Comm comm, uint32_t *win)
{
	MPI_Win hw = MPI_WIN_NULL;
	int rc = MPI_Win_create(base->p, (MPI_Aint)size, disp_unit, info, comm, &hw);
	if (rc == MPI_SUCCESS &&
	    (rc = win_new(k->inst, hw, comm, (host_span){ base->p, (MPI_Aint)size, disp_unit },
	                  base->mod, size, disp_unit, MW_WIN_FLAVOR_CREATE, win)))
		host_win_drop(&hw);
	return mw_call_ret(k, rc);
}

static int all_ok(int ok, MPI_Comm c);

static void shm_release(rt_instance *inst, u32 blk, u32 at, uint64_t len);

/* Whether [p, p + len) lies in one shared mapping of this process. */
static int shared_span(const void *p, uint64_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int yes = 0;
	uintptr_t a = (uintptr_t)p;
	while (f && !yes && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		char perm[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 && a >= lo &&
		    a + len <= hi && perm[3] == 's')
			yes = 1;
	}
	if (f)
		fclose(f);
	return yes;
}

/* The shared pages [p, p + len) mapped a second time at dest (mremap with
 * old size 0), or MAP_FAILED.  The system call itself: MPICH over UCX
 * links UCX's memory hooks, whose mremap refuses this (ENODEV, ENOMEM),
 * so through the library both MPI_Win_allocate and
 * MPI_Win_allocate_shared would fall back on MPICH. */
static void *map_again(void *p, uint64_t len, void *dest)
{
	return (void *)syscall(SYS_mremap, p, (size_t)0, (size_t)len,
	                       MREMAP_MAYMOVE | MREMAP_FIXED, dest);
}

/* Private pages back at host address p (len bytes, their contents kept)
 * before the host frees its window: nothing of the host's heap stays
 * shared with linear memory, and the host's malloc finds its memory as
 * it was. */
static void host_pages_back(void *p, uint64_t len)
{
	void *t = malloc(len);
	if (t)
		memcpy(t, p, len);
	if (!t || mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
	               -1, 0) == MAP_FAILED) {
		fprintf(stderr, "mpiwasm: rank %d: hand_rma.c: MPI_Win_free: cannot restore the "
		        "host's window pages: %s\n", mw_world_rank, strerror(errno));
		mw_abort_job(MPI_COMM_WORLD, 1);
	}
	memcpy(p, t, len);
	free(t);
}

/* The host pages [A, A + len) made to appear at module address `at` (a
 * page-aligned block of the module's malloc), as alloc_alias describes:
 * shared pages are mapped there a second time, and a write through the
 * new mapping read back at A shows they really are the same (a private
 * file mapping would give a copy); private pages on a 1-process
 * communicator (n == 1) are replaced by a memfd mapped at both places
 * (*own = 1: host_pages_back must give the host private pages again
 * before it frees them).  Returns 1 if aliased; on 0 nothing is left
 * mapped at `at`. */
static int alias_pages(rt_instance *inst, uint8_t *A, uint64_t len, u32 at, int n, int *own)
{
	uint8_t *dest = (uint8_t *)rt_mem(inst, 0, 0) + at;
	int mapped = 0;
	*own = 0;
	if (shared_span(A, len)) {
		mapped = map_again(A, len, dest) == (void *)dest;
		if (mapped) {
			volatile uint8_t *x = A, *y = dest;
			uint8_t old = *x, flip = (uint8_t)~old;
			*y = flip;
			mapped = *x == flip;
			*y = old;
			if (!mapped)
				shm_release(inst, 0, at, len);
		}
	} else if (n == 1) {
		int fd = memfd_create("mpiwasm-win", MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, (off_t)len) == 0 &&
		    pwrite(fd, A, len, 0) == (ssize_t)len &&
		    mmap(dest, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		         0) != MAP_FAILED) {
			mapped = *own = mmap(A, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			                     fd, 0) != MAP_FAILED;
			if (!mapped)
				shm_release(inst, 0, at, len);
		}
		if (fd >= 0)
			close(fd);
	}
	return mapped;
}

/* MPI_Win_allocate with the host's own MPI_Win_allocate (its fast paths:
 * Open MPI's osc/rdma and osc/sm, MPICH's shared-memory windows) whose
 * memory is made to appear in linear memory.  The host is asked for the
 * size rounded up to whole pages plus one page, so that the whole pages
 * inside what it returns, [A, A + len), hold nothing but this window's
 * data; those pages are mapped a second time over a page-aligned block of
 * the module's malloc, so module loads and stores and the host's RMA see
 * the same bytes:
 *   - the host memory is a shared mapping (a /dev/shm segment the peers
 *     map too, Open MPI and MPICH with 2 or more ranks on a node):
 *     mremap(A, 0, len, MREMAP_MAYMOVE | MREMAP_FIXED, dest) maps the same
 *     pages again at dest;
 *   - it is private memory (the host's heap, as with 1 process): the
 *     pages at A are replaced by a memfd mapped at A and at dest, but only
 *     on a 1-process communicator, where no other process reaches them
 *     (with peers, the host may have registered those pages with a
 *     network or shared them otherwise, so it is not done).
 * A test write through dest read back at A shows the aliasing works.  No
 * byte of the host outside its window's data becomes linear memory, and
 * remote accesses are checked against the module's size (target_in), so
 * they stay inside the pages mapped.  The host window counts in bytes
 * from its base; each rank's A - base is w->pad.  The runtime never
 * touches pages below the memory's current size (memory.grow only opens
 * pages above it, the base never moves), so the mapping stays until
 * MPI_Win_free puts private zero pages back and frees the block.
 * If any rank cannot alias, all fall back to MPI_Win_create over a block
 * of the module's malloc (0 here: *done stays 0). */
static int alloc_alias(rt_instance *inst, MPI_Comm c, MPI_Info in, u32 size, int32_t du,
                       u32 *basep, u32 *hp, int *done)
{
	const char *proc = "MPI_Win_allocate";
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *mem = rt_mem(inst, 0, 0);
	int n = 0, rc;
	MPI_Comm_size(c, &n);
	*done = 0;
	if (pg <= 0 || (uintptr_t)mem % (uintptr_t)pg)
		return 0;
	uint64_t len = ((uint64_t)(size ? size : 1) + (uint64_t)pg - 1) / (uint64_t)pg *
	               (uint64_t)pg;
	if (len + 2 * (uint64_t)pg >= UINT32_MAX)
		return 0;
	void *hb = NULL;
	MPI_Win hw = MPI_WIN_NULL;
	rc = MPI_Win_allocate((MPI_Aint)(len + (uint64_t)pg), 1, in, c, &hb, &hw);
	if (!all_ok(rc == MPI_SUCCESS, c)) {
		host_win_drop(&hw);
		return 0;
	}
	uint8_t *A = (uint8_t *)(((uintptr_t)hb + (uintptr_t)pg - 1) / (uintptr_t)pg *
	                         (uintptr_t)pg);
	u32 blk = mw_malloc(inst, (u32)(len + (uint64_t)pg), proc);
	mw_after(inst, 0);
	u32 at = blk ? (u32)(((uint64_t)blk + (uint64_t)pg - 1) / (uint64_t)pg * (uint64_t)pg) : 0;
	int own = 0;
	int mapped = blk && alias_pages(inst, A, len, at, n, &own);
	if (!all_ok(mapped, c)) {
		shm_release(inst, blk, at, mapped ? len : 0);
		if (own)
			host_pages_back(A, len);
		host_win_drop(&hw);
		return 0;
	}
	int64_t *pads = calloc((size_t)n + 1, sizeof *pads), mine = A - (uint8_t *)hb;
	if (!pads || (rc = MPI_Allgather(&mine, 1, MPI_INT64_T, pads, 1, MPI_INT64_T, c))) {
		free(pads);
		shm_release(inst, blk, at, len);
		if (own)
			host_pages_back(A, len);
		host_win_drop(&hw);
		return rc ? rc : MPI_ERR_NO_MEM;
	}
	u32 h = MW_WIN_NULL;
	rc = win_new(inst, hw, c, (host_span){ mem + at, (MPI_Aint)len, 1 }, at, size, du,
	             MW_WIN_FLAVOR_ALLOCATE, &h);
	if (rc != MPI_SUCCESS) {
		free(pads);
		shm_release(inst, blk, at, len);
		if (own)
			host_pages_back(A, len);
		host_win_drop(&hw);
		return rc;
	}
	rma_win *w = win_of(h);
	w->pad = pads;
	w->lk_seg = 1;
	w->shm_blk = blk;
	w->shm_at = at;
	w->shm_len = len;
	w->host_pages = own ? A : NULL;
	*basep = at;
	*hp = h;
	*done = 1;
	return MPI_SUCCESS;
}

/* The entry checked the communicator, info, size, unit and out pointers;
 * the memory comes from the host (alloc_alias) or the module's malloc. */
u32 mwh_Win_allocate(const mw_call *k, uint32_t size, int du, MPI_Info in, MPI_Comm c,
                     uint32_t *baseptr, uint32_t *win)
{
	rt_instance *inst = k->inst;
	MPI_Win hw = MPI_WIN_NULL;
	int rc, done = 0;
	u32 a = 0;
	uint32_t h = MW_WIN_NULL;
	if (!getenv("MPIWASM_WIN_ALLOCATE_CREATE")) {   /* the old path, to compare */
		rc = alloc_alias(inst, c, in, size, (int32_t)du, &a, &h, &done);
		if (rc != MPI_SUCCESS || done) {
			if (rc == MPI_SUCCESS) {
				*baseptr = a;
				*win = h;
			}
			return mw_call_ret(k, rc);
		}
	}
	/* The module's own allocator: the memory is linear memory. */
	a = mw_malloc(inst, size ? size : 1, k->proc);
	mw_after(inst, 0);
	/* Collective: a rank whose malloc failed must not leave the others
	 * waiting in MPI_Win_create. */
	if (!all_ok(a != 0, c)) {
		mw_free(inst, a);
		return mw_call_fail(k, MW_ERR_NO_MEM);
	}
	void *p = mw_ptr(inst, a, size);
	rc = MPI_Win_create(p, (MPI_Aint)size, du, in, c, &hw);
	if (rc == MPI_SUCCESS &&
	    (rc = win_new(inst, hw, c, (host_span){ p, (MPI_Aint)size, du }, a, size,
	                  (int32_t)du, MW_WIN_FLAVOR_ALLOCATE, &h)))
		host_win_drop(&hw);
	if (rc == MPI_SUCCESS) {
		*baseptr = a;
		*win = h;
	} else {
		mw_free(inst, a);
	}
	return mw_call_ret(k, rc);
}

/* ---- shared windows ------------------------------------------------------------ */

/* Puts private zero pages back where a shared segment was mapped and
 * frees the module block around it. */
static void shm_release(rt_instance *inst, u32 blk, u32 at, uint64_t len)
{
	if (len) {
		void *p = mmap((uint8_t *)rt_mem(inst, 0, 0) + at, len, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "mpiwasm: rank %d: hand_rma.c: shm_release: cannot "
			        "restore linear memory after a shared window: %s\n",
			        mw_world_rank, strerror(errno));
			mw_abort_job(MPI_COMM_WORLD, 1);
		}
	}
	if (blk)
		mw_free(inst, blk);
}

/* Whether every rank of c says ok (collective). */
static int all_ok(int ok, MPI_Comm c)
{
	int all = 0;
	if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS)
		return 0;
	return all;
}

/* Whether info says alloc_shared_noncontig (the host's reading of it). */
static int info_noncontig(MPI_Info in)
{
	char v[16] = "";
	int flag = 0;
	if (in == MPI_INFO_NULL ||
	    MPI_Info_get(in, "alloc_shared_noncontig", (int)sizeof v - 1, v, &flag) != MPI_SUCCESS)
		return 0;
	return flag && strcmp(v, "true") == 0;
}

/* The fallback is taken: rank 0 of c says so on stderr, once, with its
 * own reason if it has one (why NULL: another rank's). */
static void shared_fallback_note(MPI_Comm c, const char *why)
{
	int r = 0;
	MPI_Comm_rank(c, &r);
	if (r == 0)
		fprintf(stderr, "mpiwasm: rank %d: MPI_Win_allocate_shared: %s; the window uses "
		        "the bridge's own shared memory under MPI_Win_create instead (slower; "
		        "Open MPI 4.1 then fails on 1 process and accumulate-based reads of pair "
		        "types are not atomic)\n", mw_world_rank,
		        why ? why : "another rank could not alias the host's segments");
}

/* MPI_Win_allocate_shared with the host's own MPI_Win_allocate_shared (its
 * shared-memory window: Open MPI's osc/sm, MPICH's POSIX segment), the
 * node's whole segment made to appear in every rank's linear memory.
 * Both hosts keep all segments of a node in one shared file mapping
 * (/dev/shm), in rank order, after their own control words (Open MPI
 * puts its window state in the same file, before the data).  To alias
 * only window data, never those words, rank 0 asks the host for one page
 * more in front of its segment and the last rank for one page more
 * behind its own: the module's segment of rank r starts pad[r] bytes into
 * the host's (a page for rank 0, else 0), so the page-rounded span from
 * rank 0's module segment to the end of the last one lies inside the
 * host's data.  Each rank maps that span once more over a page-aligned
 * block of its malloc (mremap of the shared mapping, as alloc_alias);
 * with 1 process the host's memory is its private heap and a memfd takes
 * its place (alloc_alias's second case).  Segments keep the host's
 * layout, translated: contiguous in rank order unless info said
 * alloc_shared_noncontig (checked; a host that lays them out otherwise
 * gets the fallback).  The host window counts bytes from the host's base
 * of each segment (pad[r] + the module's displacement times its unit).
 * Any check failing on any rank: all free the host window and return with
 * *done 0, for the caller's own-segment path. */
static int shared_alias(rt_instance *inst, MPI_Comm c, MPI_Info in, u32 size, int32_t du,
                        const int64_t *sizes, u32 *basep, u32 *hp, int *done)
{
	const char *proc = "MPI_Win_allocate_shared";
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *mem = rt_mem(inst, 0, 0);
	int n = 0, me = 0, rc;
	MPI_Comm_size(c, &n);
	MPI_Comm_rank(c, &me);
	*done = 0;
	int64_t *pad = calloc((size_t)n + 1, sizeof *pad), *lkpad = calloc((size_t)n + 1,
	                                                                     sizeof *lkpad);
	u32 *seg = calloc((size_t)n + 1, sizeof *seg);
	uint8_t **hbase = calloc((size_t)n + 1, sizeof *hbase);
	if (!pad || !lkpad || !seg || !hbase) {
		free(pad);
		free(lkpad);
		free(seg);
		free(hbase);
		return MPI_ERR_NO_MEM;
	}
	pad[0] = pg;
	MPI_Aint ask = (MPI_Aint)size + (me == 0 ? pg : 0) + (me == n - 1 ? pg : 0);
	void *hb = NULL;
	MPI_Win hw = MPI_WIN_NULL;
	rc = MPI_Win_allocate_shared(ask, 1, in, c, &hb, &hw);
	int ok = rc == MPI_SUCCESS;
	/* Where the host put every segment; the span of the module's. */
	uint8_t *lo = NULL, *hi = NULL, *prev_end = NULL;
	int contig = !info_noncontig(in);
	for (int r = 0; ok && r < n; r++) {
		MPI_Aint hs = 0;
		int hdu = 0;
		void *b = NULL;
		/* (Open MPI reports a noncontiguous segment rounded up to pages) */
		ok = MPI_Win_shared_query(hw, r, &hs, &hdu, &b) == MPI_SUCCESS &&
		     hs >= (MPI_Aint)sizes[r] + (r == 0 ? pg : 0) + (r == n - 1 ? pg : 0);
		if (ok && hs == 0)   /* an empty segment in between: no base (MPICH) */
			b = prev_end;
		if (!(ok = ok && b))
			break;
		hbase[r] = b;
		uint8_t *m = hbase[r] + pad[r];
		if (prev_end && (m < prev_end || (contig && m != prev_end)))
			ok = 0;   /* not in rank order, or not contiguous */
		if (r == 0)
			lo = m;
		prev_end = m + sizes[r];
		hi = prev_end;
	}
	uint64_t len = 0;
	uint8_t *A = NULL;
	if (ok) {
		A = (uint8_t *)((uintptr_t)lo / (uintptr_t)pg * (uintptr_t)pg);
		uint8_t *E = (uint8_t *)(((uintptr_t)hi + (uintptr_t)pg - 1) / (uintptr_t)pg *
		                         (uintptr_t)pg);
		len = (uint64_t)(E - A);
		if (len == 0)
			len = (uint64_t)pg;
		/* inside the host's data: from rank 0's base to the last one's end */
		ok = A >= hbase[0] && A + len <= hbase[n - 1] + pad[n - 1] + sizes[n - 1] + pg &&
		     len + 2 * (uint64_t)pg < UINT32_MAX;
	}
	if (!all_ok(ok, c)) {
		shared_fallback_note(c, ok ? NULL : rc != MPI_SUCCESS ? "the host's "
		                     "MPI_Win_allocate_shared failed" : "the host's segments are "
		                     "not laid out as MPI's default (in rank order, contiguous)");
		free(pad);
		free(lkpad);
		free(seg);
		free(hbase);
		host_win_drop(&hw);
		return 0;
	}
	u32 blk = mw_malloc(inst, (u32)(len + (uint64_t)pg), proc);
	mw_after(inst, 0);
	if (!all_ok(blk != 0, c)) {
		fprintf(stderr, "mpiwasm: rank %d: %s: no room in linear memory for the node's "
		        "shared segments (%llu bytes: every rank's segment appears in each rank's "
		        "memory)\n", mw_world_rank, proc, (unsigned long long)len);
		mw_free(inst, blk);
		free(pad);
		free(lkpad);
		free(seg);
		free(hbase);
		host_win_drop(&hw);
		return MPI_ERR_NO_MEM;
	}
	u32 at = (u32)(((uint64_t)blk + (uint64_t)pg - 1) / (uint64_t)pg * (uint64_t)pg);
	int own = 0;
	int mapped = alias_pages(inst, A, len, at, n, &own);
	if (!all_ok(mapped, c)) {
		shared_fallback_note(c, mapped ? NULL : "the host's segments are not one "
		                     "shared mapping this process can map again");
		shm_release(inst, blk, at, mapped ? len : 0);
		if (own)
			host_pages_back(A, len);
		free(pad);
		free(lkpad);
		free(seg);
		free(hbase);
		host_win_drop(&hw);
		return 0;
	}
	/* Module addresses; the second host window (long double accumulates)
	 * starts at the page of the rank's segment (see the own-segment path
	 * on MPICH and shared pages), so its displacements are bytes from
	 * there: lkpad[r] is the segment's offset in its page. */
	for (int r = 0; r < n; r++) {
		seg[r] = at + (u32)(hbase[r] + pad[r] - A);
		lkpad[r] = (int64_t)(seg[r] % (u32)pg);
	}
	u32 mine = seg[me], lkbase = mine - (u32)lkpad[me];
	u32 h = MW_WIN_NULL;
	rc = win_new(inst, hw, c, (host_span){ mem + lkbase, (MPI_Aint)(size + (u32)lkpad[me]),
	             1 }, mine, size, du, MW_WIN_FLAVOR_SHARED, &h);
	if (rc != MPI_SUCCESS) {
		shm_release(inst, blk, at, len);
		if (own)
			host_pages_back(A, len);
		free(pad);
		free(lkpad);
		free(seg);
		free(hbase);
		host_win_drop(&hw);
		return rc;
	}
	free(hbase);
	rma_win *w = win_of(h);
	w->pad = pad;
	w->lk_pad = lkpad;
	w->seg = seg;
	w->shm_blk = blk;
	w->shm_at = at;
	w->shm_len = len;
	w->host_pages = own ? A : NULL;
	*basep = mine;
	*hp = h;
	*done = 1;
	return MPI_SUCCESS;
}

/* MPI_Win_allocate_shared's fallback (and with MPIWASM_WIN_SHARED_CREATE
 * set, to compare): a POSIX shared-memory object of the bridge's own
 * holding all segments back to back, in rank order, mapped over a block
 * of every rank's malloc, under a host MPI_Win_create over the rank's
 * segment.  sizes: every rank's size, made each segment's page offset. */
static int shared_own(rt_instance *inst, MPI_Comm c, MPI_Info in, u32 size, int32_t du,
                      int64_t *sizes, u32 *basep, u32 *hp)
{
	const char *proc = "MPI_Win_allocate_shared";
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *mem = rt_mem(inst, 0, 0);
	MPI_Win hw = MPI_WIN_NULL;
	int rc, n = 0, me = 0, fd = -1;
	u32 blk = 0, at = 0;
	uint64_t len = 0;
	MPI_Comm_size(c, &n);
	MPI_Comm_rank(c, &me);
	u32 *seg = calloc((size_t)n + 1, sizeof *seg);
	if (!seg)
		return MPI_ERR_NO_MEM;
	int64_t total = 0, off = 0;
	for (int i = 0; i < n; i++) {
		if (i == me)
			off = total;
		int64_t sz = sizes[i];
		seg[i] = (u32)total;        /* from the block's mapped start, below */
		sizes[i] = total % pg;   /* from now on: the segment's page offset */
		total += sz;
	}
	len = ((uint64_t)total + (uint64_t)pg - 1) / (uint64_t)pg * (uint64_t)pg;
	if (len == 0)
		len = (uint64_t)pg;
	if (len + (uint64_t)pg < UINT32_MAX)
		blk = mw_malloc(inst, (u32)(len + (uint64_t)pg), proc);
	mw_after(inst, 0);
	if (blk)
		at = (u32)(((uint64_t)blk + (uint64_t)pg - 1) / (uint64_t)pg * (uint64_t)pg);
	if (!all_ok(blk != 0, c)) {
		fprintf(stderr, "mpiwasm: rank %d: %s: no room in linear memory for the node's "
		        "shared segments (%llu bytes: every rank's segment appears in each rank's "
		        "memory)\n", mw_world_rank, proc, (unsigned long long)len);
		free(seg);
		shm_release(inst, blk, 0, 0);
		return MPI_ERR_NO_MEM;
	}
	/* Rank 0 makes the shared object; every rank maps it over its block. */
	struct { char name[64]; int ok; } obj = { "", 0 };
	if (me == 0) {
		static unsigned seq;
		snprintf(obj.name, sizeof obj.name, "/mpiwasm-rma-%ld-%u-%lx", (long)getpid(),
		         seq++, (unsigned long)(uintptr_t)mem >> 12);
		fd = shm_open(obj.name, O_RDWR | O_CREAT | O_EXCL, 0600);
		obj.ok = fd >= 0 && ftruncate(fd, (off_t)len) == 0;
	}
	if ((rc = MPI_Bcast(&obj, (int)sizeof obj, MPI_BYTE, 0, c))) {
		if (fd >= 0) {
			close(fd);
			shm_unlink(obj.name);
		}
		free(seg);
		shm_release(inst, blk, 0, 0);
		return rc;
	}
	if (me != 0 && obj.ok)
		fd = shm_open(obj.name, O_RDWR, 0);
	int mapped = 0;
	if (obj.ok && fd >= 0) {
		void *p = mmap(mem + at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
		mapped = p != MAP_FAILED;
	}
	if (fd >= 0)
		close(fd);
	int ok = all_ok(mapped, c);   /* every rank has it open: the name can go */
	if (me == 0 && obj.name[0])
		shm_unlink(obj.name);
	if (!ok) {
		free(seg);
		shm_release(inst, blk, at, mapped ? len : 0);
		return MPI_ERR_RMA_SHARED;
	}
	for (int i = 0; i < n; i++)
		seg[i] += at;
	/* The host window starts at the page of the segment, displacements
	 * in bytes (the origin adds the target's page offset): MPICH 4.0.2
	 * (ch4:ucx) loses a window's offset within its page when the page is
	 * a shared file mapping and writes to the page's start instead (seen
	 * natively too, with shm_open + mmap + MPI_Win_create). */
	u32 base = at + (u32)off, hbase = base - (u32)(off % pg);
	rc = MPI_Win_create(mem + hbase, (MPI_Aint)(size + (u32)(off % pg)), 1, in, c, &hw);
	uint32_t h = MW_WIN_NULL;
	if (rc == MPI_SUCCESS &&
	    (rc = win_new(inst, hw, c, (host_span){ mem + hbase, (MPI_Aint)(size +
	                  (u32)(off % pg)), 1 }, base, size, du, MW_WIN_FLAVOR_SHARED, &h)))
		host_win_drop(&hw);
	if (rc != MPI_SUCCESS) {
		free(seg);
		shm_release(inst, blk, at, len);
		return rc;
	}
	rma_win *w = win_of(h);
	w->pad = sizes;
	w->lk_seg = 0;
	w->seg = seg;
	w->shm_blk = blk;
	w->shm_at = at;
	w->shm_len = len;
	*basep = base;
	*hp = h;
	return MPI_SUCCESS;
}

/* The entry checked the communicator, info, size, unit and out pointers. */
u32 mwh_Win_allocate_shared(const mw_call *k, uint32_t size, int du, MPI_Info in, MPI_Comm c,
                            uint32_t *baseptr, uint32_t *win)
{
	rt_instance *inst = k->inst;
	const char *proc = k->proc;
	MPI_Comm node;
	int rc, n = 0, nn = 0, done = 0;
	int64_t *sizes = NULL;
	long pg = sysconf(_SC_PAGESIZE);
	if (pg <= 0 || (uintptr_t)rt_mem(inst, 0, 0) % (uintptr_t)pg)
		return mw_call_fail(k, MW_ERR_RMA_SHARED);
	/* All ranks of comm must share memory. */
	if ((rc = MPI_Comm_size(c, &n)))
		return mw_call_ret(k, rc);
	if ((rc = MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node)))
		return mw_call_ret(k, rc);
	MPI_Comm_size(node, &nn);
	MPI_Comm_free(&node);
	if (nn != n)
		return mw_call_fail(k, MW_ERR_RMA_SHARED);
	/* Every rank's segment appears in each rank's linear memory: the
	 * node's total must fit one wasm32 memory (4 GiB in all). */
	if (!(sizes = calloc((size_t)n + 1, sizeof *sizes)))
		return mw_call_fail(k, MW_ERR_NO_MEM);
	int64_t mine = (int32_t)size, total = 0;
	if ((rc = MPI_Allgather(&mine, 1, MPI_INT64_T, sizes, 1, MPI_INT64_T, c))) {
		free(sizes);
		return mw_call_ret(k, rc);
	}
	for (int i = 0; i < n; i++)
		total += sizes[i];
	if ((uint64_t)total + 4 * (uint64_t)pg >= UINT32_MAX) {
		fprintf(stderr, "mpiwasm: rank %d: %s: the node's segments, %lld bytes in all, "
		        "cannot appear in a wasm32 linear memory (4 GiB, shared with the "
		        "program's own data): every rank's segment must be in each rank's memory\n",
		        mw_world_rank, proc, (long long)total);
		free(sizes);
		return mw_call_fail(k, MW_ERR_NO_MEM);
	}
	u32 a = 0, h = MW_WIN_NULL;
	rc = 0;
	if (!getenv("MPIWASM_WIN_SHARED_CREATE"))   /* the old path, to compare */
		rc = shared_alias(inst, c, in, size, (int32_t)du, sizes, &a, &h, &done);
	if (rc == MPI_SUCCESS && !done) {
		/* shared_own keeps sizes as the window's pads */
		if ((rc = shared_own(inst, c, in, size, (int32_t)du, sizes, &a, &h)))
			free(sizes);
	} else {
		free(sizes);
	}
	if (rc != MPI_SUCCESS)
		return mw_call_ret(k, rc);
	*baseptr = a;
	*win = h;
	return 0;
}

/* The entry checked that the window is a shared one, then the out
 * pointers. */
u32 mwh_Win_shared_query(const mw_call *k, rma_win *w, int r, int32_t *size, int32_t *du,
                         uint32_t *baseptr)
{
	if (r == MPI_PROC_NULL) {   /* the lowest rank with a nonempty segment */
		for (r = 0; r < w->n - 1 && w->peers[r].size == 0; r++)
			;
	} else if (r < 0 || r >= w->n) {
		return mw_call_fail(k, MW_ERR_RANK);
	}
	*size = (int32_t)w->peers[r].size;
	*du = (int32_t)w->peers[r].disp_unit;
	/* An empty segment has no base (MPICH: NULL; it is never accessed). */
	*baseptr = w->peers[r].size ? w->seg[r] : 0;
	return 0;
}

int mw_win_shared(const rma_win *w)
{
	return w->flavor == MW_WIN_FLAVOR_SHARED;
}

u32 mwh_Win_create_dynamic(const mw_call *k, MPI_Info info, MPI_Comm comm, uint32_t *win)
{
	MPI_Win hw = MPI_WIN_NULL;
	int rc = MPI_Win_create_dynamic(info, comm, &hw);
	if (rc == MPI_SUCCESS &&
	    (rc = win_new(k->inst, hw, comm, (host_span){ NULL, 0, 1 }, 0, 0, 1,
	                  MW_WIN_FLAVOR_DYNAMIC, win)))
		host_win_drop(&hw);
	return mw_call_ret(k, rc);
}

u32 mwh_Win_attach(const mw_call *k, rma_win *w, const mw_loc *base, uint32_t size)
{
	int rc = MPI_Win_attach(w->h, base->p, (MPI_Aint)size);
	if (rc == MPI_SUCCESS && w->lk != MPI_WIN_NULL &&
	    (rc = MPI_Win_attach(w->lk, base->p, (MPI_Aint)size)))
		MPI_Win_detach(w->h, base->p);
	return mw_call_ret(k, rc);
}

u32 mwh_Win_detach(const mw_call *k, rma_win *w, const mw_loc *base)
{
	int rc = MPI_Win_detach(w->h, base->p);
	if (rc == MPI_SUCCESS && w->lk != MPI_WIN_NULL)
		MPI_Win_detach(w->lk, base->p);
	return mw_call_ret(k, rc);
}

/* The entry checked the slot and looked its window up (failures there go
 * to MPI_COMM_WORLD's handler: there is no window); the host's failure
 * goes to the window's. */
u32 mwh_Win_free(const mw_call *k, mw_win_io *q)
{
	rt_instance *inst = k->inst;
	rma_win *w = q->w;
	u32 win = q->mod;
	if (w->host_pages)
		host_pages_back(w->host_pages, w->shm_len);
	int rc = MPI_Win_free(&w->h);   /* runs attribute delete callbacks */
	if (rc != MPI_SUCCESS && w->host_pages) {
		fprintf(stderr, "mpiwasm: rank %d: MPI_Win_free failed: from now on the window's "
		        "memory in the module and the host's are separate copies\n", mw_world_rank);
		w->host_pages = NULL;
	}
	if (rc != MPI_SUCCESS)
		return mw_ret_eh(inst, rc, w->eh, win, k->proc);
	if (w->lk != MPI_WIN_NULL)
		MPI_Win_free(&w->lk);
	if (w->shm_len)   /* shared, or allocated by the host */
		shm_release(inst, w->shm_blk, w->shm_at, w->shm_len);
	else if (w->flavor == MW_WIN_FLAVOR_ALLOCATE)
		mw_free(inst, w->base);
	if (w->attrs)
		mw_free(inst, w->attrs);
	mw_errh_release(w->eh);
	free(w->pad);
	free(w->lk_pad);
	free(w->seg);
	free(w->wrank);
	free(w->locked);
	free(w->peers);
	free(w);
	mw_lock();
	wins[win] = NULL;
	mw_unlock();
	*q->slot = MW_WIN_NULL;
	return mw_after(inst, 0);
}

/* ---- synchronization ------------------------------------------------------- */

static int assert_in(u32 a, int *out)
{
	static const struct { int m, h; } bits[] = {
		{ MW_MODE_NOCHECK, MPI_MODE_NOCHECK }, { MW_MODE_NOSTORE, MPI_MODE_NOSTORE },
		{ MW_MODE_NOPUT, MPI_MODE_NOPUT }, { MW_MODE_NOPRECEDE, MPI_MODE_NOPRECEDE },
		{ MW_MODE_NOSUCCEED, MPI_MODE_NOSUCCEED },
	};
	int h = 0;
	for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
		if (a & (u32)bits[i].m) {
			h |= bits[i].h;
			a &= ~(u32)bits[i].m;
		}
	*out = h;
	return a ? MW_ERR_ASSERT : 0;
}

/* The synchronization procedures are typed: the window is looked up by
 * their generated entry, and k sends a failure to its error handler. */
u32 mwh_Win_fence(const mw_call *k, int as, rma_win *w)
{
	int a;
	if (assert_in((u32)as, &a))
		return mw_call_fail(k, MW_ERR_ASSERT);
	return mw_call_ret(k, MPI_Win_fence(a, w->h));
}

u32 mwh_Win_start(const mw_call *k, MPI_Group group, int as, rma_win *w)
{
	int a;
	if (assert_in((u32)as, &a))
		return mw_call_fail(k, MW_ERR_ASSERT);
	return mw_call_ret(k, MPI_Win_start(group, a, w->h));
}

u32 mwh_Win_post(const mw_call *k, MPI_Group group, int as, rma_win *w)
{
	int a;
	if (assert_in((u32)as, &a))
		return mw_call_fail(k, MW_ERR_ASSERT);
	return mw_call_ret(k, MPI_Win_post(group, a, w->h));
}

/* Procedures of the window alone. */
#define WIN_ONLY(NAME)                                                          \
u32 mwh_##NAME(const mw_call *k, rma_win *w)                                   \
{                                                                             \
	return mw_call_ret(k, MPI_##NAME(w->h));                               \
}
WIN_ONLY(Win_complete)
WIN_ONLY(Win_wait)
WIN_ONLY(Win_flush_all)
WIN_ONLY(Win_flush_local_all)
WIN_ONLY(Win_sync)

/* A rank (converted by the entry) and the window. */
#define WIN_RANK(NAME)                                                          \
u32 mwh_##NAME(const mw_call *k, int rank, rma_win *w)                         \
{                                                                             \
	return mw_call_ret(k, MPI_##NAME(rank, w->h));                         \
}
WIN_RANK(Win_flush)
WIN_RANK(Win_flush_local)

u32 mwh_Win_test(const mw_call *k, rma_win *w, int32_t *flag)
{
	int f = 0, rc = MPI_Win_test(w->h, &f);
	if (rc == MPI_SUCCESS)
		*flag = f;
	return mw_call_ret(k, rc);
}

u32 mwh_Win_lock(const mw_call *k, int type, int rank, int as, rma_win *w)
{
	int a, t;
	if (type == MW_LOCK_EXCLUSIVE)
		t = MPI_LOCK_EXCLUSIVE;
	else if (type == MW_LOCK_SHARED)
		t = MPI_LOCK_SHARED;
	else
		return mw_call_fail(k, MW_ERR_LOCKTYPE);
	if (assert_in((u32)as, &a))
		return mw_call_fail(k, MW_ERR_ASSERT);
	int rc = MPI_Win_lock(t, rank, a, w->h);
	if (rc == MPI_SUCCESS && rank >= 0 && rank < w->n)
		__atomic_add_fetch(&w->locked[rank], 1, __ATOMIC_RELAXED);   /* the passive epochs long double accumulates use */
	return mw_call_ret(k, rc);
}

u32 mwh_Win_unlock(const mw_call *k, int rank, rma_win *w)
{
	int rc = MPI_Win_unlock(rank, w->h);
	if (rc == MPI_SUCCESS && rank >= 0 && rank < w->n && w->locked[rank])
		__atomic_sub_fetch(&w->locked[rank], 1, __ATOMIC_RELAXED);
	return mw_call_ret(k, rc);
}

u32 mwh_Win_lock_all(const mw_call *k, int as, rma_win *w)
{
	int a;
	if (assert_in((u32)as, &a))
		return mw_call_fail(k, MW_ERR_ASSERT);
	int rc = MPI_Win_lock_all(a, w->h);
	if (rc == MPI_SUCCESS)
		__atomic_add_fetch(&w->lock_all, 1, __ATOMIC_RELAXED);
	return mw_call_ret(k, rc);
}

u32 mwh_Win_unlock_all(const mw_call *k, rma_win *w)
{
	int rc = MPI_Win_unlock_all(w->h);
	if (rc == MPI_SUCCESS && w->lock_all)
		__atomic_sub_fetch(&w->lock_all, 1, __ATOMIC_RELAXED);
	return mw_call_ret(k, rc);
}

/* ---- communication ------------------------------------------------------------ */

/* The host displacement of count elements of dt at the target's module
 * displacement disp, after checking them against what the target
 * exposes.  MPI_PROC_NULL and ranks outside the group are the host's. */
static int target_in(const rma_win *w, int rank, u32 disp, int count,
                     const mw_dtype *dt, MPI_Aint *out)
{
	if (count < 0)
		return MW_ERR_COUNT;
	if (rank < 0 || rank >= w->n) {
		*out = (MPI_Aint)(int32_t)disp;
		return 0;
	}
	const rma_peer *p = &w->peers[rank];
	int64_t start, limit;
	if (w->flavor == MW_WIN_FLAVOR_DYNAMIC) {
		start = (int64_t)disp;            /* a module address */
		limit = (int64_t)1 << 32;
		*out = (MPI_Aint)(p->base + disp);
	} else {
		start = (int64_t)(int32_t)disp * p->disp_unit;
		limit = p->size;
		/* shared: the host window is in bytes from the segment's page */
		*out = w->pad ? (MPI_Aint)(w->pad[rank] + start) : (MPI_Aint)(int32_t)disp;
	}
	if (count == 0 || dt->size == 0)
		return 0;
	int64_t span = (int64_t)(count - 1) * (int64_t)dt->extent;
	int64_t lo = start + dt->tlb + (span < 0 ? span : 0);
	int64_t hi = start + dt->tlb + (span > 0 ? span : 0) + dt->textent;
	if (lo < 0 || hi < lo || hi > limit)
		return MW_ERR_RMA_RANGE;
	return 0;
}

/* Class tdisp: the generated entries check the target side with it. */
int mw_win_target(const rma_win *w, int rank, uint32_t disp, int count, const mw_dtype *dt,
                  MPI_Aint *out)
{
	return target_in(w, rank, disp, count, dt, out);
}

/* ---- long double accumulates ---------------------------------------------------
 * The host has no arithmetic on the module's long double types (IEEE
 * binary128; the host moves them as bytes), so every accumulate whose
 * target elements are one of them, REPLACE and NO_OP included, is done
 * here: holding the target's lock, the origin Gets the target elements,
 * computes in binary128 (the bridge's reduction ops, mpib.c), Puts them
 * back and gives the lock back.  All of them take that lock, so they are
 * atomic with respect to each other, which is what MPI promises
 * accumulates of one basic type on one location; they do not exclude
 * Put/Get through the window, nor do native accumulates (MPI calls those
 * conflicting accesses).
 *
 * The lock and the way to the data (ld_where):
 * - a window of ranks of MPI_COMM_WORLD (w->glob): the target's word in
 *   ld_glob.lock, taken by an atomic swap; the data through the module's
 *   own host window when the module holds a passive epoch on the target
 *   (MPI_Win_lock or MPI_Win_lock_all: the fast case, a few host
 *   accesses), else through ld_glob.data, a bridge window over each
 *   rank's whole linear memory that has its own epoch (fence, PSCW);
 * - any other window: an exclusive passive-target lock on the target in
 *   the window's second host window (w->lk, made with the window over
 *   the same memory), data through it.
 * ld_glob and w->lk have their own epochs, so this works in every
 * synchronization mode of the module's window: fence and PSCW (the host
 * library progresses them while the target waits in MPI_Win_fence or
 * MPI_Win_wait), lock and lock_all.  Each operation completes at the
 * target before the call returns, earlier than MPI requires; the request
 * of MPI_Raccumulate/MPI_Rget_accumulate is already complete. */

/* Frees a type MPI_Type_get_contents gave, unless it is predefined. */
static void type_drop(MPI_Datatype *t)
{
	int ni, na, nd, comb;
	if (*t != MPI_DATATYPE_NULL &&
	    MPI_Type_get_envelope(*t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
	    comb != MPI_COMBINER_NAMED)
		MPI_Type_free(t);
}

/* The host type of module type m (one of the long double types). */
static MPI_Datatype ld_host(u32 m)
{
	mw_dtype *d = NULL;
	return mw_dtype_get(m, &d) ? MPI_DATATYPE_NULL : d->h;
}

/* Which long double type host type t is, if it is one: the bridge's own
 * handle, or structurally inside a derived type (the host's
 * MPI_Type_get_contents may give a copy, Open MPI 4.1 does): 16 bytes
 * (long double), 32 bytes (complex), 20 bytes resized to 32 ({long
 * double; int}).  MPI_DATATYPE_NULL if not. */
static MPI_Datatype ld_kind(MPI_Datatype t, int comb, int ni, int na, int nd)
{
	mw_dtype probe = { .h = t };
	if (mw_dtype_ld(&probe))
		return t;
	if ((comb != MPI_COMBINER_CONTIGUOUS && comb != MPI_COMBINER_RESIZED) || nd != 1 ||
	    ni > 1 || na > 2)
		return MPI_DATATYPE_NULL;
	int iv[1] = { 0 };
	MPI_Aint av[2] = { 0, 0 };
	MPI_Datatype in = MPI_DATATYPE_NULL, k = MPI_DATATYPE_NULL;
	if (MPI_Type_get_contents(t, ni, na, nd, iv, av, &in) != MPI_SUCCESS)
		return MPI_DATATYPE_NULL;
	if (comb == MPI_COMBINER_CONTIGUOUS && in == MPI_BYTE)
		k = iv[0] == 16 ? ld_host(MW_LONG_DOUBLE)
		  : iv[0] == 32 ? ld_host(MW_C_LONG_DOUBLE_COMPLEX) : MPI_DATATYPE_NULL;
	if (comb == MPI_COMBINER_RESIZED && av[0] == 0 && av[1] == 32) {
		int ni2, na2, nd2, c2, n = 0;
		MPI_Type_get_envelope(in, &ni2, &na2, &nd2, &c2);
		MPI_Type_size(in, &n);
		if (c2 == MPI_COMBINER_CONTIGUOUS && n == 20 && ni2 == 1 && nd2 == 1) {
			int cnt = 0;
			MPI_Aint none;
			MPI_Datatype b = MPI_DATATYPE_NULL;
			if (MPI_Type_get_contents(in, 1, 0, 1, &cnt, &none, &b) == MPI_SUCCESS &&
			    b == MPI_BYTE)
				k = ld_host(MW_LONG_DOUBLE_INT);
			type_drop(&b);
		}
	}
	type_drop(&in);
	return k;
}

/* Element type of host type t if every basic element of it is the same
 * one of the module's long double types: 1 and *leaf; 0 if none is; -1
 * if they are mixed with other elements or with each other.  (A
 * program's own type of exactly 16 or 32 contiguous MPI_BYTEs looks the
 * same as long double inside a derived type; accumulating on MPI_BYTE is
 * erroneous anyway.) */
static int ld_leaf(MPI_Datatype t, MPI_Datatype *leaf, int depth)
{
	int ni, na, nd, comb;
	if (depth > 16 || MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		return 0;
	MPI_Datatype k = depth ? ld_kind(t, comb, ni, na, nd) : MPI_DATATYPE_NULL;
	mw_dtype probe = { .h = t };
	if (!depth && mw_dtype_ld(&probe))
		k = t;
	if (k != MPI_DATATYPE_NULL) {
		if (*leaf != MPI_DATATYPE_NULL && *leaf != k)
			return -1;
		*leaf = k;
		return 1;
	}
	if (comb == MPI_COMBINER_NAMED || nd <= 0)
		return 0;
	int *iv = malloc(((size_t)ni + 1) * sizeof *iv);
	MPI_Aint *av = malloc(((size_t)na + 1) * sizeof *av);
	MPI_Datatype *dv = malloc((size_t)nd * sizeof *dv);
	int r = 0, some = 0, other = 0;
	if (iv && av && dv && MPI_Type_get_contents(t, ni, na, nd, iv, av, dv) == MPI_SUCCESS) {
		for (int i = 0; i < nd; i++) {
			int k2 = ld_leaf(dv[i], leaf, depth + 1);
			if (k2 < 0)
				r = -1;
			some |= k2 > 0;
			other |= k2 == 0;
			type_drop(&dv[i]);
		}
		if (r == 0 && some)
			r = other ? -1 : 1;
	}
	free(iv);
	free(av);
	free(dv);
	return r;
}

/* A host displacement in the window as one in its second host window. */
static MPI_Aint lk_disp(const rma_win *w, int rank, MPI_Aint hd)
{
	if (rank < 0 || rank >= w->n)
		return hd;
	if (w->lk_pad)
		return hd - (MPI_Aint)w->pad[rank] + (MPI_Aint)w->lk_pad[rank];
	return w->lk_seg ? hd - (MPI_Aint)w->pad[rank] : hd;
}

/* Where ld_acc reaches the target's elements at host displacement hd of
 * w->h: a host window, the target's rank in it, the displacement. */
typedef struct ld_at {
	MPI_Win win;
	int rank;
	MPI_Aint disp;
} ld_at;

static ld_at ld_where(const rma_win *w, int rank, MPI_Aint hd)
{
	if (!w->glob)
		return (ld_at){ w->lk, rank, lk_disp(w, rank, hd) };
	/* In a passive epoch of the module's: its host window, the fastest. */
	if (__atomic_load_n(&w->lock_all, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&w->locked[rank], __ATOMIC_RELAXED))
		return (ld_at){ w->h, rank, hd };
	/* Else ld_glob.data, by the module address in the target's memory. */
	const rma_peer *p = &w->peers[rank];
	MPI_Aint mod = w->flavor == MW_WIN_FLAVOR_DYNAMIC ? hd - (MPI_Aint)p->base
	             : w->pad ? (MPI_Aint)p->mbase + hd - (MPI_Aint)w->pad[rank]
	             : (MPI_Aint)p->mbase + hd * (MPI_Aint)p->disp_unit;
	return (ld_at){ ld_glob.data, w->wrank[rank], mod };
}

/* Takes (take 1) or gives back (0) world rank wr's lock word: an atomic
 * swap, again until it was free.  A host return code. */
static int ld_lock(int wr, int take)
{
	int64_t v = take, old = 0;
	for (;;) {
		int rc = MPI_Fetch_and_op(&v, &old, MPI_INT64_T, wr, 0, MPI_REPLACE, ld_glob.lock);
		if (rc == MPI_SUCCESS)
			rc = MPI_Win_flush(wr, ld_glob.lock);
		if (rc != MPI_SUCCESS || !take || old == 0)
			return rc;
		sched_yield();   /* the holder may need this core (oversubscribed) */
	}
}

/* A host request that is already complete (for the request forms). */
static int done_query(void *x, MPI_Status *st)
{
	(void)x;
	MPI_Status_set_elements(st, MPI_BYTE, 0);
	MPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}
static int done_free(void *x) { (void)x; return MPI_SUCCESS; }
static int done_cancel(void *x, int c) { (void)x; (void)c; return MPI_SUCCESS; }

static int req_done(MPI_Request *q)
{
	int rc = MPI_Grequest_start(done_query, done_free, done_cancel, NULL, q);
	return rc ? rc : MPI_Grequest_complete(*q);
}

/* The operation of rma_op/Fetch_and_op on long double elements (leaf):
 * origin (ob, oc, od), result (rp, rcn, rd) if rp, target tc elements of
 * td at host displacement hd.  A host return code. */
static int ld_acc(rma_win *w, const char *proc, const void *ob, int oc,
                  MPI_Datatype od, void *rp, int rcn, MPI_Datatype rd, int rank,
                  MPI_Aint hd, int tc, MPI_Datatype td, MPI_Datatype leaf, u32 opv)
{
	MPI_Op op = MPI_OP_NULL;
	if (opv != MW_REPLACE && opv != MW_NO_OP) {
		mw_dtype probe = { .h = leaf };
		mw_ld_op(opv, &probe, &op);
		if (op == MPI_OP_NULL)
			return MPI_ERR_OP;   /* not defined on this type by MPI */
	}
	if (rank == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (!w->glob && w->lk == MPI_WIN_NULL) {
		fprintf(stderr, "mpiwasm: rank %d: %s: accumulate on a long double type not "
		        "supported on this window: the host library made no second window over "
		        "its memory to lock (MPI_Win_create failed)\n", mw_world_rank, proc);
		return MPI_ERR_UNSUPPORTED_OPERATION;
	}
	int n = 0, ls = 0, pos = 0, rc = 0;
	MPI_Type_size(td, &n);
	MPI_Type_size(leaf, &ls);
	if ((int64_t)n * tc > INT32_MAX)
		return MPI_ERR_COUNT;
	n *= tc;
	unsigned char *cur = malloc((size_t)n + 1), *in = malloc((size_t)n + 1);
	if (!cur || !in) {
		free(cur);
		free(in);
		return MPI_ERR_NO_MEM;
	}
	/* The origin's elements in the order the target's type lists them. */
	if (opv != MW_NO_OP) {
		int osz = 0;
		MPI_Type_size(od, &osz);
		if ((int64_t)osz * oc != n)
			rc = MPI_ERR_TYPE;   /* type signatures differ */
		else
			rc = MPI_Pack(ob, oc, od, in, n, &pos, MPI_COMM_SELF);
	}
	if (!rc && rp) {
		int rsz = 0;
		MPI_Type_size(rd, &rsz);
		if ((int64_t)rsz * rcn != n)
			rc = MPI_ERR_TYPE;
	}
	if (rc)
		goto out;
	ld_at at = ld_where(w, rank, hd);
	if ((rc = w->glob ? ld_lock(w->wrank[rank], 1)
	                  : MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w->lk)))
		goto out;
	rc = MPI_Get(cur, n, MPI_BYTE, at.rank, at.disp, tc, td, at.win);
	if (!rc)
		rc = MPI_Win_flush(at.rank, at.win);
	if (!rc && rp) {
		pos = 0;
		rc = MPI_Unpack(cur, n, &pos, rp, rcn, rd, MPI_COMM_SELF);
	}
	if (!rc && opv != MW_NO_OP) {
		if (opv == MW_REPLACE)
			memcpy(cur, in, (size_t)n);
		else
			rc = MPI_Reduce_local(in, cur, ls ? n / ls : 0, leaf, op);
		if (!rc)
			rc = MPI_Put(cur, n, MPI_BYTE, at.rank, at.disp, tc, td, at.win);
		if (!rc && w->glob)   /* at the target before the lock is given back */
			rc = MPI_Win_flush(at.rank, at.win);
	}
	int urc = w->glob ? ld_lock(w->wrank[rank], 0) : MPI_Win_unlock(rank, w->lk);
	if (!rc)
		rc = urc;
out:
	free(cur);
	free(in);
	return rc;
}

enum { K_PUT, K_GET, K_ACC, K_GACC };

/* Put, Get, Accumulate, Get_accumulate and their request forms, after the
 * entry checked every argument (only predefined ops accumulate: class op
 * with flag predef, MPI 3.1, 11.3.4; the module's long double types are
 * checked by ld_acc): origin (ob, oc, od), result (rp, rcn, rd) for K_GACC, the
 * target at host displacement hd, the request slot r for the request
 * forms. */
static u32 rma_op(const mw_call *k, int kind, rma_win *w, const void *ob, int oc,
                  mw_dtype *od, void *rp, int rcn, mw_dtype *rd, int rank, MPI_Aint hd,
                  int tc, mw_dtype *td, const mw_op_ref *o, uint32_t *r)
{
	MPI_Op op = o ? o->h : MPI_OP_NULL;
	MPI_Request hr = MPI_REQUEST_NULL;
	MPI_Request *q = r ? &hr : NULL;
	MPI_Datatype leaf = MPI_DATATYPE_NULL;
	int rc, ld = kind == K_ACC || kind == K_GACC ? ld_leaf(td->h, &leaf, 0) : 0;
	if (ld < 0)
		return mw_call_fail(k, MW_ERR_TYPE);   /* MPI: one basic type in an accumulate */
	if (ld) {
		rc = ld_acc(w, k->proc, ob, oc, od->h, rp, rcn, rd ? rd->h : MPI_BYTE, rank,
		            hd, tc, td->h, leaf, o->mod);
		if (rc == MPI_SUCCESS && q)
			rc = req_done(q);
		if (rc == MPI_SUCCESS && r)
			*r = mw_req_put(hr);
		return mw_call_ret(k, rc);
	}
	switch (kind) {
	case K_PUT:
		rc = q ? MPI_Rput(ob, oc, od->h, rank, hd, tc, td->h, w->h, q)
		       : MPI_Put(ob, oc, od->h, rank, hd, tc, td->h, w->h);
		break;
	case K_GET:
		rc = q ? MPI_Rget(rp, rcn, rd->h, rank, hd, tc, td->h, w->h, q)
		       : MPI_Get(rp, rcn, rd->h, rank, hd, tc, td->h, w->h);
		break;
	case K_ACC:
		rc = q ? MPI_Raccumulate(ob, oc, od->h, rank, hd, tc, td->h, op, w->h, q)
		       : MPI_Accumulate(ob, oc, od->h, rank, hd, tc, td->h, op, w->h);
		break;
	default:
		rc = q ? MPI_Rget_accumulate(ob, oc, od->h, rp, rcn, rd->h, rank, hd, tc, td->h,
		                             op, w->h, q)
		       : MPI_Get_accumulate(ob, oc, od->h, rp, rcn, rd->h, rank, hd, tc, td->h,
		                            op, w->h);
		break;
	}
	if (rc == MPI_SUCCESS && r)
		*r = mw_req_put(hr);
	return mw_call_ret(k, rc);
}

/* The entry checked the window, both datatypes, the origin buffer and
 * the target side (tdisp: hd is the host displacement). */
u32 mwh_Put(const mw_call *k, const void *ob, int oc, mw_dtype *od, int rank, MPI_Aint hd,
            int tc, mw_dtype *td, rma_win *w)
{ return rma_op(k, K_PUT, w, ob, oc, od, NULL, 0, NULL, rank, hd, tc, td, NULL, NULL); }
u32 mwh_Get(const mw_call *k, void *rp, int rcn, mw_dtype *rd, int rank, MPI_Aint hd,
            int tc, mw_dtype *td, rma_win *w)
{ return rma_op(k, K_GET, w, NULL, 0, NULL, rp, rcn, rd, rank, hd, tc, td, NULL, NULL); }
u32 mwh_Rput(const mw_call *k, const void *ob, int oc, mw_dtype *od, int rank, MPI_Aint hd,
             int tc, mw_dtype *td, rma_win *w, uint32_t *r)
{ return rma_op(k, K_PUT, w, ob, oc, od, NULL, 0, NULL, rank, hd, tc, td, NULL, r); }
u32 mwh_Rget(const mw_call *k, void *rp, int rcn, mw_dtype *rd, int rank, MPI_Aint hd,
             int tc, mw_dtype *td, rma_win *w, uint32_t *r)
{ return rma_op(k, K_GET, w, NULL, 0, NULL, rp, rcn, rd, rank, hd, tc, td, NULL, r); }
u32 mwh_Accumulate(const mw_call *k, const void *ob, int oc, mw_dtype *od, int rank,
                   MPI_Aint hd, int tc, mw_dtype *td, const mw_op_ref *op, rma_win *w)
{ return rma_op(k, K_ACC, w, ob, oc, od, NULL, 0, NULL, rank, hd, tc, td, op, NULL); }
u32 mwh_Raccumulate(const mw_call *k, const void *ob, int oc, mw_dtype *od, int rank,
                    MPI_Aint hd, int tc, mw_dtype *td, const mw_op_ref *op, rma_win *w,
                    uint32_t *r)
{ return rma_op(k, K_ACC, w, ob, oc, od, NULL, 0, NULL, rank, hd, tc, td, op, r); }
u32 mwh_Get_accumulate(const mw_call *k, const void *ob, int oc, mw_dtype *od, void *rp,
                       int rcn, mw_dtype *rd, int rank, MPI_Aint hd, int tc, mw_dtype *td,
                       const mw_op_ref *op, rma_win *w)
{ return rma_op(k, K_GACC, w, ob, oc, od, rp, rcn, rd, rank, hd, tc, td, op, NULL); }
u32 mwh_Rget_accumulate(const mw_call *k, const void *ob, int oc, mw_dtype *od, void *rp,
                        int rcn, mw_dtype *rd, int rank, MPI_Aint hd, int tc, mw_dtype *td,
                        const mw_op_ref *op, rma_win *w, uint32_t *r)
{ return rma_op(k, K_GACC, w, ob, oc, od, rp, rcn, rd, rank, hd, tc, td, op, r); }

u32 mwh_Fetch_and_op(const mw_call *k, const void *ob, void *rp, mw_dtype *d, int rank,
                     MPI_Aint hd, const mw_op_ref *op, rma_win *w)
{
	if (mw_dtype_ld(d))
		return mw_call_ret(k, ld_acc(w, k->proc, ob, 1, d->h, rp, 1, d->h, rank, hd, 1,
		                             d->h, d->h, op->mod));
	return mw_call_ret(k, MPI_Fetch_and_op(ob, rp, d->h, rank, hd, op->h, w->h));
}

/* The entry refused the long double types (MPI: integer, logical and byte
 * types only: class atomdt). */
u32 mwh_Compare_and_swap(const mw_call *k, const void *ob, const void *cb, void *rp,
                         mw_dtype *d, int rank, MPI_Aint hd, rma_win *w)
{
	return mw_call_ret(k, MPI_Compare_and_swap(ob, cb, rp, d->h, rank, hd, w->h));
}

/* ---- group, name, info, Fortran handles -------------------------------------- */

u32 mwh_Win_get_group(const mw_call *k, rma_win *w, uint32_t *group)
{
	MPI_Group g;
	int rc = MPI_Win_get_group(w->h, &g);
	if (rc == MPI_SUCCESS)
		*group = mw_group_put(g);
	return mw_call_ret(k, rc);
}

u32 mwh_Win_set_name(const mw_call *k, rma_win *w, const char *name)
{
	return mw_call_ret(k, MPI_Win_set_name(w->h, name));
}

/* The name, cut to the module's MPI_MAX_OBJECT_NAME (whose whole buffer
 * the entry checked), and its length. */
u32 mwh_Win_get_name(const mw_call *k, rma_win *w, char *name, int32_t *resultlen)
{
	char buf[MPI_MAX_OBJECT_NAME + 1] = "";
	int n = 0, rc = MPI_Win_get_name(w->h, buf, &n);
	if (rc == MPI_SUCCESS) {
		size_t len = strlen(buf);
		if (len > MW_MAX_OBJECT_NAME - 1)
			len = MW_MAX_OBJECT_NAME - 1;
		memcpy(name, buf, len);
		name[len] = 0;
		*resultlen = (int32_t)len;
	}
	return mw_call_ret(k, rc);
}

u32 mwh_Win_set_info(const mw_call *k, rma_win *w, MPI_Info info)
{
	return mw_call_ret(k, MPI_Win_set_info(w->h, info));
}

u32 mwh_Win_get_info(const mw_call *k, rma_win *w, uint32_t *info_used)
{
	MPI_Info in;
	int rc = MPI_Win_get_info(w->h, &in);
	if (rc == MPI_SUCCESS)
		*info_used = mw_info_put(in);
	return mw_call_ret(k, rc);
}

/* Module handles are already Fortran integers. */
u32 mwh_Win_c2f(const mw_call *k, uint32_t win)
{
	(void)k;
	return win;
}

u32 mwh_Win_f2c(const mw_call *k, uint32_t win)
{
	(void)k;
	return win;
}

/* ---- error handlers ------------------------------------------------------------ */

/* The entry checked the out pointer.  void fn(MPI_Win *, int *, ...): the
 * same wasm type as a communicator's handler, run by the same machinery. */
u32 mwh_Win_create_errhandler(const mw_call *k, uint32_t fn, uint32_t *eh)
{
	return mw_errh_create(k, fn, eh);
}

/* The entry looked the handler up (MPI_ERRHANDLER_NULL passes). */
u32 mwh_Win_set_errhandler(const mw_call *k, rma_win *w, uint32_t eh)
{
	if (eh == MW_ERRHANDLER_NULL)
		return mw_call_fail(k, MW_ERR_ARG);
	mw_errh_retain(eh);
	mw_errh_release(w->eh);
	w->eh = eh;
	return 0;
}

u32 mwh_Win_get_errhandler(const mw_call *k, rma_win *w, uint32_t *eh)
{
	(void)k;
	*eh = w->eh;
	mw_errh_retain(w->eh);   /* a new reference the module frees */
	return 0;
}

u32 mwh_Win_call_errhandler(const mw_call *k, rma_win *w, int code)
{
	mw_call_errh_eh(k->inst, code, w->eh, k->obj, k->proc);
	return 0;
}

/* ---- attributes ------------------------------------------------------------------
 * Window keyvals remember the module's callbacks (function-table indices,
 * 0 the NULL function, 0xFFFFFFFF MPI_WIN_DUP_FN); the host gets the
 * trampolines below with the record as extra state.  Windows are never
 * duplicated, so only delete callbacks ever run.  Records live until the
 * process ends (the host may call the delete function of a freed keyval
 * for attributes still set). */

/* uses: attributes set with the keyval; a freed keyval keeps its module
 * number until the last is gone (as hand_attr.c's keyvals). */
typedef struct wkv {
	u32 copy, del, extra, mkey;
	int uses, freed;
} wkv;

#define WKV_DUP 0xFFFFFFFFu

static wkv **wkv_tab;
static u32 wkv_cap;

static wkv *wkv_of(u32 key)
{
	return key < wkv_cap ? wkv_tab[key] : NULL;
}

static void wkv_unuse(wkv *kv)
{
	if (--kv->uses <= 0 && kv->freed && kv->mkey < wkv_cap &&
	    wkv_tab[kv->mkey] == kv) {
		wkv_tab[kv->mkey] = NULL;
		mw_keyval_del(kv->mkey);
	}
}

static int win_copy_tramp(MPI_Win hw, int key, void *extra, void *in, void *out,
                          int *flag)
{
	(void)hw;
	(void)key;
	wkv *kv = extra;
	*flag = 0;
	if (kv->copy == WKV_DUP) {
		*(void **)out = in;
		*flag = 1;
		return MPI_SUCCESS;
	}
	/* MPI has no window duplication: nothing calls this with a module
	 * copy function. */
	return kv->copy == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static int win_del_tramp(MPI_Win hw, int key, void *val, void *extra)
{
	(void)key;
	wkv *kv = extra;
	rt_instance *inst = mw_inst;
	if (kv->del == 0 || mw_pending_trap) {
		wkv_unuse(kv);
		return MPI_SUCCESS;
	}
	const rt_func *f = rt_table_func(inst, 0, kv->del, "iiii:i");
	if (!f) {
		fprintf(stderr, "mpiwasm: rank %d: window attribute delete callback: table "
		        "entry %u is not a function of the MPI callback type\n",
		        mw_world_rank, kv->del);
		mw_pending_trap = RT_TRAP_INDIRECT_TYPE;
		return MPI_ERR_OTHER;
	}
	rt_value a[4] = { { .i32 = win_find(hw) }, { .i32 = kv->mkey },
	                  { .i32 = (u32)(uintptr_t)val }, { .i32 = kv->extra } };
	rt_value r = { .i32 = 0 };
	int k = rt_call(inst, f, a, &r);
	if (k) {
		mw_pending_trap = k;
		return MPI_ERR_OTHER;
	}
	if (r.i32 != MW_SUCCESS)
		return MPI_ERR_OTHER;   /* the attribute stays */
	wkv_unuse(kv);
	return MPI_SUCCESS;
}

/* The entry checked the out pointer; the callbacks are checked here
 * against the types they are called with. */
u32 mwh_Win_create_keyval(const mw_call *k, uint32_t copy, uint32_t del, int32_t *o,
                          uint32_t extra)
{
	rt_instance *inst = k->inst;
	if ((copy != 0 && copy != WKV_DUP && !rt_table_func(inst, 0, copy, "iiiiii:i")) ||
	    (del != 0 && !rt_table_func(inst, 0, del, "iiii:i")))
		return mw_call_fail(k, MW_ERR_ARG);
	wkv *kv = calloc(1, sizeof *kv);
	if (!kv)
		return mw_call_fail(k, MW_ERR_NO_MEM);
	kv->copy = copy;
	kv->del = del;
	kv->extra = extra;
	int key;
	int rc = MPI_Win_create_keyval(win_copy_tramp, win_del_tramp, &key, kv);
	if (rc != MPI_SUCCESS) {
		free(kv);
		return mw_call_ret(k, rc);
	}
	u32 h = mw_keyval_new(key);
	if (h >= wkv_cap) {
		u32 cap = wkv_cap ? wkv_cap * 2 : 64;
		while (cap <= h)
			cap *= 2;
		wkv **v = realloc(wkv_tab, cap * sizeof *v);
		if (!v) {
			MPI_Win_free_keyval(&key);
			mw_keyval_del(h);
			free(kv);
			return mw_call_fail(k, MW_ERR_NO_MEM);
		}
		memset(v + wkv_cap, 0, (cap - wkv_cap) * sizeof *v);
		wkv_tab = v;
		wkv_cap = cap;
	}
	kv->mkey = h;
	wkv_tab[h] = kv;
	*o = (int32_t)h;
	return 0;
}

/* The entry checked the slot and looked its keyval up; it must be a
 * window's. */
u32 mwh_Win_free_keyval(const mw_call *k, mw_keyval_io *key)
{
	wkv *kv = wkv_of(key->mod);
	if (!kv || kv->freed)
		return mw_call_fail(k, MW_ERR_KEYVAL);
	int rc = MPI_Win_free_keyval(&key->h);
	if (rc == MPI_SUCCESS) {
		kv->freed = 1;
		kv->uses++;
		wkv_unuse(kv);   /* released now if no attribute uses it */
		*key->slot = MW_KEYVAL_INVALID;
	}
	return mw_call_ret(k, rc);
}

u32 mwh_Win_set_attr(const mw_call *k, rma_win *w, const mw_keyval_ref *key, uint32_t val)
{
	wkv *kv = wkv_of(key->mod);
	if (!kv)
		return mw_call_fail(k, MW_ERR_KEYVAL);
	kv->uses++;   /* first: a value replaced is counted off by the delete */
	int rc = MPI_Win_set_attr(w->h, key->h, (void *)(uintptr_t)val);
	if (rc != MPI_SUCCESS)
		wkv_unuse(kv);
	return mw_call_ret(k, rc);
}

u32 mwh_Win_delete_attr(const mw_call *k, rma_win *w, const mw_keyval_ref *key)
{
	if (!wkv_of(key->mod))
		return mw_call_fail(k, MW_ERR_KEYVAL);
	return mw_call_ret(k, MPI_Win_delete_attr(w->h, key->h));
}

/* The window's words for the predefined attributes, made on first use:
 * [0] size (MPI_Aint), [1] disp_unit, [2] create flavor, [3] model. */
static int win_attr_words(rt_instance *inst, rma_win *w, u32 *out)
{
	if (!w->attrs) {
		u32 a = mw_malloc(inst, 16, "MPI_Win_get_attr");
		mw_after(inst, 0);
		if (!a)
			return MW_ERR_NO_MEM;
		int model = MPI_WIN_UNIFIED, flag = 0, *mp = NULL;
		if (MPI_Win_get_attr(w->h, MPI_WIN_MODEL, &mp, &flag) == MPI_SUCCESS &&
		    flag && mp)
			model = *mp;
		int32_t *p = mw_ptr(inst, a, 16);
		p[0] = (int32_t)w->size;
		p[1] = w->disp_unit;
		p[2] = w->flavor;
		p[3] = model == MPI_WIN_SEPARATE ? MW_WIN_SEPARATE : MW_WIN_UNIFIED;
		w->attrs = a;
	}
	*out = w->attrs;
	return 0;
}

/* The entry checked the out pointers; the key is looked up here (the
 * predefined ones are no keyvals of the bridge's table). */
u32 mwh_Win_get_attr(const mw_call *k, rma_win *w, uint32_t key, uint32_t *val, int32_t *flag)
{
	int hkey, rc, f = 0;
	void *v = NULL;
	if (key >= MW_WIN_BASE && key <= MW_WIN_MODEL) {
		u32 words = 0;
		if (key != MW_WIN_BASE && (rc = win_attr_words(k->inst, w, &words)))
			return mw_call_fail(k, rc);
		*val = key == MW_WIN_BASE ? w->base : words + 4 * (key - MW_WIN_SIZE);
		*flag = 1;
		return 0;
	}
	if (!wkv_of(key) || mw_keyval_get(key, &hkey))
		return mw_call_fail(k, MW_ERR_KEYVAL);
	rc = MPI_Win_get_attr(w->h, hkey, &v, &f);
	if (rc == MPI_SUCCESS) {
		*flag = f;
		if (f)
			*val = (u32)(uintptr_t)v;
	}
	return mw_call_ret(k, rc);
}
