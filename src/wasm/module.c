/* module.c - the opcode table, names for diagnostics, and freeing a module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/wasm.h"

/* Row numbers of opcodes.def, so the lookup switch can index the table. */
enum {
#define OP(ident, name, code, imm, sig) WASM_ROW_##ident,
#include "wasm/opcodes.def"
#include "wasm/opcodes_simd.def"
#include "wasm/opcodes_atomic.def"
#undef OP
	WASM_NROWS
};

static const wasm_opinfo wasm_optab[WASM_NROWS] = {
#define OP(ident, name, code, imm, sig) { (code), (name), (imm), (sig) },
#include "wasm/opcodes.def"
#include "wasm/opcodes_simd.def"
#include "wasm/opcodes_atomic.def"
#undef OP
};

const wasm_opinfo *wasm_opinfo_get(uint32_t op)
{
	switch (op) {
#define OP(ident, name, code, imm, sig) case (code): return &wasm_optab[WASM_ROW_##ident];
#include "wasm/opcodes.def"
#include "wasm/opcodes_simd.def"
#include "wasm/opcodes_atomic.def"
#undef OP
	default:
		return NULL;
	}
}

uint8_t wasm_sig_type(char c)
{
	switch (c) {
	case 'i': return WASM_I32;
	case 'I': return WASM_I64;
	case 'f': return WASM_F32;
	case 'F': return WASM_F64;
	case 'V': return WASM_V128;
	case 'r': return WASM_FUNCREF;
	case 'e': return WASM_EXTERNREF;
	default: return 0;
	}
}

const char *wasm_valtype_name(uint8_t t)
{
	switch (t) {
	case WASM_I32: return "i32";
	case WASM_I64: return "i64";
	case WASM_F32: return "f32";
	case WASM_F64: return "f64";
	case WASM_V128: return "v128";
	case WASM_FUNCREF: return "funcref";
	case WASM_EXTERNREF: return "externref";
	default: return "?";
	}
}

const char *wasm_func_name(const wasm_module *m, uint32_t funcidx)
{
	if (!m || funcidx >= m->nfuncs)
		return NULL;
	if (m->func_names && m->func_names[funcidx])
		return m->func_names[funcidx];
	for (uint32_t i = 0; i < m->nexports; i++)
		if (m->exports[i].kind == WASM_EXTERN_FUNC &&
		    m->exports[i].index == funcidx)
			return m->exports[i].name;
	return NULL;
}

void wasm_error_format(const wasm_module *m, const char *file,
                       const wasm_error *e, char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	const char *f = file ? file : "module";
	if (e->func != UINT32_MAX) {
		const char *name = wasm_func_name(m, e->func);
		if (name)
			snprintf(buf, len, "%s: function %u (%s) at 0x%zx: %s", f,
			         e->func, name, e->offset, e->msg);
		else
			snprintf(buf, len, "%s: function %u at 0x%zx: %s", f,
			         e->func, e->offset, e->msg);
	} else {
		snprintf(buf, len, "%s: at 0x%zx: %s", f, e->offset, e->msg);
	}
}

void wasm_module_free(wasm_module *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->ntypes; i++) {
		free(m->types[i].params);
		free(m->types[i].results);
	}
	free(m->types);
	for (uint32_t i = 0; i < m->nimports; i++) {
		free(m->imports[i].module);
		free(m->imports[i].name);
	}
	free(m->imports);
	free(m->func_types);
	if (m->funcs) {
		for (uint32_t i = 0; i < m->nfuncs - m->nfunc_imports; i++) {
			free(m->funcs[i].locals);
			free(m->funcs[i].code);
			free(m->funcs[i].brtable);
		}
	}
	free(m->funcs);
	free(m->tables);
	free(m->mems);
	free(m->globals);
	free(m->tags);
	for (uint32_t i = 0; i < m->nexports; i++)
		free(m->exports[i].name);
	free(m->exports);
	for (uint32_t i = 0; i < m->nelems; i++)
		free(m->elems[i].init);
	free(m->elems);
	free(m->datas);
	free(m->module_name);
	if (m->func_names) {
		for (uint32_t i = 0; i < m->nfuncs; i++)
			free(m->func_names[i]);
	}
	free(m->func_names);
	memset(m, 0, sizeof *m);
}
