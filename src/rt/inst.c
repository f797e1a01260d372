/* inst.c - instantiation: linking imports, globals, tables, memories,
 * element and data segments, the start function; exports; the bulk
 * memory and table instructions generated code calls. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../xlate/xlate.h"

const rt_code *rt_code_from_dl(void *dl, char *err, size_t errlen)
{
	const rt_code *c = dlsym(dl, "mpiwasm_code");
	if (!c) {
		snprintf(err, errlen, "rt_code_from_dl: no mpiwasm_code in the object");
		return NULL;
	}
	if (c->abi != RT_CODE_ABI || !c->version || strcmp(c->version, XLATE_VERSION)) {
		snprintf(err, errlen, "rt_code_from_dl: object built for ABI %u by %s, "
		         "this runtime needs ABI %u by %s", c->abi,
		         c->version ? c->version : "?", RT_CODE_ABI, XLATE_VERSION);
		return NULL;
	}
	return c;
}

const wasm_module *rt_instance_module(const rt_instance *inst)
{
	return inst->mod;
}

void **rt_instance_hostdata(rt_instance *inst, int slot)
{
	if (slot < 0 || slot >= RT_HOST_NSLOTS)
		return NULL;
	return &inst->hostdata[slot];
}

const rt_func *rt_instance_func(rt_instance *inst, uint32_t idx)
{
	return idx < inst->mod->nfuncs ? &inst->funcs[idx] : NULL;
}

/* ---- function lookup by code address (trap messages) ------------------ */

static int rt_cmp_addr(const void *a, const void *b)
{
	const uintptr_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int rt_build_pcmap(rt_instance *inst)
{
	uint32_t n = inst->mod->nfuncs - inst->mod->nfunc_imports;
	uintptr_t *pairs = malloc(((size_t)n + 1) * 2 * sizeof *pairs);
	if (!pairs)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		pairs[2 * i] = (uintptr_t)inst->code->funcs[i];
		pairs[2 * i + 1] = inst->mod->nfunc_imports + i;
	}
	qsort(pairs, n, 2 * sizeof *pairs, rt_cmp_addr);
	inst->fnaddr_sorted = pairs;
	return 0;
}

/* The last entry of the n sorted pairs p at or below pc: its function
 * index, and its address in *at; UINT32_MAX when none is. */
static uint32_t rt_pcmap_find(const uintptr_t *p, uint32_t n, uintptr_t pc, uintptr_t *at)
{
	*at = 0;
	if (!p || n == 0 || pc < p[0])
		return UINT32_MAX;
	uint32_t lo = 0, hi = n;   /* last entry with addr <= pc */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p[2 * mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	*at = p[2 * lo];
	return (uint32_t)p[2 * lo + 1];
}

/* The functions of a tier-1 object (rt_tier_up), for the trap messages of
 * every instance: one module per process. */
static uintptr_t *_Atomic rt_tier1_map;
static uint32_t rt_tier1_n;

uint32_t rt_func_at_pc(const rt_instance *inst, uintptr_t pc)
{
	if (!inst || !inst->fnaddr_sorted)
		return UINT32_MAX;
	uint32_t n = inst->mod->nfuncs - inst->mod->nfunc_imports;
	uintptr_t a0, a1;
	uint32_t f0 = rt_pcmap_find(inst->fnaddr_sorted, n, pc, &a0);
	uintptr_t *t1 = atomic_load_explicit(&rt_tier1_map, memory_order_acquire);
	if (!t1)
		return f0;
	/* The two objects' code does not interleave: the nearer function
	 * start below pc is in the object that holds pc. */
	uint32_t f1 = rt_pcmap_find(t1, rt_tier1_n, pc, &a1);
	return f1 != UINT32_MAX && a1 > a0 ? f1 : f0;
}

int rt_tier_up(const rt_code *t0, void **up, const rt_code *t1, char *err, size_t errlen)
{
	if (t1->nfuncs != t0->nfuncs || t1->nfunc_imports != t0->nfunc_imports ||
	    t1->ntypes != t0->ntypes) {
		snprintf(err, errlen, "the tier-1 object is of another module (%u functions, "
		         "not %u)", t1->nfuncs, t0->nfuncs);
		return -1;
	}
	uint32_t n = t1->nfuncs - t1->nfunc_imports;
	if (!atomic_load(&rt_tier1_map)) {
		uintptr_t *pairs = malloc(((size_t)n + 1) * 2 * sizeof *pairs);
		if (!pairs) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (uint32_t i = 0; i < n; i++) {
			pairs[2 * i] = (uintptr_t)t1->funcs[i];
			pairs[2 * i + 1] = t1->nfunc_imports + i;
		}
		qsort(pairs, n, 2 * sizeof *pairs, rt_cmp_addr);
		rt_tier1_n = n;
		atomic_store_explicit(&rt_tier1_map, pairs, memory_order_release);
	}
	/* The object is loaded and relocated: publish each address. */
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n(&up[i], t1->funcs[i], __ATOMIC_RELEASE);
	return (int)n;
}

/* ---- instantiation ------------------------------------------------------ */

static int rt_eval_const(rt_instance *inst, const wasm_constexpr *e, rt_value *v,
                         char *err, size_t errlen)
{
	memset(v, 0, sizeof *v);
	switch (e->op) {
	case WASM_OP_I32_CONST: v->i32 = (uint32_t)e->u.i32; return 0;
	case WASM_OP_I64_CONST: v->i64 = (uint64_t)e->u.i64; return 0;
	case WASM_OP_F32_CONST: memcpy(&v->f32, &e->u.f32, 4); return 0;
	case WASM_OP_F64_CONST: memcpy(&v->f64, &e->u.f64, 8); return 0;
	case WASM_PREFIXED(0xFD, 0x0C): memcpy(v->v128, e->u.v128, 16); return 0;  /* v128.const */
	case WASM_OP_REF_NULL: v->ref = NULL; return 0;
	case WASM_OP_REF_FUNC:
		if (e->u.index >= inst->mod->nfuncs)
			break;
		v->ref = &inst->funcs[e->u.index];
		return 0;
	case WASM_OP_GLOBAL_GET:
		if (e->u.index >= inst->mod->nglobals || !inst->globals[e->u.index])
			break;
		*v = inst->globals[e->u.index]->v;
		return 0;
	default:
		break;
	}
	snprintf(err, errlen, "rt_instantiate: unsupported constant expression (opcode 0x%x) at 0x%zx",
	         e->op, e->offset);
	return -1;
}

static bool rt_limits_match(uint64_t size, bool has_max, uint64_t max,
                            const wasm_limits *want)
{
	if (size < want->min)
		return false;
	if (want->has_max && (!has_max || max > want->max))
		return false;
	return true;
}

static int rt_link(rt_instance *inst, rt_resolver resolve, void *ud,
                   char *err, size_t errlen)
{
	const wasm_module *m = inst->mod;
	uint32_t fi = 0, ti = 0, mi = 0, gi = 0;
	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *imp = &m->imports[i];
		rt_extern ext;
		memset(&ext, 0, sizeof ext);
		char rerr[256] = "";
		if (resolve(ud, imp, &ext, rerr, sizeof rerr)) {
			snprintf(err, errlen, "%s", rerr[0] ? rerr : "unknown import");
			return -1;
		}
		bool ok = ext.kind == imp->kind;
		switch (ok ? imp->kind : 255) {
		case WASM_EXTERN_FUNC: {
			uint32_t ty = imp->u.func_type;
			const rt_type *want = inst->types[ty];
			rt_func *f = &inst->funcs[fi];
			if (ext.is_host) {
				ok = ext.u.host && rt_type_intern(ext.u.host->sig) == want;
				f->type = want;
				f->fn = ext.u.host ? ext.u.host->fn : NULL;
				f->ctx = inst;
				f->invoke = inst->code->invokes[ty];
				f->index = fi;
			} else {
				ok = ext.u.func && ext.u.func->type == want;
				if (ok)
					*f = *ext.u.func;
			}
			fi++;
			break;
		}
		case WASM_EXTERN_TABLE: {
			rt_table *t = ext.u.table;
			ok = t && t->type == imp->u.table.elemtype &&
			     rt_limits_match(t->size, t->has_max, t->max, &imp->u.table.lim);
			inst->tables[ti++] = t;
			break;
		}
		case WASM_EXTERN_MEMORY: {
			rt_memory *mm = ext.u.mem;
			ok = mm && mm->shared == imp->u.mem.lim.shared &&
			     rt_limits_match(mm->pages, mm->has_max, mm->max_pages, &imp->u.mem.lim);
			inst->mems[mi++] = mm;
			break;
		}
		case WASM_EXTERN_GLOBAL: {
			rt_global *g = ext.u.global;
			ok = g && g->type == imp->u.global.type && g->mut == imp->u.global.mut;
			inst->globals[gi++] = g;
			break;
		}
		default:
			ok = false;
		}
		if (!ok) {
			snprintf(err, errlen, "incompatible import type for %s.%s (%s)",
			         imp->module, imp->name,
			         imp->kind == WASM_EXTERN_FUNC ? inst->types[imp->u.func_type]->sig
			         : imp->kind == WASM_EXTERN_TABLE ? "table"
			         : imp->kind == WASM_EXTERN_MEMORY ? "memory"
			         : imp->kind == WASM_EXTERN_TAG ? "tag: tags cannot be imported"
			         : "global");
			return -1;
		}
	}
	return 0;
}

static int rt_alloc(rt_instance *inst)
{
	const wasm_module *m = inst->mod;
#define RT_ALLOC(field, n) ((inst->field = calloc((size_t)(n) + 1, sizeof *inst->field)) != NULL)
	if (!RT_ALLOC(mems, m->nmems) || !RT_ALLOC(tables, m->ntables) ||
	    !RT_ALLOC(globals, m->nglobals) || !RT_ALLOC(funcs, m->nfuncs) ||
	    !RT_ALLOC(types, m->ntypes) || !RT_ALLOC(datas, m->ndatas) ||
	    !RT_ALLOC(elems, m->nelems) || !RT_ALLOC(owned_mem, m->nmems) ||
	    !RT_ALLOC(owned_table, m->ntables) || !RT_ALLOC(owned_global, m->nglobals))
		return -1;
#undef RT_ALLOC
	return 0;
}

void rt_instance_free(rt_instance *inst)
{
	if (!inst)
		return;
	const wasm_module *m = inst->mod;
	for (uint32_t i = 0; inst->mems && i < m->nmems; i++)
		if (inst->owned_mem[i])
			rt_memory_free(inst->mems[i]);
	for (uint32_t i = 0; inst->tables && i < m->ntables; i++)
		if (inst->owned_table[i])
			rt_table_free(inst->tables[i]);
	for (uint32_t i = 0; inst->globals && i < m->nglobals; i++)
		if (inst->owned_global[i])
			rt_global_free(inst->globals[i]);
	for (uint32_t i = 0; inst->elems && i < m->nelems; i++)
		free(inst->elems[i].refs);
	free(inst->mems);
	free(inst->tables);
	free(inst->globals);
	free(inst->funcs);
	free(inst->types);
	free(inst->datas);
	free(inst->elems);
	free(inst->owned_mem);
	free(inst->owned_table);
	free(inst->owned_global);
	free(inst->fnaddr_sorted);
	free(inst);
}

/* Active segments, then the start function: the part that can trap.  Runs
 * inside a guarded call so rt_trap works as it does for generated code. */
static void rt_init_segments(rt_instance *inst)
{
	const wasm_module *m = inst->mod;
	for (uint32_t i = 0; i < m->nelems; i++) {
		const wasm_elem *e = &m->elems[i];
		if (e->mode == WASM_SEG_ACTIVE) {
			rt_value off;
			char err[128];
			if (rt_eval_const(inst, &e->offset, &off, err, sizeof err))
				rt_trap_host(inst, "%s", err);
			rt_table_init(inst, e->table, i, off.i32, 0, inst->elems[i].size, UINT32_MAX);
		}
		if (e->mode != WASM_SEG_PASSIVE)
			rt_elem_drop(inst, i);
	}
	for (uint32_t i = 0; i < m->ndatas; i++) {
		const wasm_data *d = &m->datas[i];
		if (d->mode != WASM_SEG_ACTIVE)
			continue;
		/* another thread's instance: the memory is already in use */
		if (inst->is_thread && inst->mems[d->mem]->shared)
			continue;
		rt_value off;
		char err[128];
		if (rt_eval_const(inst, &d->offset, &off, err, sizeof err))
			rt_trap_host(inst, "%s", err);
		rt_memory_init(inst, d->mem, i, off.i32, 0, d->size, UINT32_MAX);
		rt_data_drop(inst, i);
	}
}

static void rt_init_invoke(const rt_func *f, const rt_value *args, rt_value *results)
{
	(void)args;
	(void)results;
	rt_init_segments(f->ctx);
}

static int rt_instantiate_in(const wasm_module *m, const rt_code *code,
                             rt_resolver resolve, void *ud, rt_instance *parent,
                             rt_instance **out, rt_trapinfo *trap,
                             char *err, size_t errlen)
{
	*out = NULL;
	if (trap) {
		memset(trap, 0, sizeof *trap);
		trap->func = UINT32_MAX;
	}
	if (!code || code->abi != RT_CODE_ABI || code->ntypes != m->ntypes ||
	    code->nfuncs != m->nfuncs || code->nfunc_imports != m->nfunc_imports) {
		snprintf(err, errlen, "rt_instantiate: compiled code does not match the module");
		return -1;
	}
	rt_instance *inst = calloc(1, sizeof *inst);
	if (!inst) {
		snprintf(err, errlen, "rt_instantiate: out of memory");
		return -1;
	}
	inst->mod = m;
	inst->code = code;
	inst->resolve = resolve ? resolve : rt_resolve_host;
	inst->resolve_ud = ud;
	inst->is_thread = parent != NULL;
	if (parent)
		memcpy(inst->hostdata, parent->hostdata, sizeof inst->hostdata);
	if (rt_alloc(inst))
		goto nomem;
	for (uint32_t t = 0; t < m->ntypes; t++) {
		inst->types[t] = rt_type_of(&m->types[t]);
		if (!inst->types[t])
			goto nomem;
	}
	if (rt_link(inst, inst->resolve, ud, err, errlen))
		goto fail;
	for (uint32_t i = m->nfunc_imports; i < m->nfuncs; i++) {
		rt_func *f = &inst->funcs[i];
		uint32_t ty = m->func_types[i];
		f->type = inst->types[ty];
		f->fn = code->funcs[i - m->nfunc_imports];
		f->ctx = inst;
		f->invoke = code->invokes[ty];
		f->index = i;
	}
	for (uint32_t i = m->nmem_imports; i < m->nmems; i++) {
		if (parent) {
			if (!parent->mems[i]->shared) {
				snprintf(err, errlen, "rt_instantiate_thread: memory %u is not shared "
				         "(link the module with --shared-memory)", i);
				goto fail;
			}
			inst->mems[i] = parent->mems[i];
			continue;
		}
		inst->mems[i] = rt_memory_new(&m->mems[i].lim, err, errlen);
		if (!inst->mems[i])
			goto fail;
		inst->owned_mem[i] = 1;
	}
	for (uint32_t i = m->ntable_imports; i < m->ntables; i++) {
		inst->tables[i] = rt_table_new(m->tables[i].elemtype, &m->tables[i].lim);
		if (!inst->tables[i]) {
			snprintf(err, errlen, "rt_instantiate: cannot allocate table %u of %llu elements",
			         i, (unsigned long long)m->tables[i].lim.min);
			goto fail;
		}
		inst->owned_table[i] = 1;
	}
	for (uint32_t i = m->nglobal_imports; i < m->nglobals; i++) {
		rt_value v;
		if (rt_eval_const(inst, &m->globals[i].init, &v, err, errlen))
			goto fail;
		inst->globals[i] = rt_global_new(m->globals[i].type.type, m->globals[i].type.mut, v);
		if (!inst->globals[i])
			goto nomem;
		inst->owned_global[i] = 1;
	}
	for (uint32_t i = 0; i < m->nelems; i++) {
		const wasm_elem *e = &m->elems[i];
		inst->elems[i].refs = calloc((size_t)e->ninit + 1, sizeof(void *));
		if (!inst->elems[i].refs)
			goto nomem;
		for (uint32_t k = 0; k < e->ninit; k++) {
			rt_value v;
			if (rt_eval_const(inst, &e->init[k], &v, err, errlen))
				goto fail;
			inst->elems[i].refs[k] = v.ref;
		}
		inst->elems[i].size = e->ninit;
	}
	for (uint32_t i = 0; i < m->ndatas; i++) {
		inst->datas[i].bytes = m->datas[i].bytes;
		inst->datas[i].size = m->datas[i].size;
	}
	if (rt_build_pcmap(inst))
		goto nomem;

	/* segments, then start: traps are reported, the instance stays
	 * allocated because tables it wrote may already refer to it */
	rt_func init = {.type = NULL, .fn = NULL, .ctx = inst,
	                .invoke = rt_init_invoke, .index = UINT32_MAX};
	rt_trapinfo ti;
	int rc = rt_call_ex(inst, &init, NULL, NULL, &ti);
	if (rc == RT_TRAP_HOST && ti.func == UINT32_MAX && !strncmp(ti.msg, "rt_instantiate", 14)) {
		snprintf(err, errlen, "%s", ti.msg);
		goto fail;
	}
	if (rc == 0 && m->has_start) {
		const rt_func *sf = &inst->funcs[m->start];
		rt_value res[4];
		rc = rt_call_ex(inst, sf, NULL, res, &ti);
	}
	if (rc) {
		if (trap)
			*trap = ti;
		snprintf(err, errlen, "rt_instantiate: %s", rt_trap_name(rc));
		return rc;   /* the instance is deliberately not freed */
	}
	*out = inst;
	return 0;
nomem:
	snprintf(err, errlen, "rt_instantiate: out of memory");
fail:
	rt_instance_free(inst);
	return -1;
}

int rt_instantiate(const wasm_module *m, const rt_code *code,
                   rt_resolver resolve, void *ud, rt_instance **out,
                   rt_trapinfo *trap, char *err, size_t errlen)
{
	return rt_instantiate_in(m, code, resolve, ud, NULL, out, trap, err, errlen);
}

int rt_instantiate_thread(rt_instance *parent, rt_instance **out,
                          rt_trapinfo *trap, char *err, size_t errlen)
{
	return rt_instantiate_in(parent->mod, parent->code, parent->resolve,
	                         parent->resolve_ud, parent, out, trap, err, errlen);
}

int rt_get_export(rt_instance *inst, const char *name, rt_extern *out)
{
	return rt_get_export_n(inst, name, strlen(name), out);
}

int rt_get_export_n(rt_instance *inst, const char *name, size_t len,
                    rt_extern *out)
{
	const wasm_module *m = inst->mod;
	memset(out, 0, sizeof *out);
	for (uint32_t i = 0; i < m->nexports; i++) {
		const wasm_export *e = &m->exports[i];
		if (e->name_len != len || memcmp(e->name, name, len))
			continue;
		out->kind = e->kind;
		switch (e->kind) {
		case WASM_EXTERN_FUNC: out->u.func = &inst->funcs[e->index]; break;
		case WASM_EXTERN_TABLE: out->u.table = inst->tables[e->index]; break;
		case WASM_EXTERN_MEMORY: out->u.mem = inst->mems[e->index]; break;
		case WASM_EXTERN_GLOBAL: out->u.global = inst->globals[e->index]; break;
		default: return -1;
		}
		return 0;
	}
	return -1;
}

/* ---- bulk memory and tables --------------------------------------------- */

RT_ABI void rt_memory_init(rt_instance *inst, uint32_t mem, uint32_t seg,
                           uint32_t dst, uint32_t src, uint32_t n, uint32_t func)
{
	rt_memory *m = inst->mems[mem];
	rt_segdata *d = &inst->datas[seg];
	if ((uint64_t)src + n > d->size || (uint64_t)dst + n > m->pages * RT_PAGE_SIZE)
		rt_trap(RT_TRAP_MEM_OOB, func);
	if (n)
		memcpy(m->base + dst, d->bytes + src, n);
}

RT_ABI void rt_data_drop(rt_instance *inst, uint32_t seg)
{
	inst->datas[seg].size = 0;
}

RT_ABI void rt_table_init(rt_instance *inst, uint32_t table, uint32_t seg,
                          uint32_t dst, uint32_t src, uint32_t n, uint32_t func)
{
	rt_table *t = inst->tables[table];
	rt_segelem *e = &inst->elems[seg];
	if ((uint64_t)src + n > e->size || (uint64_t)dst + n > t->size)
		rt_trap(RT_TRAP_TABLE_OOB, func);
	for (uint32_t k = 0; k < n; k++)
		rt_table_set(t, dst + k, e->refs[src + k]);
}

RT_ABI void rt_elem_drop(rt_instance *inst, uint32_t seg)
{
	inst->elems[seg].size = 0;
}

RT_ABI void rt_table_copy(rt_instance *inst, uint32_t dt, uint32_t st,
                          uint32_t dst, uint32_t src, uint32_t n, uint32_t func)
{
	rt_table *d = inst->tables[dt], *s = inst->tables[st];
	if ((uint64_t)src + n > s->size || (uint64_t)dst + n > d->size)
		rt_trap(RT_TRAP_TABLE_OOB, func);
	if (n)
		memmove(d->elems + dst, s->elems + src, (size_t)n * sizeof *d->elems);
}

RT_ABI void rt_table_fill(rt_instance *inst, uint32_t table, uint32_t i,
                          void *val, uint32_t n, uint32_t func)
{
	rt_table *t = inst->tables[table];
	if ((uint64_t)i + n > t->size)
		rt_trap(RT_TRAP_TABLE_OOB, func);
	if (n == 0)
		return;
	rt_table_set(t, i, val);
	for (uint32_t k = 1; k < n; k++)
		t->elems[i + k] = t->elems[i];
}
