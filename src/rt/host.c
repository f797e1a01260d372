/* host.c - the host-function registry, import checks, and the memory
 * accessors host functions use. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct rt_hosttab {
	const rt_hostfn *fns;
	size_t n;
} rt_hosttab;

static pthread_mutex_t rt_host_lock = PTHREAD_MUTEX_INITIALIZER;
static rt_hosttab *rt_hosttabs;
static size_t rt_nhosttabs;

void rt_host_register(const rt_hostfn *fns, size_t n)
{
	pthread_mutex_lock(&rt_host_lock);
	for (size_t i = 0; i < rt_nhosttabs; i++)
		if (rt_hosttabs[i].fns == fns) {
			pthread_mutex_unlock(&rt_host_lock);
			return;
		}
	rt_hosttab *t = realloc(rt_hosttabs, (rt_nhosttabs + 1) * sizeof *t);
	if (!t) {
		pthread_mutex_unlock(&rt_host_lock);
		fprintf(stderr, "rt_host_register: out of memory\n");
		abort();
	}
	rt_hosttabs = t;
	rt_hosttabs[rt_nhosttabs].fns = fns;
	rt_hosttabs[rt_nhosttabs].n = n;
	rt_nhosttabs++;
	pthread_mutex_unlock(&rt_host_lock);
}

const rt_hostfn *rt_host_find(const char *module, const char *name)
{
	const rt_hostfn *r = NULL;
	pthread_mutex_lock(&rt_host_lock);
	/* later registrations win, so a test can override a function */
	for (size_t i = rt_nhosttabs; i-- > 0 && !r;)
		for (size_t k = 0; k < rt_hosttabs[i].n; k++) {
			const rt_hostfn *h = &rt_hosttabs[i].fns[k];
			if (!strcmp(h->module, module) && !strcmp(h->name, name)) {
				r = h;
				break;
			}
		}
	pthread_mutex_unlock(&rt_host_lock);
	return r;
}

static const char *rt_kind_name(uint8_t kind)
{
	switch (kind) {
	case WASM_EXTERN_FUNC: return "function";
	case WASM_EXTERN_TABLE: return "table";
	case WASM_EXTERN_MEMORY: return "memory";
	case WASM_EXTERN_TAG: return "tag";
	default: return "global";
	}
}

int rt_resolve_host(void *ud, const wasm_import *imp, rt_extern *out,
                    char *err, size_t errlen)
{
	(void)ud;
	memset(out, 0, sizeof *out);
	if (imp->kind == WASM_EXTERN_FUNC) {
		const rt_hostfn *h = rt_host_find(imp->module, imp->name);
		if (h) {
			out->kind = WASM_EXTERN_FUNC;
			out->is_host = true;
			out->u.host = h;
			return 0;
		}
	}
	snprintf(err, errlen, "unknown import %s.%s (%s)", imp->module, imp->name,
	         rt_kind_name(imp->kind));
	return -1;
}

/* Appends one line to err (keeps what fits). */
static void rt_errline(char *err, size_t errlen, const char *line)
{
	if (!err || !errlen)
		return;
	size_t used = strlen(err);
	if (used + 1 >= errlen)
		return;
	snprintf(err + used, errlen - used, "%s%s", used ? "\n" : "", line);
}

int rt_check_host_imports(const wasm_module *m, const char *file,
                          char *err, size_t errlen)
{
	int problems = 0;
	char line[512];
	if (err && errlen)
		err[0] = 0;
	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *imp = &m->imports[i];
		if (imp->kind != WASM_EXTERN_FUNC) {
			snprintf(line, sizeof line, "%s: import %s.%s: the host provides no %s imports",
			         file, imp->module, imp->name, rt_kind_name(imp->kind));
			rt_errline(err, errlen, line);
			problems++;
			continue;
		}
		const rt_type *want = rt_type_of(&m->types[imp->u.func_type]);
		const rt_hostfn *h = rt_host_find(imp->module, imp->name);
		if (!h) {
			snprintf(line, sizeof line, "%s: unknown import %s.%s (%s)", file,
			         imp->module, imp->name, want ? want->sig : "?");
			rt_errline(err, errlen, line);
			problems++;
		} else if (!want || rt_type_intern(h->sig) != want) {
			snprintf(line, sizeof line,
			         "%s: import %s.%s has type %s, the host's is %s", file,
			         imp->module, imp->name, want ? want->sig : "?", h->sig);
			rt_errline(err, errlen, line);
			problems++;
		}
	}
	return problems;
}

/* ---- memory access for host functions ------------------------------- */

void *rt_mem(rt_instance *inst, uint64_t addr, uint64_t len)
{
	if (!inst || !inst->mod || inst->mod->nmems == 0)
		return NULL;
	rt_memory *m = inst->mems[0];
	uint64_t size = m->pages * RT_PAGE_SIZE;
	if (addr > size || len > size - addr)
		return NULL;
	return m->base + addr;
}

void *rt_mem_array(rt_instance *inst, uint64_t addr, uint64_t n, uint64_t sz)
{
	if (sz && n > UINT64_MAX / sz)
		return NULL;
	return rt_mem(inst, addr, n * sz);
}

uint64_t rt_mem_size(rt_instance *inst)
{
	if (!inst || !inst->mod || inst->mod->nmems == 0)
		return 0;
	return inst->mems[0]->pages * RT_PAGE_SIZE;
}

const rt_func *rt_table_func(rt_instance *inst, uint32_t tableidx,
                             uint32_t idx, const char *sig)
{
	if (tableidx >= inst->mod->ntables)
		return NULL;
	rt_table *t = inst->tables[tableidx];
	if (t->type != WASM_FUNCREF || idx >= t->size || !t->elems[idx].ref)
		return NULL;
	const rt_func *f = t->elems[idx].ref;
	return f->type == rt_type_intern(sig) ? f : NULL;
}

const rt_func *rt_export_func(rt_instance *inst, const char *name,
                              const char *sig)
{
	rt_extern e;
	if (rt_get_export(inst, name, &e) || e.kind != WASM_EXTERN_FUNC)
		return NULL;
	return e.u.func->type == rt_type_intern(sig) ? e.u.func : NULL;
}
