/* planted.c - what an attacker would put in someone's compile cache: a
 * shared object whose constructor runs at dlopen, before any check of its
 * contents.  It leaves a marker file ($EVIL_MARKER) when it runs. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void planted(void)
{
	const char *m = getenv("EVIL_MARKER");
	FILE *f = m ? fopen(m, "w") : NULL;
	if (f) {
		fputs("planted code ran\n", f);
		fclose(f);
	}
}
