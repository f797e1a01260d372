/* test_cache_sha256.c - SHA-256 against the FIPS 180-4 / NIST examples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cache/cache.h"

static int failures;

static void check(const char *what, const void *data, size_t n, size_t chunk,
                  const char *want)
{
	cache_sha256 s;
	uint8_t d[32];
	char hex[65];
	cache_sha256_init(&s);
	const uint8_t *p = data;
	/* Feed in pieces of `chunk` bytes to exercise the buffering. */
	for (size_t off = 0; off < n; off += chunk)
		cache_sha256_update(&s, p + off, n - off < chunk ? n - off : chunk);
	cache_sha256_final(&s, d);
	cache_sha256_hex(d, hex);
	if (strcmp(hex, want)) {
		fprintf(stderr, "test_cache_sha256: %s (chunk %zu): got %s, want %s\n",
		        what, chunk, hex, want);
		failures++;
	}
}

int main(void)
{
	static const size_t chunks[] = { 1, 3, 55, 56, 63, 64, 65, 1000000 };
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	const char *four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
	                   "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	size_t mil = 1000000;
	char *a = malloc(mil);
	if (!a)
		return 1;
	memset(a, 'a', mil);
	for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
		size_t c = chunks[i];
		check("empty", "", 0, c,
		      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		check("abc", "abc", 3, c,
		      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		check("448-bit message", two, strlen(two), c,
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
		check("896-bit message", four, strlen(four), c,
		      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	}
	check("one million 'a'", a, mil, 4096,
	      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	check("one million 'a'", a, mil, 7,
	      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
	return failures != 0;
}
