/* libmpiwasm-malloc - the malloc family for threaded modules (mpiwasm-cc
 * -pthread), replacing wasi-libc's dlmalloc, which has no lock at all.
 *
 * Design (README.md, "Threads: the allocator"):
 *  - Memory comes in 64 KiB spans, 64 KiB aligned, from one page source
 *    (memory.grow in wasm, mmap natively) under one lock; only span and
 *    large-block traffic takes it.
 *  - Each thread owns a heap (found through a _Thread_local pointer) with,
 *    per size class, a list of spans that have free blocks and a list of
 *    full ones.  malloc and a free by the owner touch only the heap: no
 *    atomic operation, no lock.
 *  - A block freed by another thread is pushed on its span's lock-free
 *    remote list (one CAS) and a per-class hint in the owner's heap is
 *    set; the owner takes the whole list back with one exchange when it
 *    runs out of blocks in that class.
 *  - A span header at the start of each span says who owns it: the header
 *    of any block is (p - 1) rounded down to 64 KiB.
 *  - Above SMALL_MAX a block is its own run of spans, returned to the page
 *    source on free.
 *  - A thread's heap is put on a list when the thread ends and adopted,
 *    with its spans and their pending remote frees, by the next new
 *    thread: heaps are never freed, which is what lets a remote free touch
 *    the owner's heap after its CAS.
 *
 * Built with -DMALLOC_ONE_LOCK it becomes the contrast case of the
 * benchmarks: one heap for every thread behind one lock (what dlmalloc
 * with USE_LOCKS does). */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"

#if !defined(__wasm__)
#include <sys/mman.h>
#endif
#if !defined(MALLOC_ONE_LOCK)
#include <pthread.h>
#endif

#define SPAN_SHIFT 16
#define SPAN       ((size_t)1 << SPAN_SHIFT)
#define HDR        192          /* span header, three cache lines */
#define SMALL_MAX  8192
#define NCLASS     32

struct heap;

/* The header's lines are split by who writes them: a remote free reads
 * the second and writes the third, so it never takes away the first,
 * which the owner writes on every malloc and free. */
struct span {
	void *free;              /* owner's free list */
	char *bump, *end;        /* blocks never handed out yet */
	struct span *next, *prev;
	uint32_t used;           /* blocks out, remote frees included */
	uint32_t list;           /* LIST_AVAIL, LIST_FULL or LIST_NONE */
	/* Set when the span is made, then only read. */
	_Alignas(64) struct heap *heap;  /* owner; NULL: a large block */
	uint32_t bsize, cls;
	char *raw;               /* large: the region to give back */
	size_t raw_len;
	_Alignas(64) _Atomic(void *) remote;  /* blocks other threads freed */
};
_Static_assert(sizeof(struct span) <= HDR, "span header too big");

enum { LIST_NONE, LIST_AVAIL, LIST_FULL };

struct heap {
	struct span *avail[NCLASS]; /* spans with free blocks; head allocates */
	struct span *full[NCLASS];
	atomic_int hint[NCLASS];    /* a remote free may wait in a full span */
	struct span *spare;         /* empty spans kept for reuse */
	uint32_t nspare;
	struct heap *next;          /* list of heaps whose thread ended */
};

/* Empty spans a heap keeps instead of giving them back to the page
 * source: a thread that frees and allocates in waves does not take the
 * global lock for every span. */
#define MAX_SPARE 16

static const uint32_t class_size[NCLASS] = {
	16, 32, 48, 64, 80, 96, 112, 128,
	160, 192, 224, 256, 320, 384, 448, 512,
	640, 768, 896, 1024, 1280, 1536, 1792, 2048,
	2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192,
};

/* 16-byte steps to 128, then four classes per power of two. */
static inline uint32_t size_class(size_t n)
{
	if (n <= 128)
		return n ? (uint32_t)((n + 15) >> 4) - 1 : 0;
	uint32_t b = 31u - (uint32_t)__builtin_clz((uint32_t)(n - 1));
	uint32_t idx = (uint32_t)((n - 1 - ((size_t)1 << b)) >> (b - 2));
	return 8 + (b - 7) * 4 + idx;
}

static inline struct span *span_of(const void *p)
{
	return (struct span *)(((uintptr_t)p - 1) & ~(uintptr_t)(SPAN - 1));
}

static inline uintptr_t align_up(uintptr_t x, uintptr_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* ---- the page source: free runs of spans, sorted, coalesced ---- */

struct run {
	size_t len;
	struct run *next;
};

static flock_t g_lock = FLOCK_INIT;   /* page source and heap list */
static struct run *g_runs;

static void runs_insert(char *p, size_t len)
{
	struct run **pp = &g_runs;
	while (*pp && (char *)*pp < p)
		pp = &(*pp)->next;
	struct run *r = (struct run *)p, *nx = *pp;
	r->len = len;
	r->next = nx;
	if (nx && p + len == (char *)nx) {
		r->len += nx->len;
		r->next = nx->next;
	}
	if (pp != &g_runs) {
		struct run *pv = (struct run *)((char *)pp - offsetof(struct run, next));
		if ((char *)pv + pv->len == p) {
			pv->len += r->len;
			pv->next = r->next;
			return;
		}
	}
	*pp = r;
}

/* Whole spans [lo, hi) rounded inwards, if any, join the free runs. */
static void runs_add_range(uintptr_t lo, uintptr_t hi)
{
	lo = align_up(lo, SPAN);
	hi &= ~(uintptr_t)(SPAN - 1);
	if (hi > lo)
		runs_insert((char *)lo, hi - lo);
}

#if defined(__wasm__)
extern char __heap_base;
static int g_grown_once;

/* memory.grow hands out 64 KiB pages at the end of linear memory, so its
 * result is span aligned.  The first call also takes what lies between
 * the static data and the initial end of memory. */
static int source_grow(size_t need)
{
	if (!g_grown_once) {
		g_grown_once = 1;
		runs_add_range((uintptr_t)&__heap_base,
			       (uintptr_t)__builtin_wasm_memory_size(0) << SPAN_SHIFT);
	}
	size_t pages = (need + SPAN - 1) >> SPAN_SHIFT;
	size_t old = __builtin_wasm_memory_grow(0, pages);
	if (old == (size_t)-1)
		return -1;
	runs_insert((char *)(old << SPAN_SHIFT), pages << SPAN_SHIFT);
	return 0;
}
#else
static int source_grow(size_t need)
{
	size_t len = need + SPAN;
	if (len < ((size_t)4 << 20))
		len = (size_t)4 << 20;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	runs_add_range((uintptr_t)p, (uintptr_t)p + len);
	return 0;
}
#endif

/* len bytes (whole spans) aligned to align (a power of two >= SPAN).
 * Called with g_lock held. */
static char *source_take(size_t len, size_t align)
{
	for (int tries = 0; tries < 2; tries++) {
		for (struct run **pp = &g_runs; *pp; pp = &(*pp)->next) {
			struct run *r = *pp;
			uintptr_t lo = (uintptr_t)r, hi = lo + r->len;
			uintptr_t a = align_up(lo, align);
			if (a < lo || a > hi || hi - a < len)
				continue;
			*pp = r->next;
			if (a > lo)
				runs_insert((char *)lo, a - lo);
			if (hi > a + len)
				runs_insert((char *)(a + len), hi - (a + len));
			return (char *)a;
		}
		if (len + align < len || source_grow(len + align - SPAN) != 0)
			return NULL;
	}
	return NULL;
}

static char *page_take(size_t len, size_t align)
{
	flock_lock(&g_lock);
	char *p = source_take(len, align);
	flock_unlock(&g_lock);
	return p;
}

static void page_give(char *p, size_t len)
{
	flock_lock(&g_lock);
	runs_insert(p, len);
	flock_unlock(&g_lock);
}

/* ---- heaps ---- */

#if defined(MALLOC_ONE_LOCK)
static struct heap g_one;
static flock_t g_one_lock = FLOCK_INIT;
#define ONE_LOCK()   flock_lock(&g_one_lock)
#define ONE_UNLOCK() flock_unlock(&g_one_lock)
static inline struct heap *heap_get(void) { return &g_one; }
static inline struct heap *heap_peek(void) { return &g_one; }
#else
#define ONE_LOCK()   ((void)0)
#define ONE_UNLOCK() ((void)0)
static _Thread_local struct heap *tl_heap;
static struct heap *g_abandoned;       /* under g_lock */
static char *g_heap_bump, *g_heap_end; /* where new heaps are carved */
static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

/* The thread is ending: its heap goes to the next new thread.  A malloc
 * after this (another key's destructor) attaches a heap again. */
static void heap_detach(void *arg)
{
	struct heap *h = arg;
	tl_heap = NULL;
	flock_lock(&g_lock);
	h->next = g_abandoned;
	g_abandoned = h;
	flock_unlock(&g_lock);
}

static void key_make(void)
{
	if (pthread_key_create(&g_key, heap_detach) != 0) {
		fputs("libmpiwasm-malloc: pthread_key_create failed\n", stderr);
		abort();
	}
}

static struct heap *heap_attach(void)
{
	flock_lock(&g_lock);
	struct heap *h = g_abandoned;
	if (h) {
		g_abandoned = h->next;
	} else {
		if ((size_t)(g_heap_end - g_heap_bump) < sizeof(struct heap)) {
			g_heap_bump = source_take(SPAN, SPAN);
			g_heap_end = g_heap_bump ? g_heap_bump + SPAN : NULL;
		}
		if (g_heap_bump) {
			h = (struct heap *)g_heap_bump;
			g_heap_bump += align_up(sizeof(struct heap), 64);
			memset(h, 0, sizeof *h);
		}
	}
	flock_unlock(&g_lock);
	if (!h)
		return NULL;
	/* Set first: pthread_setspecific may itself allocate. */
	tl_heap = h;
	pthread_once(&g_key_once, key_make);
	pthread_setspecific(g_key, h);
	return h;
}

static inline struct heap *heap_get(void)
{
	struct heap *h = tl_heap;
	return h ? h : heap_attach();
}

static inline struct heap *heap_peek(void) { return tl_heap; }
#endif

static void list_push(struct span **head, struct span *s, uint32_t which)
{
	s->prev = NULL;
	s->next = *head;
	if (*head)
		(*head)->prev = s;
	*head = s;
	s->list = which;
}

static void list_unlink(struct heap *h, struct span *s)
{
	struct span **head = s->list == LIST_AVAIL ? &h->avail[s->cls] : &h->full[s->cls];
	if (s->prev)
		s->prev->next = s->next;
	else
		*head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->list = LIST_NONE;
}

/* Takes the blocks other threads freed back into the owner's list. */
static uint32_t span_collect(struct span *s)
{
	void *l = atomic_exchange_explicit(&s->remote, NULL, memory_order_acquire);
	if (!l)
		return 0;
	uint32_t n = 1;
	void *t = l;
	while (*(void **)t) {
		t = *(void **)t;
		n++;
	}
	*(void **)t = s->free;
	s->free = l;
	s->used -= n;
	return n;
}

static struct span *span_new(struct heap *h, uint32_t c)
{
	struct span *s = h->spare;
	if (s) {
		h->spare = s->next;
		h->nspare--;
	} else if (!(s = (struct span *)page_take(SPAN, SPAN))) {
		return NULL;
	}
	uint32_t bs = class_size[c];
	s->heap = h;
	s->free = NULL;
	s->bump = (char *)s + HDR;
	s->end = s->bump + ((SPAN - HDR) / bs) * bs;
	atomic_init(&s->remote, NULL);
	s->used = 0;
	s->bsize = bs;
	s->cls = c;
	list_push(&h->avail[c], s, LIST_AVAIL);
	return s;
}

static inline void *span_pop(struct span *s)
{
	void *p = s->free;
	if (p) {
		s->free = *(void **)p;
	} else if (s->bump < s->end) {
		p = s->bump;
		s->bump += s->bsize;
	} else {
		return NULL;
	}
	s->used++;
	return p;
}

static void *alloc_slow(struct heap *h, uint32_t c)
{
	for (;;) {
		struct span *s = h->avail[c];
		while (s) {
			span_collect(s);
			void *p = span_pop(s);
			if (p)
				return p;
			list_unlink(h, s);
			list_push(&h->full[c], s, LIST_FULL);
			s = h->avail[c];
		}
		if (!atomic_exchange(&h->hint[c], 0))
			break;
		for (struct span *f = h->full[c], *nx; f; f = nx) {
			nx = f->next;
			if (span_collect(f)) {
				list_unlink(h, f);
				list_push(&h->avail[c], f, LIST_AVAIL);
			}
		}
	}
	struct span *s = span_new(h, c);
	return s ? span_pop(s) : NULL;
}

static inline void *alloc_class(struct heap *h, uint32_t c)
{
	struct span *s = h->avail[c];
	void *p = s ? span_pop(s) : NULL;
	return p ? p : alloc_slow(h, c);
}

/* A block of its own spans.  Its header is at (p - 1) rounded down to a
 * span, so p lies in (header, header + SPAN]. */
static void *alloc_large(size_t n, size_t align)
{
	size_t off = align <= SPAN ? align_up(HDR, align) : align;
	size_t ralign = align <= SPAN ? SPAN : align;
	if (n > SIZE_MAX - off - SPAN)
		return NULL;
	size_t len = align_up(off + n, SPAN);
	char *raw = page_take(len, ralign);
	if (!raw)
		return NULL;
	char *p = raw + off;
	struct span *s = span_of(p);
	s->heap = NULL;
	s->bsize = 0;
	s->raw = raw;
	s->raw_len = len;
	return p;
}

static void *alloc(size_t n)
{
	if (n <= SMALL_MAX) {
		struct heap *h = heap_get();
		return h ? alloc_class(h, size_class(n)) : NULL;
	}
	return alloc_large(n, 16);
}

/* Up to 64, a class whose size is a multiple of the alignment gives
 * aligned blocks (spans are aligned, HDR is a multiple of 64); above, a
 * large block. */
static void *alloc_aligned(size_t align, size_t n)
{
	if (align <= 16)
		return alloc(n);
	if (align <= 64 && n <= SMALL_MAX) {
		for (uint32_t c = size_class(n ? n : 1); c < NCLASS; c++) {
			if (class_size[c] % align == 0) {
				struct heap *h = heap_get();
				return h ? alloc_class(h, c) : NULL;
			}
		}
	}
	return alloc_large(n, align);
}

static void release(struct heap *h, struct span *s)
{
	if (h->avail[s->cls] == s)
		return;          /* keep the span it allocates from */
	list_unlink(h, s);
	if (h->nspare < MAX_SPARE) {
		s->next = h->spare;
		h->spare = s;
		h->nspare++;
	} else {
		page_give((char *)s, SPAN);
	}
}

static void dealloc(void *p)
{
	struct span *s = span_of(p);
	struct heap *owner = s->heap;
	if (!owner) {
		page_give(s->raw, s->raw_len);
		return;
	}
	if (owner == heap_peek()) {
		*(void **)p = s->free;
		s->free = p;
		if (--s->used == 0) {
			release(owner, s);
		} else if (s->list == LIST_FULL) {
			list_unlink(owner, s);
			list_push(&owner->avail[s->cls], s, LIST_AVAIL);
		}
		return;
	}
	/* Another thread's block.  After the CAS the span may be collected
	 * and given back at any moment: only the heap (never freed) is
	 * touched afterwards. */
	uint32_t c = s->cls;
	void *head = atomic_load_explicit(&s->remote, memory_order_relaxed);
	do {
		*(void **)p = head;
	} while (!atomic_compare_exchange_weak_explicit(&s->remote, &head, p,
			memory_order_release, memory_order_relaxed));
	if (!atomic_load_explicit(&owner->hint[c], memory_order_relaxed))
		atomic_store(&owner->hint[c], 1);
}

static size_t usable(const void *p)
{
	struct span *s = span_of(p);
	if (!s->heap)
		return (size_t)(s->raw + s->raw_len - (const char *)p);
	return s->bsize;
}

/* ---- the C and POSIX entry points ---- */

void *malloc(size_t n)
{
	ONE_LOCK();
	void *p = alloc(n);
	ONE_UNLOCK();
	if (!p)
		errno = ENOMEM;
	return p;
}

void free(void *p)
{
	if (!p)
		return;
	ONE_LOCK();
	dealloc(p);
	ONE_UNLOCK();
}

void *calloc(size_t m, size_t n)
{
	size_t t;
	if (__builtin_mul_overflow(m, n, &t)) {
		errno = ENOMEM;
		return NULL;
	}
	/* alloc, not malloc: compilers turn malloc + memset into a call to
	 * calloc, which here would be this function. */
	ONE_LOCK();
	void *p = alloc(t);
	ONE_UNLOCK();
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	memset(p, 0, t);
	return p;
}

/* realloc(p, 0) frees p and returns NULL, as wasi-libc's dlmalloc did. */
void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	if (n == 0) {
		free(p);
		return NULL;
	}
	size_t have = usable(p);
	/* Shrinking in place keeps at most 4x the bytes asked for. */
	if (n <= have && (have <= 4 * n || have <= 64))
		return p;
	void *q = malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, have < n ? have : n);
	free(p);
	return q;
}

static int bad_align(size_t a)
{
	return a == 0 || (a & (a - 1)) != 0;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (bad_align(align) || align % sizeof(void *) != 0)
		return EINVAL;
	ONE_LOCK();
	void *p = alloc_aligned(align, n);
	ONE_UNLOCK();
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	if (bad_align(align)) {
		errno = EINVAL;
		return NULL;
	}
	ONE_LOCK();
	void *p = alloc_aligned(align, n);
	ONE_UNLOCK();
	if (!p)
		errno = ENOMEM;
	return p;
}

void *memalign(size_t align, size_t n)
{
	return aligned_alloc(align, n);
}

size_t malloc_usable_size(void *p)
{
	return p ? usable(p) : 0;
}

#if defined(__wasm__)
/* wasi-libc's dlmalloc.o also defines these (some of libc calls them):
 * defining them here keeps dlmalloc.o out of the link. */
void *__libc_malloc(size_t n) { return malloc(n); }
void __libc_free(void *p) { free(p); }
void *__libc_calloc(size_t m, size_t n) { return calloc(m, n); }
#endif
