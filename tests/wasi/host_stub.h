/* host_stub.h - a stand-in for the runtime (host.h) so the WASI host
 * functions can be driven natively: linear memory is a plain buffer and
 * functions are called through the table wasi_register() hands over. */
#ifndef WASI_HOST_STUB_H
#define WASI_HOST_STUB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "rt/host.h"

struct rt_instance {
	uint8_t *mem;
	uint64_t size;
	jmp_buf exit_jb;
	int exit_status;
	char trap[256];
};

static const rt_hostfn *stub_fns;
static size_t stub_nfns;

void rt_host_register(const rt_hostfn *fns, size_t n)
{
	stub_fns = fns;
	stub_nfns = n;
}

const rt_hostfn *rt_host_find(const char *module, const char *name)
{
	for (size_t i = 0; i < stub_nfns; i++)
		if (!strcmp(stub_fns[i].module, module) &&
		    !strcmp(stub_fns[i].name, name))
			return &stub_fns[i];
	return NULL;
}

void *rt_mem(rt_instance *inst, uint64_t addr, uint64_t len)
{
	if (addr > inst->size || len > inst->size - addr)
		return NULL;
	return inst->mem + addr;
}

void *rt_mem_array(rt_instance *inst, uint64_t addr, uint64_t n, uint64_t sz)
{
	if (sz && n > UINT64_MAX / sz)
		return NULL;
	return rt_mem(inst, addr, n * sz);
}

uint64_t rt_mem_size(rt_instance *inst) { return inst->size; }

void rt_exit(rt_instance *inst, int status)
{
	inst->exit_status = status;
	longjmp(inst->exit_jb, 1);
}

void rt_trap_host(rt_instance *inst, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(inst->trap, sizeof inst->trap, fmt, ap);
	va_end(ap);
	longjmp(inst->exit_jb, 2);
}

/* The function registered as `name`, or exit: a missing one is a bug. */
static void *wfn(const char *name)
{
	const rt_hostfn *f = rt_host_find("wasi_snapshot_preview1", name);
	if (!f) {
		fprintf(stderr, "host_stub: %s is not registered\n", name);
		exit(2);
	}
	return f->fn;
}

#endif
