/* spec_agree.c - decode+validate every binary module of wast2json output
 * and compare with what the spec suite expects: `module`,
 * `assert_unlinkable` and `assert_uninstantiable` modules must pass,
 * `assert_malformed` and `assert_invalid` binaries must fail.
 *
 *   spec_agree [-v] [-d] FILE.json...     (-d: decode only, -v: list misses)
 *
 * With -d, assert_invalid is skipped.
 * Prints "spec-agree: N passed, N failed" (+ unsupported count) and exits
 * non-zero on any disagreement.  Modules refused as unsupported (SIMD)
 * are counted apart, not as agreement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/wasm.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			char *q = realloc(buf, cap + 1);
			if (!q) { free(buf); fclose(f); return NULL; }
			buf = q;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	if (!buf && !(buf = malloc(1)))
		return NULL;
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Copies the string value of "key": "..." in line into out. */
static bool field(const char *line, const char *key, char *out, size_t len)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\": \"", key);
	const char *p = strstr(line, pat);
	if (!p)
		return false;
	p += strlen(pat);
	size_t i = 0;
	while (*p && *p != '"' && i + 1 < len)
		out[i++] = *p++;
	out[i] = 0;
	return true;
}

int main(int argc, char **argv)
{
	int verbose = 0, decode_only = 0;
	unsigned pass = 0, failn = 0, unsup = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-v")) { verbose = 1; continue; }
		if (!strcmp(argv[a], "-d")) { decode_only = 1; continue; }
		size_t jlen;
		char *json = slurp(argv[a], &jlen);
		if (!json) {
			fprintf(stderr, "spec_agree: cannot read %s\n", argv[a]);
			failn++;
			continue;
		}
		char dir[4096];
		snprintf(dir, sizeof dir, "%s", argv[a]);
		char *slash = strrchr(dir, '/');
		if (slash) slash[1] = 0; else dir[0] = 0;
		for (char *line = strtok(json, "\n"); line; line = strtok(NULL, "\n")) {
			char type[64], file[512], mtype[32];
			if (!field(line, "type", type, sizeof type) ||
			    !field(line, "filename", file, sizeof file))
				continue;
			bool expect_ok;
			if (!strcmp(type, "module") || !strcmp(type, "assert_unlinkable") ||
			    !strcmp(type, "assert_uninstantiable"))
				expect_ok = true;
			else if (!strcmp(type, "assert_malformed") ||
			         (!strcmp(type, "assert_invalid") && !decode_only))
				expect_ok = false;
			else
				continue;
			if (field(line, "module_type", mtype, sizeof mtype) &&
			    strcmp(mtype, "binary") != 0)
				continue;
			char path[5000];
			snprintf(path, sizeof path, "%s%s", dir, file);
			size_t len;
			char *bytes = slurp(path, &len);
			if (!bytes) {
				fprintf(stderr, "spec_agree: cannot read %s\n", path);
				failn++;
				continue;
			}
			wasm_module m;
			wasm_error e;
			int rc = wasm_decode((const uint8_t *)bytes, len, 0, &m, &e);
			bool decoded = rc == 0;
			if (decoded && !decode_only)
				rc = wasm_validate(&m, &e);
			char msg[512];
			wasm_error_format(&m, path, &e, msg, sizeof msg);
			if (decoded)
				wasm_module_free(&m);
			if (rc == WASM_ERR_UNSUPPORTED) {
				unsup++;
			} else if ((rc == 0) == expect_ok) {
				pass++;
			} else {
				failn++;
				if (verbose) {
					char text[200] = "";
					field(line, "text", text, sizeof text);
					if (rc)
						printf("MISS %s (%s): %s\n", path, type, msg);
					else
						printf("MISS %s (%s, expected \"%s\"): accepted\n",
						       path, type, text);
				}
			}
			free(bytes);
		}
		free(json);
	}
	printf("spec-agree: %u passed, %u failed (%u unsupported)\n", pass, failn, unsup);
	return failn != 0;
}
