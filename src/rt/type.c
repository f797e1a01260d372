/* type.c - interned function types: one rt_type per signature string for
 * the whole process, each with a key that call_indirect compares (a
 * constant code of the signature when it fits in 61 bits). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

typedef struct rt_typenode {
	rt_type t;
	struct rt_typenode *next;
	char sig[];
} rt_typenode;

static pthread_mutex_t rt_type_lock = PTHREAD_MUTEX_INITIALIZER;
static rt_typenode *rt_types;

char rt_type_char(uint8_t t);
char rt_type_char(uint8_t t)
{
	switch (t) {
	case WASM_I32: return 'i';
	case WASM_I64: return 'I';
	case WASM_F32: return 'f';
	case WASM_F64: return 'F';
	case WASM_V128: return 'V';
	case WASM_FUNCREF: return 'r';
	case WASM_EXTERNREF: return 'e';
	default: return '?';
	}
}

/* 1..7 for a value type, 0 for none (see rt_type_code in rt.h). */
static uint64_t rt_type_bits(uint8_t t)
{
	switch (t) {
	case WASM_I32: return 1;
	case WASM_I64: return 2;
	case WASM_F32: return 3;
	case WASM_F64: return 4;
	case WASM_V128: return 5;
	case WASM_FUNCREF: return 6;
	case WASM_EXTERNREF: return 7;
	default: return 0;
	}
}

/* The code of np params then nr results (rt_type_code). */
static uint64_t rt_type_code_of(const uint8_t *params, uint32_t np,
                                const uint8_t *results, uint32_t nr)
{
	if ((uint64_t)np + nr > 19)
		return 0;
	uint64_t k = 1;
	for (uint32_t i = 0; i < np; i++)
		k = k << 3 | rt_type_bits(params[i]);
	k <<= 3;
	for (uint32_t i = 0; i < nr; i++)
		k = k << 3 | rt_type_bits(results[i]);
	return k;
}

uint64_t rt_type_code(const wasm_functype *ft)
{
	return rt_type_code_of(ft->params, ft->nparams, ft->results, ft->nresults);
}

const rt_type *rt_type_intern(const char *sig)
{
	const char *colon = strchr(sig, ':');
	if (!colon)
		return NULL;
	for (const char *p = sig; *p; p++)
		if (p != colon && !wasm_sig_type(*p))
			return NULL;
	pthread_mutex_lock(&rt_type_lock);
	rt_typenode *n;
	for (n = rt_types; n; n = n->next)
		if (!strcmp(n->sig, sig))
			break;
	if (!n) {
		size_t len = strlen(sig);
		n = malloc(sizeof *n + 2 * len + 2);
		if (n) {
			memcpy(n->sig, sig, len + 1);
			uint8_t *codes = (uint8_t *)n->sig + len + 1;
			uint32_t np = (uint32_t)(colon - sig), nr = (uint32_t)(len - np - 1);
			for (uint32_t i = 0; i < np; i++)
				codes[i] = wasm_sig_type(sig[i]);
			for (uint32_t i = 0; i < nr; i++)
				codes[np + i] = wasm_sig_type(colon[1 + i]);
			n->t.sig = n->sig;
			n->t.nparams = np;
			n->t.nresults = nr;
			n->t.params = codes;
			n->t.results = codes + np;
			n->t.key = rt_type_code_of(codes, np, codes + np, nr);
			if (!n->t.key)
				n->t.key = (uint64_t)(uintptr_t)&n->t | (uint64_t)1 << 63;
			n->next = rt_types;
			rt_types = n;
		}
	}
	pthread_mutex_unlock(&rt_type_lock);
	return n ? &n->t : NULL;
}

const rt_type *rt_type_of(const wasm_functype *ft)
{
	char small[64];
	size_t len = (size_t)ft->nparams + ft->nresults + 2;
	char *sig = len <= sizeof small ? small : malloc(len);
	if (!sig)
		return NULL;
	size_t k = 0;
	for (uint32_t i = 0; i < ft->nparams; i++)
		sig[k++] = rt_type_char(ft->params[i]);
	sig[k++] = ':';
	for (uint32_t i = 0; i < ft->nresults; i++)
		sig[k++] = rt_type_char(ft->results[i]);
	sig[k] = 0;
	const rt_type *t = rt_type_intern(sig);
	if (sig != small)
		free(sig);
	return t;
}
