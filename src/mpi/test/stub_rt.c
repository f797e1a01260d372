/* stub_rt.c - a minimal stand-in for src/rt (flat 1 MiB "linear memory",
 * no callbacks) so the bridge can be tested natively under mpirun. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt/host.h"
static uint8_t *mem; static uint64_t memsz = 1 << 20;
static const rt_hostfn *tabs[8]; static size_t ns[8]; static int nt;
void rt_host_register(const rt_hostfn *f, size_t n) { tabs[nt] = f; ns[nt++] = n; }
const rt_hostfn *rt_host_find(const char *m, const char *n) {
	for (int t = 0; t < nt; t++) for (size_t i = 0; i < ns[t]; i++)
		if (!strcmp(tabs[t][i].module, m) && !strcmp(tabs[t][i].name, n)) return &tabs[t][i];
	return NULL; }
void *rt_mem(rt_instance *i, uint64_t a, uint64_t l) { if (!mem) mem = calloc(1, memsz); return a + l <= memsz ? mem + a : NULL; }
void *rt_mem_array(rt_instance *i, uint64_t a, uint64_t n, uint64_t sz) { if (sz && n > memsz / sz) return NULL; return rt_mem(i, a, n * sz); }
uint64_t rt_mem_size(rt_instance *i) { return memsz; }
void rt_trap_rethrow(rt_instance *i, int k) { fprintf(stderr, "trap %d\n", k); exit(3); }
void rt_trap_host(rt_instance *i, const char *f, ...) { fprintf(stderr, "host trap %s\n", f); exit(3); }
int rt_call(rt_instance *i, const rt_func *f, const rt_value *a, rt_value *r) { return 1; }
const rt_func *rt_table_func(rt_instance *i, uint32_t t, uint32_t x, const char *s) { return NULL; }
const rt_func *rt_export_func(rt_instance *i, const char *n, const char *s) { return NULL; }
int rt_signals_install(void) { return 0; }
/* The WASI sandbox (src/wasi): no directory is granted in this test, so
 * every MPI-IO path is outside the grants, as for a module run without
 * --dir. */
#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>
char *wasi_sandbox_path(const char *p, bool w) { (void)p; (void)w; errno = EACCES; return NULL; }
int wasi_sandbox_open(const char *p, int f, mode_t m, char *o, size_t n)
{ (void)p; (void)f; (void)m; (void)o; (void)n; errno = EACCES; return -1; }
