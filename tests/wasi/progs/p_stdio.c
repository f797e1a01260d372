/* stdio, arguments, environment, exit status. */
#include "common.h"

int main(int argc, char **argv)
{
	printf("argc %d\n", argc);
	for (int i = 1; i < argc; i++)
		printf("arg %d: %s\n", i, argv[i]);
	const char *v = getenv("WASI_TEST_VAR");
	printf("env WASI_TEST_VAR=%s\n", v ? v : "(unset)");
	printf("env HOME is %s\n", getenv("WASI_TEST_UNSET") ? "set" : "unset");

	FILE *f = fopen("stdio.txt", "w");
	CHECK("fopen w", f != NULL);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "line %d %s\n", i, "abcdefghijklmnopqrstuvwxyz");
	CHECK("fclose", fclose(f) == 0);
	f = fopen("stdio.txt", "r");
	char buf[128];
	int n = 0;
	long sum = 0;
	while (fgets(buf, sizeof buf, f)) {
		n++;
		sum += (long)strlen(buf);
	}
	printf("lines %d bytes %ld\n", n, sum);
	CHECK("fseek end", fseek(f, 0, SEEK_END) == 0);
	printf("ftell %ld\n", ftell(f));
	CHECK("fseek 100", fseek(f, 100, SEEK_SET) == 0);
	CHECK("fgets after seek", fgets(buf, sizeof buf, f) != NULL);
	printf("at 100: %s", buf);
	fclose(f);

	f = fopen("bin.dat", "wb+");
	static unsigned char big[300000];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (unsigned char)(i * 7 + 3);
	CHECK("fwrite big", fwrite(big, 1, sizeof big, f) == sizeof big);
	rewind(f);
	static unsigned char back[300000];
	CHECK("fread big", fread(back, 1, sizeof back, f) == sizeof back);
	CHECK("same bytes", memcmp(big, back, sizeof big) == 0);
	fclose(f);
	f = fopen("stdio.txt", "a");
	fputs("appended\n", f);
	fclose(f);
	f = fopen("stdio.txt", "r");
	fseek(f, -9, SEEK_END);
	fgets(buf, sizeof buf, f);
	printf("tail: %s", buf);
	fclose(f);
	CHECK("remove", remove("stdio.txt") == 0 && remove("bin.dat") == 0);
	FAILS("fopen missing", fopen("missing.txt", "r") ? 0 : -1, ENOENT);
	fprintf(stderr, "to stderr\n");
	fflush(stdout);
	printf("%s: %d failures\n", __FILE__, failures);
	exit(failures ? 1 : 7);   /* 7: the runner checks exit statuses */
}
