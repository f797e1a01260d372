/* hello.c - a WASI program: arguments, environment, a file in a granted
 * directory.  Build: clang-19 --target=wasm32-wasi --sysroot=/usr -O2
 * hello.c -o hello.wasm; run: mpiwasm --dir /tmp:/data hello.wasm a b */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	printf("hello from wasm\n");
	for (int i = 0; i < argc; i++)
		printf("argv[%d] = %s\n", i, argv[i]);
	const char *who = getenv("GREETING");
	printf("GREETING = %s\n", who ? who : "(unset)");

	const char *dir = getenv("HELLO_DIR");
	if (!dir)
		return 0;
	char path[256];
	snprintf(path, sizeof path, "%s/hello.txt", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "written by hello.wasm\n");
	fclose(f);
	char line[128] = "";
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof line, f)) {
		perror(path);
		return 1;
	}
	fclose(f);
	printf("read back: %s", line);
	return 0;
}
