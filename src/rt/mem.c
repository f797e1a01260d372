/* mem.c - linear memories (8 GiB reservations), tables and globals. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* Every live reservation, for the fault handler: slots are claimed with
 * a compare-and-swap and read without locks. */
#define RT_MAX_RESERVATIONS 8192
static uintptr_t rt_resv[RT_MAX_RESERVATIONS];

static int rt_resv_add(uintptr_t base)
{
	for (uint32_t i = 0; i < RT_MAX_RESERVATIONS; i++) {
		uintptr_t expect = 0;
		if (__atomic_compare_exchange_n(&rt_resv[i], &expect, base, false,
		                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return (int)i;
	}
	return -1;
}

bool rt_mem_reserved(uintptr_t addr)
{
	for (uint32_t i = 0; i < RT_MAX_RESERVATIONS; i++) {
		uintptr_t b = __atomic_load_n(&rt_resv[i], __ATOMIC_RELAXED);
		if (b && addr >= b && addr - b < RT_MEM_RESERVE)
			return true;
	}
	return false;
}

rt_memory *rt_memory_new(const wasm_limits *lim, char *err, size_t errlen)
{
	if (lim->min > RT_MAX_PAGES || (lim->has_max && lim->max > RT_MAX_PAGES)) {
		snprintf(err, errlen, "rt_memory_new: memory of %llu pages exceeds 65536",
		         (unsigned long long)lim->min);
		return NULL;
	}
	rt_memory *m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(err, errlen, "rt_memory_new: out of memory");
		return NULL;
	}
	void *p = mmap(NULL, RT_MEM_RESERVE, PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "rt_memory_new: cannot reserve 8 GiB of address space: %s",
		         strerror(errno));
		free(m);
		return NULL;
	}
	m->base = p;
	m->pages = 0;
	m->has_max = lim->has_max;
	m->max_pages = lim->has_max ? lim->max : RT_MAX_PAGES;
	m->shared = lim->shared;
	if (lim->min && mprotect(p, lim->min * RT_PAGE_SIZE, PROT_READ | PROT_WRITE)) {
		snprintf(err, errlen, "rt_memory_new: cannot map %llu pages: %s",
		         (unsigned long long)lim->min, strerror(errno));
		munmap(p, RT_MEM_RESERVE);
		free(m);
		return NULL;
	}
	m->pages = lim->min;
	int slot = rt_resv_add((uintptr_t)p);
	if (slot < 0) {
		snprintf(err, errlen, "rt_memory_new: too many live memories (%d)",
		         RT_MAX_RESERVATIONS);
		munmap(p, RT_MEM_RESERVE);
		free(m);
		return NULL;
	}
	m->slot = (uint32_t)slot;
	return m;
}

void rt_memory_free(rt_memory *m)
{
	if (!m)
		return;
	__atomic_store_n(&rt_resv[m->slot], 0, __ATOMIC_SEQ_CST);
	munmap(m->base, RT_MEM_RESERVE);
	free(m);
}

/* Shared memories grow under a lock so concurrent grows each see the
 * size the previous one left; the base never moves either way. */
static pthread_mutex_t rt_grow_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t rt_memory_grow_locked(rt_memory *m, uint32_t delta);

RT_ABI uint32_t rt_memory_grow(rt_memory *m, uint32_t delta)
{
	if (!m->shared)
		return rt_memory_grow_locked(m, delta);
	pthread_mutex_lock(&rt_grow_lock);
	uint32_t r = rt_memory_grow_locked(m, delta);
	pthread_mutex_unlock(&rt_grow_lock);
	return r;
}

static uint32_t rt_memory_grow_locked(rt_memory *m, uint32_t delta)
{
	uint64_t old = m->pages, np = old + delta;
	if (delta == 0)
		return (uint32_t)old;
	if (np > m->max_pages || np > RT_MAX_PAGES)
		return UINT32_MAX;
	if (mprotect(m->base + old * RT_PAGE_SIZE, (uint64_t)delta * RT_PAGE_SIZE,
	             PROT_READ | PROT_WRITE))
		return UINT32_MAX;
	__atomic_store_n(&m->pages, np, __ATOMIC_SEQ_CST);
	return (uint32_t)old;
}

rt_table *rt_table_new(uint8_t elemtype, const wasm_limits *lim)
{
	uint64_t max = lim->has_max ? lim->max : RT_TABLE_LIMIT;
	if (max > RT_TABLE_LIMIT)
		max = RT_TABLE_LIMIT;
	if (lim->min > max)
		return NULL;
	rt_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->type = elemtype;
	t->has_max = lim->has_max;
	t->max = (uint32_t)(lim->has_max && lim->max <= UINT32_MAX ? lim->max : max);
	if (t->max > max)
		t->max = (uint32_t)max;
	t->size = (uint32_t)lim->min;
	t->elems = calloc(t->size ? t->size : 1, sizeof *t->elems);
	if (!t->elems) {
		free(t);
		return NULL;
	}
	return t;
}

void rt_table_free(rt_table *t)
{
	if (!t)
		return;
	free(t->elems);
	free(t);
}

/* The element holding reference ref in a table of type elemtype. */
static rt_tabent rt_tabent_of(uint8_t elemtype, void *ref)
{
	rt_tabent e = {.ref = ref};
	if (ref && elemtype == WASM_FUNCREF) {
		const rt_func *f = ref;
		e.key = f->type->key;
		e.fn = f->fn;
		e.ctx = f->ctx;
	}
	return e;
}

void *rt_table_get(const rt_table *t, uint32_t i)
{
	return t->elems[i].ref;
}

RT_ABI void rt_table_set(rt_table *t, uint32_t i, void *ref)
{
	t->elems[i] = rt_tabent_of(t->type, ref);
}

RT_ABI uint32_t rt_table_grow(rt_table *t, void *init, uint32_t delta)
{
	uint64_t old = t->size, ns = old + delta;
	if (ns > t->max)
		return UINT32_MAX;
	if (delta) {
		rt_tabent *e = realloc(t->elems, (size_t)ns * sizeof *e);
		if (!e)
			return UINT32_MAX;
		rt_tabent v = rt_tabent_of(t->type, init);
		for (uint64_t i = old; i < ns; i++)
			e[i] = v;
		t->elems = e;
		t->size = (uint32_t)ns;
	}
	return (uint32_t)old;
}

rt_global *rt_global_new(uint8_t type, bool mut, rt_value v)
{
	rt_global *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->v = v;
	g->type = type;
	g->mut = mut;
	return g;
}

void rt_global_free(rt_global *g)
{
	free(g);
}
