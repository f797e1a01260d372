/* wasm.h - the module IR, the binary decoder and the validator.
 *
 * Contract of src/wasm with the rest of mpiwasm.  wasm_decode() turns the
 * bytes of a .wasm file into a wasm_module; wasm_validate() type-checks it.
 * Only a module that passed both reaches the translator (src/xlate).  The
 * runtime (src/rt) reads the same IR to instantiate (imports, globals,
 * tables, segments), so a cached run decodes without function bodies.
 *
 * Memory: the module owns everything it points to except `bytes`, which the
 * caller keeps alive until wasm_module_free(). */
#ifndef MPIWASM_WASM_H
#define MPIWASM_WASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wasm_module;

/* ---- errors ---------------------------------------------------------- */

enum wasm_errcode {
	WASM_OK = 0,
	WASM_ERR_MALFORMED,   /* the binary format is violated (decoder) */
	WASM_ERR_INVALID,     /* well-formed, but fails validation */
	WASM_ERR_LIMIT,       /* beyond an implementation limit (too many locals...) */
	WASM_ERR_UNSUPPORTED, /* a feature this engine does not translate yet */
	WASM_ERR_NOMEM,
};

/* The first error wins: functions leave a filled record untouched. */
typedef struct wasm_error {
	int code;          /* enum wasm_errcode */
	size_t offset;     /* byte offset in the file where the problem is */
	uint32_t func;     /* function index, or UINT32_MAX when not in a body */
	char msg[256];     /* what was wrong / what was expected */
} wasm_error;

/* Formats "FILE: function 12 (main) at 0x3f1a: MSG" into buf. */
void wasm_error_format(const struct wasm_module *m, const char *file,
                       const wasm_error *e, char *buf, size_t len);

/* ---- types ------------------------------------------------------------ */

enum wasm_valtype {
	WASM_I32 = 0x7F,
	WASM_I64 = 0x7E,
	WASM_F32 = 0x7D,
	WASM_F64 = 0x7C,
	WASM_V128 = 0x7B,
	WASM_FUNCREF = 0x70,
	WASM_EXTERNREF = 0x6F,
};

typedef struct wasm_functype {
	uint32_t nparams, nresults;
	uint8_t *params;   /* enum wasm_valtype each */
	uint8_t *results;
} wasm_functype;

typedef struct wasm_limits {
	uint64_t min, max; /* in pages (memories) or elements (tables) */
	bool has_max;
	bool shared;       /* threads proposal */
} wasm_limits;

typedef struct wasm_tabletype {
	uint8_t elemtype;  /* WASM_FUNCREF or WASM_EXTERNREF */
	wasm_limits lim;
} wasm_tabletype;

typedef struct wasm_memtype {
	wasm_limits lim;
} wasm_memtype;

typedef struct wasm_globaltype {
	uint8_t type;
	bool mut;
} wasm_globaltype;

enum wasm_externkind {
	WASM_EXTERN_FUNC = 0,
	WASM_EXTERN_TABLE = 1,
	WASM_EXTERN_MEMORY = 2,
	WASM_EXTERN_GLOBAL = 3,
	WASM_EXTERN_TAG = 4,     /* exception handling */
};

/* ---- constant expressions -------------------------------------------- */

/* Wasm 2.0 constant expressions are one instruction followed by `end`. */
typedef struct wasm_constexpr {
	uint32_t op;       /* WASM_OP_I32_CONST ... WASM_OP_REF_FUNC, WASM_OP_GLOBAL_GET, v128.const */
	size_t offset;     /* file offset, for diagnostics */
	union {
		int32_t i32;
		int64_t i64;
		uint32_t f32;  /* raw bits */
		uint64_t f64;  /* raw bits */
		uint8_t v128[16];
		uint32_t index;   /* ref.func function, global.get global */
		uint8_t reftype;  /* ref.null */
	} u;
} wasm_constexpr;

/* ---- instructions ---------------------------------------------------- */

#define WASM_PREFIXED(prefix, sub) (((uint32_t)(prefix) << 16) | (uint32_t)(sub))

enum wasm_immkind {
	IMM_NONE, IMM_BLOCK, IMM_LABEL, IMM_BRTABLE, IMM_FUNC, IMM_CALLIND,
	IMM_SELECT_T, IMM_LOCAL, IMM_GLOBAL, IMM_TABLE, IMM_MEM, IMM_MEMIDX,
	IMM_I32, IMM_I64, IMM_F32, IMM_F64, IMM_REFTYPE, IMM_DATA_MEM, IMM_DATA,
	IMM_MEM_MEM, IMM_ELEM_TABLE, IMM_ELEM, IMM_TABLE_TABLE,
	IMM_V128, IMM_LANE, IMM_MEMLANE, IMM_SHUFFLE, IMM_TAG,
};

enum wasm_opcode {
#define OP(ident, name, code, imm, sig) WASM_OP_##ident = (code),
#include "opcodes.def"
#undef OP
};

/* One row of opcodes.def. */
typedef struct wasm_opinfo {
	uint32_t op;
	const char *name;
	uint8_t imm;        /* enum wasm_immkind */
	const char *sig;    /* see opcodes.def; NULL for context-typed ops */
} wasm_opinfo;

/* NULL for an opcode not in the table. */
const wasm_opinfo *wasm_opinfo_get(uint32_t op);

/* The value type of a signature letter of opcodes.def (i I f F V r e);
 * 0 for anything else. */
uint8_t wasm_sig_type(char c);

enum wasm_blockkind {
	WASM_BLOCK_EMPTY,  /* [] -> [] */
	WASM_BLOCK_VAL,    /* [] -> [type] */
	WASM_BLOCK_TYPEIDX /* the function type `type` */
};

/* A decoded instruction.  Bodies are decoded once into an array of these;
 * both the validator and the translator walk the array.
 * `else` and `end` carry a copy of their opening instruction's u.block
 * (kind, type, else_, end), so either can be handled without a stack; the
 * function's final `end` has kind WASM_BLOCK_TYPEIDX with the function's
 * type index, else_ 0 and end its own index.
 * select t: u.two.a = the value type, u.two.b = how many types the binary
 * listed (the validator requires exactly 1).
 * try: u.block as for block, `end` is the index of its `end` or of the
 * `delegate` that closes it; catch, throw: u.index = the tag; rethrow,
 * delegate: u.index = the label depth (delegate's counted after the try
 * it closes). */
typedef struct wasm_instr {
	uint32_t op;        /* enum wasm_opcode */
	uint32_t offset;    /* byte offset in the file */
	union {
		int32_t i32;
		int64_t i64;
		uint32_t f32;   /* raw bits */
		uint64_t f64;   /* raw bits */
		uint8_t v128[16];
		uint8_t lanes[16];   /* i8x16.shuffle */
		uint32_t index;      /* local, global, func, table, label depth,
		                        data or elem segment, ref type, memory */
		struct { uint32_t a, b; } two;
		/* call_indirect: a = type, b = table; memory.init: a = data, b = mem;
		   table.init: a = elem, b = table; table.copy: a = dst, b = src;
		   memory.copy: a = dst mem, b = src mem; select t: a = valtype */
		struct {
			uint8_t kind;    /* enum wasm_blockkind */
			uint32_t type;   /* valtype or type index */
			uint32_t else_;  /* index of the matching `else`, 0 if none */
			uint32_t end;    /* index of the matching `end` */
		} block;
		struct {
			uint32_t count;  /* labels, not counting the default */
			uint32_t first;  /* into wasm_func.brtable: count+1 entries,
			                    the default last */
		} brtable;
		struct {
			uint32_t align;  /* log2 */
			uint32_t offset;
			uint32_t mem;
			uint8_t lane;    /* load/store_lane */
		} mem;
		uint8_t lane;        /* extract/replace_lane */
	} u;
} wasm_instr;

typedef struct wasm_localrun {
	uint32_t count;
	uint8_t type;
} wasm_localrun;

typedef struct wasm_func {
	uint32_t type;           /* type index */
	wasm_localrun *locals;   /* declared locals (not params), as encoded */
	uint32_t nlocalruns;
	uint32_t nlocals;        /* total declared locals */
	wasm_instr *code;        /* the body, final `end` included */
	uint32_t ncode;
	uint32_t *brtable;       /* br_table label pool */
	uint32_t nbrtable;
	size_t body_offset;      /* file offset of the body (after its size) */
	size_t body_size;
} wasm_func;

typedef struct wasm_import {
	char *module, *name;
	uint8_t kind;            /* enum wasm_externkind */
	union {
		uint32_t func_type;  /* type index */
		wasm_tabletype table;
		wasm_memtype mem;
		wasm_globaltype global;
		uint32_t tag_type;   /* type index of an exception tag */
	} u;
} wasm_import;

typedef struct wasm_export {
	char *name;
	uint8_t kind;            /* enum wasm_externkind */
	uint32_t index;
	uint32_t name_len;       /* bytes of name: UTF-8 names may hold NUL */
} wasm_export;

typedef struct wasm_global {
	wasm_globaltype type;
	wasm_constexpr init;     /* unused for imported globals */
	bool imported;
} wasm_global;

enum wasm_segmode { WASM_SEG_ACTIVE, WASM_SEG_PASSIVE, WASM_SEG_DECLARATIVE };

typedef struct wasm_elem {
	uint8_t mode;            /* enum wasm_segmode */
	uint32_t table;          /* active only */
	wasm_constexpr offset;   /* active only */
	uint8_t type;            /* WASM_FUNCREF or WASM_EXTERNREF */
	wasm_constexpr *init;    /* ref.func / ref.null / global.get each */
	uint32_t ninit;
	size_t offset_in_file;
} wasm_elem;

typedef struct wasm_data {
	uint8_t mode;            /* WASM_SEG_ACTIVE or WASM_SEG_PASSIVE */
	uint32_t mem;
	wasm_constexpr offset;   /* active only */
	const uint8_t *bytes;    /* points into the module's input bytes */
	uint32_t size;
	size_t offset_in_file;
} wasm_data;

typedef struct wasm_module {
	const uint8_t *bytes;
	size_t size;

	wasm_functype *types;   uint32_t ntypes;
	wasm_import *imports;   uint32_t nimports;

	/* Index spaces: imports first, then definitions. */
	uint32_t nfuncs, nfunc_imports;
	uint32_t *func_types;   /* type index of every function (nfuncs) */
	wasm_func *funcs;       /* defined functions: funcs[i] is index
	                           nfunc_imports + i */
	uint32_t ntables, ntable_imports;
	wasm_tabletype *tables;
	uint32_t nmems, nmem_imports;
	wasm_memtype *mems;
	uint32_t nglobals, nglobal_imports;
	wasm_global *globals;
	/* Exception tags (section 13): the function type of each, whose
	 * params are the values an exception carries. */
	uint32_t ntags, ntag_imports;
	uint32_t *tags;

	wasm_export *exports;   uint32_t nexports;
	bool has_start;         uint32_t start;
	wasm_elem *elems;       uint32_t nelems;
	wasm_data *datas;       uint32_t ndatas;
	bool has_datacount;     uint32_t datacount;

	/* From the `name` custom section; NULL where absent. */
	char *module_name;
	char **func_names;      /* nfuncs entries, each possibly NULL */

	/* Features seen while decoding, so a refusal can be precise. */
	bool uses_simd, uses_threads, uses_eh;
	bool bodies_decoded;    /* false with WASM_DECODE_NO_BODIES */
} wasm_module;

/* ---- entry points ---------------------------------------------------- */

enum wasm_decode_flags {
	/* Skip instruction decoding of function bodies (cached runs): the
	 * sections are still checked, bodies are only bounded by their size. */
	WASM_DECODE_NO_BODIES = 1u << 0,
};

/* Decodes bytes[0..size) into *out.  Returns 0, or an enum wasm_errcode
 * with *err filled.  Never crashes on any input; allocation is bounded by
 * a small multiple of `size`.  On failure *out is freed and zeroed.
 * Both entry points clear *err first; within one call the first error wins.
 * Limits: 50000 locals per function, 1000 params/results per type
 * (WASM_ERR_LIMIT).  Wasm 2.0 constant expressions are one instruction, so
 * a longer or non-constant one is refused here with WASM_ERR_INVALID. */
int wasm_decode(const uint8_t *bytes, size_t size, unsigned flags,
                wasm_module *out, wasm_error *err);

/* Validates a module decoded with bodies (else WASM_ERR_INVALID).  Returns
 * 0 or WASM_ERR_INVALID (WASM_ERR_LIMIT past an operand stack of 10^6
 * values, WASM_ERR_NOMEM). */
int wasm_validate(const wasm_module *m, wasm_error *err);

void wasm_module_free(wasm_module *m);

/* Name for diagnostics: the name section's, else an export's, else NULL. */
const char *wasm_func_name(const wasm_module *m, uint32_t funcidx);

/* "i32", "i64", ..., or "?" */
const char *wasm_valtype_name(uint8_t t);

#endif
