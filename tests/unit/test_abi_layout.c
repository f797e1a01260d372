/* test_abi_layout.c - the generated-code ABI has two spellings: the
 * runtime's structures in src/rt/rt.h and their mirror in the prelude the
 * translator emits (src/xlate/prelude.h).  Generated code reads fields by
 * the prelude's layout, so every size, alignment and field offset of the
 * mirror must equal the runtime's.  This compiles the real prelude text
 * with the system C compiler, has it print its layout, and compares that
 * with the runtime's, field by field.  Silent on success. */
#include "rt/rt.h"
#include "xlate/prelude.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails;

/* The runtime's side: one "NAME VALUE" line per size, alignment and field
 * offset, in the same order and with the same names as the probe below. */
#define L(name, v) fprintf(f, "%s %zu\n", name, (size_t)(v))
static void rt_layout(FILE *f)
{
	L("value.size", sizeof(rt_value));
	L("value.align", _Alignof(rt_value));
	L("func.size", sizeof(struct rt_func));
	L("func.type", offsetof(struct rt_func, type));
	L("func.fn", offsetof(struct rt_func, fn));
	L("func.ctx", offsetof(struct rt_func, ctx));
	L("func.invoke", offsetof(struct rt_func, invoke));
	L("func.index", offsetof(struct rt_func, index));
	L("memory.base", offsetof(rt_memory, base));
	L("memory.pages", offsetof(rt_memory, pages));
	L("memory.max_pages", offsetof(rt_memory, max_pages));
	L("memory.shared", offsetof(rt_memory, shared));
	L("tabent.size", sizeof(rt_tabent));
	L("tabent.key", offsetof(rt_tabent, key));
	L("tabent.fn", offsetof(rt_tabent, fn));
	L("tabent.ctx", offsetof(rt_tabent, ctx));
	L("tabent.ref", offsetof(rt_tabent, ref));
	L("table.elems", offsetof(rt_table, elems));
	L("table.size", offsetof(rt_table, size));
	L("table.max", offsetof(rt_table, max));
	L("table.type", offsetof(rt_table, type));
	L("global.v", offsetof(rt_global, v));
	L("global.type", offsetof(rt_global, type));
	L("global.mut", offsetof(rt_global, mut));
	L("inst.mems", offsetof(struct rt_instance, mems));
	L("inst.tables", offsetof(struct rt_instance, tables));
	L("inst.globals", offsetof(struct rt_instance, globals));
	L("inst.funcs", offsetof(struct rt_instance, funcs));
	L("inst.types", offsetof(struct rt_instance, types));
	L("code.abi", offsetof(struct rt_code, abi));
	L("code.ntypes", offsetof(struct rt_code, ntypes));
	L("code.nfuncs", offsetof(struct rt_code, nfuncs));
	L("code.nfunc_imports", offsetof(struct rt_code, nfunc_imports));
	L("code.version", offsetof(struct rt_code, version));
	L("code.invokes", offsetof(struct rt_code, invokes));
	L("code.funcs", offsetof(struct rt_code, funcs));
	L("exn.size", sizeof(rt_exn));
	L("exn.inst", offsetof(rt_exn, inst));
	L("exn.tag", offsetof(rt_exn, tag));
	L("exn.func", offsetof(rt_exn, func));
	L("exn.vals", offsetof(rt_exn, vals));
	L("ehframe.size", sizeof(rt_ehframe));
	L("ehframe.prev", offsetof(rt_ehframe, prev));
	L("ehframe.jb", offsetof(rt_ehframe, jb));
	L("eh.top", offsetof(rt_eh, top));
	L("eh.exn", offsetof(rt_eh, exn));
}

/* The prelude's side, as C source appended to the prelude text. */
static const char probe[] =
	"#include <stdio.h>\n#include <stddef.h>\n"
	"#define L(n, v) printf(\"%s %zu\\n\", n, (size_t)(v))\n"
	"int main(void) {\n"
	"L(\"value.size\", sizeof(mw_value)); L(\"value.align\", _Alignof(mw_value));\n"
	"L(\"func.size\", sizeof(struct mw_func));\n"
	"L(\"func.type\", offsetof(struct mw_func, type)); L(\"func.fn\", offsetof(struct mw_func, fn));\n"
	"L(\"func.ctx\", offsetof(struct mw_func, ctx)); L(\"func.invoke\", offsetof(struct mw_func, invoke));\n"
	"L(\"func.index\", offsetof(struct mw_func, index));\n"
	"L(\"memory.base\", offsetof(struct mw_memory, base)); L(\"memory.pages\", offsetof(struct mw_memory, pages));\n"
	"L(\"memory.max_pages\", offsetof(struct mw_memory, max_pages)); L(\"memory.shared\", offsetof(struct mw_memory, shared));\n"
	"L(\"tabent.size\", sizeof(struct mw_tabent));\n"
	"L(\"tabent.key\", offsetof(struct mw_tabent, key)); L(\"tabent.fn\", offsetof(struct mw_tabent, fn));\n"
	"L(\"tabent.ctx\", offsetof(struct mw_tabent, ctx)); L(\"tabent.ref\", offsetof(struct mw_tabent, ref));\n"
	"L(\"table.elems\", offsetof(struct mw_table, elems)); L(\"table.size\", offsetof(struct mw_table, size));\n"
	"L(\"table.max\", offsetof(struct mw_table, max)); L(\"table.type\", offsetof(struct mw_table, type));\n"
	"L(\"global.v\", offsetof(struct mw_global, v)); L(\"global.type\", offsetof(struct mw_global, type));\n"
	"L(\"global.mut\", offsetof(struct mw_global, mut));\n"
	"L(\"inst.mems\", offsetof(struct mw_inst, mems)); L(\"inst.tables\", offsetof(struct mw_inst, tables));\n"
	"L(\"inst.globals\", offsetof(struct mw_inst, globals)); L(\"inst.funcs\", offsetof(struct mw_inst, funcs));\n"
	"L(\"inst.types\", offsetof(struct mw_inst, types));\n"
	"L(\"code.abi\", offsetof(struct mw_code, abi)); L(\"code.ntypes\", offsetof(struct mw_code, ntypes));\n"
	"L(\"code.nfuncs\", offsetof(struct mw_code, nfuncs));\n"
	"L(\"code.nfunc_imports\", offsetof(struct mw_code, nfunc_imports));\n"
	"L(\"code.version\", offsetof(struct mw_code, version)); L(\"code.invokes\", offsetof(struct mw_code, invokes));\n"
	"L(\"code.funcs\", offsetof(struct mw_code, funcs));\n"
	"L(\"exn.size\", sizeof(struct mw_exn)); L(\"exn.inst\", offsetof(struct mw_exn, inst));\n"
	"L(\"exn.tag\", offsetof(struct mw_exn, tag)); L(\"exn.func\", offsetof(struct mw_exn, func));\n"
	"L(\"exn.vals\", offsetof(struct mw_exn, vals));\n"
	"L(\"ehframe.size\", sizeof(struct mw_ehframe)); L(\"ehframe.prev\", offsetof(struct mw_ehframe, prev));\n"
	"L(\"ehframe.jb\", offsetof(struct mw_ehframe, jb));\n"
	"L(\"eh.top\", offsetof(struct mw_eh, top)); L(\"eh.exn\", offsetof(struct mw_eh, exn));\n"
	"return 0; }\n";

/* Writes the prelude with its @NAME@ placeholders (trap kinds, which
 * xlate.c substitutes) replaced by 0: they do not affect layout. */
static void write_prelude(FILE *f)
{
	for (const char *p = xlate_prelude; *p; p++) {
		if (*p == '@') {
			const char *q = strchr(p + 1, '@');
			if (q && q > p + 1 && strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") == (size_t)(q - p - 1)) {
				fputc('0', f);
				p = q;
				continue;
			}
		}
		fputc(*p, f);
	}
}

int main(void)
{
	char dir[] = "/tmp/mpiwasm-abi-XXXXXX";
	if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
	char src[64], exe[64], want[64], got[64], cmd[4096];
	snprintf(src, sizeof src, "%s/probe.c", dir);
	snprintf(exe, sizeof exe, "%s/probe", dir);
	snprintf(want, sizeof want, "%s/rt.txt", dir);
	snprintf(got, sizeof got, "%s/prelude.txt", dir);

	FILE *f = fopen(src, "w");
	if (!f) { perror(src); return 1; }
	write_prelude(f);
	/* (with the two runtime symbols its throw refers to, so it links) */
	fprintf(f, "#define MW_EH_MAXVALS %uu\n%s", RT_EH_MAXVALS, xlate_eh_prelude);
	fputs("__thread struct mw_eh rt_eh_tls;\n"
	      "_Noreturn void rt_eh_uncaught(struct mw_eh *e) { (void)e; __builtin_trap(); }\n", f);
	fputs(probe, f);
	fclose(f);
	f = fopen(want, "w");
	if (!f) { perror(want); return 1; }
	rt_layout(f);
	fclose(f);

	const char *cc = getenv("MPIWASM_CC");
	snprintf(cmd, sizeof cmd, "%s -w -o %s %s && %s > %s", cc && *cc ? cc : "cc", exe, src, exe, got);
	if (system(cmd) != 0) {
		fprintf(stderr, "test_abi_layout: the prelude with the layout probe did not compile or run: %s\n", cmd);
		fails++;
	} else {
		snprintf(cmd, sizeof cmd, "diff %s %s >&2", want, got);
		if (system(cmd) != 0) {
			fprintf(stderr, "test_abi_layout: src/xlate/prelude.h does not mirror src/rt/rt.h "
			        "(lines above: < runtime, > prelude)\n");
			fails++;
		}
		/* The comparison covers every line: an empty probe would agree. */
		snprintf(cmd, sizeof cmd, "test $(grep -c '' %s) -ge 46", got);
		if (system(cmd) != 0) {
			fprintf(stderr, "test_abi_layout: the probe printed fewer fields than expected\n");
			fails++;
		}
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0) fails++;
	return fails != 0;
}
