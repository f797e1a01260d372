/* fuzz_decode.c - libFuzzer target over wasm_decode + wasm_validate.
 *
 * Built two ways (tests/fuzz/rules.mk):
 *   fuzz_decode         clang -fsanitize=fuzzer,address,undefined
 *   fuzz_replay         -DFUZZ_REPLAY: a plain main that runs the target
 *                       once on each file argument (.wasm as is, .hex as
 *                       hexadecimal text), for the regression corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/wasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wasm_module m;
	wasm_error e;
	char line[512];

	/* Full decode, then validation of whatever decoded. */
	if (wasm_decode(data, size, 0, &m, &e) == 0) {
		if (wasm_validate(&m, &e) != 0 && e.code != WASM_ERR_INVALID &&
		    e.code != WASM_ERR_LIMIT && e.code != WASM_ERR_NOMEM)
			abort();   /* the validator reports nothing else */
		wasm_error_format(&m, "fuzz.wasm", &e, line, sizeof line);
		for (uint32_t i = 0; i < m.nfuncs; i++)
			(void)wasm_func_name(&m, i);
		wasm_module_free(&m);
	} else {
		if (e.code == WASM_OK || e.msg[0] == 0)
			abort();   /* a failure must say what failed */
		wasm_error_format(&m, "fuzz.wasm", &e, line, sizeof line);
	}
	/* The cached-run path skips bodies but must be as robust. */
	if (wasm_decode(data, size, WASM_DECODE_NO_BODIES, &m, &e) == 0)
		wasm_module_free(&m);
	return 0;
}

#ifdef FUZZ_REPLAY
static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int main(int argc, char **argv)
{
	unsigned pass = 0, fail = 0;
	for (int a = 1; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");
		if (!f) {
			fprintf(stderr, "fuzz_replay: cannot open %s\n", argv[a]);
			fail++;
			continue;
		}
		size_t cap = 1 << 16, n = 0;
		uint8_t *buf = malloc(cap);
		int c, hi = -1;
		size_t len = strlen(argv[a]);
		int hex = len > 4 && !strcmp(argv[a] + len - 4, ".hex");
		while (buf && (c = fgetc(f)) != EOF) {
			if (hex) {
				if (c == '#') {   /* comment to end of line */
					while ((c = fgetc(f)) != EOF && c != '\n')
						;
					continue;
				}
				int v = hexval(c);
				if (v < 0)
					continue;
				if (hi < 0) { hi = v; continue; }
				c = hi << 4 | v;
				hi = -1;
			}
			if (n == cap) {
				uint8_t *q = realloc(buf, cap *= 2);
				if (!q) { free(buf); buf = NULL; break; }
				buf = q;
			}
			buf[n++] = (uint8_t)c;
		}
		fclose(f);
		if (!buf) {
			fprintf(stderr, "fuzz_replay: out of memory reading %s\n", argv[a]);
			fail++;
			continue;
		}
		LLVMFuzzerTestOneInput(buf, n);   /* a crash is the failure */
		free(buf);
		pass++;
	}
	printf("fuzz: %u passed, %u failed\n", pass, fail);
	return fail != 0;
}
#endif
